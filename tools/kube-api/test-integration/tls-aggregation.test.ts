// HTTPS with the generated CA, kubeconfig for client-node, and API aggregation to an HTTPS backend.
import { CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import https from 'node:https';
import { mkdtempSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { dirname, join } from 'node:path';
import YAML from 'yaml';
import { startKubeApi, type KubeApiServer } from '../src/index';
import { ensurePki } from '../src/tls';
import { Kubectl } from '../src/testing';

let server: KubeApiServer;
let backend: https.Server;
const seen: { path: string; user: string | undefined; groups: string | string[] | undefined; clientCN: string | undefined; auth: string | undefined }[] = [];

beforeAll(async () => {
  server = await startKubeApi();
  const pki = await ensurePki(undefined, []);
  // The backend trusts the API server's CA for the front-proxy client certificate.
  backend = https.createServer({ cert: pki.certPem, key: pki.keyPem, ca: server.caPem, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    const peer = (req.socket as TLSSocket).getPeerCertificate();
    seen.push({ path: req.url ?? '', user: req.headers['x-remote-user'] as string | undefined, groups: req.headers['x-remote-group'], clientCN: (req.socket as TLSSocket).authorized ? String(peer.subject?.CN) : undefined, auth: req.headers.authorization });
    res.setHeader('content-type', 'application/json');
    if (req.url?.startsWith('/apis/stats.example.io/v1alpha1/things')) {
      res.end(JSON.stringify({ apiVersion: 'stats.example.io/v1alpha1', kind: 'ThingList', metadata: {}, items: [{ apiVersion: 'stats.example.io/v1alpha1', kind: 'Thing', metadata: { name: 'one' } }] }));
    } else if (req.url?.startsWith('/apis/stats.example.io/v1alpha1')) {
      res.end(JSON.stringify({ kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'stats.example.io/v1alpha1', resources: [{ name: 'things', singularName: 'thing', namespaced: false, kind: 'Thing', verbs: ['get', 'list'] }] }));
    } else {
      res.statusCode = 404;
      res.end('{}');
    }
  });
  await new Promise<void>((r) => backend.listen(0, '127.0.0.1', () => r()));
  const port = (backend.address() as AddressInfo).port;
  const k = new Kubectl(server.kubeconfigPath);
  await k.ok(['apply', '-f', '-'], [
    YAML.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'stats', namespace: 'kube-system' }, spec: { ports: [{ port: 443, targetPort: port }] } }),
    YAML.stringify({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'stats', namespace: 'kube-system' }, subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ port }] }] }),
    YAML.stringify({
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: 'v1alpha1.stats.example.io' },
      spec: { group: 'stats.example.io', version: 'v1alpha1', service: { namespace: 'kube-system', name: 'stats', port: 443 }, caBundle: Buffer.from(pki.caPem).toString('base64'), groupPriorityMinimum: 100, versionPriority: 100 },
    }),
  ].join('---\n'));
});
afterAll(async () => {
  await server.stop();
  await new Promise((r) => backend.close(r));
});

describe('TLS and kubeconfig', () => {
  it('serves HTTPS with a certificate the written kubeconfig verifies', async () => {
    const cfg = YAML.parse(readFileSync(server.kubeconfigPath, 'utf8')) as { clusters: { cluster: { server: string; 'certificate-authority-data': string } }[] };
    expect(cfg.clusters[0]?.cluster.server).toBe(server.url);
    expect(Buffer.from(cfg.clusters[0]?.cluster['certificate-authority-data'] ?? '', 'base64').toString()).toBe(server.caPem);
    const kc = new KubeConfig();
    kc.loadFromFile(server.kubeconfigPath);
    const ns = await kc.makeApiClient(CoreV1Api).listNamespace();
    expect(ns.items.map((n) => n.metadata?.name)).toContain('kube-system');
  });

  it('is refused by a client that does not trust the CA', async () => {
    const path = join(mkdtempSync(join(dirname(server.kubeconfigPath), 'untrusting-')), 'untrusting');
    server.writeKubeconfig(path);
    const kc = new KubeConfig();
    kc.loadFromFile(path);
    const other = await ensurePki(undefined, []);
    kc.clusters[0] = { ...kc.clusters[0]!, caData: Buffer.from(other.caPem).toString('base64') };
    await expect(kc.makeApiClient(CoreV1Api).listNamespace()).rejects.toThrow();
  });
});

describe('API aggregation', () => {
  it('lists the aggregated group in discovery and proxies its requests with the caller identity', async () => {
    const k = new Kubectl(server.kubeconfigPath);
    const groups = JSON.parse(await k.ok(['get', '--raw', '/apis'])) as { groups: { name: string }[] };
    expect(groups.groups.map((g) => g.name)).toContain('stats.example.io');
    expect(await k.ok(['api-resources', '--api-group=stats.example.io', '-o', 'name'])).toBe('things.stats.example.io\n');
    const list = JSON.parse(await k.ok(['get', '--raw', '/apis/stats.example.io/v1alpha1/things'])) as { items: { metadata: { name: string } }[] };
    expect(list.items[0]?.metadata.name).toBe('one');
    const last = seen[seen.length - 1];
    expect(last).toMatchObject({ path: '/apis/stats.example.io/v1alpha1/things', user: 'admin', clientCN: 'front-proxy-client', auth: undefined });
    expect(last?.groups).toEqual(expect.stringContaining('system:masters'));
  });

  it('reaches the aggregated API through client-node', async () => {
    const kc = new KubeConfig();
    kc.loadFromFile(server.kubeconfigPath);
    const r = (await kc.makeApiClient(CustomObjectsApi).listClusterCustomObject({ group: 'stats.example.io', version: 'v1alpha1', plural: 'things' })) as { items: unknown[] };
    expect(r.items).toHaveLength(1);
  });

  it('publishes kube-system/extension-apiserver-authentication with its CA for the servers it proxies to', async () => {
    const k = new Kubectl(server.kubeconfigPath);
    const cm = JSON.parse(await k.ok(['get', 'configmap', '-n', 'kube-system', 'extension-apiserver-authentication', '-o', 'json'])) as { data: Record<string, string> };
    expect(cm.data['client-ca-file']).toBe(server.caPem);
    expect(cm.data['requestheader-client-ca-file']).toBe(server.caPem);
    expect(JSON.parse(cm.data['requestheader-allowed-names'] ?? '[]')).toEqual(['front-proxy-client']);
    expect(JSON.parse(cm.data['requestheader-username-headers'] ?? '[]')).toEqual(['X-Remote-User']);
  });

  it('reports the APIService Available', async () => {
    const k = new Kubectl(server.kubeconfigPath);
    const s = JSON.parse(await k.ok(['get', 'apiservice', 'v1alpha1.stats.example.io', '-o', 'json'])) as { status: { conditions: { type: string; status: string }[] } };
    expect(s.status.conditions).toEqual([expect.objectContaining({ type: 'Available', status: 'True' })]);
  });
});
