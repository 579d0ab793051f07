/** A pod addressed from an IPPool subnet routes through the node gateway: its gateway is answered by ARP. */
import { computeNodeFlows, dumpFlows, type LocalPod, type NodeState } from '../src/index';

const GW_MAC = '02:00:00:00:00:01';
function state(pods: LocalPod[]): NodeState {
  return {
    config: { round: 1, trafficMode: 'encap', gateway: { ofport: 2, ip: '10.10.0.1', mac: GW_MAC }, tunnelOfport: 1, podCIDR: '10.10.0.0/24', nodeIP: '192.168.77.100' },
    pods, remoteNodes: [], addressGroups: [], appliedToGroups: [], policies: [],
  };
}
const arpResponder = (s: NodeState): string[] => dumpFlows(computeNodeFlows(s), { cookie: false }).filter((l) => l.includes('table=ARPResponder') || /table=\d+.*arp_op=1/.test(l));

describe('pool-subnet pod gateway', () => {
  const pooled: LocalPod = { name: 'db-0', namespace: 'ns', ofport: 7, ips: ['10.50.0.5'], mac: '02:00:00:00:00:07', gatewayIP: '10.50.0.1' };

  it('answers the pod\'s ARP for its pool gateway with the node gateway MAC, only on the pod\'s port', () => {
    const lines = arpResponder(state([pooled])).filter((l) => l.includes('arp_tpa=10.50.0.1'));
    expect(lines).toHaveLength(1);
    const line = lines[0]!;
    expect(line).toContain('in_port=7');
    expect(line).toContain('arp_op=1');
    expect(line).toContain(`set_field:${GW_MAC}->arp_sha`);
    expect(line).toContain('set_field:10.50.0.1->arp_spa');
    expect(line).toMatch(/,IN_PORT$/);
  });

  it('routes the pod\'s traffic inside OVS: its packets carry the MAC-rewrite mark, and packets to it through the gateway MAC are delivered to it', () => {
    const all = dumpFlows(computeNodeFlows(state([pooled])), { cookie: false });
    const classifier = all.find((l) => l.includes('table=Classifier') && l.includes('in_port=7'))!;
    expect(classifier).toContain('set_field:0x200/0x200->reg0');
    const l3 = all.filter((l) => l.includes('table=L3Forwarding') && l.includes('nw_dst=10.50.0.5'));
    expect(l3.some((l) => l.includes(`dl_dst=${GW_MAC}`) && l.includes('set_field:02:00:00:00:00:07->eth_dst'))).toBe(true);
    const plain = dumpFlows(computeNodeFlows(state([{ name: pooled.name, namespace: pooled.namespace, ofport: pooled.ofport, ips: pooled.ips, mac: pooled.mac }])), { cookie: false });
    expect(plain.find((l) => l.includes('table=Classifier') && l.includes('in_port=7'))).not.toContain('0x200/0x200');
  });

  it('adds nothing for a pod whose gateway is the node gateway or that names none', () => {
    const plain: LocalPod = { name: 'web', namespace: 'ns', ofport: 8, ips: ['10.10.0.8'], mac: '02:00:00:00:00:08' };
    const same: LocalPod = { ...plain, name: 'web2', ofport: 9, ips: ['10.10.0.9'], mac: '02:00:00:00:00:09', gatewayIP: '10.10.0.1' };
    const base = dumpFlows(computeNodeFlows(state([])), { cookie: false }).filter((l) => l.includes('arp_tpa')).length;
    const withPods = dumpFlows(computeNodeFlows(state([plain, same])), { cookie: false }).filter((l) => l.includes('arp_tpa')).length;
    expect(withPods).toBe(base);
  });
});
