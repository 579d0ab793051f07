/**
 * @switchyard/ipam/testing: the compliance kit for {@link IPPoolStore} implementations,
 * runner-agnostic checks (node:assert) that any store, in memory or on the Kubernetes API, must
 * pass. A subpath of its own so that the root entry ships no test code.
 * @packageDocumentation
 */
import assert from 'node:assert/strict';
import { IpamError } from './errors';
import { IPPoolAllocator } from './ippool/allocator';
import type { IPPoolStore } from './ippool/store';
import type { IPPoolResource } from './ippool/types';

/** One named check; wrap each in your test runner: `for (const c of kit) it(c.name, c.run)`. */
export interface ComplianceCheck {
  name: string;
  run: () => Promise<void>;
}

/** A fresh, empty store per check (and a cleanup, if it needs one). */
export type StoreFactory = () => Promise<{ store: IPPoolStore; cleanup?: () => Promise<void> }>;

const pool = (name: string): IPPoolResource => ({
  apiVersion: 'crd.antrea.io/v1beta1',
  kind: 'IPPool',
  metadata: { name },
  spec: { ipRanges: [{ cidr: '10.99.0.0/28' }], subnetInfo: { gateway: '10.99.0.1', prefixLength: 24 } },
});

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof IpamError) return e.code;
    throw e;
  }
  return 'no error';
}

/**
 * The contract every {@link IPPoolStore} must keep: Kubernetes resourceVersion semantics
 * (stale writes conflict, every write bumps the version), the status subresource writing
 * status only, copies in and out, and correct allocation under concurrent allocators.
 */
export function ipPoolStoreCompliance(factory: StoreFactory): ComplianceCheck[] {
  const check = (name: string, body: (store: IPPoolStore) => Promise<void>): ComplianceCheck => ({
    name,
    run: async () => {
      const { store, cleanup } = await factory();
      try {
        await body(store);
      } finally {
        await cleanup?.();
      }
    },
  });
  return [
    check('creates a pool with a resourceVersion and refuses a second of the same name', async (store) => {
      const created = await store.create(pool('a'));
      assert.ok(created.metadata.resourceVersion, 'resourceVersion set on create');
      assert.deepEqual((await store.get('a'))?.spec, pool('a').spec);
      assert.equal(await code(store.create(pool('a'))), 'CONFLICT');
      assert.equal(await store.get('missing'), undefined);
      assert.deepEqual((await store.list()).map((p) => p.metadata.name), ['a']);
    }),
    check('updates status with the current resourceVersion and conflicts on a stale one', async (store) => {
      const v1 = await store.create(pool('a'));
      const v2 = await store.updateStatus({ ...v1, status: { ipAddresses: [{ ipAddress: '10.99.0.2', phase: 'Allocated', owner: {} }] } });
      assert.notEqual(v2.metadata.resourceVersion, v1.metadata.resourceVersion);
      assert.equal(await code(store.updateStatus({ ...v1, status: { ipAddresses: [] } })), 'CONFLICT');
      assert.deepEqual((await store.get('a'))?.status?.ipAddresses?.map((e) => e.ipAddress), ['10.99.0.2']);
    }),
    check('writes only status through the status subresource, and only spec through update', async (store) => {
      const v1 = await store.create(pool('a'));
      const v2 = await store.updateStatus({ ...v1, spec: { ...v1.spec, ipRanges: [] }, status: { ipAddresses: [] } });
      assert.deepEqual(v2.spec.ipRanges, pool('a').spec.ipRanges);
      const withStatus = await store.updateStatus({ ...v2, status: { ipAddresses: [{ ipAddress: '10.99.0.3', phase: 'Reserved', owner: {} }] } });
      const v4 = await store.update({ ...withStatus, spec: { ...withStatus.spec, ipRanges: [{ cidr: '10.99.0.0/27' }] }, status: { ipAddresses: [] } });
      assert.deepEqual(v4.spec.ipRanges, [{ cidr: '10.99.0.0/27' }]);
      assert.deepEqual((await store.get('a'))?.status?.ipAddresses?.map((e) => e.ipAddress), ['10.99.0.3']);
      assert.equal(await code(store.update({ ...v1 })), 'CONFLICT');
    }),
    check('deletes with a precondition and reports missing pools', async (store) => {
      const v1 = await store.create(pool('a'));
      await store.updateStatus({ ...v1, status: {} });
      assert.equal(await code(store.delete('a', v1.metadata.resourceVersion)), 'CONFLICT');
      await store.delete('a');
      assert.equal(await store.get('a'), undefined);
      assert.equal(await code(store.delete('a')), 'NOT_FOUND');
      assert.equal(await code(store.updateStatus({ ...v1 })), 'NOT_FOUND');
    }),
    check('hands out copies: changing a returned or given object does not change the store', async (store) => {
      const given = pool('a');
      await store.create(given);
      given.spec.ipRanges.push({ cidr: '10.98.0.0/24' });
      const got = await store.get('a');
      assert.ok(got);
      got.spec.subnetInfo.prefixLength = 1;
      assert.deepEqual(await store.get('a').then((p) => p?.spec), pool('a').spec);
    }),
    check('never gives one address to two pods when allocators race on the store', async (store) => {
      await store.create(pool('a'));
      // three allocators (three agents) interleaving their read-modify-write cycles
      const racers = [0, 1, 2].map(() => new IPPoolAllocator(store, { sleep: () => new Promise((r) => setImmediate(r)), retry: { attempts: 200 } }));
      const results = await Promise.all(
        Array.from({ length: 13 }, (_, i) => (racers[i % racers.length] as IPPoolAllocator).allocateNext('a', { name: `p${i}`, namespace: 'ns', containerID: `c${i}` })),
      );
      const ips = results.map((r) => r.ip.toString());
      assert.equal(new Set(ips).size, 13);
      assert.ok(racers.reduce((n, r) => n + r.conflicts, 0) > 0, 'the allocators really raced (some writes conflicted)');
      const status = (await store.get('a'))?.status;
      assert.equal(status?.ipAddresses?.length, 13);
      assert.deepEqual(status?.usage, { total: 13, used: 13 });
      assert.equal(await code(racers[0]?.allocateNext('a', { name: 'x', namespace: 'ns', containerID: 'cx' }) ?? Promise.resolve()), 'EXHAUSTED');
    }),
  ];
}
