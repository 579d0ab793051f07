/** Egress: the owner SNATs its members' traffic (local and tunnelled) to the IP, other nodes tunnel theirs to it; the contract. */
import { computeNodeFlows, dumpFlows, egress, podNodeFeatures, type EgressRule, type EgressSpec, type NodeState } from '../src/index';
import { checkFeatureContract } from '../src/testing';

const POD_A = { name: 'a', namespace: 'x', ofport: 5, ips: ['10.10.1.5'], mac: '02:00:00:00:00:05' };
const POD_B = { name: 'b', namespace: 'x', ofport: 6, ips: ['10.10.1.6'], mac: '02:00:00:00:00:06' };

function state(spec?: EgressSpec): NodeState {
  return {
    config: { round: 1, trafficMode: 'encap', gateway: { ofport: 2, ip: '10.10.1.1', mac: '02:00:00:00:00:01' }, tunnelOfport: 1, podCIDR: '10.10.1.0/24', nodeIP: '192.168.77.11', enableProxy: true },
    pods: [POD_A, POD_B],
    remoteNodes: [{ name: 'n2', nodeIP: '192.168.77.12', podCIDR: '10.10.2.0/24', gatewayIP: '10.10.2.1' }],
    addressGroups: [], appliedToGroups: [], policies: [],
    ...(spec ? { egress: spec } : {}),
  };
}
const features = [...podNodeFeatures({ enableProxy: true }), egress()];
const lines = (spec?: EgressSpec): string[] => dumpFlows(computeNodeFlows(state(spec), { features }), { cookie: false });
const EXCEPT = ['192.168.77.11/32', '192.168.77.12/32'];

const owned: EgressRule = { name: 'eg-a', ip: '10.201.0.10', local: true, mark: 1, localPods: ['10.10.1.5'], remotePods: ['10.10.2.7'] };
const remote: EgressRule = { name: 'eg-b', ip: '10.201.0.11', local: false, ownerIP: '192.168.77.12', localPods: ['10.10.1.6'], remotePods: ['10.10.2.8'] };
const unowned: EgressRule = { name: 'eg-c', ip: '10.201.0.12', local: false, localPods: ['10.10.1.6'], remotePods: [] };

const byTable = (all: string[], t: string): string[] => all.filter((l) => l.startsWith(`table=${t},`));

test('on the owner: members, local and from the tunnel, are marked and SNATed to the egress IP; replies are un-SNATed', () => {
  const all = lines({ exceptCIDRs: EXCEPT, egresses: [owned] });
  expect(byTable(all, 'L3Forwarding')).toEqual(expect.arrayContaining([
    'table=L3Forwarding, priority=191,dl_type=0x800,nw_src=10.10.1.5,ct_mark=0x0/0x10 actions=goto_table:EgressMark',
    'table=L3Forwarding, priority=191,dl_type=0x800,nw_src=10.10.2.7,ct_mark=0x0/0x10 actions=goto_table:EgressMark',
  ]));
  const mark = byTable(all, 'EgressMark').filter((l) => l.includes('nw_src'));
  expect(mark).toEqual([
    'table=EgressMark, priority=200,dl_type=0x800,nw_src=10.10.1.5 actions=set_field:02:00:00:00:00:01->eth_dst,set_field:0x1/0xff->reg10,set_field:0x20/0xf0->reg0,goto_table:L3DecTTL',
    'table=EgressMark, priority=200,dl_type=0x800,nw_src=10.10.2.7 actions=set_field:02:00:00:00:00:01->eth_dst,set_field:0x1/0xff->reg10,set_field:0x20/0xf0->reg0,goto_table:L3DecTTL',
  ]);
  expect(byTable(all, 'SNAT').filter((l) => l.includes('reg10'))).toEqual([
    'table=SNAT, priority=200,dl_type=0x800,ct_state=+new+trk,reg10=0x1/0xff actions=ct(commit,table=L2ForwardingCalc,zone=65521,nat(src=10.201.0.10),exec(set_field:0x20/0x20->ct_mark))',
    'table=SNAT, priority=200,dl_type=0x800,ct_state=-new+trk,reg10=0x1/0xff actions=ct(table=L2ForwardingCalc,zone=65521,nat)',
  ]);
  expect(byTable(all, 'SNATMark').filter((l) => l.includes('reg10'))).toHaveLength(1);
  expect(byTable(all, 'UnSNAT')).toContain('table=UnSNAT, priority=200,dl_type=0x800,nw_dst=10.201.0.10 actions=set_field:0x200/0x200->reg0,ct(table=ConntrackZone,zone=65521,nat)');
});

test('an egress IP that is a local address of the owner (no pool): SNAT and un-SNAT through its stand-in, the rest unchanged', () => {
  const all = lines({ exceptCIDRs: EXCEPT, egresses: [{ ...owned, snatIP: '169.254.100.1' }] });
  expect(byTable(all, 'SNAT').filter((l) => l.includes('reg10'))[0]).toBe('table=SNAT, priority=200,dl_type=0x800,ct_state=+new+trk,reg10=0x1/0xff actions=ct(commit,table=L2ForwardingCalc,zone=65521,nat(src=169.254.100.1),exec(set_field:0x20/0x20->ct_mark))');
  expect(byTable(all, 'UnSNAT')).toContain('table=UnSNAT, priority=200,dl_type=0x800,nw_dst=169.254.100.1 actions=set_field:0x200/0x200->reg0,ct(table=ConntrackZone,zone=65521,nat)');
  expect(all.filter((l) => l.includes('10.201.0.10'))).toEqual([]);
  const plain = lines({ exceptCIDRs: EXCEPT, egresses: [owned] });
  expect(byTable(all, 'EgressMark')).toEqual(byTable(plain, 'EgressMark'));
});

test('elsewhere: its members are tunnelled to the owner; without an owner they leave as before', () => {
  const all = lines({ exceptCIDRs: EXCEPT, egresses: [remote, unowned] });
  expect(byTable(all, 'EgressMark').filter((l) => l.includes('nw_src'))).toEqual([
    'table=EgressMark, priority=200,dl_type=0x800,nw_src=10.10.1.6 actions=set_field:02:00:00:00:00:01->eth_src,set_field:aa:bb:cc:dd:ee:ff->eth_dst,set_field:192.168.77.12->tun_dst,set_field:0x10/0xf0->reg0,goto_table:L3DecTTL',
  ]);
  // The remote members are the owner's business; nothing is SNATed here.
  expect(all.some((l) => l.includes('10.10.2.8'))).toBe(false);
  expect(all.some((l) => l.includes('10.201.0.1'))).toBe(false);
});

test('the nodes\' addresses are excepted: members\' packets to them leave as without Egress', () => {
  const mark = byTable(lines({ exceptCIDRs: EXCEPT, egresses: [owned] }), 'EgressMark').filter((l) => l.includes('nw_dst'));
  expect(mark).toEqual(expect.arrayContaining([
    'table=EgressMark, priority=210,dl_type=0x800,nw_dst=192.168.77.12,reg0=0x0/0x200 actions=set_field:0x20/0xf0->reg0,goto_table:L2ForwardingCalc',
    'table=EgressMark, priority=210,dl_type=0x800,nw_dst=192.168.77.12,reg0=0x200/0x200 actions=set_field:02:00:00:00:00:01->eth_dst,set_field:0x20/0xf0->reg0,goto_table:L3DecTTL',
  ]));
});

test('without Egresses no packet is diverted: only EgressMark\'s miss flows exist', () => {
  const all = lines({ exceptCIDRs: [], egresses: [] });
  expect(byTable(all, 'EgressMark')).toHaveLength(2);
  expect(all.some((l) => l.includes('goto_table:EgressMark'))).toBe(false);
});

test('keeps the feature contract over a sequence of states (added, ownership moving, members changing, removed)', () => {
  const states = [
    state(),
    state({ exceptCIDRs: EXCEPT, egresses: [owned] }),
    state({ exceptCIDRs: EXCEPT, egresses: [owned, remote] }),
    state({ exceptCIDRs: EXCEPT, egresses: [{ ...owned, local: false, mark: undefined as never, ownerIP: '192.168.77.12' }, remote] }),
    state({ exceptCIDRs: [EXCEPT[0]!], egresses: [{ ...remote, localPods: ['10.10.1.5', '10.10.1.6'] }, unowned] }),
    state({ exceptCIDRs: [], egresses: [] }),
  ];
  const report = checkFeatureContract({ feature: features.at(-1)!, features, states });
  expect(report.states).toBe(states.length);
  expect(report.flows).toBeGreaterThan(0);
});

describe('bandwidth (EgressTrafficShaping)', () => {
  const shaping = [...podNodeFeatures({ enableProxy: true }), egress({ trafficShaping: true })];
  const shaped = (spec?: EgressSpec): string[] => dumpFlows(computeNodeFlows(state(spec), { features: shaping }), { cookie: false });

  test('on the owner, the marked members go through EgressQoS, where the Egress\'s meter limits them before SNAT', () => {
    const all = shaped({ exceptCIDRs: EXCEPT, egresses: [{ ...owned, meter: 1 }] });
    expect(byTable(all, 'EgressMark').filter((l) => l.includes('nw_src'))).toEqual([
      'table=EgressMark, priority=200,dl_type=0x800,nw_src=10.10.1.5 actions=set_field:02:00:00:00:00:01->eth_dst,set_field:0x1/0xff->reg10,set_field:0x20/0xf0->reg0,goto_table:EgressQoS',
      'table=EgressMark, priority=200,dl_type=0x800,nw_src=10.10.2.7 actions=set_field:02:00:00:00:00:01->eth_dst,set_field:0x1/0xff->reg10,set_field:0x20/0xf0->reg0,goto_table:EgressQoS',
    ]);
    expect(byTable(all, 'EgressQoS')).toEqual([
      'table=EgressQoS, priority=200,dl_type=0x800,reg10=0x1/0xff actions=meter:1,goto_table:L3DecTTL',
      'table=EgressQoS, priority=0 actions=goto_table:L3DecTTL',
    ]);
  });

  test('an owned Egress without a bandwidth passes EgressQoS unmetered; another node\'s members are tunnelled unmetered (the owner meters them)', () => {
    const all = shaped({ exceptCIDRs: EXCEPT, egresses: [owned, { ...remote, meter: 2 }] });
    expect(byTable(all, 'EgressQoS')).toEqual(['table=EgressQoS, priority=0 actions=goto_table:L3DecTTL']);
    expect(all.filter((l) => l.includes('meter:'))).toEqual([]);
  });

  test('without the gate there is no EgressQoS table and a meter is ignored', () => {
    const all = lines({ exceptCIDRs: EXCEPT, egresses: [{ ...owned, meter: 1 }] });
    expect(byTable(all, 'EgressQoS')).toEqual([]);
    expect(all.some((l) => l.includes('meter:'))).toBe(false);
  });

  test('keeps the feature contract as a bandwidth is added, changed to another meter, and removed', () => {
    const states = [
      state({ exceptCIDRs: EXCEPT, egresses: [owned] }),
      state({ exceptCIDRs: EXCEPT, egresses: [{ ...owned, meter: 1 }, remote] }),
      state({ exceptCIDRs: EXCEPT, egresses: [{ ...owned, mark: 2, meter: 2 }, remote] }),
      state({ exceptCIDRs: EXCEPT, egresses: [{ ...owned, local: false, mark: undefined as never, ownerIP: '192.168.77.12' }] }),
      state({ exceptCIDRs: EXCEPT, egresses: [owned] }),
    ];
    const report = checkFeatureContract({ feature: shaping.at(-1)!, features: shaping, states });
    expect(report.states).toBe(states.length);
  });
});
