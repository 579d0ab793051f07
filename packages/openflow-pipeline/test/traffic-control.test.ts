/** TrafficControl: a feature outside the presets, listed with them; its flows, and its contract. */
import { computeNodeFlows, dumpFlows, podNodeFeatures, trafficControl, type NodeState, type TrafficControlRule } from '../src/index';
import { checkFeatureContract } from '../src/testing';

const POD_A = { name: 'a', namespace: 'x', ofport: 5, ips: ['10.10.1.5'], mac: '02:00:00:00:00:05' };
const POD_B = { name: 'b', namespace: 'x', ofport: 6, ips: ['10.10.1.6'], mac: '02:00:00:00:00:06' };

function state(rules?: TrafficControlRule[]): NodeState {
  return {
    config: { round: 1, trafficMode: 'encap', gateway: { ofport: 2, ip: '10.10.1.1', mac: '02:00:00:00:00:01' }, tunnelOfport: 1, podCIDR: '10.10.1.0/24', nodeIP: '192.168.77.11' },
    pods: [POD_A, POD_B], remoteNodes: [], addressGroups: [], appliedToGroups: [], policies: [],
    ...(rules ? { extensions: { trafficControl: rules } } : {}),
  };
}
const features = [...podNodeFeatures(), trafficControl()];
const lines = (rules?: TrafficControlRule[]): string[] => dumpFlows(computeNodeFlows(state(rules), { features }), { cookie: false });

const mirrorBoth: TrafficControlRule = { name: 'mirror-web', action: 'Mirror', direction: 'Both', podOfports: [5], targetOfport: 20 };
const redirectIngress: TrafficControlRule = { name: 'ids', action: 'Redirect', direction: 'Ingress', podOfports: [6], targetOfport: 21, returnOfport: 22 };

test('marks traffic to and from a selected pod with the action and the target port (Antrea reg4[22..23], reg9)', () => {
  const tc = lines([mirrorBoth]).filter((l) => l.startsWith('table=TrafficControl,'));
  expect(tc).toEqual(expect.arrayContaining([
    'table=TrafficControl, priority=200,reg1=0x5 actions=set_field:0x14->reg9,set_field:0x400000/0xc00000->reg4,goto_table:IngressSecurityClassifier',
    'table=TrafficControl, priority=200,in_port=5 actions=set_field:0x14->reg9,set_field:0x400000/0xc00000->reg4,goto_table:IngressSecurityClassifier',
  ]));
});

test('outputs a mirrored packet to its port and the target, a redirected one to the target only', () => {
  const out = lines([mirrorBoth]).filter((l) => l.startsWith('table=Output,') && l.includes('reg4='));
  expect(out).toEqual([
    'table=Output, priority=211,reg0=0x200000/0x600000,reg4=0x400000/0xc00000 actions=output:NXM_NX_REG1[],output:NXM_NX_REG9[]',
    'table=Output, priority=211,reg0=0x200000/0x600000,reg4=0x800000/0xc00000 actions=output:NXM_NX_REG9[]',
  ]);
});

test('a redirect marks one direction only and classifies what comes back through the return port', () => {
  const all = lines([redirectIngress]);
  const tc = all.filter((l) => l.startsWith('table=TrafficControl,') && l.includes('reg9'));
  expect(tc).toEqual(['table=TrafficControl, priority=200,reg1=0x6 actions=set_field:0x15->reg9,set_field:0x800000/0xc00000->reg4,goto_table:IngressSecurityClassifier']);
  expect(all).toContain('table=Classifier, priority=200,in_port=22 actions=set_field:0x6/0xf->reg0,goto_table:L3Forwarding');
  expect(all).toContain('table=TrafficControl, priority=210,reg0=0x200006/0x60000f actions=goto_table:Output');
});

test('without TrafficControls the table only passes packets on, and nothing else changes', () => {
  const without = lines();
  const bare = dumpFlows(computeNodeFlows(state(), { features: podNodeFeatures() }), { cookie: false });
  expect(without.filter((l) => l.startsWith('table=TrafficControl,'))).toEqual([
    'table=TrafficControl, priority=210,reg0=0x200006/0x60000f actions=goto_table:Output',
    'table=TrafficControl, priority=0 actions=goto_table:IngressSecurityClassifier',
  ]);
  // The same flows as a node without the feature, once table names are the same (only the TrafficControl and Output rows differ).
  const strip = (ls: string[]) => ls.filter((l) => !l.startsWith('table=TrafficControl,') && !(l.startsWith('table=Output,') && l.includes('reg4=')));
  expect(strip(without).map((l) => l.replace('goto_table:TrafficControl', 'goto_table:IngressSecurityClassifier'))).toEqual(strip(bare));
});

test('keeps the feature contract over a sequence of states (added, changed, removed, pods moving)', () => {
  const states = [
    state(),
    state([mirrorBoth]),
    state([mirrorBoth, redirectIngress]),
    state([{ ...mirrorBoth, podOfports: [5, 6] }, redirectIngress]),
    state([{ ...redirectIngress, direction: 'Both' }]),
    state([]),
  ];
  const report = checkFeatureContract({ feature: features.at(-1)!, features, states });
  expect(report.states).toBe(states.length);
  expect(report.flows).toBeGreaterThan(0);
});
