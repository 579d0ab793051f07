/**
 * The node's view of the controlplane: policies by uid, address, applied-to and Egress groups by name,
 * built from watch events (docs/controller.md). Pure: the stream client feeds it, the agent reads
 * snapshots and persists it.
 */
import type { controlplane } from '@switchyard/apis';

type GroupMember = controlplane.GroupMember;

/** What the view serializes to on disk. */
export interface PolicyViewData {
  resourceVersion: string;
  policies: controlplane.NetworkPolicy[];
  addressGroups: controlplane.AddressGroup[];
  appliedToGroups: controlplane.AppliedToGroup[];
  /** Egress groups (a view of the `egressgroups` watch); absent in views of the policy resources. */
  egressGroups?: controlplane.EgressGroup[];
}

/** Identity of a group member in patches: its reference, else its addresses. */
export function memberKey(m: GroupMember): string {
  if (m.pod) return `pod/${m.pod.namespace}/${m.pod.name}`;
  if (m.externalEntity) return `ee/${m.externalEntity.namespace}/${m.externalEntity.name}`;
  if (m.node) return `node/${m.node.name}`;
  return `ips/${[...m.ips].sort().join(',')}`;
}

/** What applying one event did. */
export type ApplyOutcome = 'changed' | 'unchanged' | 'buffered' | 'expired';

interface State {
  policies: Map<string, controlplane.NetworkPolicy>;
  addressGroups: Map<string, Map<string, GroupMember>>;
  appliedToGroups: Map<string, Map<string, GroupMember>>;
  egressGroups: Map<string, Map<string, GroupMember>>;
}

const emptyState = (): State => ({ policies: new Map(), addressGroups: new Map(), appliedToGroups: new Map(), egressGroups: new Map() });

/** The node's controlplane view. */
export class PolicyView {
  private state: State = emptyState();
  /** While an initial stream is being received: the state it builds, swapped in at its BOOKMARK. */
  private initial: State | undefined;
  /** Last resourceVersion seen (events or bookmarks); '' = none (next watch starts initial). */
  resourceVersion = '';
  /** True once an initial state was completed (or restored from disk). */
  synced = false;

  /** Restores a persisted view. */
  static fromData(d: PolicyViewData): PolicyView {
    const v = new PolicyView();
    for (const p of d.policies) v.state.policies.set(p.uid, p);
    for (const g of d.addressGroups) v.state.addressGroups.set(g.name, new Map(g.groupMembers.map((m) => [memberKey(m), m])));
    for (const g of d.appliedToGroups) v.state.appliedToGroups.set(g.name, new Map(g.groupMembers.map((m) => [memberKey(m), m])));
    for (const g of d.egressGroups ?? []) v.state.egressGroups.set(g.name, new Map(g.groupMembers.map((m) => [memberKey(m), m])));
    v.resourceVersion = d.resourceVersion;
    v.synced = true;
    return v;
  }

  /** A new stream began; `initial` streams replace the view at their first BOOKMARK. */
  beginStream(mode: 'initial' | 'resume'): void {
    this.initial = mode === 'initial' ? emptyState() : undefined;
  }

  /** Applies one event. */
  apply(e: controlplane.WatchEvent): ApplyOutcome {
    if (e.type === 'ERROR') {
      if (e.kind === 'Status' && e.object.code === 410) {
        this.resourceVersion = '';
        this.initial = undefined;
        return 'expired';
      }
      return 'unchanged';
    }
    if (e.resourceVersion) this.resourceVersion = e.resourceVersion;
    if (e.kind === 'Bookmark') {
      if (e.object.resourceVersion) this.resourceVersion = e.object.resourceVersion;
      if (this.initial) {
        this.state = this.initial;
        this.initial = undefined;
        this.synced = true;
        return 'changed';
      }
      return 'unchanged';
    }
    const target = this.initial ?? this.state;
    const changed = applyTo(target, e);
    if (this.initial) return 'buffered';
    return changed ? 'changed' : 'unchanged';
  }

  /** Current contents as plain lists (what the pipeline takes). */
  snapshot(): Omit<PolicyViewData, 'resourceVersion'> {
    return {
      policies: [...this.state.policies.values()],
      addressGroups: [...this.state.addressGroups].map(([name, m]) => ({ name, groupMembers: [...m.values()] })),
      appliedToGroups: [...this.state.appliedToGroups].map(([name, m]) => ({ name, groupMembers: [...m.values()] })),
    };
  }

  /** The Egress groups held (what the `egressgroups` watch delivered). */
  egressGroups(): controlplane.EgressGroup[] {
    return [...this.state.egressGroups].map(([name, m]) => ({ name, groupMembers: [...m.values()] }));
  }

  toData(): PolicyViewData {
    const egressGroups = this.state.egressGroups.size > 0 ? { egressGroups: this.egressGroups() } : {};
    return { resourceVersion: this.resourceVersion, ...this.snapshot(), ...egressGroups };
  }

  get counts(): { policies: number; addressGroups: number; appliedToGroups: number } {
    return { policies: this.state.policies.size, addressGroups: this.state.addressGroups.size, appliedToGroups: this.state.appliedToGroups.size };
  }
}

function applyTo(s: State, e: controlplane.WatchEvent): boolean {
  switch (e.kind) {
    case 'NetworkPolicy':
      if (e.type === 'DELETED') return s.policies.delete(e.object.uid);
      s.policies.set(e.object.uid, e.object);
      return true;
    case 'AddressGroup':
    case 'AppliedToGroup':
    case 'EgressGroup': {
      const groups = e.kind === 'AddressGroup' ? s.addressGroups : e.kind === 'AppliedToGroup' ? s.appliedToGroups : s.egressGroups;
      if (e.type === 'DELETED') return groups.delete(e.object.name);
      groups.set(e.object.name, new Map(e.object.groupMembers.map((m) => [memberKey(m), m])));
      return true;
    }
    case 'AddressGroupPatch':
    case 'AppliedToGroupPatch':
    case 'EgressGroupPatch': {
      const groups = e.kind === 'AddressGroupPatch' ? s.addressGroups : e.kind === 'AppliedToGroupPatch' ? s.appliedToGroups : s.egressGroups;
      let members = groups.get(e.object.name);
      if (!members) {
        members = new Map();
        groups.set(e.object.name, members);
      }
      for (const m of e.object.removedGroupMembers) members.delete(memberKey(m));
      for (const m of e.object.addedGroupMembers) members.set(memberKey(m), m);
      return e.object.removedGroupMembers.length + e.object.addedGroupMembers.length > 0;
    }
    default:
      return false;
  }
}
