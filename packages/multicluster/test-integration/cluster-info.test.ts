// ClusterInfo across three embedded API servers: each member with a Gateway exports its
// ClusterInfo; the other member imports it as ClusterInfoImport <cluster>-clusterinfo.
import type { ClusterInfoImport } from '@switchyard/apis';
import { MulticlusterError, discoverServiceCIDR, discoverServiceCIDRs, type LeaderController, type MemberController } from '../src';
import { MEMBER_NS, cluster, eventually, eventuallyPasses, startJoinedClusterSet, stopClusterSet, type ClusterSetEnv, type TestCluster } from './support';

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
  // east is dual-stack (IPv4 primary) and configures no range: both are discovered.
  ({ env, leader, west, east } = await startJoinedClusterSet({ west: { serviceCIDR: '10.101.0.0/16', podCIDRs: ['10.10.0.0/16'] }, eastServiceCIDR: '10.102.0.0/16,fd00:10:102::/108' }));
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
  // east has no range configured: discovered from its API server's refusals of ClusterIP 0.0.0.0 and ::.
  expect((await infos(env.west))[0]?.spec).toMatchObject({ serviceCIDR: '10.102.0.0/16', serviceCIDRv6: 'fd00:10:102::/108' });
  expect(await env.east.kubectl.maybe(['-n', MEMBER_NS, 'get', 'svc', 'invalid-svc'])).toBeUndefined();
});

it('discovers the IPv6 range alone on an IPv6-only cluster, and no IPv6 range on an IPv4-only one', async () => {
  const v6only = await cluster('v6only', 'fd00:10:103::/108');
  try {
    expect(await discoverServiceCIDRs(v6only.kube, 'default')).toEqual({ serviceCIDRv6: 'fd00:10:103::/108' });
    // The IPv4-only call names what is missing rather than a wrong range.
    await expect(discoverServiceCIDR(v6only.kube, 'default')).rejects.toThrow(MulticlusterError);
    await expect(discoverServiceCIDR(v6only.kube, 'default')).rejects.toMatchObject({ code: 'SERVICE_CIDR', field: 'serviceCIDR' });
    expect(await v6only.kubectl.maybe(['-n', 'default', 'get', 'svc', 'invalid-svc'])).toBeUndefined();
  } finally {
    await v6only.api.stop();
  }
  expect(await discoverServiceCIDRs(env.west.kube, MEMBER_NS)).toEqual({ serviceCIDR: '10.101.0.0/16' });
});

it('exports an IPv6-only Gateway (gatewayIPv6 and internalIPv6 alone) and a ClusterInfo without an IPv4 gateway IP', async () => {
  await gatewayNode(env.east, 'fd00:19::11');
  await eventuallyPasses(async () => {
    const gws = (await env.east.kubectl.json<{ items: Record<string, unknown>[] }>(['-n', MEMBER_NS, 'get', 'gateways'])).items;
    expect(gws.map(({ gatewayIP, internalIP, gatewayIPv6, internalIPv6 }) => ({ gatewayIP, internalIP, gatewayIPv6, internalIPv6 }))).toEqual([{ gatewayIP: undefined, internalIP: undefined, gatewayIPv6: 'fd00:19::11', internalIPv6: 'fd00:19::11' }]);
  });
  await eventuallyPasses(async () => expect((await infos(env.west))[0]?.spec.gatewayInfos).toEqual([{ gatewayIPv6: 'fd00:19::11' }]));
  await gatewayNode(env.east, '172.19.0.11');
  await eventuallyPasses(async () => expect((await infos(env.west))[0]?.spec.gatewayInfos).toEqual([{ gatewayIP: '172.19.0.11' }]));
});

it('follows a Gateway change and withdraws the ClusterInfo when no Gateway is left', async () => {
  await env.west.kube.request('PATCH', '/api/v1/nodes/node-1', { metadata: { annotations: { 'multicluster.antrea.io/gateway-ip': '198.51.100.7' } } }, 'application/merge-patch+json');
  await eventuallyPasses(async () => expect((await infos(env.east))[0]?.spec.gatewayInfos).toEqual([{ gatewayIP: '198.51.100.7' }]));
  await env.west.kubectl.ok(['annotate', 'node', 'node-1', 'multicluster.antrea.io/gateway-']);
  await eventuallyPasses(async () => expect(await infos(env.east)).toEqual([]));
});
