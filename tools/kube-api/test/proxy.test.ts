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
  it('forwards to the node InternalIP and the kubelet port it registered, with the caller identity', async () => {
    const node = await c.post('/api/v1/nodes', { metadata: { name: 'n1' } });
    expect(node.status).toBe(201);
    await c.patch('/api/v1/nodes/n1/status', { status: { addresses: [{ type: 'Hostname', address: 'n1' }, { type: 'InternalIP', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: backendPort } } } });
    const r = await fetch(`${server.url}/api/v1/nodes/http:n1/proxy/agentinfo?x=1`, { headers: { authorization: `Bearer ${server.adminToken}` } });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-backend')).toBe('yes');
    expect(await r.text()).toBe('hello from /agentinfo?x=1');
    const last = seen[seen.length - 1];
    expect(last).toMatchObject({ url: '/agentinfo?x=1', user: 'admin', auth: undefined });
  });

  it('answers 503 when the node endpoint cannot be reached', async () => {
    await c.post('/api/v1/nodes', { metadata: { name: 'n2' } });
    await c.patch('/api/v1/nodes/n2/status', { status: { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: 1 } } } });
    const r = await c.get<{ reason: string }>('/api/v1/nodes/http:n2/proxy/x');
    expect(r.status).toBe(503);
    expect(r.body.reason).toBe('ServiceUnavailable');
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
