/**
 * The incremental pipeline: holds every owner's flows, and on a new node state recomputes only
 * the owners whose object changed or who read something that changed (their recorded
 * dependencies), then publishes the flow-mods and group-mods that follow. The full computation
 * (computeNodeFlows) is its specification: after every update, the published flows and groups are
 * what computeNodeFlows gives for that state with the same conjunction ids.
 */
import type { Flow } from '@switchyard/openflow/codec';
import { StateReader, ownersOf, runFor, ownerKey, sharedKey } from './context';
import { diffFlows, type FlowDiff } from './diff';
import { featureKinds, featureTables, type Feature, type FeatureKinds, type OwnerOutput } from './feature';
import { activeFeatures } from './features/index';
import { CONTROLLER_ID } from './fields';
import type { Group } from './format';
import { sameValue } from './identity';
import { ConjunctionIds } from './ids';
import { MISS_OWNER, mergerOf, missFlows, type ComputeOptions, type NodeFlows } from './node';
import { changedKeys, ObjectIndex, type ObjectKind } from './objects';
import type { NodeState } from './state';
import { Readers } from './readers';
import { FlowStore, GroupStore, type GroupDelta, type OwnerFlows } from './store';
import { Pipeline } from './tables';
import { traceFlows, type TraceContext } from './trace';

/** What a Traceflow chooses of its trace flows: timeout, meter, live traffic, dropped only. */
export type TraceOptions = Pick<TraceContext, 'hardTimeout' | 'packetInMeter' | 'live' | 'droppedOnly'>;

export type { GroupDelta } from './store';

/** What one update changed. */
export interface NodeDelta {
  /** Flow-mods, with diffFlows's semantics and order (identity = table, priority, match). */
  flows: FlowDiff;
  /** Group-mods, by group id. */
  groups: GroupDelta;
  /** True when every owner was computed again (first update, configuration or feature change). */
  full: boolean;
  /** Owners whose flows were computed (an owner: one feature's part for one object). */
  recomputed: number;
}

/** One owner's current output and what it read. */
interface Owner {
  readonly key: string;
  readonly feature: number;
  entries: OwnerFlows;
  groupIds: readonly number[];
  deps: string[];
}

/** A checked feature list with its kinds. */
interface FeatureList extends FeatureKinds {
  features: Feature[];
}

/** Everything that belongs to one realized pipeline (rebuilt when the configuration or the feature list changes). */
interface Realized {
  features: Feature[];
  list: FeatureList;
  pipeline: Pipeline;
  flows: FlowStore;
  groups: GroupStore;
  owners: Map<string, Owner>;
  /** Owners by dependency key. */
  readers: Readers<Owner>;
  /** Shared values by feature name. */
  shared: Map<string, ReadonlyMap<string, number>>;
  index: ObjectIndex;
}

/** Observers of owner computations (the testing kit's), by pipeline. */
const OBSERVERS = new WeakMap<NodePipeline, (owner: string, computed: { output: OwnerOutput; deps: string[] } | undefined) => void>();

/**
 * Calls `fn` with every owner the pipeline computes (its output and recorded reads) or removes
 * (undefined). For the testing kit; not part of the package's API.
 */
export function observeOwners(np: NodePipeline, fn: (owner: string, computed: { output: OwnerOutput; deps: string[] } | undefined) => void): void {
  OBSERVERS.set(np, fn);
}

/** The same list: the same feature objects, or features of one name with equal `config`. */
function sameFeatures(a: readonly Feature[], b: readonly Feature[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((x, i) => {
    const y = b[i]!;
    return x === y || (x.name === y.name && x.config !== undefined && y.config !== undefined && sameValue(x.config, y.config));
  });
}

/**
 * Incrementally maintained flows and groups of one node. It keeps references to the objects and
 * arrays of the states it is given: change a state by replacing them, not by editing them in place.
 */
export class NodePipeline {
  private readonly controllerId: number;
  private readonly policyGroupIdBase: number;
  private readonly features: readonly Feature[] | undefined;
  private readonly ids = new ConjunctionIds();
  private cur: Realized | undefined;
  /** The state before the last update, for {@link rollback} (undefined: there was none). */
  private before: { index: ObjectIndex; list: FeatureList } | undefined;
  private undoable = false;
  /** An update threw half-way: the next one recomputes everything. */
  private broken = false;

  /** `features`: the node's feature list (default: the preset of each state, as computeNodeFlows). */
  constructor(opts: ComputeOptions = {}) {
    this.controllerId = opts.controllerId ?? CONTROLLER_ID;
    this.policyGroupIdBase = opts.policyGroupIdBase ?? 1;
    this.features = opts.features;
  }

  /** The realized pipeline (table numbers), once a state was applied. */
  get pipeline(): Pipeline | undefined {
    return this.cur?.pipeline;
  }

  /** The published flows (the same array until the next change). */
  flows(): Flow[] {
    return this.cur?.flows.flows() ?? [];
  }

  /** The published groups, by id. */
  groups(): Group[] {
    return this.cur?.groups.groups() ?? [];
  }

  /** Conjunction ids by rule key (rule keys of every computed policy). */
  conjIds(): Map<string, number> {
    return this.ids.entries();
  }

  /** The published node as computeNodeFlows returns it. */
  nodeFlows(): NodeFlows | undefined {
    if (!this.cur) return undefined;
    return { pipeline: this.cur.pipeline, flows: this.flows(), groups: this.groups(), conjIds: this.conjIds() };
  }

  /**
   * The trace flows of the node's traceable features for `tag` ({@link traceFlows}), from the
   * published flows; none before the first update.
   */
  traceFlows(tag: number, opts: TraceOptions = {}): Flow[] {
    const cur = this.cur;
    const ctx = this.traceContext(opts);
    return cur && ctx ? traceFlows(cur.features, ctx, tag) : [];
  }

  /** The context trace flows are computed in (for {@link liveTagFlow} beside them); undefined before the first update. */
  traceContext(opts: TraceOptions = {}): TraceContext | undefined {
    const cur = this.cur;
    if (!cur) return undefined;
    return { pipeline: cur.pipeline, config: cur.index.state.config, controllerId: this.controllerId, flows: this.flows(), ...opts };
  }

  /** Applies a new node state; returns what changed since the last one. */
  update(state: NodeState): NodeDelta {
    const features = activeFeatures(state, this.features);
    const cur = this.cur;
    const list = cur && sameFeatures(cur.features, features) ? cur.list : { features, ...featureKinds(features) };
    const index = new ObjectIndex(state, list.kinds);
    const before = cur && { index: cur.index, list: cur.list };
    this.undoable = false;
    const delta = this.apply(index, list);
    this.before = before;
    this.undoable = true;
    return delta;
  }

  /**
   * Reverts the last update (when the flows it published could not be installed): flows, groups
   * and conjunction ids are again those of the state before it. Does nothing a second time.
   */
  rollback(): void {
    if (!this.undoable) return;
    this.undoable = false;
    this.ids.undo();
    if (this.before === undefined) this.cur = undefined;
    else this.apply(this.before.index, this.before.list);
  }

  private apply(index: ObjectIndex, list: FeatureList): NodeDelta {
    // A change that failed half-way left ids it handed out and owners it replaced: start afresh.
    if (this.broken) this.ids.undo();
    this.ids.begin();
    try {
      const cur = this.cur;
      const delta = !cur || this.broken || !sameValue(cur.index.state.config, index.state.config) || cur.list !== list
        ? this.rebuild(index, list)
        : this.change(cur, index);
      this.broken = false;
      return delta;
    } catch (e) {
      this.broken = true;
      throw e;
    }
  }

  /** Computes every owner from scratch; the delta is a diff against what was published. */
  private rebuild(index: ObjectIndex, list: FeatureList): NodeDelta {
    const oldFlows = this.flows();
    const oldGroups = this.groups();
    const cfg = index.state.config;
    const features = list.features;
    const r: Realized = {
      features, list, pipeline: Pipeline.build(featureTables(features, cfg)), flows: new FlowStore(mergerOf(features)), groups: new GroupStore(),
      owners: new Map(), readers: new Readers(), shared: new Map(features.map((f) => [f.name, f.shared?.(index.state) ?? new Map()])), index,
    };
    const reader = this.reader(r, index);
    features.forEach((f, fi) => {
      for (const o of ownersOf(f, index)) this.setOwner(r, fi, o.owner, reader.compute(f, o.owner, o.run));
    });
    this.setOwner(r, features.length, MISS_OWNER, { output: { flows: missFlows(r.pipeline, cfg, features) }, deps: [] });
    const gone = [...(this.cur?.owners.keys() ?? [])].filter((k) => !r.owners.has(k));
    for (const k of gone) OBSERVERS.get(this)?.(k, undefined);
    this.ids.finish(r.owners.keys(), gone);
    r.flows.publish(false);
    r.groups.publish();
    this.cur = r;
    return { flows: diffFlows(r.flows.flows(), oldFlows), groups: diffGroups(r.groups.groups(), oldGroups), full: true, recomputed: r.owners.size };
  }

  /**
   * Recomputes the owners a change reaches: those whose own object was added, changed or removed,
   * and those that read an object or shared value that changed.
   */
  private change(r: Realized, index: ObjectIndex): NodeDelta {
    const changed = changedKeys(r.index, index);
    this.refreshShared(r, index, changed);
    const dirty = new Set<string>();
    const read = (o: Owner): void => void dirty.add(o.key);
    // An object's owner key is `<feature>/` + its dependency key (`<kind>:<key>`): the prefixes of
    // the features with flows per object of the kind, looked up once per kind, not once per key.
    const prefixes = new Map<string, string[]>();
    for (const k of changed) {
      r.readers.each(k, read);
      const kind = k.slice(0, k.indexOf(':'));
      let ps = prefixes.get(kind);
      if (!ps) {
        ps = r.features.filter((f) => f.perObject?.[kind as ObjectKind]).map((f) => `${f.name}/`);
        prefixes.set(kind, ps);
      }
      for (let j = 0; j < ps.length; j++) dirty.add(ps[j]! + k);
    }
    r.index = index;
    const computed = this.recompute(r, index, dirty);
    const removed = [...dirty].filter((k) => !computed.has(k) && r.owners.has(k));
    for (const key of removed) this.removeOwner(r, key);
    this.ids.finish(computed, removed);
    return { flows: r.flows.publish(), groups: r.groups.publish(), full: false, recomputed: computed.size };
  }

  /** Computes the dirty owners that still have an object (or are node-level), in feature then state order. */
  private recompute(r: Realized, index: ObjectIndex, dirty: Set<string>): Set<string> {
    const kinds = new Set<string>();
    for (const key of dirty) kinds.add(key.slice(key.indexOf('/') + 1, key.indexOf(':')));
    const reader = this.reader(r, index);
    const computed = new Set<string>();
    r.features.forEach((f, fi) => {
      // Node-level flows that read objects through the context are recomputed when those change.
      const node = f.nodeFlows;
      const nodeOwner = ownerKey(f.name);
      if (node && dirty.has(nodeOwner)) {
        this.setOwner(r, fi, nodeOwner, reader.compute(f, nodeOwner, (ctx) => node(ctx)));
        computed.add(nodeOwner);
      }
      for (const kind of Object.keys(f.perObject ?? {}) as ObjectKind[]) {
        if (!kinds.has(kind)) continue;
        const prefix = ownerKey(f.name, kind, '');
        // forEach: no iterator result and [key, obj] pair per object (thousands, interpreted in a first realization).
        index.of(kind).forEach((obj, key) => {
          const owner = prefix + key;
          if (!dirty.has(owner)) return;
          this.setOwner(r, fi, owner, reader.compute(f, owner, (ctx) => runFor(f, kind, ctx, obj)));
          computed.add(owner);
        });
      }
    });
    return computed;
  }

  /** Recomputes shared values whose inputs changed; their changed keys join `changed`. */
  private refreshShared(r: Realized, index: ObjectIndex, changed: Set<string>): void {
    let kinds: Set<string> | undefined;
    for (const f of r.features) {
      if (!f.shared) continue;
      // The kinds of the changed keys, once (a big change has thousands of keys).
      kinds ??= new Set([...changed].map((k) => k.slice(0, k.indexOf(':'))));
      if (!(f.sharedInputs ?? []).some((kind) => kinds!.has(kind))) continue;
      const before = r.shared.get(f.name) ?? new Map<string, number>();
      const after = f.shared(index.state);
      for (const [k, v] of after) if (before.get(k) !== v) changed.add(sharedKey(f.name, k));
      for (const k of before.keys()) if (!after.has(k)) changed.add(sharedKey(f.name, k));
      r.shared.set(f.name, after);
    }
  }

  private reader(r: Realized, index: ObjectIndex): StateReader {
    return new StateReader({
      pipeline: r.pipeline, config: index.state.config, index, declared: r.list.declared, controllerId: this.controllerId, policyGroupIdBase: this.policyGroupIdBase,
      conjunctionId: (owner, key) => this.ids.acquire(owner, key), shared: (f, key) => r.shared.get(f)?.get(key),
    });
  }

  private setOwner(r: Realized, feature: number, key: string, c: { output: OwnerOutput; deps: string[] }): void {
    OBSERVERS.get(this)?.(key, c);
    const old = r.owners.get(key);
    const o: Owner = old ?? { key, feature, entries: r.flows.none, groupIds: [], deps: [] };
    // The owner's first key string throughout: contributions are told apart by it (same string, cheap compare).
    o.entries = r.flows.replace(o.key, feature, o.entries, c.output.flows);
    o.groupIds = r.groups.replace(o.key, feature, o.groupIds, c.output.groups ?? []);
    r.readers.replace(o, o.deps, c.deps);
    o.deps = c.deps;
    if (!old) r.owners.set(key, o);
  }

  private removeOwner(r: Realized, key: string): void {
    OBSERVERS.get(this)?.(key, undefined);
    const o = r.owners.get(key)!;
    r.flows.replace(o.key, o.feature, o.entries, []);
    r.groups.replace(o.key, o.feature, o.groupIds, []);
    r.readers.replace(o, o.deps, []);
    r.owners.delete(key);
  }
}

/** Group-mods between two group lists. */
function diffGroups(next: readonly Group[], prev: readonly Group[]): GroupDelta {
  const before = new Map(prev.map((g) => [g.groupId, g]));
  const out: GroupDelta = { add: [], modify: [], delete: [] };
  for (const g of next) {
    const old = before.get(g.groupId);
    if (!old) out.add.push(g);
    else if (!sameValue(old, g)) out.modify.push(g);
    before.delete(g.groupId);
  }
  out.delete.push(...before.values());
  return out;
}
