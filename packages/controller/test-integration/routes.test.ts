// The controller's HTTP routes (find-my-way): what each path answers to which method, with and
// without credentials. Costs about 1 s (one server, one CA).
import https from 'node:https';
import { ControlplaneHub } from '../src/hub';
import { createPki, type ControllerPki } from '../src/pki';
import { CONTROLPLANE_GROUP, CONTROLPLANE_VERSION, ControlplaneServer } from '../src/server';
import type { RequestAuth } from '@switchyard/kube';

// `Bearer admin` is a user allowed everything; no header is anonymous.
const auth: RequestAuth = {
  authenticate: async (req) => (req.headers.authorization === 'Bearer admin' ? { username: 'admin', groups: ['system:masters'] } : undefined),
  authorize: async () => true,
};

let pki: ControllerPki;
let server: ControlplaneServer;
let port: number;

beforeAll(async () => {
  const hub = new ControlplaneHub({ bookmarkIntervalMs: 0 });
  hub.markSynced();
  pki = await createPki(['localhost', '127.0.0.1']);
  server = new ControlplaneServer({ hub, auth, tls: { certPem: pki.certPem, keyPem: pki.keyPem }, host: '127.0.0.1', port: 0, health: () => ({ ok: true, parts: [{ name: 'policy', ok: true, detail: 'synced' }] }) });
  port = await server.listen();
});
afterAll(() => server.close());

function call(method: string, path: string, token?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port, path, method, ca: pki.caPem, headers: token ? { authorization: `Bearer ${token}` } : {} }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const base = `/apis/${CONTROLPLANE_GROUP}/${CONTROLPLANE_VERSION}`;

test.each([
  ['GET', '/healthz', undefined, 200],
  ['GET', '/readyz/', undefined, 200],
  ['GET', '/livez', undefined, 200],
  ['GET', '/healthz?verbose', undefined, 401],
  ['GET', '/apis', undefined, 401],
  ['GET', '/apis', 'admin', 200],
  ['GET', `${base}/`, 'admin', 200],
  ['GET', `${base}/networkpolicies`, 'admin', 200],
  ['GET', `${base}/networkpolicies/nope`, 'admin', 404],
  ['GET', `${base}/nosuchresource`, 'admin', 404],
  ['GET', `${base}/nosuchresource?watch=true`, 'admin', 404],
  ['GET', `${base}/controllerinfo`, 'admin', 200],
  ['DELETE', `${base}/networkpolicies`, 'admin', 405],
  ['POST', '/apis', 'admin', 405],
  ['POST', '/apis', undefined, 401],
  ['GET', '/no/such/path', 'admin', 404],
  ['POST', '/validate/tier', undefined, 404],
] as const)('%s %s (token %s) answers %i', async (method, path, token, status) => {
  expect((await call(method, path, token)).status).toBe(status);
});

test('the verbose health names each part, for a caller with credentials', async () => {
  const r = await call('GET', '/healthz?verbose', 'admin');
  expect(JSON.parse(r.body)).toEqual({ status: 'ok', parts: [{ name: 'policy', ok: true, detail: 'synced' }] });
});

test('a wrong method names the method and the path', async () => {
  const r = await call('PUT', `${base}/addressgroups/`, 'admin');
  expect(JSON.parse(r.body)).toMatchObject({ kind: 'Status', code: 405, reason: 'MethodNotAllowed', message: `PUT not allowed on ${base}/addressgroups` });
});
