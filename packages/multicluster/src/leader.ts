// The leader cluster's reconcilers: ClusterSet status from MemberClusterAnnounce heartbeats
// (Disconnected after the timeout, on the injected clock), and the merge of members' Service
// exports into ResourceImports with port-conflict statuses.
import type { ClusterSet, MemberClusterAnnounce, ResourceExport, ResourceImport } from '@switchyard/apis';
import { silentLogger, systemClock, type Clock, type InformerOptions, type KubeClient, type KubeObject, type Logger, type TimerHandle } from '@switchyard/kube';
import { dashPrefixConflicts, leaderStatus, validateClusterSet, type MemberState } from './clusterset';
import { InformerSet } from './informers';
import { acnpResourceImports } from './acnp';
import { clusterInfoImports } from './cluster-info';
import { labelIdentityImports, labelIdsOf } from './label-identity';
import { ACNP_KIND, CLUSTER_INFO_KIND, LABEL_IDENTITY_KIND, CLUSTERSETS, MEMBER_ANNOUNCES, RESOURCE_EXPORTS, RESOURCE_IMPORTS, apiVersionOf } from './resources';
import { mergeServiceExports } from './service-merge';
import { Resync, converge, patchStatus, writeAll } from './sync';

/** Options of {@link LeaderController}. */
export interface LeaderOptions {
  /** Client of the leader cluster. */
  kube: KubeClient;
  /** The leader's Multi-cluster Namespace (the common area members write to). */
  namespace: string;
  /** ClusterSet ID this leader serves; the ClusterSet must be named so. Default: the ClusterSet's name. */
  clusterSetID?: string;
  /** A member without a heartbeat for this long is Disconnected (default 30 000 ms). */
  heartbeatTimeoutMs?: number;
  clock?: Clock;
  logger?: Logger;
  /** Passed to every informer (backoff, page size). */
  informer?: Omit<InformerOptions, 'clock' | 'logger' | 'namespace'>;
}

/** Runs the leader's reconcilers: `start()`, then `stop()`. */
export class LeaderController {
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly timeoutMs: number;
  private readonly informers: InformerSet;
  private readonly lastSeen = new Map<string, number>();
  private readonly timers = new Map<string, TimerHandle>();
  private readonly statusPass: Resync;
  private readonly mergePass: Resync;
  private clustersets!: Map<string, KubeObject>;
  private announces!: Map<string, KubeObject>;
  private exports!: Map<string, KubeObject>;
  private imports!: Map<string, KubeObject>;
  private started = false;
  /** Label identity IDs given: normalized label -> ID. */
  private labelIds: Map<string, number> | undefined;

  constructor(private readonly o: LeaderOptions) {
    this.clock = o.clock ?? systemClock;
    this.log = o.logger ?? silentLogger;
    this.timeoutMs = o.heartbeatTimeoutMs ?? 30_000;
    this.informers = new InformerSet(o.kube, { ...o.informer, clock: this.clock, logger: this.log });
    this.statusPass = new Resync(() => this.writeStatus(), { name: 'leader-clusterset', clock: this.clock, logger: this.log });
    this.mergePass = new Resync(() => this.merge(), { name: 'leader-service-merge', clock: this.clock, logger: this.log });
  }

  async start(): Promise<void> {
    const ns = { namespace: this.o.namespace };
    this.clustersets = this.informers.watch(CLUSTERSETS, () => this.schedule(), ns);
    // Every announce change is a heartbeat: its resourceVersion moved (see heardAll).
    this.announces = this.informers.watch(MEMBER_ANNOUNCES, () => this.schedule(), ns);
    // No pass before every cache is synced: a merge over a half-listed cache would, e.g., hand out
    // label identity IDs again that the unlisted ResourceImports already hold.
    const merge = (): void => {
      if (this.started) this.mergePass.schedule();
    };
    this.exports = this.informers.watch(RESOURCE_EXPORTS, merge, ns);
    this.imports = this.informers.watch(RESOURCE_IMPORTS, merge, ns);
    await this.informers.synced();
    this.started = true;
    this.schedule();
  }

  /** resourceVersion of each announce when last looked at. */
  private readonly seenVersion = new Map<string, string>();

  private schedule(): void {
    if (!this.started) return;
    this.heardAll();
    this.statusPass.schedule();
    this.mergePass.schedule();
  }

  /** Records heartbeats for announces whose resourceVersion moved since the last look. */
  private heardAll(): void {
    const present = new Set<string>();
    for (const [k, a] of this.announces) {
      present.add(k);
      const rv = a.metadata.resourceVersion ?? '';
      if (this.seenVersion.get(k) === rv) continue;
      this.seenVersion.set(k, rv);
      this.heard(a as unknown as MemberClusterAnnounce);
    }
    for (const k of [...this.seenVersion.keys()]) if (!present.has(k)) this.seenVersion.delete(k);
    const ids = new Set([...this.announces.values()].map((a) => (a as unknown as MemberClusterAnnounce).clusterID ?? ''));
    for (const id of [...this.lastSeen.keys()]) {
      if (ids.has(id)) continue;
      this.lastSeen.delete(id);
      this.timers.get(id)?.cancel();
      this.timers.delete(id);
    }
  }

  private heard(a: MemberClusterAnnounce): void {
    const id = a.clusterID ?? '';
    if (!id) return;
    this.lastSeen.set(id, this.clock.now());
    this.timers.get(id)?.cancel();
    this.timers.set(id, this.clock.setTimeout(() => this.statusPass.schedule(), this.timeoutMs + 1));
  }

  /** The members as the leader sees them now (announces, heartbeats, refusals). */
  members(): MemberState[] {
    const cs = this.clusterSet();
    const leaderID = cs?.spec.clusterID ?? '';
    const anns = [...this.announces.values()].map((a) => a as unknown as MemberClusterAnnounce).sort((a, b) => String(a.metadata.creationTimestamp ?? '').localeCompare(String(b.metadata.creationTimestamp ?? '')) || (a.clusterID ?? '').localeCompare(b.clusterID ?? ''));
    const accepted: string[] = leaderID ? [leaderID] : [];
    const now = this.clock.now();
    const out: MemberState[] = [];
    for (const a of anns) {
      const id = a.clusterID ?? '';
      if (!id) continue;
      const connected = now - (this.lastSeen.get(id) ?? -Infinity) <= this.timeoutMs;
      const st: MemberState = { clusterID: id, connected };
      const clash = accepted.find((other) => dashPrefixConflicts([other, id]).length > 0);
      if (cs && a.clusterSetID !== cs.metadata.name) st.refused = { reason: 'ClusterSetIDMismatch', message: `member announces ClusterSet ID "${a.clusterSetID ?? ''}", this leader serves "${cs.metadata.name ?? ''}"` };
      else if (clash !== undefined) st.refused = { reason: 'ClusterIDConflict', message: `cluster ID "${id}" and "${clash}" are a dash-prefix of each other` };
      else if (id !== leaderID) accepted.push(id);
      out.push(st);
    }
    return out;
  }

  private clusterSet(): ClusterSet | undefined {
    const all = [...this.clustersets.values()].sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
    return all[0] as unknown as ClusterSet | undefined;
  }

  private async writeStatus(): Promise<void> {
    const cs = this.clusterSet();
    if (!cs) return;
    const problems = validateClusterSet(cs, { role: 'leader', clusterSetID: this.o.clusterSetID ?? cs.metadata.name ?? '' });
    const status = leaderStatus(cs, this.members(), problems, new Date(this.clock.now()).toISOString());
    if (await patchStatus(this.o.kube, CLUSTERSETS, cs as unknown as KubeObject, status)) this.log.info({ clusterSet: cs.metadata.name, total: status.totalClusters, ready: status.readyClusters }, 'ClusterSet status updated');
  }

  private async merge(): Promise<void> {
    const cs = this.clusterSet();
    if (!cs) {
      await this.cleanUp();
      return;
    }
    const refused = new Set(this.members().filter((m) => m.refused).map((m) => m.clusterID));
    if (cs && validateClusterSet(cs, { role: 'leader', clusterSetID: this.o.clusterSetID ?? cs.metadata.name ?? '' }).length > 0) return;
    const exports = [...this.exports.values()] as unknown as ResourceExport[];
    const actual = [...this.imports.values()].filter((o) => {
      const k = (o as unknown as ResourceImport).spec.kind;
      return k === 'ServiceImport' || k === 'Endpoints' || k === ACNP_KIND || k === LABEL_IDENTITY_KIND || k === CLUSTER_INFO_KIND;
    });
    const plan = mergeServiceExports(exports, this.o.namespace, new Date(this.clock.now()).toISOString(), (c) => !refused.has(c), actual as unknown as ResourceImport[]);
    // Label identity IDs live in the ResourceImports, so a restarted leader reads them back (the
    // cache is synced before the first pass); after that the IDs this leader gave are the truth,
    // since the cache may not show its own last writes yet.
    this.labelIds ??= labelIdsOf(actual as unknown as ResourceImport[]);
    const labels = labelIdentityImports(
      exports.filter((re) => !refused.has(re.spec.clusterID ?? '')),
      this.labelIds,
      this.o.namespace,
    );
    this.labelIds = new Map(labels.resourceImports.map((r) => [r.spec.labelIdentity!.normalizedLabel!, r.spec.labelIdentity!.id!]));
    if (labels.exhausted.length > 0) this.log.error({ labels: labels.exhausted.length }, 'label identity IDs exhausted (1..16777214); labels left without an ID');
    const desired = [...plan.resourceImports, ...acnpResourceImports(exports, this.o.namespace), ...labels.resourceImports, ...clusterInfoImports(exports.filter((re) => !refused.has(re.spec.clusterID ?? '')), this.o.namespace)];
    const writes = await converge(this.o.kube, RESOURCE_IMPORTS, desired as unknown as KubeObject[], actual, (o) => ({ spec: o['spec'] }));
    if (writes > 0) this.log.info({ writes, imports: desired.length }, 'ResourceImports converged');
    await writeAll(exports, async (re) => {
      const st = plan.exportStatus.get(re.metadata.name ?? '');
      if (!st) return;
      await patchStatus(this.o.kube, RESOURCE_EXPORTS, re as unknown as KubeObject, st);
      const invalid = st.conditions.find((c) => c.reason === 'InvalidSpec');
      if (invalid) await this.reportInvalid(re, invalid.message ?? '');
    });
  }

  /**
   * No ClusterSet (the leader's was deleted, or there never was one): the ResourceImports and the
   * members' announces in the common area go. A member that still heartbeats re-creates its
   * announce, and it is deleted again while the leader has no ClusterSet.
   */
  private async cleanUp(): Promise<void> {
    const none = (): Record<string, unknown> => ({});
    const imports = await converge(this.o.kube, RESOURCE_IMPORTS, [], this.imports.values(), none);
    const announces = await converge(this.o.kube, MEMBER_ANNOUNCES, [], this.announces.values(), none);
    this.labelIds = undefined;
    this.invalidReported.clear();
    if (imports + announces > 0) this.log.info({ resourceImports: imports, memberClusterAnnounces: announces }, 'no ClusterSet in the leader: imports and member announces removed');
  }

  /** ResourceExports already reported as malformed: uid, spec and message (a status write must not repeat it). */
  private readonly invalidReported = new Set<string>();

  /** A Warning Event `InvalidSpec` on a malformed ResourceExport, once per spec and message. */
  private async reportInvalid(re: ResourceExport, message: string): Promise<void> {
    const m = re.metadata;
    const key = `${m.uid ?? ''}/${JSON.stringify(re.spec)}/${message}`;
    if (this.invalidReported.has(key)) return;
    const now = new Date(this.clock.now()).toISOString();
    await this.o.kube.request('POST', `/api/v1/namespaces/${this.o.namespace}/events`, {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { generateName: `${m.name ?? ''}.`, namespace: this.o.namespace },
      involvedObject: { apiVersion: apiVersionOf(RESOURCE_EXPORTS), kind: 'ResourceExport', name: m.name, namespace: this.o.namespace, uid: m.uid, resourceVersion: m.resourceVersion },
      reason: 'InvalidSpec',
      message,
      type: 'Warning',
      source: { component: 'resourceexport-controller' },
      reportingComponent: 'resourceexport-controller',
      reportingInstance: this.clusterSet()?.spec.clusterID ?? '',
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
    });
    this.invalidReported.add(key);
    this.log.warn({ resourceExport: m.name, message }, 'malformed ResourceExport left out of the merge');
  }

  /** Stops informers, passes and timers. */
  async stop(): Promise<void> {
    for (const t of this.timers.values()) t.cancel();
    this.timers.clear();
    await this.informers.stop();
    await Promise.all([this.statusPass.stop(), this.mergePass.stop()]);
  }
}
