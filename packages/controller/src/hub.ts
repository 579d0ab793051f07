// Per-node controlplane streams: feeds cluster events to the policy compiler's incremental engine
// and fans each node's delta out to that node's watchers, keeping a bounded per-node history so a
// reconnecting agent resumes from its last resourceVersion.
import { randomBytes } from 'node:crypto';
import type { controlplane } from '@switchyard/apis';
import { PolicyEngine, toWatchEvents, type ClusterEvent, type PolicyDelta, type PolicySnapshot } from '@switchyard/policy-compiler';
import { NodeViews } from './node-views';
import { silentLogger, systemClock, type Clock, type Logger, type TimerHandle } from '@switchyard/runtime';

/** The watchable controlplane resources. */
export type ControlplaneResource = 'networkpolicies' | 'addressgroups' | 'appliedtogroups' | 'egressgroups';
/** What the combined `watch` stream carries: the policy resources. */
export const CONTROLPLANE_RESOURCES: readonly ControlplaneResource[] = ['networkpolicies', 'addressgroups', 'appliedtogroups'];
/** Every resource with a watch of its own (`<resource>?watch=true`): the policy resources and the Egress groups. */
export const WATCHABLE_RESOURCES: readonly ControlplaneResource[] = [...CONTROLPLANE_RESOURCES, 'egressgroups'];

const RESOURCE_OF: Record<string, ControlplaneResource> = {
  NetworkPolicy: 'networkpolicies',
  AddressGroup: 'addressgroups',
  AddressGroupPatch: 'addressgroups',
  AppliedToGroup: 'appliedtogroups',
  AppliedToGroupPatch: 'appliedtogroups',
  EgressGroup: 'egressgroups',
  EgressGroupPatch: 'egressgroups',
};

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
  /** Every node's view, kept up to date from the deltas (what a new watcher receives). */
  private readonly views = new NodeViews();
  /** The Egress groups: every node holds all of them (docs/egress.md, "Members from the controller"). */
  private readonly egressGroups = new Map<string, controlplane.EgressGroup>();

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
    if (delta.nodes.size > 0) this.views.apply(delta.nodes);
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

  /**
   * Publish changes of the Egress groups, which every node holds whole: one resourceVersion for
   * the lot, in every node's history, to every watcher of `egressgroups`. A patch makes a new
   * group object (the one before may be in an initial state or the history). The same object goes
   * to every node, so it is encoded once per change for all watchers.
   */
  publishEgressGroups(events: readonly controlplane.WatchEvent[]): void {
    if (events.length === 0) return;
    for (const e of events) {
      if (e.kind === 'EgressGroup') {
        if (e.type === 'DELETED') this.egressGroups.delete(e.object.name);
        else this.egressGroups.set(e.object.name, e.object);
      } else if (e.kind === 'EgressGroupPatch') {
        const g = this.egressGroups.get(e.object.name);
        if (!g) continue;
        const gone = new Set(e.object.removedGroupMembers.map((m) => `${m.pod?.namespace ?? ''}/${m.pod?.name ?? ''}`));
        const kept = gone.size === 0 ? g.groupMembers.slice() : g.groupMembers.filter((m) => !gone.has(`${m.pod?.namespace ?? ''}/${m.pod?.name ?? ''}`));
        this.egressGroups.set(g.name, { name: g.name, groupMembers: [...kept, ...e.object.addedGroupMembers] });
      }
    }
    const seq = ++this.seq;
    if (!this.syncedFlag) return;
    const rv = `${this.epoch}.${seq}`;
    const stamped = events.map((e) => ({ ...e, resourceVersion: rv }) as controlplane.WatchEvent);
    for (const n of this.nodes.values()) {
      for (const e of stamped) n.history.push({ seq, event: e });
      this.trim(n);
      this.stats.nodeEvents += stamped.length;
      for (const w of n.watchers) if (w.resources.has('egressgroups')) w.send(stamped);
    }
  }

  /** The Egress groups as a new watcher receives them, by name. */
  egressGroupList(): controlplane.EgressGroup[] {
    return [...this.egressGroups.keys()].sort().map((n) => this.egressGroups.get(n) as controlplane.EgressGroup);
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
    if (w.resources.has('egressgroups')) for (const o of this.egressGroupList()) events.push({ type: 'ADDED', kind: 'EgressGroup', object: o });
    n.watchers.add(w);
    return { mode: 'initial', events, resourceVersion: rv };
  }

  /**
   * A node's view: what a new watcher of the node receives, kept from the deltas (equal to
   * `engine.snapshot(node)` up to the order of group members, without its walk of every policy).
   */
  nodeSnapshot(node: string): PolicySnapshot {
    return this.views.snapshot(node);
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
