import type { KubeApiServer } from '../src/index';
import { startTestServer, TestClient } from './support/server';
import { ManualClock } from '@switchyard/runtime/testing';

let server: KubeApiServer;
let admin: TestClient;
let narrow: TestClient;
type Status = { kind: string; reason: string; code: number; message: string };
type SAR = { status: { allowed: boolean; reason?: string } };

beforeAll(async () => {
  ({ server, client: admin } = await startTestServer({ tokens: { 'static-token': { user: 'alice', groups: ['devs'] } } }));
  await admin.post('/api/v1/namespaces', { metadata: { name: 'team' } });
  await admin.post('/apis/rbac.authorization.k8s.io/v1/namespaces/team/roles', {
    metadata: { name: 'pod-reader' },
    rules: [
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['configmaps'], resourceNames: ['allowed'], verbs: ['get', 'update'] },
      { apiGroups: [''], resources: ['pods/status'], verbs: ['patch'] },
    ],
  });
  await admin.post('/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings', {
    metadata: { name: 'robot-reads' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-reader' },
    subjects: [{ kind: 'ServiceAccount', name: 'robot' }],
  });
  narrow = new TestClient(server, server.createServiceAccountToken('team', 'robot'));
});
afterAll(() => server.stop());

describe('RBAC', () => {
  it('lets a narrow Role do what it grants and nothing else', async () => {
    expect((await narrow.get('/api/v1/namespaces/team/pods')).status).toBe(200);
    await admin.post('/api/v1/namespaces/team/configmaps', { metadata: { name: 'allowed' } });
    await admin.post('/api/v1/namespaces/team/configmaps', { metadata: { name: 'secret-ish' } });
    expect((await narrow.get('/api/v1/namespaces/team/configmaps/allowed')).status).toBe(200);

    const other = await narrow.get<Status>('/api/v1/namespaces/team/configmaps/secret-ish');
    expect(other.status).toBe(403);
    expect(other.body).toMatchObject({ kind: 'Status', reason: 'Forbidden', code: 403 });
    expect(other.body.message).toBe('configmaps "secret-ish" is forbidden: User "system:serviceaccount:team:robot" cannot get resource "configmaps" in API group "" in the namespace "team"');

    const list = await narrow.get<Status>('/api/v1/namespaces/team/configmaps');
    expect(list.status).toBe(403);
    const otherNs = await narrow.get<Status>('/api/v1/namespaces/default/pods');
    expect(otherNs.status).toBe(403);
    const cluster = await narrow.get<Status>('/api/v1/pods');
    expect(cluster.body.message).toContain('at the cluster scope');
    const create = await narrow.post<Status>('/api/v1/namespaces/team/pods', { metadata: { name: 'p' } });
    expect(create.status).toBe(403);
    const crds = await narrow.get<Status>('/apis/apiextensions.k8s.io/v1/customresourcedefinitions');
    expect(crds.body.message).toContain('in API group "apiextensions.k8s.io"');
  });

  it('checks subresources separately from their resource', async () => {
    await admin.post('/api/v1/namespaces/team/pods', { metadata: { name: 'p1' }, spec: { containers: [] } });
    expect((await narrow.patch('/api/v1/namespaces/team/pods/p1/status', { status: { phase: 'Running' } })).status).toBe(200);
    expect((await narrow.patch('/api/v1/namespaces/team/pods/p1', { metadata: { labels: { a: 'b' } } })).status).toBe(403);
  });

  it('lets every authenticated user read discovery but not arbitrary paths', async () => {
    expect((await narrow.get('/api')).status).toBe(200);
    expect((await narrow.get('/apis')).status).toBe(200);
    const bogus = await narrow.get<Status>('/metrics');
    expect(bogus.status).toBe(403);
    expect(bogus.body.message).toBe('forbidden: User "system:serviceaccount:team:robot" cannot get path "/metrics"');
  });

  it('grants through ClusterRoleBindings to groups and static-token users', async () => {
    const alice = new TestClient(server, 'static-token');
    expect((await alice.get('/api/v1/nodes')).status).toBe(403);
    await admin.post('/apis/rbac.authorization.k8s.io/v1/clusterroles', { metadata: { name: 'node-reader' }, rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['list'] }] });
    await admin.post('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      metadata: { name: 'devs-read-nodes' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'node-reader' },
      subjects: [{ kind: 'Group', name: 'devs', apiGroup: 'rbac.authorization.k8s.io' }],
    });
    expect((await alice.get('/api/v1/nodes')).status).toBe(200);
  });

  it('rejects unknown tokens with 401', async () => {
    const r = await new TestClient(server, 'nope').get<Status>('/api/v1/pods');
    expect(r.status).toBe(401);
  });
});

describe('review APIs', () => {
  it('answers SubjectAccessReview for resource and non-resource attributes', async () => {
    const allow = await admin.post<SAR>('/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: { user: 'system:serviceaccount:team:robot', groups: ['system:serviceaccounts'], resourceAttributes: { namespace: 'team', verb: 'list', resource: 'pods' } },
    });
    expect(allow.status).toBe(201);
    expect(allow.body.status.allowed).toBe(true);
    expect(allow.body.status.reason).toContain('RoleBinding "robot-reads/team"');
    const deny = await admin.post<SAR>('/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      spec: { user: 'system:serviceaccount:team:robot', resourceAttributes: { namespace: 'team', verb: 'delete', resource: 'pods' } },
    });
    expect(deny.body.status).toEqual({ allowed: false });
    const nonResource = await admin.post<SAR>('/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      spec: { user: 'bob', groups: ['system:authenticated'], nonResourceAttributes: { path: '/api', verb: 'get' } },
    });
    expect(nonResource.body.status.allowed).toBe(true);
    const masters = await admin.post<SAR>('/apis/authorization.k8s.io/v1/subjectaccessreviews', { spec: { user: 'x', groups: ['system:masters'], resourceAttributes: { verb: 'delete', resource: 'nodes' } } });
    expect(masters.body.status.allowed).toBe(true);
  });

  it('answers SelfSubjectAccessReview for the caller', async () => {
    const r = await narrow.post<SAR>('/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', { spec: { resourceAttributes: { namespace: 'team', verb: 'watch', resource: 'pods' } } });
    expect(r.body.status.allowed).toBe(true);
  });

  it('answers TokenReview for static, ServiceAccount and bad tokens', async () => {
    const review = (token: string) => admin.post<{ kind: string; status: { authenticated: boolean; user: { username?: string; uid?: string; groups?: string[] } } }>('/apis/authentication.k8s.io/v1/tokenreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } });
    const a = await review(server.adminToken);
    expect(a.body.kind).toBe('TokenReview');
    expect(a.body.status).toMatchObject({ authenticated: true, user: { username: 'admin', groups: ['system:masters', 'system:authenticated'] } });
    const sa = await review(narrow.token);
    expect(sa.body.status.user.username).toBe('system:serviceaccount:team:robot');
    expect(sa.body.status.user.uid).toMatch(/^[0-9a-f-]{36}$/);
    const bad = await review('garbage');
    expect(bad.body.status.authenticated).toBe(false);
  });

  it('refuses TokenReview to callers without the permission', async () => {
    expect((await narrow.post('/apis/authentication.k8s.io/v1/tokenreviews', { spec: { token: 'x' } })).status).toBe(403);
  });

  it('issues TokenRequest tokens usable as bearer tokens', async () => {
    const tr = await admin.post<{ status: { token: string; expirationTimestamp: string } }>('/api/v1/namespaces/team/serviceaccounts/robot/token', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 600 } });
    expect(tr.status).toBe(201);
    expect((await new TestClient(server, tr.body.status.token).get('/api/v1/namespaces/team/pods')).status).toBe(200);
  });
});

describe('token expiry', () => {
  it('stops accepting a ServiceAccount token after its expiration', async () => {
    const clock = new ManualClock();
    const { server: s } = await startTestServer({ clock });
    try {
      const token = s.createServiceAccountToken('default', 'short-lived', 60);
      const client = new TestClient(s, token);
      expect((await client.get('/api')).status).toBe(200);
      clock.advance(61_000);
      expect((await client.get('/api')).status).toBe(401);
    } finally {
      await s.stop();
    }
  });
});
