// The Egress part against the embedded API server, with ServiceExternalIP on (one allocator for
// both): an Egress naming an ExternalIPPool gets the lowest free IP in spec.egressIP with
// IPAllocated=True and an Event; a Service and an Egress never get the same IP; a malformed IP, an
// IP outside every pool, an IP held by a Service, an exhausted pool and a missing pool each leave the
// Egress without an IP, with IPAllocated=False and an Event naming field and value, while the other
// Egresses keep theirs; a restarted controller keeps every IP; an IPv6 pool gives an IPv6 IP, and a
// dual-stack Egress one IP from each of its pools.
import type { Egress, Event, ExternalIPPool, Service } from '@switchyard/apis/types';
import type { Controller } from '../src/controller';
import type { EgressController } from '../src/parts/egress';
import type { controlplane } from '@switchyard/apis';
import { ControlplaneClient } from '@switchyard/controlplane-client';
import { createPod, eventually, eventuallyPasses, NODE_TOKENS, startCluster, type Cluster } from './support';

let c: Cluster;
let controller: Controller | undefined;
const NS = 'eg';
const POOLS = '/apis/crd.antrea.io/v1beta1/externalippools';
const EGRESSES = '/apis/crd.antrea.io/v1beta1/egresses';
const SVCS = `/api/v1/namespaces/${NS}/services`;
const OPTIONS = { serviceExternalIP: true, egress: true, registerAPIService: false } as const;

beforeAll(async () => {
  c = await startCluster();
  await c.kube.request('POST', '/api/v1/namespaces', { metadata: { name: NS } });
  await c.kube.request('POST', POOLS, { apiVersion: 'crd.antrea.io/v1beta1', kind: 'ExternalIPPool', metadata: { name: 'p' }, spec: { ipRanges: [{ start: '10.10.0.2', end: '10.10.0.4' }], nodeSelector: {} } });
  controller = await c.startController(OPTIONS);
});
afterAll(async () => {
  await controller?.stop();
  await c?.api.stop();
});

async function createEgress(name: string, spec: Partial<Egress['spec']>): Promise<void> {
  await c.kube.request('POST', EGRESSES, { apiVersion: 'crd.antrea.io/v1beta1', kind: 'Egress', metadata: { name }, spec: { appliedTo: { podSelector: { matchLabels: { app: name } } }, ...spec } });
}
const getEgress = (name: string): Promise<Egress> => c.kube.request<Egress>('GET', `${EGRESSES}/${name}`);
const ipBecomes = (name: string, ip: string | undefined): Promise<void> => eventuallyPasses(async () => expect((await getEgress(name)).spec.egressIP).toBe(ip));
const allocated = async (name: string): Promise<unknown> => (await getEgress(name)).status?.conditions?.find((x) => x.type === 'IPAllocated');
const conditionBecomes = (name: string, status: string, reason: string): Promise<void> =>
  eventuallyPasses(async () => expect(await allocated(name)).toMatchObject({ status, reason }));
async function eventsOf(name: string): Promise<Event[]> {
  const list = await c.kube.request<{ items: Event[] }>('GET', '/api/v1/namespaces/default/events');
  return list.items.filter((e) => e.involvedObject.kind === 'Egress' && e.involvedObject.name === name);
}
const eventSaid = (name: string, reason: string): Promise<string> => eventually(async () => (await eventsOf(name)).find((e) => e.reason === reason)?.message);
const usageBecomes = (used: number): Promise<void> =>
  eventuallyPasses(async () => expect((await c.kube.request<ExternalIPPool>('GET', `${POOLS}/p`)).status?.usage).toEqual({ total: 3, used }));
const part = (): EgressController => controller!.part<EgressController>('egress');

describe('Egress IPs', () => {
  test('an Egress naming a pool gets its lowest free IP in spec.egressIP, IPAllocated=True and an Event; the pool counts it', async () => {
    await createEgress('a', { externalIPPool: 'p' });
    await ipBecomes('a', '10.10.0.2');
    await conditionBecomes('a', 'True', 'Allocated');
    expect(await eventSaid('a', 'EgressIPAllocated')).toBe('egress IP 10.10.0.2 allocated from ExternalIPPool p');
    await usageBecomes(1);
  });

  test('a LoadBalancer Service of the same pool gets another IP; an Egress asking for the Service\'s IP is refused naming the field', async () => {
    await c.kube.request('POST', SVCS, { metadata: { name: 'lb', annotations: { 'service.antrea.io/external-ip-pool': 'p' } }, spec: { type: 'LoadBalancer', ports: [{ port: 80 }] } });
    await eventuallyPasses(async () => expect((await c.kube.request<Service>('GET', `${SVCS}/lb`)).status?.loadBalancer?.ingress).toEqual([{ ip: '10.10.0.3' }]));
    await createEgress('taken', { externalIPPool: 'p', egressIP: '10.10.0.3' });
    expect(await eventSaid('taken', 'EgressIPInUse')).toBe('spec.egressIP: Invalid value: "10.10.0.3": already allocated to Service eg/lb; the Egress has no IP until it is released');
    await conditionBecomes('taken', 'False', 'EgressIPInUse');
    await usageBecomes(2);
  });

  test('a malformed IP, an IP outside the pool, a missing pool: IPAllocated=False with an Event naming field and value; without a pool (manual mode): no condition, refused only when held or used by an older one, a Warning inside a pool range', async () => {
    await createEgress('bad', { externalIPPool: 'p', egressIP: '10.10.0.300' });
    expect(await eventSaid('bad', 'InvalidEgress')).toBe('spec.egressIP: Invalid value: "10.10.0.300": not an IP address');
    await conditionBecomes('bad', 'False', 'InvalidEgress');
    await createEgress('outside', { externalIPPool: 'p', egressIP: '192.0.2.9' });
    expect(await eventSaid('outside', 'EgressIPNotInPool')).toBe('spec.egressIP: Invalid value: "192.0.2.9": not in ExternalIPPool p (spec.externalIPPool); it is in no ExternalIPPool');
    // Without a pool (manual mode): nothing allocated, no IPAllocated condition (as Antrea), unless the IP is someone else's.
    await createEgress('nopool', { egressIP: '192.0.2.10' });
    await createEgress('manual-taken', { egressIP: '10.10.0.3' });
    expect(await eventSaid('manual-taken', 'EgressIPInUse')).toBe('spec.egressIP: Invalid value: "10.10.0.3": already allocated to Service eg/lb; the Egress is not realized while it is');
    await conditionBecomes('manual-taken', 'False', 'EgressIPInUse');
    await createEgress('inrange', { egressIP: '10.10.0.4' });
    expect(await eventSaid('inrange', 'EgressIPInPoolRange')).toContain('spec.egressIP "10.10.0.4" is in the range of ExternalIPPool p but spec.externalIPPool is not set');
    await createEgress('missing', { externalIPPool: 'later' });
    expect(await eventSaid('missing', 'ExternalIPPoolNotFound')).toBe('spec.externalIPPool: Invalid value: "later": ExternalIPPool later not found; the Egress has no IP until it exists');
    await conditionBecomes('missing', 'False', 'ExternalIPPoolNotFound');
    await eventuallyPasses(async () => expect(part().health().detail).toContain('without a pool (placed by hand): inrange (10.10.0.4), nopool (192.0.2.10)'));
    expect(await allocated('nopool')).toBeUndefined();
    expect(await allocated('inrange')).toBeUndefined();
    expect((await eventsOf('nopool')).map((e) => e.reason)).toEqual([]);
    for (const n of ['bad', 'outside', 'nopool']) expect((await getEgress(n)).spec.egressIP).not.toMatch(/^10\.10\.0\.[234]$/);
    expect((await getEgress('a')).spec.egressIP).toBe('10.10.0.2');
  });

  test('an exhausted pool leaves the next Egress without an IP; it gets the IP a deleted Egress frees; the others keep theirs', async () => {
    await createEgress('b', { externalIPPool: 'p' });
    await ipBecomes('b', '10.10.0.4');
    // The manual Egress inside the pool's range did not reserve 10.10.0.4 (as in Antrea): the pool's Egress wins it.
    expect(await eventSaid('inrange', 'EgressIPInUse')).toBe('spec.egressIP: Invalid value: "10.10.0.4": already allocated to Egress b; the Egress is not realized while it is');
    await createEgress('c', { externalIPPool: 'p' });
    expect(await eventSaid('c', 'ExternalIPPoolExhausted')).toBe('spec.externalIPPool: Invalid value: "p": ExternalIPPool p has no free IP (3 of 3 in use); the Egress has no IP until one is released');
    await conditionBecomes('c', 'False', 'ExternalIPPoolExhausted');
    await c.kube.request('DELETE', `${EGRESSES}/a`);
    await ipBecomes('c', '10.10.0.2');
    await conditionBecomes('c', 'True', 'Allocated');
    expect((await getEgress('b')).spec.egressIP).toBe('10.10.0.4');
    await usageBecomes(3);
  });

  test('two Egresses selecting one pod: the younger gets an Event naming the field, the pod and the older Egress; both keep their IPs', async () => {
    await c.kube.request('POST', `/api/v1/namespaces/${NS}/pods`, { metadata: { name: 'web-1', labels: { app: 'c', tier: 'web' } }, spec: { containers: [{ name: 'c', image: 'x' }] } });
    await c.kube.request('POST', POOLS, { apiVersion: 'crd.antrea.io/v1beta1', kind: 'ExternalIPPool', metadata: { name: 'q' }, spec: { ipRanges: [{ cidr: '10.30.0.0/30' }], nodeSelector: {} } });
    // An Egress without an IP competes for no pod: no overlap Event for it.
    await createEgress('idle', { appliedTo: { podSelector: { matchLabels: { tier: 'web' } } }, externalIPPool: 'none-such' });
    await c.kube.request('POST', EGRESSES, { apiVersion: 'crd.antrea.io/v1beta1', kind: 'Egress', metadata: { name: 'wide' }, spec: { appliedTo: { podSelector: { matchLabels: { tier: 'web' } } }, externalIPPool: 'q' } });
    await ipBecomes('wide', '10.30.0.1');
    expect(await eventSaid('wide', 'EgressOverlap')).toBe(`spec.appliedTo: selects pod ${NS}/web-1, which the older Egress c applies to: that traffic leaves from the older Egress's IP`);
    expect((await eventsOf('c')).some((e) => e.reason === 'EgressOverlap')).toBe(false);
    expect((await eventsOf('idle')).some((e) => e.reason === 'EgressOverlap')).toBe(false);
    expect((await getEgress('c')).spec.egressIP).toBe('10.10.0.2');
  });

  test('the members reach every node through the egressgroups watch: the initial list, then a patch per pod change; the policy stream carries none', async () => {
    await createPod(c, NS, 'c-1', 'node-a', '10.40.1.5', { app: 'c' });
    await createPod(c, NS, 'c-2', 'node-b', '10.40.2.5', { app: 'c', tier: 'web' });
    const clients: ControlplaneClient[] = [];
    const watch = (node: string, resource: 'egressgroups' | 'watch'): { client: ControlplaneClient; events: controlplane.WatchEvent[] } => {
      const events: controlplane.WatchEvent[] = [];
      const client = new ControlplaneClient({ url: `https://127.0.0.1:${c.controllerPort}`, caPem: controller!.pki.caPem, nodeName: node, token: NODE_TOKENS[node]!, resource, onEvent: (e) => events.push(e) });
      client.start();
      clients.push(client);
      return { client, events };
    };
    const members = (cl: ControlplaneClient, name: string): string[] | undefined => cl.view.egressGroups().find((g) => g.name === name)?.groupMembers.map((m) => `${m.pod?.name}@${m.node?.name}:${m.ips.join(',')}`).sort();
    try {
      const a = watch('node-a', 'egressgroups');
      const b = watch('node-b', 'egressgroups');
      const policies = watch('node-a', 'watch');
      // c is older than wide: c-2 (tier=web) is c's; web-1 has no node, so no member; idle has no IP, so no group.
      for (const w of [a, b]) await eventuallyPasses(() => expect(members(w.client, 'c')).toEqual(['c-1@node-a:10.40.1.5', 'c-2@node-b:10.40.2.5']));
      expect(members(a.client, 'wide')).toEqual([]);
      expect(members(a.client, 'idle')).toBeUndefined();
      const before = a.client.bytesReceived;
      const seen = a.events.length;
      await c.kube.request('PATCH', `/api/v1/namespaces/${NS}/pods/c-2`, { metadata: { labels: { app: 'other', tier: 'web' } } }, 'application/merge-patch+json');
      // c-2 leaves c for wide: one resourceVersion, a patch of each group.
      for (const w of [a, b]) await eventuallyPasses(() => expect(members(w.client, 'wide')).toEqual(['c-2@node-b:10.40.2.5']));
      expect(members(a.client, 'c')).toEqual(['c-1@node-a:10.40.1.5']);
      const change = a.events.slice(seen);
      expect(change.map((e) => `${e.type}/${e.kind}/${(e.object as { name: string }).name}`).sort()).toEqual(['MODIFIED/EgressGroupPatch/c', 'MODIFIED/EgressGroupPatch/wide']);
      expect(new Set(change.map((e) => e.resourceVersion)).size).toBe(1);
      console.log(`egress group change (a pod moving between two Egresses): ${change.length} events, ${a.client.bytesReceived - before} bytes received on node-a's egressgroups stream`);
      await eventuallyPasses(async () => expect((await eventsOf('wide')).some((e) => e.reason === 'EgressOverlap')).toBe(true));
      await eventuallyPasses(() => expect(policies.client.view.synced).toBe(true));
      expect(policies.events.some((e) => e.kind === 'EgressGroup' || e.kind === 'EgressGroupPatch')).toBe(false);
      // Every Egress with an IP has a group, and only those: allocated from a pool, or named without
      // one and not refused (nopool, manual mode).
      expect(a.client.view.egressGroups().map((g) => g.name).sort()).toEqual(['b', 'c', 'nopool', 'wide']);
    } finally {
      for (const cl of clients) await cl.stop();
    }
  });

  test('a restarted controller keeps every IP; an Egress deleted meanwhile frees its IP for a new one', async () => {
    await controller!.stop();
    await c.kube.request('DELETE', `${EGRESSES}/b`);
    await createEgress('d', { externalIPPool: 'p' });
    controller = await c.startController(OPTIONS);
    await part().idle();
    await ipBecomes('d', '10.10.0.4');
    expect((await getEgress('c')).spec.egressIP).toBe('10.10.0.2');
    expect(controller.health().parts.find((p) => p.name === 'egress')).toMatchObject({ ok: true });
  });

  test('IPv6: an Egress of an IPv6 pool gets an IPv6 IP in RFC 5952 text; a dual-stack Egress gets one IP from each of its pools; an IPv4 IP asked of an IPv6 pool is refused naming field and value', async () => {
    await c.kube.request('POST', POOLS, { apiVersion: 'crd.antrea.io/v1beta1', kind: 'ExternalIPPool', metadata: { name: 'p6' }, spec: { ipRanges: [{ start: 'fd00:40::10', end: 'fd00:40::11' }], nodeSelector: {} } });
    await c.kube.request('POST', POOLS, { apiVersion: 'crd.antrea.io/v1beta1', kind: 'ExternalIPPool', metadata: { name: 'p4' }, spec: { ipRanges: [{ start: '10.40.0.5', end: '10.40.0.6' }], nodeSelector: {} } });
    await createEgress('six', { externalIPPool: 'p6' });
    await ipBecomes('six', 'fd00:40::10');
    await conditionBecomes('six', 'True', 'Allocated');
    await createEgress('dual', { externalIPPools: ['p4', 'p6'] });
    await eventuallyPasses(async () => expect((await getEgress('dual')).spec.egressIPs).toEqual(['10.40.0.5', 'fd00:40::11']));
    await conditionBecomes('dual', 'True', 'Allocated');
    await createEgress('six-wrong', { externalIPPool: 'p6', egressIP: '10.40.0.6' });
    expect(await eventSaid('six-wrong', 'EgressIPNotInPool')).toBe('spec.egressIP: Invalid value: "10.40.0.6": not in ExternalIPPool p6 (spec.externalIPPool); it belongs to ExternalIPPool p4');
    await conditionBecomes('six-wrong', 'False', 'EgressIPNotInPool');
  });
  test('a dual-stack Egress whose two pools turn out to be of one family (stored after the Egress; the webhook, admission.test.ts, cannot judge pools not there yet) gets no IP: IPAllocated=False and an Event naming field and value', async () => {
    await createEgress('two-v4', { externalIPPools: ['late4a', 'late4b'] });
    await c.kube.request('POST', POOLS, { apiVersion: 'crd.antrea.io/v1beta1', kind: 'ExternalIPPool', metadata: { name: 'late4a' }, spec: { ipRanges: [{ start: '10.41.0.5', end: '10.41.0.6' }], nodeSelector: {} } });
    await c.kube.request('POST', POOLS, { apiVersion: 'crd.antrea.io/v1beta1', kind: 'ExternalIPPool', metadata: { name: 'late4b' }, spec: { ipRanges: [{ start: '10.42.0.5', end: '10.42.0.6' }], nodeSelector: {} } });
    const said = 'spec.externalIPPools[1]: Invalid value: "late4b": ExternalIPPool late4b is IPv4, as spec.externalIPPools[0] (late4a) is: a dual-stack Egress takes one IPv4 and one IPv6 pool';
    await eventuallyPasses(async () => expect(await allocated('two-v4')).toMatchObject({ status: 'False', reason: 'InvalidEgress', message: said }));
    expect(await eventSaid('two-v4', 'InvalidEgress')).toBe(said);
    expect((await getEgress('two-v4')).spec.egressIPs).toBeUndefined();
  });
});
