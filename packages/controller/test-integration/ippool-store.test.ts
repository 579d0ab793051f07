// @switchyard/ipam's IPPoolStore compliance kit against KubeIPPoolStore on the embedded API server
// (crd.antrea.io IPPool CRD with its status subresource).
import { ipPoolStoreCompliance } from '@switchyard/ipam/testing';
import { KubeIPPoolStore } from '@switchyard/ipam';
import { startCluster, type Cluster } from './support';

let c: Cluster;

beforeAll(async () => {
  c = await startCluster();
});
afterAll(async () => {
  await c?.api.stop();
});

describe('KubeIPPoolStore compliance (ipam kit, embedded API server)', () => {
  const kit = ipPoolStoreCompliance(async () => {
    const store = new KubeIPPoolStore(c.kube);
    // One API server for the suite: each check starts from no pools and leaves none behind.
    const clear = async (): Promise<void> => {
      for (const p of await store.list()) await store.delete(p.metadata.name as string);
    };
    await clear();
    return { store, cleanup: clear };
  });
  for (const check of kit) it(check.name, check.run);
});
