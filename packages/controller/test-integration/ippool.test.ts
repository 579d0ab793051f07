// IPPool controller against the embedded API server: StatefulSet pre-allocation from StatefulSet
// events, ordinals keeping their address across pod restarts, release on delete, status.usage,
// and the finalizer that keeps a pool in use from being deleted.
import type { IPPool } from '@switchyard/apis';
import { IpamError, IPPoolAllocator, KubeIPPoolStore } from '@switchyard/ipam';
import type { Controller } from '../src/controller';
import { KubeRequestError } from '../src/errors';
import { IPPOOL_ANNOTATION, IPPOOL_FINALIZER } from '../src/ippool';
import type { IPPools } from '../src/parts/ip-pools';
import { eventually, eventuallyPasses, startCluster, type Cluster } from './support';

let c: Cluster;
let controller: Controller | undefined;

beforeAll(async () => {
  c = await startCluster();
  await c.kubectl.ok(['create', 'namespace', 'apps']);
});
afterAll(async () => {
  await controller?.stop();
  await c?.api.stop();
});

const ipPool = (name: string, cidr: string, gateway: string) => ({
  apiVersion: 'crd.antrea.io/v1beta1',
  kind: 'IPPool',
  metadata: { name },
  spec: { ipRanges: [{ cidr }], subnetInfo: { gateway, prefixLength: 24 } },
});
const statefulSet = (name: string, replicas: number, pool: string) => ({
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name, namespace: 'apps', annotations: { [IPPOOL_ANNOTATION]: pool } },
  spec: {
    replicas,
    serviceName: name,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
  },
});
const getPool = (name: string): Promise<IPPool> => c.kube.request<IPPool>('GET', `/apis/crd.antrea.io/v1beta1/ippools/${name}`);
const byIndex = (p: IPPool, sts: string): string[] =>
  (p.status?.ipAddresses ?? [])
    .filter((e) => e.owner.statefulSet?.name === sts)
    .sort((a, b) => (a.owner.statefulSet?.index ?? 0) - (b.owner.statefulSet?.index ?? 0))
    .map((e) => e.ipAddress);
const gone = async (name: string): Promise<void> => {
  const err = await getPool(name).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(KubeRequestError);
  expect((err as KubeRequestError).status).toBe(404);
};

describe('IPPool controller', () => {
  test('pre-allocates one address per StatefulSet ordinal (phase Preallocated, owner statefulSet+index), keeps usage and adds the finalizer', async () => {
    controller = await c.startController({ ipPools: true });
    await c.kubectl.apply(ipPool('pool-a', '10.2.0.0/28', '10.2.0.1'), statefulSet('web', 3, 'pool-a'));
    const pool = await eventually(async () => {
      const p = await getPool('pool-a');
      expect(p.status?.ipAddresses).toHaveLength(3);
      return p;
    });
    expect(pool.status?.ipAddresses).toEqual(
      [0, 1, 2].map((index) => ({ ipAddress: `10.2.0.${index + 2}`, phase: 'Preallocated', owner: { statefulSet: { name: 'web', namespace: 'apps', index } } })),
    );
    expect(pool.metadata.finalizers).toContain(IPPOOL_FINALIZER);
    await eventuallyPasses(async () => expect((await getPool('pool-a')).status?.usage).toEqual({ total: 13, used: 3 }));
    // kubectl sees the same thing (printer columns read status.usage).
    expect(await c.kubectl.ok(['get', 'ippool', 'pool-a', '-o', 'jsonpath={.status.ipAddresses[*].phase}'])).toBe('Preallocated Preallocated Preallocated');
  });

  test('an ordinal keeps its address across pod restarts; scaling up adds ordinals, existing ones keep theirs', async () => {
    // What an agent does for pod web-1 (CNI ADD, then DEL, then a new container of the same ordinal).
    const agent = new IPPoolAllocator(new KubeIPPoolStore(c.kube));
    const ord1 = { namespace: 'apps', name: 'web', index: 1 };
    const first = await agent.allocateReservedOrNext('pool-a', { name: 'web-1', namespace: 'apps', containerID: 'ctr-a', ifName: 'eth0' }, ord1);
    expect([first.ip.toString(), first.phase]).toEqual(['10.2.0.3', 'Allocated']);
    await agent.releaseContainer('pool-a', 'ctr-a', 'eth0');
    expect((await getPool('pool-a')).status?.ipAddresses?.find((e) => e.ipAddress === '10.2.0.3')).toEqual({ ipAddress: '10.2.0.3', phase: 'Reserved', owner: { statefulSet: ord1 } });
    const again = await agent.allocateReservedOrNext('pool-a', { name: 'web-1', namespace: 'apps', containerID: 'ctr-b', ifName: 'eth0' }, ord1);
    expect(again.ip.toString()).toBe('10.2.0.3');

    await c.kubectl.ok(['-n', 'apps', 'patch', 'statefulset', 'web', '--type=merge', '-p', '{"spec":{"replicas":4}}']);
    await eventuallyPasses(async () => expect(byIndex(await getPool('pool-a'), 'web')).toEqual(['10.2.0.2', '10.2.0.3', '10.2.0.4', '10.2.0.5']));
    await eventuallyPasses(async () => expect((await getPool('pool-a')).status?.usage).toEqual({ total: 13, used: 4 }));
  });

  test('a pool in use cannot be deleted: it waits (finalizer), hands out nothing new, and goes once its StatefulSet is deleted', async () => {
    await c.kubectl.ok(['delete', 'ippool', 'pool-a', '--wait=false']);
    const terminating = await getPool('pool-a');
    expect(terminating.metadata.deletionTimestamp).toBeDefined();
    expect(terminating.metadata.finalizers).toContain(IPPOOL_FINALIZER);
    const agent = new IPPoolAllocator(new KubeIPPoolStore(c.kube));
    const refused = await agent.allocateNext('pool-a', { name: 'x', namespace: 'apps', containerID: 'ctr-x' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(IpamError);
    expect((refused as IpamError).code).toBe('TERMINATING');
    // Still there after the controller has handled the deletion event.
    await controller?.part<IPPools>('ipPools').idle();
    expect((await getPool('pool-a')).status?.ipAddresses).toHaveLength(4);

    await c.kubectl.ok(['-n', 'apps', 'delete', 'statefulset', 'web', '--wait=false']);
    await eventuallyPasses(() => gone('pool-a'));
  });

  test('addresses of a StatefulSet deleted while the controller was down are released when it starts again', async () => {
    await c.kubectl.apply(ipPool('pool-b', '10.3.0.0/28', '10.3.0.1'), statefulSet('db', 2, 'pool-b'));
    await eventuallyPasses(async () => expect(byIndex(await getPool('pool-b'), 'db')).toEqual(['10.3.0.2', '10.3.0.3']));
    await controller?.stop();
    controller = undefined;
    await c.kubectl.ok(['-n', 'apps', 'delete', 'statefulset', 'db', '--wait=false']);
    expect(byIndex(await getPool('pool-b'), 'db')).toHaveLength(2);
    controller = await c.startController({ ipPools: true });
    await eventuallyPasses(async () => expect((await getPool('pool-b')).status).toMatchObject({ ipAddresses: [], usage: { total: 13, used: 0 } }));
    // Unused now: deleting it goes through at once.
    await c.kubectl.ok(['delete', 'ippool', 'pool-b', '--wait=false']);
    await eventuallyPasses(() => gone('pool-b'));
  });
});
