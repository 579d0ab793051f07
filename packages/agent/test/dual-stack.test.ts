// Dual-stack pods on the agent side without a switch: the node options (podCIDRv6), the CNI result
// and the OVSDB external_ids of a pod with an address of each family.
import { agentContext } from '../src/context';
import { podResult } from '../src/features/pods/pod-network';
import { podExternalIds, type PodInterface } from '../src/interface-store';
import { isIpv6WithPrefix } from '../src/ipv6';
import type { AgentOptions } from '../src/options';

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

  it('an IPv6 podCIDR alone is refused with what to do instead', () => {
    expect(() => agentContext({ ...base, podCIDR: 'fd00::/64' })).toThrow(/podCIDR must be IPv4 .*dual-stack: podCIDRv6/);
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
