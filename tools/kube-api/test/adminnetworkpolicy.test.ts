// AdminNetworkPolicies are validated at create and update with the policy compiler's checks,
// standing in for their CRDs' CEL rules: 422 naming each field and value, nothing stored.
import { loadCrds } from '@switchyard/apis';
import { startKubeApi, type KubeApiServer, type KubeObject } from '../src/index';
import { TestClient } from './support/server';

let server: KubeApiServer;
let c: TestClient;
beforeAll(async () => {
  server = await startKubeApi({ tls: false, crds: loadCrds() as unknown as KubeObject[] });
  c = new TestClient(server);
});
afterAll(() => server.stop());

const ANP = '/apis/policy.networking.k8s.io/v1alpha1/adminnetworkpolicies';
const BANP = '/apis/policy.networking.k8s.io/v1alpha1/baselineadminnetworkpolicies';
const subject = { namespaces: { matchLabels: { team: 'a' } } };
interface Status {
  message: string;
  details: { causes: { field: string; message: string }[] };
}

test('a valid AdminNetworkPolicy is created', async () => {
  const r = await c.post(ANP, { apiVersion: 'policy.networking.k8s.io/v1alpha1', kind: 'AdminNetworkPolicy', metadata: { name: 'ok' }, spec: { priority: 10, subject, egress: [{ name: 'dns', action: 'Allow', to: [{ networks: ['10.0.0.0/8'] }] }] } });
  expect(r.status).toBe(201);
});

test('duplicate rule names and a port range ending below its start are refused naming the fields and values', async () => {
  const r = await c.post<Status>(ANP, { apiVersion: 'policy.networking.k8s.io/v1alpha1', kind: 'AdminNetworkPolicy', metadata: { name: 'bad' }, spec: { priority: 10, subject, egress: [{ name: 'r', action: 'Allow', to: [{ networks: ['10.0.0.0/8'] }], ports: [{ portRange: { protocol: 'TCP', start: 90, end: 80 } }] }, { name: 'r', action: 'Deny', to: [{ networks: ['10.0.0.0/8'] }] }] } });
  expect(r.status).toBe(422);
  expect(r.body.message).toContain('AdminNetworkPolicy.policy.networking.k8s.io "bad" is invalid');
  const byField = Object.fromEntries(r.body.details.causes.map((x) => [x.field, x.message]));
  expect(byField['spec.egress[0].ports[0].portRange.end']).toContain('Invalid value: 80: must be greater than or equal to start');
  expect(byField['spec.egress[1].name']).toContain('Invalid value: "r": duplicate rule name');
  expect((await c.get(`${ANP}/bad`)).status).toBe(404);
});

test('a BaselineAdminNetworkPolicy not named default, or with duplicate rule names, is refused', async () => {
  const rule = { name: 'same', action: 'Deny', from: [{ namespaces: {} }] };
  const r = await c.post<Status>(BANP, { apiVersion: 'policy.networking.k8s.io/v1alpha1', kind: 'BaselineAdminNetworkPolicy', metadata: { name: 'other' }, spec: { subject, ingress: [rule, rule] } });
  expect(r.status).toBe(422);
  const byField = Object.fromEntries(r.body.details.causes.map((x) => [x.field, x.message]));
  expect(byField['metadata.name']).toContain('Invalid value: "other": BaselineAdminNetworkPolicy must be named default');
  expect(byField['spec.ingress[1].name']).toContain('Invalid value: "same": duplicate rule name');
});
