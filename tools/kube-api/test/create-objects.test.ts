// createObjects: a parsed manifest of mixed kinds created in-process, existing objects skipped.
import { startKubeApi, type KubeApiServer } from '../src/index';

let server: KubeApiServer;
beforeAll(async () => {
  server = await startKubeApi({ tls: false });
});
afterAll(() => server.stop());

const get = async (path: string): Promise<{ status: number; body: { metadata?: { name?: string } } }> => {
  const r = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${server.adminToken}` } });
  return { status: r.status, body: (await r.json()) as { metadata?: { name?: string } } };
};

describe('createObjects', () => {
  const manifest = [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'agent', namespace: 'kube-system' } },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'reader' }, rules: [{ nonResourceURLs: ['/x'], verbs: ['get'] }] },
  ];
  it('creates objects of core and group kinds, namespaced and cluster-scoped', async () => {
    expect(server.createObjects(manifest)).toBe(2);
    expect((await get('/api/v1/namespaces/kube-system/serviceaccounts/agent')).body.metadata?.name).toBe('agent');
    expect((await get('/apis/rbac.authorization.k8s.io/v1/clusterroles/reader')).status).toBe(200);
  });
  it('skips objects that exist, and names an unserved kind', () => {
    expect(server.createObjects(manifest)).toBe(0);
    expect(() => server.createObjects([{ apiVersion: 'example.io/v1', kind: 'Nope', metadata: { name: 'n' } }])).toThrow(/does not serve kind Nope in example.io\/v1/);
  });
});
