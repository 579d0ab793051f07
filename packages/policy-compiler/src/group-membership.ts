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
import { NO_SPAN, NO_USERS, type GroupState, type MemberEntry, type MemberKey } from './state';

/** Where members come from: their facts, and the candidates of a leaf with theirs (the member index). */
export interface MemberSource {
  memberInfo(mk: MemberKey): MemberInfo | undefined;
  visitCandidates(l: Leaf, visit: (mk: MemberKey, info: MemberInfo | undefined) => void): void;
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
  readonly memberGroups = new Map<MemberKey, Set<string>>();
  private readonly members: MemberSource;
  private readonly selectors: GroupSelectorIndex;
  private readonly changes: ChangeRecorder;
  private readonly spans: AppliedSpanListener;

  constructor(options: GroupMembershipOptions) {
    this.members = options.members;
    this.selectors = options.selectors;
    this.changes = options.changes;
    this.spans = options.spans;
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
      this.members.visitCandidates(def.leaves[0] as Leaf, (mk, info) => this.decide(group, mk, info));
      return g;
    }
    const seen = new Set<string>();
    for (const l of def.leaves) {
      this.members.visitCandidates(l, (mk, info) => {
        if (seen.has(mk)) return;
        seen.add(mk);
        this.decide(group, mk, info);
      });
    }
    return g;
  }

  /** Drops a group no policy uses any more (its members leave it). */
  releaseIfUnused(g: GroupState): void {
    if (g.addrUsers.size > 0 || g.appliedUsers.size > 0) return;
    this.changes.touchGroup(g);
    this.selectors.remove(g.def);
    for (const mk of [...g.members.keys()]) this.deleteMember(g, mk);
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
    if (g) this.decide(g, mk, this.members.memberInfo(mk));
  }

  private decide(g: GroupState, mk: MemberKey, info: MemberInfo | undefined): void {
    if (info && g.def.leaves.some((l) => leafMatches(l, info.facts))) this.setMember(g, mk, info);
    else this.deleteMember(g, mk);
  }

  private setMember(g: GroupState, mk: MemberKey, e: MemberEntry): void {
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
    let gs = this.memberGroups.get(mk);
    if (!gs) this.memberGroups.set(mk, (gs = new SmallSet()));
    gs.add(g.def.name);
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

  private deleteMember(g: GroupState, mk: MemberKey): void {
    const old = g.members.get(mk);
    if (!old) return;
    this.changes.memberChanging(g, mk, { m: old.member, node: old.node });
    this.unlinkMember(g, mk, old.node);
    const gs = this.memberGroups.get(mk);
    gs?.delete(g.def.name);
    if (gs && gs.size === 0) this.memberGroups.delete(mk);
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
