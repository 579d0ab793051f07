// Admission decisions of the controller's webhook: the compiler's checks for policies and groups,
// the lifecycle rules of tiers, groups and pools, and the registration manifest.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import type { ExternalIPPool, Tier } from '@switchyard/apis/types';
import type { KubeObject } from '@switchyard/kube';
import { decideAdmission, type AdmissionView } from '../src/admission';
import { AdmissionWebhook, webhookConfiguration } from '../src/webhook';

const tier = (name: string, priority: number): Tier => ({ apiVersion: 'crd.antrea.io/v1beta1', kind: 'Tier', metadata: { name }, spec: { priority } });
const acnp = (name: string, spec: Record<string, unknown>): KubeObject => ({ apiVersion: 'crd.antrea.io/v1beta1', kind: 'ClusterNetworkPolicy', metadata: { name }, spec });
const anp = (ns: string, name: string, spec: Record<string, unknown>): KubeObject => ({ apiVersion: 'crd.antrea.io/v1beta1', kind: 'NetworkPolicy', metadata: { name, namespace: ns }, spec });
const web = { podSelector: { matchLabels: { app: 'web' } } };

function view(o: { tiers?: Tier[]; cgs?: KubeObject[]; groups?: KubeObject[]; acnps?: KubeObject[]; anps?: KubeObject[]; eips?: ExternalIPPool[] } = {}): AdmissionView {
  return { tiers: () => o.tiers ?? [], clusterGroups: () => o.cgs ?? [], groups: () => o.groups ?? [], clusterNetworkPolicies: () => o.acnps ?? [], antreaNetworkPolicies: () => o.anps ?? [], externalIPPools: () => o.eips ?? [] };
}

describe('policies', () => {
  test('a valid ClusterNetworkPolicy in a custom tier is allowed', () => {
    const d = decideAdmission('acnp', { operation: 'CREATE', object: acnp('ok', { priority: 5, tier: 'mine', appliedTo: [web], ingress: [{ action: 'Drop', from: [web] }] }) }, view({ tiers: [tier('mine', 10)] }));
    expect(d).toEqual({ allowed: true });
  });

  test.each([
    ['an unknown tier', { priority: 5, tier: 'nope', appliedTo: [web] }, 'spec.tier: Invalid value: "nope": tier nope does not exist'],
    ['a priority out of range', { priority: 10001, appliedTo: [web] }, 'spec.priority: Invalid value: 10001: must be between 1 and 10000'],
    ['duplicate rule names', { priority: 1, appliedTo: [web], ingress: [{ name: 'r', action: 'Allow', from: [web] }, { name: 'r', action: 'Drop', from: [web] }] }, 'spec.ingress[1].name: Invalid value: "r": duplicate rule name (also spec.ingress[0])'],
    ['appliedTo in spec and rule', { priority: 1, appliedTo: [web], egress: [{ action: 'Allow', appliedTo: [web], to: [web] }] }, 'spec.egress[0].appliedTo: Invalid value:'],
    ['appliedTo nowhere', { priority: 1, ingress: [{ action: 'Allow', from: [web] }] }, 'spec.ingress[0].appliedTo: Invalid value: null: appliedTo must be set in spec or in every rule'],
    ['Pass in the baseline tier', { priority: 1, tier: 'baseline', appliedTo: [web], ingress: [{ action: 'Pass', from: [web] }] }, 'spec.ingress[0].action: Invalid value: "Pass": Pass is not allowed in the baseline tier'],
  ])('%s is denied with the field and value', (_what, spec, message) => {
    const d = decideAdmission('acnp', { operation: 'CREATE', object: acnp('bad', spec) }, view());
    expect(d.allowed).toBe(false);
    expect(d.message).toContain(message);
  });

  test('a namespaced policy may not select namespaces in appliedTo', () => {
    const d = decideAdmission('anp', { operation: 'UPDATE', object: anp('x', 'p', { priority: 1, appliedTo: [{ namespaceSelector: {} }] }) }, view());
    expect(d.message).toContain('spec.appliedTo[0].namespaceSelector: Invalid value: {}: not allowed in a namespaced policy');
  });

  test('a malformed spec is denied, not thrown on', () => {
    const d = decideAdmission('acnp', { operation: 'CREATE', object: acnp('m', { priority: 1, appliedTo: 7 }) }, view());
    expect(d.allowed).toBe(false);
  });

  test('deleting a policy is always allowed', () => {
    expect(decideAdmission('acnp', { operation: 'DELETE', oldObject: acnp('x', {}) }, view()).allowed).toBe(true);
  });
});

describe('tiers', () => {
  test('a reserved tier cannot be deleted', () => {
    const d = decideAdmission('tier', { operation: 'DELETE', oldObject: tier('application', 250) as unknown as KubeObject }, view());
    expect(d).toEqual({ allowed: false, message: 'metadata.name: Invalid value: "application": cannot delete reserved tier application' });
  });

  test('a tier in use cannot be deleted; an unused one can', () => {
    const v = view({ tiers: [tier('mine', 10), tier('spare', 11)], acnps: [acnp('a', { tier: 'mine' })], anps: [anp('x', 'b', { tier: 'Mine' })] });
    const d = decideAdmission('tier', { operation: 'DELETE', oldObject: tier('mine', 10) as unknown as KubeObject }, v);
    expect(d.message).toBe('metadata.name: Invalid value: "mine": tier mine is referenced by 2 Antrea NetworkPolicies (ClusterNetworkPolicy a, NetworkPolicy x/b) and cannot be deleted');
    expect(decideAdmission('tier', { operation: 'DELETE', oldObject: tier('spare', 11) as unknown as KubeObject }, v).allowed).toBe(true);
  });

  test('priority: reserved range, collisions, immutability', () => {
    const v = view({ tiers: [tier('mine', 10)] });
    expect(decideAdmission('tier', { operation: 'CREATE', object: tier('big', 250) as unknown as KubeObject }, v).message).toContain('spec.priority: Invalid value: 250: custom tier priority must be an integer in 0..249');
    expect(decideAdmission('tier', { operation: 'CREATE', object: tier('twin', 10) as unknown as KubeObject }, v).message).toBe('spec.priority: Invalid value: 10: priority 10 is already used by tier mine');
    expect(decideAdmission('tier', { operation: 'UPDATE', object: tier('mine', 12) as unknown as KubeObject, oldObject: tier('mine', 10) as unknown as KubeObject }, v).message).toContain('spec.priority: Invalid value: 12: tier priority is immutable (was 10)');
  });
});

describe('groups', () => {
  const cg = (name: string, spec: Record<string, unknown>): KubeObject => ({ metadata: { name }, spec });
  test('a ClusterGroup a policy names cannot be deleted; parents and children go in either order', () => {
    const v = view({ cgs: [cg('parent', { childGroups: ['kid'] }), cg('kid', web)], acnps: [acnp('p', { appliedTo: [{ group: 'web' }] })] });
    expect(decideAdmission('clustergroup', { operation: 'DELETE', oldObject: cg('web', web) }, v).message).toBe('metadata.name: Invalid value: "web": ClusterGroup web is referenced by ClusterNetworkPolicy p and cannot be deleted');
    expect(decideAdmission('clustergroup', { operation: 'DELETE', oldObject: cg('kid', web) }, v).allowed).toBe(true);
    expect(decideAdmission('clustergroup', { operation: 'DELETE', oldObject: cg('parent', {}) }, v).allowed).toBe(true);
  });

  test('a Group referenced in its namespace cannot be deleted; the same name elsewhere can', () => {
    const g = (ns: string, name: string): KubeObject => ({ metadata: { name, namespace: ns }, spec: web });
    const v = view({ anps: [anp('x', 'p', { appliedTo: [web], ingress: [{ action: 'Allow', from: [{ group: 'db' }] }] })] });
    expect(decideAdmission('group', { operation: 'DELETE', oldObject: g('x', 'db') }, v).message).toContain('Group db is referenced by NetworkPolicy x/p');
    expect(decideAdmission('group', { operation: 'DELETE', oldObject: g('y', 'db') }, v).allowed).toBe(true);
  });

  test('specs get the compiler checks (two kinds of members, cycles)', () => {
    const v = view({ cgs: [cg('a', { childGroups: ['b'] })] });
    expect(decideAdmission('clustergroup', { operation: 'CREATE', object: cg('mix', { ...web, ipBlocks: [{ cidr: '10.0.0.0/8' }] }) }, v).message).toContain('only one of selectors, ipBlocks, serviceReference, childGroups may be set');
    expect(decideAdmission('clustergroup', { operation: 'UPDATE', object: cg('b', { childGroups: ['a'] }) }, v).message).toContain('spec.childGroups[0]: Invalid value: "a": childGroups form a cycle through b');
  });
});

describe('IPPools', () => {
  const pool = (spec: Record<string, unknown>, status?: Record<string, unknown>): KubeObject => ({ metadata: { name: 'pool' }, spec, ...(status ? { status } : {}) });
  const subnet = { gateway: '10.2.0.1', prefixLength: 24 };
  test.each([
    [{ ipRanges: [{ cidr: '10.2.0.0/33' }], subnetInfo: subnet }, 'spec.ipRanges[0].cidr: Invalid value: "10.2.0.0/33"'],
    [{ ipRanges: [{ start: '10.2.0.50', end: '10.2.0.10' }], subnetInfo: subnet }, 'spec.ipRanges[0].end: Invalid value: "10.2.0.10": must not be below start (10.2.0.50)'],
    [{ ipRanges: [{ cidr: '10.2.0.0/24', start: '10.2.0.1', end: '10.2.0.9' }], subnetInfo: subnet }, 'set either cidr or start and end, not both'],
    [{ ipRanges: [{ cidr: 'fd00::/120' }], subnetInfo: subnet }, 'must be of the gateway\'s family (IPv4)'],
    [{ ipRanges: [{ cidr: '10.2.0.0/24' }], subnetInfo: { gateway: '10.2.0.1', prefixLength: 40 } }, 'spec.subnetInfo.prefixLength: Invalid value: 40: must be an integer in 1..32'],
    [{ ipRanges: [], subnetInfo: { gateway: 'ten', prefixLength: 24 } }, 'spec.subnetInfo.gateway: Invalid value: "ten": invalid IP address: ten'],
  ])('%j is denied: %s', (spec, message) => {
    const d = decideAdmission('ippool', { operation: 'CREATE', object: pool(spec) }, view());
    expect(d.allowed).toBe(false);
    expect(d.message).toContain(message);
  });

  test('a pool in use cannot lose a range; an unused one can; deletion is left to the finalizer', () => {
    const used = pool({ ipRanges: [{ cidr: '10.2.0.0/24' }], subnetInfo: subnet }, { usage: { total: 254, used: 3 } });
    const moved = pool({ ipRanges: [{ cidr: '10.3.0.0/24' }], subnetInfo: { gateway: '10.3.0.1', prefixLength: 24 } });
    expect(decideAdmission('ippool', { operation: 'UPDATE', object: moved, oldObject: used }, view()).message).toContain('spec.ipRanges[0]: Invalid value: {"cidr":"10.2.0.0/24"}: existing ranges cannot be removed');
    expect(decideAdmission('ippool', { operation: 'UPDATE', object: moved, oldObject: pool(used.spec as Record<string, unknown>, { usage: { total: 254, used: 0 } }) }, view()).allowed).toBe(true);
    expect(decideAdmission('ippool', { operation: 'DELETE', oldObject: used }, view()).allowed).toBe(true);
  });
});

test('ExternalNode: interfaces with distinct names and valid IPs', () => {
  const en = (interfaces: unknown): KubeObject => ({ metadata: { name: 'vm', namespace: 'x' }, spec: { interfaces } });
  expect(decideAdmission('externalnode', { operation: 'CREATE', object: en([{ name: 'eth0', ips: ['10.0.0.5'] }, { name: 'eth1', ips: ['10.0.1.5'] }]) }, view()).allowed).toBe(true);
  expect(decideAdmission('externalnode', { operation: 'CREATE', object: en([]) }, view()).message).toContain('spec.interfaces: Invalid value: []: at least one interface is required');
  expect(decideAdmission('externalnode', { operation: 'CREATE', object: en([{ name: 'e', ips: ['1.1.1.1'] }, { name: 'e', ips: ['2.2.2.2'] }]) }, view()).message).toContain('spec.interfaces[1].name: Invalid value: "e": duplicate interface name (also spec.interfaces[0])');
  expect(decideAdmission('externalnode', { operation: 'CREATE', object: en([{ ips: ['10.0.0.300'] }]) }, view()).message).toContain('spec.interfaces[0].ips[0]: Invalid value: "10.0.0.300"');
});

test('Traceflow: a source pod and one destination', () => {
  const tf = (spec: unknown): KubeObject => ({ metadata: { name: 'tf' }, spec });
  expect(decideAdmission('traceflow', { operation: 'CREATE', object: tf({ source: { namespace: 'x', pod: 'a' }, destination: { namespace: 'y', pod: 'b' } }) }, view()).allowed).toBe(true);
  expect(decideAdmission('traceflow', { operation: 'CREATE', object: tf({ source: { namespace: 'x', pod: 'a' }, destination: { ip: '10.0.0.1', pod: 'b', namespace: 'y' } }) }, view()).message).toContain('spec.destination: Invalid value:');
  expect(decideAdmission('traceflow', { operation: 'CREATE', object: tf({ destination: { ip: '10.0.0.1' } }) }, view()).message).toContain('spec.source.pod: Invalid value: null');
});

describe('the webhook endpoint', () => {
  const hook = new AdmissionWebhook({ view: view() });
  const review = (spec: Record<string, unknown>): Buffer => Buffer.from(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'u-1', operation: 'CREATE', object: acnp('p', spec) } }));

  test('answers an AdmissionReview with the uid and the verdict', async () => {
    const r = await hook.review('/validate/acnp', review({ priority: 1, tier: 'nope', appliedTo: [web] }));
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'u-1', allowed: false, status: { message: 'spec.tier: Invalid value: "nope": tier nope does not exist' } } });
    expect(hook.stats.denied).toBe(1);
  });

  test('an unknown kind is 404 and a body that is not a review is 400', async () => {
    expect((await hook.review('/validate/pods', review({}))).status).toBe(404);
    expect((await hook.review('/validate/acnp', Buffer.from('{"kind":"Pod"}'))).status).toBe(400);
    expect((await hook.review('/validate/acnp', Buffer.from('not json'))).status).toBe(400);
  });
});

test('build/yamls/switchyard.yml (generated by tools/images) registers the same webhooks the controller registers', () => {
  const docs = YAML.parseAllDocuments(readFileSync(join(__dirname, '../../../build/yamls/switchyard.yml'), 'utf8')).map((d) => d.toJSON() as KubeObject);
  const manifest = docs.find((d) => d.kind === 'ValidatingWebhookConfiguration') as KubeObject & { webhooks: { clientConfig: Record<string, unknown> }[] };
  const built = webhookConfiguration({ namespace: 'kube-system', service: 'switchyard', caPem: 'x' }) as KubeObject & { webhooks: { clientConfig: Record<string, unknown> }[] };
  for (const w of built.webhooks) delete w.clientConfig.caBundle;
  expect(manifest).toEqual(built);
});
