import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KubeApiServer } from '../src/index';
import { startTestServer, type TestClient } from './support/server';

let server: KubeApiServer;
let c: TestClient;
let backend: http.Server;
let backendPort: number;
const seen: { url: string; user: string | undefined; group: string | string[] | undefined; auth: string | undefined; body: string }[] = [];

beforeAll(async () => {
  ({ server, client: c } = await startTestServer());
  backend = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      seen.push({ url: req.url ?? '', user: req.headers['x-remote-user'] as string | undefined, group: req.headers['x-remote-group'], auth: req.headers.authorization, body });
      const asked = /^\/status\/(\d{3})/.exec(req.url ?? '');
      if (asked) {
        res.writeHead(Number(asked[1]), { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: `asked for ${asked[1] as string}`, url: req.url }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain', 'x-backend': 'yes' });
      res.end(`hello from ${req.url ?? ''}`);
    });
  });
  await new Promise<void>((r) => backend.listen(0, '127.0.0.1', () => r()));
  backendPort = (backend.address() as AddressInfo).port;
});
afterAll(async () => {
  await server.stop();
  await new Promise((r) => backend.close(r));
});

describe('node proxy', () => {
  const get = (path: string, token = server.adminToken): Promise<Response> => fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}` } });

  it('forwards to the node InternalIP and the kubelet port it registered, with the caller identity', async () => {
    const node = await c.post('/api/v1/nodes', { metadata: { name: 'n1' } });
    expect(node.status).toBe(201);
    await c.patch('/api/v1/nodes/n1/status', { status: { addresses: [{ type: 'Hostname', address: 'n1' }, { type: 'InternalIP', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: backendPort } } } });
    const r = await get('/api/v1/nodes/http:n1/proxy/agentinfo?x=1');
    expect(r.status).toBe(200);
    expect(r.headers.get('x-backend')).toBe('yes');
    expect(await r.text()).toBe('hello from /agentinfo?x=1');
    const last = seen[seen.length - 1];
    expect(last).toMatchObject({ url: '/agentinfo?x=1', user: 'admin', auth: undefined });
  });

  it('reaches another port of the node over plain HTTP when the URL names it without a scheme, query, status and content-type passed through', async () => {
    await c.post('/api/v1/nodes', { metadata: { name: 'n3' } });
    // The kubelet port is elsewhere: name:port addresses a node daemon (an agent API), not the kubelet.
    await c.patch('/api/v1/nodes/n3/status', { status: { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: 1 } } } });
    const r = await get(`/api/v1/nodes/n3:${backendPort}/proxy/status/404?table=IngressRule&pod=x%2Fweb`);
    expect(r.status).toBe(404);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(await r.json()).toEqual({ error: 'asked for 404', url: '/status/404?table=IngressRule&pod=x%2Fweb' });
  });

  it('dials the host nodeProxyHost names for the node instead of its address', async () => {
    const { server: s2, client: c2 } = await startTestServer({ nodeProxyHost: (n) => (n === 'netns-node' ? '127.0.0.1' : undefined) });
    try {
      // 192.0.2.0/24 is TEST-NET-1, never routed: only the override reaches the backend.
      const nodes: [string, string][] = [
        ['netns-node', '192.0.2.7'],
        ['plain-node', '127.0.0.1'],
      ];
      for (const [name, address] of nodes) {
        await c2.post('/api/v1/nodes', { metadata: { name } });
        await c2.patch(`/api/v1/nodes/${name}/status`, { status: { addresses: [{ type: 'InternalIP', address }] } });
      }
      const via = (node: string): Promise<string> => fetch(`${s2.url}/api/v1/nodes/${node}:${backendPort}/proxy/podinterfaces`, { headers: { authorization: `Bearer ${s2.adminToken}` } }).then((r) => r.text());
      expect(await via('netns-node')).toBe('hello from /podinterfaces');
      // No override for this node: its InternalIP is dialled.
      expect(await via('plain-node')).toBe('hello from /podinterfaces');
    } finally {
      await s2.stop();
    }
  });

  it('answers 503 when the node endpoint cannot be reached', async () => {
    await c.post('/api/v1/nodes', { metadata: { name: 'n2' } });
    await c.patch('/api/v1/nodes/n2/status', { status: { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: 1 } } } });
    const r = await c.get<{ kind: string; reason: string; code: number; message: string }>('/api/v1/nodes/http:n2/proxy/x');
    expect(r.status).toBe(503);
    expect(r.body).toMatchObject({ kind: 'Status', reason: 'ServiceUnavailable', code: 503 });
    expect(r.body.message).toContain('error trying to reach service');
  });

  it('answers 503 with a Status when the node has no address, and 404 (as kube-apiserver) when there is no such node', async () => {
    await c.post('/api/v1/nodes', { metadata: { name: 'bare' } });
    const bare = await c.get<{ kind: string; reason: string; message: string }>('/api/v1/nodes/bare:10350/proxy/agentinfo');
    expect(bare.status).toBe(503);
    expect(bare.body).toMatchObject({ kind: 'Status', reason: 'ServiceUnavailable', message: 'no preferred addresses found; known addresses: []' });
    const none = await c.get<{ kind: string; reason: string; message: string }>('/api/v1/nodes/ghost:10350/proxy/agentinfo');
    expect(none.status).toBe(404);
    expect(none.body).toMatchObject({ kind: 'Status', reason: 'NotFound', message: 'nodes "ghost" not found' });
    const bad = await c.get<{ reason: string }>('/api/v1/nodes/n1:port/proxy/agentinfo');
    expect(bad.status).toBe(400);
  });

  it('needs get on nodes/proxy: 403 without it, forwarded once a ClusterRole grants it', async () => {
    const token = server.createServiceAccountToken('default', 'node-reader');
    const denied = await get(`/api/v1/nodes/n3:${backendPort}/proxy/agentinfo`, token);
    expect(denied.status).toBe(403);
    expect(((await denied.json()) as { message: string }).message).toContain('cannot get resource "nodes/proxy"');
    // get on nodes alone is not enough: the subresource is authorized separately.
    await c.post('/apis/rbac.authorization.k8s.io/v1/clusterroles', { metadata: { name: 'node-get' }, rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get'] }] });
    await c.post('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', { metadata: { name: 'node-get' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'node-get' }, subjects: [{ kind: 'ServiceAccount', namespace: 'default', name: 'node-reader' }] });
    expect((await get(`/api/v1/nodes/n3:${backendPort}/proxy/agentinfo`, token)).status).toBe(403);
    await c.post('/apis/rbac.authorization.k8s.io/v1/clusterroles', { metadata: { name: 'node-proxy' }, rules: [{ apiGroups: [''], resources: ['nodes/proxy'], verbs: ['get'] }] });
    await c.post('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', { metadata: { name: 'node-proxy' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'node-proxy' }, subjects: [{ kind: 'ServiceAccount', namespace: 'default', name: 'node-reader' }] });
    const allowed = await get(`/api/v1/nodes/n3:${backendPort}/proxy/agentinfo`, token);
    expect(allowed.status).toBe(200);
    expect(await allowed.text()).toBe('hello from /agentinfo');
    expect(seen[seen.length - 1]?.user).toBe('system:serviceaccount:default:node-reader');
  });
});

describe('service proxy', () => {
  it('forwards to a ready endpoint of the named port, request bodies included', async () => {
    await c.post('/api/v1/namespaces/default/services', { metadata: { name: 'backend' }, spec: { ports: [{ name: 'web', port: 80, targetPort: 8080 }] } });
    await c.post('/api/v1/namespaces/default/endpoints', { metadata: { name: 'backend' }, subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'web', port: backendPort }] }] });
    const r = await fetch(`${server.url}/api/v1/namespaces/default/services/backend:web/proxy/submit`, { method: 'POST', body: 'payload', headers: { authorization: `Bearer ${server.adminToken}` } });
    expect(await r.text()).toBe('hello from /submit');
    expect(seen[seen.length - 1]?.body).toBe('payload');
  });

  it('is subject to RBAC on services/proxy', async () => {
    const token = server.createServiceAccountToken('default', 'nobody');
    const r = await fetch(`${server.url}/api/v1/namespaces/default/services/backend:web/proxy/`, { headers: { authorization: `Bearer ${token}` } });
    expect(r.status).toBe(403);
  });
});
