// The agent's kubeconfig resolved by client-node in the built resolver child (dist/kube-config-resolve.js),
// against a real API server: TLS and a token reach it, and an exec credential that changes is
// picked up when the resolution is refreshed.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import { startKubeApi, type KubeApiServer } from '@switchyard/kube-api';
import { KubeConfigClient } from '@switchyard/kube';
import { ManualClock } from '@switchyard/runtime/testing';
import { childResolver, ResolvedKubeConfig } from '../src/kube-config';
import { ensurePluginBuilt, KUBE_CONFIG_RESOLVER } from './helpers';

let api: KubeApiServer;
let dir: string;
const resolver = childResolver(KUBE_CONFIG_RESOLVER);

beforeAll(async () => {
  await ensurePluginBuilt();
  api = await startKubeApi({});
  dir = mkdtempSync(join(tmpdir(), 'sy-kube-config-'));
});
afterAll(async () => {
  await api?.stop();
  rmSync(dir, { recursive: true, force: true });
});

it('reaches the API server with the CA and token client-node read from the kubeconfig', async () => {
  const kc = (await ResolvedKubeConfig.load({ path: api.kubeconfigPath, resolver }))!;
  const kube = new KubeConfigClient(kc);
  const list = await kube.request<{ kind: string }>('GET', '/api/v1/namespaces');
  expect(list.kind).toBe('NamespaceList');
});

it('runs the exec credential plugin again once its token may have changed, and uses the new token', async () => {
  // The admin kubeconfig's cluster, with a user whose token comes from an exec plugin reading a file.
  const admin = YAML.parse(readFileSync(api.kubeconfigPath, 'utf8')) as { clusters: unknown[] };
  const tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, 'not-a-valid-token');
  const credential = `printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s"}}' "$(cat ${tokenFile})"`;
  const path = join(dir, 'kubeconfig');
  writeFileSync(path, YAML.stringify({
    apiVersion: 'v1', kind: 'Config', clusters: admin.clusters, 'current-context': 'exec',
    contexts: [{ name: 'exec', context: { cluster: (admin.clusters[0] as { name: string }).name, user: 'exec' } }],
    users: [{ name: 'exec', user: { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: '/bin/sh', args: ['-c', credential], interactiveMode: 'Never' } } }],
  }));
  const clock = new ManualClock(0);
  const kc = (await ResolvedKubeConfig.load({ path, resolver, clock }))!;
  const kube = new KubeConfigClient(kc);
  await expect(kube.request('GET', '/api/v1/namespaces')).rejects.toMatchObject({ status: 401 });
  writeFileSync(tokenFile, api.adminToken);
  // Until the resolution is stale the old token stays.
  await expect(kube.request('GET', '/api/v1/namespaces')).rejects.toMatchObject({ status: 401 });
  clock.advance(60_000);
  expect((await kube.request<{ kind: string }>('GET', '/api/v1/namespaces')).kind).toBe('NamespaceList');
});
