/**
 * Golden tests: expected lines are Antrea's own flow literals (pkg/agent/openflow/*_test.go,
 * docs/design/ovs-pipeline.md and the seed walkthrough), not output of this code. Each literal is
 * parsed by the codec's ovs-ofctl parser (table names mapped to this pipeline's numbers) and must
 * equal, as a normalized Flow, one of the computed flows. Cookies are compared where Antrea's
 * literal has one.
 */
import { normalizeFlow, type Flow } from '@switchyard/openflow/codec';
import { computeNodeFlows, dumpFlows, parseNamedFlow, type NodeFlows, type NodeState, type NetworkPolicy } from '../src/index';

const gw = { ofport: 32769, ip: '10.10.0.1', mac: '0a:00:00:00:00:01' };
const base = (over: Partial<NodeState['config']> = {}): NodeState => ({
  config: { round: 1, trafficMode: 'encap', gateway: gw, tunnelOfport: 32768, podCIDR: '10.10.0.0/24', nodeIP: '192.168.77.100', enableProxy: true, enableAntreaPolicy: true, ...over },
  pods: [], remoteNodes: [], policies: [], addressGroups: [], appliedToGroups: [],
});

/** The computed flows, normalized, as a set Antrea literals are looked up in. */
class Computed {
  readonly nf: NodeFlows;
  private readonly flows: Flow[];
  constructor(s: NodeState) {
    this.nf = computeNodeFlows(s);
    this.flows = this.nf.flows.map((f) => normalizeFlow(f));
  }
  /** Expects the literal (tables by name) among the computed flows; cookies only if the literal has one. */
  expectFlow(literal: string): void {
    const want = normalizeFlow(parseNamedFlow(literal, (n) => this.nf.pipeline.id(n as never)));
    const strip = (f: Flow): Flow => {
      if (want.cookie !== undefined) return f;
      const { cookie: _c, ...rest } = f;
      return rest;
    };
    const same = this.flows.filter((f) => f.table === want.table && f.priority === want.priority).map(strip);
    expect(same).toContainEqual(want);
  }
}
const computed = (s: NodeState): Computed => new Computed(s);

describe('default pipeline (Antrea pod_connectivity_test.go literals)', () => {
  const c = computed(base());
  it.each([
    'cookie=0x1010000000000, table=Classifier, priority=200,in_port=32768 actions=set_field:0x1/0xf->reg0,set_field:0x200/0x200->reg0,goto_table:UnSNAT',
    'cookie=0x1010000000000, table=ARPSpoofGuard, priority=200,arp,in_port=32769,arp_spa=10.10.0.1,arp_sha=0a:00:00:00:00:01 actions=goto_table:ARPResponder',
    'cookie=0x1010000000000, table=ARPResponder, priority=190,arp actions=NORMAL',
    'cookie=0x1010000000000, table=Classifier, priority=210,ip,in_port=32769,nw_src=10.10.0.1 actions=set_field:0x2/0xf->reg0,set_field:0x10000000/0x10000000->reg4,goto_table:SpoofGuard',
    'cookie=0x1010000000000, table=Classifier, priority=200,in_port=32769 actions=set_field:0x2/0xf->reg0,set_field:0x8000000/0x8000000->reg4,goto_table:SpoofGuard',
    'cookie=0x1010000000000, table=SpoofGuard, priority=200,ip,in_port=32769 actions=goto_table:UnSNAT',
    'cookie=0x1010000000000, table=ConntrackZone, priority=200,ip actions=ct(table=ConntrackState,zone=65520,nat)',
    'cookie=0x1010000000000, table=ConntrackState, priority=200,ct_state=+inv+trk,ip actions=drop',
    'cookie=0x1010000000000, table=ConntrackState, priority=190,ct_state=-new+trk,ct_mark=0x0/0x10,ip actions=goto_table:AntreaPolicyEgressRule',
    'cookie=0x1010000000000, table=L3Forwarding, priority=210,ip,nw_dst=10.10.0.1 actions=set_field:0a:00:00:00:00:01->eth_dst,set_field:0x20/0xf0->reg0,goto_table:L3DecTTL',
    'cookie=0x1010000000000, table=L3Forwarding, priority=210,ct_state=+rpl+trk,ct_mark=0x2/0xf,ip actions=set_field:0a:00:00:00:00:01->eth_dst,set_field:0x20/0xf0->reg0,goto_table:L3DecTTL',
    'cookie=0x1010000000000, table=L3Forwarding, priority=200,ip,reg0=0x0/0x200,nw_dst=10.10.0.0/24 actions=goto_table:L2ForwardingCalc',
    'cookie=0x1010000000000, table=L3Forwarding, priority=0 actions=set_field:0x20/0xf0->reg0,goto_table:L2ForwardingCalc',
    'cookie=0x1010000000000, table=L3DecTTL, priority=210,ip,reg0=0x2/0xf actions=goto_table:SNATMark',
    'cookie=0x1010000000000, table=L3DecTTL, priority=200,ip actions=dec_ttl,goto_table:SNATMark',
    'cookie=0x1010000000000, table=L2ForwardingCalc, priority=200,dl_dst=0a:00:00:00:00:01 actions=set_field:0x8001->reg1,set_field:0x200000/0x600000->reg0,goto_table:IngressSecurityClassifier',
    'cookie=0x1010000000000, table=L2ForwardingCalc, priority=200,dl_dst=aa:bb:cc:dd:ee:ff actions=set_field:0x8000->reg1,set_field:0x200000/0x600000->reg0,goto_table:IngressSecurityClassifier',
    'cookie=0x1010000000000, table=ConntrackCommit, priority=200,ct_state=+new+trk,ct_mark=0x0/0x20,ip actions=ct(commit,table=Output,zone=65520,exec(move:NXM_NX_REG0[0..3]->NXM_NX_CT_MARK[0..3]))',
    'cookie=0x1010000000000, table=Output, priority=200,reg0=0x200000/0x600000 actions=output:NXM_NX_REG1[]',
  ])('contains %s', (line) => c.expectFlow(line));

  it('orders tables as Antrea does, by name (ovs-pipeline.md table list, without Egress/TrafficControl)', () => {
    const names = computeNodeFlows(base()).pipeline.tables().map((t) => t.name);
    expect(names).toEqual([
      'PipelineRootClassifier', 'ARPSpoofGuard', 'ARPResponder', 'Classifier', 'SpoofGuard', 'UnSNAT', 'ConntrackZone',
      'ConntrackState', 'PreRoutingClassifier', 'NodePortMark', 'SessionAffinity', 'ServiceLB', 'EndpointDNAT',
      'AntreaPolicyEgressRule', 'EgressRule', 'EgressDefaultRule', 'EgressMetric', 'L3Forwarding', 'L3DecTTL', 'SNATMark',
      'SNAT', 'L2ForwardingCalc', 'IngressSecurityClassifier', 'AntreaPolicyIngressRule', 'IngressRule',
      'IngressDefaultRule', 'IngressMetric', 'ConntrackCommit', 'Output',
    ]);
  });

  it.each([
    'table=PipelineRootClassifier, priority=200,arp actions=goto_table:ARPSpoofGuard',
    'table=PipelineRootClassifier, priority=200,ip actions=goto_table:Classifier',
    'table=PipelineRootClassifier, priority=0 actions=drop',
    'table=ARPResponder, priority=0 actions=drop',
    'table=UnSNAT, priority=0 actions=goto_table:ConntrackZone',
    'table=ConntrackState, priority=0 actions=goto_table:PreRoutingClassifier',
    'table=PreRoutingClassifier, priority=200,ip actions=resubmit(,NodePortMark),resubmit(,SessionAffinity),resubmit(,ServiceLB)',
    'table=SessionAffinity, priority=0 actions=set_field:0x10000/0x70000->reg4',
    'table=ServiceLB, priority=0 actions=goto_table:EndpointDNAT',
    'table=EndpointDNAT, priority=190,reg4=0x20000/0x70000 actions=set_field:0x10000/0x70000->reg4,resubmit(,ServiceLB)',
    'table=EndpointDNAT, priority=0 actions=goto_table:AntreaPolicyEgressRule',
    'table=AntreaPolicyEgressRule, priority=64990,ct_state=-new+est,ip actions=goto_table:EgressMetric',
    'table=AntreaPolicyEgressRule, priority=64990,ct_state=-new+rel,ip actions=goto_table:EgressMetric',
    'table=AntreaPolicyIngressRule, priority=64990,ct_state=-new+est,ip actions=goto_table:IngressMetric',
    'table=AntreaPolicyEgressRule, priority=0 actions=goto_table:EgressRule',
    'table=EgressRule, priority=0 actions=goto_table:EgressDefaultRule',
    'table=EgressDefaultRule, priority=0 actions=goto_table:EgressMetric',
    'table=EgressMetric, priority=0 actions=goto_table:L3Forwarding',
    'table=IngressSecurityClassifier, priority=200,reg0=0x20/0xf0 actions=goto_table:IngressMetric',
    'table=IngressSecurityClassifier, priority=200,reg0=0x10/0xf0 actions=goto_table:IngressMetric',
    'table=IngressSecurityClassifier, priority=200,reg0=0x40/0xf0 actions=goto_table:IngressMetric',
    'table=IngressSecurityClassifier, priority=200,ct_mark=0x40/0x40 actions=goto_table:ConntrackCommit',
    'table=IngressSecurityClassifier, priority=0 actions=goto_table:AntreaPolicyIngressRule',
    'table=IngressRule, priority=0 actions=goto_table:IngressDefaultRule',
    'table=IngressDefaultRule, priority=0 actions=goto_table:IngressMetric',
    'table=IngressMetric, priority=0 actions=goto_table:ConntrackCommit',
    'table=ConntrackCommit, priority=0 actions=goto_table:Output',
    'table=Output, priority=210,ct_mark=0x40/0x40 actions=IN_PORT',
    'table=Output, priority=200,reg0=0x2400000/0xfe600000 actions=controller(reason=no_match,id=62373,userdata=01.01)',
    'table=Output, priority=200,reg0=0x4400000/0xfe600000 actions=controller(reason=no_match,id=62373,userdata=01.02)',
    'table=Output, priority=0 actions=drop',
  ])('docs/design/ovs-pipeline.md: %s', (line) => c.expectFlow(line));
});

describe('pod flows (client_test.go literals)', () => {
  const s = base();
  s.pods = [{ name: 'p', namespace: 'ns', ofport: 100, ips: ['10.10.0.66'], mac: '00:00:10:10:00:66' }];
  const c = computed(s);
  it.each([
    'cookie=0x1010000000000, table=ARPSpoofGuard, priority=200,arp,in_port=100,arp_spa=10.10.0.66,arp_sha=00:00:10:10:00:66 actions=goto_table:ARPResponder',
    'cookie=0x1010000000000, table=Classifier, priority=190,in_port=100 actions=set_field:0x3/0xf->reg0,set_field:0x10000000/0x10000000->reg4,goto_table:SpoofGuard',
    'cookie=0x1010000000000, table=SpoofGuard, priority=200,ip,in_port=100,dl_src=00:00:10:10:00:66,nw_src=10.10.0.66 actions=goto_table:UnSNAT',
    'cookie=0x1010000000000, table=L3Forwarding, priority=200,ip,reg0=0x200/0x200,nw_dst=10.10.0.66 actions=set_field:0a:00:00:00:00:01->eth_src,set_field:00:00:10:10:00:66->eth_dst,goto_table:L3DecTTL',
    'cookie=0x1010000000000, table=L2ForwardingCalc, priority=200,dl_dst=00:00:10:10:00:66 actions=set_field:0x64->reg1,set_field:0x200000/0x600000->reg0,goto_table:IngressSecurityClassifier',
  ])('contains %s', (line) => c.expectFlow(line));
});

describe('remote-node flows per mode (client_test.go literals)', () => {
  const peer = { name: 'n2', podCIDR: '10.10.1.0/24', nodeIP: '192.168.77.101', gatewayIP: '10.10.1.1' };
  it('encap: ARP responder for the peer gateway and a tunnel route with tun_dst', () => {
    const s = base();
    s.remoteNodes = [peer];
    const c = computed(s);
    c.expectFlow('cookie=0x1010000000000, table=ARPResponder, priority=200,arp,arp_tpa=10.10.1.1,arp_op=1 actions=move:NXM_OF_ETH_SRC[]->NXM_OF_ETH_DST[],set_field:aa:bb:cc:dd:ee:ff->eth_src,set_field:2->arp_op,move:NXM_NX_ARP_SHA[]->NXM_NX_ARP_THA[],set_field:aa:bb:cc:dd:ee:ff->arp_sha,move:NXM_OF_ARP_SPA[]->NXM_OF_ARP_TPA[],set_field:10.10.1.1->arp_spa,IN_PORT');
    c.expectFlow('cookie=0x1010000000000, table=L3Forwarding, priority=200,ip,nw_dst=10.10.1.0/24 actions=set_field:0a:00:00:00:00:01->eth_src,set_field:aa:bb:cc:dd:ee:ff->eth_dst,set_field:192.168.77.101->tun_dst,set_field:0x10/0xf0->reg0,goto_table:L3DecTTL');
  });
  it('noEncap (and WireGuard): the peer CIDR is routed through the gateway', () => {
    for (const cfg of [{ trafficMode: 'noEncap' as const }, { wireGuard: true }]) {
      const s = base(cfg);
      s.remoteNodes = [peer];
      const c = computed(s);
      c.expectFlow('cookie=0x1010000000000, table=L3Forwarding, priority=200,ip,nw_dst=10.10.1.0/24 actions=set_field:0a:00:00:00:00:01->eth_dst,set_field:0x20/0xf0->reg0,goto_table:L3DecTTL');
      expect(c.nf.flows.some((f) => f.actions.some((a) => a.type === 'setField' && a.field === 'tunIpv4Dst'))).toBe(false);
    }
  });
  it('hybrid: peers in the node subnet are routed, others tunnelled', () => {
    const s = base({ trafficMode: 'hybrid', nodeSubnet: '192.168.77.0/24' });
    s.remoteNodes = [peer, { name: 'n3', podCIDR: '10.10.2.0/24', nodeIP: '172.16.0.5', gatewayIP: '10.10.2.1' }];
    const c = computed(s);
    c.expectFlow('cookie=0x1010000000000, table=L3Forwarding, priority=200,ip,nw_dst=10.10.1.0/24 actions=set_field:0a:00:00:00:00:01->eth_dst,set_field:0x20/0xf0->reg0,goto_table:L3DecTTL');
    c.expectFlow('cookie=0x1010000000000, table=L3Forwarding, priority=200,ip,nw_dst=10.10.2.0/24 actions=set_field:0a:00:00:00:00:01->eth_src,set_field:aa:bb:cc:dd:ee:ff->eth_dst,set_field:172.16.0.5->tun_dst,set_field:0x10/0xf0->reg0,goto_table:L3DecTTL');
  });
});

const np = (over: Partial<NetworkPolicy>): NetworkPolicy => ({
  uid: 'u', name: 'n', namespace: 'default', sourceRef: { type: 'K8sNetworkPolicy', namespace: 'default', name: 'n', uid: 'u' },
  rules: [], appliedToGroups: [], generation: 1, ...over,
});

describe('NetworkPolicy conjunction', () => {
  it('ACNP rule in the application tier at priority 5 gets OpenFlow priority 14500 (ovs-pipeline.md AntreaPolicyEgressRule)', () => {
    const s = base();
    s.pods = [{ name: 'web', namespace: 'default', ofport: 0x25, ips: ['10.10.0.24'], mac: 'fa:b7:53:74:21:a6' }];
    s.addressGroups = [{ name: 'db', groupMembers: [{ ips: ['10.10.0.25'] }] }];
    s.appliedToGroups = [{ name: 'web', groupMembers: [{ ips: ['10.10.0.24'] }] }];
    s.policies = [np({
      uid: 'acnp', sourceRef: { type: 'AntreaClusterNetworkPolicy', namespace: '', name: 'web-app-db-network-policy', uid: 'acnp' },
      priority: 5, tierPriority: 250, appliedToGroups: ['web'],
      rules: [
        { direction: 'Out', from: { addressGroups: [], ipBlocks: [] }, to: { addressGroups: ['db'], ipBlocks: [] }, services: [{ protocol: 'TCP', port: 3306 }], action: 'Allow', priority: 0, enableLogging: false },
        { direction: 'Out', from: { addressGroups: [], ipBlocks: [] }, to: { addressGroups: [], ipBlocks: [{ cidr: '0.0.0.0/0', except: [] }] }, services: [], action: 'Drop', priority: 1, enableLogging: false },
      ],
    })];
    s.conjIds = new Map([['acnp/0', 7], ['acnp/1', 5]]);
    const c = computed(s);
    for (const l of [
      'table=AntreaPolicyEgressRule, priority=14500,ip,nw_src=10.10.0.24 actions=conjunction(7,1/3)',
      'table=AntreaPolicyEgressRule, priority=14500,ip,nw_dst=10.10.0.25 actions=conjunction(7,2/3)',
      'table=AntreaPolicyEgressRule, priority=14500,tcp,tp_dst=3306 actions=conjunction(7,3/3)',
      'table=AntreaPolicyEgressRule, priority=14500,conj_id=7,ip actions=set_field:0x7->reg5,ct(commit,table=EgressMetric,zone=65520,exec(set_field:0x700000000/0xffffffff00000000->ct_label))',
      'table=AntreaPolicyEgressRule, priority=14499,ip,nw_src=10.10.0.24 actions=conjunction(5,1/2)',
      'table=AntreaPolicyEgressRule, priority=14499,ip actions=conjunction(5,2/2)',
      'table=AntreaPolicyEgressRule, priority=14499,conj_id=5 actions=set_field:0x5->reg3,set_field:0x400/0x400->reg0,goto_table:EgressMetric',
      'table=EgressMetric, priority=200,ct_state=+new,ct_label=0x700000000/0xffffffff00000000,ip actions=goto_table:L3Forwarding',
      'table=EgressMetric, priority=200,ct_state=-new,ct_label=0x700000000/0xffffffff00000000,ip actions=goto_table:L3Forwarding',
      'table=EgressMetric, priority=200,reg0=0x400/0x400,reg3=0x5 actions=drop',
    ]) c.expectFlow(l);
  });

  it('K8s NP ingress rule (ovs-pipeline.md IngressRule / IngressDefaultRule)', () => {
    const s = base();
    s.pods = [{ name: 'web', namespace: 'default', ofport: 0x25, ips: ['10.10.0.24'], mac: 'fa:b7:53:74:21:a6' }];
    s.addressGroups = [{ name: 'client', groupMembers: [{ ips: ['10.10.0.26'] }] }];
    s.appliedToGroups = [{ name: 'web', groupMembers: [{ ips: ['10.10.0.24'] }] }];
    s.policies = [np({ uid: 'k8s', appliedToGroups: ['web'], rules: [{ direction: 'In', from: { addressGroups: ['client'], ipBlocks: [] }, to: { addressGroups: [], ipBlocks: [] }, services: [{ protocol: 'TCP', port: 80 }], priority: 0, enableLogging: false }] })];
    s.conjIds = new Map([['k8s/0', 3]]);
    const c = computed(s);
    for (const l of [
      'table=IngressRule, priority=200,ip,nw_src=10.10.0.26 actions=conjunction(3,1/3)',
      'table=IngressRule, priority=200,reg1=0x25 actions=conjunction(3,2/3)',
      'table=IngressRule, priority=200,tcp,tp_dst=80 actions=conjunction(3,3/3)',
      'table=IngressRule, priority=190,conj_id=3,ip actions=set_field:0x3->reg6,ct(commit,table=IngressMetric,zone=65520,exec(set_field:0x3/0xffffffff->ct_label))',
      'table=IngressDefaultRule, priority=200,reg1=0x25 actions=drop',
      'table=IngressMetric, priority=200,ct_state=+new,ct_label=0x3/0xffffffff,ip actions=goto_table:ConntrackCommit',
      'table=IngressMetric, priority=200,ct_state=-new,ct_label=0x3/0xffffffff,ip actions=goto_table:ConntrackCommit',
    ]) c.expectFlow(l);
  });

  it('nginx-allow (seed walkthrough): one 1/2 flow per source IP, one 2/2 per local port, the conj_id=1 flow and the -new+est bypass', () => {
    const s = base({ enableAntreaPolicy: false });
    s.pods = [
      { name: 'nginx-1', namespace: 'default', ofport: 3, ips: ['192.168.2.2'], mac: '32:a1:45:43:7c:96' },
      { name: 'nginx-2', namespace: 'default', ofport: 4, ips: ['192.168.2.4'], mac: 'f2:38:81:3e:e0:08' },
      { name: 'busybox', namespace: 'default', ofport: 8, ips: ['192.168.2.7'], mac: '02:00:00:00:00:07' },
    ];
    // Four sources, none adjacent, so no CIDR merging: 192.168.2.2, .4, .7 and 192.168.1.2.
    s.addressGroups = [{ name: 'nginx', groupMembers: [{ ips: ['192.168.2.2'] }, { ips: ['192.168.2.4'] }, { ips: ['192.168.1.2'] }, { ips: ['192.168.2.7'] }] }];
    s.appliedToGroups = [{ name: 'nginx', groupMembers: [{ ips: ['192.168.2.2'] }, { ips: ['192.168.2.4'] }, { ips: ['192.168.2.7'] }] }];
    s.policies = [np({ uid: 'nginx-allow', appliedToGroups: ['nginx'], rules: [{ direction: 'In', from: { addressGroups: ['nginx'], ipBlocks: [] }, to: { addressGroups: [], ipBlocks: [] }, services: [], priority: 0, enableLogging: false }] })];
    s.conjIds = new Map([['nginx-allow/0', 1]]);
    const c = computed(s);
    const lines = dumpFlows(c.nf, { cookie: false }).filter((l) => l.startsWith('table=IngressRule,'));
    const seed = [
      'table=IngressRule, priority=210,ct_state=-new+est,ip actions=goto_table:IngressMetric',
      'table=IngressRule, priority=200,ip,nw_src=192.168.2.2 actions=conjunction(1,1/2)',
      'table=IngressRule, priority=200,ip,nw_src=192.168.2.4 actions=conjunction(1,1/2)',
      'table=IngressRule, priority=200,ip,nw_src=192.168.1.2 actions=conjunction(1,1/2)',
      'table=IngressRule, priority=200,ip,nw_src=192.168.2.7 actions=conjunction(1,1/2)',
      'table=IngressRule, priority=200,reg1=0x3 actions=conjunction(1,2/2)',
      'table=IngressRule, priority=200,reg1=0x4 actions=conjunction(1,2/2)',
      'table=IngressRule, priority=200,reg1=0x8 actions=conjunction(1,2/2)',
    ];
    for (const l of seed) c.expectFlow(l);
    // The seed's action flow loads reg6 and goes on (table 105 then); current Antrea commits with the rule id in ct_label.
    c.expectFlow('table=IngressRule, priority=190,conj_id=1,ip actions=set_field:0x1->reg6,ct(commit,table=IngressMetric,zone=65520,exec(set_field:0x1/0xffffffff->ct_label))');
    expect(lines.filter((l) => l.includes('conjunction(1,1/2)'))).toHaveLength(4);
    expect(lines.filter((l) => l.includes('conjunction(1,2/2)'))).toHaveLength(3);
  });
});
