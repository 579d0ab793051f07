// EgressSeparateSubnet on the controller, against the embedded API server (no admission webhook, so
// a pool with a subnetInfo the nodes cannot use is stored): an Egress of such a pool gets no IP,
// with IPAllocated=False and an Event naming the pool's field and value; an Egress of a pool with a
// good subnetInfo gets its IP as any other.
import type { Egress, Event } from '@switchyard/apis/types';
import type { Controller } from '../src/controller';
import { eventually, eventuallyPasses, startCluster, type Cluster } from './support';

let c: Cluster;
let controller: Controller | undefined;
const POOLS = '/apis/crd.antrea.io/v1beta1/externalippools';
const EGRESSES = '/apis/crd.antrea.io/v1beta1/egresses';

beforeAll(async () => {
  c = await startCluster();
  const pool = (name: string, start: string, end: string, subnetInfo: Record<string, unknown>): unknown => ({ apiVersion: 'crd.antrea.io/v1beta1', kind: 'ExternalIPPool', metadata: { name }, spec: { ipRanges: [{ start, end }], subnetInfo, nodeSelector: {} } });
  await c.kube.request('POST', POOLS, pool('vlan10', '10.20.0.20', '10.20.0.29', { gateway: '10.20.0.1', prefixLength: 24, vlan: 10 }));
  // Its gateway lies in its range: the pool would hand the gateway out.
  await c.kube.request('POST', POOLS, pool('gw-inside', '10.30.0.1', '10.30.0.9', { gateway: '10.30.0.5', prefixLength: 24 }));
  controller = await c.startController({ egress: true, egressSeparateSubnet: true, registerAPIService: false });
});
afterAll(async () => {
  await controller?.stop();
  await c?.api.stop();
});

const createEgress = (name: string, pool: string): Promise<unknown> =>
  c.kube.request('POST', EGRESSES, { apiVersion: 'crd.antrea.io/v1beta1', kind: 'Egress', metadata: { name }, spec: { appliedTo: { podSelector: { matchLabels: { app: name } } }, externalIPPool: pool } });
const getEgress = (name: string): Promise<Egress> => c.kube.request<Egress>('GET', `${EGRESSES}/${name}`);
const eventSaid = (name: string, reason: string): Promise<string> =>
  eventually(async () => (await c.kube.request<{ items: Event[] }>('GET', '/api/v1/namespaces/default/events')).items.find((e) => e.involvedObject.kind === 'Egress' && e.involvedObject.name === name && e.reason === reason)?.message);

test('an Egress of a pool with a usable subnetInfo gets its IP; one of a pool whose subnetInfo the nodes cannot use gets an Event naming the pool\'s field', async () => {
  await createEgress('tagged', 'vlan10');
  await eventuallyPasses(async () => expect((await getEgress('tagged')).spec.egressIP).toBe('10.20.0.20'));
  await createEgress('stranded', 'gw-inside');
  expect(await eventSaid('stranded', 'InvalidExternalIPPool')).toBe(
    'spec.externalIPPool: Invalid value: "gw-inside": ExternalIPPool gw-inside has a subnetInfo the nodes cannot use (spec.ipRanges[0]: Invalid value: "10.30.0.1-10.30.0.9": holds the subnet\'s gateway 10.30.0.5 (spec.subnetInfo.gateway), which would be handed out as an Egress IP); the Egress has no IP until the pool is fixed',
  );
  await eventuallyPasses(async () => expect((await getEgress('stranded')).status?.conditions?.find((x) => x.type === 'IPAllocated')).toMatchObject({ status: 'False', reason: 'InvalidExternalIPPool' }));
  expect((await getEgress('stranded')).spec.egressIP).toBeUndefined();
});
