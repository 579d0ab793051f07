/** Egress with an IPv6 egress IP on a dual-stack node: the members' IPv6 traffic SNATed in the IPv6 zones on the owner, tunnelled to it elsewhere. */
import { computeNodeFlows, dumpFlows, egress, podNodeFeatures, PipelineError, type EgressRule, type EgressSpec, type NodeState } from '../src/index';
import { checkFeatureContract } from '../src/testing';
import { dualStackState } from './dual-stack-state';

const features = [...podNodeFeatures({ enableProxy: true }), egress()];
// Without the policies (their features are not in the list): the pods, the peer and the Egresses.
const state = (spec?: EgressSpec): NodeState => ({ ...dualStackState(), policies: [], addressGroups: [], appliedToGroups: [], ...(spec ? { egress: spec } : {}) });
const lines = (spec?: EgressSpec): string[] => dumpFlows(computeNodeFlows(state(spec), { features }), { cookie: false });
const byTable = (all: string[], t: string): string[] => all.filter((l) => l.startsWith(`table=${t},`));
const EXCEPT = ['192.168.77.100/32', '192.168.77.101/32', 'fd00:77::100/128', 'fd00:77::101/128'];

const owned6: EgressRule = { name: 'eg6', ip: 'fd00:201::10', local: true, mark: 2, localPods: ['fd00:10:10::a'], remotePods: ['fd00:10:10:1::7'] };
const owned4: EgressRule = { name: 'eg6', ip: '10.201.0.10', local: true, mark: 1, localPods: ['10.10.0.10'], remotePods: ['10.10.1.7'] };
const remote6: EgressRule = { name: 'eg6', ip: 'fd00:201::10', local: false, ownerIP: '192.168.77.101', localPods: ['fd00:10:10::a', 'fd00:10:10::c'], remotePods: ['fd00:10:10:1::7'] };

test('on the owner: the members\' IPv6 packets are marked, SNATed to the IPv6 egress IP in the IPv6 SNAT zone, and replies un-SNATed', () => {
  const all = lines({ exceptCIDRs: EXCEPT, egresses: [owned6] });
  expect(byTable(all, 'L3Forwarding').filter((l) => l.includes('EgressMark')).sort()).toEqual([
    'table=L3Forwarding, priority=191,dl_type=0x86dd,ipv6_src=fd00:10:10:1::7,ct_mark=0x0/0x10 actions=goto_table:EgressMark',
    'table=L3Forwarding, priority=191,dl_type=0x86dd,ipv6_src=fd00:10:10::a,ct_mark=0x0/0x10 actions=goto_table:EgressMark',
  ]);
  expect(byTable(all, 'EgressMark').filter((l) => l.includes('ipv6_src')).sort()).toEqual([
    'table=EgressMark, priority=200,dl_type=0x86dd,ipv6_src=fd00:10:10:1::7 actions=set_field:02:00:00:00:00:01->eth_dst,set_field:0x2/0xff->reg10,set_field:0x20/0xf0->reg0,goto_table:L3DecTTL',
    'table=EgressMark, priority=200,dl_type=0x86dd,ipv6_src=fd00:10:10::a actions=set_field:02:00:00:00:00:01->eth_dst,set_field:0x2/0xff->reg10,set_field:0x20/0xf0->reg0,goto_table:L3DecTTL',
  ]);
  expect(byTable(all, 'SNATMark').filter((l) => l.includes('reg10'))).toEqual([
    'table=SNATMark, priority=200,dl_type=0x86dd,ct_state=+new+trk,reg10=0x2/0xff actions=ct(commit,table=SNAT,zone=65510,exec(set_field:0x20/0x20->ct_mark,move:NXM_NX_REG0[0..3]->NXM_NX_CT_MARK[0..3]))',
  ]);
  expect(byTable(all, 'SNAT').filter((l) => l.includes('reg10'))).toEqual([
    'table=SNAT, priority=200,dl_type=0x86dd,ct_state=+new+trk,reg10=0x2/0xff actions=ct(commit,table=L2ForwardingCalc,zone=65511,nat(src=fd00:201::10),exec(set_field:0x20/0x20->ct_mark))',
    'table=SNAT, priority=200,dl_type=0x86dd,ct_state=-new+trk,reg10=0x2/0xff actions=ct(table=L2ForwardingCalc,zone=65511,nat)',
  ]);
  expect(byTable(all, 'UnSNAT')).toContain('table=UnSNAT, priority=200,dl_type=0x86dd,ipv6_dst=fd00:201::10 actions=set_field:0x200/0x200->reg0,ct(table=ConntrackZone,zone=65511,nat)');
  // Nothing of the members' IPv4 addresses: the IPv6 rule is the IPv6 traffic's only.
  expect(all.filter((l) => l.includes('EgressMark') && l.includes('nw_src'))).toEqual([]);
});

test('elsewhere: the members\' IPv6 packets are tunnelled to the owner\'s (IPv4) node address', () => {
  const all = lines({ exceptCIDRs: EXCEPT, egresses: [remote6] });
  expect(byTable(all, 'EgressMark').filter((l) => l.includes('ipv6_src'))).toEqual([
    'table=EgressMark, priority=200,dl_type=0x86dd,ipv6_src=fd00:10:10::a actions=set_field:02:00:00:00:00:01->eth_src,set_field:aa:bb:cc:dd:ee:ff->eth_dst,set_field:192.168.77.101->tun_dst,set_field:0x10/0xf0->reg0,goto_table:L3DecTTL',
    'table=EgressMark, priority=200,dl_type=0x86dd,ipv6_src=fd00:10:10::c actions=set_field:02:00:00:00:00:01->eth_src,set_field:aa:bb:cc:dd:ee:ff->eth_dst,set_field:192.168.77.101->tun_dst,set_field:0x10/0xf0->reg0,goto_table:L3DecTTL',
  ]);
  expect(all.some((l) => l.includes('fd00:10:10:1::7') || l.includes('fd00:201::10'))).toBe(false);
});

test('the nodes\' IPv6 addresses are excepted, and routed IPv6 packets that meet no member flow leave as before', () => {
  const mark = byTable(lines({ exceptCIDRs: EXCEPT, egresses: [owned6] }), 'EgressMark');
  expect(mark).toEqual(expect.arrayContaining([
    'table=EgressMark, priority=210,dl_type=0x86dd,ipv6_dst=fd00:77::101,reg0=0x0/0x200 actions=set_field:0x20/0xf0->reg0,goto_table:L2ForwardingCalc',
    'table=EgressMark, priority=210,dl_type=0x86dd,ipv6_dst=fd00:77::101,reg0=0x200/0x200 actions=set_field:02:00:00:00:00:01->eth_dst,set_field:0x20/0xf0->reg0,goto_table:L3DecTTL',
    'table=EgressMark, priority=1,dl_type=0x86dd,reg0=0x200/0x200 actions=set_field:02:00:00:00:00:01->eth_dst,set_field:0x20/0xf0->reg0,goto_table:L3DecTTL',
  ]));
});

test('a dual-stack Egress has a rule per family: each family\'s flows are those of its rule alone', () => {
  const both = lines({ exceptCIDRs: EXCEPT, egresses: [owned4, owned6] });
  const only6 = lines({ exceptCIDRs: EXCEPT, egresses: [owned6] });
  const only4 = lines({ exceptCIDRs: EXCEPT, egresses: [owned4] });
  expect(new Set(both)).toEqual(new Set([...only4, ...only6]));
  expect(byTable(both, 'SNAT').filter((l) => l.includes('reg10') && l.includes('nat(src='))).toEqual([
    'table=SNAT, priority=200,dl_type=0x800,ct_state=+new+trk,reg10=0x1/0xff actions=ct(commit,table=L2ForwardingCalc,zone=65521,nat(src=10.201.0.10),exec(set_field:0x20/0x20->ct_mark))',
    'table=SNAT, priority=200,dl_type=0x86dd,ct_state=+new+trk,reg10=0x2/0xff actions=ct(commit,table=L2ForwardingCalc,zone=65511,nat(src=fd00:201::10),exec(set_field:0x20/0x20->ct_mark))',
  ]);
});

test('a member address of the other family, or an IPv6 egress IP on an IPv4-only node, is an error naming the field and value', () => {
  expect(() => lines({ exceptCIDRs: [], egresses: [{ ...owned6, localPods: ['10.10.0.10'] }] })).toThrow(expect.objectContaining({ path: 'egress.egresses[eg6].members', value: '10.10.0.10' }));
  const v4Only: NodeState = { ...state({ exceptCIDRs: [], egresses: [owned6] }), config: { ...dualStackState().config, podCIDRv6: undefined as never, gateway: { ofport: 2, ip: '10.10.0.1', mac: '02:00:00:00:00:01' } }, pods: [] };
  delete (v4Only.config as { podCIDRv6?: string }).podCIDRv6;
  expect(() => computeNodeFlows(v4Only, { features })).toThrow(PipelineError);
  expect(() => computeNodeFlows(v4Only, { features })).toThrow(/IPv6 egress IP fd00:201::10 on a node without IPv6/);
});

test('keeps the feature contract as an IPv6 Egress comes, joins its IPv4 twin, moves to another owner and goes', () => {
  const states = [
    state(),
    state({ exceptCIDRs: EXCEPT, egresses: [owned6] }),
    state({ exceptCIDRs: EXCEPT, egresses: [owned4, owned6] }),
    state({ exceptCIDRs: EXCEPT, egresses: [owned4, remote6] }),
    state({ exceptCIDRs: [], egresses: [] }),
  ];
  const report = checkFeatureContract({ feature: features.at(-1)!, features, states });
  expect(report.states).toBe(states.length);
});


describe('an IPv6-only node (no podCIDR, no gateway.ip)', () => {
  /** The dual-stack state with its IPv4 inputs taken away, as ipv6-only.test.ts makes it. */
  function v6Only(spec: EgressSpec): NodeState {
    const s = state(spec);
    const { podCIDR: _c, ...config } = s.config;
    const { ip: _g, ...gateway } = config.gateway;
    return { ...s, config: { ...config, gateway }, pods: s.pods.filter((p) => p.ips.some((ip) => ip.includes(':'))).map((p) => ({ ...p, ips: p.ips.filter((ip) => ip.includes(':')) })), remoteNodes: s.remoteNodes.map(({ podCIDR: _p, gatewayIP: _gw, ...n }) => n) };
  }
  const EXCEPT6 = ['fd00:77::100/128', 'fd00:77::101/128'];
  const v6Lines = (spec: EgressSpec): string[] => dumpFlows(computeNodeFlows(v6Only(spec), { features }), { cookie: false });

  test('the owner SNATs in the IPv6 zones exactly as a dual-stack owner does, and no Egress flow is IPv4', () => {
    const only6 = v6Lines({ exceptCIDRs: EXCEPT6, egresses: [owned6] });
    const dual = lines({ exceptCIDRs: EXCEPT6, egresses: [owned6] });
    const egressTables = ['UnSNAT', 'EgressMark', 'SNATMark', 'SNAT'];
    const ours = (ls: string[]): string[] => ls.filter((l) => egressTables.some((t) => l.startsWith(`table=${t},`)) && (l.includes('fd00:201::10') || l.includes('reg10=0x2') || l.includes('ipv6_src=fd00:10:10') || l.includes('fd00:77::')));
    expect(ours(only6).sort()).toEqual(ours(dual).sort());
    expect(ours(only6).length).toBeGreaterThanOrEqual(8);
    expect(byTable(only6, 'EgressMark').filter((l) => l.includes('dl_type=0x800') || l.startsWith('table=EgressMark, priority=1,ip,'))).toEqual([]);
    expect(byTable(only6, 'EgressMark')).toContain('table=EgressMark, priority=1,dl_type=0x86dd,reg0=0x200/0x200 actions=set_field:02:00:00:00:00:01->eth_dst,set_field:0x20/0xf0->reg0,goto_table:L3DecTTL');
  });

  test('another node tunnels its members\' IPv6 packets to the owner\'s node address, as its pod traffic to that peer', () => {
    const all = v6Lines({ exceptCIDRs: EXCEPT6, egresses: [remote6] });
    expect(byTable(all, 'EgressMark').filter((l) => l.includes('ipv6_src'))).toEqual([
      'table=EgressMark, priority=200,dl_type=0x86dd,ipv6_src=fd00:10:10::a actions=set_field:02:00:00:00:00:01->eth_src,set_field:aa:bb:cc:dd:ee:ff->eth_dst,set_field:192.168.77.101->tun_dst,set_field:0x10/0xf0->reg0,goto_table:L3DecTTL',
      'table=EgressMark, priority=200,dl_type=0x86dd,ipv6_src=fd00:10:10::c actions=set_field:02:00:00:00:00:01->eth_src,set_field:aa:bb:cc:dd:ee:ff->eth_dst,set_field:192.168.77.101->tun_dst,set_field:0x10/0xf0->reg0,goto_table:L3DecTTL',
    ]);
    // The peer's pod CIDR goes the same way: one tunnel endpoint for both.
    expect(byTable(all, 'L3Forwarding').some((l) => l.includes('ipv6_dst=fd00:10:10:1::/64') && l.includes('192.168.77.101->tun_dst'))).toBe(true);
  });

  test('an IPv4 egress IP there is an error naming the field and value', () => {
    expect(() => v6Lines({ exceptCIDRs: [], egresses: [{ ...owned4, localPods: [], remotePods: [] }] })).toThrow(expect.objectContaining({ path: 'egress.egresses[eg6].ip', value: '10.201.0.10' }));
  });

  test('keeps the feature contract as an IPv6 Egress comes, moves to another owner and goes', () => {
    const states = [v6Only({ exceptCIDRs: [], egresses: [] }), v6Only({ exceptCIDRs: EXCEPT6, egresses: [owned6] }), v6Only({ exceptCIDRs: EXCEPT6, egresses: [remote6] }), v6Only({ exceptCIDRs: [], egresses: [] })];
    expect(checkFeatureContract({ feature: features.at(-1)!, features, states }).states).toBe(states.length);
  });
});
