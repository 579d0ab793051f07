/** Multi-cluster: routes to other clusters, and the gateway's relay between the two tunnels. */
import { computeNodeFlows, dumpFlows, type MulticlusterSpec, type NodeState } from '../src/index';

const REMOTE = [{ cidrs: ['10.96.2.0/24'], gatewayIP: '192.168.77.21' }];
function lines(multicluster: MulticlusterSpec, enableProxy = true): string[] {
  const s: NodeState = {
    config: { round: 1, trafficMode: 'encap', gateway: { ofport: 2, ip: '10.10.1.1', mac: '02:00:00:00:00:01' }, tunnelOfport: 1, podCIDR: '10.10.1.0/24', nodeIP: '192.168.77.11', enableProxy },
    pods: [], remoteNodes: [], addressGroups: [], appliedToGroups: [], policies: [], multicluster,
  };
  return dumpFlows(computeNodeFlows(s), { cookie: false });
}

describe('a regular node', () => {
  const flows = lines({ isGateway: false, localGatewayIP: '192.168.77.12', remoteClusters: REMOTE });

  test('sends a remote service CIDR through the tunnel to the local gateway', () => {
    const l3 = flows.find((l) => l.includes('table=L3Forwarding') && l.includes('nw_dst=10.96.2.0/24'))!;
    expect(l3).toContain('set_field:192.168.77.12->tun_dst');
  });

  test('sends replies to a remote gateway IP to the local gateway, and only replies', () => {
    const l3 = flows.filter((l) => l.includes('table=L3Forwarding') && l.includes('nw_dst=192.168.77.21'));
    expect(l3).toHaveLength(1);
    expect(l3[0]).toContain('+rpl+trk');
    expect(l3[0]).toContain('set_field:192.168.77.12->tun_dst');
  });

  test('neither SNATs nor outputs to the input port', () => {
    expect(flows.some((l) => l.includes('nat(src=192.168.77'))).toBe(false);
    expect(flows.some((l) => l.includes('in_port=1') && l.includes('IN_PORT'))).toBe(false);
  });
});

describe('the gateway', () => {
  const flows = lines({ isGateway: true, localGatewayIP: '192.168.77.11', gatewayIP: '192.168.77.11', remoteClusters: REMOTE });

  test('sends a remote service CIDR to the remote gateway', () => {
    const l3 = flows.find((l) => l.includes('table=L3Forwarding') && l.includes('nw_dst=10.96.2.0/24'))!;
    expect(l3).toContain('set_field:192.168.77.21->tun_dst');
  });

  test('outputs tunnel input back to the tunnel with the in_port action', () => {
    const out = flows.find((l) => l.includes('table=Output') && l.includes('in_port=1'))!;
    expect(out).toContain('reg1=0x1');
    expect(out).toContain('IN_PORT');
  });

  test('SNATs new connections to other clusters to its gateway IP and un-SNATs replies to it', () => {
    const snat = flows.find((l) => l.startsWith('table=SNAT,') && l.includes('nw_dst=10.96.2.0/24'))!;
    expect(snat).toContain('+new+trk');
    expect(snat).toContain('nat(src=192.168.77.11)');
    const mark = flows.find((l) => l.includes('table=SNATMark') && l.includes('nw_dst=10.96.2.0/24'))!;
    expect(mark).toContain('commit');
    const unsnat = flows.find((l) => l.includes('table=UnSNAT') && l.includes('nw_dst=192.168.77.11'))!;
    expect(unsnat).toContain('nat');
  });

  test('without AntreaProxy there are no SNAT tables, so no SNAT (routes and relay remain)', () => {
    const noProxy = lines({ isGateway: true, localGatewayIP: '192.168.77.11', gatewayIP: '192.168.77.11', remoteClusters: REMOTE }, false);
    expect(noProxy.some((l) => l.includes('nat(src='))).toBe(false);
    expect(noProxy.some((l) => l.includes('table=Output') && l.includes('IN_PORT'))).toBe(true);
  });
});

describe('stretched NetworkPolicy: label identities', () => {
  test('a local pod with a label identity sends it in tun_id to other clusters, above the plain route', () => {
    const flows = lines({ isGateway: false, localGatewayIP: '192.168.77.12', remoteClusters: REMOTE, labelIdentities: [{ ip: '10.10.1.5', id: 42 }] });
    const tagged = flows.filter((l) => l.includes('table=L3Forwarding') && l.includes('nw_src=10.10.1.5'));
    expect(tagged).toHaveLength(1);
    expect(tagged[0]).toContain('nw_dst=10.96.2.0/24');
    expect(tagged[0]).toMatch(/set_field:0x2a->tun_id/);
    expect(tagged[0]).toContain('set_field:192.168.77.12->tun_dst');
    const plain = flows.find((l) => l.includes('table=L3Forwarding') && l.includes('nw_dst=10.96.2.0/24') && !l.includes('nw_src'))!;
    const prio = (l: string): number => Number(/priority=(\d+)/.exec(l)![1]);
    expect(prio(tagged[0]!)).toBeGreaterThan(prio(plain));
  });

  test('no flow sets tun_id for pods without one, nor for traffic to this cluster', () => {
    const flows = lines({ isGateway: false, localGatewayIP: '192.168.77.12', remoteClusters: REMOTE });
    expect(flows.some((l) => l.includes('->tun_id'))).toBe(false);
  });
});

describe('the gateway with WireGuard between gateways', () => {
  const flows = lines({ isGateway: true, localGatewayIP: '192.168.77.11', gatewayIP: '192.168.77.11', remoteClusters: REMOTE, wireGuard: true });

  test('hands a remote CIDR to the host gateway port instead of a tunnel', () => {
    const l3 = flows.find((l) => l.includes('table=L3Forwarding') && l.includes('nw_dst=10.96.2.0/24'))!;
    expect(l3).toContain('set_field:02:00:00:00:00:01->eth_dst');
    expect(l3).not.toContain('tun_dst');
    expect(flows.some((l) => l.includes('->tun_dst'))).toBe(false);
  });

  test('neither SNATs what it sends to its gateway IP nor routes to the remote gateway IP', () => {
    expect(flows.some((l) => l.includes('nat(src=192.168.77.11)'))).toBe(false);
    expect(flows.some((l) => l.includes('table=L3Forwarding') && l.includes('nw_dst=192.168.77.21'))).toBe(false);
  });

  test('SNATs new connections from other clusters arriving from the gateway port to its gw0 address', () => {
    const mark = flows.find((l) => l.includes('table=SNATMark') && l.includes('nw_src=10.96.2.0/24'))!;
    expect(mark).toContain('+new+trk');
    expect(mark).toContain('reg0=0x2/0xf');
    expect(mark).toContain('commit');
    const snat = flows.find((l) => l.startsWith('table=SNAT,') && l.includes('nw_src=10.96.2.0/24'))!;
    expect(snat).toContain('nat(src=10.10.1.1)');
    // Replies to the gw0 address are un-SNATed by the Service feature's flow.
    expect(flows.some((l) => l.includes('table=UnSNAT') && l.includes('nw_dst=10.10.1.1'))).toBe(true);
  });

  test('a regular node of a WireGuard cluster still tunnels to its own gateway, and no longer routes to remote gateway IPs', () => {
    const regular = lines({ isGateway: false, localGatewayIP: '192.168.77.12', remoteClusters: REMOTE, wireGuard: true });
    expect(regular.find((l) => l.includes('table=L3Forwarding') && l.includes('nw_dst=10.96.2.0/24'))).toContain('set_field:192.168.77.12->tun_dst');
    expect(regular.some((l) => l.includes('nw_dst=192.168.77.21'))).toBe(false);
    expect(regular.some((l) => l.includes('table=SNAT') && l.includes('10.96.2.0/24'))).toBe(false);
  });
});

describe('dual-stack clusters: IPv6 CIDRs over the IPv4 tunnels', () => {
  const REMOTE6 = [{ cidrs: ['10.96.2.0/24', 'fd00:96:2::/108', 'fd00:12::/48'], gatewayIP: '192.168.77.21', gatewayIPv6: 'fd00:77::21' }];
  function dual(multicluster: MulticlusterSpec): string[] {
    const s: NodeState = {
      config: {
        round: 1, trafficMode: 'encap', gateway: { ofport: 2, ip: '10.10.1.1', ipv6: 'fd00:10:1::1', mac: '02:00:00:00:00:01' }, tunnelOfport: 1,
        podCIDR: '10.10.1.0/24', podCIDRv6: 'fd00:10:1::/64', nodeIP: '192.168.77.11', nodeIPv6: 'fd00:77::11', enableProxy: true,
      },
      pods: [], remoteNodes: [], addressGroups: [], appliedToGroups: [], policies: [], multicluster,
    };
    return dumpFlows(computeNodeFlows(s), { cookie: false });
  }

  test('a regular node tunnels a remote IPv6 service CIDR and replies to the remote IPv6 gateway to its IPv4 gateway', () => {
    const flows = dual({ isGateway: false, localGatewayIP: '192.168.77.12', remoteClusters: REMOTE6 });
    const l3 = flows.find((l) => l.includes('table=L3Forwarding') && l.includes('ipv6_dst=fd00:96:2::/108'))!;
    expect(l3).toContain('set_field:192.168.77.12->tun_dst');
    const reply = flows.filter((l) => l.includes('table=L3Forwarding') && l.includes('ipv6_dst=fd00:77::21'));
    expect(reply).toHaveLength(1);
    expect(reply[0]).toContain('+rpl+trk');
    expect(reply[0]).toContain('set_field:192.168.77.12->tun_dst');
    // Still the IPv4 flows beside them.
    expect(flows.some((l) => l.includes('table=L3Forwarding') && l.includes('nw_dst=10.96.2.0/24'))).toBe(true);
  });

  test('the gateway tunnels IPv6 to the remote IPv4 gateway IP and SNATs it to its IPv6 gateway address in the IPv6 zones', () => {
    const flows = dual({ isGateway: true, localGatewayIP: '192.168.77.11', gatewayIP: '192.168.77.11', gatewayIPv6: 'fd00:77::11', remoteClusters: REMOTE6 });
    expect(flows.find((l) => l.includes('table=L3Forwarding') && l.includes('ipv6_dst=fd00:12::/48'))).toContain('set_field:192.168.77.21->tun_dst');
    const mark = flows.find((l) => l.includes('table=SNATMark') && l.includes('ipv6_dst=fd00:96:2::/108'))!;
    expect(mark).toContain('zone=65510');
    const snat = flows.find((l) => l.startsWith('table=SNAT,') && l.includes('ipv6_dst=fd00:96:2::/108'))!;
    expect(snat).toContain('zone=65511');
    expect(snat).toContain('nat(src=fd00:77::11)');
    const unsnat = flows.find((l) => l.includes('table=UnSNAT') && l.includes('ipv6_dst=fd00:77::11'))!;
    expect(unsnat).toContain('zone=65511');
    // IPv4 keeps its own zone and address.
    expect(flows.find((l) => l.startsWith('table=SNAT,') && l.includes('nw_dst=10.96.2.0/24'))).toContain('nat(src=192.168.77.11)');
  });

  test('a gateway without an IPv6 gateway address routes IPv6 CIDRs but does not SNAT them', () => {
    const flows = dual({ isGateway: true, localGatewayIP: '192.168.77.11', gatewayIP: '192.168.77.11', remoteClusters: REMOTE6 });
    expect(flows.some((l) => l.includes('table=L3Forwarding') && l.includes('ipv6_dst=fd00:96:2::/108'))).toBe(true);
    expect(flows.some((l) => l.includes('table=SNAT') && l.includes('ipv6_dst'))).toBe(false);
  });

  test('tags an IPv6 pod address with its label identity only towards IPv6 CIDRs', () => {
    const flows = dual({ isGateway: false, localGatewayIP: '192.168.77.12', remoteClusters: REMOTE6, labelIdentities: [{ ip: '10.10.1.5', id: 7 }, { ip: 'fd00:10:1::5', id: 7 }] });
    const tagged = flows.filter((l) => l.includes('set_field:0x7->tun_id'));
    expect(tagged.filter((l) => l.includes('ipv6_src=fd00:10:1::5'))).toHaveLength(2);
    expect(tagged.filter((l) => l.includes('nw_src=10.10.1.5'))).toHaveLength(1);
    expect(tagged.some((l) => l.includes('nw_src=10.10.1.5') && l.includes('ipv6'))).toBe(false);
  });

  test('a WireGuard gateway hands remote IPv6 CIDRs to the host and SNATs IPv6 arriving from it to its gw0 IPv6 address in the IPv6 zones', () => {
    const flows = dual({ isGateway: true, localGatewayIP: '192.168.77.11', gatewayIP: '192.168.77.11', remoteClusters: REMOTE6.map(({ gatewayIPv6: _, ...rc }) => rc), wireGuard: true });
    const l3 = flows.find((l) => l.includes('table=L3Forwarding') && l.includes('ipv6_dst=fd00:12::/48'))!;
    expect(l3).toContain('set_field:02:00:00:00:00:01->eth_dst');
    expect(l3).not.toContain('tun_');
    const mark = flows.find((l) => l.includes('table=SNATMark') && l.includes('ipv6_src=fd00:12::/48'))!;
    expect(mark).toContain('reg0=0x2/0xf');
    expect(mark).toContain('zone=65510');
    const snat = flows.find((l) => l.startsWith('table=SNAT,') && l.includes('ipv6_src=fd00:12::/48'))!;
    expect(snat).toContain('zone=65511');
    expect(snat).toContain('nat(src=fd00:10:1::1)');
    // The Service feature un-SNATs replies to gw0's IPv6 address; IPv4 keeps gw0's IPv4 address.
    expect(flows.some((l) => l.includes('table=UnSNAT') && l.includes('ipv6_dst=fd00:10:1::1'))).toBe(true);
    expect(flows.find((l) => l.startsWith('table=SNAT,') && l.includes('nw_src=10.96.2.0/24'))).toContain('nat(src=10.10.1.1)');
    expect(flows.some((l) => l.includes('tun_dst') || l.includes('tun_ipv6_dst'))).toBe(false);
  });

  test('mixed ClusterSet: the dual-stack gateway tunnels to an IPv6-only cluster\'s gateway with tun_ipv6_dst and SNATs to its IPv6 gateway address', () => {
    const v6only = [{ cidrs: ['fd00:96:3::/108', 'fd00:13::/48'], gatewayIP: 'fd00:77::31', gatewayIPv6: 'fd00:77::31' }];
    const gw = dual({ isGateway: true, localGatewayIP: '192.168.77.11', gatewayIP: '192.168.77.11', gatewayIPv6: 'fd00:77::11', remoteClusters: v6only });
    expect(gw.find((l) => l.includes('table=L3Forwarding') && l.includes('ipv6_dst=fd00:13::/48'))).toContain('set_field:fd00:77::31->tun_ipv6_dst');
    expect(gw.find((l) => l.startsWith('table=SNAT,') && l.includes('ipv6_dst=fd00:96:3::/108'))).toContain('nat(src=fd00:77::11)');
    expect(gw.filter((l) => l.includes('table=L3Forwarding') && l.includes('ipv6_dst=fd00:77::31'))).toHaveLength(1);
    // Its regular nodes reach the IPv6-only cluster through it over the IPv4 tunnel.
    const regular = dual({ isGateway: false, localGatewayIP: '192.168.77.11', remoteClusters: v6only });
    expect(regular.find((l) => l.includes('table=L3Forwarding') && l.includes('ipv6_dst=fd00:13::/48'))).toContain('set_field:192.168.77.11->tun_dst');
    expect(regular.find((l) => l.includes('table=L3Forwarding') && l.includes('ipv6_dst=fd00:77::31'))).toContain('set_field:192.168.77.11->tun_dst');
  });

  test('a remote IPv6 CIDR or gateway address that is not IPv6 is refused naming the field and value', () => {
    expect(() => dual({ isGateway: false, localGatewayIP: '192.168.77.12', remoteClusters: [{ cidrs: ['fd00:96:2::/300'], gatewayIP: '192.168.77.21' }] })).toThrow(/fd00:96:2::\/300/);
    expect(() => dual({ isGateway: false, localGatewayIP: '192.168.77.12', remoteClusters: [{ cidrs: ['10.96.2.0/24'], gatewayIP: '192.168.77.21', gatewayIPv6: '192.168.77.22' }] })).toThrow(/not an IPv6 address: 192\.168\.77\.22/);
  });
});

describe('IPv6-only clusters: the tunnels over IPv6 (tun_ipv6_dst)', () => {
  const REMOTE_V6 = [{ cidrs: ['fd00:96:2::/108', 'fd00:12::/48'], gatewayIP: 'fd00:78::21', gatewayIPv6: 'fd00:78::21' }];
  function only6(multicluster: MulticlusterSpec): string[] {
    const s: NodeState = {
      config: { round: 1, trafficMode: 'encap', gateway: { ofport: 2, ipv6: 'fd00:10:1::1', mac: '02:00:00:00:00:01' }, tunnelOfport: 1, podCIDRv6: 'fd00:10:1::/64', nodeIP: 'fd00:77::11', enableProxy: true },
      pods: [], remoteNodes: [], addressGroups: [], appliedToGroups: [], policies: [], multicluster,
    };
    return dumpFlows(computeNodeFlows(s), { cookie: false });
  }
  const mc = (flows: string[]): string[] => flows.filter((l) => l.includes('fd00:96:2::') || l.includes('fd00:12::') || l.includes('fd00:78::21') || l.includes('fd00:77::'));

  test('a regular node tunnels the remote IPv6 CIDRs and the replies to the remote gateway to its IPv6 Gateway', () => {
    const flows = only6({ isGateway: false, localGatewayIP: 'fd00:77::12', remoteClusters: REMOTE_V6 });
    for (const cidr of ['fd00:96:2::/108', 'fd00:12::/48']) expect(flows.find((l) => l.includes('table=L3Forwarding') && l.includes(`ipv6_dst=${cidr}`))).toContain('set_field:fd00:77::12->tun_ipv6_dst');
    const reply = flows.filter((l) => l.includes('table=L3Forwarding') && l.includes('ipv6_dst=fd00:78::21'));
    expect(reply).toHaveLength(1); // gatewayIP and gatewayIPv6 are the same address: one flow
    expect(reply[0]).toContain('+rpl+trk');
    expect(reply[0]).toContain('set_field:fd00:77::12->tun_ipv6_dst');
    expect(mc(flows).filter((l) => l.includes('tun_dst') || l.includes('nw_dst') || l.includes('dl_type=0x0800'))).toEqual([]);
  });

  test('the Gateway tunnels to the remote IPv6 gateway IP and SNATs to its IPv6 gateway IP in the IPv6 zones', () => {
    const flows = only6({ isGateway: true, localGatewayIP: 'fd00:77::11', gatewayIP: 'fd00:77::11', gatewayIPv6: 'fd00:77::11', remoteClusters: REMOTE_V6 });
    expect(flows.find((l) => l.includes('table=L3Forwarding') && l.includes('ipv6_dst=fd00:12::/48'))).toContain('set_field:fd00:78::21->tun_ipv6_dst');
    expect(flows.find((l) => l.includes('table=L3Forwarding') && l.includes('ipv6_dst=fd00:78::21'))).toContain('set_field:fd00:78::21->tun_ipv6_dst');
    const snat = flows.filter((l) => l.startsWith('table=SNAT,') && l.includes('ipv6_dst=fd00:96:2::/108'));
    expect(snat).toHaveLength(1);
    expect(snat[0]).toContain('zone=65511');
    expect(snat[0]).toContain('nat(src=fd00:77::11)');
    expect(flows.filter((l) => l.includes('table=UnSNAT') && l.includes('ipv6_dst=fd00:77::11'))).toHaveLength(1);
    expect(mc(flows).filter((l) => l.includes('tun_dst') || l.includes('nw_dst') || l.includes('dl_type=0x0800'))).toEqual([]);
  });

  test('a WireGuard Gateway hands the remote IPv6 CIDRs to the host and SNATs what comes back from it to its gw0 IPv6 address; nothing IPv4', () => {
    const flows = only6({ isGateway: true, localGatewayIP: 'fd00:77::11', gatewayIP: 'fd00:77::11', remoteClusters: REMOTE_V6.map(({ gatewayIPv6: _, ...rc }) => rc), wireGuard: true });
    expect(flows.find((l) => l.includes('table=L3Forwarding') && l.includes('ipv6_dst=fd00:12::/48'))).toContain('set_field:02:00:00:00:00:01->eth_dst');
    const snat = flows.filter((l) => l.startsWith('table=SNAT,') && l.includes('ipv6_src=fd00:12::/48'));
    expect(snat).toHaveLength(1);
    expect(snat[0]).toContain('zone=65511');
    expect(snat[0]).toContain('nat(src=fd00:10:1::1)');
    expect(flows.some((l) => l.includes('tun_ipv6_dst') || l.includes('tun_dst'))).toBe(false);
    expect(mc(flows).filter((l) => l.includes('nw_src') || l.includes('nw_dst') || l.includes('dl_type=0x0800'))).toEqual([]);
  });
});
