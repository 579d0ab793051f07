// Delta building: from the records of one event, what every affected node must add, update, patch
// or delete; and a node's delta as controlplane watch events in an order an agent can apply.
import type { controlplane } from '@switchyard/apis/types';
import { preSpan, type EventChanges, type GroupChanges, type PolicyChanges, type PreMember, type SpanChanges } from './change-record';
import { deepEqual, sameMember } from './equality';
import { allMembers, localMembers, type GroupState, type PolicyState } from './state';
import type { NodeDelta } from './types';

/** The compiled state after the event (the parts that own groups and policies). */
export interface DeltaSource {
  readonly groups: ReadonlyMap<string, GroupState>;
  readonly policies: ReadonlyMap<string, PolicyState>;
}

/** Options of {@link DeltaBuilder}. */
export interface DeltaBuilderOptions {
  state: DeltaSource;
}

type Member = NonNullable<PreMember>;
const NO_NODES: ReadonlyMap<string, number> = new Map();

function emptyNodeDelta(): NodeDelta {
  return {
    networkPolicies: { added: [], updated: [], patched: [], deleted: [] },
    addressGroups: { added: [], updated: [], patched: [], deleted: [] },
    appliedToGroups: { added: [], updated: [], patched: [], deleted: [] },
  };
}

/** The per-node deltas of one event, filled group by group, then policy by policy. */
class NodeDeltas {
  readonly out = new Map<string, NodeDelta>();

  at(n: string): NodeDelta {
    let d = this.out.get(n);
    if (!d) this.out.set(n, (d = emptyNodeDelta()));
    return d;
  }
}

/** Net member changes of a group since the start of the event. */
function netMembers(t: GroupChanges, alive: boolean): { added: Member[]; removed: Member[] } {
  const added: Member[] = [];
  const removed: Member[] = [];
  for (const [mk, pre] of t.preMembers) {
    const cur = alive ? t.g.members.get(mk) : undefined;
    if (pre && cur && pre.node === cur.node && (pre.m === cur.member || sameMember(pre.m, cur.member))) continue;
    if (pre) removed.push(pre);
    if (cur) added.push({ m: cur.member, node: cur.node });
  }
  return { added, removed };
}

/**
 * Builds per-node deltas from an event's records: work is proportional to the members and span
 * nodes that changed (plus one patch per node that must receive one).
 */
export class DeltaBuilder {
  private readonly state: DeltaSource;

  constructor(options: DeltaBuilderOptions) {
    this.state = options.state;
  }

  build(changes: EventChanges): Map<string, NodeDelta> {
    const d = new NodeDeltas();
    for (const [name, t] of changes.groups) {
      const alive = this.state.groups.get(name) === t.g;
      const net = netMembers(t, alive);
      addressGroupDelta(d, name, t, alive && t.g.addrUsers.size > 0, net);
      appliedToGroupDelta(d, name, t, alive && t.g.appliedUsers.size > 0, net);
    }
    for (const [key, t] of changes.policies) policyDelta(d, t, this.state.policies.get(key));
    return d.out;
  }
}

/**
 * A group's span on the nodes: the whole group (`members(n)`) to nodes entering it, the group's
 * name deleted on nodes leaving it (all of them when the group is no longer sent). True when the
 * group was sent before and still is: then nodes staying in the span get patches.
 */
function groupSpanDelta(
  list: (n: string) => { added: { name: string; groupMembers: controlplane.GroupMember[] }[]; deleted: string[] },
  name: string,
  s: { span: ReadonlyMap<string, unknown>; changes: SpanChanges; was: boolean; is: boolean },
  members: (n: string) => controlplane.GroupMember[],
): boolean {
  if (!s.was) {
    if (s.is) for (const n of s.span.keys()) list(n).added.push({ name, groupMembers: members(n) });
    return false;
  }
  if (!s.is) {
    for (const n of preSpan(s.span, s.changes)) list(n).deleted.push(name);
    return false;
  }
  for (const [n, before] of s.changes) {
    const now = s.span.has(n);
    if (!before && now) list(n).added.push({ name, groupMembers: members(n) });
    else if (before && !now) list(n).deleted.push(name);
  }
  return true;
}

/** Address groups: the whole group to nodes entering the span, patches to nodes staying. */
function addressGroupDelta(d: NodeDeltas, name: string, t: GroupChanges, isAddr: boolean, net: { added: Member[]; removed: Member[] }): void {
  const g = t.g;
  const kept = groupSpanDelta((n) => d.at(n).addressGroups, name, { span: g.addrSpan, changes: t.addrChanges, was: t.wasAddr, is: isAddr }, () => allMembers(g));
  if (!kept) return;
  if (net.added.length + net.removed.length > 0) {
    const patch = { name, addedGroupMembers: net.added.map((x) => x.m), removedGroupMembers: net.removed.map((x) => x.m) };
    for (const n of g.addrSpan.keys()) if (t.addrChanges.get(n) ?? true) d.at(n).addressGroups.patched.push(patch);
  }
}

/** Applied-to groups: per node, only that node's members. */
function appliedToGroupDelta(d: NodeDeltas, name: string, t: GroupChanges, isApplied: boolean, net: { added: Member[]; removed: Member[] }): void {
  const g = t.g;
  const kept = groupSpanDelta((n) => d.at(n).appliedToGroups, name, { span: g.byNode, changes: t.appliedChanges, was: t.wasApplied, is: isApplied }, (n) => localMembers(g, n));
  if (!kept) return;
  const perNode = new Map<string, { a: controlplane.GroupMember[]; r: controlplane.GroupMember[] }>();
  const slot = (n: string) => {
    let x = perNode.get(n);
    if (!x) perNode.set(n, (x = { a: [], r: [] }));
    return x;
  };
  for (const x of net.added) if (x.node !== '') slot(x.node).a.push(x.m);
  for (const x of net.removed) if (x.node !== '') slot(x.node).r.push(x.m);
  for (const [n, x] of perNode) {
    // Only nodes that had the group before and still have it get a patch.
    if (g.byNode.has(n) && (t.appliedChanges.get(n) ?? true)) d.at(n).appliedToGroups.patched.push({ name, addedGroupMembers: x.a, removedGroupMembers: x.r });
  }
}

/** A policy: whole to nodes entering its span, deleted from nodes leaving it, updated where it changed. */
function policyDelta(d: NodeDeltas, t: PolicyChanges, p: PolicyState | undefined): void {
  const cur = p?.compiled.policy;
  const pre = t.pre;
  const span: ReadonlyMap<string, number> = p ? p.span : NO_NODES;
  if (!pre) {
    if (cur) for (const n of span.keys()) d.at(n).networkPolicies.added.push(cur);
    return;
  }
  const preNodes = (): Iterable<string> => preSpan(t.state && t.state === p ? span : (t.state?.span ?? NO_NODES), t.spanChanges);
  if (!cur) {
    for (const n of preNodes()) d.at(n).networkPolicies.deleted.push(pre.uid);
    return;
  }
  if (cur.uid !== pre.uid) {
    // A policy replaced under a new uid is a delete of the old uid and an add of the new one.
    for (const n of preNodes()) d.at(n).networkPolicies.deleted.push(pre.uid);
    for (const n of span.keys()) d.at(n).networkPolicies.added.push(cur);
    return;
  }
  for (const [n, before] of t.spanChanges) {
    const now = span.has(n);
    if (!before && now) d.at(n).networkPolicies.added.push(cur);
    else if (before && !now) d.at(n).networkPolicies.deleted.push(pre.uid);
  }
  if (cur !== pre && !deepEqual(cur, pre)) {
    for (const n of span.keys()) if (t.spanChanges.get(n) ?? true) d.at(n).networkPolicies.updated.push(cur);
  }
}

/**
 * Orders a node delta as controlplane watch events an agent can apply one by one: groups a
 * policy needs arrive before it, and are deleted after it.
 */
export function toWatchEvents(d: NodeDelta): controlplane.WatchEvent[] {
  const ev: controlplane.WatchEvent[] = [];
  for (const o of d.addressGroups.added) ev.push({ type: 'ADDED', kind: 'AddressGroup', object: o });
  for (const o of d.addressGroups.updated) ev.push({ type: 'MODIFIED', kind: 'AddressGroup', object: o });
  for (const o of d.addressGroups.patched) ev.push({ type: 'MODIFIED', kind: 'AddressGroupPatch', object: o });
  for (const o of d.appliedToGroups.added) ev.push({ type: 'ADDED', kind: 'AppliedToGroup', object: o });
  for (const o of d.appliedToGroups.updated) ev.push({ type: 'MODIFIED', kind: 'AppliedToGroup', object: o });
  for (const o of d.appliedToGroups.patched) ev.push({ type: 'MODIFIED', kind: 'AppliedToGroupPatch', object: o });
  for (const o of d.networkPolicies.added) ev.push({ type: 'ADDED', kind: 'NetworkPolicy', object: o });
  for (const o of d.networkPolicies.updated) ev.push({ type: 'MODIFIED', kind: 'NetworkPolicy', object: o });
  for (const uid of d.networkPolicies.deleted) ev.push({ type: 'DELETED', kind: 'NetworkPolicy', object: { uid, name: uid, namespace: '', sourceRef: { type: 'K8sNetworkPolicy', namespace: '', name: '', uid }, rules: [], appliedToGroups: [], generation: 0 } });
  for (const name of d.addressGroups.deleted) ev.push({ type: 'DELETED', kind: 'AddressGroup', object: { name, groupMembers: [] } });
  for (const name of d.appliedToGroups.deleted) ev.push({ type: 'DELETED', kind: 'AppliedToGroup', object: { name, groupMembers: [] } });
  return ev;
}
