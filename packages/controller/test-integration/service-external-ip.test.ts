// ServiceExternalIP against the embedded API server: LoadBalancer Services annotated with an
// ExternalIPPool get status.loadBalancer.ingress IPs (lowest free first, loadBalancerIP honoured),
// the pool's status.usage follows; bad input (exhausted pool, an IP outside every pool, two Services
// asking for one IP, a missing pool, a pool deleted while in use, ranges that do not parse) leaves
// the Service pending with an Event naming field and value and disturbs no other Service; a
// restarted controller keeps every IP; an IPv6 pool hands out IPv6 IPs in RFC 5952 text. On a
// dual-stack API server: one IP per family of the Service (both for a dual-stack one, in the order
// of spec.ipFamilies), a family the pool has no range of named in a Warning (PreferDualStack gets
// the other alone, RequireDualStack none until the pool gains it), and kept across a restart.
import type { Event, ExternalIPPool, Service } from '@switchyard/apis/types';
import type { Controller } from '../src/controller';
import type { ServiceExternalIP } from '../src/parts/service-external-ip';
import { eventually, eventuallyPasses, startCluster, type Cluster } from './support';

let c: Cluster;
let controller: Controller | undefined;
const NS = 'lb';
const POOLS = '/apis/crd.antrea.io/v1beta1/externalippools';
const SVCS = `/api/v1/namespaces/${NS}/services`;

beforeAll(async () => {
  c = await startCluster({ serviceCIDR: '10.96.0.0/16,fd00:10:96::/112' });
  await c.kube.request('POST', '/api/v1/namespaces', { metadata: { name: NS } });
  await createPool('p', [{ start: '10.10.0.2', end: '10.10.0.4' }]);
  controller = await c.startController({ serviceExternalIP: true, registerAPIService: false });
});
afterAll(async () => {
  await controller?.stop();
  await c?.api.stop();
});

async function createPool(name: string, ipRanges: ExternalIPPool['spec']['ipRanges']): Promise<void> {
  await c.kube.request('POST', POOLS, { apiVersion: 'crd.antrea.io/v1beta1', kind: 'ExternalIPPool', metadata: { name }, spec: { ipRanges, nodeSelector: {} } });
}
async function createService(name: string, pool: string | undefined, spec: Service['spec'] = {}): Promise<void> {
  const annotations = pool === undefined ? {} : { 'service.antrea.io/external-ip-pool': pool };
  await c.kube.request('POST', SVCS, { metadata: { name, annotations }, spec: { type: 'LoadBalancer', ports: [{ port: 80 }], ...spec } });
}
const getService = (name: string): Promise<Service> => c.kube.request<Service>('GET', `${SVCS}/${name}`);
const ingressOf = async (name: string): Promise<string[]> => ((await getService(name)).status?.loadBalancer?.ingress ?? []).map((i) => i.ip ?? '');
/** Waits until the Service's ingress is exactly `ips`. */
const ingressBecomes = (name: string, ips: string[]): Promise<void> => eventuallyPasses(async () => expect(await ingressOf(name)).toEqual(ips));
const usageOf = async (pool: string): Promise<unknown> => (await c.kube.request<ExternalIPPool>('GET', `${POOLS}/${pool}`)).status?.usage;
const usageBecomes = (pool: string, usage: { total: number; used: number }): Promise<void> => eventuallyPasses(async () => expect(await usageOf(pool)).toEqual(usage));
/** The Events about one object, oldest first. */
async function eventsOf(name: string, ns = NS): Promise<Event[]> {
  const list = await c.kube.request<{ items: Event[] }>('GET', `/api/v1/namespaces/${ns}/events`);
  return list.items.filter((e) => e.involvedObject.name === name);
}
/** Waits for an Event of `reason` about `name` and answers its message. */
const eventSaid = (name: string, reason: string, ns = NS): Promise<string> => eventually(async () => (await eventsOf(name, ns)).find((e) => e.reason === reason)?.message);
const part = (): ServiceExternalIP => controller!.part<ServiceExternalIP>('serviceExternalIP');

describe('ServiceExternalIP', () => {
  test('a Service gets the lowest free IP of its pool in status.loadBalancer.ingress, with an Event, and the pool counts it', async () => {
    await createService('a', 'p');
    await ingressBecomes('a', ['10.10.0.2']);
    expect(await eventSaid('a', 'ExternalIPAllocated')).toBe('external IP 10.10.0.2 allocated from ExternalIPPool p');
    await usageBecomes('p', { total: 3, used: 1 });
  });

  test('spec.loadBalancerIP is honoured', async () => {
    await createService('b', 'p', { loadBalancerIP: '10.10.0.4' });
    await ingressBecomes('b', ['10.10.0.4']);
  });

  test('an exhausted pool leaves the next Service pending with an Event; it gets the IP another Service releases', async () => {
    await createService('c', 'p');
    await ingressBecomes('c', ['10.10.0.3']);
    await createService('d', 'p');
    expect(await eventSaid('d', 'ExternalIPPoolExhausted')).toBe(
      'metadata.annotations[service.antrea.io/external-ip-pool]: Invalid value: "p": ExternalIPPool p has no free IPv4 IP (3 of 3 in use); the Service stays pending until one is released',
    );
    expect(await ingressOf('d')).toEqual([]);
    await usageBecomes('p', { total: 3, used: 3 });
    await c.kube.request('DELETE', `${SVCS}/a`);
    await ingressBecomes('d', ['10.10.0.2']);
    expect(await ingressOf('b')).toEqual(['10.10.0.4']);
    expect(await ingressOf('c')).toEqual(['10.10.0.3']);
  });

  test('a second Service asking for a loadBalancerIP in use stays pending; the first keeps it', async () => {
    await createService('e', 'p', { loadBalancerIP: '10.10.0.4' });
    expect(await eventSaid('e', 'LoadBalancerIPInUse')).toContain('spec.loadBalancerIP: Invalid value: "10.10.0.4": already allocated to Service lb/b');
    expect(await ingressOf('e')).toEqual([]);
    expect(await ingressOf('b')).toEqual(['10.10.0.4']);
  });

  test('a loadBalancerIP outside every pool, a malformed one and a pool that does not exist: pending with an Event naming field and value', async () => {
    await createService('f', 'p', { loadBalancerIP: '192.0.2.99' });
    expect(await eventSaid('f', 'LoadBalancerIPNotInPool')).toBe('spec.loadBalancerIP: Invalid value: "192.0.2.99": not in ExternalIPPool p; it is in no ExternalIPPool');
    await createService('f2', 'p', { loadBalancerIP: '10.10.0.300' });
    expect(await eventSaid('f2', 'InvalidLoadBalancerIP')).toBe('spec.loadBalancerIP: Invalid value: "10.10.0.300": not an IP address');
    await createService('g', 'later');
    expect(await eventSaid('g', 'ExternalIPPoolNotFound')).toBe('metadata.annotations[service.antrea.io/external-ip-pool]: Invalid value: "later": ExternalIPPool later not found; the Service stays pending until it exists');
    // The pool appears: the waiting Service gets its IP.
    await createPool('later', [{ cidr: '10.20.0.0/30' }]);
    await ingressBecomes('g', ['10.20.0.1']);
    await usageBecomes('later', { total: 2, used: 1 });
    for (const s of ['f', 'f2', 'e']) expect(await ingressOf(s)).toEqual([]);
  });

  test('a type change and a removed annotation release the IP (status cleared); the pending Service takes it', async () => {
    const c1 = await getService('c');
    await c.kube.request('PUT', `${SVCS}/c`, { ...c1, spec: { ...c1.spec, type: 'ClusterIP' } });
    await ingressBecomes('c', []);
    expect(await eventSaid('c', 'ExternalIPReleased')).toContain('external IP 10.10.0.3 of ExternalIPPool p released');
    // d and b hold .2 and .4; e waits for .4, so nobody else takes .3 until a new Service asks.
    await usageBecomes('p', { total: 3, used: 2 });
    const b = await getService('b');
    await c.kube.request('PUT', `${SVCS}/b`, { ...b, metadata: { ...b.metadata, annotations: {} } });
    await ingressBecomes('b', []);
    // e asked for 10.10.0.4 first: it is free now.
    await ingressBecomes('e', ['10.10.0.4']);
  });

  test('a pool deleted while in use: its Services lose their ingress with an Event; no other Service loses its IP', async () => {
    await createPool('doomed', [{ start: '10.30.0.1', end: '10.30.0.2' }]);
    await createService('h1', 'doomed');
    await createService('h2', 'doomed');
    await ingressBecomes('h1', ['10.30.0.1']);
    await ingressBecomes('h2', ['10.30.0.2']);
    const others = { d: await ingressOf('d'), e: await ingressOf('e'), g: await ingressOf('g') };
    await c.kube.request('DELETE', `${POOLS}/doomed`);
    await ingressBecomes('h1', []);
    await ingressBecomes('h2', []);
    expect(await eventSaid('h1', 'ExternalIPPoolDeleted')).toBe('metadata.annotations[service.antrea.io/external-ip-pool]: Invalid value: "doomed": ExternalIPPool doomed was deleted; external IP 10.30.0.1 released');
    expect({ d: await ingressOf('d'), e: await ingressOf('e'), g: await ingressOf('g') }).toEqual(others);
    expect(others).toEqual({ d: ['10.10.0.2'], e: ['10.10.0.4'], g: ['10.20.0.1'] });
  });

  test('a pool whose ranges do not parse (stored without the webhook) gets an Event naming the field and value, and hands out its good ranges', async () => {
    await createPool('half', [{ start: '10.40.0.9', end: '10.40.0.1' }, { cidr: '10.40.1.0/30' }]);
    expect(await eventSaid('half', 'InvalidIPRange', 'default')).toBe('spec.ipRanges[0].end: Invalid value: "10.40.0.1": must not be below start 10.40.0.9 (the other ranges are used)');
    await createService('i', 'half');
    await ingressBecomes('i', ['10.40.1.1']);
    await usageBecomes('half', { total: 2, used: 1 });
  });

  test('a restarted controller keeps every IP: Services deleted while it was down free theirs, new ones get a free IP', async () => {
    const before = Object.fromEntries(await Promise.all(['d', 'e', 'g', 'i', 'h1', 'f'].map(async (s) => [s, await ingressOf(s)] as const)));
    await controller!.stop();
    // While no controller runs: one holder goes, and a Service arrives asking for the IP a held one has.
    await c.kube.request('DELETE', `${SVCS}/g`);
    await createService('j', 'p', { loadBalancerIP: '10.10.0.2' });
    await createService('k', 'p');
    controller = await c.startController({ serviceExternalIP: true, registerAPIService: false });
    await part().idle();
    // k gets the free .3; j stays pending (d keeps .2); g's .1 of `later` is free again.
    await ingressBecomes('k', ['10.10.0.3']);
    expect(await eventSaid('j', 'LoadBalancerIPInUse')).toContain('already allocated to Service lb/d');
    await usageBecomes('later', { total: 2, used: 0 });
    await usageBecomes('p', { total: 3, used: 3 });
    const after = Object.fromEntries(await Promise.all(['d', 'e', 'i', 'h1', 'f'].map(async (s) => [s, await ingressOf(s)] as const)));
    expect(after).toEqual({ d: before.d, e: before.e, i: before.i, h1: before.h1, f: before.f });
    expect(controller.health().parts.find((p) => p.name === 'serviceExternalIP')).toMatchObject({ ok: true });
  });

  test('an IPv6 pool: an IPv6 Service gets its lowest free IPv6 IP, and a spec.loadBalancerIP in a longer IPv6 spelling is written in the RFC 5952 text the agents read', async () => {
    await createPool('p6', [{ start: 'fd00:77::c8', end: 'fd00:77::ca' }]);
    await createService('v6', 'p6', { ipFamilies: ['IPv6'] });
    await ingressBecomes('v6', ['fd00:77::c8']);
    await createService('v6b', 'p6', { ipFamilies: ['IPv6'], loadBalancerIP: 'fd00:77:0:0:0:0:0:ca' });
    await ingressBecomes('v6b', ['fd00:77::ca']);
    await usageBecomes('p6', { total: 3, used: 2 });
  });
});

describe('ServiceExternalIP for dual-stack Services (one IP per family)', () => {
  const POOL_FIELD = 'metadata.annotations[service.antrea.io/external-ip-pool]: Invalid value:';
  const DS = [{ start: '10.50.0.1', end: '10.50.0.2' }, { start: 'fd00:50::1', end: 'fd00:50::2' }];

  test('a dual-stack Service gets an IP of each family from the pool\'s ranges of that family, in the order of spec.ipFamilies, each with an Event; the pool counts both', async () => {
    // IPv6 first in the pool: a family's IP comes from that family's ranges, whatever their order.
    await createPool('ds', [DS[1]!, DS[0]!]);
    await createService('ds1', 'ds', { ipFamilyPolicy: 'RequireDualStack', ipFamilies: ['IPv4', 'IPv6'] });
    await ingressBecomes('ds1', ['10.50.0.1', 'fd00:50::1']);
    await createService('ds2', 'ds', { ipFamilyPolicy: 'PreferDualStack', ipFamilies: ['IPv6', 'IPv4'] });
    await ingressBecomes('ds2', ['fd00:50::2', '10.50.0.2']);
    // Events are written after the status, one per IP: wait for both rather than read once.
    const allocated = async (): Promise<string[]> => (await eventsOf('ds2')).filter((e) => e.reason === 'ExternalIPAllocated').map((e) => e.message ?? '').sort();
    await eventuallyPasses(async () => expect(await allocated()).toEqual(['external IP 10.50.0.2 allocated from ExternalIPPool ds', 'external IP fd00:50::2 allocated from ExternalIPPool ds']));
    await usageBecomes('ds', { total: 4, used: 4 });
  });

  test('a loadBalancerIP names the IP of its family; the other family\'s IP is the pool\'s lowest free one', async () => {
    await createPool('ds-lb', [{ start: '10.51.0.1', end: '10.51.0.2' }, { start: 'fd00:51::1', end: 'fd00:51::2' }]);
    await createService('ds-lb1', 'ds-lb', { ipFamilyPolicy: 'RequireDualStack', ipFamilies: ['IPv4', 'IPv6'], loadBalancerIP: 'fd00:51::2' });
    await ingressBecomes('ds-lb1', ['10.51.0.1', 'fd00:51::2']);
  });

  test('a family exhausted in the pool: PreferDualStack gets the other alone with a Warning naming the family; RequireDualStack stays pending and holds nothing', async () => {
    // ds is full: IPv4 and IPv6 alike. A pool with a free IPv6 IP and no free IPv4 one:
    await createPool('ds-half', [{ start: '10.52.0.1', end: '10.52.0.1' }, { start: 'fd00:52::1', end: 'fd00:52::3' }]);
    await createService('half-v4', 'ds-half');
    await ingressBecomes('half-v4', ['10.52.0.1']);
    await createService('half-prefer', 'ds-half', { ipFamilyPolicy: 'PreferDualStack', ipFamilies: ['IPv4', 'IPv6'] });
    await ingressBecomes('half-prefer', ['fd00:52::1']);
    expect(await eventSaid('half-prefer', 'ExternalIPPoolExhausted')).toBe(`${POOL_FIELD} "ds-half": ExternalIPPool ds-half has no free IPv4 IP (1 of 1 in use); the Service has its IPv6 external IP alone until one is released`);
    await createService('half-require', 'ds-half', { ipFamilyPolicy: 'RequireDualStack', ipFamilies: ['IPv4', 'IPv6'] });
    expect(await eventSaid('half-require', 'ExternalIPPoolExhausted')).toContain('has no free IPv4 IP (1 of 1 in use); the Service stays pending until one is released');
    expect(await ingressOf('half-require')).toEqual([]);
    // The IPv6 IP it was about to take stays free: the pool counts the IPv4 one and half-prefer's.
    await usageBecomes('ds-half', { total: 4, used: 2 });
    // The IPv4 IP is released: the older PreferDualStack Service takes it, and the RequireDualStack one keeps waiting.
    await c.kube.request('DELETE', `${SVCS}/half-v4`);
    await ingressBecomes('half-prefer', ['10.52.0.1', 'fd00:52::1']);
    expect(await ingressOf('half-require')).toEqual([]);
  });

  test('a pool without a range of one family: PreferDualStack gets the other alone, RequireDualStack and a SingleStack Service of that family none, each told which family; once the pool has it, each gets it', async () => {
    await createPool('only6', [{ start: 'fd00:53::1', end: 'fd00:53::4' }]);
    await createService('o-prefer', 'only6', { ipFamilyPolicy: 'PreferDualStack', ipFamilies: ['IPv4', 'IPv6'] });
    await createService('o-require', 'only6', { ipFamilyPolicy: 'RequireDualStack', ipFamilies: ['IPv6', 'IPv4'] });
    await createService('o-v4', 'only6');
    await ingressBecomes('o-prefer', ['fd00:53::1']);
    expect(await eventSaid('o-prefer', 'ExternalIPFamilyNotInPool')).toBe(
      `${POOL_FIELD} "only6": ExternalIPPool only6 has no IPv4 range; the Service gets its IPv6 external IP alone (spec.ipFamilies ["IPv4","IPv6"], spec.ipFamilyPolicy PreferDualStack)`,
    );
    expect(await eventSaid('o-require', 'ExternalIPFamilyNotInPool')).toBe(
      `${POOL_FIELD} "only6": ExternalIPPool only6 has no IPv4 range; spec.ipFamilyPolicy RequireDualStack needs an external IP of each of spec.ipFamilies ["IPv6","IPv4"]; the Service stays pending until the pool has one`,
    );
    expect(await eventSaid('o-v4', 'ExternalIPFamilyNotInPool')).toBe(`${POOL_FIELD} "only6": ExternalIPPool only6 has no IPv4 range; spec.ipFamilies ["IPv4"] asks for IPv4; the Service stays pending until the pool has one`);
    expect(await ingressOf('o-require')).toEqual([]);
    expect(await ingressOf('o-v4')).toEqual([]);
    await usageBecomes('only6', { total: 4, used: 1 });
    // The pool gains an IPv4 range (adding ranges is allowed).
    const pool = await c.kube.request<ExternalIPPool>('GET', `${POOLS}/only6`);
    await c.kube.request('PUT', `${POOLS}/only6`, { ...pool, spec: { ...pool.spec, ipRanges: [...pool.spec.ipRanges, { start: '10.53.0.1', end: '10.53.0.4' }] } });
    await ingressBecomes('o-prefer', ['10.53.0.1', 'fd00:53::1']);
    await ingressBecomes('o-require', ['fd00:53::2', '10.53.0.2']);
    await ingressBecomes('o-v4', ['10.53.0.3']);
  });

  test('a loadBalancerIP of a family the Service does not have: pending, naming field, value and the families', async () => {
    await createService('wrong-family', 'only6', { loadBalancerIP: 'fd00:53::4' });
    expect(await eventSaid('wrong-family', 'LoadBalancerIPFamilyMismatch')).toBe('spec.loadBalancerIP: Invalid value: "fd00:53::4": an IPv6 address, and spec.ipFamilies is ["IPv4"]; the Service stays pending until they agree');
    expect(await ingressOf('wrong-family')).toEqual([]);
  });

  test('a restarted controller keeps both IPs of every dual-stack Service', async () => {
    const names = ['ds1', 'ds2', 'ds-lb1', 'half-prefer', 'o-prefer', 'o-require', 'o-v4'];
    const before = Object.fromEntries(await Promise.all(names.map(async (s) => [s, await ingressOf(s)] as const)));
    await controller!.stop();
    await createService('late', 'only6', { ipFamilyPolicy: 'RequireDualStack', ipFamilies: ['IPv4', 'IPv6'] });
    controller = await c.startController({ serviceExternalIP: true, registerAPIService: false });
    await part().idle();
    // The one IPv4 and IPv6 IP left of only6 go to the new Service; nobody else's moved.
    await ingressBecomes('late', ['10.53.0.4', 'fd00:53::3']);
    expect(Object.fromEntries(await Promise.all(names.map(async (s) => [s, await ingressOf(s)] as const)))).toEqual(before);
    expect(before['o-require']).toEqual(['fd00:53::2', '10.53.0.2']);
  });
});
