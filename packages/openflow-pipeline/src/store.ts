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
import { resolveFlow, resolveGroup, type Contribution } from './merge';

/** One identity (table, priority, match) and who contributes it. */
export interface FlowEntry {
  readonly hash: number;
  /** A flow with the identity (the first contribution's). */
  readonly key: Flow;
  contribs: Contribution[];
  published: Flow | undefined;
  dirty: boolean;
}

/** Group-mods between two publications. */
export interface GroupDelta {
  add: Group[];
  modify: Group[];
  delete: Group[];
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
   * Replaces an owner's flows: its contributions leave the entries of `previous` (what the last
   * call returned for it) and join those of `flows`. Returns the entries it now contributes to.
   */
  replace(owner: string, feature: number, previous: readonly FlowEntry[], flows: readonly Flow[]): FlowEntry[] {
    for (const e of previous) if (dropOwner(e.contribs, owner)) this.touch(e);
    const out = new Array<FlowEntry>(flows.length);
    for (let seq = 0; seq < flows.length; seq++) {
      const f = flows[seq]!;
      const e = this.entry(f);
      e.contribs.push({ feature, owner, seq, value: f });
      this.touch(e);
      out[seq] = e;
    }
    return out;
  }

  /** Resolves every touched identity; the flow-mods since the last call (diffFlows semantics and order). */
  publish(): FlowDiff {
    const add: Flow[] = [];
    const modify: Flow[] = [];
    const del: Flow[] = [];
    for (const e of this.dirty) {
      e.dirty = false;
      const next = resolveFlow(e.contribs, this.mergesConjunctions);
      const prev = e.published;
      if (next === prev) continue;
      this.cache = undefined;
      e.published = next;
      if (!next) {
        del.push(prev!);
        this.live.delete(e);
        this.forget(e);
      } else if (!prev) {
        add.push(next);
        this.live.add(e);
      } else if (!sameValue(prev.actions, next.actions)) {
        modify.push(next);
      }
      // Only the cookie changed: no flow-mod (a strict modify keeps the installed cookie anyway).
    }
    this.dirty = [];
    return { add: sortByIdentity(add), modify: sortByIdentity(modify), delete: sortByIdentity(del) };
  }

  /** The published flows. */
  flows(): Flow[] {
    this.cache ??= [...this.live].map((e) => e.published!);
    return this.cache;
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
    const e: FlowEntry = { hash: h, key: f, contribs: [], published: undefined, dirty: false };
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
