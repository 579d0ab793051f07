// Dual-stack pods on the agent side without a switch: the node options (podCIDRv6), the CNI result
// and the OVSDB external_ids of a pod with an address of each family.
import { agentContext } from '../src/context';
import { podResult } from '../src/features/pods/pod-network';
import { podExternalIds, type PodInterface } from '../src/interface-store';
import { isIpv6WithPrefix } from '../src/ipv6';
import { nodeFacts } from '../src/features/routes/node-routes';
import { givenAddresses, needsNodeObject, nodeAddressesOf } from '../src/node-addresses';
import type { AgentOptions } from '../src/options';
import type { KubeClient } from '@switchyard/kube';

/** Never called: agentContext only checks that there is one. */
const kube: KubeClient = { request: async () => { throw new Error('not called'); }, watch: async () => { throw new Error('not called'); } };

const base: AgentOptions = { nodeName: 'n', podCIDR: '10.1.2.0/24', nodeIP: '192.0.2.1', ovsdbRemote: 'unix:/nonexistent', dataDir: '/nonexistent' };
const pod: PodInterface = {
  containerId: 'c', podName: 'p', podNamespace: 'd', ifname: 'eth0', netns: '/n', hostIfName: 'p-1', ipCidr: '10.1.2.5/24', gateway: '10.1.2.1',
  ipv6: { ipCidr: 'fd00:1:2::5/64', gateway: 'fd00:1:2::1' }, mac: '02:00:00:00:00:05', mtu: 1450, ofport: 3,
};

describe('podCIDRv6', () => {
  it('is kept in canonical form beside the IPv4 pod CIDR', () => {
    expect(agentContext({ ...base, podCIDRv6: 'FD00:1:2:0::/64' }).podCIDRv6).toBe('fd00:1:2::/64');
    expect(agentContext(base).podCIDRv6).toBeUndefined();
  });

  it.each([
    ['10.9.0.0/24', 'podCIDRv6 must be an IPv6 prefix'],
    ['fd00::/127', 'podCIDRv6 /127 leaves no address for pods (at most /126)'],
    ['fd00::zz/64', 'podCIDRv6 is not a CIDR'],
  ])('refuses %s naming the option and the value', (value, message) => {
    expect(() => agentContext({ ...base, podCIDRv6: value })).toThrow(expect.objectContaining({ code: 'INVALID_CONFIG', value, message: expect.stringContaining(message) }));
  });

  it('is refused in networkPolicyOnly mode, where the primary CNI assigns addresses', () => {
    expect(() => agentContext({ ...base, trafficMode: 'networkPolicyOnly', podCIDRv6: 'fd00::/64' })).toThrow(/podCIDRv6 is not used in networkPolicyOnly mode/);
  });

  it('an IPv6 podCIDR with a podCIDRv6 is refused (dual-stack: IPv4 first)', () => {
    expect(() => agentContext({ ...base, podCIDR: 'fd00::/64', podCIDRv6: 'fd00:1::/64' })).toThrow(expect.objectContaining({ code: 'INVALID_CONFIG', path: 'podCIDR', message: expect.stringContaining('podCIDR must be IPv4 when podCIDRv6 is given') }));
  });
});

describe('an IPv6-only node (an IPv6 podCIDR alone)', () => {
  it('has no IPv4 pod CIDR and the IPv6 one in canonical form', () => {
    const ctx = agentContext({ ...base, podCIDR: 'FD00:10:1:0::/64' });
    expect([ctx.podCIDR, ctx.podCIDRv6]).toEqual([undefined, 'fd00:10:1::/64']);
  });

  it.each([
    [{ podCIDR: 'fd00::/127' }, 'podCIDR', 'podCIDR /127 leaves no address for pods'],
    [{ podCIDR: 'fd00::/64', trafficMode: 'networkPolicyOnly' as const }, 'podCIDR', 'an IPv6 podCIDR is not used in networkPolicyOnly mode'],
  ])('refuses %j naming the field', (over, field, message) => {
    expect(() => agentContext({ ...base, ...over })).toThrow(expect.objectContaining({ code: 'INVALID_CONFIG', path: field, message: expect.stringContaining(message) }));
  });

  it('an IPv6 nodeIP is an IPv6 underlay: canonical, nodeIPv6 the same address, the pods\' MTU 20 bytes smaller (Geneve over IPv6: 70 bytes)', () => {
    const ctx = agentContext({ ...base, podCIDR: 'fd00::/64', nodeIP: 'FD00:77:0::1' });
    expect([ctx.underlay6, ctx.options.nodeIP, ctx.options.nodeIPv6, ctx.mtu]).toEqual([true, 'fd00:77::1', 'fd00:77::1', 1430]);
    // The same address given as nodeIPv6 too, in another spelling: accepted.
    expect(agentContext({ ...base, podCIDR: 'fd00::/64', nodeIP: 'fd00:77::1', nodeIPv6: 'FD00:77:0::1' }).options.nodeIPv6).toBe('fd00:77::1');
    // An IPv6-only node with an IPv4 node IP keeps its IPv4 tunnels and their MTU.
    const v4 = agentContext({ ...base, podCIDR: 'fd00::/64', nodeIPv6: 'fd00:77::1' });
    expect([v4.underlay6, v4.mtu]).toEqual([false, 1450]);
    // WireGuard pays its own overhead (an IPv6 outer header already), whatever the underlay; noEncap nothing.
    expect(agentContext({ ...base, podCIDR: 'fd00::/64', nodeIP: 'fd00:77::1', trafficEncryptionMode: 'wireGuard', kube }).mtu).toBe(1420);
    expect(agentContext({ ...base, podCIDR: 'fd00::/64', nodeIP: 'fd00:77::1', trafficMode: 'noEncap' }).mtu).toBe(1500);
  });

  it('runs IPsec over the IPv6 underlay: the tunnel over IPv6 and ESP 38 deducted, per tunnel type (Antrea\'s CalculateMTUDeduction)', () => {
    const ipsec = { ...base, podCIDR: 'fd00::/64', nodeIP: 'fd00:77::1', trafficEncryptionMode: 'ipsec' as const, ipsecPSK: 'k', kube };
    expect([agentContext(ipsec).ipsec, agentContext(ipsec).mtu]).toEqual([true, 1500 - 70 - 38]);
    expect(agentContext({ ...ipsec, tunnelType: 'vxlan' }).mtu).toBe(1500 - 70 - 38);
    expect(agentContext({ ...ipsec, tunnelType: 'gre' }).mtu).toBe(1500 - 62 - 38);
    // An IPv6-only node with an IPv4 node IP: IPsec over its IPv4 tunnels.
    expect(agentContext({ ...ipsec, nodeIP: '192.168.77.1', nodeIPv6: 'fd00:77::1' }).mtu).toBe(1500 - 50 - 38);
  });

  it('the tunnel overhead over the IPv6 underlay per tunnel type: Geneve and VXLAN 70, GRE 62 (its key counted)', () => {
    const v6 = { ...base, podCIDR: 'fd00::/64', nodeIP: 'fd00:77::1' };
    expect((['geneve', 'vxlan', 'gre'] as const).map((tunnelType) => agentContext({ ...v6, tunnelType }).mtu)).toEqual([1430, 1430, 1438]);
  });

  it.each([
    [{ nodeIP: 'fd00:77::1' }, 'nodeIP', 'an IPv6 underlay is for an IPv6-only node'],
    [{ nodeIP: 'fd00:77::1', podCIDRv6: 'fd00::/64' }, 'nodeIP', 'an IPv6 underlay is for an IPv6-only node'],
    [{ podCIDR: 'fd00::/64', nodeIP: 'fd00:77::1', nodeIPv6: 'fd00:77::2' }, 'nodeIPv6', 'differs from the IPv6 nodeIP fd00:77::1'],
  ])('an IPv6 nodeIP is refused unless the node is IPv6-only with that one IPv6 address: %j', (over, field, message) => {
    expect(() => agentContext({ ...base, ...over })).toThrow(expect.objectContaining({ code: 'INVALID_CONFIG', path: field, message: expect.stringContaining(message) }));
  });

  it('runs trafficEncryptionMode wireGuard (peers at their IPv6 node address)', () => {
    const ctx = agentContext({ ...base, podCIDR: 'fd00::/64', trafficEncryptionMode: 'wireGuard', kube });
    expect([ctx.wireGuard, ctx.podCIDR, ctx.podCIDRv6, ctx.mtu]).toEqual([true, undefined, 'fd00::/64', 1420]);
  });

  it('the CNI result of an IPv6-only pod lists its IPv6 address and the IPv6 default route only', () => {
    const only6: PodInterface = { ...pod, ipCidr: 'fd00:1:2::5/64', gateway: 'fd00:1:2::1' };
    delete only6.ipv6;
    expect(podResult(only6)).toMatchObject({ ips: [{ address: 'fd00:1:2::5/64', gateway: 'fd00:1:2::1', interface: 1 }], routes: [{ dst: '::/0', gw: 'fd00:1:2::1' }] });
    expect([podExternalIds(only6)['ip-address'], podExternalIds(only6)['gateway-ip']]).toEqual(['fd00:1:2::5/64', 'fd00:1:2::1']);
  });
});

it('the CNI result of a dual-stack pod lists both addresses on the pod interface and both default routes', () => {
  expect(podResult(pod)).toEqual({
    cniVersion: '1.0.0',
    interfaces: [{ name: 'p-1' }, { name: 'eth0', mac: '02:00:00:00:00:05', mtu: 1450, sandbox: '/n' }],
    ips: [
      { address: '10.1.2.5/24', gateway: '10.1.2.1', interface: 1 },
      { address: 'fd00:1:2::5/64', gateway: 'fd00:1:2::1', interface: 1 },
    ],
    routes: [
      { dst: '0.0.0.0/0', gw: '10.1.2.1' },
      { dst: '::/0', gw: 'fd00:1:2::1' },
    ],
    dns: {},
  });
});

it('external_ids carry both addresses and gateways comma-separated, IPv4 first (as Antrea writes them)', () => {
  const ids = podExternalIds(pod);
  expect([ids['ip-address'], ids['gateway-ip']]).toEqual(['10.1.2.5/24,fd00:1:2::5/64', '10.1.2.1,fd00:1:2::1']);
  const { ipv6: _, ...v4only } = pod;
  expect([podExternalIds(v4only)['ip-address'], podExternalIds(v4only)['gateway-ip']]).toEqual(['10.1.2.5/24', '10.1.2.1']);
});

it('isIpv6WithPrefix takes canonical addresses with a prefix only', () => {
  expect(['fd00::5/64', '::/0', 'fd00:1:2::5/128'].map(isIpv6WithPrefix)).toEqual([true, true, true]);
  expect(['fd00::5', 'FD00::5/64', 'fd00:0::5/64', 'fd00::5/129', '10.0.0.1/24', 'fd00::5/064'].map(isIpv6WithPrefix)).toEqual([false, false, false, false, false, false]);
});

// The binary's node addresses without --node-ip: from the Node object, as Antrea's agent takes them.
describe('the node addresses from the Node object (no --node-ip)', () => {
  const node = (podCIDRs: string[], addresses: string[]) => nodeFacts({ metadata: { name: 'n' }, spec: { podCIDR: podCIDRs[0], podCIDRs }, status: { addresses: addresses.map((address) => ({ type: 'InternalIP', address })) } });

  it('an IPv6-only node whose Node has an IPv6 InternalIP alone: that address is the transport address and the IPv6 one (an IPv6 underlay), in RFC 5952 form', () => {
    expect(needsNodeObject(givenAddresses({}))).toBe(true);
    expect(nodeAddressesOf(givenAddresses({}), node(['fd00:10:1::/64'], ['FD00:77:0::1']))).toEqual({ podCIDR: 'fd00:10:1::/64', nodeIP: 'fd00:77::1', nodeIPv6: 'fd00:77::1' });
    // --pod-cidr given, the addresses still from the Node.
    const given = givenAddresses({ podCidr: 'fd00:10:1::/64' });
    expect(needsNodeObject(given)).toBe(true);
    expect(nodeAddressesOf(given, node(['fd00:10:1::/64'], ['fd00:77::1']))).toEqual({ podCIDR: 'fd00:10:1::/64', nodeIP: 'fd00:77::1', nodeIPv6: 'fd00:77::1' });
  });

  it('an IPv6-only node whose Node has both InternalIPs: the IPv4 one carries the tunnels, the IPv6 one serves IPv6 node ports', () => {
    expect(nodeAddressesOf(givenAddresses({}), node(['fd00:10:1::/64'], ['fd00:77::1', '192.168.77.1']))).toEqual({ podCIDR: 'fd00:10:1::/64', nodeIP: '192.168.77.1', nodeIPv6: 'fd00:77::1' });
  });

  it('a dual-stack node: both pod CIDRs and both InternalIPs, the IPv4 one the transport address; with --node-ip <IPv4> alone the IPv6 one still from the Node', () => {
    const ds = node(['10.1.2.0/24', 'fd00:10:1::/64'], ['192.168.77.1', 'fd00:77::1']);
    expect(nodeAddressesOf(givenAddresses({}), ds)).toEqual({ podCIDR: '10.1.2.0/24', podCIDRv6: 'fd00:10:1::/64', nodeIP: '192.168.77.1', nodeIPv6: 'fd00:77::1' });
    const given = givenAddresses({ podCidr: '10.1.2.0/24,fd00:10:1::/64', nodeIp: '192.168.77.9' });
    expect(needsNodeObject(given)).toBe(true);
    expect(nodeAddressesOf(given, ds)).toEqual({ podCIDR: '10.1.2.0/24', podCIDRv6: 'fd00:10:1::/64', nodeIP: '192.168.77.9', nodeIPv6: 'fd00:77::1' });
    // Both flags complete: the Node is not read.
    expect(needsNodeObject(givenAddresses({ podCidr: '10.1.2.0/24,fd00:10:1::/64', nodeIp: '192.168.77.9,fd00:77::9' }))).toBe(false);
  });

  it('an IPv4 node takes no IPv6 address from its Node (no IPv6 pods), and needs the Node only for what the flags lack', () => {
    expect(nodeAddressesOf(givenAddresses({}), node(['10.1.2.0/24'], ['192.168.77.1', 'fd00:77::1']))).toEqual({ podCIDR: '10.1.2.0/24', nodeIP: '192.168.77.1' });
    expect(needsNodeObject(givenAddresses({ podCidr: '10.1.2.0/24', nodeIp: '192.168.77.1' }))).toBe(false);
  });

  it.each([
    [{}, node([], ['fd00:77::1']), '--pod-cidr', 'no pod CIDR'],
    [{}, node(['10.1.2.0/24', 'fd00:10:1::/64'], ['fd00:77::1']), '--node-ip', 'no node IP'],
    [{}, undefined, '--pod-cidr', 'no pod CIDR'],
    [{ podCidr: '10.1.2.0/24,fd00:10:1::/64', nodeIp: 'fd00:77::1' }, undefined, '--node-ip', 'an IPv6 underlay is for an IPv6-only node'],
  ])('refuses what no node can run, naming the flag: %j with Node %j', (flags, facts, field, message) => {
    expect(() => nodeAddressesOf(givenAddresses(flags), facts)).toThrow(expect.objectContaining({ code: 'INVALID_CONFIG', path: field, message: expect.stringContaining(message) }));
  });
});
