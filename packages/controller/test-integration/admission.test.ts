// Bad objects at the door: with the controller's validating webhook registered in the API server,
// kubectl gets an error naming the field and the value for each invalid object (built-in
// NetworkPolicies refused by the API server itself, Antrea kinds by the webhook), and nothing
// stored or computed before changes.
import { createPod, eventually, eventuallyPasses, startCluster, type Cluster } from './support';
import type { Controller } from '../src/controller';
import type { Admission } from '../src/parts/admission';

let c: Cluster;
let controller: Controller;

beforeAll(async () => {
  c = await startCluster();
  controller = await c.startController();
});
afterAll(async () => {
  await controller?.stop();
  await c?.api.stop();
});

const sel = (labels: Record<string, string>): Record<string, unknown> => ({ matchLabels: labels });
const web = { podSelector: sel({ app: 'web' }) };
const np = (name: string, spec: Record<string, unknown>): Record<string, unknown> => ({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name, namespace: 'x' }, spec: { podSelector: {}, ...spec } });
const acnp = (name: string, spec: Record<string, unknown>): Record<string, unknown> => ({ apiVersion: 'crd.antrea.io/v1beta1', kind: 'ClusterNetworkPolicy', metadata: { name }, spec });
const anp = (name: string, spec: Record<string, unknown>): Record<string, unknown> => ({ apiVersion: 'crd.antrea.io/v1beta1', kind: 'NetworkPolicy', metadata: { name, namespace: 'x' }, spec });
const tier = (name: string, priority: number): Record<string, unknown> => ({ apiVersion: 'crd.antrea.io/v1beta1', kind: 'Tier', metadata: { name }, spec: { priority } });
const cg = (name: string, spec: Record<string, unknown>): Record<string, unknown> => ({ apiVersion: 'crd.antrea.io/v1beta1', kind: 'ClusterGroup', metadata: { name }, spec });
const group = (name: string, spec: Record<string, unknown>): Record<string, unknown> => ({ apiVersion: 'crd.antrea.io/v1beta1', kind: 'Group', metadata: { name, namespace: 'x' }, spec });
const pool = (name: string, spec: Record<string, unknown>): Record<string, unknown> => ({ apiVersion: 'crd.antrea.io/v1beta1', kind: 'IPPool', metadata: { name }, spec });
const eip = (name: string, ipRanges: unknown[], more: Record<string, unknown> = {}): Record<string, unknown> => ({ apiVersion: 'crd.antrea.io/v1beta1', kind: 'ExternalIPPool', metadata: { name }, spec: { ipRanges, nodeSelector: {}, ...more } });
const en = (name: string, interfaces: unknown): Record<string, unknown> => ({ apiVersion: 'crd.antrea.io/v1alpha1', kind: 'ExternalNode', metadata: { name, namespace: 'x' }, spec: { interfaces } });
const tf = (name: string, spec: Record<string, unknown>): Record<string, unknown> => ({ apiVersion: 'crd.antrea.io/v1beta1', kind: 'Traceflow', metadata: { name }, spec });
const egress = (name: string, spec: Record<string, unknown>): Record<string, unknown> => ({ apiVersion: 'crd.antrea.io/v1beta1', kind: 'Egress', metadata: { name }, spec: { appliedTo: web, ...spec } });
const allow = (from: unknown[]): Record<string, unknown> => ({ action: 'Allow', from });

/** What must not change: every stored kind the cases touch, and the controller's computed state. */
const KINDS = 'networkpolicies.networking.k8s.io,clusternetworkpolicies.crd.antrea.io,networkpolicies.crd.antrea.io,tiers.crd.antrea.io,clustergroups.crd.antrea.io,groups.crd.antrea.io,ippools.crd.antrea.io,externalippools.crd.antrea.io,externalnodes.crd.antrea.io,traceflows.crd.antrea.io,egresses.crd.antrea.io';

async function stored(): Promise<string[]> {
  const out = JSON.parse(await c.kubectl.ok(['get', KINDS, '-A', '-o', 'json'])) as { items: { kind: string; metadata: { namespace?: string; name: string; resourceVersion: string; generation?: number } }[] };
  return out.items.map((i) => `${i.kind} ${i.metadata.namespace ?? ''}/${i.metadata.name} rv=${i.metadata.resourceVersion} gen=${i.metadata.generation ?? ''}`).sort();
}

async function computed(): Promise<string> {
  const raw = await c.kubectl.ok(['get', '--raw', '/apis/controlplane.switchyard.io/v1beta2/networkpolicies']);
  const list = JSON.parse(raw) as { items: Record<string, unknown>[] };
  // Realization status moves with agents' reports, not with these requests.
  return JSON.stringify(list.items.map(({ status: _s, ...rest }) => rest));
}

/** [what, object to apply or `delete` args, field named in the error, value named in the error]. */
type Case = [string, Record<string, unknown> | string[], string, string];
const cases: Case[] = [
  // networking.k8s.io NetworkPolicy: refused by the API server itself (422).
  ['NP except outside cidr', np('np1', { ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.0/16', except: ['192.168.0.0/24'] } }] }] }), 'spec.ingress[0].from[0].ipBlock.except[0]', '"192.168.0.0/24"'],
  ['NP port out of range', np('np2', { egress: [{ ports: [{ port: 70000 }] }] }), 'spec.egress[0].ports[0].port', '70000'],
  ['NP bad selector operator', np('np3', { podSelector: { matchExpressions: [{ key: 'a', operator: 'Near', values: ['b'] }] } }), 'spec.podSelector.matchExpressions[0].operator', '"Near"'],
  ['NP bad cidr', np('np4', { ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.300/8' } }] }] }), 'spec.ingress[0].from[0].ipBlock.cidr', '"10.0.0.300/8"'],
  ['NP unknown policy type', np('np5', { policyTypes: ['Sideways'] }), 'spec.policyTypes[0]', '"Sideways"'],
  ['NP unknown protocol', np('np6', { ingress: [{ ports: [{ protocol: 'ICMP', port: 80 }] }] }), 'spec.ingress[0].ports[0].protocol', '"ICMP"'],
  ['NP bad port name', np('np7', { ingress: [{ ports: [{ port: 'HTTP_PORT' }] }] }), 'spec.ingress[0].ports[0].port', '"HTTP_PORT"'],
  ['NP ipBlock with a selector', np('np8', { egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8' }, podSelector: {} }] }] }), 'spec.egress[0].to[0]', '"cidr":"10.0.0.0/8"'],
  ['NP bad except cidr', np('np9', { egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/33'] } }] }] }), 'spec.egress[0].to[0].ipBlock.except[0]', '"10.1.0.0/33"'],
  ['NP except of the other family', np('np11', { ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16', 'fd00::/64'] } }] }] }), 'spec.ingress[0].from[0].ipBlock.except[1]', '"fd00::/64": fd00::/64 is IPv6 but cidr 10.0.0.0/8 is IPv4'],
  ['NP bad namespaceSelector', np('np10', { ingress: [{ from: [{ namespaceSelector: { matchExpressions: [{ key: 'k', operator: 'In' }] } }] }] }), 'spec.ingress[0].from[0].namespaceSelector.matchExpressions[0].values', 'Invalid value: []'], // kubectl sends the missing list as [],
  // Antrea ClusterNetworkPolicy: the webhook.
  ['ACNP unknown tier', acnp('a1', { priority: 5, tier: 'nope', appliedTo: [web] }), 'spec.tier', '"nope"'],
  ['ACNP duplicate rule names', acnp('a2', { priority: 5, appliedTo: [web], ingress: [{ name: 'r', ...allow([web]) }, { name: 'r', ...allow([web]) }] }), 'spec.ingress[1].name', '"r"'],
  ['ACNP appliedTo in spec and rule', acnp('a3', { priority: 5, appliedTo: [web], egress: [{ action: 'Drop', appliedTo: [web], to: [web] }] }), 'spec.egress[0].appliedTo', '"app":"web"'],
  ['ACNP appliedTo nowhere', acnp('a4', { priority: 5, ingress: [allow([web])] }), 'spec.ingress[0].appliedTo', 'null'],
  ['ACNP Pass in baseline', acnp('a5', { priority: 5, tier: 'baseline', appliedTo: [web], ingress: [{ action: 'Pass', from: [web] }] }), 'spec.ingress[0].action', '"Pass"'],
  ['ACNP except outside cidr', acnp('a6', { priority: 5, appliedTo: [web], ingress: [allow([{ ipBlock: { cidr: '10.0.0.0/16', except: ['10.9.0.0/24'] } }])] }), 'spec.ingress[0].from[0].ipBlock.except[0]', '"10.9.0.0/24"'],
  ['ACNP except of the other family', acnp('a10', { priority: 5, appliedTo: [web], egress: [{ action: 'Drop', to: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['fd00:1::/64'] } }] }] }), 'spec.egress[0].to[0].ipBlock.except[0]', '"fd00:1::/64": fd00:1::/64 is IPv6 but cidr 10.0.0.0/8 is IPv4'],
  ['ACNP two appliedTo kinds', acnp('a7', { priority: 5, appliedTo: [{ podSelector: {}, group: 'web-cg' }] }), 'spec.appliedTo[0]', '"group":"web-cg"'],
  ['ACNP priority below 1 (schema)', acnp('a8', { priority: 0, appliedTo: [web] }), 'spec.priority', '0'],
  ['ACNP bad selector', acnp('a9', { priority: 5, appliedTo: [{ podSelector: { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] } }] }), 'spec.appliedTo[0].podSelector.matchExpressions[0].values', '"x"'],
  // Antrea NetworkPolicy.
  ['ANP unknown tier', anp('n1', { priority: 5, tier: 'ghost', appliedTo: [web] }), 'spec.tier', '"ghost"'],
  ['ANP namespaceSelector in appliedTo', anp('n2', { priority: 5, appliedTo: [{ namespaceSelector: {} }] }), 'spec.appliedTo[0].namespaceSelector', '{}'],
  ['ANP IPv6 cidr with an IPv4 except', anp('n4', { priority: 5, appliedTo: [web], ingress: [allow([{ ipBlock: { cidr: 'fd00::/48', except: ['10.0.0.0/24'] } }])] }), 'spec.ingress[0].from[0].ipBlock.except[0]', '"10.0.0.0/24": 10.0.0.0/24 is IPv4 but cidr fd00::/48 is IPv6'],
  ['ANP fqdn in ingress', anp('n3', { priority: 5, appliedTo: [web], ingress: [allow([{ fqdn: 'example.com' }])] }), 'spec.ingress[0].from[0].fqdn', '"example.com"'],
  // Tiers.
  ['Tier priority reserved', tier('t-high', 250), 'spec.priority', '250'],
  ['Tier priority taken', tier('t-twin', 10), 'spec.priority', '10'],
  ['Tier static name, other priority', tier('emergency', 51), 'spec.priority', '51'],
  ['Tier in use deleted', ['delete', 'tier', 'mine'], 'metadata.name', '"mine"'],
  // Groups.
  ['ClusterGroup two member kinds', cg('cg-mix', { ...web, ipBlocks: [{ cidr: '10.0.0.0/8' }] }), 'spec', '"ipBlocks"'],
  ['ClusterGroup bad cidr', cg('cg-cidr', { ipBlocks: [{ cidr: '300.0.0.0/8' }] }), 'spec.ipBlocks[0].cidr', '"300.0.0.0/8"'],
  ['ClusterGroup ipBlock except of the other family', cg('cg-mixed', { ipBlocks: [{ cidr: 'fd00::/48', except: ['10.0.0.0/24'] }] }), 'spec.ipBlocks[0].except[0]', '"10.0.0.0/24": 10.0.0.0/24 is IPv4 but cidr fd00::/48 is IPv6'],
  ['ClusterGroup cycle', cg('cyc-b', { childGroups: ['cyc-a'] }), 'spec.childGroups[0]', '"cyc-a"'],
  ['ClusterGroup in use deleted', ['delete', 'clustergroup', 'web-cg'], 'metadata.name', '"web-cg"'],
  ['Group bad selector', group('g1', { podSelector: { matchExpressions: [{ key: 'a', operator: 'Near' }] } }), 'spec.podSelector.matchExpressions[0].operator', '"Near"'],
  // IPPools, ExternalNodes, Traceflows.
  ['IPPool start after end', pool('p1', { ipRanges: [{ start: '10.2.0.50', end: '10.2.0.10' }], subnetInfo: { gateway: '10.2.0.1', prefixLength: 24 } }), 'spec.ipRanges[0].end', '"10.2.0.10"'],
  ['IPPool range of another family', pool('p2', { ipRanges: [{ cidr: 'fd00::/120' }], subnetInfo: { gateway: '10.2.0.1', prefixLength: 24 } }), 'spec.ipRanges[0].cidr', '"fd00::/120"'],
  ['ExternalIPPool start after end', eip('e1', [{ start: '10.3.0.9', end: '10.3.0.1' }]), 'spec.ipRanges[0].end', '"10.3.0.1"'],
  ['ExternalIPPool malformed CIDR', eip('e2', [{ cidr: '10.3.0.0/33' }]), 'spec.ipRanges[0].cidr', '"10.3.0.0/33"'],
  ['ExternalIPPool range mixing families', eip('e3', [{ start: '10.3.0.1', end: 'fd00::1' }]), 'spec.ipRanges[0].end', '"fd00::1"'],
  ['ExternalIPPool IPv6 start after end', eip('e3b', [{ start: 'fd00:3::9', end: 'fd00:3::1' }]), 'spec.ipRanges[0].end', '"fd00:3::1": must not be below start fd00:3::9'],
  ['ExternalIPPool cidr with start and end', eip('e3c', [{ cidr: 'fd00:3::/120', start: 'fd00:3::1', end: 'fd00:3::9' }]), 'spec.ipRanges[0]', 'set either cidr, or start and end, not both'],
  ['ExternalIPPool range of another family than the subnet gateway', eip('e3d', [{ start: '10.3.3.10', end: '10.3.3.20' }], { subnetInfo: { gateway: 'fd00:3::1', prefixLength: 64 } }), 'spec.ipRanges[0]', '"10.3.3.10-10.3.3.20": is IPv4, the subnet\'s gateway fd00:3::1 is IPv6'],
  ['ExternalIPPool ranges overlapping in the pool', eip('e4', [{ cidr: '10.3.1.0/24' }, { start: '10.3.1.9', end: '10.3.2.1' }]), 'spec.ipRanges[1]', '"10.3.1.9-10.3.2.1"'],
  ['ExternalIPPool overlapping another pool', eip('e5', [{ start: '10.4.0.10', end: '10.4.0.20' }]), 'spec.ipRanges[0]', 'overlaps range 10.4.0.0/28 of ExternalIPPool valid-eip'],
  ['ExternalIPPool range changed', eip('valid-eip', [{ cidr: '10.4.0.0/29' }]), 'spec.ipRanges[0]', '"10.4.0.0/28": existing ranges cannot be updated or deleted'],
  ['ExternalNode bad IP', en('vm1', [{ name: 'eth0', ips: ['10.0.0.300'] }]), 'spec.interfaces[0].ips[0]', '"10.0.0.300"'],
  ['Traceflow without source pod', tf('tf1', { source: { namespace: 'x' }, destination: { ip: '10.0.0.1' } }), 'spec.source.pod', 'null'],
  ['Egress two pools of one family', egress('eg-two-v4', { externalIPPools: ['valid-eip', 'valid-eip-b'] }), 'spec.externalIPPools[1]', '"valid-eip-b": ExternalIPPool valid-eip-b is IPv4, as spec.externalIPPools[0] (valid-eip) is'],
  ['Traceflow two destinations', tf('tf2', { source: { namespace: 'x', pod: 'web-1' }, destination: { namespace: 'x', pod: 'db-1', ip: '10.0.0.1' } }), 'spec.destination', '"ip":"10.0.0.1"'],
];

test(`${cases.length} invalid objects are refused, each naming field and value, and nothing stored or computed changes`, async () => {
  await c.kubectl.ok(['create', 'namespace', 'x']);
  await createPod(c, 'x', 'web-1', 'node-a', '10.10.0.5', { app: 'web' });
  await createPod(c, 'x', 'db-1', 'node-b', '10.10.1.5', { app: 'db' });
  await c.kubectl.apply(
    tier('mine', 10),
    cg('web-cg', web),
    cg('cyc-a', { childGroups: ['cyc-b'] }),
    np('valid-np', { podSelector: sel({ app: 'db' }), ingress: [{ from: [web], ports: [{ port: 5432 }] }] }),
    acnp('valid-acnp', { priority: 5, tier: 'mine', appliedTo: [{ group: 'web-cg' }], ingress: [{ action: 'Drop', from: [{ podSelector: sel({ app: 'db' }) }] }] }),
    anp('valid-anp', { priority: 3, appliedTo: [{ podSelector: sel({ app: 'db' }) }], egress: [{ action: 'Allow', to: [web] }] }),
    pool('valid-pool', { ipRanges: [{ cidr: '10.2.0.0/28' }], subnetInfo: { gateway: '10.2.0.1', prefixLength: 24 } }),
    eip('valid-eip', [{ cidr: '10.4.0.0/28' }]),
    eip('valid-eip-b', [{ cidr: '10.5.0.0/28' }]),
  );
  // The webhook reads the controller's caches: wait until they hold what was applied.
  await eventuallyPasses(async () => expect(JSON.parse(await computed())).toHaveLength(3));
  await eventuallyPasses(() => expect(controller.cacheOf('clustergroups')?.size).toBe(2));
  const storedBefore = await stored();
  const computedBefore = await computed();
  expect(cases.length).toBeGreaterThanOrEqual(30);

  const t0 = Date.now();
  const failures: string[] = [];
  for (const [what, input, field, value] of cases) {
    const args = Array.isArray(input) ? input : ['apply', '-f', '-'];
    const err = await c.kubectl.ok(args, Array.isArray(input) ? undefined : JSON.stringify(input)).then(
      () => 'accepted',
      (e: unknown) => (e as Error).message,
    );
    if (!err.includes(field) || !err.includes(value)) failures.push(`${what}: expected ${field} and ${value} in: ${err}`);
  }
  const perCaseMs = (Date.now() - t0) / cases.length;
  expect(failures).toEqual([]);
  expect(await stored()).toEqual(storedBefore);
  expect(await computed()).toBe(computedBefore);
  // For the record in docs/reliability.md: one refused kubectl call, end to end.
  process.stdout.write(`admission: ${cases.length} refusals, ${perCaseMs.toFixed(0)} ms per kubectl call\n`);
});

test('the webhook denial reads as Antrea\'s does, through kubectl', async () => {
  const err = await c.kubectl.ok(['apply', '-f', '-'], JSON.stringify(acnp('wording', { priority: 5, tier: 'nope', appliedTo: [web] }))).catch((e: unknown) => (e as Error).message);
  expect(err).toContain('Error from server (Forbidden)');
  expect(err).toContain('admission webhook "acnpvalidator.antrea.io" denied the request: spec.tier: Invalid value: "nope": tier nope does not exist');
});

test('a policy naming a tier created just before it is admitted (the webhook reads the tier when its cache lags)', async () => {
  await c.kubectl.apply(tier('fresh', 20), acnp('in-fresh', { priority: 1, tier: 'fresh', appliedTo: [web] }));
  expect(await c.kubectl.ok(['get', 'acnp', 'in-fresh', '-o', 'jsonpath={.spec.tier}'])).toBe('fresh');
});

test('a Tier deleted right after the policy naming it goes through (the refusal is re-checked against the API)', async () => {
  await c.kubectl.apply(tier('brief', 55), acnp('in-brief', { priority: 1, tier: 'brief', appliedTo: [web] }));
  await eventuallyPasses(() => expect([...(controller.cacheOf('clusternetworkpolicies')?.values() ?? [])].some((p) => p.metadata.name === 'in-brief')).toBe(true));
  // Back to back, without kubectl's start-up in between: the caches still hold the policy.
  await c.kube.request('DELETE', '/apis/crd.antrea.io/v1beta1/clusternetworkpolicies/in-brief');
  await c.kube.request('DELETE', '/apis/crd.antrea.io/v1beta1/tiers/brief');
  await expect(c.kube.request('GET', '/apis/crd.antrea.io/v1beta1/tiers/brief')).rejects.toThrow();
});

test('an unused tier and group can be deleted; the webhook counts its verdicts', async () => {
  await c.kubectl.apply(tier('spare', 30), cg('spare-cg', web));
  await eventuallyPasses(() => expect([...(controller.cacheOf('tiers')?.values() ?? [])].some((t) => t.metadata.name === 'spare')).toBe(true));
  await c.kubectl.ok(['delete', 'tier', 'spare']);
  await c.kubectl.ok(['delete', 'clustergroup', 'spare-cg']);
  const { webhook } = controller.part<Admission>('admission');
  expect(webhook.stats.denied).toBeGreaterThanOrEqual(20);
  expect(webhook.stats.allowed).toBeGreaterThan(0);
});

test('IPv6 and dual-stack: policies with IPv6 ipBlocks are admitted, groups carry both addresses, explain answers per family', async () => {
  await c.kubectl.ok(['create', 'namespace', 'v6']);
  const dual = async (name: string, node: string, v4: string, v6: string, labels: Record<string, string>): Promise<void> => {
    await createPod(c, 'v6', name, node, v4, labels);
    await c.kube.request('PATCH', `/api/v1/namespaces/v6/pods/${name}/status`, { status: { podIPs: [{ ip: v4 }, { ip: v6 }] } }, 'application/merge-patch+json');
  };
  await dual('srv', 'node-a', '10.10.6.5', 'fd00:10:6::5', { app: 'v6srv' });
  await dual('cli', 'node-b', '10.10.7.5', 'fd00:10:7::5', { app: 'v6cli' });
  await c.kubectl.apply(
    cg('v6-nets', { ipBlocks: [{ cidr: 'fd00:99::/64' }, { cidr: '10.99.0.0/16' }] }),
    acnp('v6-in', { priority: 9, appliedTo: [{ podSelector: sel({ app: 'v6srv' }) }], ingress: [
      { action: 'Drop', name: 'no-v6-cli', from: [{ ipBlock: { cidr: 'fd00:10:7::/64', except: ['fd00:10:7::9/128'] } }] },
      { action: 'Allow', name: 'from-cli', from: [{ podSelector: sel({ app: 'v6cli' }) }, { group: 'v6-nets' }] },
    ] }),
  );
  const raw = async (path: string): Promise<Record<string, unknown>> => JSON.parse(await c.kubectl.ok(['get', '--raw', `/apis/controlplane.switchyard.io/v1beta2/${path}`])) as Record<string, unknown>;
  type Policy = { name: string; rules: { from: { ipBlocks: { cidr: string; except: string[] }[]; addressGroups: string[] } }[] };
  const policy = await eventually(async () => ((await raw('networkpolicies')).items as Policy[]).find((p) => p.name === 'v6-in'), 30000);
  expect(policy.rules.map((r) => r.from.ipBlocks)).toEqual([[{ cidr: 'fd00:10:7::/64', except: ['fd00:10:7::9/128'] }], [{ cidr: 'fd00:99::/64', except: [] }, { cidr: '10.99.0.0/16', except: [] }]]);
  // The address group of the client pods holds both of the dual-stack pod's addresses.
  const groupName = policy.rules[1]?.from.addressGroups[0] as string;
  await eventuallyPasses(async () => {
    const group = (await raw(`addressgroups/${groupName}`)) as { groupMembers: { pod?: { name: string }; ips: string[] }[] };
    expect(group.groupMembers).toEqual([expect.objectContaining({ pod: { name: 'cli', namespace: 'v6' }, ips: ['10.10.7.5', 'fd00:10:7::5'] })]);
  }, 30000);
  // The same two pods: dropped over IPv6 by the first rule, allowed over IPv4 by the second.
  const ask = (q: string): Promise<Record<string, unknown>> => raw(`explain?src=v6/cli&dst=v6/srv&protocol=TCP&port=80&${q}`);
  expect(await ask('ipFamily=IPv6')).toMatchObject({ allowed: false, ipFamily: 'IPv6', ingress: { policy: { name: 'v6-in' }, rule: { name: 'no-v6-cli' } } });
  expect(await ask('ipFamily=IPv4')).toMatchObject({ allowed: true, ipFamily: 'IPv4', ingress: { rule: { name: 'from-cli' } } });
  const bad = await c.kubectl.ok(['get', '--raw', '/apis/controlplane.switchyard.io/v1beta2/explain?src=v6/cli&dst=v6/srv&protocol=TCP&port=80&ipFamily=IPv5']).catch((e: unknown) => (e as Error).message);
  expect(bad).toContain('query.ipFamily: must be IPv4 or IPv6, not IPv5');
});

test('with the controller down, Antrea kinds are refused (failurePolicy Fail) and built-in kinds are not', async () => {
  await controller.stop();
  const err = await c.kubectl.ok(['apply', '-f', '-'], JSON.stringify(tier('while-down', 40))).catch((e: unknown) => (e as Error).message);
  expect(err).toContain('failed calling webhook "tiervalidator.antrea.io"');
  await c.kubectl.apply(np('while-down', {}));
  controller = await c.startController();
  await c.kubectl.apply(tier('while-down', 40));
});
