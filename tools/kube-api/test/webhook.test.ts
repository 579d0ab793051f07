// Validating admission webhooks: the server posts an AdmissionReview to each matching webhook over
// HTTPS (verified with caBundle), refuses on denial with the webhook's status, and applies
// failurePolicy when the webhook cannot be reached or does not answer in time.
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { issueCertificate, type CertificateAndKey } from '@switchyard/pki';
import { ManualClock } from '@switchyard/runtime/testing';
import { httpsTransport, startKubeApi, type KubeApiServer } from '../src/index';
import { TestClient } from './support/server';

interface Review {
  request: { uid: string; kind: { kind: string; version: string }; resource: { resource: string }; name: string; namespace?: string; operation: string; userInfo: { username: string }; object: { metadata: { name: string } } | null; oldObject: { metadata: { name: string } } | null };
}

let server: KubeApiServer;
let c: TestClient;
let ca: CertificateAndKey;
let hook: https.Server;
let hookPort = 0;
const seen: Review[] = [];
/** What the webhook does with the next reviews: answer with a verdict, or never answer. */
let behaviour: 'allow' | 'deny' | 'hang' = 'allow';

beforeAll(async () => {
  server = await startKubeApi({ tls: false });
  c = new TestClient(server);
  ca = await issueCertificate({ commonName: 'webhook-ca', validityDays: 1, ca: true, keyUsage: ['keyCertSign'] });
  const cert = await issueCertificate({ commonName: 'hook', sans: ['hook.default.svc', '127.0.0.1'], validityDays: 1, ca: false, extendedKeyUsage: ['serverAuth'], issuer: ca });
  hook = https.createServer({ cert: cert.certPem, key: cert.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (b: Buffer) => chunks.push(b));
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Review;
      seen.push(review);
      if (behaviour === 'hang') return;
      const response = behaviour === 'allow' ? { uid: review.request.uid, allowed: true } : { uid: review.request.uid, allowed: false, status: { code: 422, message: 'spec.tier: Invalid value: "nope": tier nope does not exist' } };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response }));
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', () => r()));
  hookPort = (hook.address() as AddressInfo).port;
  await c.post('/api/v1/namespaces/default/services', { metadata: { name: 'hook' }, spec: { ports: [{ port: 443, targetPort: hookPort }] } });
  await c.post('/api/v1/namespaces/default/endpoints', { metadata: { name: 'hook' }, subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ port: hookPort }] }] });
});
afterAll(async () => {
  hook.closeAllConnections();
  await new Promise((r) => hook.close(r));
  await server.stop();
});
afterEach(async () => {
  behaviour = 'allow';
  seen.length = 0;
  await c.delete('/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/cm-check');
});

const CFG = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
const CM = '/api/v1/namespaces/default/configmaps';

function config(clientConfig: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'cm-check' },
    webhooks: [{ name: 'cm.check.test', clientConfig, rules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], operations: ['CREATE', 'UPDATE', 'DELETE'], scope: 'Namespaced' }], sideEffects: 'None', admissionReviewVersions: ['v1'], failurePolicy: 'Fail', ...extra }],
  };
}
const viaService = (): Record<string, unknown> => ({ service: { namespace: 'default', name: 'hook', path: '/validate/cm', port: 443 }, caBundle: Buffer.from(ca.certPem).toString('base64') });

test('ValidatingWebhookConfiguration is served and listed in discovery', async () => {
  const disc = await c.get<{ resources: { name: string; namespaced: boolean; kind: string }[] }>('/apis/admissionregistration.k8s.io/v1');
  expect(disc.body.resources).toContainEqual(expect.objectContaining({ name: 'validatingwebhookconfigurations', namespaced: false, kind: 'ValidatingWebhookConfiguration' }));
  expect((await c.post(CFG, config(viaService()))).status).toBe(201);
  expect((await c.get(`${CFG}/cm-check`)).status).toBe(200);
});

test('an allowed create is stored, and the review names the request', async () => {
  await c.post(CFG, config(viaService()));
  const r = await c.post(CM, { metadata: { name: 'ok' }, data: { a: 'b' } });
  expect(r.status).toBe(201);
  expect(seen).toHaveLength(1);
  const q = (seen[0] as Review).request;
  expect(q).toMatchObject({ kind: { kind: 'ConfigMap', version: 'v1' }, resource: { resource: 'configmaps' }, name: 'ok', namespace: 'default', operation: 'CREATE', userInfo: { username: 'admin' }, oldObject: null });
  expect(q.uid).toMatch(/^[0-9a-f-]{36}$/);
  expect(q.object?.metadata.name).toBe('ok');
  await c.delete(`${CM}/ok`);
});

test('a denial returns the webhook status and message, and nothing is stored', async () => {
  await c.post(CFG, config(viaService()));
  behaviour = 'deny';
  const r = await c.post<{ code: number; message: string }>(CM, { metadata: { name: 'denied' } });
  expect(r.status).toBe(422);
  expect(r.body.message).toBe('admission webhook "cm.check.test" denied the request: spec.tier: Invalid value: "nope": tier nope does not exist');
  expect((await c.get(`${CM}/denied`)).status).toBe(404);
});

test('delete sends the old object, and a denied delete keeps the object', async () => {
  await c.post(CM, { metadata: { name: 'keep' } });
  await c.post(CFG, config(viaService()));
  behaviour = 'deny';
  const r = await c.delete(`${CM}/keep`);
  expect(r.status).toBe(422);
  const q = (seen.at(-1) as Review).request;
  expect(q.operation).toBe('DELETE');
  expect(q.object).toBeNull();
  expect(q.oldObject?.metadata.name).toBe('keep');
  expect((await c.get(`${CM}/keep`)).status).toBe(200);
});

test('update through patch is reviewed with the patched object and the old one', async () => {
  await c.post(CM, { metadata: { name: 'patched' }, data: { v: '1' } });
  await c.post(CFG, config(viaService()));
  expect((await c.patch(`${CM}/patched`, { data: { v: '2' } })).status).toBe(200);
  const q = (seen.at(-1) as Review).request as Review['request'] & { object: { data: { v: string } }; oldObject: { data: { v: string } } };
  expect(q.operation).toBe('UPDATE');
  expect([q.object.data.v, q.oldObject.data.v]).toEqual(['2', '1']);
});

test('requests the rules do not select are not reviewed', async () => {
  await c.post(CFG, config(viaService()));
  await c.post('/api/v1/namespaces/default/secrets', { metadata: { name: 'not-reviewed' } });
  expect(seen).toHaveLength(0);
});

test('an unreachable webhook with failurePolicy Fail refuses, naming the webhook', async () => {
  await c.post(CFG, config({ url: 'https://127.0.0.1:1/validate', caBundle: Buffer.from(ca.certPem).toString('base64') }));
  const r = await c.post<{ message: string }>(CM, { metadata: { name: 'unreachable' } });
  expect(r.status).toBe(500);
  expect(r.body.message).toMatch(/^Internal error occurred: failed calling webhook "cm.check.test": .*ECONNREFUSED/);
  expect((await c.get(`${CM}/unreachable`)).status).toBe(404);
});

test('an unreachable webhook with failurePolicy Ignore admits', async () => {
  await c.post(CFG, config({ url: 'https://127.0.0.1:1/validate' }, { failurePolicy: 'Ignore' }));
  expect((await c.post(CM, { metadata: { name: 'ignored' } })).status).toBe(201);
  await c.delete(`${CM}/ignored`);
});

test('a Service without endpoints counts as unreachable', async () => {
  await c.post('/api/v1/namespaces/default/services', { metadata: { name: 'nobody' }, spec: { ports: [{ port: 443 }] } });
  await c.post(CFG, config({ service: { namespace: 'default', name: 'nobody' } }));
  const r = await c.post<{ message: string }>(CM, { metadata: { name: 'no-endpoints' } });
  expect(r.status).toBe(500);
  expect(r.body.message).toContain('failed calling webhook "cm.check.test": no endpoints available for service "nobody"');
});

test('a certificate the caBundle does not verify is a failure', async () => {
  const other = await issueCertificate({ commonName: 'other-ca', validityDays: 1, ca: true, keyUsage: ['keyCertSign'] });
  await c.post(CFG, config({ service: { namespace: 'default', name: 'hook', port: 443 }, caBundle: Buffer.from(other.certPem).toString('base64') }));
  const r = await c.post<{ message: string }>(CM, { metadata: { name: 'bad-ca' } });
  expect(r.status).toBe(500);
  expect(r.body.message).toMatch(/failed calling webhook "cm.check.test": .*certificate/);
});

test('a webhook that does not answer within timeoutSeconds fails the request', async () => {
  await c.post(CFG, config(viaService(), { timeoutSeconds: 1 }));
  behaviour = 'hang';
  const t0 = Date.now();
  const r = await c.post<{ message: string }>(CM, { metadata: { name: 'slow' } });
  const ms = Date.now() - t0;
  expect(r.status).toBe(500);
  expect(r.body.message).toContain('failed calling webhook "cm.check.test": context deadline exceeded');
  expect(ms).toBeGreaterThanOrEqual(900);
  expect(ms).toBeLessThan(5000);
});

test('objectSelector limits the webhook to labelled objects', async () => {
  await c.post(CFG, config(viaService(), { objectSelector: { matchLabels: { checked: 'yes' } } }));
  behaviour = 'deny';
  expect((await c.post(CM, { metadata: { name: 'unlabelled' } })).status).toBe(201);
  expect((await c.post(CM, { metadata: { name: 'labelled', labels: { checked: 'yes' } } })).status).toBe(422);
  await c.delete(`${CM}/unlabelled`);
});

test('a configuration with bad fields is refused with 422 naming each field and value', async () => {
  const bad = config({ url: 'http://127.0.0.1:8443/x', service: { namespace: 'default', name: 'hook' } }, { failurePolicy: 'Sometimes', timeoutSeconds: 60, sideEffects: 'Some', rules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], operations: ['PATCH'] }] });
  const r = await c.post<{ message: string; details: { causes: { field: string; message: string }[] } }>(CFG, bad);
  expect(r.status).toBe(422);
  const byField = Object.fromEntries(r.body.details.causes.map((x) => [x.field, x.message]));
  expect(byField).toMatchObject({
    'webhooks[0].clientConfig': 'Required value: exactly one of url or service is required',
    'webhooks[0].clientConfig.url': `Invalid value: "http://127.0.0.1:8443/x": 'https' is the only allowed URL scheme`,
    'webhooks[0].failurePolicy': 'Unsupported value: "Sometimes": supported values: "Fail", "Ignore"',
    'webhooks[0].sideEffects': 'Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
    'webhooks[0].timeoutSeconds': 'Invalid value: 60: the timeout value must be between 1 and 30 seconds',
    'webhooks[0].rules[0].operations[0]': expect.stringContaining('Unsupported value: "PATCH"'),
  });
  expect((await c.get(`${CFG}/cm-check`)).status).toBe(404);
});

test('the review deadline runs on the injected clock', async () => {
  behaviour = 'hang';
  const clock = new ManualClock();
  const pending = httpsTransport({ host: '127.0.0.1', port: hookPort, path: '/validate', ca: ca.certPem, servername: 'hook.default.svc' }, { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'u' } }, 7000, clock);
  const outcome = pending.then(() => 'answered', (e: Error) => e.message);
  await new Promise((r) => setTimeout(r, 200));
  clock.advance(6999);
  await new Promise((r) => setImmediate(r));
  expect(await Promise.race([outcome, new Promise((r) => setTimeout(() => r('still waiting'), 50))])).toBe('still waiting');
  clock.advance(1);
  expect(await outcome).toBe('context deadline exceeded (timeout 7s)');
});

test('kubectl-style tables count the webhooks of a configuration', async () => {
  await c.post(CFG, config(viaService()));
  const table = await fetch(`${server.url}${CFG}`, { headers: { authorization: `Bearer ${server.adminToken}`, accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } }).then((x) => x.json() as Promise<{ columnDefinitions: { name: string }[]; rows: { cells: unknown[] }[] }>);
  expect(table.columnDefinitions.map((d) => d.name)).toEqual(['Name', 'Webhooks', 'Age']);
  expect(table.rows[0]?.cells.slice(0, 2)).toEqual(['cm-check', 1]);
});

test('namespaceSelector limits the webhook to objects in matching namespaces', async () => {
  await c.post('/api/v1/namespaces', { metadata: { name: 'checked', labels: { webhook: 'on' } } });
  await c.post(CFG, config(viaService(), { namespaceSelector: { matchExpressions: [{ key: 'webhook', operator: 'In', values: ['on'] }] } }));
  behaviour = 'deny';
  expect((await c.post(CM, { metadata: { name: 'outside' } })).status).toBe(201);
  expect((await c.post('/api/v1/namespaces/checked/configmaps', { metadata: { name: 'inside' } })).status).toBe(422);
  await c.delete(`${CM}/outside`);
});
