/** fast-check arbitraries for the controlplane model, producing canonical IP text so round trips compare equal. */
import fc from 'fast-check';
import type { controlplane as cp } from '../../src/index';
import { bytesToIp } from '../../src/ip';

/** Build an object from entries, leaving out undefined values (exactOptionalPropertyTypes). */
function compact<T>(o: Record<string, unknown>): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
const opt = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(a, { nil: undefined });

export const ipv4 = fc.uint8Array({ minLength: 4, maxLength: 4 }).map((b) => bytesToIp(b) as string);
export const ipv6 = fc.uint8Array({ minLength: 16, maxLength: 16 }).map((b) => bytesToIp(b) as string);
/** IPv6 bytes with long zero runs, to exercise `::` compression. */
export const sparseIpv6Bytes = fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 0xffff })), { minLength: 8, maxLength: 8 }).map((gs) => {
  const b = new Uint8Array(16);
  gs.forEach((g, i) => {
    b[2 * i] = g >> 8;
    b[2 * i + 1] = g & 0xff;
  });
  return b;
});
/** IPv4-mapped IPv6 bytes (`::ffff:a.b.c.d`). */
export const mappedIpv6Bytes = fc.uint8Array({ minLength: 4, maxLength: 4 }).map((v4) => Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...v4));
/** IPv6 text with long zero runs, to exercise `::` compression. */
export const sparseIpv6 = sparseIpv6Bytes.map((b) => bytesToIp(b) as string);
export const ip = fc.oneof(ipv4, ipv6, sparseIpv6);
export const cidr = fc.oneof(
  fc.tuple(ipv4, fc.integer({ min: 0, max: 32 })).map(([a, l]) => `${a}/${l}`),
  fc.tuple(fc.oneof(ipv6, sparseIpv6), fc.integer({ min: 0, max: 128 })).map(([a, l]) => `${a}/${l}`),
);

const name = fc.stringMatching(/^[a-z0-9]([-a-z0-9.]{0,20}[a-z0-9])?$/);
const int32 = fc.integer({ min: -0x80000000, max: 0x7fffffff });
const port = fc.integer({ min: 0, max: 65535 });
const gen = fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER });

export const service: fc.Arbitrary<cp.Service> = fc
  .record({
    protocol: fc.constantFrom<cp.ServiceProtocol>('TCP', 'UDP', 'SCTP', 'ICMP', 'IGMP'),
    port: opt(fc.oneof(port, name)),
    endPort: opt(port),
    srcPort: opt(port),
    srcEndPort: opt(port),
    icmpType: opt(fc.integer({ min: 0, max: 255 })),
    icmpCode: opt(fc.integer({ min: 0, max: 255 })),
    igmpType: opt(fc.integer({ min: 0, max: 255 })),
    groupAddress: opt(ip),
  })
  .map((o) => compact<cp.Service>(o));

export const peer: fc.Arbitrary<cp.NetworkPolicyPeer> = fc
  .record({
    addressGroups: fc.array(name, { maxLength: 3 }),
    ipBlocks: fc.array(fc.record({ cidr, except: fc.array(cidr, { maxLength: 2 }) }), { maxLength: 2 }),
    fqdns: opt(fc.array(fc.domain(), { maxLength: 2 })),
    toServices: opt(
      fc.array(
        fc.record({ name, namespace: name, scope: opt(fc.constantFrom<'Cluster' | 'ClusterSet'>('Cluster', 'ClusterSet')) }).map((o) => compact<cp.ServiceReference>(o)),
        { maxLength: 2 },
      ),
    ),
    labelIdentities: opt(fc.array(fc.integer({ min: 0, max: 0xffffffff }), { maxLength: 3 })),
  })
  .map((o) => compact<cp.NetworkPolicyPeer>(o));

export const rule: fc.Arbitrary<cp.NetworkPolicyRule> = fc
  .record({
    direction: fc.constantFrom<cp.Direction>('In', 'Out'),
    from: peer,
    to: peer,
    services: fc.array(service, { maxLength: 3 }),
    action: opt(fc.constantFrom<cp.RuleAction>('Allow', 'Drop', 'Reject', 'Pass')),
    priority: int32,
    enableLogging: fc.boolean(),
    logLabel: opt(fc.string()),
    appliedToGroups: opt(fc.array(name, { maxLength: 2 })),
    name: opt(fc.string()),
  })
  .map((o) => compact<cp.NetworkPolicyRule>(o));

export const networkPolicy: fc.Arbitrary<cp.NetworkPolicy> = fc
  .record({
    uid: fc.uuid(),
    name: name,
    namespace: fc.oneof(fc.constant(''), name),
    sourceRef: fc.record({
      type: fc.constantFrom<cp.NetworkPolicyType>(
        'K8sNetworkPolicy',
        'AntreaClusterNetworkPolicy',
        'AntreaNetworkPolicy',
        'AdminNetworkPolicy',
        'BaselineAdminNetworkPolicy',
      ),
      namespace: fc.oneof(fc.constant(''), name),
      name,
      uid: fc.uuid(),
    }),
    rules: fc.array(rule, { maxLength: 3 }),
    appliedToGroups: fc.array(name, { maxLength: 3 }),
    priority: opt(fc.double({ noNaN: true, noDefaultInfinity: true })),
    tierPriority: opt(int32),
    appliedToPerRule: opt(fc.boolean()),
    policyTypes: opt(fc.subarray<cp.PolicyType>(['Ingress', 'Egress'])),
    generation: gen,
  })
  .map((o) => compact<cp.NetworkPolicy>(o));

export const groupMember: fc.Arbitrary<cp.GroupMember> = fc
  .record({
    pod: opt(fc.record({ name, namespace: name })),
    externalEntity: opt(fc.record({ name, namespace: name })),
    node: opt(fc.record({ name })),
    ips: fc.array(ip, { maxLength: 3 }),
    ports: opt(
      fc.array(fc.record({ name, port, protocol: fc.constantFrom<'TCP' | 'UDP' | 'SCTP'>('TCP', 'UDP', 'SCTP') }), { maxLength: 2 }),
    ),
  })
  .map((o) => compact<cp.GroupMember>(o));

const members = fc.array(groupMember, { maxLength: 4 });
export const addressGroup: fc.Arbitrary<cp.AddressGroup> = fc.record({ name, groupMembers: members });
export const appliedToGroup: fc.Arbitrary<cp.AppliedToGroup> = fc.record({ name, groupMembers: members });
export const groupPatch = fc.record({ name, addedGroupMembers: members, removedGroupMembers: members });

export const networkPolicyStatus: fc.Arbitrary<cp.NetworkPolicyStatus> = fc.record({
  name: fc.uuid(),
  nodes: fc.array(
    fc
      .record({ nodeName: name, generation: gen, realizationFailure: opt(fc.boolean()), message: opt(fc.string()) })
      .map((o) => compact<cp.NetworkPolicyNodeStatus>(o)),
    { maxLength: 3 },
  ),
});

export const agentInfo: fc.Arbitrary<cp.AgentInfo> = fc
  .record({
    nodeName: name,
    version: fc.string(),
    podRef: opt(fc.record({ name, namespace: name })),
    nodeSubnets: fc.array(cidr, { maxLength: 2 }),
    networkPolicyNum: fc.nat({ max: 0x7fffffff }),
    addressGroupNum: fc.nat({ max: 0x7fffffff }),
    appliedToGroupNum: fc.nat({ max: 0x7fffffff }),
    localPodNum: fc.nat({ max: 0x7fffffff }),
    ovsVersion: opt(fc.string()),
    bridgeName: opt(name),
    flowTable: opt(fc.dictionary(fc.stringMatching(/^[A-Za-z][A-Za-z0-9]{0,15}$/), fc.nat({ max: 0x7fffffff }), { maxKeys: 4 })),
    conditions: fc.array(
      fc
        .record({
          type: fc.constantFrom<cp.AgentCondition['type']>('AgentHealthy', 'ControllerConnectionUp', 'OVSDBConnectionUp', 'OpenflowConnectionUp'),
          status: fc.constantFrom<cp.AgentCondition['status']>('True', 'False', 'Unknown'),
          lastHeartbeatTime: opt(fc.date({ noInvalidDate: true }).map((d) => d.toISOString())),
          reason: opt(fc.string()),
          message: opt(fc.string()),
        })
        .map((o) => compact<cp.AgentCondition>(o)),
      { maxLength: 3 },
    ),
  })
  .map((o) => compact<cp.AgentInfo>(o));

const eventType = fc.constantFrom<cp.WatchEventType>('ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR');
const withRv = <T extends object>(a: fc.Arbitrary<T>): fc.Arbitrary<T> =>
  fc.tuple(a, opt(fc.stringMatching(/^[0-9]{1,8}$/))).map(([e, rv]) => (rv === undefined ? e : { ...e, resourceVersion: rv }));

export const watchEvent: fc.Arbitrary<cp.WatchEvent> = withRv<cp.WatchEvent>(
  fc.oneof(
    fc.record({ type: eventType, kind: fc.constant('NetworkPolicy' as const), object: networkPolicy }),
    fc.record({ type: eventType, kind: fc.constant('AddressGroup' as const), object: addressGroup }),
    fc.record({ type: eventType, kind: fc.constant('AddressGroupPatch' as const), object: groupPatch }),
    fc.record({ type: eventType, kind: fc.constant('AppliedToGroup' as const), object: appliedToGroup }),
    fc.record({ type: eventType, kind: fc.constant('AppliedToGroupPatch' as const), object: groupPatch }),
    fc.record({ type: eventType, kind: fc.constant('EgressGroup' as const), object: appliedToGroup }),
    fc.record({ type: eventType, kind: fc.constant('EgressGroupPatch' as const), object: groupPatch }),
    fc.record({ type: eventType, kind: fc.constant('NetworkPolicyStatus' as const), object: networkPolicyStatus }),
    fc.record({ type: eventType, kind: fc.constant('Bookmark' as const), object: fc.record({ resourceVersion: fc.string() }) }),
    fc.record({
      type: eventType,
      kind: fc.constant('Status' as const),
      object: fc.record({ code: int32, reason: fc.string(), message: fc.string() }),
    }),
  ),
);
