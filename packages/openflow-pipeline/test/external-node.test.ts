// ExternalNode flows: the pair-port pipeline (conntrack around the policy tables) and the
// policy bypass rules of every protocol the agent configuration allows.
import { normalizeFlow, type Flow } from '@switchyard/openflow/codec';
import { assignOFPriorities, computeNodeFlows, dumpFlows, parseNamedFlow, type ExternalNodeSpec, type NodeFlows, type NodeState } from '../src/index';

const state = (externalNode: ExternalNodeSpec): NodeState => ({
  config: { round: 1, trafficMode: 'encap', gateway: { ofport: 0xfffe, ip: '0.0.0.0', mac: '00:00:00:00:00:00' }, podCIDR: '0.0.0.0/32', nodeIP: '172.16.100.3', enableAntreaPolicy: true },
  pods: [], remoteNodes: [], policies: [], addressGroups: [], appliedToGroups: [], externalNode,
});
const iface = { uplinkOfport: 1, pairOfport: 2, ips: ['172.16.100.3'] };

function has(nf: NodeFlows, literal: string): boolean {
  const want = normalizeFlow(parseNamedFlow(literal, (n) => nf.pipeline.id(n as never)));
  const strip = ({ cookie: _c, ...rest }: Flow): Flow => rest as Flow;
  const key = (f: Flow) => JSON.stringify(strip(normalizeFlow(f)), (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  return nf.flows.some((f) => key(f) === key(want));
}

describe('ExternalNode pair-port pipeline', () => {
  const nf = computeNodeFlows(state({ interfaces: [iface] }));

  test.each([
    'table=NonIP, priority=200,in_port=1 actions=output:2',
    'table=NonIP, priority=200,in_port=2 actions=output:1',
    'table=ConntrackZone, priority=200,ip actions=ct(table=ConntrackState,zone=65520)',
    'table=ConntrackState, priority=200,ct_state=+inv+trk,ip actions=drop',
    'table=ConntrackCommit, priority=200,ct_state=+new+trk,ip actions=ct(commit,table=Output,zone=65520)',
    'table=Output, priority=200,reg0=0x200000/0x600000 actions=output:NXM_NX_REG1[]',
  ])('sends IP through conntrack and out to the pair: %s', (literal) => {
    expect(has(nf, literal)).toBe(true);
  });

  test('the matcher tells flows apart (a pair flow for another port is not there)', () => {
    expect(has(nf, 'table=NonIP, priority=200,in_port=3 actions=output:2')).toBe(false);
  });

  test('uses only the ExternalNode feature list: no pod, gateway or tunnel tables', () => {
    const tables = new Set(dumpFlows(nf).map((l) => /table=(\w+)/.exec(l)?.[1]));
    for (const t of ['ARPSpoofGuard', 'SpoofGuard', 'L3Forwarding', 'L2ForwardingCalc']) expect(tables.has(t)).toBe(false);
  });
});

describe('IPv6 on an ExternalNode (the agent config with IPv6 placeholders)', () => {
  const v6 = (spec: ExternalNodeSpec): NodeFlows => {
    const s = state(spec);
    return computeNodeFlows({ ...s, config: { ...s.config, podCIDRv6: '::/128', gateway: { ...s.config.gateway, ipv6: '::' } } });
  };
  const nf = v6({ interfaces: [{ ...iface, ips: ['172.16.100.3', 'fd00:66::2'] }], bypass: [{ direction: 'ingress', protocol: 'ICMP', cidr: 'fd00:70::/64' }, { direction: 'egress', protocol: 'TCP', cidr: 'fd00:53::1/128', port: 53 }] });

  test.each([
    'table=PipelineRootClassifier, priority=200,ipv6 actions=goto_table:Classifier',
    'table=Classifier, priority=200,ipv6,in_port=1 actions=set_field:0x4/0xf->reg0,set_field:0x2->reg1,set_field:0x200000/0x600000->reg0,goto_table:ConntrackZone',
    'table=ConntrackZone, priority=200,ipv6 actions=ct(table=ConntrackState,zone=65510)',
    'table=ConntrackState, priority=200,ct_state=+inv+trk,ipv6 actions=drop',
    'table=ConntrackCommit, priority=200,ct_state=+new+trk,ipv6 actions=ct(commit,table=Output,zone=65510)',
    'table=PipelineRootClassifier, priority=210,icmp6,icmp_type=135 actions=goto_table:NonIP',
    'table=PipelineRootClassifier, priority=210,icmp6,icmp_type=134 actions=goto_table:NonIP',
    'table=AntreaPolicyIngressRule, priority=64990,icmp6,ipv6_src=fd00:70::/64 actions=goto_table:IngressMetric',
    'table=AntreaPolicyEgressRule, priority=64990,tcp6,ipv6_dst=fd00:53::1,tp_dst=53 actions=goto_table:EgressMetric',
  ])('polices IPv6 in its own conntrack zone, lets the link ICMPv6 cross: %s', (literal) => {
    expect(has(nf, literal)).toBe(true);
  });

  test('ICMPv6 echo is policed (only the link types cross untouched)', () => {
    expect(has(nf, 'table=PipelineRootClassifier, priority=210,icmp6,icmp_type=128 actions=goto_table:NonIP')).toBe(false);
  });

  test('without the IPv6 placeholders IPv6 crosses as non-IP and an IPv6 bypass rule has nothing to bypass', () => {
    const v4 = computeNodeFlows(state({ interfaces: [iface], bypass: [{ direction: 'ingress', protocol: 'IP', cidr: 'fd00:70::/64' }] }));
    expect(dumpFlows(v4).filter((l) => l.includes('ipv6') || l.includes('icmp6'))).toEqual([]);
  });
});

describe('policy bypass rules', () => {
  const bypassFlows = (bypass: ExternalNodeSpec['bypass']) => {
    const nf = computeNodeFlows(state({ interfaces: [iface], ...(bypass ? { bypass } : {}) }));
    return { nf, lines: dumpFlows(nf).filter((l) => l.includes('priority=64990') && !l.includes('ct_state')) };
  };

  test('TCP with a port matches that destination port from the CIDR (ingress)', () => {
    const { nf, lines } = bypassFlows([{ direction: 'ingress', protocol: 'TCP', cidr: '10.70.0.0/16', port: 22 }]);
    expect(lines).toHaveLength(1);
    expect(has(nf, 'table=AntreaPolicyIngressRule, priority=64990,tcp,nw_src=10.70.0.0/16,tp_dst=22 actions=goto_table:IngressMetric')).toBe(true);
  });

  test('UDP without a port matches every port to the CIDR (egress)', () => {
    const { nf } = bypassFlows([{ direction: 'egress', protocol: 'UDP', cidr: '10.0.0.53/32' }]);
    expect(has(nf, 'table=AntreaPolicyEgressRule, priority=64990,udp,nw_dst=10.0.0.53 actions=goto_table:EgressMetric')).toBe(true);
  });

  test('ICMP matches the protocol and IP matches every protocol', () => {
    const { nf } = bypassFlows([
      { direction: 'ingress', protocol: 'ICMP', cidr: '10.1.0.0/16' },
      { direction: 'egress', protocol: 'IP', cidr: '10.3.0.0/24' },
    ]);
    expect(has(nf, 'table=AntreaPolicyIngressRule, priority=64990,icmp,nw_src=10.1.0.0/16 actions=goto_table:IngressMetric')).toBe(true);
    expect(has(nf, 'table=AntreaPolicyEgressRule, priority=64990,ip,nw_dst=10.3.0.0/24 actions=goto_table:EgressMetric')).toBe(true);
  });

  test('no rules, no bypass flows', () => {
    expect(bypassFlows(undefined).lines).toEqual([]);
  });
});

describe('policy priorities of the ExternalNode guide', () => {
  test('two policies at priorities 9000 and 9001 in the default tier get distinct, ordered OpenFlow priorities', () => {
    const m = assignOFPriorities([
      { tierPriority: 250, policyPriority: 9000, rulePriority: 0 },
      { tierPriority: 250, policyPriority: 9001, rulePriority: 0 },
      { tierPriority: 250, policyPriority: 5, rulePriority: 0 },
    ], false);
    const [a, b, c] = ['250/9000/0', '250/9001/0', '250/5/0'].map((k) => m.get(k)!);
    expect(c).toBeGreaterThan(a!);
    expect(a).toBeGreaterThan(b!);
    expect(b).toBeGreaterThanOrEqual(100);
  });
});
