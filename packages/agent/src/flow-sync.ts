/**
 * Keeps the bridge's flows equal to what openflow-pipeline computes for the node state: the
 * first sync of a run installs the whole round in one bundle and then deletes every flow of other
 * rounds; later syncs send only what changed (add / strict modify / strict delete), which the
 * incremental pipeline (NodePipeline) works out from the objects that changed, in one bundle.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { normalizeFlow, type Flow, type OfMessage } from '@switchyard/openflow/codec';
import type { FlowTransport } from '@switchyard/openflow';
import {
  NodePipeline,
  diffFlows,
  ROUND_MASK,
  CATEGORY_MASK,
  OBJECT_ID_MASK,
  makeCookie,
  parseCookie,
  CookieCategory,
  type Feature,
  type LocalPod,
  type NodeConfig,
  type Group,
  type NodeDelta,
  type NodeFlows,
  type NodeState,
  type TraceContext,
  type TraceOptions,
} from '@switchyard/openflow-pipeline';
import { OfSwitchError } from '@switchyard/openflow';
import { JsonRpcPeer, openStream } from '@switchyard/ovsdb';
import { silentLogger, type Logger } from '@switchyard/runtime';
import type { AgentMetrics } from './metrics';

/**
 * The control socket of the ovs-vswitchd serving `ovsRunDir`: `ovs-vswitchd.<pid>.ctl` as OVS
 * names it by default (pid from `ovs-vswitchd.pid`), else a `vswitchd.ctl` given by --unixctl (the
 * testbed's), else the first `*vswitchd*.ctl` there. Undefined when there is none.
 */
export function vswitchdControlSocket(ovsRunDir: string): string | undefined {
  for (const pidFile of ['ovs-vswitchd.pid', 'vswitchd.pid']) {
    const f = join(ovsRunDir, pidFile);
    if (!existsSync(f)) continue;
    const ctl = join(ovsRunDir, `ovs-vswitchd.${readFileSync(f, 'utf8').trim()}.ctl`);
    if (existsSync(ctl)) return ctl;
  }
  if (existsSync(join(ovsRunDir, 'vswitchd.ctl'))) return join(ovsRunDir, 'vswitchd.ctl');
  const any = existsSync(ovsRunDir) ? readdirSync(ovsRunDir).find((n) => /vswitchd.*\.ctl$/.test(n)) : undefined;
  return any === undefined ? undefined : join(ovsRunDir, any);
}

/**
 * Drops every datapath (megaflow) cache entry of the ovs-vswitchd serving a run directory
 * (`revalidator/purge`), for {@link FlowSyncOptions.flushDatapath} on the userspace datapath: the
 * next packet of each flow is translated afresh against the OpenFlow tables. The command goes
 * over one unixctl session (JSON-RPC on vswitchd's control socket, what `ovs-appctl` speaks),
 * opened on first use and again when it closed or vswitchd restarted (a new control socket), so a
 * policy change costs a request instead of an `ovs-appctl` process.
 */
export class DatapathPurger {
  private session: { ctl: string; peer: Promise<JsonRpcPeer> } | undefined;

  constructor(private readonly ovsRunDir: string) {}

  async purge(): Promise<void> {
    await this.call('revalidator/purge', []);
  }

  /**
   * `dpctl/flush-conntrack` in `zone`: the connections whose original tuple matches `orig` and whose
   * reply tuple matches `reply` (partial tuples, `ct_nw_src=…,ct_tp_src=…`; '' matches all).
   */
  async flushConntrack(zone: number, orig: string, reply: string): Promise<void> {
    await this.call('dpctl/flush-conntrack', [`zone=${zone}`, orig, reply]);
  }

  private async call(method: string, params: string[]): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const peer = await this.peer();
      try {
        await peer.request(method, params, { timeoutMs: 10_000 });
        return;
      } catch (e) {
        // A session vswitchd closed (it restarted): once more on a new one.
        if (!peer.isClosed || attempt > 0) throw e;
      }
    }
  }

  private async peer(): Promise<JsonRpcPeer> {
    const ctl = vswitchdControlSocket(this.ovsRunDir);
    if (ctl === undefined) throw new Error(`no ovs-vswitchd control socket in ${this.ovsRunDir}`);
    const cur = this.session;
    if (cur && cur.ctl === ctl) {
      const peer = await cur.peer.catch(() => undefined);
      if (peer && !peer.isClosed) return peer;
    }
    if (cur) void cur.peer.then((p) => p.close(), () => undefined);
    const peer = openStream({ kind: 'unix', path: ctl }).then((stream) => new JsonRpcPeer(stream));
    this.session = { ctl, peer };
    return peer;
  }

  close(): void {
    if (this.session) void this.session.peer.then((p) => p.close(), () => undefined);
    this.session = undefined;
  }
}

/** Options of {@link FlowSync}. */
export interface FlowSyncOptions {
  logger?: Logger;
  metrics?: AgentMetrics;
  /**
   * The node's pipeline features in precedence order (the agent's feature folders contribute
   * them: `nodePipelineFeatures`). Default: openflow-pipeline's preset for the configuration.
   */
  features?: readonly Feature[];
  /**
   * Empties the datapath's megaflow cache; called after every sync that changed NetworkPolicy
   * flows (and after the initial sync, unless it adopted the previous run's flows without changing
   * a NetworkPolicy flow), before the sync resolves, so "installed" means "enforced".
   * Needed on the userspace (netdev) datapath: there megaflows may overlap, and when the
   * revalidator updates a cached flow whose translation changed, dpif-netdev applies the new
   * actions to the first megaflow its classifier finds for the key, which can be another,
   * overlapping one. The stale entry then keeps its old verdict (a Drop that no longer exists, or
   * an Allow a new Drop should stop) for as long as packets keep hitting it, while the revalidator
   * believes it is up to date (issue 13: cells wrong for over a minute on the lab). Errors are
   * logged, not thrown (the flows are installed; only the cache may be stale).
   */
  flushDatapath?: () => Promise<void>;
}

/** True when the diff adds, modifies or deletes a NetworkPolicy flow. */
function touchesPolicy(flows: readonly Flow[][]): boolean {
  return flows.some((list) => list.some((f) => parseCookie(f.cookie ?? 0n).category === CookieCategory.NetworkPolicy));
}

/** Group-mods before the flows of a change (new and changed groups) and after them (removed ones). */
function groupMessages(d: NodeDelta['groups']): { before: OfMessage[]; after: OfMessage[] } {
  const before: OfMessage[] = [];
  // A group this run never installed may still be in the switch (left by a previous run whose
  // Service went away meanwhile): delete first, a no-op when absent, so the add cannot fail.
  for (const g of d.add) before.push({ type: 'groupMod', command: 'delete', groupId: g.groupId, groupType: g.groupType, buckets: [] }, { type: 'groupMod', command: 'add', ...g });
  for (const g of d.modify) before.push({ type: 'groupMod', command: 'modify', ...g });
  return { before, after: d.delete.map((g): OfMessage => ({ type: 'groupMod', command: 'delete', ...g })) };
}

/**
 * The messages of a delta, in one array (a policy's realization is thousands of flow-mods):
 * groups before the flows that use them, removed groups after the flows that used them.
 */
function deltaMessages(d: NodeDelta): OfMessage[] {
  const groups = groupMessages(d.groups);
  const { add, modify, delete: del } = d.flows;
  const out: OfMessage[] = [...groups.before];
  for (let i = 0; i < add.length; i++) out.push({ type: 'flowMod', command: 'add', flow: add[i]! });
  for (let i = 0; i < modify.length; i++) out.push({ type: 'flowMod', command: 'modifyStrict', flow: modify[i]! });
  for (let i = 0; i < del.length; i++) out.push({ type: 'flowMod', command: 'deleteStrict', flow: { ...del[i]!, cookieMask: 0n } });
  for (const m of groups.after) out.push(m);
  return out;
}

/** What {@link FlowSync.initialSync} did. */
export interface InitialSyncResult {
  /** Desired flows of this round (all in the switch afterwards). */
  installed: number;
  /** Rounds other than this one whose flows were found and deleted. */
  staleRounds: number[];
  /** Set when the previous run's flows were adopted: the flow-mods it took. */
  adopted?: SyncStats;
}

/** Counts of the last sync, for logs and tests. */
export interface SyncStats {
  added: number;
  modified: number;
  deleted: number;
}

/**
 * A slice of the node state: what one feature sets, as a whole (its remote nodes, its Service
 * ports, its ExternalNode spec, ...). Everything but the node's config and what the pipeline
 * keeps itself (conjunction ids). Pods also change one at a time ({@link FlowSync.upsertPod}).
 */
export type NodeSlice = Exclude<keyof NodeState, 'config' | 'conjIds'>;

/** Several slices set together, in one computation (the policy slices: policies, address and applied-to groups). */
export type NodeSlices = { [K in NodeSlice]?: NodeState[K] };

/** Computes a slice from the rest of the state at every computation (see {@link FlowSync.derive}). */
export type SliceDerivation<K extends NodeSlice> = (state: Readonly<NodeState>) => NodeState[K];

/** Serialized, incremental flow realization for one bridge. */
export class FlowSync {
  private readonly state: NodeState;
  /** The node's flows and groups: what the switch holds once the current bundle is in (a refused one is rolled back). */
  private readonly pipeline: NodePipeline;
  /** The installed flows, pipeline and conjunction ids, materialized on demand after each sync. */
  private current: NodeFlows | undefined;
  private chain: Promise<unknown> = Promise.resolve();
  /**
   * Where the last sync spent its time: the pipeline's update (the changed owners' flows and the
   * delta; `diffMs` stays 0 since no separate diff runs any more), then `installMs`: the bundle
   * round trip (`bundleMs`) and the userspace datapath's flush after a policy change (`flushMs`).
   */
  lastTimings: { computeMs: number; diffMs: number; installMs: number; bundleMs: number; flushMs: number } | undefined;
  private waiters: { resolve: (s: SyncStats) => void; reject: (e: unknown) => void }[] = [];
  private draining = false;
  private readonly log: Logger;

  private readonly metrics: AgentMetrics | undefined;
  private readonly flushDatapath: (() => Promise<void>) | undefined;
  private readonly derivations = new Map<NodeSlice, SliceDerivation<NodeSlice>>();
  /** Datapath flushes done (after policy changes), for logs and tests. */
  datapathFlushes = 0;
  /** What the first sync of this run did (undefined before it), for logs, health and tests. */
  initialResult: InitialSyncResult | undefined;

  constructor(
    private readonly sw: FlowTransport,
    config: NodeConfig,
    opts: FlowSyncOptions = {},
  ) {
    this.log = opts.logger ?? silentLogger;
    this.metrics = opts.metrics;
    this.pipeline = new NodePipeline(opts.features ? { features: opts.features } : {});
    this.flushDatapath = opts.flushDatapath;
    this.state = { config, pods: [], remoteNodes: [], policies: [], addressGroups: [], appliedToGroups: [] };
  }

  /** The round this sync writes in cookies. */
  get round(): number {
    return this.state.config.round;
  }

  /** The flows last installed (the computed desired set). */
  get flows(): readonly Flow[] {
    return this.nodeFlows?.flows ?? [];
  }

  /** Conjunction ids by rule key in use. */
  get conjIds(): ReadonlyMap<string, number> | undefined {
    return this.nodeFlows?.conjIds;
  }

  /**
   * The installed node flows (pipeline with table names, flows, groups, conjunction ids). While a
   * bundle is in flight it may already show that bundle's flows.
   */
  get nodeFlows(): NodeFlows | undefined {
    this.current ??= this.pipeline.nodeFlows();
    return this.current;
  }

  /** Sets or replaces a local pod (same name and namespace) and syncs. */
  upsertPod(pod: LocalPod): Promise<SyncStats> {
    this.state.pods = [...this.state.pods.filter((p) => !(p.name === pod.name && p.namespace === pod.namespace)), pod];
    return this.requestSync();
  }

  /** Removes a local pod and syncs. */
  removePod(namespace: string, name: string): Promise<SyncStats> {
    this.state.pods = this.state.pods.filter((p) => !(p.name === name && p.namespace === namespace));
    return this.requestSync();
  }

  /** Replaces a slice of the node state (undefined removes an optional one) and syncs. */
  set<K extends NodeSlice>(slice: K, value: NodeState[K]): Promise<SyncStats>;
  /** Replaces several slices in one computation and syncs. */
  set(slices: NodeSlices): Promise<SyncStats>;
  set<K extends NodeSlice>(slice: K | NodeSlices, value?: NodeState[K]): Promise<SyncStats> {
    this.prime(slice as K, value as NodeState[K]);
    return this.requestSync();
  }

  /** Replaces a slice (or several) without syncing: state put in place before the first sync of a run. */
  prime<K extends NodeSlice>(slice: K, value: NodeState[K]): void;
  prime(slices: NodeSlices): void;
  prime<K extends NodeSlice>(slice: K | NodeSlices, value?: NodeState[K]): void {
    const slices: NodeSlices = typeof slice === 'string' ? { [slice]: value } : slice;
    const state = this.state as unknown as Record<string, unknown>;
    for (const [k, v] of Object.entries(slices)) {
      if (v === undefined) delete state[k];
      else state[k] = Array.isArray(v) ? [...(v as unknown[])] : v;
    }
  }

  /** The node's configuration (round, gateway, tunnel, addresses) the flows are computed with. */
  get config(): Readonly<NodeConfig> {
    return this.state.config;
  }

  /**
   * Installs a Traceflow tag's trace flows (the traceable features' flows over the node's flows as
   * installed) and `extra` flows computed in the same context (live traffic's tagging flow),
   * after every change queued before it. Returns how many flows went in.
   */
  addTrace(tag: number, opts: TraceOptions, extra: (ctx: TraceContext) => Flow[] = () => []): Promise<number> {
    return this.serialize(async () => {
      const ctx = this.pipeline.traceContext(opts);
      if (!ctx) return 0;
      const flows = [...this.pipeline.traceFlows(tag, opts), ...extra(ctx)];
      await this.sw.bundle(flows.map((flow): OfMessage => ({ type: 'flowMod', command: 'add', flow })));
      return flows.length;
    });
  }

  /** Removes every flow of a Traceflow tag (its cookie, whatever the round), in order with the other changes. */
  removeTrace(tag: number): Promise<void> {
    return this.serialize(async () => {
      const flow: Flow = { table: 0xff, priority: 0, match: {}, actions: [], cookie: makeCookie(0, CookieCategory.Traceflow, tag), cookieMask: CATEGORY_MASK | OBJECT_ID_MASK };
      await this.sw.bundle([{ type: 'flowMod', command: 'delete', flow }]);
    });
  }

  /** A slice of the node state as the next computation sees it. */
  get<K extends NodeSlice>(slice: K): NodeState[K] {
    return this.state[slice];
  }

  /**
   * Makes `slice` derived: every computation sets it from the rest of the state (the FQDN
   * intercepts follow pods, policies and the DNS cache). Undefined stops deriving it and removes it.
   * Does not sync.
   */
  derive<K extends NodeSlice>(slice: K, fn: SliceDerivation<K> | undefined): void {
    if (fn) this.derivations.set(slice, fn as SliceDerivation<NodeSlice>);
    else {
      this.derivations.delete(slice);
      this.prime(slice, undefined as NodeState[K]);
    }
  }

  /**
   * Resolves once a sync that started after this call has been installed. Changes that arrive
   * while a sync runs are installed together by the next one (group commit): with many pods
   * attaching at once there is one bundle per round trip, not one per pod.
   */
  requestSync(): Promise<SyncStats> {
    return new Promise<SyncStats>((resolve, reject) => {
      this.waiters.push({ resolve, reject });
      if (!this.draining) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.waiters.length > 0) {
        const batch = this.waiters.splice(0);
        try {
          const stats = await this.serialize(() => this.syncLocked());
          for (const w of batch) w.resolve(stats);
        } catch (e) {
          for (const w of batch) w.reject(e);
        }
      }
    } finally {
      this.draining = false;
    }
  }

  /**
   * First sync of a run. By default it installs every desired flow of this round in one atomic
   * bundle (flows that already exist are replaced in place, so traffic keeps flowing), then deletes
   * the flows of all other rounds.
   *
   * With `adopt` (the agent restarted and the switch still holds the flows of the round it
   * resumes), it reads the switch's flows instead and sends only the difference: desired flows
   * missing from the switch are added, flows whose actions or cookie differ are modified, and
   * flows nobody wants any more (of this round or another) are deleted, in one bundle. Flows that
   * are already right are not touched, so their counters and age survive the restart. If that
   * bundle is refused, the full install runs instead.
   */
  initialSync(pods: readonly LocalPod[], opts: { adopt?: boolean } = {}): Promise<InitialSyncResult> {
    return this.serialize(async () => {
      this.state.pods = [...pods];
      const before = this.current;
      this.compute();
      const flows = this.pipeline.flows();
      const groups = this.pipeline.groups();
      try {
        await this.installGroups(groups);
        if (opts.adopt) {
          const adopted = await this.adopt(flows);
          if (adopted) {
            this.current = undefined;
            // Megaflows translated against flows the adopt left as they were are still right: the
            // purge (every datapath flow translated again, the first packets of each upcalled) is
            // for a bundle that changed NetworkPolicy flows, as after any other sync.
            if (adopted.touchedPolicy) await this.flush('initial sync (adopted)');
            this.log.info({ round: this.round, flows: flows.length, ...adopted.stats, staleRounds: adopted.staleRounds }, 'flows of the previous run adopted');
            this.initialResult = { installed: flows.length, staleRounds: adopted.staleRounds, adopted: adopted.stats };
            return this.initialResult;
          }
        }
        await this.sw.bundle(flows.map((flow): OfMessage => ({ type: 'flowMod', command: 'add', flow })));
      } catch (e) {
        this.pipeline.rollback();
        this.current = before;
        throw e;
      }
      this.current = undefined;
      const staleRounds = new Set<number>();
      for (const f of await this.sw.dumpFlows()) {
        const r = parseCookie(f.cookie ?? 0n).round;
        if (r !== this.round) staleRounds.add(r);
      }
      // Delete per stale round by cookie mask: one flow-mod each, whatever the number of flows.
      if (staleRounds.size > 0) {
        await this.sw.flowMods(
          [...staleRounds].map((r) => ({
            command: 'delete' as const,
            flow: { table: 0xff, priority: 0, match: {}, actions: [], cookie: makeCookie(r, 0), cookieMask: ROUND_MASK },
          })),
        );
      }
      await this.flush('initial sync');
      this.log.info({ round: this.round, flows: flows.length, staleRounds: [...staleRounds] }, 'initial flows installed');
      this.initialResult = { installed: flows.length, staleRounds: [...staleRounds] };
      return this.initialResult;
    });
  }

  /**
   * Groups may survive from the previous run (there is no add-or-modify): add each, and modify the
   * ones that exist. A modify with the same buckets leaves the group's traffic alone.
   */
  private async installGroups(groups: readonly Group[]): Promise<void> {
    const modify: Group[] = [];
    for (const g of groups) {
      try {
        await this.sw.bundle([{ type: 'groupMod', command: 'add', ...g }]);
      } catch (e) {
        if (!(e instanceof OfSwitchError && e.codeName === 'OFPGMFC_GROUP_EXISTS')) throw e;
        modify.push(g);
      }
    }
    if (modify.length > 0) await this.sw.bundle(modify.map((g): OfMessage => ({ type: 'groupMod', command: 'modify', ...g })));
  }

  /**
   * The adopting half of {@link initialSync}: one bundle with the difference between the switch's
   * flows and `desired` (cookies compared too, so a flow of another round is rewritten or
   * removed). Undefined when the switch refused it (the caller then installs everything).
   */
  private async adopt(desired: readonly Flow[]): Promise<{ stats: SyncStats; staleRounds: number[]; touchedPolicy: boolean } | undefined> {
    const installed = await this.sw.dumpFlows();
    // Compare in the form the switch reports (masks applied, addresses canonical, note padding).
    const d = diffFlows(desired.map(normalizeFlow), installed, { compareCookies: true });
    const staleRounds = new Set<number>();
    for (const f of installed) {
      const r = parseCookie(f.cookie ?? 0n).round;
      if (r !== this.round) staleRounds.add(r);
    }
    const messages: OfMessage[] = [
      ...d.add.map((flow): OfMessage => ({ type: 'flowMod', command: 'add', flow })),
      // A changed flow is re-added (replaced in place) rather than modified: since OpenFlow 1.2 a
      // modify never rewrites the cookie, and a flow left by another round must take this one's.
      ...d.modify.map((flow): OfMessage => ({ type: 'flowMod', command: 'add', flow })),
      ...d.delete.map((f): OfMessage => ({ type: 'flowMod', command: 'deleteStrict', flow: { table: f.table, priority: f.priority, match: f.match, actions: [], cookieMask: 0n } })),
    ];
    try {
      if (messages.length > 0) await this.sw.bundle(messages);
    } catch (e) {
      this.log.warn({ err: (e as Error).message, add: d.add.length, modify: d.modify.length, delete: d.delete.length }, 'adopting the previous run\'s flows was refused; installing every flow');
      return undefined;
    }
    return {
      stats: { added: d.add.length, modified: d.modify.length, deleted: d.delete.length },
      staleRounds: [...staleRounds],
      touchedPolicy: touchesPolicy([d.add, d.modify, d.delete]),
    };
  }

  /**
   * After the switch restarted and lost its flows: re-sends every flow and group it held, then
   * syncs, so changes whose bundle failed while the switch was away (a policy, a pod) go in too.
   * Only a failed replay rejects.
   */
  async replay(): Promise<void> {
    await this.serialize(async () => {
      await this.sw.bundle([
        ...this.pipeline.groups().map((group): OfMessage => ({ type: 'groupMod', command: 'add', ...group })),
        ...this.pipeline.flows().map((flow): OfMessage => ({ type: 'flowMod', command: 'add', flow })),
      ]);
    });
    // A change the switch refuses now is its callers' failure (they retry); the replay stands.
    await this.requestSync().catch((e: unknown) => this.log.warn({ err: (e as Error).message }, 'sync after the replay failed'));
  }

  /** Applies the node state to the pipeline: what changed since the last state. */
  private compute(): NodeDelta {
    // Derived slices (the FQDN intercepts) follow the rest of the state at every computation.
    for (const [slice, derive] of this.derivations) this.prime(slice, derive(this.state));
    // Conjunction ids are the pipeline's: stable for rules that remain, fresh ones for new rules.
    return this.pipeline.update(this.state);
  }

  private async syncLocked(): Promise<SyncStats> {
    const t0 = performance.now();
    // What readers saw as installed: restored if this change does not go in.
    const before = this.current;
    const d = this.compute();
    const t1 = performance.now();
    const messages = deltaMessages(d);
    try {
      if (messages.length > 0) await this.sw.bundle(messages);
    } catch (e) {
      // Not installed: the pipeline goes back to what the switch holds.
      this.pipeline.rollback();
      this.current = before;
      throw e;
    }
    this.current = undefined;
    const t2 = performance.now();
    if (touchesPolicy([d.flows.add, d.flows.modify, d.flows.delete])) await this.flush('policy flows changed');
    const ms = (a: number, b: number): number => Math.round((b - a) * 100) / 100;
    const t3 = performance.now();
    this.lastTimings = { computeMs: ms(t0, t1), diffMs: 0, installMs: ms(t1, t3), bundleMs: ms(t1, t2), flushMs: ms(t2, t3) };
    this.metrics?.flowSync.observe((performance.now() - t0) / 1000, { kind: 'diff' });
    const stats = { added: d.flows.add.length, modified: d.flows.modify.length, deleted: d.flows.delete.length };
    this.log.debug({ ...stats, owners: d.recomputed }, 'flows synced');
    return stats;
  }

  /** Runs the datapath flush hook, if any; a failure is logged (the OpenFlow tables are right). */
  private async flush(why: string): Promise<void> {
    if (!this.flushDatapath) return;
    try {
      await this.flushDatapath();
      this.datapathFlushes++;
      this.log.debug({ why }, 'datapath flows flushed');
    } catch (e) {
      this.log.warn({ err: (e as Error).message, why }, 'datapath flush failed; cached datapath flows may be stale until they idle out');
    }
  }

  private serialize<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.chain.then(fn, fn);
    this.chain = next.catch(() => undefined);
    return next;
  }
}
