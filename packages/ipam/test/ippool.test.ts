// IPPool allocation: StatefulSet pre-allocation and reuse, conflict retries, exhaustion, growth only.
import type { IPPool } from '@switchyard/apis';
import { InMemoryIPPoolStore, IPPoolAllocator, IpamError, type IPPoolResource, type IPPoolStore } from '@switchyard/ipam';
import { ipPoolStoreCompliance } from '@switchyard/ipam/testing';

const pool = (name: string, ipRanges: IPPoolResource['spec']['ipRanges'], gateway = '10.10.0.1'): IPPoolResource => ({
  apiVersion: 'crd.antrea.io/v1beta1',
  kind: 'IPPool',
  metadata: { name },
  spec: { ipRanges, subnetInfo: { gateway, prefixLength: 24, vlan: 100 } },
});
const pod = (i: number | string) => ({ name: `pod-${i}`, namespace: 'default', containerID: `ctr-${i}`, ifName: 'eth0' });
const noWait = { sleep: async () => undefined, random: () => 0 };

async function setup(p = pool('p', [{ cidr: '10.10.0.0/28' }])) {
  const store = new InMemoryIPPoolStore();
  await store.create(p);
  return { store, alloc: new IPPoolAllocator(store, noWait) };
}

const errCode = async (p: Promise<unknown>) =>
  p.then(
    () => 'no error',
    (e: unknown) => (e instanceof IpamError ? e.code : Promise.reject(e)),
  );

describe('InMemoryIPPoolStore compliance', () => {
  for (const c of ipPoolStoreCompliance(async () => ({ store: new InMemoryIPPoolStore() }))) it(c.name, c.run);
});

describe('IPPoolAllocator', () => {
  it('allocates the lowest free address, skipping network and gateway, with the subnet info', async () => {
    const { store, alloc } = await setup();
    const a = await alloc.allocateNext('p', pod(1));
    expect([a.ip.toString(), a.prefixLength, a.gateway.toString(), a.vlan, a.phase]).toEqual(['10.10.0.2', 24, '10.10.0.1', 100, 'Allocated']);
    expect((await alloc.allocateNext('p', pod(1))).ip.toString()).toBe('10.10.0.2');
    expect((await alloc.allocateNext('p', pod(2))).ip.toString()).toBe('10.10.0.3');
    expect((await store.get('p'))?.status).toEqual({
      ipAddresses: [
        { ipAddress: '10.10.0.2', phase: 'Allocated', owner: { pod: pod(1) } },
        { ipAddress: '10.10.0.3', phase: 'Allocated', owner: { pod: pod(2) } },
      ],
      usage: { total: 13, used: 2 },
    });
  });

  it('serves start-end ranges in order and a specific address on request', async () => {
    const { alloc } = await setup(pool('p', [{ start: '10.10.0.50', end: '10.10.0.51' }, { start: '10.10.0.10', end: '10.10.0.10' }]));
    expect((await alloc.allocateIP('p', '10.10.0.51', pod('s'))).ip.toString()).toBe('10.10.0.51');
    expect(await errCode(alloc.allocateIP('p', '10.10.0.51', pod('t')))).toBe('UNAVAILABLE');
    expect(await errCode(alloc.allocateIP('p', '10.10.0.99', pod('t')))).toBe('OUTSIDE_POOL');
    expect(await errCode(alloc.allocateIP('p', '10.10.0.1', pod('t')))).toBe('UNAVAILABLE');
    expect((await alloc.allocateNext('p', pod(1))).ip.toString()).toBe('10.10.0.50');
    expect((await alloc.allocateNext('p', pod(2))).ip.toString()).toBe('10.10.0.10');
  });

  it('keeps a StatefulSet ordinal on its pre-allocated address across pod restarts', async () => {
    const { store, alloc } = await setup();
    const pre = await alloc.preallocateStatefulSet('p', 'default', 'db', 3);
    expect(pre.map((a) => [a.ip.toString(), a.phase, a.owner.statefulSet?.index])).toEqual([
      ['10.10.0.2', 'Preallocated', 0],
      ['10.10.0.3', 'Preallocated', 1],
      ['10.10.0.4', 'Preallocated', 2],
    ]);
    const other = await alloc.allocateReservedOrNext('p', pod('x'));
    expect(other.ip.toString()).toBe('10.10.0.5');
    const sts1 = { name: 'db', namespace: 'default', index: 1 };
    const first = await alloc.allocateReservedOrNext('p', pod('db-1-a'), sts1);
    expect([first.ip.toString(), first.phase]).toEqual(['10.10.0.3', 'Allocated']);
    expect(await alloc.releaseContainer('p', 'ctr-db-1-a', 'eth0')).toEqual([]);
    expect((await store.get('p'))?.status?.ipAddresses?.find((e) => e.ipAddress === '10.10.0.3')).toEqual({ ipAddress: '10.10.0.3', phase: 'Reserved', owner: { statefulSet: sts1 } });
    const again = await alloc.allocateReservedOrNext('p', pod('db-1-b'), sts1);
    expect([again.ip.toString(), again.owner.pod?.containerID]).toEqual(['10.10.0.3', 'ctr-db-1-b']);
    // scaling up keeps the existing ordinals and adds new ones
    expect((await alloc.preallocateStatefulSet('p', 'default', 'db', 4)).map((a) => a.ip.toString())).toEqual(['10.10.0.2', '10.10.0.3', '10.10.0.4', '10.10.0.6']);
    expect((await alloc.releaseStatefulSet('p', 'default', 'db')).map(String)).toEqual(['10.10.0.2', '10.10.0.3', '10.10.0.4', '10.10.0.6']);
    expect(await alloc.usage('p')).toEqual({ total: 13, used: 1 });
  });

  it('reports exhaustion naming the pool, and pre-allocates all or nothing', async () => {
    const { store, alloc } = await setup(pool('small', [{ start: '10.10.0.2', end: '10.10.0.4' }]));
    await alloc.allocateNext('small', pod(1));
    expect(await errCode(alloc.preallocateStatefulSet('small', 'default', 'db', 3))).toBe('EXHAUSTED');
    expect((await store.get('small'))?.status?.ipAddresses).toHaveLength(1);
    await alloc.allocateNext('small', pod(2));
    await alloc.allocateNext('small', pod(3));
    const e = await alloc.allocateNext('small', pod(4)).catch((x: unknown) => x);
    expect(e).toMatchObject({ code: 'EXHAUSTED', value: 'small' });
    expect(await alloc.releaseContainer('small', 'ctr-2')).toHaveLength(1);
    expect((await alloc.allocateNext('small', pod(4))).ip.toString()).toBe('10.10.0.3');
  });

  it('re-reads and retries after a resourceVersion conflict, backing off between attempts', async () => {
    const inner = new InMemoryIPPoolStore();
    await inner.create(pool('p', [{ cidr: '10.10.0.0/28' }]));
    const sleeps: number[] = [];
    let racesLeft = 2;
    // Another writer takes the lowest free address right after each of our first two reads.
    const racing: IPPoolStore = Object.assign(Object.create(inner) as IPPoolStore, {
      get: async (name: string) => {
        const got = await inner.get(name);
        if (got && racesLeft-- > 0) await new IPPoolAllocator(inner, noWait).allocateNext('p', pod(`other-${racesLeft}`));
        return got;
      },
    });
    const alloc = new IPPoolAllocator(racing, { sleep: async (ms) => void sleeps.push(ms), random: () => 0.999, retry: { baseDelayMs: 10, maxDelayMs: 15 } });
    const a = await alloc.allocateNext('p', pod('me'));
    expect(a.ip.toString()).toBe('10.10.0.4');
    expect(alloc.conflicts).toBe(2);
    expect(sleeps).toEqual([9, 14]);
    const held = (await inner.get('p'))?.status?.ipAddresses?.map((x) => x.ipAddress);
    expect(held).toEqual(['10.10.0.2', '10.10.0.3', '10.10.0.4']);
  });

  it('gives up with RETRIES_EXHAUSTED when conflicts never stop', async () => {
    const inner = new InMemoryIPPoolStore();
    await inner.create(pool('p', [{ cidr: '10.10.0.0/28' }]));
    const always: IPPoolStore = Object.assign(Object.create(inner) as IPPoolStore, {
      updateStatus: async () => Promise.reject(new IpamError('CONFLICT', 'conflict', '1')),
    });
    const alloc = new IPPoolAllocator(always, { ...noWait, retry: { attempts: 4 } });
    expect(await errCode(alloc.allocateNext('p', pod(1)))).toBe('RETRIES_EXHAUSTED');
    expect(alloc.conflicts).toBe(4);
  });

  it('lets pools grow but never shrink, and refuses to delete a pool in use', async () => {
    const { store, alloc } = await setup(pool('p', [{ cidr: '10.10.0.0/28' }]));
    const cur = (await store.get('p')) as IPPoolResource;
    const grown = await alloc.updatePool({ ...cur, spec: { ...cur.spec, ipRanges: [{ cidr: '10.10.0.0/27' }] } });
    expect(grown.spec.ipRanges).toEqual([{ cidr: '10.10.0.0/27' }]);
    const shrink = await alloc.updatePool({ ...cur, spec: { ...cur.spec, ipRanges: [{ start: '10.10.0.2', end: '10.10.0.9' }] } }).catch((e: unknown) => e);
    expect(shrink).toMatchObject({ code: 'SHRINK', path: 'spec.ipRanges' });
    expect((shrink as IpamError).message).toContain('10.10.0.10-10.10.0.30');
    expect(await errCode(alloc.updatePool({ ...cur, spec: { ...cur.spec, subnetInfo: { gateway: '10.10.0.1', prefixLength: 25 } } }))).toBe('SHRINK');
    await alloc.allocateNext('p', pod(1));
    expect(await errCode(alloc.deletePool('p'))).toBe('IN_USE');
    await alloc.releaseContainer('p', 'ctr-1', 'eth0');
    await alloc.deletePool('p');
    expect(await store.get('p')).toBeUndefined();
  });

  it('hands out no new address from a pool being deleted, but still releases and keeps ordinals', async () => {
    const { store, alloc } = await setup();
    await alloc.preallocateStatefulSet('p', 'default', 'db', 1);
    await alloc.allocateNext('p', pod(1));
    const cur = (await store.get('p')) as IPPoolResource;
    // What the API server does to a pool with a finalizer on DELETE.
    await store.update({ ...cur, metadata: { ...cur.metadata, deletionTimestamp: '2024-01-01T00:00:00Z' } });
    expect(await errCode(alloc.allocateNext('p', pod(2)))).toBe('TERMINATING');
    expect(await errCode(alloc.allocateIP('p', '10.10.0.9', pod(2)))).toBe('TERMINATING');
    expect(await errCode(alloc.preallocateStatefulSet('p', 'default', 'db', 2))).toBe('TERMINATING');
    expect((await alloc.allocateNext('p', pod(1))).ip.toString()).toBe('10.10.0.3');
    expect((await alloc.allocateReservedOrNext('p', pod('db-0'), { namespace: 'default', name: 'db', index: 0 })).ip.toString()).toBe('10.10.0.2');
    expect((await alloc.releaseContainer('p', 'ctr-1', 'eth0')).map(String)).toEqual(['10.10.0.3']);
  });

  it('writes nothing when a StatefulSet already has all its pre-allocated addresses', async () => {
    const { store, alloc } = await setup();
    await alloc.preallocateStatefulSet('p', 'default', 'db', 2);
    const before = (await store.get('p'))?.metadata.resourceVersion;
    expect((await alloc.preallocateStatefulSet('p', 'default', 'db', 2)).map((a) => a.ip.toString())).toEqual(['10.10.0.2', '10.10.0.3']);
    expect((await store.get('p'))?.metadata.resourceVersion).toBe(before);
  });

  it('accepts IPPool objects typed by @switchyard/apis and names bad ranges', async () => {
    const typed: IPPool = { metadata: { name: 'typed' }, spec: { ipRanges: [{ cidr: '10.10.0.0/30' }], subnetInfo: { gateway: '10.10.0.1', prefixLength: 30 } } };
    const { alloc } = await setup(typed);
    expect((await alloc.allocateNext('typed', pod(1))).ip.toString()).toBe('10.10.0.2');
    const { alloc: bad } = await setup(pool('bad', [{ cidr: '10.10.0.0/28' }, { cidr: '10.10.0.5/28' }]));
    expect(await bad.allocateNext('bad', pod(1)).catch((e: unknown) => e)).toMatchObject({ code: 'INVALID_CONFIG', path: 'spec.ipRanges[1].cidr' });
    expect(await errCode(bad.allocateNext('none', pod(1)))).toBe('NOT_FOUND');
  });
});
