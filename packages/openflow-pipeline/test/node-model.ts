/**
 * A small node universe for property tests: a few pods, peers, Services, groups and policies
 * whose variants overlap (shared addresses, shared endpoints, colliding rule priorities, named
 * ports), random events over them, and the node state they add up to.
 */
import fc from 'fast-check';
import type {
  AddressGroup, AppliedToGroup, EgressRule, EgressSpec, ExternalNodeSpec, FqdnSpec, GroupMember, LocalPod, MulticlusterSpec, NetworkPolicy, NetworkPolicyPeer,
  NetworkPolicyRule, NodeConfig, NodeState, PolicyService, RemoteNode, ServicePortSpec,
} from '../src/index';
import { qosArb, type QosMark } from './qos-feature';

const pick = <T>(xs: readonly T[]): fc.Arbitrary<T> => fc.constantFrom(...xs);
const subset = <T>(xs: readonly T[], max = xs.length): fc.Arbitrary<T[]> => fc.subarray([...xs], { maxLength: max });

/** Pod i's addresses: two variants each, never shared between pods. */
const podIp = (i: number, v: number): string => `10.10.0.${10 + i + 20 * v}`;
const POD_IPS = [0, 1, 2, 3, 4, 5].flatMap((i) => [podIp(i, 0), podIp(i, 1)]);
const EXTERNAL_IPS = ['10.30.0.1', '10.30.0.2', '10.30.0.3', '10.40.0.9'];

export const podArb = (i: number): fc.Arbitrary<LocalPod> =>
  fc.record({ v: fc.constantFrom(0, 0, 0, 1), port: fc.constantFrom(0, 0, 1), named: fc.nat(2), pool: fc.constantFrom(false, false, false, true) }).map(({ v, port, named, pool }) => ({
    name: `p${i}`, namespace: 'ns', ofport: 10 + i + 30 * port, ips: [podIp(i, v)], mac: `02:00:00:00:00:${(16 + i).toString(16)}`,
    ...(named ? { namedPorts: [{ name: 'http', port: named === 1 ? 80 : 8080, protocol: 'TCP' as const }] } : {}),
    ...(pool ? { gatewayIP: '10.20.0.1' } : {}),
  }));

export const remoteNodeArb = (i: number): fc.Arbitrary<RemoteNode> =>
  fc.record({ far: fc.boolean(), ipsec: fc.boolean() }).map(({ far, ipsec }) => ({
    name: `n${i}`, podCIDR: `10.1${i}.0.0/24`, nodeIP: far ? `172.16.0.${i + 1}` : `192.168.1.${10 + i}`, gatewayIP: `10.1${i}.0.1`,
    ...(ipsec ? { ipsecTunnelOfport: 200 + i } : {}),
  }));

export const serviceArb = (i: number): fc.Arbitrary<ServicePortSpec> =>
  fc.record({
    udp: fc.boolean(), nodePort: fc.boolean(), affinity: fc.boolean(),
    endpoints: subset([...POD_IPS.slice(0, 6), '10.11.0.5'], 3),
    // The Service the port belongs to (toServices peers name it); two ports may share one.
    service: fc.option(pick(['ns/web', 'ns/antrea-mc-web', 'ns/db']), { nil: undefined }),
  }).map(({ udp, nodePort, affinity, endpoints, service }) => ({
    groupId: 100 + i, protocol: udp ? 'UDP' : 'TCP', clusterIP: `10.96.0.${1 + i}`, port: udp ? 53 : 80,
    ...(service !== undefined ? { service } : {}),
    ...(nodePort ? { nodePort: 30000 + i } : {}), ...(affinity ? { affinityTimeout: 60 } : {}),
    endpoints: endpoints.map((ip) => ({ ip, port: 8080 })),
  }));

const memberArb = (ips: readonly string[]): fc.Arbitrary<GroupMember[]> =>
  fc.tuple(subset(ips, 5), fc.boolean()).map(([xs, ports]) => xs.map((ip, k) => ({
    ips: [ip], ...(ports && k === 0 ? { ports: [{ name: 'http', port: 8081, protocol: 'TCP' as const }] } : {}),
  })));

/** Members are mostly on the addresses pods usually have. */
const LIKELY_POD_IPS = [0, 1, 2, 3, 4, 5].map((i) => podIp(i, 0));
export const addressGroupArb = (i: number): fc.Arbitrary<AddressGroup> =>
  memberArb([...LIKELY_POD_IPS, podIp(1, 1), ...EXTERNAL_IPS]).map((groupMembers) => ({ name: `a${i}`, groupMembers }));
export const appliedToGroupArb = (i: number): fc.Arbitrary<AppliedToGroup> =>
  memberArb([...LIKELY_POD_IPS, podIp(2, 1), '10.12.0.7']).map((groupMembers) => ({ name: `t${i}`, groupMembers }));

const serviceArbs: fc.Arbitrary<PolicyService>[] = [
  fc.record({ protocol: pick(['TCP', 'UDP'] as const), port: fc.integer({ min: 1, max: 5 }).map((x) => 80 * x) }),
  fc.record({ protocol: fc.constant('TCP' as const), port: fc.constant(1000), endPort: fc.constant(1031) }),
  fc.constant({ protocol: 'TCP' as const, port: 'http' }),
  fc.constant({ protocol: 'ICMP' as const, icmpType: 8, icmpCode: 0 }),
];

const peerArb: fc.Arbitrary<NetworkPolicyPeer> = fc.record({
  addressGroups: subset(['a0', 'a1', 'a2'], 2),
  ipBlocks: subset([{ cidr: '10.50.0.0/16', except: ['10.50.1.0/24'] }, { cidr: '0.0.0.0/0', except: [] }], 1),
  fqdns: subset(['*.example.com', 'a.test'], 1),
  toServices: subset([{ name: 'web', namespace: 'ns' }, { name: 'web', namespace: 'ns', scope: 'ClusterSet' as const }, { name: 'db', namespace: 'ns' }], 1),
});

const ruleArb = (native: boolean): fc.Arbitrary<NetworkPolicyRule> =>
  fc.record({
    direction: pick(['In', 'Out'] as const), peer: peerArb, services: fc.array(fc.oneof(...serviceArbs), { maxLength: 2 }),
    action: native ? pick(['Allow', 'Drop', 'Reject', 'Pass'] as const) : fc.constant('Allow' as const),
    priority: fc.nat(2), enableLogging: fc.boolean(), applied: fc.option(subset(['t0', 't1', 't2'], 1), { nil: undefined }),
  }).map(({ direction, peer, services, action, priority, enableLogging, applied }) => {
    const empty = { addressGroups: [], ipBlocks: [] };
    const egressPeer = peer;
    const ingressPeer = { addressGroups: peer.addressGroups, ipBlocks: peer.ipBlocks };
    return {
      direction, from: direction === 'In' ? ingressPeer : empty, to: direction === 'Out' ? egressPeer : empty,
      services, action, priority, enableLogging, ...(applied?.length ? { appliedToGroups: applied } : {}),
    };
  });

export const policyArb = (i: number): fc.Arbitrary<NetworkPolicy> =>
  fc.boolean().chain((native) => fc.record({
    tier: pick([100, 250, 253, 254]), prio: fc.integer({ min: 1, max: 3 }), applied: subset(['t0', 't1', 't2'], 2),
    rules: fc.array(ruleArb(native), { minLength: 1, maxLength: 3 }), types: fc.option(subset(['Ingress', 'Egress'] as const), { nil: undefined }),
    generation: fc.nat(5),
  }).map(({ tier, prio, applied, rules, types, generation }) => ({
    uid: `u${i}`, name: `np${i}`, namespace: 'ns', generation, appliedToGroups: applied, rules,
    sourceRef: { type: native ? 'AntreaClusterNetworkPolicy' as const : 'K8sNetworkPolicy' as const, namespace: 'ns', name: `np${i}`, uid: `u${i}` },
    ...(native ? { tierPriority: tier, priority: prio } : types ? { policyTypes: types } : {}),
  })));

const fqdnArb: fc.Arbitrary<FqdnSpec | undefined> = fc.option(fc.record({
  ports: subset([10, 11, 12, 40, 41], 3), a: subset(['10.60.0.1', '10.60.0.2', '10.30.0.2'], 2), b: subset(['10.61.0.1', '10.61.0.2'], 2),
}).map(({ ports, a, b }) => ({
  conjId: 0xfffffff0, podOfports: ports, addresses: { ...(a.length ? { '*.example.com': a } : {}), ...(b.length ? { 'a.test': b } : {}) },
})), { freq: 4, nil: undefined });

const multiclusterArb: fc.Arbitrary<MulticlusterSpec | undefined> = fc.option(fc.record({
  isGateway: fc.boolean(), labels: fc.boolean(),
}).map(({ isGateway, labels }) => ({
  isGateway, localGatewayIP: '192.168.1.50',
  remoteClusters: [{ cidrs: ['10.200.0.0/16'], gatewayIP: '172.30.0.1' }, { cidrs: ['10.201.0.0/16', '10.11.0.0/24'], gatewayIP: '172.30.0.2' }],
  ...(labels ? { labelIdentities: [{ ip: '10.10.0.10', id: 7 }] } : {}),
})), { nil: undefined });

const externalNodeArb: fc.Arbitrary<ExternalNodeSpec | undefined> = fc.option(fc.record({
  second: fc.boolean(), bypass: fc.boolean(),
}).map(({ second, bypass }) => ({
  interfaces: [{ uplinkOfport: 1, pairOfport: 2, ips: ['10.10.0.10'] }, ...(second ? [{ uplinkOfport: 3, pairOfport: 4, ips: ['10.10.0.11'] }] : [])],
  ...(bypass ? { bypass: [{ direction: 'ingress' as const, protocol: 'TCP' as const, cidr: '10.70.0.0/16', port: 22 }] } : {}),
})), { freq: 3, nil: undefined });

/** Egresses: owned here (SNAT under a mark) or elsewhere (tunnel to the owner) or by no node, over the pods' addresses. */
const egressRuleArb = (name: string, ip: string): fc.Arbitrary<EgressRule> => fc.record({
  where: pick(['here', 'there', 'nowhere'] as const), mark: fc.integer({ min: 1, max: 3 }), local: subset(POD_IPS, 3), remote: subset(['10.11.0.5', '10.11.0.6'], 2),
  shaped: fc.boolean(),
}).map(({ where, mark, local, remote, shaped }) => ({
  name, ip, local: where === 'here', localPods: local, remotePods: remote,
  ...(where === 'here' ? { mark } : {}), ...(where === 'here' && shaped ? { meter: mark } : {}), ...(where === 'there' ? { ownerIP: '192.168.1.2' } : {}),
}));
export const egressArb: fc.Arbitrary<EgressSpec | undefined> = fc.option(fc.record({
  except: subset(['192.168.1.1/32', '192.168.1.2/32', '172.16.0.0/16'], 3), a: fc.option(egressRuleArb('a', '192.168.1.200'), { nil: undefined }), b: fc.option(egressRuleArb('b', '192.168.1.201'), { nil: undefined }),
}).map(({ except, a, b }) => ({ exceptCIDRs: except, egresses: [a, b].filter((r): r is EgressRule => r !== undefined) })), { freq: 4, nil: undefined });

const baseConfig: NodeConfig = {
  round: 3, trafficMode: 'encap', gateway: { ofport: 2, ip: '10.10.0.1', mac: '02:00:00:00:00:aa' }, tunnelOfport: 1,
  podCIDR: '10.10.0.0/24', nodeIP: '192.168.1.1', nodeSubnet: '192.168.1.0/24', enableProxy: true, enableAntreaPolicy: true,
};
export const configArb: fc.Arbitrary<NodeConfig> = fc.record({
  mode: pick(['encap', 'hybrid', 'noEncap', 'networkPolicyOnly'] as const), proxy: fc.boolean(), round: fc.integer({ min: 3, max: 4 }),
}).map(({ mode, proxy, round }) => ({ ...baseConfig, trafficMode: mode, enableProxy: proxy, round }));

/** One change to the node state. */
export type NodeEvent =
  | { kind: 'pod' | 'remoteNode' | 'service' | 'addressGroup' | 'appliedToGroup' | 'policy'; key: string; value: unknown | undefined }
  | { kind: 'fqdn'; value: FqdnSpec | undefined }
  | { kind: 'multicluster'; value: MulticlusterSpec | undefined }
  | { kind: 'externalNode'; value: ExternalNodeSpec | undefined }
  /** One rule of an existing policy replaced (native rules stay valid in K8s policies as Allow). */
  | { kind: 'policyRule'; key: string; index: number; rule: NetworkPolicyRule }
  /** An existing policy's precedence changed, its rules kept. */
  | { kind: 'policyPriority'; key: string; priority: number }
  | { kind: 'config'; value: NodeConfig }
  /** The slice of a feature defined outside the package (test/qos-feature.ts). */
  | { kind: 'qos'; value: { marks: QosMark[] } | undefined }
  /** The Egress slice (the egress() feature, in the caller's list). */
  | { kind: 'egress'; value: EgressSpec | undefined };

type ObjectEvent = Extract<NodeEvent, { value: unknown; key: string }>;
const upsertOrDelete = <T>(kind: ObjectEvent['kind'], n: number, arb: (i: number) => fc.Arbitrary<T>): fc.Arbitrary<NodeEvent> =>
  fc.nat(n - 1).chain((i) => fc.option(arb(i), { freq: 4, nil: undefined }).map((value) => ({ kind, key: String(i), value })));

/** A random event, policies and groups most often (their dependencies are the interesting part). */
export const eventArb: fc.Arbitrary<NodeEvent> = fc.oneof(
  { weight: 4, arbitrary: upsertOrDelete('pod', 6, podArb) },
  { weight: 1, arbitrary: upsertOrDelete('remoteNode', 3, remoteNodeArb) },
  { weight: 2, arbitrary: upsertOrDelete('service', 3, serviceArb) },
  { weight: 3, arbitrary: upsertOrDelete('addressGroup', 3, addressGroupArb) },
  { weight: 3, arbitrary: upsertOrDelete('appliedToGroup', 3, appliedToGroupArb) },
  { weight: 4, arbitrary: upsertOrDelete('policy', 4, policyArb) },
  { weight: 2, arbitrary: fqdnArb.map((value) => ({ kind: 'fqdn' as const, value })) },
  { weight: 1, arbitrary: multiclusterArb.map((value) => ({ kind: 'multicluster' as const, value })) },
  { weight: 1, arbitrary: configArb.map((value) => ({ kind: 'config' as const, value })) },
  { weight: 1, arbitrary: externalNodeArb.map((value) => ({ kind: 'externalNode' as const, value })) },
  { weight: 3, arbitrary: fc.record({ key: fc.nat(3).map(String), index: fc.nat(2), rule: ruleArb(true) }).map((e) => ({ kind: 'policyRule' as const, ...e })) },
  { weight: 1, arbitrary: fc.record({ key: fc.nat(3).map(String), priority: fc.integer({ min: 1, max: 3 }) }).map((e) => ({ kind: 'policyPriority' as const, ...e })) },
);

/** Events of a node whose list has the outside QoS feature too. */
export const eventWithQosArb: fc.Arbitrary<NodeEvent> = fc.oneof(
  { weight: 12, arbitrary: eventArb },
  { weight: 2, arbitrary: qosArb.map((value) => ({ kind: 'qos' as const, value })) },
  { weight: 2, arbitrary: egressArb.map((value) => ({ kind: 'egress' as const, value })) },
);

/** Events that fill the node first: every pod, group and peer, some policies, Services and FQDN addresses. */
export const populateArb: fc.Arbitrary<NodeEvent[]> = fc.tuple(
  fc.tuple(...[0, 1, 2, 3, 4, 5].map(podArb)).map((ps) => ps.map((value, i): NodeEvent => ({ kind: 'pod', key: String(i), value }))),
  fc.tuple(...[0, 1, 2].map(addressGroupArb)).map((gs) => gs.map((value, i): NodeEvent => ({ kind: 'addressGroup', key: String(i), value }))),
  fc.tuple(...[0, 1, 2].map(appliedToGroupArb)).map((gs) => gs.map((value, i): NodeEvent => ({ kind: 'appliedToGroup', key: String(i), value }))),
  fc.tuple(...[0, 1, 2, 3].map((i) => fc.option(policyArb(i), { nil: undefined }))).map((ps) => ps.map((value, i): NodeEvent => ({ kind: 'policy', key: String(i), value }))),
  fc.tuple(...[0, 1, 2].map((i) => fc.option(serviceArb(i), { nil: undefined }))).map((ss) => ss.map((value, i): NodeEvent => ({ kind: 'service', key: String(i), value }))),
  fc.tuple(remoteNodeArb(0), fqdnArb).map(([n, f]): NodeEvent[] => [{ kind: 'remoteNode', key: '0', value: n }, { kind: 'fqdn', value: f }]),
).map((parts) => parts.flat().filter((e) => !('value' in e) || e.value !== undefined));

/** The node state as maps (insertion order is state order; an update keeps an object's place). */
export class NodeModel {
  config: NodeConfig = baseConfig;
  readonly objects = {
    pod: new Map<string, LocalPod>(), remoteNode: new Map<string, RemoteNode>(), service: new Map<string, ServicePortSpec>(),
    addressGroup: new Map<string, AddressGroup>(), appliedToGroup: new Map<string, AppliedToGroup>(), policy: new Map<string, NetworkPolicy>(),
  };
  fqdn: FqdnSpec | undefined;
  multicluster: MulticlusterSpec | undefined;
  externalNode: ExternalNodeSpec | undefined;
  qos: { marks: QosMark[] } | undefined;
  egress: EgressSpec | undefined;

  apply(e: NodeEvent): void {
    if (e.kind === 'fqdn') this.fqdn = e.value;
    else if (e.kind === 'qos') this.qos = e.value;
    else if (e.kind === 'egress') this.egress = e.value;
    else if (e.kind === 'externalNode') this.externalNode = e.value;
    else if (e.kind === 'multicluster') this.multicluster = e.value;
    else if (e.kind === 'config') this.config = e.value;
    else if (e.kind === 'policyRule') this.editPolicy(e.key, (p) => {
      if (e.index >= p.rules.length) return p;
      const native = p.sourceRef.type !== 'K8sNetworkPolicy';
      return { ...p, rules: p.rules.map((r, i): NetworkPolicyRule => (i === e.index ? { ...e.rule, action: native ? e.rule.action ?? 'Allow' : 'Allow' } : r)) };
    });
    else if (e.kind === 'policyPriority') this.editPolicy(e.key, (p) => (p.tierPriority === undefined ? p : { ...p, priority: e.priority }));
    else {
      const m = this.objects[e.kind] as Map<string, unknown>;
      if (e.value === undefined) m.delete(e.key);
      else m.set(e.key, e.value);
    }
  }

  private editPolicy(key: string, edit: (p: NetworkPolicy) => NetworkPolicy): void {
    const p = this.objects.policy.get(key);
    if (p) this.objects.policy.set(key, edit(p));
  }

  clone(): NodeModel {
    const c = new NodeModel();
    c.config = this.config;
    for (const k of Object.keys(this.objects) as (keyof NodeModel['objects'])[]) {
      for (const [key, v] of this.objects[k]) (c.objects[k] as Map<string, unknown>).set(key, v);
    }
    c.fqdn = this.fqdn;
    c.multicluster = this.multicluster;
    c.externalNode = this.externalNode;
    c.qos = this.qos;
    c.egress = this.egress;
    return c;
  }

  state(): NodeState {
    const o = this.objects;
    return {
      config: this.config, pods: [...o.pod.values()], remoteNodes: [...o.remoteNode.values()], services: [...o.service.values()],
      addressGroups: [...o.addressGroup.values()], appliedToGroups: [...o.appliedToGroup.values()], policies: [...o.policy.values()],
      ...(this.fqdn ? { fqdn: this.fqdn } : {}), ...(this.multicluster ? { multicluster: this.multicluster } : {}),
      ...(this.externalNode ? { externalNode: this.externalNode } : {}), ...(this.qos ? { extensions: { qos: this.qos } } : {}),
      ...(this.egress ? { egress: this.egress } : {}),
    };
  }
}
