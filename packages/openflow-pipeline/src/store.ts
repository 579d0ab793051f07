/**
 * The incremental pipeline's flows and groups: every identity with the owners that contribute it,
 * the value last published for it, and the identities touched since the last publication. Replacing
 * an owner's output touches only its identities; `publish` resolves those (merge.ts) and reports
 * the flow-mods and group-mods that turn the last published set into the current one.
 */
import type { Flow } from '@switchyard/openflow/codec';
import type { FlowDiff } from './diff';
import { sortByIdentity } from './diff';
import type { Group } from './format';
import { flowHash, sameIdentity, sameValue } from './identity';
import { conjunctionCodes, mergedFlow, resolveFlow, resolveGroup, sameCodes, type Contribution, type Resolved } from './merge';

/** One identity (table, priority, match) and who contributes it. */
export interface FlowEntry {
  readonly hash: number;
  /** A flow with the identity (the first contribution's). */
  readonly key: Flow;
  contribs: Held[];
  published: Flow | undefined;
  /** Conjunction codes of the published flow, when it is a merged conjunctive match flow. */
  codes: readonly number[] | undefined;
  /**
   * Conjunctive contributions of merging features: how many carry each code (kept once the entry
   * is shared), how many there are, of which feature.
   */
  counts: Map<number, number> | undefined;
  merging: number;
  mergeFeature: number;
  /** Two merging features contribute: resolve from the list. */
  mixed: boolean;
  /** The set of codes changed since the last publication. */
  codesChanged: boolean;
  dirty: boolean;
}

/** A contribution held by an entry, at `pos` in its list. */
export interface Held extends Contribution {
  readonly entry: FlowEntry;
  pos: number;
}

/** Group-mods between two publications. */
export interface GroupDelta {
  add: Group[];
  modify: Group[];
  delete: Group[];
}

/** Scratch for sorting codes (numeric sort of a typed array, no comparator). */
let scratch = new Float64Array(256);

/** Codes sorted ascending, each once. */
function sortedDistinct(codes: readonly number[]): number[] {
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

/** Flows by identity with their contributions. */
export class FlowStore {
  private readonly buckets = new Map<number, FlowEntry[]>();
  private readonly live = new Set<FlowEntry>();
  private dirty: FlowEntry[] = [];
  private cache: Flow[] | undefined;

  constructor(private readonly mergesConjunctions: (feature: number) => boolean) {}

  /**
   * Replaces an owner's flows: its `previous` contributions (what the last call returned for it)
   * leave their entries and those of `flows` join theirs. Returns the new contributions.
   */
  replace(owner: string, feature: number, previous: readonly Held[], flows: readonly Flow[]): Held[] {
    for (const c of previous) this.remove(c);
    const out = new Array<Held>(flows.length);
    for (let seq = 0; seq < flows.length; seq++) {
      const f = flows[seq]!;
      const e = this.entry(f);
      const c: Held = { feature, owner, seq, value: f, codes: conjunctionCodes(f), entry: e, pos: e.contribs.length };
      e.contribs.push(c);
      this.count(e, c, 1);
      this.touch(e);
      out[seq] = c;
    }
    return out;
  }

  /**
   * Resolves every touched identity; the flow-mods since the last call (diffFlows semantics, and
   * its order unless `sorted` is false).
   */
  publish(sorted = true): FlowDiff {
    const add: Flow[] = [];
    const modify: Flow[] = [];
    const del: Flow[] = [];
    for (const e of this.dirty) {
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
        this.live.delete(e);
        this.forget(e);
      } else if (!prev) {
        add.push(next);
        this.live.add(e);
      } else if (!(r.codes && prevCodes ? sameCodes(r.codes, prevCodes) : sameValue(prev.actions, next.actions))) {
        modify.push(next);
      }
      // Only the cookie changed: no flow-mod (a strict modify keeps the installed cookie anyway).
    }
    this.dirty = [];
    if (!sorted) return { add, modify, delete: del };
    return { add: sortByIdentity(add), modify: sortByIdentity(modify), delete: sortByIdentity(del) };
  }

  /** The published flows. */
  flows(): Flow[] {
    this.cache ??= [...this.live].map((e) => e.published!);
    return this.cache;
  }

  /**
   * An entry's flow. Shared conjunctive match flows (every contribution a conjunctive flow of one
   * merging feature) come from the code counts: when the set of codes did not change, nothing is done.
   */
  private resolve(e: FlowEntry): Resolved {
    const prev = { flow: e.published, codes: e.codes };
    if (e.mixed || e.merging < 2 || e.merging !== e.contribs.length) return resolveFlow(e.contribs, this.mergesConjunctions, prev);
    const template = e.contribs[0]!.value;
    if (!e.counts) {
      // First publication: the union straight from the contributions. Later changes keep counts.
      if (!prev.flow) return mergedFlow(template, sortedDistinct(e.contribs.flatMap((c) => c.codes!)), prev);
      e.counts = new Map();
      for (const c of e.contribs) for (const code of c.codes!) e.counts.set(code, (e.counts.get(code) ?? 0) + 1);
      e.codesChanged = true;
    }
    if (!e.codesChanged && prev.flow && prev.codes && prev.flow.cookie === template.cookie) return prev;
    e.codesChanged = false;
    return mergedFlow(template, sortedDistinct([...e.counts.keys()]), prev);
  }

  /** Adds (+1) or removes (-1) a contribution's codes from its entry's counts. */
  private count(e: FlowEntry, c: Held, sign: 1 | -1): void {
    if (!c.codes || !this.mergesConjunctions(c.feature)) return;
    if (sign > 0) {
      if (e.merging === 0) e.mergeFeature = c.feature;
      else if (e.mergeFeature !== c.feature) e.mixed = true;
    }
    e.merging += sign;
    if (e.merging === 0) e.mixed = false;
    if (e.merging < 2) e.counts = undefined;
    const counts = e.counts;
    if (!counts) return;
    for (const code of c.codes) {
      const n = (counts.get(code) ?? 0) + sign;
      if (n === 0) {
        counts.delete(code);
        e.codesChanged = true;
      } else {
        if (n === 1 && sign > 0) e.codesChanged = true;
        counts.set(code, n);
      }
    }
  }

  /** Takes a contribution out of its entry (the last one moves into its place). */
  private remove(c: Held): void {
    const e = c.entry;
    const last = e.contribs.pop()!;
    if (last !== c) {
      e.contribs[c.pos] = last;
      last.pos = c.pos;
    }
    this.count(e, c, -1);
    this.touch(e);
  }

  private touch(e: FlowEntry): void {
    if (e.dirty) return;
    e.dirty = true;
    this.dirty.push(e);
  }

  private entry(f: Flow): FlowEntry {
    const h = flowHash(f);
    let list = this.buckets.get(h);
    if (!list) {
      list = [];
      this.buckets.set(h, list);
    }
    for (const e of list) if (sameIdentity(e.key, f)) return e;
    const e: FlowEntry = {
      hash: h, key: f, contribs: [], published: undefined, codes: undefined, counts: undefined, merging: 0, mergeFeature: -1, mixed: false, codesChanged: false, dirty: false,
    };
    list.push(e);
    return e;
  }

  /** Drops an entry nobody contributes to any more. */
  private forget(e: FlowEntry): void {
    if (e.contribs.length > 0) return;
    const list = this.buckets.get(e.hash)!;
    list.splice(list.indexOf(e), 1);
    if (list.length === 0) this.buckets.delete(e.hash);
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
  replace(owner: string, feature: number, previous: readonly number[], groups: readonly Group[]): number[] {
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
