// Every node's view of the compiled policy state (what a new watcher of that node receives), kept
// up to date from the engine's per-node deltas so a watch never waits for a walk of the whole state.
import type { controlplane } from '@switchyard/apis';
import type { NodeDelta, PolicySnapshot } from '@switchyard/policy-compiler';

type Member = controlplane.GroupMember;
type Group = { name: string; groupMembers: Member[] };

/** An address group is one object for every node holding it (encoded once for all of them). */
interface SharedGroup {
  group: Group;
  holders: number;
}

interface NodeView {
  policies: Map<string, controlplane.NetworkPolicy>;
  addressGroups: Set<string>;
  /** Applied-to groups carry only this node's members: one object per node. */
  appliedToGroups: Map<string, Group>;
}

/** What identifies a member in a group (its object, or its addresses when it has none). */
function identity(m: Member): string {
  if (m.pod) return `p\0${m.pod.namespace}\0${m.pod.name}`;
  if (m.externalEntity) return `e\0${m.externalEntity.namespace}\0${m.externalEntity.name}`;
  if (m.node) return `n\0${m.node.name}`;
  return `i\0${m.ips.join(',')}`;
}

/**
 * The group after a patch, as a new object: the one before may be in a watcher's initial state, in
 * the history or in a delta, none of which may change. Removed members are the engine's own
 * objects (matched by identity otherwise).
 */
function patched(g: Group, added: readonly Member[], removed: readonly Member[]): Group {
  let members = g.groupMembers;
  if (removed.length > 0) {
    const gone = new Set(removed);
    const kept = members.filter((m) => !gone.has(m));
    if (members.length - kept.length < removed.length) {
      const keys = new Set(removed.map(identity));
      members = kept.filter((m) => !keys.has(identity(m)));
    } else members = kept;
  } else members = members.slice();
  for (const m of added) members.push(m);
  return { name: g.name, groupMembers: members };
}

/**
 * Node views maintained from the deltas of {@link PolicyEngine.apply}: a node's policies, the
 * address groups it holds (shared by all nodes) and its applied-to groups cut to its own members.
 * Equal to `engine.snapshot(node)` up to the order of group members (the test
 * "node views kept from the deltas equal the engine snapshot of every node after random changes"
 * checks that). Every delta the engine returns must come through {@link NodeViews.apply}, in order.
 */
export class NodeViews {
  private readonly nodes = new Map<string, NodeView>();
  private readonly addressGroups = new Map<string, SharedGroup>();

  /** Follow one event's per-node deltas. */
  apply(deltas: ReadonlyMap<string, NodeDelta>): void {
    // An address group's patch is one object for every node holding the group: applied once.
    let seen: Set<controlplane.AddressGroupPatch> | undefined;
    for (const [node, d] of deltas) {
      const v = this.view(node);
      for (const uid of d.networkPolicies.deleted) v.policies.delete(uid);
      for (const p of d.networkPolicies.added) v.policies.set(p.uid, p);
      for (const p of d.networkPolicies.updated) v.policies.set(p.uid, p);

      const ag = d.addressGroups;
      for (const name of ag.deleted) if (v.addressGroups.delete(name)) this.release(name);
      for (const g of ag.added) {
        if (v.addressGroups.has(g.name)) continue;
        v.addressGroups.add(g.name);
        const e = this.addressGroups.get(g.name);
        // Held elsewhere: that entry is already at this event's state (patches are applied once).
        if (e) e.holders++;
        else this.addressGroups.set(g.name, { group: g, holders: 1 });
      }
      for (const g of ag.updated) {
        const e = this.addressGroups.get(g.name);
        if (e) e.group = g;
      }
      for (const p of ag.patched) {
        if (seen?.has(p)) continue;
        (seen ??= new Set()).add(p);
        const e = this.addressGroups.get(p.name);
        if (e) e.group = patched(e.group, p.addedGroupMembers, p.removedGroupMembers);
      }

      const at = d.appliedToGroups;
      for (const n of at.deleted) v.appliedToGroups.delete(n);
      for (const g of at.added) v.appliedToGroups.set(g.name, g);
      for (const g of at.updated) v.appliedToGroups.set(g.name, g);
      for (const p of at.patched) {
        const g = v.appliedToGroups.get(p.name);
        if (g) v.appliedToGroups.set(p.name, patched(g, p.addedGroupMembers, p.removedGroupMembers));
      }
      if (v.policies.size === 0 && v.addressGroups.size === 0 && v.appliedToGroups.size === 0) this.nodes.delete(node);
    }
  }

  /** What a new watcher of `node` receives: policies by uid, groups by name. */
  snapshot(node: string): PolicySnapshot {
    const v = this.nodes.get(node);
    if (!v) return { networkPolicies: [], addressGroups: [], appliedToGroups: [] };
    // Names sorted by the default order (UTF-16 code units, as `<` compares) with no comparator
    // call per comparison: sorting objects with a comparator was half of this function's time.
    const networkPolicies: controlplane.NetworkPolicy[] = [];
    for (const uid of [...v.policies.keys()].sort()) networkPolicies.push(v.policies.get(uid) as controlplane.NetworkPolicy);
    const addressGroups: controlplane.AddressGroup[] = [];
    for (const name of [...v.addressGroups].sort()) {
      const e = this.addressGroups.get(name);
      if (e) addressGroups.push(e.group);
    }
    const appliedToGroups: controlplane.AppliedToGroup[] = [];
    for (const name of [...v.appliedToGroups.keys()].sort()) appliedToGroups.push(v.appliedToGroups.get(name) as controlplane.AppliedToGroup);
    return { networkPolicies, addressGroups, appliedToGroups };
  }

  private view(node: string): NodeView {
    let v = this.nodes.get(node);
    if (!v) this.nodes.set(node, (v = { policies: new Map(), addressGroups: new Set(), appliedToGroups: new Map() }));
    return v;
  }

  private release(name: string): void {
    const e = this.addressGroups.get(name);
    if (e && --e.holders === 0) this.addressGroups.delete(name);
  }
}
