// The records of the compiled state that the engine's parts share (a group, a policy, a member),
// and the member order of the groups agents receive. Each field names the part that writes it.
import type { controlplane } from '@switchyard/apis/types';
import type { CompiledPolicy } from './compile';
import type { GroupDef } from './leaf';
import type { ClusterObject } from './types';
import { SmallSet } from './small-collections';

/** Member key: `p:ns/name`, `e:ns/name` or `n:name`. */
export type MemberKey = string;

/**
 * Where a member keeps the names of the groups containing it, in the order it joined them
 * (undefined: none). A pod keeps them in its slot of the member index, so the member -> groups
 * index needs no map entry per pod.
 */
export interface GroupsHolder {
  /** A lone group's name (most pods are in one group), or the names of several. */
  groups: string | Set<string> | undefined;
}

/** A holder's group names as a set (a lone name in a new one-value set; undefined: none). */
export function groupSetOf(groups: string | Set<string> | undefined): Set<string> | undefined {
  return typeof groups === 'string' ? new SmallSet<string>().add(groups) : groups;
}

/** A member as a group holds it: the controlplane object and the node it is on ('' for none). */
export interface MemberEntry {
  readonly member: controlplane.GroupMember;
  readonly node: string;
}

/**
 * A shared group. {@link GroupMembership} writes every field but `addrSpan`, which
 * {@link SpanCounter} writes.
 */
export interface GroupState {
  def: GroupDef;
  members: Map<MemberKey, MemberEntry>;
  /** node -> the group's members there: a lone member key (its entry is in `members`), or several. */
  byNode: Map<string, NodeMembers>;
  /** Policy keys using the group; {@link NO_USERS} until the first one (most groups have one role). */
  addrUsers: Set<string>;
  appliedUsers: Set<string>;
  /** node -> number of policies using this address group whose span has the node; {@link NO_SPAN} until used. */
  addrSpan: Map<string, number>;
}

/**
 * A group's members on one node. Most groups have one member per node, so a lone member is kept
 * as its key instead of a Map per node (which was a large share of the heap at 100k groups).
 */
export type NodeMembers = MemberKey | Map<MemberKey, controlplane.GroupMember>;

/** A compiled policy. {@link PolicyTable} writes `key`, `input` and `compiled`, {@link SpanCounter} `span`. */
export interface PolicyState {
  key: string;
  /** The policy object it is compiled from (the engine keeps policy inputs only here). */
  input: ClusterObject;
  compiled: CompiledPolicy;
  /** node -> number of the policy's applied-to groups with members there. */
  span: Map<string, number>;
}

// Shared empty placeholders: replaced by a group's own collection on first write, never written.
export const NO_USERS: Set<string> = new Set();
export const NO_SPAN: Map<string, number> = new Map();

/** Sort order of members in the groups sent to agents. */
function memberSortKey(m: controlplane.GroupMember): string {
  return m.pod ? `p:${m.pod.namespace}/${m.pod.name}` : m.externalEntity ? `e:${m.externalEntity.namespace}/${m.externalEntity.name}` : m.node ? `n:${m.node.name}` : `i:${m.ips.join(',')}`;
}

export function sortMembers(ms: Iterable<controlplane.GroupMember>): controlplane.GroupMember[] {
  return [...ms].sort((a, b) => (memberSortKey(a) < memberSortKey(b) ? -1 : 1));
}

/** Every member of a group, sorted. */
export function allMembers(g: GroupState): controlplane.GroupMember[] {
  const out: controlplane.GroupMember[] = [];
  for (const e of g.members.values()) out.push(e.member);
  return sortMembers(out);
}

/** The members a node holds of an applied-to group, sorted. */
export function localMembers(g: GroupState, node: string): controlplane.GroupMember[] {
  const local = g.byNode.get(node);
  if (local === undefined) return [];
  if (typeof local !== 'string') return sortMembers(local.values());
  const e = g.members.get(local);
  return e ? [e.member] : [];
}
