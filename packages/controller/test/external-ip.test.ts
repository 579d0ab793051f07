// ServiceExternalIP's pure parts: which addresses an ExternalIPPool hands out, the allocator (lowest
// free first, loadBalancerIP claims, sharing, exhaustion, release, usage), the webhook's checks of a
// pool (each refusal naming field and value), and what a Service asks for (one IP per IP family,
// which of them its pool can serve).
import type { ExternalIPPool, Service } from '@switchyard/apis/types';
import { parseIp } from '@switchyard/ipam/cidr';
import type { KubeObject } from '@switchyard/kube';
import { decideAdmission, fieldMessage, type AdmissionView } from '../src/admission';
import { ExternalIPAllocator, usableRanges, type ExternalIPResult } from '../src/external-ip-allocator';
import { poolRanges, validateExternalIPPool } from '../src/external-ip-pool';
import { externalIPRequest, familyPlan, holderName, loadBalancerIPFamilyNote, parseServiceHolderKey, refusalNote, serviceFamilies, serviceHolderKey, type ExternalIPRequest } from '../src/service-external-ip';

const pool = (name: string, ipRanges: ExternalIPPool['spec']['ipRanges'], extra: Partial<ExternalIPPool['spec']> = {}): ExternalIPPool => ({
  apiVersion: 'crd.antrea.io/v1beta1',
  kind: 'ExternalIPPool',
  metadata: { name },
  spec: { ipRanges, nodeSelector: {}, ...extra },
});
const ip = parseIp;
/** The IP a result gave, or why not. */
const got = (r: ExternalIPResult): string => (r.ok ? r.holding.ip.toString() : r.reason);
const allocatorWith = (...pools: ExternalIPPool[]): ExternalIPAllocator => {
  const a = new ExternalIPAllocator();
  for (const p of pools) a.setPool(p.metadata.name ?? '', usableRanges(poolRanges(p.spec).ranges));
  return a;
};
const messages = (p: ExternalIPPool, others: ExternalIPPool[] = [], old?: ExternalIPPool): string[] => validateExternalIPPool(p, others, old).map(fieldMessage);

describe('pool ranges', () => {
  test('a start/end range is handed out whole; a CIDR without its network address, and an IPv4 CIDR without its broadcast address', () => {
    const a = allocatorWith(pool('p', [{ start: '10.10.0.2', end: '10.10.0.4' }, { cidr: '10.10.1.0/30' }, { cidr: 'fd00::/126' }]));
    expect(a.usage('p')).toEqual({ total: 3 + 2 + 3, used: 0 });
    expect(a.contains('p', ip('10.10.1.0'))).toBe(false);
    expect(a.contains('p', ip('10.10.1.3'))).toBe(false);
    expect(a.contains('p', ip('fd00::3'))).toBe(true);
  });

  test('a range that does not parse is left out and reported with its field', () => {
    const r = poolRanges(pool('p', [{ cidr: '10.10.1.0/24' }, { start: '10.10.0.9', end: '10.10.0.2' }, { cidr: '10.10/16' }]).spec);
    expect(r.ranges.map((x) => x.text)).toEqual(['10.10.1.0/24']);
    expect(r.errors.map(fieldMessage)).toEqual(['spec.ipRanges[1].end: Invalid value: "10.10.0.2": must not be below start 10.10.0.9', 'spec.ipRanges[2].cidr: Invalid value: "10.10/16": invalid CIDR: 10.10/16']);
  });
});

describe('the allocator', () => {
  test('of one family: the lowest free address of the pool\'s ranges of that family, exhausted per family; the pool knows its families', () => {
    const a = allocatorWith(pool('p', [{ start: 'fd00:77::c8', end: 'fd00:77::c9' }, { start: '10.10.0.2', end: '10.10.0.2' }]));
    expect([...a.families('p')].sort()).toEqual([4, 6]);
    expect([...allocatorWith(pool('v6', [{ cidr: 'fd00::/126' }])).families('v6')]).toEqual([6]);
    expect(got(a.allocate('ns/a#IPv4', 'p', false, 'Service', 4))).toBe('10.10.0.2');
    expect(got(a.allocate('ns/a#IPv6', 'p', false, 'Service', 6))).toBe('fd00:77::c8');
    expect(a.allocate('ns/b#IPv4', 'p', false, 'Service', 4)).toEqual({ ok: false, reason: 'Exhausted', pool: 'p', total: 1, used: 1, family: 4 });
    expect(got(a.allocate('ns/b#IPv6', 'p', false, 'Service', 6))).toBe('fd00:77::c9');
    expect(a.usage('p')).toEqual({ total: 3, used: 3 });
    // Without a family (Egress): the first free address in the pool's order, as before.
    const b = allocatorWith(pool('p', [{ start: 'fd00:77::c8', end: 'fd00:77::c8' }, { start: '10.10.0.2', end: '10.10.0.2' }]));
    expect(got(b.allocate('Egress/e#0', 'p', false, 'Egress'))).toBe('fd00:77::c8');
  });

  test('hands out the lowest free address, range by range, and says when the pool is exhausted', () => {
    const a = allocatorWith(pool('p', [{ start: '10.10.0.2', end: '10.10.0.3' }, { start: '10.10.0.10', end: '10.10.0.10' }]));
    expect(['a', 'b', 'c'].map((s) => got(a.allocate(`ns/${s}`, 'p', false)))).toEqual(['10.10.0.2', '10.10.0.3', '10.10.0.10']);
    expect(a.allocate('ns/d', 'p', false)).toMatchObject({ ok: false, reason: 'Exhausted', total: 3, used: 3 });
    expect(a.release('ns/b')?.ip.toString()).toBe('10.10.0.3');
    expect(got(a.allocate('ns/d', 'p', false))).toBe('10.10.0.3');
    expect(a.usage('p')).toEqual({ total: 3, used: 3 });
  });

  test('a requested IP: taken when free, refused when another Service holds it or it is outside the pool (naming the pool that has it)', () => {
    const a = allocatorWith(pool('p', [{ cidr: '10.10.0.0/29' }]), pool('q', [{ cidr: '10.20.0.0/29' }]));
    expect(a.claim('ns/a', 'p', ip('10.10.0.5'), false)).toMatchObject({ ok: true });
    expect(a.claim('ns/b', 'p', ip('10.10.0.5'), false)).toMatchObject({ ok: false, reason: 'InUse', holders: ['ns/a'] });
    expect(a.claim('ns/b', 'p', ip('10.20.0.2'), false)).toMatchObject({ ok: false, reason: 'NotInPool', owner: 'q' });
    expect(a.claim('ns/b', 'p', ip('192.0.2.1'), false)).toEqual({ ok: false, reason: 'NotInPool', pool: 'p', ip: ip('192.0.2.1') });
    expect(a.claim('ns/b', 'gone', ip('10.10.0.6'), false)).toEqual({ ok: false, reason: 'PoolNotFound', pool: 'gone' });
    // The next free address skips the claimed one.
    expect(got(a.allocate('ns/c', 'p', false))).toBe('10.10.0.1');
  });

  test('an IP is shared only by Services that all allow sharing, and counts once in the usage', () => {
    const a = allocatorWith(pool('p', [{ cidr: '10.10.0.0/29' }]));
    expect(a.claim('ns/a', 'p', ip('10.10.0.2'), true).ok).toBe(true);
    expect(a.claim('ns/b', 'p', ip('10.10.0.2'), true).ok).toBe(true);
    expect(a.claim('ns/c', 'p', ip('10.10.0.2'), false)).toMatchObject({ ok: false, reason: 'InUse', holders: ['ns/a', 'ns/b'] });
    expect(a.usage('p')).toEqual({ total: 6, used: 1 });
    a.release('ns/a');
    expect(a.holders(ip('10.10.0.2'))).toEqual(['ns/b']);
  });

  test('an address held through one pool is not handed out by another pool overlapping it', () => {
    const a = allocatorWith(pool('p', [{ start: '10.10.0.1', end: '10.10.0.2' }]), pool('overlap', [{ start: '10.10.0.1', end: '10.10.0.3' }]));
    a.allocate('ns/a', 'p', false);
    expect(got(a.allocate('ns/b', 'overlap', false))).toBe('10.10.0.2');
  });

  test('a removed pool keeps its holdings until each is released', () => {
    const a = allocatorWith(pool('p', [{ cidr: '10.10.0.0/29' }]));
    a.allocate('ns/a', 'p', false);
    a.removePool('p');
    expect(a.hasPool('p')).toBe(false);
    expect(a.held('ns/a')?.pool).toBe('p');
    expect(a.allocate('ns/b', 'p', false)).toMatchObject({ ok: false, reason: 'PoolNotFound' });
  });
});

describe('the ExternalIPPool webhook', () => {
  test('a pool of ranges and CIDRs of both families is allowed', () => {
    expect(messages(pool('p', [{ start: '10.10.0.2', end: '10.10.0.10' }, { cidr: '10.10.1.0/24' }, { cidr: 'fd00:10::/120' }], { nodeSelector: { matchLabels: { 'network-role': 'ingress-node' } } }))).toEqual([]);
  });

  test.each([
    ['a malformed start', [{ start: '10.10.0.300', end: '10.10.0.10' }], 'spec.ipRanges[0].start: Invalid value: "10.10.0.300": invalid IP address: 10.10.0.300'],
    ['a malformed CIDR', [{ cidr: '10.10.0.0/33' }], 'spec.ipRanges[0].cidr: Invalid value: "10.10.0.0/33": invalid CIDR: 10.10.0.0/33'],
    ['start after end', [{ start: '10.10.0.9', end: '10.10.0.2' }], 'spec.ipRanges[0].end: Invalid value: "10.10.0.2": must not be below start 10.10.0.9'],
    ['a range mixing families', [{ start: '10.10.0.1', end: 'fd00::1' }], 'spec.ipRanges[0].end: Invalid value: "fd00::1": must be of the family of start 10.10.0.1 (IPv4)'],
    ['cidr and start together', [{ cidr: '10.10.0.0/24', start: '10.10.0.1', end: '10.10.0.2' }], 'spec.ipRanges[0]: Invalid value: {"cidr":"10.10.0.0/24","start":"10.10.0.1","end":"10.10.0.2"}: set either cidr, or start and end, not both'],
    ['an IPv6 start after end', [{ start: 'fd00:10::9', end: 'fd00:10::2' }], 'spec.ipRanges[0].end: Invalid value: "fd00:10::2": must not be below start fd00:10::9'],
    ['an IPv6 start with an IPv4 end', [{ start: 'fd00:10::1', end: '10.10.0.9' }], 'spec.ipRanges[0].end: Invalid value: "10.10.0.9": must be of the family of start fd00:10::1 (IPv6)'],
    ['an IPv6 cidr with a start alone', [{ cidr: 'fd00:10::/120', start: 'fd00:10::1' }], 'spec.ipRanges[0]: Invalid value: {"cidr":"fd00:10::/120","start":"fd00:10::1"}: set either cidr, or start and end, not both'],
    ['an empty range', [{}], 'spec.ipRanges[0]: Invalid value: {}: must set cidr, or start and end'],
    ['two ranges of the pool overlapping', [{ cidr: '10.10.0.0/24' }, { start: '10.10.0.250', end: '10.10.1.5' }], 'spec.ipRanges[1]: Invalid value: "10.10.0.250-10.10.1.5": overlaps spec.ipRanges[0] (10.10.0.0/24) of this pool'],
  ])('%s is refused naming the field and value', (_what, ranges, message) => {
    expect(messages(pool('p', ranges))).toEqual([message]);
  });

  test('a range overlapping a range of another pool is refused, naming that pool; the pool itself is not another', () => {
    const other = pool('egress', [{ cidr: '10.10.0.0/28' }]);
    expect(messages(pool('p', [{ start: '10.10.0.15', end: '10.10.0.20' }]), [other])).toEqual(['spec.ipRanges[0]: Invalid value: "10.10.0.15-10.10.0.20": overlaps range 10.10.0.0/28 of ExternalIPPool egress']);
    expect(messages(pool('egress', [{ cidr: '10.10.0.0/28' }, { cidr: '10.10.1.0/28' }]), [other], other)).toEqual([]);
  });

  test('subnetInfo: ranges of its family inside it, prefixLength in range', () => {
    const subnet = { gateway: '10.10.0.1', prefixLength: 24 };
    expect(messages(pool('p', [{ cidr: '10.10.0.128/25' }], { subnetInfo: subnet }))).toEqual([]);
    expect(messages(pool('p', [{ cidr: '10.10.1.0/25' }, { cidr: 'fd00::/120' }], { subnetInfo: subnet }))).toEqual([
      'spec.ipRanges[0]: Invalid value: "10.10.1.0/25": must lie inside the subnet 10.10.0.0/24 (spec.subnetInfo)',
      'spec.ipRanges[1]: Invalid value: "fd00::/120": is IPv6, the subnet\'s gateway 10.10.0.1 is IPv4',
    ]);
    expect(messages(pool('p', [{ cidr: '10.10.0.0/25' }], { subnetInfo: { gateway: '10.10.0.1', prefixLength: 32 } }))).toEqual(['spec.subnetInfo.prefixLength: Invalid value: 32: must be an integer in 1..31 for an IPv4 gateway']);
  });

  test('subnetInfo with an IPv6 gateway: IPv6 ranges inside it pass; an IPv4 range, or one outside, is refused naming the range', () => {
    const subnet = { gateway: 'fd00:10::1', prefixLength: 64 };
    expect(messages(pool('p', [{ start: 'fd00:10::10', end: 'fd00:10::20' }, { cidr: 'fd00:10::100/120' }], { subnetInfo: subnet }))).toEqual([]);
    expect(messages(pool('p', [{ start: '10.10.0.10', end: '10.10.0.20' }, { cidr: 'fd00:11::/120' }], { subnetInfo: subnet }))).toEqual([
      'spec.ipRanges[0]: Invalid value: "10.10.0.10-10.10.0.20": is IPv4, the subnet\'s gateway fd00:10::1 is IPv6',
      'spec.ipRanges[1]: Invalid value: "fd00:11::/120": must lie inside the subnet fd00:10::/64 (spec.subnetInfo)',
    ]);
    expect(messages(pool('p', [{ cidr: 'fd00:10::/120' }], { subnetInfo: { gateway: 'fd00:10::1', prefixLength: 128 } }))).toEqual(['spec.subnetInfo.prefixLength: Invalid value: 128: must be an integer in 1..127 for an IPv6 gateway']);
  });

  test.each([
    ['a VLAN above 4094', { gateway: '10.10.0.1', prefixLength: 24, vlan: 4095 }, [{ start: '10.10.0.10', end: '10.10.0.20' }], 'spec.subnetInfo.vlan: Invalid value: 4095: must be an integer in 0..4094 (0: untagged)'],
    ['a negative VLAN', { gateway: '10.10.0.1', prefixLength: 24, vlan: -1 }, [{ start: '10.10.0.10', end: '10.10.0.20' }], 'spec.subnetInfo.vlan: Invalid value: -1: must be an integer in 0..4094 (0: untagged)'],
    ['the subnet\'s network address as gateway', { gateway: '10.10.0.0', prefixLength: 24 }, [{ start: '10.10.0.10', end: '10.10.0.20' }], 'spec.subnetInfo.gateway: Invalid value: "10.10.0.0": must be a host address of the subnet 10.10.0.0/24, not its network or broadcast address'],
    ['its broadcast address', { gateway: '10.10.0.255', prefixLength: 24 }, [{ start: '10.10.0.10', end: '10.10.0.20' }], 'spec.subnetInfo.gateway: Invalid value: "10.10.0.255": must be a host address of the subnet 10.10.0.0/24, not its network or broadcast address'],
    ['a gateway the pool would hand out', { gateway: '10.10.0.15', prefixLength: 24 }, [{ start: '10.10.0.10', end: '10.10.0.20' }], 'spec.ipRanges[0]: Invalid value: "10.10.0.10-10.10.0.20": holds the subnet\'s gateway 10.10.0.15 (spec.subnetInfo.gateway), which would be handed out as an Egress IP'],
    ['a range outside the gateway\'s subnet', { gateway: '192.168.80.1', prefixLength: 24, vlan: 10 }, [{ start: '192.168.81.10', end: '192.168.81.20' }], 'spec.ipRanges[0]: Invalid value: "192.168.81.10-192.168.81.20": must lie inside the subnet 192.168.80.0/24 (spec.subnetInfo)'],
  ])('subnetInfo with %s is refused naming the field and value', (_what, subnetInfo, ranges, message) => {
    expect(messages(pool('p', ranges, { subnetInfo }))).toEqual([message]);
  });

  test('a VLAN subnet with its gateway outside the ranges is allowed, and its subnetInfo can never change', () => {
    const subnetInfo = { gateway: '192.168.80.1', prefixLength: 24, vlan: 10 };
    const old = pool('p', [{ start: '192.168.80.20', end: '192.168.80.29' }], { subnetInfo });
    expect(messages(old)).toEqual([]);
    expect(messages(pool('p', old.spec.ipRanges, { subnetInfo: { ...subnetInfo, vlan: 11 } }), [old], old)).toEqual(['spec.subnetInfo: Invalid value: {"gateway":"192.168.80.1","prefixLength":24,"vlan":11}: cannot be changed (was {"gateway":"192.168.80.1","prefixLength":24,"vlan":10})']);
    expect(messages(pool('p', old.spec.ipRanges), [old], old)).toEqual(['spec.subnetInfo: Invalid value: null: cannot be changed (was {"gateway":"192.168.80.1","prefixLength":24,"vlan":10})']);
  });

  test('an update may add ranges but not change or remove one', () => {
    const old = pool('p', [{ cidr: '10.10.0.0/28' }, { start: '10.10.1.1', end: '10.10.1.9' }]);
    expect(messages(pool('p', [...old.spec.ipRanges, { cidr: '10.10.2.0/28' }]), [old], old)).toEqual([]);
    expect(messages(pool('p', [{ cidr: '10.10.0.0/28' }, { start: '10.10.1.1', end: '10.10.1.8' }]), [old], old)).toEqual(['spec.ipRanges[1]: Invalid value: "10.10.1.1-10.10.1.9": existing ranges cannot be updated or deleted']);
  });

  test('a bad nodeSelector is refused', () => {
    expect(messages(pool('p', [{ cidr: '10.10.0.0/28' }], { nodeSelector: { matchExpressions: [{ key: 'k', operator: 'In', values: [] }] } })).join()).toContain('spec.nodeSelector.matchExpressions[0]');
  });

  test('through decideAdmission: refused with every message joined, overlaps checked against the view, deletes allowed', () => {
    const existing = pool('egress', [{ cidr: '10.10.0.0/28' }]);
    const view: AdmissionView = { tiers: () => [], clusterGroups: () => [], groups: () => [], clusterNetworkPolicies: () => [], antreaNetworkPolicies: () => [], externalIPPools: () => [existing] };
    const req = (p: ExternalIPPool) => ({ operation: 'CREATE' as const, object: p as unknown as KubeObject });
    expect(decideAdmission('externalippool', req(pool('p', [{ cidr: '10.10.0.8/29' }, { start: 'x', end: '10.0.0.1' }])), view)).toEqual({
      allowed: false,
      message: 'spec.ipRanges[1].start: Invalid value: "x": invalid IP address: x; spec.ipRanges[0]: Invalid value: "10.10.0.8/29": overlaps range 10.10.0.0/28 of ExternalIPPool egress',
    });
    expect(decideAdmission('externalippool', { operation: 'DELETE', oldObject: existing as unknown as KubeObject }, view)).toEqual({ allowed: true });
  });
});

describe('what a Service asks for', () => {
  const svc = (annotations: Record<string, string>, spec: Service['spec'] = { type: 'LoadBalancer' }): Service => ({ metadata: { name: 's', namespace: 'ns', annotations }, spec });
  test('a LoadBalancer Service with the pool annotation, its loadBalancerIP and whether it shares', () => {
    expect(externalIPRequest(svc({ 'service.antrea.io/external-ip-pool': 'p' }))).toEqual({ pool: 'p', sharable: false, families: ['IPv4'], policy: 'SingleStack' });
    expect(externalIPRequest(svc({ 'service.antrea.io/external-ip-pool': 'p', 'service.antrea.io/allow-shared-load-balancer-ip': 'true' }, { type: 'LoadBalancer', loadBalancerIP: '10.10.0.2' }))).toEqual({ pool: 'p', ip: '10.10.0.2', sharable: true, families: ['IPv4'], policy: 'SingleStack' });
    expect(externalIPRequest(svc({ 'service.antrea.io/external-ip-pool': 'p' }, { type: 'LoadBalancer', ipFamilyPolicy: 'RequireDualStack', ipFamilies: ['IPv6', 'IPv4'] }))).toMatchObject({ families: ['IPv6', 'IPv4'], policy: 'RequireDualStack' });
    expect(externalIPRequest(svc({ 'service.antrea.io/external-ip-pool': 'p' }, { type: 'NodePort' }))).toBeUndefined();
    expect(externalIPRequest(svc({}))).toBeUndefined();
  });

  test('each refusal is a Warning naming the field and value', () => {
    expect(refusalNote({ reason: 'Exhausted', pool: 'p', total: 2, used: 2 })).toEqual({
      type: 'Warning',
      reason: 'ExternalIPPoolExhausted',
      message: 'metadata.annotations[service.antrea.io/external-ip-pool]: Invalid value: "p": ExternalIPPool p has no free IP (2 of 2 in use); the Service stays pending until one is released',
    });
    expect(refusalNote({ reason: 'NotInPool', pool: 'p', ip: ip('192.0.2.1') }).message).toBe('spec.loadBalancerIP: Invalid value: "192.0.2.1": not in ExternalIPPool p; it is in no ExternalIPPool');
    expect(refusalNote({ reason: 'PoolNotFound', pool: 'nope' }).message).toBe('metadata.annotations[service.antrea.io/external-ip-pool]: Invalid value: "nope": ExternalIPPool nope not found; the Service stays pending until it exists');
  });
});

describe('one external IP per IP family of the Service', () => {
  const POOL = 'metadata.annotations[service.antrea.io/external-ip-pool]: Invalid value: "p": ';
  const req = (families: ExternalIPRequest['families'], policy: ExternalIPRequest['policy']): ExternalIPRequest => ({ pool: 'p', sharable: false, families, policy });
  const both = new Set([4, 6] as const);
  const v6 = new Set([6] as const);

  test('the families are spec.ipFamilies as settled, else those of spec.clusterIPs, else IPv4', () => {
    const s = (spec: NonNullable<Service['spec']>): Service => ({ metadata: { name: 's', namespace: 'ns' }, spec });
    expect(serviceFamilies(s({ ipFamilies: ['IPv6', 'IPv4'], clusterIPs: ['10.96.0.9'] }))).toEqual(['IPv6', 'IPv4']);
    expect(serviceFamilies(s({ clusterIPs: ['fd00:10:96::9', '10.96.0.9'] }))).toEqual(['IPv6', 'IPv4']);
    expect(serviceFamilies(s({ clusterIP: 'fd00:10:96::9' }))).toEqual(['IPv6']);
    expect(serviceFamilies(s({}))).toEqual(['IPv4']);
  });

  test('a pool with a range of each family serves every family, in the Service\'s order', () => {
    expect(familyPlan(req(['IPv6', 'IPv4'], 'RequireDualStack'), both)).toEqual({ families: ['IPv6', 'IPv4'] });
    expect(familyPlan(req(['IPv4', 'IPv6'], 'PreferDualStack'), both)).toEqual({ families: ['IPv4', 'IPv6'] });
    expect(familyPlan(req(['IPv6'], 'SingleStack'), v6)).toEqual({ families: ['IPv6'] });
  });

  test('a family the pool has no range of: PreferDualStack gets the other alone, RequireDualStack and SingleStack none; the Warning names the family', () => {
    expect(familyPlan(req(['IPv4', 'IPv6'], 'PreferDualStack'), v6)).toEqual({
      families: ['IPv6'],
      note: { type: 'Warning', reason: 'ExternalIPFamilyNotInPool', message: `${POOL}ExternalIPPool p has no IPv4 range; the Service gets its IPv6 external IP alone (spec.ipFamilies ["IPv4","IPv6"], spec.ipFamilyPolicy PreferDualStack)` },
    });
    expect(familyPlan(req(['IPv6', 'IPv4'], 'RequireDualStack'), v6)).toEqual({
      families: [],
      note: { type: 'Warning', reason: 'ExternalIPFamilyNotInPool', message: `${POOL}ExternalIPPool p has no IPv4 range; spec.ipFamilyPolicy RequireDualStack needs an external IP of each of spec.ipFamilies ["IPv6","IPv4"]; the Service stays pending until the pool has one` },
    });
    expect(familyPlan(req(['IPv4'], 'SingleStack'), v6).note?.message).toBe(`${POOL}ExternalIPPool p has no IPv4 range; spec.ipFamilies ["IPv4"] asks for IPv4; the Service stays pending until the pool has one`);
    expect(familyPlan(req(['IPv4', 'IPv6'], 'PreferDualStack'), new Set()).families).toEqual([]);
  });

  test('a loadBalancerIP of a family the Service lacks, and an exhausted family, are Warnings naming field, value and family', () => {
    expect(loadBalancerIPFamilyNote(ip('fd00::5'), req(['IPv4'], 'SingleStack'))).toEqual({
      type: 'Warning',
      reason: 'LoadBalancerIPFamilyMismatch',
      message: 'spec.loadBalancerIP: Invalid value: "fd00::5": an IPv6 address, and spec.ipFamilies is ["IPv4"]; the Service stays pending until they agree',
    });
    expect(refusalNote({ reason: 'Exhausted', pool: 'p', total: 2, used: 2, family: 6 }).message).toBe(`${POOL}ExternalIPPool p has no free IPv6 IP (2 of 2 in use); the Service stays pending until one is released`);
    // A PreferDualStack Service holding its other family's IP is not pending.
    expect(refusalNote({ reason: 'Exhausted', pool: 'p', total: 2, used: 2, family: 6 }, ['IPv4']).message).toBe(`${POOL}ExternalIPPool p has no free IPv6 IP (2 of 2 in use); the Service has its IPv4 external IP alone until one is released`);
  });

  test('each family is held under its own key, and a holder is named by its Service', () => {
    expect(serviceHolderKey('ns/s', 'IPv6')).toBe('ns/s#IPv6');
    expect(parseServiceHolderKey('ns/s#IPv6')).toEqual({ service: 'ns/s', family: 'IPv6' });
    expect(holderName('ns/s#IPv4')).toBe('Service ns/s');
    expect(holderName('Egress/e#1')).toBe('Egress e');
  });
});
