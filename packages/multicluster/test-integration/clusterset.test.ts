// ClusterSet join, heartbeats and Disconnected on injected clocks, refused ClusterSets: a leader
// and two members, each on its own embedded API server.
import { ManualClock } from '@switchyard/runtime/testing';
import type { ClusterSet, MemberClusterAnnounce } from '@switchyard/apis';
import type { LeaderController, MemberController } from '../src';
import { CLUSTERSET, LEADER_NS, MEMBER_NS, eventually, eventuallyPasses, memberClusterSet, memberController, startJoinedClusterSet, stopClusterSet, type ClusterSetEnv } from './support';

let env: ClusterSetEnv;
const clocks = { leader: new ManualClock(), west: new ManualClock(), east: new ManualClock() };
let leader: LeaderController;
let west: MemberController;
let east: MemberController;

const leaderSet = (): Promise<ClusterSet> => env.leader.kubectl.json<ClusterSet>(['-n', LEADER_NS, 'get', 'clusterset', CLUSTERSET]);
const readyOf = (cs: ClusterSet, id: string) => cs.status?.clusterStatuses?.find((s) => s.clusterID === id)?.conditions?.[0];
/** east's own ClusterSet and its Ready condition. */
const eastSet = (): Promise<ClusterSet> => env.east.kubectl.json<ClusterSet>(['-n', MEMBER_NS, 'get', 'clusterset', CLUSTERSET]);
const eastReady = async () => (await eastSet()).status?.conditions?.[0];

/** Stops east's member controller, applies `objects` to east, and starts a new controller with `options`. */
async function restartEast(objects: unknown[], options: { clusterSetID?: string } = {}): Promise<void> {
  await east.stop();
  if (objects.length > 0) await env.east.kubectl.apply(...objects);
  east = memberController(env.east, { clock: clocks.east, ...options });
  await east.start();
}

beforeAll(async () => {
  ({ env, leader, west, east } = await startJoinedClusterSet({ leaderClock: clocks.leader, west: { clock: clocks.west }, east: { clock: clocks.east } }));
});

afterAll(() => stopClusterSet({ env, leader, west, east }));

it('members join: announces in the leader, 2 of 2 clusters ready, each member Ready', async () => {
  const cs = await eventually(async () => {
    const cs = await leaderSet();
    expect(cs.status).toMatchObject({ totalClusters: 2, readyClusters: 2 });
    return cs;
  });
  expect(readyOf(cs, 'test-cluster-west')).toMatchObject({ type: 'Ready', status: 'True', reason: 'Connected' });
  const mca = await env.leader.kubectl.json<MemberClusterAnnounce>(['-n', LEADER_NS, 'get', 'memberclusterannounce', 'member-announce-from-test-cluster-east']);
  expect(mca).toMatchObject({ clusterID: 'test-cluster-east', clusterSetID: CLUSTERSET, leaderClusterID: 'test-cluster-north' });
  await eventuallyPasses(async () => {
    const m = await env.west.kubectl.json<ClusterSet>(['-n', MEMBER_NS, 'get', 'clusterset', CLUSTERSET]);
    expect(m.status).toMatchObject({ totalClusters: 1, readyClusters: 1, conditions: [{ type: 'Ready', status: 'True', reason: 'Connected' }] });
    expect(m.status?.clusterStatuses).toEqual([{ clusterID: 'test-cluster-north', conditions: [expect.objectContaining({ status: 'True' })] }]);
  });
});

it('heartbeats every 10 s on the member clock', async () => {
  expect(clocks.west.pendingDelays()).toContain(10_000);
  const touched = async (): Promise<string> => (await env.leader.kubectl.json<MemberClusterAnnounce>(['-n', LEADER_NS, 'get', 'mca', 'member-announce-from-test-cluster-west'])).metadata.annotations?.['multicluster.antrea.io/touch-ts'] ?? '';
  const before = await touched();
  await clocks.west.advanceAsync(10_000);
  await eventuallyPasses(async () => expect(await touched()).toBe(new Date(clocks.west.now()).toISOString()));
  expect(before).not.toBe(await touched());
});

it('marks a member Disconnected 30 s after its last heartbeat, and Connected again when it resumes', async () => {
  // 29 s of leader time: still within the timeout.
  await clocks.leader.advanceAsync(29_000);
  expect((await leaderSet()).status?.readyClusters).toBe(2);
  await clocks.leader.advanceAsync(2_000);
  const cs = await eventually(async () => {
    const cs = await leaderSet();
    expect(cs.status).toMatchObject({ totalClusters: 2, readyClusters: 0 });
    return cs;
  });
  expect(readyOf(cs, 'test-cluster-east')).toMatchObject({ status: 'False', reason: 'Disconnected', lastTransitionTime: new Date(clocks.leader.now()).toISOString() });
  await clocks.west.advanceAsync(10_000); // west's next heartbeat
  await eventuallyPasses(async () => {
    const cs = await leaderSet();
    expect(cs.status).toMatchObject({ readyClusters: 1 });
    expect(readyOf(cs, 'test-cluster-west')).toMatchObject({ status: 'True', reason: 'Connected' });
    expect(readyOf(cs, 'test-cluster-east')).toMatchObject({ status: 'False', reason: 'Disconnected' });
  });
});

it('refuses a ClusterSet whose name is not the configured ClusterSet ID, with a status naming both', async () => {
  await restartEast([], { clusterSetID: 'prod-clusterset' });
  await eventuallyPasses(async () => {
    const m = await eastSet();
    expect(m.status?.conditions?.[0]).toMatchObject({ type: 'Ready', status: 'False', reason: 'InvalidClusterSet', message: 'ClusterSet name "test-clusterset" must equal the ClusterSet ID "prod-clusterset"' });
    expect(m.status?.readyClusters).toBe(0);
  });
  expect(east.connected).toBe(false);
});

it('refuses a member whose cluster ID is a dash-prefix of the leader ID', async () => {
  await restartEast([memberClusterSet('test-cluster-north-2', env.leader.api.url, { secret: 'member-test-cluster-east-token' })]);
  await eventuallyPasses(async () => {
    expect(await eastReady()).toMatchObject({ status: 'False', reason: 'InvalidClusterSet', message: expect.stringContaining('"test-cluster-north-2" and leader cluster ID "test-cluster-north" are a dash-prefix') });
  });
});

it('the leader refuses a member whose cluster ID is a dash-prefix of a member that joined earlier', async () => {
  await restartEast([memberClusterSet('test-cluster-west-1', env.leader.api.url, { secret: 'member-test-cluster-east-token' })]);
  await eventuallyPasses(async () => {
    const cs = await leaderSet();
    expect(readyOf(cs, 'test-cluster-west-1')).toMatchObject({ status: 'False', reason: 'ClusterIDConflict', message: 'cluster ID "test-cluster-west-1" and "test-cluster-west" are a dash-prefix of each other' });
    expect(readyOf(cs, 'test-cluster-west')).toMatchObject({ status: 'True' });
  });
});

it('reports a missing token Secret in the member ClusterSet status, naming the Secret', async () => {
  await restartEast([memberClusterSet('test-cluster-east', env.leader.api.url, { secret: 'no-such-token' })]);
  await eventuallyPasses(async () => {
    expect(await eastReady()).toMatchObject({ status: 'False', reason: 'LeaderSecretInvalid', message: 'Secret kube-system/no-such-token named by spec.leaders[0].secret not found' });
  });
  expect(east.connected).toBe(false);
});

it('reports a token the leader rejects as LeaderAccessDenied', async () => {
  await restartEast([
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'wrong-token', namespace: MEMBER_NS }, type: 'Opaque', data: { token: Buffer.from('not-a-valid-token').toString('base64'), 'ca.crt': Buffer.from(env.leader.api.caPem).toString('base64') } },
    memberClusterSet('test-cluster-east', env.leader.api.url, { secret: 'wrong-token' }),
  ]);
  await eventuallyPasses(async () => {
    expect(await eastReady()).toMatchObject({ status: 'False', reason: 'LeaderAccessDenied', message: expect.stringContaining('heartbeat to leader test-cluster-north failed') });
  });
});
