// Group membership: the shared groups (one per normalized selector set, whoever uses it), who is
// in each and on which node, which policies use each (as applied-to or address group), and which
// groups each member is in. A group lives while a policy uses it.
import type { controlplane } from '@switchyard/apis/types';
import type { ChangeRecorder } from './change-record';
import { sameMember } from './equality';
import type { GroupSelectorIndex } from './group-index';
import { leafMatches, type GroupDef, type Leaf } from './leaf';
import type { MemberInfo } from './member-index';
import { SmallMap, SmallSet } from './small-collections';
import { groupSetOf, NO_SPAN, NO_USERS, type GroupsHolder, type GroupState, type MemberEntry, type MemberKey } from './state';

/**
 * Where members come from: their facts, the candidates of a leaf with theirs, and where a pod
 * keeps its groups (the member index).
 */
export interface MemberSource {
  memberInfo(mk: MemberKey): MemberInfo | undefined;
  visitCandidates(l: Leaf, visit: (mk: MemberKey, info: MemberInfo | undefined, holder: GroupsHolder | undefined) => void): void;
  groupsHolder(mk: MemberKey): GroupsHolder | undefined;
  podGroups(): IterableIterator<[MemberKey, Set<string>]>;
}

/**
 * member key -> names of the groups containing it, in the order the member joined them: pods
 * keep theirs in the member index, other members in a map of their own. Read only.
 */
class MemberGroups implements ReadonlyMap<MemberKey, ReadonlySet<string>> {
  constructor(
    private readonly members: MemberSource,
    private readonly others: ReadonlyMap<MemberKey, Set<string>>,
  ) {}

  /** Counted on each read (nothing in the engine reads it; a deleted pod's slot leaves with its groups). */
  get size(): number {
    let n = this.others.size;
    for (const _ of this.members.podGroups()) n++;
    return n;
  }

  get(mk: MemberKey): ReadonlySet<string> | undefined {
    return mk.charCodeAt(0) === 112 /* 'p' */ ? groupSetOf(this.members.groupsHolder(mk)?.groups) : this.others.get(mk);
  }

  has(mk: MemberKey): boolean {
    return this.get(mk) !== undefined;
  }

  /** Pods first (in the order they were first added), then ExternalEntities and Nodes. */
  *entries(): MapIterator<[MemberKey, ReadonlySet<string>]> {
    yield* this.members.podGroups();
    yield* this.others;
  }

  *keys(): MapIterator<MemberKey> {
    for (const [k] of this.entries()) yield k;
  }

  *values(): MapIterator<ReadonlySet<string>> {
    for (const [, v] of this.entries()) yield v;
  }

  forEach(fn: (value: ReadonlySet<string>, key: MemberKey, map: ReadonlyMap<MemberKey, ReadonlySet<string>>) => void, thisArg?: unknown): void {
    for (const [k, v] of this.entries()) fn.call(thisArg, v, k, this);
  }

  [Symbol.iterator](): MapIterator<[MemberKey, ReadonlySet<string>]> {
    return this.entries();
  }
}

/** Told when a group gets its first member on a node or loses its last one there (the span). */
export interface AppliedSpanListener {
  appliedNodeAdded(g: GroupState, node: string): void;
  appliedNodeRemoved(g: GroupState, node: string): void;
}

/** Options of {@link GroupMembership}. */
export interface GroupMembershipOptions {
  members: MemberSource;
  selectors: GroupSelectorIndex;
  changes: ChangeRecorder;
  spans: AppliedSpanListener;
}

/** How a policy uses a group. */
export type GroupRole = 'applied' | 'address';

/** The shared groups, their members and users. */
export class GroupMembership {
  readonly groups = new Map<string, GroupState>();
  /**
   * member key -> names of groups containing it (for explain / queryEndpoint), in the order the
   * member joined them. Most members are in one or two groups: inline sets.
   */
  readonly memberGroups: ReadonlyMap<MemberKey, ReadonlySet<string>>;
  /** The groups of ExternalEntity and Node members (pods keep theirs in the member index). */
  private readonly otherGroups = new Map<MemberKey, Set<string>>();
  private readonly members: MemberSource;
  private readonly selectors: GroupSelectorIndex;
  private readonly changes: ChangeRecorder;
  private readonly spans: AppliedSpanListener;

  constructor(options: GroupMembershipOptions) {
    this.members = options.members;
    this.selectors = options.selectors;
    this.changes = options.changes;
    this.spans = options.spans;
    this.memberGroups = new MemberGroups(this.members, this.otherGroups);
  }

  /** Number of live groups. */
  get size(): number {
    return this.groups.size;
  }

  group(name: string): GroupState | undefined {
    return this.groups.get(name);
  }

  /** The live group of a definition, created with its members on first use. */
  acquire(def: GroupDef): GroupState {
    let g = this.groups.get(def.name);
    if (g) return g;
    g = { def, members: new SmallMap(), byNode: new SmallMap(), addrUsers: NO_USERS, appliedUsers: NO_USERS, addrSpan: NO_SPAN };
    this.groups.set(def.name, g);
    this.changes.touchGroup(g);
    this.selectors.add(def);
    const group = g;
    if (def.leaves.length === 1) {
      this.members.visitCandidates(def.leaves[0] as Leaf, (mk, info, holder) => this.decide(group, mk, info, holder));
      return g;
    }
    const seen = new Set<string>();
    for (const l of def.leaves) {
      this.members.visitCandidates(l, (mk, info, holder) => {
        if (seen.has(mk)) return;
        seen.add(mk);
        this.decide(group, mk, info, holder);
      });
    }
    return g;
  }

  /** Drops a group no policy uses any more (its members leave it). */
  releaseIfUnused(g: GroupState): void {
    if (g.addrUsers.size > 0 || g.appliedUsers.size > 0) return;
    this.changes.touchGroup(g);
    this.selectors.remove(g.def);
    for (const mk of [...g.members.keys()]) this.deleteMember(g, mk, this.members.groupsHolder(mk));
    this.groups.delete(g.def.name);
  }

  /** Policy `key` uses `g` in `role`. */
  addUser(g: GroupState, role: GroupRole, key: string): void {
    this.changes.touchGroup(g);
    if (role === 'applied') {
      if (g.appliedUsers === NO_USERS) g.appliedUsers = new SmallSet();
      g.appliedUsers.add(key);
    } else {
      if (g.addrUsers === NO_USERS) g.addrUsers = new SmallSet();
      g.addrUsers.add(key);
    }
  }

  /** Policy `key` no longer uses `g` in `role` (the group stays until {@link GroupMembership.releaseIfUnused}). */
  removeUser(g: GroupState, role: GroupRole, key: string): void {
    this.changes.touchGroup(g);
    (role === 'applied' ? g.appliedUsers : g.addrUsers).delete(key);
  }

  /** Re-decides whether group `groupName` (if it lives) has member `mk`, from the member's current facts. */
  evaluate(groupName: string, mk: MemberKey): void {
    const g = this.groups.get(groupName);
    if (g) this.decide(g, mk, this.members.memberInfo(mk), this.members.groupsHolder(mk));
  }

  /** `holder`: where member `mk` keeps its groups if it is a pod (undefined: `otherGroups`, or a deleted pod). */
  private decide(g: GroupState, mk: MemberKey, info: MemberInfo | undefined, holder: GroupsHolder | undefined): void {
    if (info && g.def.leaves.some((l) => leafMatches(l, info.facts))) this.setMember(g, mk, info, holder);
    else this.deleteMember(g, mk, holder);
  }

  private setMember(g: GroupState, mk: MemberKey, e: MemberEntry, holder: GroupsHolder | undefined): void {
    const old = g.members.get(mk);
    if (old === e) return;
    const node = e.node;
    const m = e.member;
    if (old && old.node === node && (old.member === m || sameMember(old.member, m))) {
      // Equal but a fresh object: keep the newest so later comparisons stay by reference.
      g.members.set(mk, e);
      const local = g.byNode.get(node);
      if (local !== undefined && typeof local !== 'string') local.set(mk, m);
      return;
    }
    this.changes.memberChanging(g, mk, old ? { m: old.member, node: old.node } : null);
    if (old) this.unlinkMember(g, mk, old.node);
    g.members.set(mk, e);
    if (holder) {
      // A pod's first group is kept as its name; a second one makes a set (join order kept).
      const cur = holder.groups;
      if (cur === undefined) holder.groups = g.def.name;
      else if (typeof cur !== 'string') cur.add(g.def.name);
      else if (cur !== g.def.name) holder.groups = new SmallSet<string>().add(cur).add(g.def.name);
    } else {
      let gs = this.otherGroups.get(mk);
      if (!gs) this.otherGroups.set(mk, (gs = new SmallSet()));
      gs.add(g.def.name);
    }
    if (node !== '') {
      const local = g.byNode.get(node);
      if (local === undefined) {
        this.changes.appliedSpanChanging(g, node, false);
        g.byNode.set(node, mk);
        this.spans.appliedNodeAdded(g, node);
      } else if (typeof local !== 'string') local.set(mk, m);
      else if (local !== mk) {
        const lone = g.members.get(local) as MemberEntry;
        g.byNode.set(node, new Map<MemberKey, controlplane.GroupMember>([[local, lone.member], [mk, m]]));
      }
    }
  }

  private deleteMember(g: GroupState, mk: MemberKey, holder: GroupsHolder | undefined): void {
    const old = g.members.get(mk);
    if (!old) return;
    this.changes.memberChanging(g, mk, { m: old.member, node: old.node });
    this.unlinkMember(g, mk, old.node);
    // A deleted pod's slot is gone with its groups: nothing to update there.
    if (holder) {
      const cur = holder.groups;
      if (cur === g.def.name) holder.groups = undefined;
      else if (cur !== undefined && typeof cur !== 'string') {
        cur.delete(g.def.name);
        // Back to a lone name (the set keeps join order, so the one left is the one there).
        if (cur.size === 1) holder.groups = cur.values().next().value as string;
        else if (cur.size === 0) holder.groups = undefined;
      }
      return;
    }
    if (mk.charCodeAt(0) === 112 /* 'p' */) return;
    const gs = this.otherGroups.get(mk);
    gs?.delete(g.def.name);
    if (gs && gs.size === 0) this.otherGroups.delete(mk);
  }

  private unlinkMember(g: GroupState, mk: MemberKey, node: string): void {
    g.members.delete(mk);
    if (node === '') return;
    const local = g.byNode.get(node);
    if (local === undefined) return;
    if (typeof local !== 'string') {
      local.delete(mk);
      // Back to a lone key (Map.set on a present key keeps the node's place in the span's order).
      if (local.size === 1) g.byNode.set(node, local.keys().next().value as MemberKey);
      if (local.size > 0) return;
    } else if (local !== mk) return;
    this.changes.appliedSpanChanging(g, node, true);
    g.byNode.delete(node);
    this.spans.appliedNodeRemoved(g, node);
  }
}
