import { loadCrds } from '@switchyard/apis';
import { startTestServer } from './support/server';
import type { KubeObject } from '../src/index';

describe('preinstalled CRDs', () => {
  it('registers the @switchyard/apis CRDs at start and enforces their schemas', async () => {
    const { server, client } = await startTestServer({ crds: loadCrds() as unknown as KubeObject[] });
    try {
      const crds = await client.get<{ items: { metadata: { name: string } }[] }>('/apis/apiextensions.k8s.io/v1/customresourcedefinitions');
      expect(crds.body.items.map((c) => c.metadata.name)).toEqual(expect.arrayContaining(['clusternetworkpolicies.crd.antrea.io', 'externalnodes.crd.antrea.io', 'clustersets.multicluster.crd.antrea.io']));
      await client.post('/api/v1/namespaces', { metadata: { name: 'vm-ns' } });
      const ok = await client.post('/apis/crd.antrea.io/v1alpha1/namespaces/vm-ns/externalnodes', { apiVersion: 'crd.antrea.io/v1alpha1', kind: 'ExternalNode', metadata: { name: 'vm1' }, spec: { interfaces: [{ ips: ['172.16.100.3'], name: '' }] } });
      expect(ok.status).toBe(201);
      const bad = await client.post<{ details: { causes: { field: string }[] } }>('/apis/crd.antrea.io/v1alpha1/namespaces/vm-ns/externalnodes', { apiVersion: 'crd.antrea.io/v1alpha1', kind: 'ExternalNode', metadata: { name: 'vm2' }, spec: { interfaces: [] } });
      expect(bad.status).toBe(422);
      expect(bad.body.details.causes.map((c) => c.field)).toContain('spec.interfaces');
    } finally {
      await server.stop();
    }
  });
});
