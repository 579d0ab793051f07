// The informer and client against the embedded Kubernetes API server (real HTTP + TLS, list,
// watch with resourceVersion, field and label selectors), not against a fake.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { startKubeApi, type KubeApiServer } from '@switchyard/kube-api';
import { Informer, KubeConfigClient, KubeRequestError, type InformerEvent } from '../src';

let api: KubeApiServer;
let kube: KubeConfigClient;
let dir: string;

beforeAll(async () => {
  api = await startKubeApi({});
  dir = mkdtempSync(join(tmpdir(), 'sy-kube-'));
  const kc = new KubeConfig();
  kc.loadFromFile(api.writeKubeconfig(join(dir, 'kubeconfig')));
  kube = new KubeConfigClient(kc);
});
afterAll(async () => {
  await api?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const waitUntil = async (what: string, ok: () => boolean): Promise<void> => {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 25));
  if (!ok()) throw new Error(`timed out waiting for ${what}`);
};
const pod = (name: string, nodeName: string, labels: Record<string, string> = {}) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels }, spec: { nodeName, containers: [{ name: 'c', image: 'x' }] },
});

describe('Informer against the API server', () => {
  it('lists, then follows creates, updates and deletes, narrowed by field and label selectors', async () => {
    await kube.request('POST', '/api/v1/namespaces/default/pods', pod('before', 'node1', { app: 'web' }));
    await kube.request('POST', '/api/v1/namespaces/default/pods', pod('other-node', 'node2', { app: 'web' }));
    const events: InformerEvent[] = [];
    const inf = new Informer(kube, { group: '', version: 'v1', plural: 'pods', kind: 'Pod', namespaced: true }, (e) => events.push(e), {
      fieldSelector: 'spec.nodeName=node1',
      labelSelector: 'app=web',
    });
    inf.start();
    await inf.synced;
    expect([...inf.cache.keys()]).toEqual(['default/before']);
    await kube.request('POST', '/api/v1/namespaces/default/pods', pod('after', 'node1', { app: 'web' }));
    await kube.request('POST', '/api/v1/namespaces/default/pods', pod('unlabelled', 'node1'));
    await waitUntil('after', () => inf.cache.has('default/after'));
    await kube.request('PATCH', '/api/v1/namespaces/default/pods/after', { metadata: { annotations: { a: 'b' } } }, 'application/merge-patch+json');
    await waitUntil('modified', () => events.some((e) => e.type === 'MODIFIED' && e.object.metadata.name === 'after'));
    await kube.request('DELETE', '/api/v1/namespaces/default/pods/before');
    await waitUntil('deleted', () => !inf.cache.has('default/before'));
    expect(events.map((e) => `${e.type} ${e.object.metadata.name ?? ''}`)).toEqual(['ADDED before', 'ADDED after', 'MODIFIED after', 'DELETED before']);
    expect(inf.cache.has('default/unlabelled')).toBe(false);
    expect(inf.cache.has('default/other-node')).toBe(false);
    await inf.stop();
  });

  it('a request the server refuses is a KubeRequestError with the status and the server message', async () => {
    const err = await kube.request('GET', '/api/v1/namespaces/default/pods/nobody').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeRequestError);
    expect((err as KubeRequestError).status).toBe(404);
    expect((err as KubeRequestError).message).toContain('nobody');
  });
});
