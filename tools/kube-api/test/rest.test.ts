import type { KubeApiServer } from '../src/index';
import { readWatch, startTestServer, type TestClient } from './support/server';
import { widget, widgetCrd } from './support/fixtures';

let server: KubeApiServer;
let c: TestClient;
const W = '/apis/example.switchyard.io/v1beta1/namespaces/default/widgets';

type Obj = { metadata: Record<string, unknown> & { name: string; resourceVersion: string; uid: string; generation?: number }; spec?: Record<string, unknown>; status?: Record<string, unknown> };
type Status = { kind: string; reason: string; code: number; message: string; details?: { causes?: { field: string; message: string }[]; name?: string; kind?: string } };

beforeAll(async () => {
  ({ server, client: c } = await startTestServer());
  expect((await c.post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', widgetCrd)).status).toBe(201);
});
afterAll(() => server.stop());

describe('discovery', () => {
  it('lists core, built-in and CRD groups with verbs and shortNames', async () => {
    const api = await c.get<{ versions: string[] }>('/api');
    expect(api.body.versions).toEqual(['v1']);
    const core = await c.get<{ resources: { name: string; shortNames?: string[]; verbs: string[] }[] }>('/api/v1');
    const pods = core.body.resources.find((r) => r.name === 'pods');
    expect(pods?.shortNames).toEqual(['po']);
    expect(core.body.resources.map((r) => r.name)).toEqual(expect.arrayContaining(['pods/status', 'nodes/proxy', 'serviceaccounts/token', 'namespaces/finalize']));
    const groups = await c.get<{ groups: { name: string; preferredVersion: { version: string } }[] }>('/apis');
    const ex = groups.body.groups.find((g) => g.name === 'example.switchyard.io');
    expect(ex?.preferredVersion.version).toBe('v1beta1');
    const gv = await c.get<{ resources: { name: string; shortNames?: string[]; namespaced: boolean }[] }>('/apis/example.switchyard.io/v1alpha1');
    expect(gv.body.resources.find((r) => r.name === 'widgets')).toMatchObject({ shortNames: ['wd'], namespaced: true });
    expect((await c.get<{ gitVersion: string }>('/version')).body.gitVersion).toMatch(/^v1\.32/);
    expect((await c.get('/openapi/v3')).body.paths).toHaveProperty(['apis/example.switchyard.io/v1beta1']);
    expect((await c.get('/apis/example.switchyard.io/v9/namespaces/default/widgets')).status).toBe(404);
    expect((await c.get('/api/v1/namespaces/default/nosuchthings')).status).toBe(404);
  });

  it('answers health probes without a token and 401 without one elsewhere', async () => {
    for (const p of ['/healthz', '/readyz', '/livez']) expect((await fetch(`${server.url}${p}`)).status).toBe(200);
    const r = await fetch(`${server.url}/api/v1/pods`);
    expect(r.status).toBe(401);
    expect(await r.json()).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
  });
});

describe('object lifecycle', () => {
  it('stamps uid, creationTimestamp, generation and a server-wide increasing resourceVersion', async () => {
    const a = await c.post<Obj>(W, widget('rv-a'));
    const cm = await c.post<Obj>('/api/v1/namespaces/default/configmaps', { metadata: { name: 'rv-b' }, data: { k: 'v' } });
    const b = await c.post<Obj>(W, widget('rv-c'));
    expect(a.status).toBe(201);
    expect(a.body.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.body.metadata.creationTimestamp).toMatch(/Z$/);
    expect(a.body.metadata.generation).toBe(1);
    const rvs = [a, cm, b].map((r) => Number(r.body.metadata.resourceVersion));
    expect(rvs[1]).toBeGreaterThan(rvs[0] as number);
    expect(rvs[2]).toBeGreaterThan(rvs[1] as number);
    expect(a.body.spec).toEqual({ size: 1, color: 'red' });
  });

  it('generates names from generateName', async () => {
    const r = await c.post<Obj>(W, { ...widget(''), metadata: { generateName: 'gen-' } });
    expect(r.body.metadata.name).toMatch(/^gen-[a-z0-9]{5}$/);
  });

  it('answers 409 Conflict to a stale update and AlreadyExists to a duplicate create', async () => {
    const created = await c.post<Obj>(W, widget('stale'));
    const first = await c.put<Obj>(`${W}/stale`, { ...created.body, spec: { size: 2 } });
    expect(first.status).toBe(200);
    const second = await c.put<Status>(`${W}/stale`, { ...created.body, spec: { size: 3 } });
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({ kind: 'Status', reason: 'Conflict', code: 409 });
    expect(second.body.message).toContain('the object has been modified');
    const dup = await c.post<Status>(W, widget('stale'));
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({ reason: 'AlreadyExists', details: { name: 'stale', kind: 'widgets' } });
  });

  it('returns NotFound Status objects', async () => {
    const r = await c.get<Status>(`${W}/nope`);
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ kind: 'Status', reason: 'NotFound', message: 'widgets.example.switchyard.io "nope" not found', details: { name: 'nope', kind: 'widgets' } });
    expect((await c.post<Status>('/api/v1/namespaces/missing/configmaps', { metadata: { name: 'x' } })).body.message).toBe('namespaces "missing" not found');
  });

  it('rejects schema violations with 422 and field paths', async () => {
    const r = await c.post<Status>(W, widget('bad', { size: 70, color: 'green', ports: [{ port: 70000 }] }));
    expect(r.status).toBe(422);
    expect(r.body.reason).toBe('Invalid');
    const fields = r.body.details?.causes?.map((x) => x.field);
    expect(fields).toEqual(expect.arrayContaining(['spec.size', 'spec.color', 'spec.ports[0].port']));
    expect(r.body.message).toContain('spec.ports[0].port: Invalid value: 70000: spec.ports[0].port in body should be less than or equal to 65535');
    expect(r.body.message).toMatch(/^Widget.example.switchyard.io "bad" is invalid: \[/);
  });

  it('rejects unknown fields under fieldValidation=Strict and prunes them otherwise', async () => {
    const strict = await c.post<Status>(`${W}?fieldValidation=Strict`, widget('strict', { size: 1, bogus: true }));
    expect(strict.status).toBe(400);
    expect(strict.body.message).toContain('unknown field "spec.bogus"');
    const warn = await c.post<Obj>(W, widget('pruned', { size: 1, bogus: true }));
    expect(warn.status).toBe(201);
    expect(warn.body.spec).toEqual({ size: 1, color: 'red' });
    expect(warn.headers.get('warning')).toContain('unknown field \\"spec.bogus\\"');
  });

  it('validates metadata.name', async () => {
    const r = await c.post<Status>('/api/v1/namespaces/default/configmaps', { metadata: { name: 'Bad_Name' } });
    expect(r.status).toBe(422);
    expect(r.body.details?.causes?.[0]?.field).toBe('metadata.name');
  });

  it('bumps generation on spec changes only and keeps status and spec apart', async () => {
    const made = await c.post<Obj>(W, widget('gen'));
    const withLabel = await c.patch<Obj>(`${W}/gen`, { metadata: { labels: { a: 'b' } } });
    expect(withLabel.body.metadata.generation).toBe(1);
    const status = await c.patch<Obj>(`${W}/gen/status`, { status: { ready: true }, spec: { size: 9 } });
    expect(status.body.status).toEqual({ ready: true });
    expect(status.body.spec?.size).toBe(1);
    expect(status.body.metadata.generation).toBe(1);
    const spec = await c.patch<Obj>(`${W}/gen`, { spec: { size: 5 }, status: { ready: false } });
    expect(spec.body.metadata.generation).toBe(2);
    expect(spec.body.status).toEqual({ ready: true });
    expect(Number(spec.body.metadata.resourceVersion)).toBeGreaterThan(Number(made.body.metadata.resourceVersion));
  });

  it('treats an update that only reorders keys as a no-op', async () => {
    const made = await c.post<Obj>('/api/v1/namespaces/default/configmaps', { metadata: { name: 'order' }, data: { a: '1', b: '2' } });
    const same = await c.put<Obj>('/api/v1/namespaces/default/configmaps/order', { data: { b: '2', a: '1' }, metadata: { ...made.body.metadata } });
    expect(same.body.metadata.resourceVersion).toBe(made.body.metadata.resourceVersion);
  });

  it('serves every version of a CRD from one storage', async () => {
    await c.post(W, widget('multi', { size: 4 }));
    const alpha = await c.get<Obj & { apiVersion: string }>('/apis/example.switchyard.io/v1alpha1/namespaces/default/widgets/multi');
    expect(alpha.body.apiVersion).toBe('example.switchyard.io/v1alpha1');
    expect(alpha.body.spec?.size).toBe(4);
  });

  it('applies JSON patch, merge patch and refuses strategic merge patch on custom resources', async () => {
    await c.post(W, widget('patchy', { size: 1 }));
    const jp = await c.patch<Obj>(`${W}/patchy`, [{ op: 'replace', path: '/spec/size', value: 3 }], 'application/json-patch+json');
    expect(jp.body.spec?.size).toBe(3);
    const smp = await c.patch<Status>(`${W}/patchy`, { spec: { size: 4 } }, 'application/strategic-merge-patch+json');
    expect(smp.status).toBe(415);
    const cm = await c.post<Obj>('/api/v1/namespaces/default/configmaps', { metadata: { name: 'smp', labels: { a: '1' } }, data: { x: '1' } });
    expect(cm.status).toBe(201);
    const patched = await c.patch<Obj & { data: Record<string, string> }>('/api/v1/namespaces/default/configmaps/smp', { metadata: { labels: { b: '2' } }, data: { y: '2' } }, 'application/strategic-merge-patch+json');
    expect(patched.body.metadata.labels).toEqual({ a: '1', b: '2' });
    expect(patched.body.data).toEqual({ x: '1', y: '2' });
  });
});

describe('events and apply patches', () => {
  it('stores core and events.k8s.io Events and selects them by involved object', async () => {
    const ev = { metadata: { name: 'e1' }, involvedObject: { kind: 'Pod', name: 'p1', namespace: 'default' }, reason: 'Started', message: 'ok', type: 'Normal' };
    expect((await c.post('/api/v1/namespaces/default/events', ev)).status).toBe(201);
    await c.post('/api/v1/namespaces/default/events', { ...ev, metadata: { name: 'e2' }, involvedObject: { kind: 'Pod', name: 'p2' } });
    const sel = await c.get<{ items: Obj[] }>('/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dp1');
    expect(sel.body.items.map((i) => i.metadata.name)).toEqual(['e1']);
    const v1 = await c.post<Obj>('/apis/events.k8s.io/v1/namespaces/default/events', { metadata: { name: 'n1' }, eventTime: '2026-01-01T00:00:00.000000Z', reportingController: 'x', reportingInstance: 'y', action: 'Sync', reason: 'Done', regarding: { kind: 'Node', name: 'n' } });
    expect(v1.status).toBe(201);
  });

  it('treats server-side apply as create-or-merge', async () => {
    const path = '/api/v1/namespaces/default/configmaps/applied?fieldManager=test';
    const created = await c.patch<Obj & { data: Record<string, string> }>(path, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  a: "1"\n', 'application/apply-patch+yaml');
    expect(created.status).toBe(201);
    const merged = await c.patch<Obj & { data: Record<string, string> }>(path, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' }, data: { b: '2' } }, 'application/apply-patch+yaml');
    expect(merged.body.data).toEqual({ a: '1', b: '2' });
  });
});

describe('deletion', () => {
  it('keeps an object with finalizers until they are removed', async () => {
    await c.post(W, widget('fin', { size: 1 }, { finalizers: ['example.io/hold'] }));
    const del = await c.delete<Obj>(`${W}/fin`);
    expect(del.status).toBe(200);
    expect(del.body.metadata.deletionTimestamp).toBeDefined();
    const still = await c.get<Obj>(`${W}/fin`);
    expect(still.status).toBe(200);
    const addMore = await c.patch<Status>(`${W}/fin`, { metadata: { finalizers: ['example.io/hold', 'example.io/other'] } });
    expect(addMore.status).toBe(422);
    const cleared = await c.patch(`${W}/fin`, { metadata: { finalizers: null } });
    expect(cleared.status).toBe(200);
    expect((await c.get(`${W}/fin`)).status).toBe(404);
  });

  it('garbage-collects dependents of a deleted owner in the background', async () => {
    const owner = await c.post<Obj>(W, widget('owner'));
    const ref = { apiVersion: 'example.switchyard.io/v1beta1', kind: 'Widget', name: 'owner', uid: owner.body.metadata.uid };
    await c.post('/api/v1/namespaces/default/configmaps', { metadata: { name: 'dep1', ownerReferences: [ref] } });
    const other = await c.post<Obj>(W, widget('other-owner'));
    await c.post('/api/v1/namespaces/default/configmaps', { metadata: { name: 'keep', ownerReferences: [ref, { ...ref, name: 'other-owner', uid: other.body.metadata.uid }] } });
    await c.delete(`${W}/owner`);
    await c.eventually(async () => (await c.get('/api/v1/namespaces/default/configmaps/dep1')).status === 404, 'dependent deleted');
    const keep = await c.get('/api/v1/namespaces/default/configmaps/keep');
    expect(keep.status).toBe(200);
  });

  it('orphans dependents with propagationPolicy Orphan', async () => {
    const owner = await c.post<Obj>(W, widget('orphaner'));
    const ref = { apiVersion: 'example.switchyard.io/v1beta1', kind: 'Widget', name: 'orphaner', uid: owner.body.metadata.uid };
    await c.post('/api/v1/namespaces/default/configmaps', { metadata: { name: 'orphan', ownerReferences: [ref] } });
    await c.delete(`${W}/orphaner`, { propagationPolicy: 'Orphan' });
    await c.eventually(async () => (await c.get(`${W}/orphaner`)).status === 404, 'owner deleted');
    const dep = await c.get<Obj>('/api/v1/namespaces/default/configmaps/orphan');
    expect(dep.status).toBe(200);
    expect(dep.body.metadata.ownerReferences).toBeUndefined();
  });

  it('holds an owner deleted in the foreground until its dependents are gone', async () => {
    const owner = await c.post<Obj>(W, widget('fg-owner'));
    const ref = { apiVersion: 'example.switchyard.io/v1beta1', kind: 'Widget', name: 'fg-owner', uid: owner.body.metadata.uid, blockOwnerDeletion: true };
    await c.post('/api/v1/namespaces/default/configmaps', { metadata: { name: 'fg-dep', ownerReferences: [ref], finalizers: ['x/hold'] } });
    const del = await c.delete<Obj>(`${W}/fg-owner`, { propagationPolicy: 'Foreground' });
    expect(del.body.metadata.finalizers).toEqual(['foregroundDeletion']);
    await c.eventually(async () => (await c.get<Obj>('/api/v1/namespaces/default/configmaps/fg-dep')).body.metadata.deletionTimestamp !== undefined, 'dependent marked');
    expect((await c.get(`${W}/fg-owner`)).status).toBe(200);
    await c.patch('/api/v1/namespaces/default/configmaps/fg-dep', { metadata: { finalizers: null } });
    await c.eventually(async () => (await c.get(`${W}/fg-owner`)).status === 404, 'owner removed after dependent');
  });

  it('cascades namespace deletion and forbids new content while terminating', async () => {
    await c.post('/api/v1/namespaces', { metadata: { name: 'doomed' } });
    await c.post('/api/v1/namespaces/doomed/configmaps', { metadata: { name: 'a' } });
    await c.post('/apis/example.switchyard.io/v1beta1/namespaces/doomed/widgets', widget('held', { size: 1 }, { finalizers: ['x/y'] }));
    const del = await c.delete<Obj>('/api/v1/namespaces/doomed');
    expect(del.body.status).toEqual({ phase: 'Terminating' });
    await c.eventually(async () => (await c.get('/api/v1/namespaces/doomed/configmaps/a')).status === 404, 'configmap removed');
    const refused = await c.post<Status>('/api/v1/namespaces/doomed/configmaps', { metadata: { name: 'b' } });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain('because it is being terminated');
    expect((await c.get('/api/v1/namespaces/doomed')).status).toBe(200);
    await c.patch('/apis/example.switchyard.io/v1beta1/namespaces/doomed/widgets/held', { metadata: { finalizers: null } });
    await c.eventually(async () => (await c.get('/api/v1/namespaces/doomed')).status === 404, 'namespace removed');
  });

  it('drops the custom resources of a deleted CRD', async () => {
    const crd = structuredClone(widgetCrd);
    crd.metadata.name = 'gadgets.example.switchyard.io';
    crd.spec.names = { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', shortNames: [] };
    crd.spec.versions = crd.spec.versions.slice(1).map((v) => ({ ...v, storage: true }));
    await c.post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
    const G = '/apis/example.switchyard.io/v1alpha1/namespaces/default/gadgets';
    expect((await c.post(G, { apiVersion: 'example.switchyard.io/v1alpha1', kind: 'Gadget', metadata: { name: 'g' }, anything: 1 })).status).toBe(201);
    await c.delete('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.example.switchyard.io');
    expect((await c.get(G)).status).toBe(404);
  });
});

describe('list', () => {
  beforeAll(async () => {
    await c.post('/api/v1/namespaces', { metadata: { name: 'lst' } });
    for (let i = 0; i < 5; i++) {
      await c.post('/api/v1/namespaces/lst/pods', { metadata: { name: `p${i}`, labels: { app: i % 2 === 0 ? 'even' : 'odd', idx: String(i) } }, spec: { nodeName: `n${i % 2}`, containers: [] } });
    }
  });
  const names = (b: { items: Obj[] }): string[] => b.items.map((i) => i.metadata.name);

  it('filters by label and field selectors', async () => {
    const q = async (s: string): Promise<string[]> => names((await c.get<{ items: Obj[] }>(`/api/v1/namespaces/lst/pods?${s}`)).body);
    expect(await q('labelSelector=app%3Deven')).toEqual(['p0', 'p2', 'p4']);
    expect(await q(`labelSelector=${encodeURIComponent('app=odd,idx notin (1)')}`)).toEqual(['p3']);
    expect(await q(`labelSelector=${encodeURIComponent('!missing,idx in (0,4)')}`)).toEqual(['p0', 'p4']);
    expect(await q('fieldSelector=spec.nodeName%3Dn1')).toEqual(['p1', 'p3']);
    expect(await q('fieldSelector=metadata.name%21%3Dp0,status.phase%3DPending&labelSelector=app%3Deven')).toEqual(['p2', 'p4']);
    const all = await c.get<{ items: Obj[] }>('/api/v1/pods?fieldSelector=metadata.namespace%3Dlst');
    expect(names(all.body)).toHaveLength(5);
  });

  it('pages with limit and continue', async () => {
    const first = await c.get<{ items: Obj[]; metadata: { continue: string; remainingItemCount: number } }>('/api/v1/namespaces/lst/pods?limit=2');
    expect(names(first.body)).toEqual(['p0', 'p1']);
    expect(first.body.metadata.remainingItemCount).toBe(3);
    const second = await c.get<{ items: Obj[]; metadata: { continue?: string } }>(`/api/v1/namespaces/lst/pods?limit=2&continue=${first.body.metadata.continue}`);
    expect(names(second.body)).toEqual(['p2', 'p3']);
    const third = await c.get<{ items: Obj[]; metadata: { continue?: string } }>(`/api/v1/namespaces/lst/pods?limit=2&continue=${second.body.metadata.continue ?? ''}`);
    expect(names(third.body)).toEqual(['p4']);
    expect(third.body.metadata.continue).toBeUndefined();
  });

  it('renders a Table when asked like kubectl does', async () => {
    const r = await fetch(`${server.url}${W}`, { headers: { authorization: `Bearer ${server.adminToken}`, accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' } });
    const t = (await r.json()) as { kind: string; columnDefinitions: { name: string }[] };
    expect(t.kind).toBe('Table');
    expect(t.columnDefinitions.map((x) => x.name)).toEqual(['Name', 'Size', 'Age']);
  });
});

describe('watch', () => {
  it('streams ADDED, MODIFIED and DELETED from a resourceVersion, with selectors', async () => {
    const list = await c.get<{ metadata: { resourceVersion: string } }>(W);
    const events = readWatch(`${server.url}${W}?watch=true&resourceVersion=${list.body.metadata.resourceVersion}&labelSelector=w%3D1`, server.adminToken, 4);
    await new Promise((r) => setTimeout(r, 50));
    await c.post(W, widget('w1', { size: 1 }, { labels: { w: '1' } }));
    await c.post(W, widget('w2', { size: 1 }, { labels: { w: '2' } }));
    await c.patch(`${W}/w1`, { spec: { size: 2 } });
    await c.patch(`${W}/w2`, { metadata: { labels: { w: '1' } } });
    await c.delete(`${W}/w1`);
    const got = (await events).map((e) => `${e.type} ${(e.object.metadata as { name: string }).name}`);
    expect(got).toEqual(['ADDED w1', 'MODIFIED w1', 'ADDED w2', 'DELETED w1']);
  });

  it('replays current objects as ADDED when no resourceVersion is given (legacy /watch path)', async () => {
    await c.post('/api/v1/namespaces', { metadata: { name: 'wl' } });
    await c.post('/api/v1/namespaces/wl/configmaps', { metadata: { name: 'one' } });
    const ev = await readWatch(`${server.url}/api/v1/watch/namespaces/wl/configmaps`, server.adminToken, 1);
    expect(ev[0]).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'one' } } });
  });
});
