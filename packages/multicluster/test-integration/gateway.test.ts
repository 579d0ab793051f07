// Gateway election in a member on an embedded API server: the first Ready annotated Node becomes
// the Gateway CR; it fails over when that Node goes NotReady or loses the annotation.
import type { Gateway } from '@switchyard/apis';
import type { MemberController } from '../src';
import { MEMBER_NS, cluster, eventuallyPasses, memberController, type TestCluster } from './support';

let c: TestCluster;
let member: MemberController;

async function addNode(name: string, internal: string, external: string, gateway: boolean): Promise<void> {
  await c.kubectl.apply({ apiVersion: 'v1', kind: 'Node', metadata: { name, ...(gateway ? { annotations: { 'multicluster.antrea.io/gateway': 'true' } } : {}) } });
  await setReady(name, true, [{ type: 'InternalIP', address: internal }, { type: 'ExternalIP', address: external }]);
}
async function setReady(name: string, ready: boolean, addresses?: { type: string; address: string }[]): Promise<void> {
  await c.kube.request('PATCH', `/api/v1/nodes/${name}/status`, { status: { ...(addresses ? { addresses } : {}), conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] } }, 'application/merge-patch+json');
}
const gateways = async (): Promise<Gateway[]> => (await c.kubectl.json<{ items: Gateway[] }>(['-n', MEMBER_NS, 'get', 'gateways'])).items;

beforeAll(async () => {
  c = await cluster('test-cluster-west', '10.101.0.0/16');
  await addNode('node-1', '172.18.0.11', '192.0.2.11', true);
  await addNode('node-2', '172.18.0.12', '192.0.2.12', true);
  await addNode('node-3', '172.18.0.13', '192.0.2.13', false);
  member = memberController(c);
  await member.start();
});

afterAll(async () => {
  await member?.stop();
  await c?.api.stop();
});

it('makes the first Ready candidate the Gateway, with InternalIP as gateway and internal IP', async () => {
  await eventuallyPasses(async () => expect((await gateways()).map((g) => [g.metadata.name, g.gatewayIP, g.internalIP])).toEqual([['node-1', '172.18.0.11', '172.18.0.11']]));
});

it('fails over when the Gateway Node goes NotReady, and stays on the new one when the old recovers', async () => {
  await setReady('node-1', false);
  await eventuallyPasses(async () => expect((await gateways()).map((g) => g.metadata.name)).toEqual(['node-2']));
  await setReady('node-1', true);
  await new Promise((r) => setTimeout(r, 300));
  expect((await gateways()).map((g) => g.metadata.name)).toEqual(['node-2']);
});

it('fails over when the Gateway Node loses the annotation, and has none when no candidate is left', async () => {
  await c.kubectl.ok(['annotate', 'node', 'node-2', 'multicluster.antrea.io/gateway-']);
  await eventuallyPasses(async () => expect((await gateways()).map((g) => g.metadata.name)).toEqual(['node-1']));
  await c.kubectl.ok(['annotate', 'node', 'node-1', 'multicluster.antrea.io/gateway-']);
  await eventuallyPasses(async () => expect(await gateways()).toEqual([]));
});
