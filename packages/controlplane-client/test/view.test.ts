import type { controlplane } from '@switchyard/apis';
import { PolicyView } from '../src/view';

const member = (name: string, ip: string): controlplane.GroupMember => ({ pod: { namespace: 'd', name }, node: { name: 'n1' }, ips: [ip] });

describe('PolicyView: Egress groups', () => {
  test('the initial list replaces the groups at its BOOKMARK; patches remove then add; DELETED drops the group; the policies are untouched; toData/fromData keep them', () => {
    const v = new PolicyView();
    v.beginStream('initial');
    expect(v.apply({ type: 'ADDED', kind: 'EgressGroup', object: { name: 'eg-a', groupMembers: [member('a1', '10.0.0.1')] } })).toBe('buffered');
    expect(v.egressGroups()).toEqual([]);
    expect(v.apply({ type: 'BOOKMARK', kind: 'Bookmark', object: { resourceVersion: 'e.1' } })).toBe('changed');
    expect(v.synced).toBe(true);
    expect(v.egressGroups()).toEqual([{ name: 'eg-a', groupMembers: [member('a1', '10.0.0.1')] }]);
    expect(v.apply({ type: 'MODIFIED', kind: 'EgressGroupPatch', resourceVersion: 'e.2', object: { name: 'eg-a', addedGroupMembers: [member('a1', '10.0.0.9'), member('a2', '10.0.0.2')], removedGroupMembers: [member('a1', '10.0.0.1')] } })).toBe('changed');
    expect(v.egressGroups()).toEqual([{ name: 'eg-a', groupMembers: [member('a1', '10.0.0.9'), member('a2', '10.0.0.2')] }]);
    const restored = PolicyView.fromData(JSON.parse(JSON.stringify(v.toData())));
    expect(restored.egressGroups()).toEqual(v.egressGroups());
    expect(v.apply({ type: 'DELETED', kind: 'EgressGroup', resourceVersion: 'e.3', object: { name: 'eg-a', groupMembers: [] } })).toBe('changed');
    expect(v.egressGroups()).toEqual([]);
    expect(v.counts).toEqual({ policies: 0, addressGroups: 0, appliedToGroups: 0 });
    expect(v.toData()).not.toHaveProperty('egressGroups');
  });
});
