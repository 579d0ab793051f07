// Snapshots of the compiled state: everything, or what one node receives; and spans by name.
import type { controlplane } from '@switchyard/apis/types';
import { allMembers, localMembers, type GroupState, type PolicyState } from './state';
import type { PolicySnapshot } from './types';

/** Options of {@link Snapshots}: the compiled state (the parts that own groups and policies). */
export interface SnapshotsOptions {
  groups: ReadonlyMap<string, GroupState>;
  policies: ReadonlyMap<string, PolicyState>;
}

const byName = <T extends { name: string }>(a: T, b: T): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** Reads whole or per-node views of the compiled state (sorted, so equal states give equal snapshots). */
export class Snapshots {
  private readonly groups: ReadonlyMap<string, GroupState>;
  private readonly policies: ReadonlyMap<string, PolicyState>;

  constructor(options: SnapshotsOptions) {
    this.groups = options.groups;
    this.policies = options.policies;
  }

  /**
   * Everything (no node), or what `node` receives: policies and address groups whose span has the
   * node; applied-to groups reduced to the node's members.
   */
  snapshot(node?: string): PolicySnapshot {
    const networkPolicies: controlplane.NetworkPolicy[] = [];
    for (const p of this.policies.values()) if (node === undefined || p.span.has(node)) networkPolicies.push(p.compiled.policy);
    networkPolicies.sort((a, b) => (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0));
    const addressGroups: controlplane.AddressGroup[] = [];
    const appliedToGroups: controlplane.AppliedToGroup[] = [];
    for (const [name, g] of this.groups) {
      if (g.addrUsers.size > 0 && (node === undefined || g.addrSpan.has(node))) addressGroups.push({ name, groupMembers: allMembers(g) });
      if (g.appliedUsers.size > 0) {
        if (node === undefined) appliedToGroups.push({ name, groupMembers: allMembers(g) });
        else {
          if (g.byNode.has(node)) appliedToGroups.push({ name, groupMembers: localMembers(g, node) });
        }
      }
    }
    addressGroups.sort(byName);
    appliedToGroups.sort(byName);
    return { networkPolicies, addressGroups, appliedToGroups };
  }

  /** Span (node names, sorted) of a policy (by uid), address group or applied-to group. */
  spanOf(kind: 'NetworkPolicy' | 'AddressGroup' | 'AppliedToGroup', name: string): string[] {
    if (kind === 'NetworkPolicy') {
      for (const p of this.policies.values()) if (p.compiled.policy.uid === name) return [...p.span.keys()].sort();
      return [];
    }
    const g = this.groups.get(name);
    if (!g) return [];
    if (kind === 'AddressGroup') return g.addrUsers.size > 0 ? [...g.addrSpan.keys()].sort() : [];
    return g.appliedUsers.size > 0 ? [...g.byNode.keys()].sort() : [];
  }
}
