// Dual-stack and IPv6 clusters: Service ipFamilies/ipFamilyPolicy/clusterIPs as kube-apiserver
// settles them, per-family EndpointSlices, and Node podCIDRs from the cluster CIDRs.
import type { KubeApiServer } from '../src/index';
import { startTestServer, type TestClient } from './support/server';

type Spec = { clusterIP: string; clusterIPs: string[]; ipFamilies: string[]; ipFamilyPolicy: string; podCIDR?: string; podCIDRs?: string[] };
type Obj = { metadata: { name: string; uid: string }; spec: Spec };
type Status = { message: string; reason: string; details?: { causes?: { field: string; message: string }[] } };
type Slice = { addressType: string; endpoints: { addresses: string[] }[] };

const svc = (name: string, spec: Record<string, unknown> = {}): Record<string, unknown> => ({ metadata: { name }, spec: { ports: [{ port: 80 }], ...spec } });
const V4 = /^10\.100\.0\.\d+$/;
const V6 = /^fd00:10:96::[0-9a-f]+$/;

describe('a dual-stack cluster (IPv4 primary)', () => {
  let server: KubeApiServer;
  let c: TestClient;
  beforeAll(async () => {
    ({ server, client: c } = await startTestServer({ serviceCIDR: '10.100.0.0/24,fd00:10:96::/112', clusterCIDR: '10.244.0.0/16,fd00:10:244::/56' }));
    await c.post('/api/v1/namespaces', { metadata: { name: 'ds' } });
  });
  afterAll(() => server.stop());
  const create = (body: Record<string, unknown>) => c.post<Obj & Status>('/api/v1/namespaces/ds/services', body);

  it('gives a Service without a policy one address of the primary family (SingleStack)', async () => {
    const s = await create(svc('plain'));
    expect(s.status).toBe(201);
    expect(s.body.spec).toMatchObject({ ipFamilyPolicy: 'SingleStack', ipFamilies: ['IPv4'], clusterIPs: [s.body.spec.clusterIP] });
    expect(s.body.spec.clusterIP).toMatch(V4);
    const k = await c.get<Obj>('/api/v1/namespaces/default/services/kubernetes');
    expect([k.body.spec.clusterIP, k.body.spec.ipFamilies]).toEqual(['10.100.0.1', ['IPv4']]);
  });

  it('gives PreferDualStack and RequireDualStack both families, in the order ipFamilies names', async () => {
    const prefer = await create(svc('prefer', { ipFamilyPolicy: 'PreferDualStack' }));
    expect(prefer.body.spec.ipFamilies).toEqual(['IPv4', 'IPv6']);
    expect(prefer.body.spec.clusterIPs).toEqual([expect.stringMatching(V4), expect.stringMatching(V6)]);
    expect(prefer.body.spec.clusterIP).toBe(prefer.body.spec.clusterIPs[0]);
    const v6first = await create(svc('v6first', { ipFamilyPolicy: 'RequireDualStack', ipFamilies: ['IPv6', 'IPv4'] }));
    expect(v6first.body.spec.clusterIPs).toEqual([expect.stringMatching(V6), expect.stringMatching(V4)]);
    expect(v6first.body.spec.clusterIP).toMatch(V6);
  });

  it('defaults the policy to RequireDualStack when two families or two addresses are given', async () => {
    const two = await create(svc('two', { ipFamilies: ['IPv6', 'IPv4'] }));
    expect([two.body.spec.ipFamilyPolicy, two.body.spec.ipFamilies]).toEqual(['RequireDualStack', ['IPv6', 'IPv4']]);
    const ips = await create(svc('ips', { clusterIPs: ['10.100.0.77', 'fd00:10:96::77'] }));
    expect(ips.status).toBe(201);
    expect(ips.body.spec).toMatchObject({ clusterIP: '10.100.0.77', clusterIPs: ['10.100.0.77', 'fd00:10:96::77'], ipFamilies: ['IPv4', 'IPv6'], ipFamilyPolicy: 'RequireDualStack' });
  });

  it('serves an IPv6 single-stack Service from the IPv6 range and infers the family from a given address', async () => {
    const s = await create(svc('six', { ipFamilies: ['IPv6'] }));
    expect([s.body.spec.ipFamilyPolicy, s.body.spec.ipFamilies, s.body.spec.clusterIPs.length]).toEqual(['SingleStack', ['IPv6'], 1]);
    expect(s.body.spec.clusterIP).toMatch(V6);
    const given = await create(svc('six-given', { clusterIP: 'fd00:10:96::99' }));
    expect([given.body.spec.ipFamilies, given.body.spec.clusterIPs]).toEqual([['IPv6'], ['fd00:10:96::99']]);
  });

  it('refuses contradicting fields with 422 naming the field and value', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ ipFamilyPolicy: 'SingleStack', ipFamilies: ['IPv4', 'IPv6'] }, 'spec.ipFamilyPolicy: Invalid value: "SingleStack": must be \'RequireDualStack\' or \'PreferDualStack\' when multiple IP families are specified'],
      [{ ipFamilyPolicy: 'DualStack' }, 'spec.ipFamilyPolicy: Unsupported value: "DualStack": supported values: "PreferDualStack", "RequireDualStack", "SingleStack"'],
      [{ ipFamilies: ['IPv4', 'IPv4'] }, 'spec.ipFamilies[1]: Duplicate value: "IPv4"'],
      [{ ipFamilies: ['IPv5'] }, 'spec.ipFamilies[0]: Unsupported value: "IPv5": supported values: "IPv4", "IPv6"'],
      [{ ipFamilies: ['IPv6'], clusterIPs: ['10.100.0.80'] }, 'spec.clusterIPs[0]: Invalid value: []string{"10.100.0.80"}: expected an IPv6 value as indicated by `ipFamilies[0]`'],
      [{ clusterIPs: ['10.100.0.81', '10.100.0.82'] }, 'spec.clusterIPs[1]: Invalid value: []string{"10.100.0.81", "10.100.0.82"}: may specify no more than one IP for each IP family'],
    ];
    for (const [spec, message] of cases) {
      const r = await create(svc('bad', spec));
      expect([r.status, r.body.reason, r.body.message]).toEqual([422, 'Invalid', `Service "bad" is invalid: ${message}`]);
      expect(r.body.details?.causes?.[0]?.field).toBe(message.split(':')[0]);
    }
  });

  it('adds the secondary address when an update asks for dual-stack, and releases it on SingleStack', async () => {
    const s = await create(svc('grow'));
    const v4 = s.body.spec.clusterIP;
    const grown = await c.patch<Obj>('/api/v1/namespaces/ds/services/grow', { spec: { ipFamilyPolicy: 'PreferDualStack' } });
    expect(grown.body.spec.ipFamilies).toEqual(['IPv4', 'IPv6']);
    expect(grown.body.spec.clusterIPs).toEqual([v4, expect.stringMatching(V6)]);
    const v6 = grown.body.spec.clusterIPs[1] as string;
    const shrunk = await c.patch<Obj>('/api/v1/namespaces/ds/services/grow', { spec: { ipFamilyPolicy: 'SingleStack' } });
    expect([shrunk.body.spec.clusterIPs, shrunk.body.spec.ipFamilies]).toEqual([[v4], ['IPv4']]);
    // The secondary is free again: another Service may ask for it.
    expect((await create(svc('takes-v6', { ipFamilies: ['IPv6'], clusterIPs: [v6] }))).status).toBe(201);
    const flip = await c.patch<Status>('/api/v1/namespaces/ds/services/grow', { spec: { ipFamilies: ['IPv6'] } });
    // The primary family stays: the kept IPv4 address contradicts the new first family.
    expect([flip.status, flip.body.message]).toEqual([422, `Service "grow" is invalid: spec.clusterIPs[0]: Invalid value: []string{"${v4}"}: expected an IPv6 value as indicated by \`ipFamilies[0]\``]);
  });

  it('frees both addresses when the Service goes', async () => {
    const s = await create(svc('gone', { ipFamilyPolicy: 'RequireDualStack' }));
    await c.delete('/api/v1/namespaces/ds/services/gone');
    const again = await create(svc('again', { ipFamilyPolicy: 'RequireDualStack', clusterIPs: s.body.spec.clusterIPs }));
    expect([again.status, again.body.spec.clusterIPs]).toEqual([201, s.body.spec.clusterIPs]);
  });

  it('writes one EndpointSlice per family from the pods’ podIPs; Endpoints carry the primary family', async () => {
    await create(svc('web', { ipFamilyPolicy: 'PreferDualStack', ipFamilies: ['IPv6'], selector: { app: 'web' } }));
    await c.post('/api/v1/namespaces/ds/pods', {
      metadata: { name: 'w1', labels: { app: 'web' } },
      spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'x' }] },
      status: { phase: 'Running', podIP: '10.244.1.5', podIPs: [{ ip: '10.244.1.5' }, { ip: 'fd00:10:244:1::5' }], conditions: [{ type: 'Ready', status: 'True' }] },
    });
    const slices = await c.get<{ items: Slice[] }>('/apis/discovery.k8s.io/v1/namespaces/ds/endpointslices?labelSelector=kubernetes.io/service-name%3Dweb');
    const byType = Object.fromEntries(slices.body.items.map((x) => [x.addressType, x.endpoints.map((e) => e.addresses[0])]));
    expect(byType).toEqual({ IPv6: ['fd00:10:244:1::5'], IPv4: ['10.244.1.5'] });
    const ep = await c.get<{ subsets: { addresses: { ip: string }[] }[] }>('/api/v1/namespaces/ds/endpoints/web');
    expect(ep.body.subsets[0]?.addresses.map((a) => a.ip)).toEqual(['fd00:10:244:1::5']);
  });

  it('mirrors the Endpoints of a selectorless Service into one EndpointSlice per address family', async () => {
    await create(svc('imported', { ipFamilyPolicy: 'PreferDualStack' }));
    await c.post('/api/v1/namespaces/ds/endpoints', { metadata: { name: 'imported' }, subsets: [{ addresses: [{ ip: '10.111.0.5' }, { ip: 'fd00:111::5' }], ports: [{ port: 80, protocol: 'TCP' }] }] });
    const byType = await c.eventually(async () => {
      const items = (await c.get<{ items: Slice[] }>('/apis/discovery.k8s.io/v1/namespaces/ds/endpointslices?labelSelector=kubernetes.io/service-name%3Dimported')).body.items;
      return items.length === 2 ? Object.fromEntries(items.map((x) => [x.addressType, x.endpoints.map((e) => e.addresses[0])])) : undefined;
    }, 'two mirrored slices');
    expect(byType).toEqual({ IPv4: ['10.111.0.5'], IPv6: ['fd00:111::5'] });
  });

  it('gives each new Node one podCIDR per family, keeps them, and frees them with the Node', async () => {
    const n1 = await c.post<Obj>('/api/v1/nodes', { metadata: { name: 'n1' } });
    expect(n1.body.spec).toEqual({ podCIDR: '10.244.0.0/24', podCIDRs: ['10.244.0.0/24', 'fd00:10:244::/64'] });
    const n2 = await c.post<Obj>('/api/v1/nodes', { metadata: { name: 'n2' }, spec: {} });
    expect(n2.body.spec.podCIDRs).toEqual(['10.244.1.0/24', 'fd00:10:244:1::/64']);
    // Given podCIDRs are kept and held: the next Node does not get them.
    await c.post('/api/v1/nodes', { metadata: { name: 'n3' }, spec: { podCIDRs: ['10.244.2.0/24', 'fd00:10:244:2::/64'] } });
    expect((await c.post<Obj>('/api/v1/nodes', { metadata: { name: 'n4' } })).body.spec.podCIDRs).toEqual(['10.244.3.0/24', 'fd00:10:244:3::/64']);
    const change = await c.patch<Status>('/api/v1/nodes/n1', { spec: { podCIDRs: ['10.244.9.0/24'] } });
    expect([change.status, change.body.message]).toEqual([422, 'Node "n1" is invalid: [spec.podCIDRs[0]: Invalid value: "10.244.9.0/24": must match spec.podCIDR "10.244.0.0/24", spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid]']);
    const relabel = await c.patch<Obj>('/api/v1/nodes/n1', { metadata: { labels: { a: 'b' } } });
    expect(relabel.body.spec.podCIDRs).toEqual(['10.244.0.0/24', 'fd00:10:244::/64']);
    await c.delete('/api/v1/nodes/n2');
    expect((await c.post<Obj>('/api/v1/nodes', { metadata: { name: 'n5' } })).body.spec.podCIDRs).toEqual(['10.244.4.0/24', 'fd00:10:244:4::/64']);
  });

  it('refuses malformed podCIDRs naming the field', async () => {
    const bad = await c.post<Status>('/api/v1/nodes', { metadata: { name: 'bad' }, spec: { podCIDRs: ['10.244.7.0/24', '10.244.8.0/24'] } });
    expect([bad.status, bad.body.message]).toEqual([422, 'Node "bad" is invalid: spec.podCIDRs: Invalid value: []string{"10.244.7.0/24", "10.244.8.0/24"}: may specify no more than one CIDR for each IP family']);
    const junk = await c.post<Status>('/api/v1/nodes', { metadata: { name: 'bad' }, spec: { podCIDR: 'ten/24' } });
    expect(junk.body.details?.causes?.map((x) => x.field)).toEqual(['spec.podCIDRs[0]']);
  });
});

describe('a single-stack IPv4 cluster', () => {
  let server: KubeApiServer;
  let c: TestClient;
  beforeAll(async () => {
    ({ server, client: c } = await startTestServer({ serviceCIDR: '10.100.0.0/24' }));
    await c.post('/api/v1/namespaces', { metadata: { name: 'v4' } });
  });
  afterAll(() => server.stop());
  const create = (body: Record<string, unknown>) => c.post<Obj & Status>('/api/v1/namespaces/v4/services', body);

  it('refuses a family or dual-stack it does not have, as kube-apiserver', async () => {
    const require = await create(svc('req', { ipFamilyPolicy: 'RequireDualStack' }));
    expect([require.status, require.body.message]).toEqual([422, 'Service "req" is invalid: spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services']);
    const six = await create(svc('six', { ipFamilies: ['IPv6'] }));
    expect([six.status, six.body.message, six.body.details?.causes?.[0]?.field]).toEqual([422, 'Service "six" is invalid: spec.ipFamilies[0]: Invalid value: "IPv6": not configured on this cluster', 'spec.ipFamilies[0]']);
    const addr = await create(svc('addr', { clusterIP: 'fd00::10' }));
    expect([addr.status, addr.body.message]).toEqual([422, 'Service "addr" is invalid: spec.clusterIPs[0]: Invalid value: []string{"fd00::10"}: IPv6 is not configured on this cluster']);
  });

  it('falls back to the one family for PreferDualStack', async () => {
    const s = await create(svc('prefer', { ipFamilyPolicy: 'PreferDualStack' }));
    expect(s.body.spec).toMatchObject({ ipFamilyPolicy: 'PreferDualStack', ipFamilies: ['IPv4'], clusterIPs: [expect.stringMatching(V4)] });
  });

  it('leaves Nodes without podCIDRs when no cluster CIDR is configured, and defaults podCIDRs from podCIDR', async () => {
    const bare = await c.post<Obj & { spec?: unknown }>('/api/v1/nodes', { metadata: { name: 'bare' } });
    expect(bare.body.spec).toBeUndefined();
    const one = await c.post<Obj>('/api/v1/nodes', { metadata: { name: 'one' }, spec: { podCIDR: '10.10.1.0/24' } });
    expect(one.body.spec).toEqual({ podCIDR: '10.10.1.0/24', podCIDRs: ['10.10.1.0/24'] });
  });
});

describe('an IPv6-only cluster', () => {
  let server: KubeApiServer;
  let c: TestClient;
  beforeAll(async () => {
    ({ server, client: c } = await startTestServer({ serviceCIDR: 'fd00:10:96::/112', clusterCIDR: 'fd00:10:244::/56' }));
  });
  afterAll(() => server.stop());

  it('serves the kubernetes Service and new Services over IPv6 and gives Nodes an IPv6 podCIDR', async () => {
    const k = await c.get<Obj>('/api/v1/namespaces/default/services/kubernetes');
    expect([k.body.spec.clusterIP, k.body.spec.ipFamilies]).toEqual(['fd00:10:96::1', ['IPv6']]);
    const s = await c.post<Obj>('/api/v1/namespaces/default/services', svc('six', { ipFamilyPolicy: 'PreferDualStack' }));
    expect([s.body.spec.ipFamilies, s.body.spec.clusterIPs.length]).toEqual([['IPv6'], 1]);
    expect(s.body.spec.clusterIP).toMatch(V6);
    const n = await c.post<Obj>('/api/v1/nodes', { metadata: { name: 'n' } });
    expect(n.body.spec).toEqual({ podCIDR: 'fd00:10:244::/64', podCIDRs: ['fd00:10:244::/64'] });
  });

  it('refuses an unusable service CIDR at start, naming it', async () => {
    await expect(startTestServer({ serviceCIDR: 'fd00:10:96::/64' })).rejects.toThrow('invalid service CIDR "fd00:10:96::/64": an IPv6 service CIDR must be a /108 to /126 prefix such as fd00:10:96::/112');
    await expect(startTestServer({ serviceCIDR: '10.96.0.0/16,10.97.0.0/16' })).rejects.toThrow('a dual-stack service CIDR needs one IPv4 and one IPv6 prefix');
  });
});
