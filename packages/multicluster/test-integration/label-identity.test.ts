// Label identities across three embedded API servers: members export their Pods' labels, the
// leader gives each distinct label an ID, members import LabelIdentities; IDs survive a leader restart.
import type { LabelIdentity, ResourceImport } from '@switchyard/apis';
import type { LeaderController, MemberController } from '../src';
import { LEADER_NS, eventually, eventuallyPasses, leaderController, startJoinedClusterSet, stopClusterSet, type ClusterSetEnv, type TestCluster } from './support';

let env: ClusterSetEnv;
let leader: LeaderController;
let west: MemberController;
let east: MemberController;

const pod = (name: string, labels: Record<string, string>) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels }, spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'nginx' }] } });

/** label -> id, from the leader's LabelIdentity ResourceImports. */
async function leaderIds(): Promise<Map<string, number>> {
  const list = await env.leader.kubectl.json<{ items: ResourceImport[] }>(['-n', LEADER_NS, 'get', 'resourceimports']);
  return new Map(list.items.filter((r) => r.spec.kind === 'LabelIdentity').map((r) => [r.spec.labelIdentity!.normalizedLabel!, r.spec.labelIdentity!.id!]));
}
async function memberIds(c: TestCluster): Promise<Map<string, number>> {
  const list = await c.kubectl.json<{ items: LabelIdentity[] }>(['get', 'labelidentities']);
  return new Map(list.items.map((l) => [l.spec.label!, l.spec.id!]));
}

beforeAll(async () => {
  ({ env, leader, west, east } = await startJoinedClusterSet({
    objects: { west: [pod('db-0', { app: 'db' })], east: [pod('db-0', { app: 'db' }), pod('web-0', { app: 'web' })] },
    west: { enableStretchedNetworkPolicy: true },
    east: { enableStretchedNetworkPolicy: true },
  }));
});

afterAll(() => stopClusterSet({ env, leader, west, east }));

let first: Map<string, number>;

it('gives each distinct label one ID in 1..16777214 and every member imports them', async () => {
  first = await eventually(async () => {
    const ids = await leaderIds();
    expect(ids.size).toBe(2);
    return ids;
  });
  const labels = [...first.keys()].sort();
  expect(labels[0]).toMatch(/^ns:.*&pod:app=db$/);
  expect(labels[1]).toMatch(/^ns:.*&pod:app=web$/);
  expect([...first.values()].sort()).toEqual([1, 2]);
  for (const m of [env.west, env.east]) await eventuallyPasses(async () => expect(await memberIds(m)).toEqual(first));
});

it('keeps every ID across a leader restart and gives a new label a free one', async () => {
  await leader.stop();
  await env.west.kubectl.apply(pod('cache-0', { app: 'cache' }));
  await env.east.kubectl.ok(['-n', 'default', 'delete', 'pod', 'db-0']); // west still has app=db
  leader = leaderController(env);
  await leader.start();
  const after = await eventually(async () => {
    const ids = await leaderIds();
    expect(ids.size).toBe(3);
    return ids;
  });
  for (const [label, id] of first) expect(after.get(label)).toBe(id);
  const fresh = [...after].find(([l]) => l.endsWith('&pod:app=cache'))!;
  expect(fresh[1]).toBe(3);
  await eventuallyPasses(async () => expect(await memberIds(env.east)).toEqual(after));
});

it('releases the ID of a label no member has any more', async () => {
  await env.east.kubectl.ok(['-n', 'default', 'delete', 'pod', 'web-0']);
  await eventuallyPasses(async () => {
    const ids = await leaderIds();
    expect([...ids.keys()].some((l) => l.endsWith('&pod:app=web'))).toBe(false);
    expect(ids.size).toBe(2);
  });
});
