// Multi-cluster Service across three embedded API servers: export from west, import in east,
// merge when both export, port conflicts, unexport, local Services left alone, stale cleanup.
import type { EndpointSlice, Endpoints, ResourceExport, ResourceImport, Service, ServiceExport, ServiceImport } from '@switchyard/apis';
import { IMPORTED_ANNOTATION, type LeaderController, type MemberController } from '../src';
import { LEADER_NS, eventually, eventuallyPasses, memberController, nginx, serviceExport, startJoinedClusterSet, stopClusterSet, type ClusterSetEnv, type RunningClusterSet } from './support';

let env: ClusterSetEnv;
let leader: LeaderController;
let west: MemberController;
let east: MemberController;

const get = <T>(c: ClusterSetEnv['west'], args: string[]) => c.kubectl.maybe<T>(args);
const names = async (args: string[]): Promise<string[]> => ((await env.leader.kubectl.json<{ items: { metadata: { name: string } }[] }>(args)).items.map((i) => i.metadata.name)).sort();

beforeAll(async () => {
  // A stale export of west and a stale import, left by an earlier run: removed on start.
  const stale = (e: ClusterSetEnv) =>
    e.leader.kubectl.apply(
      { apiVersion: 'multicluster.crd.antrea.io/v1alpha1', kind: 'ResourceExport', metadata: { name: 'test-cluster-west-default-gone-service', namespace: LEADER_NS, labels: { sourceClusterID: 'test-cluster-west', sourceKind: 'Service' } }, spec: { clusterID: 'test-cluster-west', name: 'gone', namespace: 'default', kind: 'Service', service: { serviceSpec: { ports: [{ port: 1, protocol: 'TCP' }] } } } },
      { apiVersion: 'multicluster.crd.antrea.io/v1alpha1', kind: 'ResourceImport', metadata: { name: 'default-old-service', namespace: LEADER_NS }, spec: { name: 'old', namespace: 'default', kind: 'ServiceImport', clusters: ['test-cluster-x'], serviceImport: { spec: { ports: [{ port: 1, protocol: 'TCP' }], type: 'ClusterSetIP' } } } },
    );
  ({ env, leader, west, east } = await startJoinedClusterSet({ prepare: stale }));
});

afterAll(() => stopClusterSet({ env, leader, west, east }));

it('removes stale exports and imports on start', async () => {
  await eventuallyPasses(async () => {
    expect(await names(['-n', LEADER_NS, 'get', 'resourceexports'])).toEqual([]);
    expect(await names(['-n', LEADER_NS, 'get', 'resourceimports'])).toEqual([]);
  });
});

it('exports nginx from west and imports antrea-mc-nginx in east with its ports and endpoints', async () => {
  await nginx(env.west, ['10.10.1.5', '10.10.1.6']);
  await env.west.kubectl.apply(serviceExport('nginx'));
  await eventuallyPasses(async () => {
    expect(await names(['-n', LEADER_NS, 'get', 'resourceexports'])).toEqual(['test-cluster-west-default-nginx-endpoints', 'test-cluster-west-default-nginx-service']);
    expect(await names(['-n', LEADER_NS, 'get', 'resourceimports'])).toEqual(['default-nginx-endpoints', 'default-nginx-service']);
  });
  const westSvc = (await get<Service>(env.west, ['-n', 'default', 'get', 'svc', 'nginx']))!;
  const svc = await eventually(() => get<Service>(env.east, ['-n', 'default', 'get', 'svc', 'antrea-mc-nginx']));
  expect(svc.metadata.annotations?.[IMPORTED_ANNOTATION]).toBe('true');
  expect(svc.spec?.ports).toEqual([expect.objectContaining({ name: 'tcp80', port: 80, protocol: 'TCP' })]);
  expect(svc.spec?.clusterIP).toMatch(/^10\.102\./);
  const eps = await eventually(() => get<Endpoints>(env.east, ['-n', 'default', 'get', 'endpoints', 'antrea-mc-nginx']));
  expect(eps.subsets).toEqual([{ addresses: [{ ip: westSvc.spec?.clusterIP }], ports: [{ name: 'tcp80', port: 80, protocol: 'TCP' }] }]);
  const si = await eventually(async () => {
    const si = await get<ServiceImport>(env.east, ['-n', 'default', 'get', 'serviceimport', 'nginx']);
    expect(si?.spec.ips).toEqual([svc.spec?.clusterIP]);
    return si;
  });
  expect(si.spec).toMatchObject({ type: 'ClusterSetIP', ports: [{ name: 'tcp80', port: 80, protocol: 'TCP' }] });
  const se = await eventually(async () => {
    const se = await get<ServiceExport>(env.west, ['-n', 'default', 'get', 'serviceexport', 'nginx']);
    expect(se?.status?.conditions?.find((c) => c.type === 'Conflict')).toMatchObject({ status: 'False' });
    return se;
  });
  expect(se.status?.conditions?.[0]).toMatchObject({ type: 'Valid', status: 'True', reason: 'Succeed' });
  // west imports its own export too (the same multi-cluster Service everywhere).
  await eventuallyPasses(async () => expect(await get<Service>(env.west, ['-n', 'default', 'get', 'svc', 'antrea-mc-nginx'])).toBeDefined());
});

it('merges the endpoints when east exports the same Service', async () => {
  await nginx(env.east, ['10.20.1.5']);
  await env.east.kubectl.apply(serviceExport('nginx'));
  const westIP = (await get<Service>(env.west, ['-n', 'default', 'get', 'svc', 'nginx']))!.spec?.clusterIP;
  const eastIP = (await get<Service>(env.east, ['-n', 'default', 'get', 'svc', 'nginx']))!.spec?.clusterIP;
  await eventuallyPasses(async () => {
    const eps = (await get<Endpoints>(env.east, ['-n', 'default', 'get', 'endpoints', 'antrea-mc-nginx']))!;
    expect(eps.subsets?.flatMap((s) => s.addresses?.map((a) => a.ip)).sort()).toEqual([eastIP, westIP].sort());
    const ri = (await env.leader.kubectl.json<ResourceImport>(['-n', LEADER_NS, 'get', 'resourceimport', 'default-nginx-service']));
    expect(ri.spec.clusters).toEqual(['test-cluster-east', 'test-cluster-west']);
  });
});

it('keeps the first export on a port conflict and reports ConvergeFailure on the other', async () => {
  await env.east.kubectl.apply({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'nginx', namespace: 'default' }, spec: { selector: { app: 'nginx' }, ports: [{ name: 'tcp8080', port: 8080, targetPort: 80, protocol: 'TCP' }] } });
  const westIP = (await get<Service>(env.west, ['-n', 'default', 'get', 'svc', 'nginx']))!.spec?.clusterIP;
  await eventuallyPasses(async () => {
    const re = await env.leader.kubectl.json<ResourceExport>(['-n', LEADER_NS, 'get', 'resourceexport', 'test-cluster-east-default-nginx-service']);
    expect(re.status?.conditions?.[0]).toMatchObject({ type: 'Ready', status: 'False', reason: 'ConvergeFailure' });
    const se = (await get<ServiceExport>(env.east, ['-n', 'default', 'get', 'serviceexport', 'nginx']))!;
    expect(se.status?.conditions?.find((c) => c.type === 'Conflict')).toMatchObject({ status: 'True', reason: 'ConvergeFailure' });
    const eps = (await get<Endpoints>(env.east, ['-n', 'default', 'get', 'endpoints', 'antrea-mc-nginx']))!;
    expect(eps.subsets?.flatMap((s) => s.addresses?.map((a) => a.ip))).toEqual([westIP]);
  });
  const svc = (await get<Service>(env.east, ['-n', 'default', 'get', 'svc', 'antrea-mc-nginx']))!;
  expect(svc.spec?.ports?.map((p) => p.port)).toEqual([80]);
  // Fixing the ports ends the conflict.
  await env.east.kubectl.apply({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'nginx', namespace: 'default' }, spec: { selector: { app: 'nginx' }, ports: [{ name: 'tcp80', port: 80, targetPort: 80, protocol: 'TCP' }] } });
  await eventuallyPasses(async () => {
    const se = (await get<ServiceExport>(env.east, ['-n', 'default', 'get', 'serviceexport', 'nginx']))!;
    expect(se.status?.conditions?.find((c) => c.type === 'Conflict')).toMatchObject({ status: 'False' });
  });
});

it('gives a ServiceExport without a Service the ServiceNotFound reason and exports nothing', async () => {
  await env.west.kubectl.apply(serviceExport('nosuch'));
  await eventuallyPasses(async () => {
    const se = (await get<ServiceExport>(env.west, ['-n', 'default', 'get', 'serviceexport', 'nosuch']))!;
    expect(se.status?.conditions).toEqual([expect.objectContaining({ type: 'Valid', status: 'False', reason: 'ServiceNotFound', message: 'Service default/nosuch not found' })]);
  });
  expect((await names(['-n', LEADER_NS, 'get', 'resourceexports'])).filter((n) => n.includes('nosuch'))).toEqual([]);
});

it('never overwrites a local Service of the imported name that was not imported', async () => {
  await env.east.kubectl.apply({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'antrea-mc-web', namespace: 'default', labels: { owner: 'team-east' } }, spec: { ports: [{ port: 9999, protocol: 'TCP' }] } });
  await env.west.kubectl.apply({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { selector: { app: 'nginx' }, ports: [{ port: 80, protocol: 'TCP' }] } }, serviceExport('web'));
  // west imports web, so the export went all the way through.
  await eventuallyPasses(async () => expect(await get<Service>(env.west, ['-n', 'default', 'get', 'svc', 'antrea-mc-web'])).toBeDefined());
  // Instead of sleeping, a later export: its ResourceImports come after web's in east's watch of
  // the leader, and east plans every import pass from all it has seen. Once the later ServiceImport
  // has its status (patched after the pass's Service, Endpoints and ServiceImport writes have all
  // finished), east has made its decision about web, so the negatives below are not vacuous.
  await env.west.kubectl.apply({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'later', namespace: 'default' }, spec: { selector: { app: 'nginx' }, ports: [{ port: 8080, protocol: 'TCP' }] } }, serviceExport('later'));
  await eventuallyPasses(async () => expect((await get<ServiceImport>(env.east, ['-n', 'default', 'get', 'serviceimport', 'later']))?.status?.clusters).toEqual([{ cluster: 'test-cluster-west' }]));
  const local = (await get<Service>(env.east, ['-n', 'default', 'get', 'svc', 'antrea-mc-web']))!;
  expect(local.metadata.annotations?.[IMPORTED_ANNOTATION]).toBeUndefined();
  expect(local.spec?.ports?.map((p) => p.port)).toEqual([9999]);
  expect(await get(env.east, ['-n', 'default', 'get', 'serviceimport', 'web'])).toBeUndefined();
  // The probe export goes again, so the tests below start from nginx and web only.
  await env.west.kubectl.ok(['-n', 'default', 'delete', 'serviceexport', 'later']);
  await env.west.kubectl.ok(['-n', 'default', 'delete', 'svc', 'later']);
  await eventuallyPasses(async () => expect(await get(env.east, ['-n', 'default', 'get', 'serviceimport', 'later'])).toBeUndefined());
});

it('unexport removes the exports in the leader and the imports in the members', async () => {
  await env.west.kubectl.ok(['-n', 'default', 'delete', 'serviceexport', 'nginx', 'web']);
  await env.east.kubectl.ok(['-n', 'default', 'delete', 'serviceexport', 'nginx']);
  await eventuallyPasses(async () => {
    expect(await names(['-n', LEADER_NS, 'get', 'resourceexports'])).toEqual([]);
    expect(await names(['-n', LEADER_NS, 'get', 'resourceimports'])).toEqual([]);
    for (const m of [env.west, env.east]) {
      expect(await get(m, ['-n', 'default', 'get', 'svc', 'antrea-mc-nginx'])).toBeUndefined();
      expect(await get(m, ['-n', 'default', 'get', 'endpoints', 'antrea-mc-nginx'])).toBeUndefined();
      expect(await get(m, ['-n', 'default', 'get', 'serviceimport', 'nginx'])).toBeUndefined();
    }
  });
  // The local Service that was in the way is still there.
  expect(await get(env.east, ['-n', 'default', 'get', 'svc', 'antrea-mc-web'])).toBeDefined();
});

it('a member whose ClusterSet is deleted takes its exports and announce out of the leader and deletes its imports', async () => {
  await env.west.kubectl.apply(serviceExport('nginx'));
  await eventuallyPasses(async () => expect(await get<Service>(env.east, ['-n', 'default', 'get', 'svc', 'antrea-mc-nginx'])).toBeDefined());
  await eventuallyPasses(async () => expect(await get<Service>(env.west, ['-n', 'default', 'get', 'svc', 'antrea-mc-nginx'])).toBeDefined());
  await env.west.kubectl.ok(['-n', 'kube-system', 'delete', 'clusterset', 'test-clusterset']);
  await eventuallyPasses(async () => {
    expect((await names(['-n', LEADER_NS, 'get', 'resourceexports'])).filter((n) => n.startsWith('test-cluster-west-'))).toEqual([]);
    expect(await names(['-n', LEADER_NS, 'get', 'memberclusterannounces'])).toEqual(['member-announce-from-test-cluster-east']);
    expect(await get(env.west, ['-n', 'default', 'get', 'svc', 'antrea-mc-nginx'])).toBeUndefined();
    expect(await get(env.west, ['-n', 'default', 'get', 'serviceimport', 'nginx'])).toBeUndefined();
    // west was the only exporter, so east's import goes too.
    expect(await get(env.east, ['-n', 'default', 'get', 'svc', 'antrea-mc-nginx'])).toBeUndefined();
  });
  expect(west.connected).toBe(false);
  // The Service that was exported, and the local Service that was in the way, are untouched.
  expect(await get(env.west, ['-n', 'default', 'get', 'svc', 'nginx'])).toBeDefined();
  expect(await get(env.east, ['-n', 'default', 'get', 'svc', 'antrea-mc-web'])).toBeDefined();
});

it('marks a hand-written malformed ResourceExport InvalidSpec and keeps converging the others', async () => {
  await env.leader.kubectl.apply({ apiVersion: 'multicluster.crd.antrea.io/v1alpha1', kind: 'ResourceExport', metadata: { name: 'by-hand', namespace: LEADER_NS }, spec: { kind: 'Service', clusterID: 'test-cluster-east', namespace: 'default', service: { serviceSpec: { ports: [{ port: 80 }] } } } });
  await eventuallyPasses(async () => {
    const re = await env.leader.kubectl.json<ResourceExport>(['-n', LEADER_NS, 'get', 'resourceexport', 'by-hand']);
    expect(re.status?.conditions?.[0]).toMatchObject({ type: 'Ready', status: 'False', reason: 'InvalidSpec', message: 'spec.name is required for kind Service' });
  });
  // And a Warning Event on it, once (not one per merge pass).
  const events = async () => (await env.leader.kubectl.json<{ items: { reason: string; type: string; message: string; involvedObject: { kind: string; name: string } }[] }>(['-n', LEADER_NS, 'get', 'events', '--field-selector', 'involvedObject.name=by-hand'])).items;
  await eventuallyPasses(async () => expect(await events()).toEqual([expect.objectContaining({ reason: 'InvalidSpec', type: 'Warning', message: 'spec.name is required for kind Service', involvedObject: expect.objectContaining({ kind: 'ResourceExport', name: 'by-hand' }) })]));
  await env.east.kubectl.apply(serviceExport('web'));
  await env.east.kubectl.apply({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { selector: { app: 'nginx' }, ports: [{ port: 80, protocol: 'TCP' }] } });
  await eventuallyPasses(async () => expect(await names(['-n', LEADER_NS, 'get', 'resourceimports'])).toEqual(['default-web-endpoints', 'default-web-service']));
  expect(await events()).toHaveLength(1);
});

it("deleting the leader's ClusterSet removes its ResourceImports and the members' announces", async () => {
  expect(await names(['-n', LEADER_NS, 'get', 'memberclusterannounces'])).toEqual(['member-announce-from-test-cluster-east']);
  await env.leader.kubectl.ok(['-n', LEADER_NS, 'delete', 'clusterset', 'test-clusterset']);
  await eventuallyPasses(async () => {
    expect(await names(['-n', LEADER_NS, 'get', 'resourceimports'])).toEqual([]);
    expect(await names(['-n', LEADER_NS, 'get', 'memberclusterannounces'])).toEqual([]);
  });
});

describe('a dual-stack Service exported from a dual-stack west', () => {
  let dual: RunningClusterSet;
  beforeAll(async () => {
    dual = await startJoinedClusterSet({ westServiceCIDR: '10.101.0.0/16,fd00:101::/108' });
  });
  afterAll(() => stopClusterSet(dual));

  it('is imported dual-stack in west itself and IPv4-only in the IPv4-only east (PreferDualStack), with both exported ClusterIPs as endpoints', async () => {
    const { west: w, east: e } = dual.env;
    await w.kubectl.apply({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { selector: { app: 'web' }, ipFamilyPolicy: 'RequireDualStack', ipFamilies: ['IPv4', 'IPv6'], ports: [{ name: 'http', port: 80, protocol: 'TCP' }] } });
    await w.kube.request('POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-0', namespace: 'default', labels: { app: 'web' } }, spec: { nodeName: 'node-1', containers: [{ name: 'web', image: 'web' }] } });
    await w.kube.request('PATCH', '/api/v1/namespaces/default/pods/web-0/status', { status: { phase: 'Running', podIP: '10.10.1.7', podIPs: [{ ip: '10.10.1.7' }, { ip: 'fd00:10:1::7' }], conditions: [{ type: 'Ready', status: 'True' }] } }, 'application/merge-patch+json');
    await w.kubectl.apply(serviceExport('web'));
    const exported = (await get<Service>(w, ['-n', 'default', 'get', 'svc', 'web']))!;
    expect(exported.spec?.clusterIPs).toHaveLength(2);
    // east (IPv4 only): its own family alone.
    const inEast = await eventually(async () => {
      const svc = await get<Service>(e, ['-n', 'default', 'get', 'svc', 'antrea-mc-web']);
      return svc?.spec?.ipFamilyPolicy === 'PreferDualStack' ? svc : undefined;
    });
    expect(inEast.spec?.ipFamilies).toEqual(['IPv4']);
    expect(inEast.spec?.clusterIPs).toEqual([expect.stringMatching(/^10\.102\./)]);
    const eps = await eventually(() => get<Endpoints>(e, ['-n', 'default', 'get', 'endpoints', 'antrea-mc-web']));
    expect(eps.subsets?.[0]?.addresses).toEqual(exported.spec!.clusterIPs!.map((ip) => ({ ip })));
    // west (dual-stack) imports its own export with both families, and its ServiceImport has both ClusterIPs.
    const inWest = await eventually(async () => {
      const svc = await get<Service>(w, ['-n', 'default', 'get', 'svc', 'antrea-mc-web']);
      return svc?.spec?.clusterIPs?.length === 2 ? svc : undefined;
    });
    expect(inWest.spec?.ipFamilies).toEqual(['IPv4', 'IPv6']);
    expect(inWest.spec?.clusterIPs?.[1]).toMatch(/^fd00:101:/);
    await eventuallyPasses(async () => {
      const si = await get<ServiceImport>(w, ['-n', 'default', 'get', 'serviceimport', 'web']);
      expect(si?.spec).toMatchObject({ ips: inWest.spec?.clusterIPs, ipFamilies: ['IPv4', 'IPv6'] });
    });
    // The leader's ServiceImport names both families.
    const ri = await eventually(() => dual.env.leader.kubectl.maybe<ResourceImport>(['-n', LEADER_NS, 'get', 'resourceimport', 'default-web-service']));
    expect(ri.spec.serviceImport?.spec.ipFamilies).toEqual(['IPv4', 'IPv6']);
  });

  it("exports the pod IPs of both families with endpointIPType PodIP (the IPv6 one from the Service's IPv6 EndpointSlice), imported into one EndpointSlice per family", async () => {
    const { west: w, east: e } = dual.env;
    // west's Endpoints hold the primary family only; its EndpointSlices one per family.
    expect((await get<Endpoints>(w, ['-n', 'default', 'get', 'endpoints', 'web']))?.subsets?.[0]?.addresses?.map((a) => a.ip)).toEqual(['10.10.1.7']);
    await dual.west.stop();
    dual.west = memberController(w, { endpointIPType: 'PodIP' });
    await dual.west.start();
    const podIPs = ['10.10.1.7', 'fd00:10:1::7'];
    const ips = (eps: Endpoints | undefined): string[] => (eps?.subsets ?? []).flatMap((s) => (s.addresses ?? []).map((a) => a.ip));
    await eventuallyPasses(async () => {
      const re = await dual.env.leader.kubectl.maybe<ResourceExport>(['-n', LEADER_NS, 'get', 'resourceexport', 'test-cluster-west-default-web-endpoints']);
      expect(re?.spec.endpoints?.subsets).toEqual([{ addresses: podIPs.map((ip) => ({ ip })), ports: [{ name: 'http', port: 80, protocol: 'TCP' }] }]);
    });
    for (const c of [w, e]) {
      await eventuallyPasses(async () => expect(ips(await get<Endpoints>(c, ['-n', 'default', 'get', 'endpoints', 'antrea-mc-web']))).toEqual(podIPs));
      await eventuallyPasses(async () => {
        const slices = (await c.kubectl.json<{ items: EndpointSlice[] }>(['-n', 'default', 'get', 'endpointslices', '-l', 'kubernetes.io/service-name=antrea-mc-web'])).items;
        expect(slices.map((sl) => [sl.addressType, sl.endpoints.map((x) => x.addresses[0])]).sort()).toEqual([['IPv4', ['10.10.1.7']], ['IPv6', ['fd00:10:1::7']]]);
      });
    }
  });
});
