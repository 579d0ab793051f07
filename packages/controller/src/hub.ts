// Per-node controlplane streams: feeds cluster events to the policy compiler's incremental engine
// and fans each node's delta out to that node's watchers, keeping a bounded per-node history so a
// reconnecting agent resumes from its last resourceVersion.
import { randomBytes } from 'node:crypto';
import type { controlplane } from '@switchyard/apis';
import { PolicyEngine, toWatchEvents, type ClusterEvent, type NodeDelta, type PolicyDelta, type PolicySnapshot } from '@switchyard/policy-compiler';
import { silentLogger, systemClock, type Clock, type Logger, type TimerHandle } from '@switchyard/runtime';

/** The three watchable controlplane resources. */
export type ControlplaneResource = 'networkpolicies' | 'addressgroups' | 'appliedtogroups';
export const CONTROLPLANE_RESOURCES: readonly ControlplaneResource[] = ['networkpolicies', 'addressgroups', 'appliedtogroups'];

const RESOURCE_OF: Record<string, ControlplaneResource> = {
  NetworkPolicy: 'networkpolicies',
  AddressGroup: 'addressgroups',
  AddressGroupPatch: 'addressgroups',
  AppliedToGroup: 'appliedtogroups',
  AppliedToGroupPatch: 'appliedtogroups',
};

const byName = (a: { name: string }, b: { name: string }): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** Resource a watch event belongs to (undefined for BOOKMARK/ERROR). */
export function resourceOf(e: controlplane.WatchEvent): ControlplaneResource | undefined {
  return RESOURCE_OF[e.kind];
}

/** Receives a node's events. `send` must not block; it may close itself (slow consumer). */
export interface NodeWatcher {
  readonly node: string;
  readonly resources: ReadonlySet<ControlplaneResource>;
  send(events: readonly controlplane.WatchEvent[]): void;
}

/** How a watch starts. */
export type WatchStart =
  | { mode: 'initial'; events: controlplane.WatchEvent[]; resourceVersion: string }
  | { mode: 'resume'; events: controlplane.WatchEvent[]; resourceVersion: string }
  | { mode: 'expired'; reason: string };

/** Options of {@link ControlplaneHub}. */
export interface ControlplaneHubOptions {
  /** Events kept per node for resumption (default 2000). */
  historyPerNode?: number;
  /** Interval of BOOKMARK events to every watcher (default 60 s; 0 disables). */
  bookmarkIntervalMs?: number;
  clock?: Clock;
  logger?: Logger;
  /** Stream epoch (default random): resourceVersions of another epoch are expired. */
  epoch?: string;
  engine?: PolicyEngine;
}

interface NodeState {
  /** Events after `truncatedAt`, oldest first. */
  history: { seq: number; event: controlplane.WatchEvent }[];
  /** Highest sequence number no longer in history. */
  truncatedAt: number;
  watchers: Set<NodeWatcher>;
}

/** Counters for metrics. */
export interface HubStats {
  clusterEvents: number;
  rejectedObjects: number;
  nodeEvents: number;
  applyNanos: bigint;
}

/**
 * Owns the {@link PolicyEngine} and the per-node streams. Cluster events go in through
 * {@link ControlplaneHub.apply}; watchers register with {@link ControlplaneHub.watch}.
 * resourceVersions are `<epoch>.<sequence>`: the sequence grows by one per applied cluster event.
 */
export class ControlplaneHub {
  readonly engine: PolicyEngine;
  readonly epoch: string;
  readonly stats: HubStats = { clusterEvents: 0, rejectedObjects: 0, nodeEvents: 0, applyNanos: 0n };
  private seq = 0;
  private readonly nodes = new Map<string, NodeState>();
  private readonly historyPerNode: number;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly bookmarkMs: number;
  private bookmarkTimer: TimerHandle | undefined;
  private syncedFlag = false;
  private readonly syncWaiters: (() => void)[] = [];
  private readonly rejectListeners = new Set<(d: PolicyDelta) => void>();
  private readonly applyListeners = new Set<(e: ClusterEvent) => void>();
  /** Every node's view, built in one pass and reused until the next change (see nodeSnapshot). */
  private viewIndex: Map<string, PolicySnapshot> | undefined;
  /** Names each node holds (policy uids, group names), maintained from the deltas. */
  private readonly views = new Map<string, { policies: Set<string>; addressGroups: Set<string>; appliedToGroups: Set<string> }>();
  /** Where pods and ExternalEntities run: namespace -> name -> node (no joined key per lookup). */
  private readonly podNodes = new Map<string, Map<string, string>>();
  private readonly entityNodes = new Map<string, Map<string, string>>();

  constructor(options: ControlplaneHubOptions = {}) {
    this.engine = options.engine ?? new PolicyEngine(options.logger ? { logger: options.logger } : {});
    this.epoch = options.epoch ?? randomBytes(4).toString('hex');
    this.historyPerNode = options.historyPerNode ?? 2000;
    this.clock = options.clock ?? systemClock;
    this.log = options.logger ?? silentLogger;
    this.bookmarkMs = options.bookmarkIntervalMs ?? 60000;
  }

  /** Current resourceVersion. */
  get resourceVersion(): string {
    return `${this.epoch}.${this.seq}`;
  }

  /** True once the informers' initial lists have been applied. */
  get synced(): boolean {
    return this.syncedFlag;
  }

  /** Called once the informers are synced: from now on, history is kept and watches are served. */
  markSynced(): void {
    if (this.syncedFlag) return;
    this.syncedFlag = true;
    for (const n of this.nodes.values()) {
      n.history = [];
      n.truncatedAt = this.seq;
    }
    for (const w of this.syncWaiters.splice(0)) w();
    this.scheduleBookmark();
  }

  /** Resolves when {@link ControlplaneHub.markSynced} has been called. */
  whenSynced(): Promise<void> {
    return this.syncedFlag ? Promise.resolve() : new Promise((r) => this.syncWaiters.push(r));
  }

  /** Observe every applied cluster event (status aggregation, metrics). */
  onApply(fn: (e: ClusterEvent) => void): () => void {
    this.applyListeners.add(fn);
    return () => this.applyListeners.delete(fn);
  }

  private node(name: string): NodeState {
    let n = this.nodes.get(name);
    if (!n) this.nodes.set(name, (n = { history: [], truncatedAt: this.seq, watchers: new Set() }));
    return n;
  }

  /** Apply one cluster event; every affected node's watchers get their share at once. */
  apply(event: ClusterEvent): PolicyDelta {
    const t0 = process.hrtime.bigint();
    const delta = this.engine.apply(event);
    this.trackPlacement(event);
    if (delta.nodes.size > 0) {
      this.viewIndex = undefined;
      for (const [n, d] of delta.nodes) this.trackView(n, d);
    }
    this.stats.applyNanos += process.hrtime.bigint() - t0;
    this.stats.clusterEvents++;
    if (delta.rejected) this.stats.rejectedObjects++;
    // Before the first sync no agent is served and no history is kept: only the engine's state matters.
    if (delta.nodes.size > 0 && !this.syncedFlag) this.seq++;
    else if (delta.nodes.size > 0) {
      const seq = ++this.seq;
      const rv = `${this.epoch}.${seq}`;
      for (const [nodeName, d] of delta.nodes) {
        const events = toWatchEvents(d);
        if (events.length === 0) continue;
        for (const e of events) e.resourceVersion = rv;
        this.stats.nodeEvents += events.length;
        const n = this.node(nodeName);
        for (const e of events) n.history.push({ seq, event: e });
        this.trim(n);
        for (const w of n.watchers) {
          const mine = events.filter((e) => w.resources.has(resourceOf(e) as ControlplaneResource));
          if (mine.length > 0) w.send(mine);
        }
      }
    }
    for (const fn of this.applyListeners) fn(event);
    return delta;
  }

  private trim(n: NodeState): void {
    const excess = n.history.length - this.historyPerNode;
    if (excess <= 0) return;
    // Never split one sequence number: a resume point must replay a whole cluster event.
    let cut = excess;
    const lastDropped = n.history[cut - 1]?.seq ?? n.truncatedAt;
    while (cut < n.history.length && n.history[cut]?.seq === lastDropped) cut++;
    n.truncatedAt = lastDropped;
    n.history.splice(0, cut);
  }

  /**
   * Register a watcher. Without `fromResourceVersion` (or with `0`/''), the node's current state
   * comes back as ADDED events; with one, the events after it (`resume`) or `expired` when the
   * history no longer reaches back that far or the version is from another epoch.
   */
  watch(w: NodeWatcher, fromResourceVersion?: string): WatchStart {
    const n = this.node(w.node);
    const rv = this.resourceVersion;
    if (fromResourceVersion !== undefined && fromResourceVersion !== '' && fromResourceVersion !== '0') {
      const m = /^([^.]+)\.(\d+)$/.exec(fromResourceVersion);
      if (!m || m[1] !== this.epoch) return { mode: 'expired', reason: `resourceVersion ${fromResourceVersion} is from another controller instance` };
      const from = Number(m[2]);
      if (from > this.seq) return { mode: 'expired', reason: `resourceVersion ${fromResourceVersion} is in the future` };
      if (from < n.truncatedAt) return { mode: 'expired', reason: `resourceVersion ${fromResourceVersion} is too old (history starts after ${this.epoch}.${n.truncatedAt})` };
      const events = n.history.filter((h) => h.seq > from && w.resources.has(resourceOf(h.event) as ControlplaneResource)).map((h) => h.event);
      n.watchers.add(w);
      return { mode: 'resume', events, resourceVersion: rv };
    }
    const snap = this.nodeSnapshot(w.node);
    const events: controlplane.WatchEvent[] = [];
    if (w.resources.has('addressgroups')) for (const o of snap.addressGroups) events.push({ type: 'ADDED', kind: 'AddressGroup', object: o });
    if (w.resources.has('appliedtogroups')) for (const o of snap.appliedToGroups) events.push({ type: 'ADDED', kind: 'AppliedToGroup', object: o });
    if (w.resources.has('networkpolicies')) for (const o of snap.networkPolicies) events.push({ type: 'ADDED', kind: 'NetworkPolicy', object: o });
    n.watchers.add(w);
    return { mode: 'initial', events, resourceVersion: rv };
  }

  /**
   * A node's view. `engine.snapshot(node)` walks every policy and group, so 1,000 agents
   * connecting at once would cost 1,000 full walks; instead one walk buckets every node's view
   * and serves all watches until the next change.
   */
  nodeSnapshot(node: string): PolicySnapshot {
    this.viewIndex ??= this.buildViewIndex();
    return this.viewIndex.get(node) ?? { networkPolicies: [], addressGroups: [], appliedToGroups: [] };
  }

  /** One walk: the full snapshot, cut into each node's share by the names it holds. */
  private buildViewIndex(): Map<string, PolicySnapshot> {
    const full = this.engine.snapshot();
    const policies = new Map(full.networkPolicies.map((p) => [p.uid, p] as const));
    const addressGroups = new Map(full.addressGroups.map((g) => [g.name, g] as const));
    const appliedToGroups = new Set(full.appliedToGroups.map((g) => g.name));
    // Applied-to groups carry only the node's own members: one pass over every member files it
    // under its node (node -> group -> members), with no map per group.
    const local = new Map<string, Map<string, controlplane.GroupMember[]>>();
    for (const g of full.appliedToGroups) {
      for (const m of g.groupMembers) {
        const n = this.memberNode(m);
        if (n === undefined) continue;
        let groups = local.get(n);
        if (!groups) local.set(n, (groups = new Map()));
        const l = groups.get(g.name);
        if (l) l.push(m);
        else groups.set(g.name, [m]);
      }
    }
    const out = new Map<string, PolicySnapshot>();
    for (const [node, v] of this.views) {
      const snap: PolicySnapshot = { networkPolicies: [], addressGroups: [], appliedToGroups: [] };
      for (const uid of v.policies) {
        const p = policies.get(uid);
        if (p) snap.networkPolicies.push(p);
      }
      for (const name of v.addressGroups) {
        const g = addressGroups.get(name);
        if (g) snap.addressGroups.push(g);
      }
      const mine = local.get(node);
      for (const name of v.appliedToGroups) {
        if (appliedToGroups.has(name)) snap.appliedToGroups.push({ name, groupMembers: mine?.get(name) ?? [] });
      }
      snap.networkPolicies.sort((a, b) => (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0));
      snap.addressGroups.sort(byName);
      snap.appliedToGroups.sort(byName);
      out.set(node, snap);
    }
    return out;
  }

  private memberNode(m: controlplane.GroupMember): string | undefined {
    if (m.node) return m.node.name;
    if (m.pod) return this.podNodes.get(m.pod.namespace)?.get(m.pod.name);
    if (m.externalEntity) return this.entityNodes.get(m.externalEntity.namespace)?.get(m.externalEntity.name);
    return undefined;
  }

  /** Follow the names in a node's view (what the node holds) from its delta. */
  private trackView(node: string, d: NodeDelta): void {
    let v = this.views.get(node);
    if (!v) this.views.set(node, (v = { policies: new Set(), addressGroups: new Set(), appliedToGroups: new Set() }));
    for (const uid of d.networkPolicies.deleted) v.policies.delete(uid);
    for (const p of d.networkPolicies.added) v.policies.add(p.uid);
    for (const p of d.networkPolicies.updated) v.policies.add(p.uid);
    for (const n of d.addressGroups.deleted) v.addressGroups.delete(n);
    for (const g of d.addressGroups.added) v.addressGroups.add(g.name);
    for (const n of d.appliedToGroups.deleted) v.appliedToGroups.delete(n);
    for (const g of d.appliedToGroups.added) v.appliedToGroups.add(g.name);
  }

  /** Where pods and ExternalEntities run, from the events themselves (for applied-to splits). */
  private trackPlacement(e: ClusterEvent): void {
    const o = e.object as { kind?: string; metadata: { name?: string; namespace?: string }; spec?: { nodeName?: string; externalNode?: string } };
    if (o.kind !== 'Pod' && o.kind !== 'ExternalEntity') return;
    const namespace = o.metadata.namespace ?? 'default';
    const name = o.metadata.name ?? '';
    const map = o.kind === 'Pod' ? this.podNodes : this.entityNodes;
    const where = o.kind === 'Pod' ? o.spec?.nodeName : o.spec?.externalNode;
    let inNamespace = map.get(namespace);
    if (e.type === 'DELETED' || !where) {
      inNamespace?.delete(name);
      if (inNamespace?.size === 0) map.delete(namespace);
    } else {
      if (!inNamespace) map.set(namespace, (inNamespace = new Map()));
      inNamespace.set(name, where);
    }
  }

  /** Remove a watcher. */
  unwatch(w: NodeWatcher): void {
    this.nodes.get(w.node)?.watchers.delete(w);
  }

  /** Number of registered watchers. */
  get watcherCount(): number {
    let c = 0;
    for (const n of this.nodes.values()) c += n.watchers.size;
    return c;
  }

  /** Nodes with a watcher. */
  connectedNodes(): string[] {
    return [...this.nodes].filter(([, n]) => n.watchers.size > 0).map(([k]) => k);
  }

  /** Events held in a node's history (for tests and metrics). */
  historyLength(node: string): number {
    return this.nodes.get(node)?.history.length ?? 0;
  }

  /** Send a BOOKMARK with the current resourceVersion to every watcher now. */
  bookmark(): void {
    const e: controlplane.WatchEvent = { type: 'BOOKMARK', kind: 'Bookmark', object: { resourceVersion: this.resourceVersion }, resourceVersion: this.resourceVersion };
    for (const n of this.nodes.values()) for (const w of n.watchers) w.send([e]);
  }

  private scheduleBookmark(): void {
    if (this.bookmarkMs <= 0) return;
    this.bookmarkTimer = this.clock.setTimeout(() => {
      this.bookmark();
      this.scheduleBookmark();
    }, this.bookmarkMs);
  }

  /** Stop timers. Watchers are closed by their server. */
  close(): void {
    this.bookmarkTimer?.cancel();
    this.log.debug({}, 'hub closed');
  }
}
