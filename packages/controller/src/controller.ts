// The controller process: informers -> compiler (hub) -> HTTPS watch server, plus the
// ExternalNode, node IPAM, status and heartbeat loops. Everything I/O is injected.
import type { ClusterObject } from '@switchyard/policy-compiler';
import { KubeDelegatedAuth, type RequestAuth } from '@switchyard/kube';
import { silentLogger, systemClock, type Clock, type Logger, type TimerHandle } from '@switchyard/runtime';
import { KubeRequestError } from './errors';
import { ExternalNodeController } from './externalnode';
import { ControlplaneHub } from './hub';
import { Informer, type InformerOptions, type KubeObject } from '@switchyard/kube';
import type { KubeClient } from '@switchyard/kube';
import { MetricsRegistry } from './metrics';
import { NodeIpamController } from './nodeipam';
import { defaultSans, ensureClusterPki, type ControllerPki } from './pki';
import { IPPoolController } from './ippool';
import { KubeIPPoolStore } from '@switchyard/ipam';
import { EXTERNAL_NODES, IPPOOLS, LABEL_IDENTITIES, POLICY_INPUTS, STATEFULSETS } from './resources';
import { IPsecCertificateSigner } from './ipsec-signer';
import { CONTROLPLANE_GROUP, CONTROLPLANE_VERSION, ControlplaneServer } from './server';
import { PolicyStatusAggregator } from './status';
import type { AdmissionView } from './admission';
import { AdmissionWebhook, webhookConfiguration, WEBHOOK_CONFIGURATION_NAME } from './webhook';
import type { Tier } from '@switchyard/apis/types';

/** Version reported in AntreaControllerInfo and /controllerinfo. */
export const CONTROLLER_VERSION = '0.1.0';

/** Options of {@link Controller}. */
export interface ControllerOptions {
  kube: KubeClient;
  /** API port (Antrea's apiPort, default 10349; 0 picks a free one). */
  port?: number;
  host?: string;
  /** Namespace of the controller's Service, Secret and ConfigMap (default kube-system). */
  namespace?: string;
  /** Service name agents and the APIService use (default switchyard). */
  serviceName?: string;
  /** CA ConfigMap name (default switchyard-ca). */
  caConfigMapName?: string;
  /** Use this key pair instead of the one kept in the cluster. */
  pki?: ControllerPki;
  /** Extra subjectAltNames for the serving certificate. */
  extraSans?: string[];
  /** CA of the API server's front-proxy client certificate (aggregated requests). */
  requestHeaderCaPem?: string;
  /** Register the APIService v1beta2.controlplane.switchyard.io (default true). */
  registerAPIService?: boolean;
  /**
   * Register the ValidatingWebhookConfiguration for the Antrea kinds, with this controller's CA
   * as caBundle, as Antrea's controller patches its webhooks' caBundle at start. Default: as
   * `registerAPIService`, since both reach this process through the same Service; an embedded
   * controller the Service does not point at must not register a webhook that fails every write.
   */
  registerWebhooks?: boolean;
  /** Override authentication/authorization (default: TokenReview + SubjectAccessReview). */
  auth?: RequestAuth;
  maxWatcherBufferBytes?: number;
  historyPerNode?: number;
  bookmarkIntervalMs?: number;
  /** AntreaControllerInfo heartbeat (default 60 s). */
  heartbeatIntervalMs?: number;
  /** Node IPAM (Antrea's nodeIPAM.enableNodeIPAM). */
  nodeIPAM?: { clusterCIDRs: string[]; nodeMaskSizeIPv4?: number; nodeMaskSizeIPv6?: number };
  /**
   * IPPools (Antrea's AntreaIPAM feature gate, default false): StatefulSet pre-allocation,
   * status.usage and the in-use finalizer, with state in IPPool status.
   */
  ipPools?: boolean;
  /** ExternalNode feature gate (default true). */
  externalNode?: boolean;
  /**
   * Stretched NetworkPolicy (Antrea's Multicluster feature gate with
   * `multicluster.enableStretchedNetworkPolicy`, default false): the ClusterSet's LabelIdentities
   * are watched, and ingress peers with `scope: ClusterSet` carry the ids of the labels they select.
   */
  stretchedNetworkPolicy?: boolean;
  /**
   * The IPsec certificate signer (feature gate IPsecCertAuth, antrea-controller.conf
   * `ipsecCSRSigner`): approves and signs agents' CertificateSigningRequests for
   * antrea.io/antrea-agent-ipsec-tunnel with the CA in Secret `<serviceName>-ipsec-ca`.
   */
  ipsecCSRSigner?: { autoApprove: boolean; selfSignedCA: boolean; validityDays?: number };
  informer?: Omit<InformerOptions, 'clock' | 'logger'>;
  /** Identity facts for AntreaControllerInfo (pod and node of the controller). */
  podRef?: { namespace: string; name: string };
  nodeName?: string;
  clock?: Clock;
  logger?: Logger;
}

/** A running controller. */
export class Controller {
  readonly hub: ControlplaneHub;
  readonly informers: Informer[] = [];
  readonly metrics = new MetricsRegistry();
  readonly status: PolicyStatusAggregator;
  server!: ControlplaneServer;
  port = 0;
  pki!: ControllerPki;
  externalNodes: ExternalNodeController | undefined;
  nodeIpam: NodeIpamController | undefined;
  ipPools: IPPoolController | undefined;
  ipsecSigner: IPsecCertificateSigner | undefined;
  admission!: AdmissionWebhook;
  private readonly clock: Clock;
  private readonly log: Logger;
  private heartbeat: TimerHandle | undefined;
  private readonly syncSeconds = new Map<string, number>();
  private stopped = false;

  constructor(private readonly o: ControllerOptions) {
    this.clock = o.clock ?? systemClock;
    this.log = o.logger ?? silentLogger;
    this.hub = new ControlplaneHub({ clock: this.clock, logger: this.log, ...(o.historyPerNode ? { historyPerNode: o.historyPerNode } : {}), ...(o.bookmarkIntervalMs !== undefined ? { bookmarkIntervalMs: o.bookmarkIntervalMs } : {}) });
    this.status = new PolicyStatusAggregator(this.hub, o.kube, {
      clock: this.clock,
      logger: this.log,
      generationOf: (type, ns, name) => {
        const plural = type === 'AntreaClusterNetworkPolicy' ? 'clusternetworkpolicies' : 'networkpolicies';
        const cache = this.informers.find((i) => i.spec.group === 'crd.antrea.io' && i.spec.plural === plural)?.cache;
        for (const o of cache?.values() ?? []) if (o.metadata.name === name && (type === 'AntreaClusterNetworkPolicy' || o.metadata.namespace === ns)) return (o.metadata as { generation?: number }).generation;
        return undefined;
      },
    });
  }

  private get namespace(): string {
    return this.o.namespace ?? 'kube-system';
  }

  /** Start informers, wait for their first lists, then serve. Resolves with the bound port. */
  async start(): Promise<number> {
    const service = this.o.serviceName ?? 'switchyard';
    this.pki =
      this.o.pki ??
      (await ensureClusterPki(this.o.kube, { namespace: this.namespace, secretName: `${service}-controller-ca`, configMapName: this.o.caConfigMapName ?? 'switchyard-ca' }, [...defaultSans(this.namespace, service), ...(this.o.extraSans ?? [])]));
    const iopts: InformerOptions = { ...this.o.informer, clock: this.clock, logger: this.log };
    for (const spec of this.o.stretchedNetworkPolicy ? [...POLICY_INPUTS, LABEL_IDENTITIES] : POLICY_INPUTS) {
      const inf = new Informer(this.o.kube, spec, (e) => {
        try {
          this.hub.apply({ type: e.type, object: e.object as unknown as ClusterObject });
        } catch (err) {
          this.log.warn({ kind: spec.kind, name: e.object.metadata.name, err: (err as Error).message }, 'object not compiled');
        }
        if (spec.plural === 'nodes') this.nodeIpam?.onEvent(e.type, e.object);
      }, iopts);
      this.informers.push(inf);
    }
    const eeInformer = this.informers.find((i) => i.spec.plural === 'externalentities') as Informer;
    if (this.o.externalNode !== false) {
      this.externalNodes = new ExternalNodeController(this.o.kube, eeInformer.cache, this.log);
      const en = new Informer(this.o.kube, EXTERNAL_NODES, (e) => this.externalNodes?.onEvent(e.type, e.object as never), iopts);
      this.informers.push(en);
    }
    if (this.o.ipPools) {
      const ctl = new IPPoolController(new KubeIPPoolStore(this.o.kube), { logger: this.log });
      this.ipPools = ctl;
      this.informers.push(new Informer(this.o.kube, IPPOOLS, (e) => ctl.onPoolEvent(e.type, e.object), iopts));
      this.informers.push(new Informer(this.o.kube, STATEFULSETS, (e) => ctl.onStatefulSetEvent(e.type, e.object), iopts));
    }
    const t0 = this.clock.now();
    for (const inf of this.informers) {
      inf.start();
      void inf.synced.then(() => this.syncSeconds.set(inf.spec.plural, (this.clock.now() - t0) / 1000));
    }
    await Promise.all(this.informers.map((i) => i.synced));
    if (this.o.nodeIPAM) {
      this.nodeIpam = new NodeIpamController(this.o.kube, this.o.nodeIPAM, this.log);
      this.nodeIpam.start((this.informers.find((i) => i.spec.plural === 'nodes') as Informer).cache.values());
    }
    if (this.ipPools) this.ipPools.start(this.cacheOf('ippools')?.values() ?? [], this.cacheOf('statefulsets')?.values() ?? []);
    if (this.o.ipsecCSRSigner) {
      this.ipsecSigner = new IPsecCertificateSigner({
        kube: this.o.kube, namespace: this.namespace, caSecretName: `${service}-ipsec-ca`, ...this.o.ipsecCSRSigner,
        ...(this.o.informer ? { informer: this.o.informer } : {}), clock: this.clock, logger: this.log,
      });
      await this.ipsecSigner.start();
    }
    this.hub.markSynced();
    this.admission = new AdmissionWebhook({ view: this.admissionView(), kube: this.o.kube, logger: this.log });
    const auth = this.o.auth ?? new KubeDelegatedAuth(this.o.kube, { clock: this.clock, logger: this.log });
    this.server = new ControlplaneServer({
      hub: this.hub,
      auth,
      tls: { certPem: this.pki.certPem, keyPem: this.pki.keyPem, ...(this.o.requestHeaderCaPem ? { clientCaPem: this.o.requestHeaderCaPem } : {}) },
      port: this.o.port ?? 10349,
      ...(this.o.host ? { host: this.o.host } : {}),
      ...(this.o.maxWatcherBufferBytes ? { maxWatcherBufferBytes: this.o.maxWatcherBufferBytes } : {}),
      status: this.status,
      admission: this.admission,
      metrics: this.metrics,
      info: () => ({ version: CONTROLLER_VERSION, epoch: this.hub.epoch }),
      logger: this.log,
    });
    this.port = await this.server.listen();
    this.registerMetrics();
    if (this.o.registerAPIService !== false) await this.registerApiService(service);
    if (this.o.registerWebhooks ?? (this.o.registerAPIService !== false)) await this.registerWebhooks(service);
    this.beat();
    this.log.info({ port: this.port, resourceVersion: this.hub.resourceVersion }, 'controller serving');
    return this.port;
  }

  private registerMetrics(): void {
    const m = this.metrics;
    m.register('switchyard_controller_informer_sync_seconds', 'gauge', 'Time from start to the first complete LIST, per resource', () => [...this.syncSeconds].map(([resource, v]) => ({ labels: { resource }, value: v })), ['resource']);
    m.register('switchyard_controller_informer_relists_total', 'counter', 'LISTs after 410 Gone, per resource', () => this.informers.map((i) => ({ labels: { resource: i.spec.plural }, value: i.stats.relistsOn410 })), ['resource']);
    m.register('switchyard_controller_informer_failures_total', 'counter', 'Failed list/watch attempts, per resource', () => this.informers.map((i) => ({ labels: { resource: i.spec.plural }, value: i.stats.failures })), ['resource']);
    m.register('switchyard_controller_cluster_events_total', 'counter', 'Cluster events applied to the policy compiler', () => this.hub.stats.clusterEvents);
    m.register('switchyard_controller_compile_seconds_total', 'counter', 'Time spent in the incremental compiler', () => Number(this.hub.stats.applyNanos) / 1e9);
    m.register('switchyard_controller_rejected_objects_total', 'counter', 'Objects refused by validation', () => this.hub.stats.rejectedObjects);
    m.register('switchyard_controller_watchers', 'gauge', 'Open agent watch streams', () => this.server.connections.size);
    m.register('switchyard_controller_watcher_queue_bytes', 'gauge', 'Bytes queued for watchers (sum)', () => this.server.bufferedBytes());
    m.register('switchyard_controller_events_sent_total', 'counter', 'Watch events sent to agents', () => this.server.stats.eventsSent);
    m.register('switchyard_controller_bytes_sent_total', 'counter', 'Watch bytes sent to agents', () => this.server.stats.bytesSent);
    m.register('switchyard_controller_watcher_overflows_total', 'counter', 'Watchers disconnected for exceeding their buffer bound', () => this.server.stats.overflowDisconnects);
    m.register('switchyard_controller_watch_expired_total', 'counter', 'Watches refused with 410 (stale resourceVersion)', () => this.server.stats.watchesExpired);
    m.register('switchyard_controller_admission_reviews_total', 'counter', 'Admission reviews answered by the validating webhook, by verdict', () => [{ labels: { verdict: 'allowed' }, value: this.admission.stats.allowed }, { labels: { verdict: 'denied' }, value: this.admission.stats.denied }], ['verdict']);
    m.register('switchyard_controller_network_policies', 'gauge', 'Compiled internal NetworkPolicies', () => this.hub.engine.policies.size);
  }

  private async upsert(path: string, collection: string, body: Record<string, unknown>): Promise<void> {
    try {
      const cur = await this.o.kube.request<{ metadata?: { resourceVersion?: string } }>('GET', path);
      const meta = { ...(body.metadata as Record<string, unknown>), resourceVersion: cur.metadata?.resourceVersion };
      await this.o.kube.request('PUT', path, { ...body, metadata: meta });
    } catch (e) {
      if (!(e instanceof KubeRequestError && e.status === 404)) throw e;
      await this.o.kube.request('POST', collection, body);
    }
  }

  private async registerApiService(service: string): Promise<void> {
    const name = `${CONTROLPLANE_VERSION}.${CONTROLPLANE_GROUP}`;
    await this.upsert(`/apis/apiregistration.k8s.io/v1/apiservices/${name}`, '/apis/apiregistration.k8s.io/v1/apiservices', {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name, labels: { app: 'switchyard' } },
      spec: {
        group: CONTROLPLANE_GROUP,
        version: CONTROLPLANE_VERSION,
        service: { namespace: this.namespace, name: service, port: 443 },
        caBundle: Buffer.from(this.pki.caPem).toString('base64'),
        groupPriorityMinimum: 100,
        versionPriority: 100,
      },
    });
  }

  /** What the webhook reads: the informer caches of the policy inputs. */
  private admissionView(): AdmissionView {
    const values = (group: string, plural: string): Iterable<KubeObject> => this.informers.find((i) => i.spec.group === group && i.spec.plural === plural)?.cache.values() ?? [];
    return {
      tiers: () => values('crd.antrea.io', 'tiers') as Iterable<Tier>,
      clusterGroups: () => values('crd.antrea.io', 'clustergroups'),
      groups: () => values('crd.antrea.io', 'groups'),
      clusterNetworkPolicies: () => values('crd.antrea.io', 'clusternetworkpolicies'),
      antreaNetworkPolicies: () => values('crd.antrea.io', 'networkpolicies'),
    };
  }

  private async registerWebhooks(service: string): Promise<void> {
    await this.upsert(`/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${WEBHOOK_CONFIGURATION_NAME}`, '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', webhookConfiguration({ namespace: this.namespace, service, caPem: this.pki.caPem }) as unknown as Record<string, unknown>);
  }

  private beat(): void {
    if (this.stopped) return;
    void this.writeControllerInfo().catch((e: unknown) => this.log.warn({ err: (e as Error).message }, 'controller info heartbeat failed'));
    this.heartbeat = this.clock.setTimeout(() => this.beat(), this.o.heartbeatIntervalMs ?? 60000);
  }

  /** Write AntreaControllerInfo `antrea-controller` now. */
  async writeControllerInfo(): Promise<void> {
    const snap = this.hub.engine.snapshot();
    const body: Record<string, unknown> = {
      apiVersion: 'crd.antrea.io/v1beta1',
      kind: 'AntreaControllerInfo',
      metadata: { name: 'antrea-controller' },
      version: CONTROLLER_VERSION,
      networkPolicyControllerInfo: { networkPolicyNum: snap.networkPolicies.length, addressGroupNum: snap.addressGroups.length, appliedToGroupNum: snap.appliedToGroups.length },
      connectedAgentNum: this.hub.connectedNodes().length,
      controllerConditions: [{ type: 'ControllerHealthy', status: 'True', lastHeartbeatTime: new Date(this.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z') }],
      apiPort: this.port,
      serviceRef: { kind: 'Service', namespace: this.namespace, name: this.o.serviceName ?? 'switchyard' },
    };
    if (this.o.podRef) body.podRef = { kind: 'Pod', ...this.o.podRef };
    if (this.o.nodeName) body.nodeRef = { kind: 'Node', name: this.o.nodeName };
    await this.upsert('/apis/crd.antrea.io/v1beta1/antreacontrollerinfos/antrea-controller', '/apis/crd.antrea.io/v1beta1/antreacontrollerinfos', body);
  }

  /** Objects the informers hold for a resource (plural). */
  cacheOf(plural: string): ReadonlyMap<string, KubeObject> | undefined {
    return this.informers.find((i) => i.spec.plural === plural)?.cache;
  }

  /** Graceful shutdown: end watch streams cleanly, stop informers and timers. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.heartbeat?.cancel();
    this.status.close();
    this.hub.close();
    await this.server?.close();
    await Promise.all(this.informers.map((i) => i.stop()));
    await this.externalNodes?.idle();
    await this.nodeIpam?.idle();
    await this.ipPools?.idle();
    await this.ipsecSigner?.stop();
  }
}
