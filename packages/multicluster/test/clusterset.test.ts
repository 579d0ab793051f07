import type { ClusterSet } from '@switchyard/apis';
import { dashPrefixConflicts, leaderStatus, memberStatus, validateClusterSet } from '../src';

const member = (over: Partial<ClusterSet['spec']> = {}, name = 'test-clusterset'): ClusterSet => ({
  metadata: { name, namespace: 'kube-system', generation: 1 },
  spec: { clusterID: 'test-cluster-east', leaders: [{ clusterID: 'test-cluster-north', secret: 'member-east-token', server: 'https://172.18.0.1:6443' }], namespace: 'antrea-multicluster', ...over },
});
const NOW = '2026-01-01T00:00:00.000Z';

describe('validateClusterSet', () => {
  it('accepts the seed guide member ClusterSet', () => {
    expect(validateClusterSet(member(), { role: 'member', clusterSetID: 'test-clusterset' })).toEqual([]);
  });

  it('refuses a ClusterSet whose name is not the ClusterSet ID, naming the field and value', () => {
    const problems = validateClusterSet(member({}, 'other-name'), { role: 'member', clusterSetID: 'test-clusterset' });
    expect(problems).toEqual([{ field: 'metadata.name', value: 'other-name', message: 'ClusterSet name "other-name" must equal the ClusterSet ID "test-clusterset"' }]);
  });

  it('refuses a cluster ID that is a dash-prefix of the leader ID', () => {
    const problems = validateClusterSet(member({ clusterID: 'north', leaders: [{ clusterID: 'north-1', secret: 's', server: 'https://l:6443' }] }), { role: 'member' });
    expect(problems.map((p) => [p.field, p.value])).toEqual([['spec.clusterID', 'north']]);
  });

  it('names every missing member field', () => {
    const problems = validateClusterSet({ metadata: { name: 'cs' }, spec: { leaders: [{}] } }, { role: 'member' });
    expect(problems.map((p) => p.field)).toEqual(['spec.clusterID', 'spec.leaders[0].clusterID', 'spec.leaders[0].server', 'spec.leaders[0].secret', 'spec.namespace']);
  });

  it('refuses a server that is not an http(s) URL', () => {
    const problems = validateClusterSet(member({ leaders: [{ clusterID: 'test-cluster-north', secret: 's', server: '172.18.0.1:6443' }] }), { role: 'member' });
    expect(problems).toEqual([expect.objectContaining({ field: 'spec.leaders[0].server', value: '172.18.0.1:6443' })]);
  });

  it('requires a leader to list itself as leader', () => {
    const cs: ClusterSet = { metadata: { name: 'cs' }, spec: { clusterID: 'north', leaders: [{ clusterID: 'south' }] } };
    expect(validateClusterSet(cs, { role: 'leader' }).map((p) => p.field)).toEqual(['spec.leaders[0].clusterID']);
  });
});

describe('dashPrefixConflicts', () => {
  it('finds IDs where one is the other followed by a dash', () => {
    expect(dashPrefixConflicts(['east', 'east-1', 'west', 'eastern'])).toEqual([['east', 'east-1']]);
  });
  it('does not flag plain string prefixes', () => {
    expect(dashPrefixConflicts(['east', 'eastern', 'east2'])).toEqual([]);
  });
});

describe('ClusterSet status', () => {
  it('counts total and ready members and gives each a condition', () => {
    const cs: ClusterSet = { metadata: { name: 'cs', generation: 2 }, spec: { clusterID: 'north', leaders: [{ clusterID: 'north' }] } };
    const st = leaderStatus(cs, [{ clusterID: 'west', connected: true }, { clusterID: 'east', connected: false }, { clusterID: 'east-1', connected: true, refused: { reason: 'ClusterIDConflict', message: 'm' } }], [], NOW);
    expect(st.totalClusters).toBe(3);
    expect(st.readyClusters).toBe(1);
    expect(st.clusterStatuses?.map((s) => [s.clusterID, s.conditions?.[0]?.status, s.conditions?.[0]?.reason])).toEqual([
      ['east', 'False', 'Disconnected'],
      ['east-1', 'False', 'ClusterIDConflict'],
      ['west', 'True', 'Connected'],
    ]);
  });

  it('keeps lastTransitionTime while a condition does not change', () => {
    const cs = member();
    const first = memberStatus(cs, { connected: true, reason: 'Connected', message: 'ok' }, [], NOW);
    const later = memberStatus({ ...cs, status: first }, { connected: true, reason: 'Connected', message: 'ok' }, [], '2026-01-01T00:05:00.000Z');
    expect(later).toEqual(first);
    const down = memberStatus({ ...cs, status: first }, { connected: false, reason: 'LeaderUnreachable', message: 'x' }, [], '2026-01-01T00:06:00.000Z');
    expect(down.conditions?.[0]).toMatchObject({ status: 'False', reason: 'LeaderUnreachable', lastTransitionTime: '2026-01-01T00:06:00.000Z' });
    expect(down.readyClusters).toBe(0);
  });
});
