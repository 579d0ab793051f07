// CertificateSigningRequests as kube-apiserver keeps them: the server writes the requester into the
// spec, the spec is immutable, approval goes through /approval (Approved xor Denied), the signer's
// certificate through /status, and a request that is not a PEM CSR is refused naming the field.
import type { KubeApiServer } from '../src/index';
import { startTestServer, TestClient } from './support/server';

let server: KubeApiServer;
let admin: TestClient;
let node: TestClient;
const BASE = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
const PEM = Buffer.from('-----BEGIN CERTIFICATE REQUEST-----\nMIIB\n-----END CERTIFICATE REQUEST-----\n').toString('base64');
type Csr = { metadata: { name: string; resourceVersion: string }; spec: Record<string, unknown>; status?: { conditions?: { type: string; status: string; reason?: string }[]; certificate?: string } };
type Status = { reason: string; code: number; message: string; details?: { causes?: { field: string }[] } };

beforeAll(async () => {
  ({ server, client: admin } = await startTestServer({ tokens: { 'node-token': { user: 'system:node:n1', groups: ['system:nodes'] } } }));
  node = new TestClient(server, 'node-token');
  await admin.post('/apis/rbac.authorization.k8s.io/v1/clusterroles', { metadata: { name: 'csr-create' }, rules: [{ apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests'], verbs: ['create', 'get'] }] });
  await admin.post('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    metadata: { name: 'nodes-csr' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'csr-create' }, subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:nodes' }],
  });
});
afterAll(() => server.stop());

describe('CertificateSigningRequest', () => {
  it('stamps the requester into the spec, whatever the client claimed', async () => {
    const r = await node.post<Csr>(BASE, { metadata: { name: 'n1-ipsec' }, spec: { request: PEM, signerName: 'antrea.io/antrea-agent-ipsec-tunnel', usages: ['ipsec tunnel'], username: 'system:node:other', groups: ['system:masters'] } });
    expect(r.status).toBe(201);
    expect(r.body.spec).toMatchObject({ username: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'], signerName: 'antrea.io/antrea-agent-ipsec-tunnel', usages: ['ipsec tunnel'] });
    expect(r.body.status).toBeUndefined();
  });

  it('refuses a request that is missing or not a PEM certificate request, naming the field', async () => {
    const missing = await node.post<Status>(BASE, { metadata: { name: 'bad-1' }, spec: { signerName: 'x.io/y' } });
    expect(missing.status).toBe(422);
    expect(missing.body.details?.causes?.map((c) => c.field)).toEqual(['spec.request']);
    const junk = await node.post<Status>(BASE, { metadata: { name: 'bad-2' }, spec: { request: Buffer.from('hello').toString('base64'), signerName: 'x.io/y' } });
    expect(junk.status).toBe(422);
    expect(junk.body.message).toContain('PEM block type must be CERTIFICATE REQUEST');
  });

  it('keeps the spec on update, takes approval only through /approval, and the certificate through /status', async () => {
    const cur = (await admin.get<Csr>(`${BASE}/n1-ipsec`)).body;
    await admin.put(`${BASE}/n1-ipsec`, { ...cur, spec: { ...cur.spec, signerName: 'evil.io/signer' } });
    expect((await admin.get<Csr>(`${BASE}/n1-ipsec`)).body.spec.signerName).toBe('antrea.io/antrea-agent-ipsec-tunnel');
    // Approval through the main resource or /status does not approve.
    const c1 = (await admin.get<Csr>(`${BASE}/n1-ipsec`)).body;
    await admin.put(`${BASE}/n1-ipsec`, { ...c1, status: { conditions: [{ type: 'Approved', status: 'True' }] } });
    expect((await admin.get<Csr>(`${BASE}/n1-ipsec`)).body.status?.conditions ?? []).toEqual([]);
    const both = await admin.put<Status>(`${BASE}/n1-ipsec/approval`, { ...c1, status: { conditions: [{ type: 'Approved', status: 'True' }, { type: 'Denied', status: 'True' }] } });
    expect(both.status).toBe(422);
    const approved = await admin.put<Csr>(`${BASE}/n1-ipsec/approval`, { ...c1, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'AutoApproved' }] } });
    expect(approved.status).toBe(200);
    expect(approved.body.status?.conditions).toEqual([{ type: 'Approved', status: 'True', reason: 'AutoApproved' }]);
    const signed = await admin.put<Csr>(`${BASE}/n1-ipsec/status`, { ...approved.body, status: { ...approved.body.status, certificate: 'Y2VydA==' } });
    expect(signed.body.status).toMatchObject({ certificate: 'Y2VydA==', conditions: [{ type: 'Approved' }] });
    // The node may create and read, not approve its own request.
    expect((await node.put(`${BASE}/n1-ipsec/approval`, signed.body)).status).toBe(403);
  });
});
