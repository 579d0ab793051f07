// NetworkPolicies are validated at create and update as kube-apiserver does: an invalid one is a
// 422 naming each field and value, and nothing is stored.
import { startKubeApi, type KubeApiServer } from '../src/index';
import { TestClient } from './support/server';

let server: KubeApiServer;
let c: TestClient;
beforeAll(async () => {
  server = await startKubeApi({ tls: false });
  c = new TestClient(server);
});
afterAll(() => server.stop());

const PATH = '/apis/networking.k8s.io/v1/namespaces/default/networkpolicies';
const np = (name: string, spec: Record<string, unknown>): Record<string, unknown> => ({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name }, spec });

interface Status {
  message: string;
  reason: string;
  details: { causes: { field: string; reason: string; message: string }[] };
}

test('a valid policy is created', async () => {
  const r = await c.post(PATH, np('ok', { podSelector: {}, ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.0/16', except: ['10.0.1.0/24'] } }], ports: [{ port: 80 }] }] }));
  expect(r.status).toBe(201);
});

test.each([
  ['an except outside its cidr', { podSelector: {}, ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.0/16', except: ['192.168.0.0/24'] } }] }] }, 'spec.ingress[0].from[0].ipBlock.except[0]', '192.168.0.0/24'],
  ['a port out of range', { podSelector: {}, egress: [{ ports: [{ port: 70000 }] }] }, 'spec.egress[0].ports[0].port', '70000'],
  ['a bad selector operator', { podSelector: { matchExpressions: [{ key: 'a', operator: 'Near', values: ['b'] }] } }, 'spec.podSelector.matchExpressions[0].operator', 'Near'],
  ['a bad cidr', { podSelector: {}, ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.300/8' } }] }] }, 'spec.ingress[0].from[0].ipBlock.cidr', '10.0.0.300/8'],
])('%s is refused with 422 naming the field and value, and not stored', async (_what, spec, field, value) => {
  const r = await c.post<Status>(PATH, np('bad', spec));
  expect(r.status).toBe(422);
  expect(r.body.reason).toBe('Invalid');
  expect(r.body.message).toContain('NetworkPolicy.networking.k8s.io "bad" is invalid');
  const cause = r.body.details.causes.find((x) => x.field === field);
  expect(cause?.message).toContain(value);
  expect((await c.get(`${PATH}/bad`)).status).toBe(404);
});

test('an update that breaks a stored policy is refused; the stored one stays', async () => {
  const cur = await c.get<Record<string, unknown>>(`${PATH}/ok`);
  const r = await c.put(`${PATH}/ok`, { ...cur.body, spec: { podSelector: {}, ingress: [{ ports: [{ port: 80, endPort: 70 }] }] } });
  expect(r.status).toBe(422);
  const after = await c.get<{ spec: { ingress: { ports?: unknown }[] } }>(`${PATH}/ok`);
  expect(after.body.spec.ingress[0]?.ports).toEqual([{ port: 80 }]);
});
