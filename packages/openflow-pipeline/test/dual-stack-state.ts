/** A dual-stack node for the IPv6 tests (unit and integration): pods of one, the other or both families, a peer, policies with IPv6 peers. */
import { Cidr, Ip } from '@switchyard/ipam/cidr';
import type { NetworkPolicy, NodeState } from '../src/index';

export const GW = { ofport: 2, ip: '10.10.0.1', ipv6: 'fd00:10:10::1', mac: '02:00:00:00:00:01' };
/** Dual-stack. */
export const A = { name: 'a', namespace: 'ns', ofport: 10, ips: ['10.10.0.10', 'fd00:10:10::a'], mac: '02:00:00:00:00:0a' };
/** Dual-stack. */
export const B = { name: 'b', namespace: 'ns', ofport: 11, ips: ['10.10.0.11', 'fd00:10:10::b'], mac: '02:00:00:00:00:0b' };
/** IPv6 only. */
export const C = { name: 'c', namespace: 'ns', ofport: 12, ips: ['fd00:10:10::c'], mac: '02:00:00:00:00:0c' };
/** IPv4 only. */
export const D = { name: 'd', namespace: 'ns', ofport: 13, ips: ['10.10.0.13'], mac: '02:00:00:00:00:0d' };
export const PEER = { name: 'n2', podCIDR: '10.10.1.0/24', podCIDRv6: 'fd00:10:10:1::/64', nodeIP: '192.168.77.101', gatewayIP: '10.10.1.1' };

const k8s = (uid: string, applied: string, rules: NetworkPolicy['rules'], types?: NetworkPolicy['policyTypes']): NetworkPolicy => ({
  uid, name: uid, namespace: 'ns', generation: 1, appliedToGroups: [applied], sourceRef: { type: 'K8sNetworkPolicy', namespace: 'ns', name: uid, uid }, rules,
  ...(types ? { policyTypes: types } : {}),
});

/** The policies: B accepts TCP 8080 from A (both families); C drops what goes to fd00:99::/32 except fd00:99:1::/48 (ACNP), allows the rest out. */
export const POLICIES: NetworkPolicy[] = [
  k8s('to-b', 'tb', [{ direction: 'In', from: { addressGroups: ['ga'], ipBlocks: [] }, to: { addressGroups: [], ipBlocks: [] }, services: [{ protocol: 'TCP', port: 8080 }], priority: 0, enableLogging: false }], ['Ingress']),
  {
    uid: 'acnp', name: 'acnp', namespace: '', generation: 1, appliedToGroups: ['tc'], priority: 1, tierPriority: 100, sourceRef: { type: 'AntreaClusterNetworkPolicy', namespace: '', name: 'acnp', uid: 'acnp' },
    rules: [{ direction: 'Out', from: { addressGroups: [], ipBlocks: [] }, to: { addressGroups: [], ipBlocks: [{ cidr: 'fd00:99::/32', except: ['fd00:99:1::/48'] }] }, services: [], action: 'Drop', priority: 0, enableLogging: false }],
  },
];

export function dualStackState(over: Partial<NodeState['config']> = {}): NodeState {
  return {
    config: {
      round: 1, trafficMode: 'encap', gateway: GW, tunnelOfport: 1, podCIDR: '10.10.0.0/24', podCIDRv6: 'fd00:10:10::/64', nodeIP: '192.168.77.100',
      enableProxy: true, enableAntreaPolicy: true, ...over,
    },
    pods: [A, B, C, D],
    remoteNodes: [PEER],
    addressGroups: [{ name: 'ga', groupMembers: [{ ips: A.ips }] }],
    appliedToGroups: [{ name: 'tb', groupMembers: [{ ips: B.ips }] }, { name: 'tc', groupMembers: [{ ips: C.ips }] }],
    policies: POLICIES,
  };
}

/** The IPv6 twin of IPv4 text: the address (or block) inside fd00::/96, e.g. 10.10.0.10 -> fd00::a0a:a. */
export function twin6(v4: string): string {
  const [addr, len] = v4.split('/');
  const ip = new Ip(6, (0xfd00n << 112n) | Ip.parse(addr!).value);
  return len === undefined ? ip.toString() : new Cidr(6, ip.value, 96 + Number(len)).toString();
}

/**
 * A random IPv4 state (test/node-model.ts) made dual-stack: the node's IPv6 pod CIDR and gateway,
 * pods by name of one family or both (p0, p3: IPv4; p1, p4: both; p2, p5: IPv6), peers' IPv6 pod
 * CIDRs, and every group member, ipBlock and FQDN address with its IPv6 twin.
 */
export function dualStack(s: NodeState): NodeState {
  const v6Only = (name: string): boolean => /[25]$/.test(name);
  const v4Only = (name: string): boolean => /[03]$/.test(name);
  const withTwins = (ips: readonly string[]): string[] => [...ips, ...ips.filter((ip) => !ip.includes(':')).map(twin6)];
  return {
    ...s,
    config: { ...s.config, podCIDRv6: twin6(s.config.podCIDR!), gateway: { ...s.config.gateway, ipv6: twin6(s.config.gateway.ip!) } },
    pods: s.pods.map((p) => (v4Only(p.name) ? p : { ...p, ips: v6Only(p.name) ? p.ips.map(twin6) : withTwins(p.ips) })),
    remoteNodes: s.remoteNodes.map((n) => ({ ...n, podCIDRv6: twin6(n.podCIDR!) })),
    addressGroups: s.addressGroups.map((g) => ({ ...g, groupMembers: g.groupMembers.map((m) => ({ ...m, ips: withTwins(m.ips) })) })),
    appliedToGroups: s.appliedToGroups.map((g) => ({ ...g, groupMembers: g.groupMembers.map((m) => ({ ...m, ips: withTwins(m.ips) })) })),
    policies: s.policies.map((np) => ({
      ...np,
      rules: np.rules.map((r) => {
        const blocks = (peer: typeof r.from) => ({ ...peer, ipBlocks: [...peer.ipBlocks, ...peer.ipBlocks.map((b) => ({ cidr: twin6(b.cidr), except: b.except.map(twin6) }))] });
        return { ...r, from: blocks(r.from), to: blocks(r.to) };
      }),
    })),
    ...(s.fqdn ? { fqdn: { ...s.fqdn, addresses: Object.fromEntries(Object.entries(s.fqdn.addresses ?? {}).map(([k, v]) => [k, withTwins(v)])) } } : {}),
  };
}
