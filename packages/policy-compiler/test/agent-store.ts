// What an agent holds, rebuilt from watch events: the reference the delta property tests compare
// with the engine's per-node snapshot.
import type { PolicySnapshot, toWatchEvents } from '../src/index';

/** Applies watch events to a per-node store the way an agent would. */
export class AgentStore {
  np = new Map<string, unknown>();
  ag = new Map<string, Map<string, unknown>>();
  atg = new Map<string, Map<string, unknown>>();
  apply(ev: ReturnType<typeof toWatchEvents>): void {
    const key = (m: { pod?: { namespace: string; name: string }; node?: { name: string }; externalEntity?: { namespace: string; name: string } }) => JSON.stringify(m.pod ?? m.node ?? m.externalEntity);
    for (const e of ev) {
      if (e.kind === 'NetworkPolicy') {
        if (e.type === 'DELETED') this.np.delete(e.object.uid);
        else this.np.set(e.object.uid, e.object);
      } else if (e.kind === 'AddressGroup' || e.kind === 'AppliedToGroup') {
        const store = e.kind === 'AddressGroup' ? this.ag : this.atg;
        if (e.type === 'DELETED') store.delete(e.object.name);
        else store.set(e.object.name, new Map(e.object.groupMembers.map((m) => [key(m), m])));
      } else if (e.kind === 'AddressGroupPatch' || e.kind === 'AppliedToGroupPatch') {
        const store = e.kind === 'AddressGroupPatch' ? this.ag : this.atg;
        const g = store.get(e.object.name);
        if (!g) throw new Error(`patch for unknown group ${e.object.name}`);
        for (const m of e.object.removedGroupMembers) g.delete(key(m));
        for (const m of e.object.addedGroupMembers) g.set(key(m), m);
      }
    }
  }
  matches(s: PolicySnapshot): boolean {
    const sortJ = (x: unknown[]) => x.map((y) => JSON.stringify(y)).sort();
    const groups = (m: Map<string, Map<string, unknown>>) => [...m.entries()].map(([name, g]) => ({ name, groupMembers: sortJ([...g.values()]) })).sort((a, b) => (a.name < b.name ? -1 : 1));
    const want = (gs: { name: string; groupMembers: unknown[] }[]) => gs.map((g) => ({ name: g.name, groupMembers: sortJ(g.groupMembers) }));
    expect(sortJ([...this.np.values()])).toEqual(sortJ(s.networkPolicies));
    expect(groups(this.ag)).toEqual(want(s.addressGroups));
    expect(groups(this.atg)).toEqual(want(s.appliedToGroups));
    return true;
  }
}
