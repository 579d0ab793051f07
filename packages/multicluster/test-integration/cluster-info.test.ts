// ClusterInfo across three embedded API servers: each member with a Gateway exports its
// ClusterInfo; the other member imports it as ClusterInfoImport <cluster>-clusterinfo.
import type { ClusterInfoImport } from '@switchyard/apis';
import type { LeaderController, MemberController } from '../src';
import { MEMBER_NS, eventually, eventuallyPasses, startJoinedClusterSet, stopClusterSet, type ClusterSetEnv, type TestCluster } from './support';

let env: ClusterSetEnv;
let leader: LeaderController;
let west: MemberController;
let east: MemberController;

async function gatewayNode(c: TestCluster, ip: string): Promise<void> {
  await c.kubectl.apply({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1', annotations: { 'multicluster.antrea.io/gateway': 'true' } } });
  await c.kube.request('PATCH', '/api/v1/nodes/node-1/status', { status: { addresses: [{ type: 'InternalIP', address: ip }], conditions: [{ type: 'Ready', status: 'True' }] } }, 'application/merge-patch+json');
}
const infos = async (c: TestCluster): Promise<ClusterInfoImport[]> => (await c.kubectl.json<{ items: ClusterInfoImport[] }>(['-n', MEMBER_NS, 'get', 'clusterinfoimports'])).items;

beforeAll(async () => {
  ({ env, leader, west, east } = await startJoinedClusterSet({ west: { serviceCIDR: '10.101.0.0/16', podCIDRs: ['10.10.0.0/16'] } }));
});

afterAll(() => stopClusterSet({ env, leader, west, east }));

it("imports each member's ClusterInfo in the other member once it has a Gateway", async () => {
  await gatewayNode(env.west, '172.18.0.11');
  const [info] = await eventually(async () => {
    const list = await infos(env.east);
    expect(list).toHaveLength(1);
    return list;
  });
  expect(info!.metadata.name).toBe('test-cluster-west-clusterinfo');
  expect(info!.spec).toEqual({ clusterID: 'test-cluster-west', gatewayInfos: [{ gatewayIP: '172.18.0.11' }], serviceCIDR: '10.101.0.0/16', podCIDRs: ['10.10.0.0/16'] });
  expect(await infos(env.west)).toEqual([]); // east has no Gateway yet, and west does not import its own
  await gatewayNode(env.east, '172.19.0.11');
  await eventuallyPasses(async () => expect((await infos(env.west)).map((i) => [i.metadata.name, i.spec.gatewayInfos?.[0]?.gatewayIP])).toEqual([['test-cluster-east-clusterinfo', '172.19.0.11']]));
  // east has no serviceCIDR configured: discovered from its API server's refusal of ClusterIP 0.0.0.0.
  expect((await infos(env.west))[0]?.spec.serviceCIDR).toBe('10.102.0.0/16');
  expect(await env.east.kubectl.maybe(['-n', MEMBER_NS, 'get', 'svc', 'invalid-svc'])).toBeUndefined();
});

it('follows a Gateway change and withdraws the ClusterInfo when no Gateway is left', async () => {
  await env.west.kube.request('PATCH', '/api/v1/nodes/node-1', { metadata: { annotations: { 'multicluster.antrea.io/gateway-ip': '198.51.100.7' } } }, 'application/merge-patch+json');
  await eventuallyPasses(async () => expect((await infos(env.east))[0]?.spec.gatewayInfos).toEqual([{ gatewayIP: '198.51.100.7' }]));
  await env.west.kubectl.ok(['annotate', 'node', 'node-1', 'multicluster.antrea.io/gateway-']);
  await eventuallyPasses(async () => expect(await infos(env.east)).toEqual([]));
});
