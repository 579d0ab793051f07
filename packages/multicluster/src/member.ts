// The member cluster's reconcilers: joins the leader named in its ClusterSet (token Secret),
// heartbeats a MemberClusterAnnounce, exports ServiceExports as ResourceExports and imports the
// leader's ResourceImports as local Service/Endpoints/ServiceImport.
import type { ClusterSet, Condition, EndpointSlice, Endpoints, Gateway, ResourceExport, ResourceImport, Service, ServiceExport } from '@switchyard/apis';
import { KubeRequestError, silentLogger, systemClock, type Clock, type InformerOptions, type KubeClient, type KubeObject, type Logger, type TimerHandle } from '@switchyard/kube';
import { condition, memberStatus, validateClusterSet } from './clusterset';
import { MulticlusterError } from './errors';
import { InformerSet } from './informers';
import { connectLeader, readLeaderAccess, type LeaderConnector } from './leader-access';
import { acnpImportPlan } from './acnp';
import { clusterInfoExport, clusterInfoImportsFor } from './cluster-info';
import { chooseGateway, type GatewayIPPrecedence, type GatewayNode } from './gateway';
import { labelIdentityExports, labelIdentityObjects } from './label-identity';
import {
  CLUSTER_INFO_IMPORTS,
  CLUSTER_NETWORK_POLICIES,
  CLUSTERSETS,
  ENDPOINTS,
  ENDPOINT_SLICES,
  GATEWAYS,
  LABEL_IDENTITIES,
  LABEL_SOURCE_CLUSTER,
  MEMBER_ANNOUNCES,
  NAMESPACES,
  NODES,
  PODS,
  RESOURCE_EXPORTS,
  RESOURCE_IMPORTS,
  SERVICES,
  SERVICE_EXPORTS,
  SERVICE_IMPORTS,
  SERVICE_NAME_LABEL,
  TIERS,
  TOUCH_ANNOTATION,
  announceName,
  apiVersionOf,
  objectPath,
} from './resources';
import { serviceExportPlan, type EndpointIPType } from './service-export';
import { discoverServiceCIDRs, type ServiceCIDRs } from './service-cidr';
import { isImported, serviceImportPlan } from './service-import';
import { Resync, converge, deleteIgnoringMissing, patchStatus } from './sync';

/** The configured ranges by family: `serviceCIDR` may be an IPv6-only cluster's IPv6 range. */
function configuredServiceCIDRs(serviceCIDR: string | undefined, serviceCIDRv6: string | undefined): ServiceCIDRs {
  const v6 = serviceCIDRv6 ?? (serviceCIDR?.includes(':') ? serviceCIDR : undefined);
  const v4 = serviceCIDR && !serviceCIDR.includes(':') ? serviceCIDR : undefined;
  return { ...(v4 ? { serviceCIDR: v4 } : {}), ...(v6 ? { serviceCIDRv6: v6 } : {}) };
}

/** A lookup of a Service's EndpointSlices by its namespace and name. */
function slicesOf(slices: readonly EndpointSlice[]): (ns: string, name: string) => EndpointSlice[] {
  const by = new Map<string, EndpointSlice[]>();
  for (const sl of slices) {
    const svc = sl.metadata.labels?.[SERVICE_NAME_LABEL];
    if (!svc) continue;
    const k = `${sl.metadata.namespace ?? ''}/${svc}`;
    by.set(k, [...(by.get(k) ?? []), sl]);
  }
  return (ns, name) => by.get(`${ns}/${name}`) ?? [];
}

/** Options of {@link MemberController}. */
export interface MemberOptions {
  /** Client of this member cluster. */
  kube: KubeClient;
  /** Namespace of this member's Multi-cluster Controller (its ClusterSet and token Secret). */
  namespace: string;
  /** ClusterSet ID this member belongs to; the ClusterSet must be named so. Default: its name. */
  clusterSetID?: string;
  /** Endpoints of exported Services: the Service ClusterIP (default) or the Pod IPs. */
  endpointIPType?: EndpointIPType;
  /**
   * Export the label identities of this member's Pods and import the leader's LabelIdentities
   * (MultiClusterConfig `enableStretchedNetworkPolicy`; default false).
   */
  enableStretchedNetworkPolicy?: boolean;
  /** gatewayIP from the Gateway Node's InternalIP (default) or ExternalIP (`gatewayIPPrecedence`). */
  gatewayIPPrecedence?: GatewayIPPrecedence;
  /** Service CIDR exported in this member's ClusterInfo (MultiClusterConfig `serviceCIDR`). */
  serviceCIDR?: string;
  /** A dual-stack member's IPv6 Service CIDR, exported beside `serviceCIDR` (MultiClusterConfig `serviceCIDRv6`). */
  serviceCIDRv6?: string;
  /**
   * The ranges not configured are discovered from the API server (a refused Service create per
   * family, as Antrea does for IPv4) once this member has a Gateway. Default true.
   */
  discoverServiceCIDR?: boolean;
  /** Pod CIDRs exported in this member's ClusterInfo (MultiClusterConfig `podCIDRs`). */
  podCIDRs?: string[];
  /** MemberClusterAnnounce refresh period (default 10 000 ms). */
  heartbeatIntervalMs?: number;
  /** Retry delays of the join, export and import passes after a failure (default 500 ms doubling to 30 s). */
  resyncBackoff?: { initialMs?: number; maxMs?: number };
  /** How to reach the leader (default: HTTPS with the Secret's token and CA). */
  connect?: LeaderConnector;
  clock?: Clock;
  logger?: Logger;
  informer?: Omit<InformerOptions, 'clock' | 'logger' | 'namespace'>;
}

interface LeaderSession {
  key: string;
  client: KubeClient;
  namespace: string;
  clusterID: string;
  leaderID: string;
  clusterSetName: string;
  informers: InformerSet;
  exports: Map<string, KubeObject>;
  imports: Map<string, KubeObject>;
  heartbeat?: TimerHandle;
  synced: boolean;
}

/** Runs a member's reconcilers: `start()`, then `stop()`. */
export class MemberController {
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly local: InformerSet;
  private readonly joinPass: Resync;
  private readonly exportPass: Resync;
  private readonly importPass: Resync;
  private readonly gatewayPass: Resync;
  private nodes!: Map<string, KubeObject>;
  private gateways!: Map<string, KubeObject>;
  private clusterInfoImports!: Map<string, KubeObject>;
  private clustersets!: Map<string, KubeObject>;
  private serviceExports!: Map<string, KubeObject>;
  private services!: Map<string, KubeObject>;
  private endpoints!: Map<string, KubeObject>;
  /** EndpointSlices, with `endpointIPType: PodIP` only (a dual-stack Service's second family). */
  private endpointSlices: Map<string, KubeObject> | undefined;
  private serviceImports!: Map<string, KubeObject>;
  private namespaces!: Map<string, KubeObject>;
  private tiers!: Map<string, KubeObject>;
  private pods: Map<string, KubeObject> | undefined;
  private labelIdentities: Map<string, KubeObject> | undefined;
  private policies!: Map<string, KubeObject>;
  /** ACNPImportFailed Events already sent: import uid, resourceVersion and message. */
  private readonly reported = new Set<string>();
  private session: LeaderSession | undefined;
  private discovered: ServiceCIDRs | undefined;
  private discoveryTried = false;
  /** The session of a ClusterSet that was deleted, until its leader-side cleanup succeeded. */
  private leaving: LeaderSession | undefined;
  private leaderState = { connected: false, reason: 'Connecting', message: 'not connected to the leader yet' };
  private started = false;
  private stopped = false;

  constructor(private readonly o: MemberOptions) {
    if (o.endpointIPType !== undefined && o.endpointIPType !== 'ClusterIP' && o.endpointIPType !== 'PodIP')
      throw new MulticlusterError('INVALID_OPTION', `endpointIPType must be ClusterIP or PodIP, got "${String(o.endpointIPType)}"`, 'endpointIPType', o.endpointIPType);
    this.clock = o.clock ?? systemClock;
    this.log = o.logger ?? silentLogger;
    this.local = new InformerSet(o.kube, { ...o.informer, clock: this.clock, logger: this.log });
    const backoff = { ...(o.resyncBackoff?.initialMs !== undefined ? { initialBackoffMs: o.resyncBackoff.initialMs } : {}), ...(o.resyncBackoff?.maxMs !== undefined ? { maxBackoffMs: o.resyncBackoff.maxMs } : {}) };
    const r = (name: string, pass: () => Promise<void>): Resync => new Resync(pass, { name, clock: this.clock, logger: this.log, ...backoff });
    this.joinPass = r('member-clusterset', () => this.join());
    this.exportPass = r('member-service-export', () => this.exportServices());
    this.importPass = r('member-service-import', () => this.importServices());
    this.gatewayPass = r('member-gateway', () => this.electGateway());
  }

  async start(): Promise<void> {
    const whenStarted = (f: () => void) => () => {
      if (this.started) f();
    };
    const both = whenStarted(() => {
      this.exportPass.schedule();
      this.importPass.schedule();
    });
    this.clustersets = this.local.watch(CLUSTERSETS, whenStarted(() => this.joinPass.schedule()), { namespace: this.o.namespace });
    this.serviceExports = this.local.watch(SERVICE_EXPORTS, whenStarted(() => this.exportPass.schedule()));
    this.services = this.local.watch(SERVICES, both);
    this.endpoints = this.local.watch(ENDPOINTS, whenStarted(() => this.exportPass.schedule()));
    if (this.o.endpointIPType === 'PodIP') this.endpointSlices = this.local.watch(ENDPOINT_SLICES, whenStarted(() => this.exportPass.schedule()));
    this.serviceImports = this.local.watch(SERVICE_IMPORTS, whenStarted(() => this.importPass.schedule()));
    this.namespaces = this.local.watch(NAMESPACES, both);
    this.tiers = this.local.watch(TIERS, whenStarted(() => this.importPass.schedule()));
    this.policies = this.local.watch(CLUSTER_NETWORK_POLICIES, whenStarted(() => this.importPass.schedule()));
    if (this.o.enableStretchedNetworkPolicy) {
      this.pods = this.local.watch(PODS, whenStarted(() => this.exportPass.schedule()));
      this.labelIdentities = this.local.watch(LABEL_IDENTITIES, whenStarted(() => this.importPass.schedule()));
    }
    this.nodes = this.local.watch(NODES, whenStarted(() => this.gatewayPass.schedule()));
    this.gateways = this.local.watch(GATEWAYS, whenStarted(() => {
      this.gatewayPass.schedule();
      this.exportPass.schedule();
    }), { namespace: this.o.namespace });
    this.clusterInfoImports = this.local.watch(CLUSTER_INFO_IMPORTS, whenStarted(() => this.importPass.schedule()), { namespace: this.o.namespace });
    await this.local.synced();
    this.started = true;
    this.gatewayPass.schedule();
    this.joinPass.schedule();
    await this.joinPass.idle();
  }

  /** Whether the last heartbeat reached the leader. */
  get connected(): boolean {
    return this.leaderState.connected;
  }

  private clusterSet(): ClusterSet | undefined {
    const all = [...this.clustersets.values()].sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
    return all[0] as unknown as ClusterSet | undefined;
  }

  private now(): string {
    return new Date(this.clock.now()).toISOString();
  }

  /** ClusterSet pass: validate, (re)connect to the leader when its access changed, write status. */
  private async join(): Promise<void> {
    const cs = this.clusterSet();
    if (!cs) {
      await this.leave();
      return;
    }
    const problems = validateClusterSet(cs, { role: 'member', clusterSetID: this.o.clusterSetID ?? cs.metadata.name ?? '' });
    if (problems.length > 0) {
      await this.disconnect();
      this.log.warn({ clusterSet: cs.metadata.name, problems }, 'ClusterSet refused');
      await patchStatus(this.o.kube, CLUSTERSETS, cs as unknown as KubeObject, memberStatus(cs, this.leaderState, problems, this.now()));
      return;
    }
    const leader = cs.spec.leaders[0]!;
    const key = JSON.stringify([cs.metadata.name, cs.spec.clusterID, leader.clusterID, leader.server, leader.secret, cs.spec.namespace]);
    if (this.session?.key !== key) {
      await this.disconnect();
      try {
        const access = await readLeaderAccess(this.o.kube, this.o.namespace, leader.secret ?? '', leader.server ?? '');
        await this.connect(key, cs, (this.o.connect ?? connectLeader)(access));
      } catch (e) {
        if (!(e instanceof MulticlusterError)) throw e;
        this.leaderState = { connected: false, reason: 'LeaderSecretInvalid', message: e.message };
      }
    }
    await patchStatus(this.o.kube, CLUSTERSETS, cs as unknown as KubeObject, memberStatus(cs, this.leaderState, [], this.now()));
  }

  private async connect(key: string, cs: ClusterSet, client: KubeClient): Promise<void> {
    const clusterID = cs.spec.clusterID ?? '';
    const namespace = cs.spec.namespace ?? '';
    const informers = new InformerSet(client, { ...this.o.informer, clock: this.clock, logger: this.log });
    const s: LeaderSession = {
      key,
      client,
      namespace,
      clusterID,
      leaderID: cs.spec.leaders[0]?.clusterID ?? '',
      clusterSetName: cs.metadata.name ?? '',
      informers,
      exports: informers.watch(RESOURCE_EXPORTS, () => s.synced && this.exportPass.schedule(), { namespace, labelSelector: `${LABEL_SOURCE_CLUSTER}=${clusterID}` }),
      imports: informers.watch(RESOURCE_IMPORTS, () => s.synced && this.importPass.schedule(), { namespace }),
      synced: false,
    };
    this.session = s;
    this.log.info({ leader: s.leaderID, namespace, clusterID }, 'connecting to the leader');
    await this.heartbeat(s);
    // Informers sync in the background: a leader that is down now is retried by them.
    void informers.synced().then(() => {
      if (this.session !== s) return;
      s.synced = true;
      this.exportPass.schedule();
      this.importPass.schedule();
    });
  }

  /**
   * The ClusterSet is gone: stop heartbeats, take this member's ResourceExports and announce out of
   * the leader, and delete what it imported here. A failure is retried (the session is kept in
   * `leaving` until the leader's side is clean).
   */
  private async leave(): Promise<void> {
    if (this.session) {
      this.leaving = this.session;
      await this.disconnect();
    }
    const s = this.leaving;
    if (s) {
      for (const re of s.exports.values()) await deleteIgnoringMissing(s.client, objectPath(RESOURCE_EXPORTS, s.namespace, re.metadata.name ?? ''));
      await deleteIgnoringMissing(s.client, objectPath(MEMBER_ANNOUNCES, s.namespace, announceName(s.clusterID)));
      this.leaving = undefined;
      this.log.info({ leader: s.leaderID, exports: s.exports.size }, 'left the ClusterSet: exports and announce removed from the leader');
    }
    const imported = (c: Map<string, KubeObject> | undefined): KubeObject[] => [...(c?.values() ?? [])].filter((o) => isImported(o as { metadata: { annotations?: Record<string, string> } }));
    const none = (): Record<string, unknown> => ({});
    let writes = 0;
    writes += await converge(this.o.kube, SERVICES, [], imported(this.services), none);
    writes += await converge(this.o.kube, ENDPOINTS, [], imported(this.endpoints), none);
    writes += await converge(this.o.kube, SERVICE_IMPORTS, [], imported(this.serviceImports), none);
    writes += await converge(this.o.kube, CLUSTER_NETWORK_POLICIES, [], imported(this.policies), none);
    if (this.labelIdentities) writes += await converge(this.o.kube, LABEL_IDENTITIES, [], this.labelIdentities.values(), none);
    writes += await converge(this.o.kube, CLUSTER_INFO_IMPORTS, [], this.clusterInfoImports.values(), none);
    if (writes > 0) this.log.info({ deleted: writes }, 'imported objects removed (no ClusterSet)');
  }

  private async disconnect(): Promise<void> {
    const s = this.session;
    if (!s) return;
    this.session = undefined;
    s.heartbeat?.cancel();
    await s.informers.stop();
    this.leaderState = { connected: false, reason: 'Disconnected', message: 'not connected to the leader' };
  }

  /** Creates or touches the MemberClusterAnnounce, then sets the next heartbeat. */
  private async heartbeat(s: LeaderSession): Promise<void> {
    if (this.session !== s || this.stopped) return;
    const name = announceName(s.clusterID);
    const path = objectPath(MEMBER_ANNOUNCES, s.namespace, name);
    const touch = { metadata: { annotations: { [TOUCH_ANNOTATION]: this.now() } }, clusterID: s.clusterID, clusterSetID: s.clusterSetName, leaderClusterID: s.leaderID };
    const was = this.leaderState.connected;
    try {
      try {
        await s.client.request('PATCH', path, touch, 'application/merge-patch+json');
      } catch (e) {
        if (!(e instanceof KubeRequestError && e.status === 404)) throw e;
        await s.client.request('POST', path.slice(0, path.lastIndexOf('/')), { apiVersion: apiVersionOf(MEMBER_ANNOUNCES), kind: 'MemberClusterAnnounce', ...touch, metadata: { name, namespace: s.namespace, ...touch.metadata } });
      }
      this.leaderState = { connected: true, reason: 'Connected', message: `connected to leader ${s.leaderID}` };
    } catch (e) {
      const status = e instanceof KubeRequestError ? e.status : 0;
      const reason = status === 401 || status === 403 ? 'LeaderAccessDenied' : 'LeaderUnreachable';
      this.leaderState = { connected: false, reason, message: `heartbeat to leader ${s.leaderID} failed: ${(e as Error).message}` };
      this.log.warn({ leader: s.leaderID, err: (e as Error).message }, 'heartbeat failed');
    }
    if (was !== this.leaderState.connected) this.joinPass.schedule();
    if (this.session === s && !this.stopped) s.heartbeat = this.clock.setTimeout(() => void this.heartbeat(s), this.o.heartbeatIntervalMs ?? 10_000);
  }

  /** Export pass: ServiceExports -> this member's ResourceExports in the leader, and their statuses. */
  private async exportServices(): Promise<void> {
    const s = this.session;
    if (!s?.synced) return;
    const get = <T>(cache: Map<string, KubeObject>) => (ns: string, name: string): T | undefined => cache.get(`${ns}/${name}`) as T | undefined;
    const ses = [...this.serviceExports.values()] as unknown as ServiceExport[];
    const plan = serviceExportPlan({
      clusterID: s.clusterID,
      leaderNamespace: s.namespace,
      endpointIPType: this.o.endpointIPType ?? 'ClusterIP',
      serviceExports: ses,
      service: get<Service>(this.services),
      endpoints: get<Endpoints>(this.endpoints),
      ...(this.endpointSlices ? { endpointSlices: slicesOf([...this.endpointSlices.values()] as unknown as EndpointSlice[]) } : {}),
      now: this.now(),
    });
    const labelExports = this.pods
      ? labelIdentityExports({
          clusterID: s.clusterID,
          leaderNamespace: s.namespace,
          pods: [...this.pods.values()].filter((p) => !(p['spec'] as { hostNetwork?: boolean } | undefined)?.hostNetwork),
          namespaceLabels: (ns) => this.namespaces.get(ns)?.metadata.labels,
        })
      : [];
    const gateway = [...this.gateways.values()][0] as unknown as Gateway | undefined;
    const cidrs = gateway ? await this.serviceCIDRs() : {};
    const clusterInfo = clusterInfoExport({
      clusterID: s.clusterID,
      leaderNamespace: s.namespace,
      gateway,
      ...cidrs,
      ...(this.o.podCIDRs ? { podCIDRs: this.o.podCIDRs } : {}),
    });
    const desired = [...plan.resourceExports, ...labelExports, ...clusterInfo];
    const writes = await converge(s.client, RESOURCE_EXPORTS, desired as unknown as KubeObject[], s.exports.values(), (o) => ({ metadata: { labels: o.metadata.labels }, spec: o['spec'] }));
    if (writes > 0) this.log.info({ writes, exports: plan.resourceExports.length }, 'ResourceExports converged');
    for (const se of ses) {
      const k = `${se.metadata.namespace ?? ''}/${se.metadata.name ?? ''}`;
      const valid = plan.valid.get(k);
      if (!valid) continue;
      const conditions: Condition[] = [valid];
      if (valid.status === 'True') {
        const re = s.exports.get(`${s.namespace}/${s.clusterID}-${se.metadata.namespace ?? ''}-${se.metadata.name ?? ''}-service`) as unknown as ResourceExport | undefined;
        const failed = re?.status?.conditions?.find((c) => c.type === 'Ready' && c.status === 'False' && c.reason === 'ConvergeFailure');
        const prev = se.status?.conditions;
        conditions.push(failed ? condition('Conflict', true, 'ConvergeFailure', failed.message ?? '', this.now(), prev) : condition('Conflict', false, 'NoConflict', 'no conflicting export', this.now(), prev));
      }
      await patchStatus(this.o.kube, SERVICE_EXPORTS, se as unknown as KubeObject, { conditions });
    }
  }

  /**
   * The service CIDRs by family: a configured one (`serviceCIDR` of either family, `serviceCIDRv6`),
   * else the discovered one. Discovery runs until it has answered once (once only beside a
   * configured range); a failure is logged and retried next pass.
   */
  private async serviceCIDRs(): Promise<ServiceCIDRs> {
    const configured = configuredServiceCIDRs(this.o.serviceCIDR, this.o.serviceCIDRv6);
    if (configured.serviceCIDR && configured.serviceCIDRv6) return configured;
    const retry = !this.discoveryTried || Object.keys(configured).length === 0;
    if (!this.discovered && retry && this.o.discoverServiceCIDR !== false) {
      this.discoveryTried = true;
      try {
        this.discovered = await discoverServiceCIDRs(this.o.kube, this.o.namespace);
        this.log.info({ ...this.discovered }, 'service CIDRs discovered');
      } catch (e) {
        this.log.warn({ err: (e as Error).message }, 'service CIDR discovery failed; ClusterInfo exported without the ranges not configured');
      }
    }
    return { ...this.discovered, ...configured };
  }

  /**
   * This cluster's Service families once its ranges are known (discovered, or both configured);
   * undefined before. Never starts a discovery (the export pass does, with a Gateway).
   */
  private knownFamilies(): ('IPv4' | 'IPv6')[] | undefined {
    const configured = configuredServiceCIDRs(this.o.serviceCIDR, this.o.serviceCIDRv6);
    if (!this.discovered && !(configured.serviceCIDR && configured.serviceCIDRv6)) return undefined;
    const c = { ...this.discovered, ...configured };
    return [...(c.serviceCIDR ? (['IPv4'] as const) : []), ...(c.serviceCIDRv6 ? (['IPv6'] as const) : [])];
  }

  /** Import pass: the leader's ResourceImports -> local Service/Endpoints `antrea-mc-<name>` and ServiceImport. */
  private async importServices(): Promise<void> {
    const s = this.session;
    if (!s?.synced) return;
    const plan = serviceImportPlan({
      resourceImports: [...s.imports.values()] as unknown as ResourceImport[],
      service: (ns, name) => this.services.get(`${ns}/${name}`) as unknown as Service | undefined,
      namespaceExists: (ns) => this.namespaces.has(ns),
      ...(this.knownFamilies() ? { clusterFamilies: this.knownFamilies()! } : {}),
    });
    for (const sk of plan.skipped) this.log.warn(sk, 'Service import skipped');
    const mine = (c: Map<string, KubeObject>): KubeObject[] => [...c.values()].filter((o) => isImported(o as { metadata: { annotations?: Record<string, string> } }));
    let writes = await converge(this.o.kube, SERVICES, plan.services as unknown as KubeObject[], mine(this.services), (o) => {
      const spec = o['spec'] as Service['spec'];
      // Families only where the import names them (an import from an exporter that does not leaves the server's default alone).
      return { metadata: { annotations: o.metadata['annotations'] }, spec: { type: spec?.type, ports: spec?.ports, ...(spec?.ipFamilyPolicy ? { ipFamilyPolicy: spec.ipFamilyPolicy } : {}), ...(spec?.ipFamilies ? { ipFamilies: spec.ipFamilies } : {}) } };
    });
    writes += await converge(this.o.kube, ENDPOINTS, plan.endpoints as unknown as KubeObject[], mine(this.endpoints), (o) => ({ metadata: { annotations: o.metadata['annotations'] }, subsets: o['subsets'] }));
    const sis = plan.serviceImports.map(({ status: _status, ...rest }) => rest);
    writes += await converge(this.o.kube, SERVICE_IMPORTS, sis as unknown as KubeObject[], mine(this.serviceImports), (o) => ({ metadata: { annotations: o.metadata['annotations'] }, spec: o['spec'] }));
    for (const si of plan.serviceImports) {
      const cur = this.serviceImports.get(`${si.metadata?.namespace ?? ''}/${si.metadata?.name ?? ''}`);
      if (cur && si.status) await patchStatus(this.o.kube, SERVICE_IMPORTS, cur, si.status);
    }
    writes += await this.importPolicies(s);
    const infos = clusterInfoImportsFor([...s.imports.values()] as unknown as ResourceImport[], s.clusterID, this.o.namespace);
    writes += await converge(this.o.kube, CLUSTER_INFO_IMPORTS, infos as unknown as KubeObject[], this.clusterInfoImports.values(), (o) => ({ spec: o['spec'] }));
    if (this.labelIdentities) {
      const objs = labelIdentityObjects([...s.imports.values()] as unknown as ResourceImport[]);
      writes += await converge(this.o.kube, LABEL_IDENTITIES, objs as unknown as KubeObject[], this.labelIdentities.values(), (o) => ({ spec: o['spec'] }));
    }
    if (writes > 0) this.log.info({ writes, services: plan.services.length }, 'imports converged');
  }

  /** ACNP replication: `antrea-mc-<name>` per ACNP ResourceImport; a missing Tier is an Event in the leader. */
  private async importPolicies(s: LeaderSession): Promise<number> {
    const plan = acnpImportPlan({ resourceImports: [...s.imports.values()] as unknown as ResourceImport[], tierExists: (t) => this.tiers.has(t), clusterID: s.clusterID });
    const mine = [...this.policies.values()].filter((o) => isImported(o as { metadata: { annotations?: Record<string, string> } }));
    const writes = await converge(this.o.kube, CLUSTER_NETWORK_POLICIES, plan.policies as unknown as KubeObject[], mine, (o) => ({ metadata: { annotations: o.metadata['annotations'] }, spec: o['spec'] }));
    for (const f of plan.failures) {
      const ri = f.resourceImport.metadata;
      const key = `${ri.uid ?? ''}/${ri.resourceVersion ?? ''}/${f.message}`;
      if (this.reported.has(key)) continue;
      const now = this.now();
      await s.client.request('POST', `/api/v1/namespaces/${s.namespace}/events`, {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { generateName: `${ri.name ?? ''}.`, namespace: s.namespace },
        involvedObject: { apiVersion: apiVersionOf(RESOURCE_IMPORTS), kind: 'ResourceImport', name: ri.name, namespace: s.namespace, uid: ri.uid },
        reason: 'ACNPImportFailed',
        message: f.message,
        type: 'Warning',
        source: { component: 'resourceimport-controller' },
        reportingComponent: 'resourceimport-controller',
        reportingInstance: s.clusterID,
        firstTimestamp: now,
        lastTimestamp: now,
        count: 1,
      });
      this.reported.add(key);
      this.log.warn({ resourceImport: ri.name, message: f.message }, 'ACNP import failed');
    }
    return writes;
  }

  /** Gateway pass: one Gateway CR, named after the chosen Node, in this member's namespace. */
  private async electGateway(): Promise<void> {
    const current = [...this.gateways.values()][0]?.metadata.name;
    const gw = chooseGateway({
      nodes: [...this.nodes.values()] as unknown as GatewayNode[],
      namespace: this.o.namespace,
      ...(current ? { current } : {}),
      ...(this.o.gatewayIPPrecedence ? { precedence: this.o.gatewayIPPrecedence } : {}),
    });
    const writes = await converge(this.o.kube, GATEWAYS, gw ? [gw as unknown as KubeObject] : [], this.gateways.values(), (o) => ({
      // null: a field the new Gateway lacks goes (a Node that became IPv6-only loses its IPv4 addresses).
      gatewayIP: o['gatewayIP'] ?? null, internalIP: o['internalIP'] ?? null, gatewayIPv6: o['gatewayIPv6'] ?? null, internalIPv6: o['internalIPv6'] ?? null, wireGuard: o['wireGuard'] ?? null,
    }));
    if (writes > 0) this.log.info({ gateway: gw?.metadata.name ?? null, gatewayIP: gw?.gatewayIP, gatewayIPv6: gw?.gatewayIPv6 }, 'Gateway changed');
  }

  /** Stops heartbeats, informers and passes (exports stay in the leader; see docs). */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all([this.joinPass.stop(), this.exportPass.stop(), this.importPass.stop(), this.gatewayPass.stop()]);
    await this.disconnect();
    await this.local.stop();
  }
}
