/** trafficEncryptionMode ipsec: a peer with its own tunnel port. */
import { computeNodeFlows, dumpFlows, type NodeState, type RemoteNode } from '../src/index';

const PEER: RemoteNode = { name: 'n2', podCIDR: '10.10.2.0/24', nodeIP: '192.168.77.2', gatewayIP: '10.10.2.1' };
function lines(peers: RemoteNode[]): string[] {
  const s: NodeState = {
    config: { round: 1, trafficMode: 'encap', gateway: { ofport: 2, ip: '10.10.1.1', mac: '02:00:00:00:00:01' }, tunnelOfport: 1, podCIDR: '10.10.1.0/24', nodeIP: '192.168.77.1' },
    pods: [], remoteNodes: peers, addressGroups: [], appliedToGroups: [], policies: [],
  };
  return dumpFlows(computeNodeFlows(s), { cookie: false });
}

describe('per-peer IPsec tunnel port', () => {
  const ipsec = lines([{ ...PEER, ipsecTunnelOfport: 7 }]);

  test('traffic from the peer port is classified as tunnel input, as from the shared tunnel port', () => {
    const fromShared = ipsec.find((l) => l.includes('table=Classifier') && l.includes('in_port=1'))!;
    const fromPeer = ipsec.find((l) => l.includes('table=Classifier') && l.includes('in_port=7'))!;
    expect(fromPeer).toBeDefined();
    expect(fromPeer.replace('in_port=7', 'in_port=1')).toBe(fromShared);
  });

  test('traffic to the peer pod CIDR leaves through the peer port, without tun_dst', () => {
    const l3 = ipsec.find((l) => l.includes('table=L3Forwarding') && l.includes('nw_dst=10.10.2.0/24'))!;
    expect(l3).not.toContain('tun_dst');
    expect(l3).toContain('set_field:aa:bb:cc:dd:ee:ff->eth_dst');
    const l2 = ipsec.filter((l) => l.includes('table=L2ForwardingCalc') && l.includes('nw_dst=10.10.2.0/24'));
    expect(l2).toHaveLength(1);
    expect(l2[0]).toContain('dl_dst=aa:bb:cc:dd:ee:ff');
    expect(l2[0]).toContain('set_field:0x7->reg1');
    // Above the shared tunnel's virtual-MAC flow.
    const shared = ipsec.find((l) => l.includes('table=L2ForwardingCalc') && l.includes('dl_dst=aa:bb:cc:dd:ee:ff') && !l.includes('nw_dst'))!;
    const prio = (l: string): number => Number(/priority=(\d+)/.exec(l)![1]);
    expect(prio(l2[0]!)).toBeGreaterThan(prio(shared));
  });

  test('without a peer port the peer goes through the shared tunnel with tun_dst, and no peer port flow exists', () => {
    const plain = lines([PEER]);
    expect(plain.find((l) => l.includes('table=L3Forwarding') && l.includes('nw_dst=10.10.2.0/24'))).toContain('set_field:192.168.77.2->tun_dst');
    expect(plain.filter((l) => l.includes('table=L2ForwardingCalc') && l.includes('nw_dst=10.10.2.0/24'))).toHaveLength(0);
    expect(plain.filter((l) => l.includes('table=Classifier') && l.includes('in_port=7'))).toHaveLength(0);
  });
});
