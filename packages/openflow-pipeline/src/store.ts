/**
 * The incremental pipeline's flows and groups: every identity with the owners that contribute it,
 * the value last published for it, and the identities touched since the last publication. Replacing
 * an owner's output touches only its identities; `publish` resolves those (merge.ts) and reports
 * the flow-mods and group-mods that turn the last published set into the current one.
 */
import type { Flow } from '@switchyard/openflow/codec';
import type { FlowDiff } from './diff';
import { matchKey } from './diff';
import type { Group } from './format';
import { flowHash, sameIdentity, sameValue } from './identity';
import { conjunctionCodes, mergedFlow, resolveFlow, resolveGroup, sameCodes, type Contribution, type Resolved } from './merge';

/** Conjunctive match flows of one merging feature at one identity: their codes. */
interface ConjSet {
  readonly feature: number;
  /** A flow of the feature with the identity (they share one cookie): the merged flow's template. */
  readonly template: Flow;
  /** The codes of every contribution, with repeats (a code once per contribution carrying it). */
  readonly codes: number[];
}

/** One identity (table, priority, match) and who contributes it. */
export interface FlowEntry {
  readonly hash: number;
  /** A flow with the identity (the first contribution's). */
  readonly key: Flow;
  /**
   * Contributions held one by one: every flow but the conjunctive match flows of merging features
   * ({@link NO_HELD} until the first: most entries of a big policy are conjunctive match flows).
   */
  plain: Held[];
  /**
   * The conjunctive match flows of merging features, as codes per feature: the one feature's set
   * (the usual case, no array), or a set per feature.
   */
  conj: ConjSet | ConjSet[] | undefined;
  published: Flow | undefined;
  /** Conjunction codes of the published flow, when it is a merged conjunctive match flow. */
  codes: readonly number[] | undefined;
  dirty: boolean;
}

/** A contribution held by an entry, at `pos` in its list. */
export interface Held extends Contribution {
  readonly entry: FlowEntry;
  pos: number;
}

/**
 * What one owner holds: its plain contributions, and its conjunctive match flows as (entry, code)
 * pairs in two parallel arrays (no object per flow: a rule with 100 peer addresses holds 100 pairs).
 */
export interface OwnerFlows {
  readonly plain: readonly Held[];
  readonly conjEntries: readonly FlowEntry[];
  /**
   * The codes, pair by pair. A plain array of small integers (V8 keeps them unboxed, as compact
   * as a Float64Array): a typed array per owner cost more to allocate, and a node has thousands of owners.
   */
  readonly conjCodes: readonly number[];
}

/** Group-mods between two publications. */
export interface GroupDelta {
  add: Group[];
  modify: Group[];
  delete: Group[];
}

/**
 * The `plain` list of an entry nothing holds one by one; `replace` swaps it for a list of the
 * entry's own before adding (the only place that adds). Not frozen, and made empty from a list of
 * objects: a frozen array, or an empty literal (small integers), would give the entries' lists two
 * elements kinds and the code reading them a second map.
 */
const NO_HELD: Held[] = [undefined as unknown as Held];
NO_HELD.pop();

/** The sets of an entry (allocates only for the rare entry with sets of several features). */
function conjSets(e: FlowEntry): readonly ConjSet[] {
  const c = e.conj;
  return c === undefined ? [] : Array.isArray(c) ? c : [c];
}

/** Scratch for sorting codes (numeric sort of a typed array, no comparator). */
let scratch = new Float64Array(256);

/** Codes sorted ascending, each once. */
function sortedDistinct(codes: readonly number[]): number[] {
  if (codes.length === 1) return [codes[0]!];
  if (scratch.length < codes.length) scratch = new Float64Array(codes.length * 2);
  const a = scratch.subarray(0, codes.length);
  a.set(codes);
  a.sort();
  const out: number[] = [];
  for (let i = 0; i < a.length; i++) if (i === 0 || a[i] !== a[i - 1]) out.push(a[i]!);
  return out;
}

/** Removes every contribution of `owner` from a list, in place; true when one was there. */
function dropOwner<T>(list: Contribution<T>[], owner: string): boolean {
  let w = 0;
  for (let r = 0; r < list.length; r++) if (list[r]!.owner !== owner) list[w++] = list[r]!;
  const changed = w !== list.length;
  list.length = w;
  return changed;
}

/** The lowest feature index of an entry's contributions (-1: none). */
function firstFeature(e: FlowEntry): number {
  let f = -1;
  const plain = e.plain;
  for (let i = 0; i < plain.length; i++) if (f < 0 || plain[i]!.feature < f) f = plain[i]!.feature;
  const conj = e.conj;
  if (conj === undefined) return f;
  if (!Array.isArray(conj)) return f < 0 || conj.feature < f ? conj.feature : f;
  for (let i = 0; i < conj.length; i++) if (f < 0 || conj[i]!.feature < f) f = conj[i]!.feature;
  return f;
}

/**
 * diffFlows's order (sortByIdentity: table, priority high first, identity hash, match text) from
 * the hashes the entries hold: a big change sorts thousands of them, hashing each again cost more
 * than the sort.
 */
function byIdentity(a: FlowEntry, b: FlowEntry): number {
  const fa = a.key;
  const fb = b.key;
  if (fa.table !== fb.table) return fa.table - fb.table;
  if (fa.priority !== fb.priority) return fb.priority - fa.priority;
  if (a.hash !== b.hash) return a.hash - b.hash;
  const ka = matchKey(fa.match);
  const kb = matchKey(fb.match);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/** `flows[i]` (the flow of `entries[i]`) in the entries' identity order. */
function sortedFlows(entries: readonly FlowEntry[], flows: readonly Flow[]): Flow[] {
  const idx = Array.from(entries.keys()).sort((i, j) => byIdentity(entries[i]!, entries[j]!));
  return idx.map((i) => flows[i]!);
}

/** Flows by identity with their contributions. */
export class FlowStore {
  /** Entries by identity hash: the entry itself, or a list when hashes collide. */
  private readonly buckets = new Map<number, FlowEntry | FlowEntry[]>();
  private readonly live = new Set<FlowEntry>();
  private dirty: FlowEntry[] = [];
  private cache: Flow[] | undefined;
  /** What an owner without flows holds. */
  readonly none: OwnerFlows = { plain: [], conjEntries: [], conjCodes: [] };

  constructor(private readonly mergesConjunctions: (feature: number) => boolean) {}

  /**
   * Replaces an owner's flows: its `previous` contributions (what the last call returned for it)
   * leave their entries and those of `flows` join theirs. Returns what the owner now holds.
   */
  replace(owner: string, feature: number, previous: OwnerFlows, flows: readonly Flow[]): OwnerFlows {
    // Indexed loops on this path: a first realization runs it interpreted, where for-of allocates.
    for (let i = 0; i < previous.plain.length; i++) this.remove(previous.plain[i]!);
    for (let i = 0; i < previous.conjEntries.length; i++) this.removeCode(previous.conjEntries[i]!, feature, previous.conjCodes[i]!);
    if (flows.length === 0) return this.none;
    const merging = this.mergesConjunctions(feature);
    const plain: Held[] = [];
    const conjEntries: FlowEntry[] = [];
    const conjCodes: number[] = [];
    for (let seq = 0; seq < flows.length; seq++) {
      const f = flows[seq]!;
      const e = this.entry(f);
      const codes = merging ? conjunctionCodes(f) : undefined;
      if (codes) {
        for (let k = 0; k < codes.length; k++) {
          this.addCode(e, feature, codes[k]!, f);
          conjCodes.push(codes[k]!);
          conjEntries.push(e);
        }
      } else {
        const c: Held = { feature, owner, seq, value: f, codes: undefined, entry: e, pos: e.plain.length };
        if (e.plain === NO_HELD) e.plain = [c];
        else e.plain.push(c);
        plain.push(c);
      }
      this.touch(e);
    }
    return { plain, conjEntries, conjCodes };
  }

  /**
   * Resolves every touched identity; the flow-mods since the last call (diffFlows semantics, and
   * its order unless `sorted` is false).
   */
  publish(sorted = true): FlowDiff {
    // Entries, not flows: sorting them reads the identity hash each already has.
    const add: FlowEntry[] = [];
    const modify: FlowEntry[] = [];
    const del: Flow[] = [];
    const delEntries: FlowEntry[] = [];
    const dirty = this.dirty;
    for (let i = 0; i < dirty.length; i++) {
      const e = dirty[i]!;
      e.dirty = false;
      const prev = e.published;
      const prevCodes = e.codes;
      const r = this.resolve(e);
      const next = r.flow;
      if (next === prev) {
        if (!next) this.forget(e);
        continue;
      }
      this.cache = undefined;
      e.published = next;
      e.codes = r.codes;
      if (!next) {
        del.push(prev!);
        delEntries.push(e);
        this.live.delete(e);
        this.forget(e);
      } else if (!prev) {
        add.push(e);
        this.live.add(e);
      } else if (!(r.codes && prevCodes ? sameCodes(r.codes, prevCodes) : sameValue(prev.actions, next.actions))) {
        modify.push(e);
      }
      // Only the cookie changed: no flow-mod (a strict modify keeps the installed cookie anyway).
    }
    this.dirty = [];
    const published = (es: FlowEntry[]): Flow[] => {
      const out = new Array<Flow>(es.length);
      for (let i = 0; i < es.length; i++) out[i] = es[i]!.published!;
      return out;
    };
    if (!sorted) return { add: published(add), modify: published(modify), delete: del };
    return { add: published(add.sort(byIdentity)), modify: published(modify.sort(byIdentity)), delete: sortedFlows(delEntries, del) };
  }

  /** The published flows. */
  flows(): Flow[] {
    this.cache ??= [...this.live].map((e) => e.published!);
    return this.cache;
  }

  /** An entry's flow, by the rules of merge.ts's resolveFlow (the first feature decides). */
  private resolve(e: FlowEntry): Resolved {
    const conj = e.conj;
    // The common conjunctive match flow: one rule clause holds it. What mergedFlow gives, without
    // its allocations (thousands of these come with one big policy).
    if (e.plain.length === 0 && conj !== undefined && !Array.isArray(conj) && conj.codes.length === 1) {
      const { template, codes } = conj;
      const code = codes[0]!;
      const prev = e.codes;
      if (e.published && prev?.length === 1 && prev[0] === code && e.published.cookie === template.cookie) return { flow: e.published, codes: prev };
      const own = conjunctionCodes(template);
      if (own?.length === 1 && own[0] === code) return { flow: template, codes: own };
    }
    const feature = firstFeature(e);
    if (feature < 0) return { flow: undefined, codes: undefined };
    if (e.plain.length > 0) {
      const own = e.plain.length === 1 ? e.plain : e.plain.filter((c) => c.feature === feature);
      if (own.length > 0 && own[0]!.feature === feature) return resolveFlow(own, this.mergesConjunctions);
    }
    const set = conjSets(e).find((x) => x.feature === feature)!;
    return mergedFlow(set.template, sortedDistinct(set.codes), { flow: e.published, codes: e.codes });
  }

  private addCode(e: FlowEntry, feature: number, code: number, f: Flow): void {
    const conj = e.conj;
    if (conj === undefined) {
      e.conj = { feature, template: f, codes: [code] };
      return;
    }
    if (!Array.isArray(conj)) {
      if (conj.feature === feature) conj.codes.push(code);
      else e.conj = [conj, { feature, template: f, codes: [code] }];
      return;
    }
    let set: ConjSet | undefined;
    for (let i = 0; i < conj.length; i++) if (conj[i]!.feature === feature) set = conj[i];
    if (set) set.codes.push(code);
    else conj.push({ feature, template: f, codes: [code] });
  }

  private removeCode(e: FlowEntry, feature: number, code: number): void {
    const conj = e.conj!;
    const sets = Array.isArray(conj) ? conj : undefined;
    const si = sets ? sets.findIndex((x) => x.feature === feature) : 0;
    const codes = (sets ? sets[si]! : (conj as ConjSet)).codes;
    const i = codes.lastIndexOf(code);
    codes[i] = codes[codes.length - 1]!;
    codes.pop();
    if (codes.length === 0) {
      if (!sets) e.conj = undefined;
      else {
        sets.splice(si, 1);
        // Back to the single set (the fast path in resolve) when one feature is left.
        e.conj = sets.length === 0 ? undefined : sets.length === 1 ? sets[0] : sets;
      }
    }
    this.touch(e);
  }

  /** Takes a contribution out of its entry (the last one moves into its place). */
  private remove(c: Held): void {
    const e = c.entry;
    const last = e.plain.pop()!;
    if (last !== c) {
      e.plain[c.pos] = last;
      last.pos = c.pos;
    }
    this.touch(e);
  }

  private touch(e: FlowEntry): void {
    if (e.dirty) return;
    e.dirty = true;
    this.dirty.push(e);
  }

  private entry(f: Flow): FlowEntry {
    const h = flowHash(f);
    const at = this.buckets.get(h);
    if (at !== undefined && !Array.isArray(at) && sameIdentity(at.key, f)) return at;
    if (Array.isArray(at)) for (let i = 0; i < at.length; i++) if (sameIdentity(at[i]!.key, f)) return at[i]!;
    const e: FlowEntry = { hash: h, key: f, plain: NO_HELD, conj: undefined, published: undefined, codes: undefined, dirty: false };
    if (at === undefined) this.buckets.set(h, e);
    else if (Array.isArray(at)) at.push(e);
    else this.buckets.set(h, [at, e]);
    return e;
  }

  /** Drops an entry nobody contributes to any more. */
  private forget(e: FlowEntry): void {
    if (e.plain.length > 0 || e.conj) return;
    const at = this.buckets.get(e.hash);
    if (at === e) {
      this.buckets.delete(e.hash);
      return;
    }
    const i = Array.isArray(at) ? at.indexOf(e) : -1;
    if (i < 0) return;
    const list = at as FlowEntry[];
    list.splice(i, 1);
    if (list.length === 1) this.buckets.set(e.hash, list[0]!);
  }
}

interface GroupEntry {
  contribs: Contribution<Group>[];
  published: Group | undefined;
}

/** Groups by id with their contributions. */
export class GroupStore {
  private readonly entries = new Map<number, GroupEntry>();
  private dirty = new Set<number>();

  /** Replaces an owner's groups (`previous`: the ids it had). Returns the ids it now has. */
  replace(owner: string, feature: number, previous: readonly number[], groups: readonly Group[]): readonly number[] {
    // Most owners (a policy's rules) have no groups: nothing to allocate.
    if (previous.length === 0 && groups.length === 0) return previous;
    for (const id of previous) if (dropOwner(this.entries.get(id)!.contribs, owner)) this.dirty.add(id);
    groups.forEach((g, seq) => {
      let e = this.entries.get(g.groupId);
      if (!e) {
        e = { contribs: [], published: undefined };
        this.entries.set(g.groupId, e);
      }
      e.contribs.push({ feature, owner, seq, value: g });
      this.dirty.add(g.groupId);
    });
    return groups.map((g) => g.groupId);
  }

  /** Resolves every touched group id; the group-mods since the last call, by id. */
  publish(): GroupDelta {
    const out: GroupDelta = { add: [], modify: [], delete: [] };
    for (const id of [...this.dirty].sort((a, b) => a - b)) {
      const e = this.entries.get(id)!;
      const next = resolveGroup(e.contribs);
      const prev = e.published;
      e.published = next;
      if (!next) {
        if (prev) out.delete.push(prev);
        this.entries.delete(id);
      } else if (!prev) out.add.push(next);
      else if (prev !== next && !sameValue(prev, next)) out.modify.push(next);
    }
    this.dirty = new Set();
    return out;
  }

  /** The published groups, by id. */
  groups(): Group[] {
    return [...this.entries.entries()].filter(([, e]) => e.published).sort(([a], [b]) => a - b).map(([, e]) => e.published!);
  }
}
