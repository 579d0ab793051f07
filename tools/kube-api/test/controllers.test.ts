import type { KubeApiServer } from '../src/index';
import { startTestServer, type TestClient } from './support/server';

let server: KubeApiServer;
let c: TestClient;
type Obj = { metadata: { name: string; uid: string; annotations?: Record<string, string>; ownerReferences?: unknown[] }; spec: Record<string, unknown>; [k: string]: unknown };
type Status = { message: string; details?: { causes?: { field: string }[] } };

beforeAll(async () => {
  ({ server, client: c } = await startTestServer({ serviceCIDR: '10.100.0.0/24' }));
  await c.post('/api/v1/namespaces', { metadata: { name: 'svc' } });
});
afterAll(() => server.stop());

function pod(name: string, ip: string, ready: boolean, labels: Record<string, string> = { app: 'web' }): Record<string, unknown> {
  return {
    metadata: { name, labels },
    spec: { nodeName: 'node-a', containers: [{ name: 'c', image: 'nginx', ports: [{ name: 'http', containerPort: 8080 }] }] },
    status: { phase: 'Running', podIP: ip, conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
  };
}

describe('bootstrap', () => {
  it('creates the system namespaces, the kubernetes Service and its Endpoints', async () => {
    const ns = await c.get<{ items: Obj[] }>('/api/v1/namespaces');
    expect(ns.body.items.map((n) => n.metadata.name)).toEqual(expect.arrayContaining(['default', 'kube-system', 'kube-public', 'kube-node-lease']));
    const svc = await c.get<Obj>('/api/v1/namespaces/default/services/kubernetes');
    expect(svc.body.spec.clusterIP).toBe('10.100.0.1');
    const ep = await c.get<{ subsets: { addresses: { ip: string }[]; ports: { port: number }[] }[] }>('/api/v1/namespaces/default/endpoints/kubernetes');
    expect(ep.body.subsets[0]?.addresses[0]?.ip).toBe('127.0.0.1');
    expect(ep.body.subsets[0]?.ports[0]?.port).toBe(server.port);
    // No advertised address yet: no EndpointSlice (a loopback address means nothing to pods).
    expect((await c.get('/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes')).status).toBe(404);
  });

  it('an advertised address goes into the kubernetes Service target port, its Endpoints and an EndpointSlice', async () => {
    server.advertise({ ip: '192.0.2.10', port: 6443 });
    const svc = await c.get<Obj>('/api/v1/namespaces/default/services/kubernetes');
    expect(svc.body.spec.ports).toEqual([{ name: 'https', port: 443, protocol: 'TCP', targetPort: 6443 }]);
    const ep = await c.get<{ subsets: { addresses: { ip: string }[]; ports: { port: number }[] }[] }>('/api/v1/namespaces/default/endpoints/kubernetes');
    expect([ep.body.subsets[0]?.addresses[0]?.ip, ep.body.subsets[0]?.ports[0]?.port]).toEqual(['192.0.2.10', 6443]);
    const slice = await c.get<{ metadata: { labels: Record<string, string> }; endpoints: { addresses: string[] }[]; ports: { port: number }[] }>('/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes');
    expect([slice.body.metadata.labels['kubernetes.io/service-name'], slice.body.endpoints[0]?.addresses, slice.body.ports[0]?.port]).toEqual(['kubernetes', ['192.0.2.10'], 6443]);
  });

  it('an advertised IPv6 address gives an IPv6 EndpointSlice (an IPv6-only cluster\'s kubernetes Service is served by it)', async () => {
    const sliceOf = async (): Promise<{ addressType: string; endpoints: { addresses: string[] }[] }> => (await c.get<{ addressType: string; endpoints: { addresses: string[] }[] }>('/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes')).body;
    expect((await sliceOf()).addressType).toBe('IPv4');
    server.advertise({ ip: '2001:db8::10', port: 6443 });
    expect(await sliceOf()).toMatchObject({ addressType: 'IPv6', endpoints: [{ addresses: ['2001:db8::10'] }] });
    server.advertise({ ip: '192.0.2.10', port: 6443 });
    expect((await sliceOf()).addressType).toBe('IPv4');
  });
});

describe('service IPs', () => {
  it('allocates a ClusterIP from the service CIDR and refuses taken or foreign ones', async () => {
    const a = await c.post<Obj>('/api/v1/namespaces/svc/services', { metadata: { name: 'a' }, spec: { ports: [{ port: 80 }] } });
    expect(a.status).toBe(201);
    expect(a.body.spec).toMatchObject({ type: 'ClusterIP', clusterIPs: [a.body.spec.clusterIP], ipFamilies: ['IPv4'] });
    expect(a.body.spec.clusterIP).toMatch(/^10\.100\.0\.\d+$/);
    expect(a.body.spec.ports).toEqual([{ port: 80, protocol: 'TCP', targetPort: 80 }]);
    const taken = await c.post<Status>('/api/v1/namespaces/svc/services', { metadata: { name: 'b' }, spec: { clusterIP: a.body.spec.clusterIP, ports: [{ port: 80 }] } });
    expect(taken.status).toBe(422);
    expect(taken.body.message).toContain('provided IP is already allocated');
    const foreign = await c.post<Status>('/api/v1/namespaces/svc/services', { metadata: { name: 'b' }, spec: { clusterIP: '192.168.1.1', ports: [{ port: 80 }] } });
    expect(foreign.body.details?.causes?.[0]?.field).toBe('spec.clusterIPs');
    // The real API server's wording, which Antrea Multi-cluster parses to discover the service CIDR.
    expect(foreign.status).toBe(422);
    expect(foreign.body.message).toBe('Service "b" is invalid: spec.clusterIPs: Invalid value: []string{"192.168.1.1"}: failed to allocate IP 192.168.1.1: the provided IP (192.168.1.1) is not in the valid range. The range of valid IPs is 10.100.0.0/24');
    const bad = await c.post<Status>('/api/v1/namespaces/svc/services', { metadata: { name: 'b' }, spec: { ports: [{ port: 70000 }] } });
    expect(bad.body.message).toContain('spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive');
    const headless = await c.post<Obj>('/api/v1/namespaces/svc/services', { metadata: { name: 'headless' }, spec: { clusterIP: 'None', ports: [{ port: 80 }] } });
    expect(headless.body.spec.clusterIPs).toEqual(['None']);
  });

  it('keeps the ClusterIP on update, refuses changing it, and frees it on delete', async () => {
    const s = await c.post<Obj>('/api/v1/namespaces/svc/services', { metadata: { name: 'keep' }, spec: { ports: [{ port: 80 }] } });
    const ip = s.body.spec.clusterIP as string;
    const upd = await c.put<Obj>('/api/v1/namespaces/svc/services/keep', { ...s.body, spec: { ports: [{ port: 81 }] } });
    expect(upd.body.spec.clusterIP).toBe(ip);
    const change = await c.patch<Status>('/api/v1/namespaces/svc/services/keep', { spec: { clusterIP: '10.100.0.250' } });
    expect(change.status).toBe(422);
    await c.delete('/api/v1/namespaces/svc/services/keep');
    const again = await c.post<Obj>('/api/v1/namespaces/svc/services', { metadata: { name: 'reuse' }, spec: { clusterIP: ip, ports: [{ port: 80 }] } });
    expect(again.status).toBe(201);
  });

  it('keeps no allocation for a dry-run create', async () => {
    const dry = await c.post<Obj>('/api/v1/namespaces/svc/services?dryRun=All', { metadata: { name: 'dry' }, spec: { clusterIP: '10.100.0.200', ports: [{ port: 80 }] } });
    expect(dry.status).toBe(201);
    expect(dry.body.spec.clusterIP).toBe('10.100.0.200');
    expect((await c.get('/api/v1/namespaces/svc/services/dry')).status).toBe(404);
    const real = await c.post<Obj>('/api/v1/namespaces/svc/services', { metadata: { name: 'wet' }, spec: { clusterIP: '10.100.0.200', ports: [{ port: 80 }] } });
    expect(real.status).toBe(201);
  });

  it('allocates NodePorts for NodePort Services', async () => {
    const s = await c.post<Obj>('/api/v1/namespaces/svc/services', { metadata: { name: 'np' }, spec: { type: 'NodePort', ports: [{ name: 'a', port: 80 }, { name: 'b', port: 81, nodePort: 31000 }] } });
    const ports = s.body.spec.ports as { nodePort: number }[];
    expect(ports[0]?.nodePort).toBeGreaterThanOrEqual(30000);
    expect(ports[1]?.nodePort).toBe(31000);
    const clash = await c.post<Status>('/api/v1/namespaces/svc/services', { metadata: { name: 'np2' }, spec: { type: 'NodePort', ports: [{ port: 80, nodePort: 31000 }] } });
    expect(clash.status).toBe(422);
  });
});

describe('LoadBalancer Services', () => {
  const lb = (name: string, spec: Record<string, unknown> = {}): Record<string, unknown> => ({ metadata: { name }, spec: { type: 'LoadBalancer', ports: [{ port: 80 }], ...spec } });

  it('externalTrafficPolicy Local gets a healthCheckNodePort from the node port range, kept on update and released when the policy changes or the Service goes', async () => {
    const s = await c.post<Obj>('/api/v1/namespaces/svc/services', lb('hc-local', { externalTrafficPolicy: 'Local' }));
    expect(s.status).toBe(201);
    const hc = s.body.spec.healthCheckNodePort as number;
    expect(hc).toBeGreaterThanOrEqual(30000);
    expect(hc).not.toBe((s.body.spec.ports as { nodePort: number }[])[0]?.nodePort);
    const upd = await c.put<Obj>('/api/v1/namespaces/svc/services/hc-local', { ...s.body, spec: { type: 'LoadBalancer', externalTrafficPolicy: 'Local', ports: [{ port: 81 }] } });
    expect(upd.body.spec.healthCheckNodePort).toBe(hc);
    // Another Service cannot have it while it is held.
    const clash = await c.post<Status>('/api/v1/namespaces/svc/services', lb('hc-clash', { externalTrafficPolicy: 'Local', healthCheckNodePort: hc }));
    expect(clash.status).toBe(422);
    expect(clash.body.message).toContain(`spec.healthCheckNodePort: Invalid value: ${hc}: provided port is already allocated`);
    // Cluster policy: the field is dropped (the PUT carries the old value along, as kubectl does) and the port freed.
    const cluster = await c.put<Obj>('/api/v1/namespaces/svc/services/hc-local', { ...upd.body, spec: { ...upd.body.spec, externalTrafficPolicy: 'Cluster' } });
    expect(cluster.status).toBe(200);
    expect(cluster.body.spec.healthCheckNodePort).toBeUndefined();
    const taken = await c.post<Obj>('/api/v1/namespaces/svc/services', lb('hc-given', { externalTrafficPolicy: 'Local', healthCheckNodePort: hc }));
    expect(taken.status).toBe(201);
    expect(taken.body.spec.healthCheckNodePort).toBe(hc);
    await c.delete('/api/v1/namespaces/svc/services/hc-given');
    const again = await c.post<Obj>('/api/v1/namespaces/svc/services', { metadata: { name: 'hc-np' }, spec: { type: 'NodePort', ports: [{ port: 80, nodePort: hc }] } });
    expect(again.status).toBe(201);
  });

  it('a healthCheckNodePort on a Service that is not LoadBalancer with Local policy is refused', async () => {
    const r = await c.post<Status>('/api/v1/namespaces/svc/services', lb('hc-bad', { healthCheckNodePort: 32100 }));
    expect(r.status).toBe(422);
    expect(r.body.message).toContain("spec.healthCheckNodePort: Invalid value: 32100: may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'");
    expect((await c.post<Obj>('/api/v1/namespaces/svc/services', lb('hc-none'))).body.spec.healthCheckNodePort).toBeUndefined();
  });

  it('status.loadBalancer is written through the status subresource by PUT and by merge PATCH, and only there', async () => {
    const s = await c.post<Obj>('/api/v1/namespaces/svc/services', lb('lb-status'));
    expect(s.body.status).toEqual({ loadBalancer: {} });
    const put = await c.put<Obj>('/api/v1/namespaces/svc/services/lb-status/status', { ...s.body, status: { loadBalancer: { ingress: [{ ip: '192.0.2.10' }] } } });
    expect(put.status).toBe(200);
    expect(put.body.status).toEqual({ loadBalancer: { ingress: [{ ip: '192.0.2.10' }] } });
    const patched = await c.patch<Obj>('/api/v1/namespaces/svc/services/lb-status/status', { status: { loadBalancer: { ingress: [{ ip: '192.0.2.11' }] } } }, 'application/merge-patch+json');
    expect(patched.status).toBe(200);
    expect(patched.body.status).toEqual({ loadBalancer: { ingress: [{ ip: '192.0.2.11' }] } });
    // A stale resourceVersion conflicts; the main resource ignores status.
    const stale = await c.put<Status>('/api/v1/namespaces/svc/services/lb-status/status', { ...s.body, status: { loadBalancer: {} } });
    expect(stale.status).toBe(409);
    const main = await c.put<Obj>('/api/v1/namespaces/svc/services/lb-status', { ...patched.body, status: { loadBalancer: {} } });
    expect(main.body.status).toEqual({ loadBalancer: { ingress: [{ ip: '192.0.2.11' }] } });
  });
});

describe('endpoints controller', () => {
  it('follows pod readiness and resolves named target ports', async () => {
    await c.post('/api/v1/namespaces/svc/services', { metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] } });
    await c.post('/api/v1/namespaces/svc/pods', pod('w1', '10.0.0.1', true));
    await c.post('/api/v1/namespaces/svc/pods', pod('w2', '10.0.0.2', false));
    await c.post('/api/v1/namespaces/svc/pods', pod('other', '10.0.0.3', true, { app: 'db' }));
    type Ep = { subsets?: { addresses?: { ip: string; nodeName: string; targetRef: { name: string } }[]; notReadyAddresses?: { ip: string }[]; ports: { name: string; port: number }[] }[] };
    const ep = await c.eventually(async () => {
      const r = await c.get<Ep>('/api/v1/namespaces/svc/endpoints/web');
      return r.status === 200 && r.body.subsets?.[0]?.notReadyAddresses ? r.body : undefined;
    }, 'endpoints');
    expect(ep.subsets?.[0]?.addresses?.map((a) => [a.ip, a.nodeName, a.targetRef.name])).toEqual([['10.0.0.1', 'node-a', 'w1']]);
    expect(ep.subsets?.[0]?.notReadyAddresses?.map((a) => a.ip)).toEqual(['10.0.0.2']);
    expect(ep.subsets?.[0]?.ports).toEqual([{ name: 'http', port: 8080, protocol: 'TCP' }]);

    await c.patch('/api/v1/namespaces/svc/pods/w2/status', { status: { conditions: [{ type: 'Ready', status: 'True' }] } }, 'application/strategic-merge-patch+json');
    await c.eventually(async () => (await c.get<Ep>('/api/v1/namespaces/svc/endpoints/web')).body.subsets?.[0]?.addresses?.length === 2, 'both ready');

    type Slice = { metadata: { labels: Record<string, string>; ownerReferences: { name: string }[] }; endpoints: { addresses: string[]; conditions: { ready: boolean } }[]; ports: { port: number }[] };
    const slices = await c.get<{ items: Slice[] }>('/apis/discovery.k8s.io/v1/namespaces/svc/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3Dweb');
    expect(slices.body.items).toHaveLength(1);
    const slice = slices.body.items[0] as Slice;
    expect(slice.metadata.ownerReferences[0]?.name).toBe('web');
    expect(slice.endpoints.map((e) => [e.addresses[0], e.conditions.ready])).toEqual([['10.0.0.1', true], ['10.0.0.2', true]]);
    expect(slice.ports[0]?.port).toBe(8080);

    await c.delete('/api/v1/namespaces/svc/pods/w1');
    await c.eventually(async () => (await c.get<Ep>('/api/v1/namespaces/svc/endpoints/web')).body.subsets?.[0]?.addresses?.length === 1, 'w1 gone');
    await c.delete('/api/v1/namespaces/svc/services/web');
    await c.eventually(async () => (await c.get('/api/v1/namespaces/svc/endpoints/web')).status === 404, 'endpoints removed');
    await c.eventually(async () => (await c.get<{ items: unknown[] }>('/apis/discovery.k8s.io/v1/namespaces/svc/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3Dweb')).body.items.length === 0, 'slices removed');
  });
});

describe('EndpointSlice mirroring', () => {
  type Slice = { metadata: { name: string; labels: Record<string, string> }; endpoints: { addresses: string[]; conditions: { ready: boolean } }[]; ports: { port: number }[] };
  const slicesOf = async (svc: string): Promise<Slice[]> => (await c.get<{ items: Slice[] }>(`/apis/discovery.k8s.io/v1/namespaces/svc/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3D${svc}`)).body.items;

  it('mirrors the Endpoints of a Service without a selector into an EndpointSlice, follows changes and removes it with the Service', async () => {
    await c.post('/api/v1/namespaces/svc/services', { metadata: { name: 'imported' }, spec: { ports: [{ name: 'tcp80', port: 80 }] } });
    await c.post('/api/v1/namespaces/svc/endpoints', { metadata: { name: 'imported' }, subsets: [{ addresses: [{ ip: '10.111.0.5' }], ports: [{ name: 'tcp80', port: 80, protocol: 'TCP' }] }] });
    const [slice] = await c.eventually(async () => ((await slicesOf('imported')).length === 1 ? slicesOf('imported') : undefined), 'mirrored slice');
    expect(slice!.metadata.labels['endpointslice.kubernetes.io/managed-by']).toBe('endpointslicemirroring-controller.k8s.io');
    expect(slice!.endpoints.map((e) => [e.addresses[0], e.conditions.ready])).toEqual([['10.111.0.5', true]]);
    expect(slice!.ports.map((p) => p.port)).toEqual([80]);
    const ep = await c.get<Record<string, unknown>>('/api/v1/namespaces/svc/endpoints/imported');
    await c.put('/api/v1/namespaces/svc/endpoints/imported', { ...ep.body, subsets: [{ addresses: [{ ip: '10.111.0.6' }], ports: [{ name: 'tcp80', port: 80, protocol: 'TCP' }] }] });
    await c.eventually(async () => (await slicesOf('imported'))[0]?.endpoints[0]?.addresses[0] === '10.111.0.6', 'slice follows the Endpoints');
    await c.delete('/api/v1/namespaces/svc/services/imported');
    await c.eventually(async () => (await slicesOf('imported')).length === 0, 'mirrored slice removed');
  });

  it('does not mirror the API server\'s own kubernetes Service or Endpoints labelled skip-mirror', async () => {
    await c.post('/api/v1/namespaces/svc/services', { metadata: { name: 'skipped' }, spec: { ports: [{ port: 80 }] } });
    await c.post('/api/v1/namespaces/svc/endpoints', { metadata: { name: 'skipped', labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } }, subsets: [{ addresses: [{ ip: '10.111.0.7' }], ports: [{ port: 80 }] }] });
    await c.post('/api/v1/namespaces/svc/services', { metadata: { name: 'probe' }, spec: { ports: [{ port: 80 }] } });
    await c.post('/api/v1/namespaces/svc/endpoints', { metadata: { name: 'probe' }, subsets: [{ addresses: [{ ip: '10.111.0.8' }], ports: [{ port: 80 }] }] });
    // Once a later mirror is in, the earlier one would be too.
    await c.eventually(async () => (await slicesOf('probe')).length === 1, 'probe mirrored');
    expect(await slicesOf('skipped')).toEqual([]);
    // The API server's own (once it advertises an address) is written by it, not mirrored.
    const k = await c.get<{ items: { metadata: { labels: Record<string, string> } }[] }>('/apis/discovery.k8s.io/v1/namespaces/default/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3Dkubernetes');
    expect(k.body.items.map((x) => x.metadata.labels['endpointslice.kubernetes.io/managed-by']).filter((m) => m !== 'kube-apiserver')).toEqual([]);
  });
});

describe('secrets', () => {
  const b64 = (s: string): string => Buffer.from(s).toString('base64');
  it('folds stringData into base64 data (stringData wins) and never stores or returns stringData', async () => {
    await c.post('/api/v1/namespaces', { metadata: { name: 'sec' } });
    const created = await c.post<Obj & { data: Record<string, string> }>('/api/v1/namespaces/sec/secrets', {
      metadata: { name: 's' },
      data: { token: b64('old'), keep: b64('kept') },
      stringData: { token: 'new', 'ca.crt': 'PEM' },
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({ token: b64('new'), keep: b64('kept'), 'ca.crt': b64('PEM') });
    expect(created.body).not.toHaveProperty('stringData');
    const got = await c.get<Obj & { data: Record<string, string> }>('/api/v1/namespaces/sec/secrets/s');
    expect(got.body).not.toHaveProperty('stringData');
    expect(got.body.data.token).toBe(b64('new'));
    const patched = await c.patch<Obj & { data: Record<string, string> }>('/api/v1/namespaces/sec/secrets/s', { stringData: { keep: 'changed' } });
    expect(patched.body.data).toEqual({ token: b64('new'), keep: b64('changed'), 'ca.crt': b64('PEM') });
    expect(patched.body).not.toHaveProperty('stringData');
    const put = await c.put<Obj & { data: Record<string, string> }>('/api/v1/namespaces/sec/secrets/s', { ...patched.body, data: {}, stringData: { only: 'this' } });
    expect(put.body.data).toEqual({ only: b64('this') });
    expect(put.body).not.toHaveProperty('stringData');
  });
});

describe('service accounts', () => {
  it('creates a default ServiceAccount per namespace with a token Secret', async () => {
    await c.post('/api/v1/namespaces', { metadata: { name: 'sa-ns' } });
    const sa = await c.eventually(async () => {
      const r = await c.get<Obj & { secrets?: { name: string }[] }>('/api/v1/namespaces/sa-ns/serviceaccounts/default');
      return r.status === 200 && r.body.secrets ? r.body : undefined;
    }, 'default sa');
    const secretName = sa.secrets?.[0]?.name as string;
    expect(secretName).toMatch(/^default-token-[a-z0-9]{5}$/);
    const secret = await c.get<Obj & { type: string; data: Record<string, string> }>(`/api/v1/namespaces/sa-ns/secrets/${secretName}`);
    expect(secret.body.type).toBe('kubernetes.io/service-account-token');
    expect(Object.keys(secret.body.data).sort()).toEqual(['ca.crt', 'namespace', 'token']);
    expect(Buffer.from(secret.body.data.namespace as string, 'base64').toString()).toBe('sa-ns');
    expect(secret.body.metadata.annotations?.['kubernetes.io/service-account.name']).toBe('default');
  });

  it('populates user-created service-account-token Secrets and authenticates their tokens', async () => {
    await c.post('/api/v1/namespaces/sa-ns/serviceaccounts', { metadata: { name: 'robot' } });
    const s = await c.post<Obj & { data: Record<string, string> }>('/api/v1/namespaces/sa-ns/secrets', {
      metadata: { name: 'robot-token', annotations: { 'kubernetes.io/service-account.name': 'robot' } },
      type: 'kubernetes.io/service-account-token',
    });
    const token = Buffer.from(s.body.data.token as string, 'base64').toString();
    const review = await c.post<{ status: { authenticated: boolean; user: { username: string; groups: string[] } } }>('/apis/authentication.k8s.io/v1/tokenreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } });
    expect(review.body.status).toMatchObject({ authenticated: true, user: { username: 'system:serviceaccount:sa-ns:robot', groups: ['system:serviceaccounts', 'system:serviceaccounts:sa-ns', 'system:authenticated'] } });
    await c.delete('/api/v1/namespaces/sa-ns/secrets/robot-token');
    const after = await c.post<{ status: { authenticated: boolean } }>('/apis/authentication.k8s.io/v1/tokenreviews', { spec: { token } });
    expect(after.body.status.authenticated).toBe(false);
  });
});
