/**
 * IPv6 and dual-stack (issue #36): every IPv6 flow group of a dual-stack node (classification,
 * SpoofGuard and Neighbor Discovery, conntrack zones, L3 forwarding to local pods, the gateway and
 * peers' IPv6 pod CIDRs, policy address matches), the IPv4 flows kept as they are, bad input,
 * the incremental pipeline and Traceflow's IPv6 tag flows.
 */
import {
  CT_ZONE_V6, SNAT_CT_ZONE_V6, NodePipeline, aggregateV6, PipelineError, computeNodeFlows, dumpFlows, liveTagFlow, networkPolicy, nodeFeatures, podConnectivity, remoteNodes,
  traceFlows, type LocalPod, type NodeState,
} from '../src/index';
import { checkFeatureContract } from '../src/testing';
import { A, B, C, D, GW, PEER, dualStackState } from './dual-stack-state';

const lines = (s: NodeState): string[] => dumpFlows(computeNodeFlows(s));
const inTable = (ls: string[], table: string): string[] => ls.filter((l) => l.includes(`table=${table},`));
const v6 = (ls: string[]): string[] => ls.filter((l) => l.includes('dl_type=0x86dd'));

/** The dual-stack state with every IPv6 input taken away. */
function v4Only(s: NodeState): NodeState {
  const { podCIDRv6: _c, ...config } = s.config;
  const { ipv6: _g, ...gateway } = config.gateway;
  const strip = (ips: string[]) => ips.filter((ip) => !ip.includes(':'));
  return {
    ...s,
    config: { ...config, gateway },
    pods: s.pods.filter((p) => strip(p.ips).length).map((p) => ({ ...p, ips: strip(p.ips) })),
    remoteNodes: s.remoteNodes.map(({ podCIDRv6: _p, ...n }) => n),
  };
}

describe('a dual-stack node', () => {
  const s = dualStackState();
  const all = lines(s);

  it('keeps every IPv4 flow of the same node without IPv6 (tables by name), and adds the IPv6 table', () => {
    const nf = computeNodeFlows(s);
    expect(nf.pipeline.has('IPv6')).toBe(true);
    expect(computeNodeFlows(v4Only(s)).pipeline.has('IPv6')).toBe(false);
    const dual = new Set(all);
    // Pod c (IPv6 only) is left out of the IPv4 node; its protocol-agnostic flows are checked below.
    expect(lines(v4Only(s)).filter((l) => !dual.has(l))).toEqual([]);
  });

  it('classifies IPv6 from the gateway by its IPv6 address and sends IPv6 into the IP pipeline', () => {
    expect(inTable(all, 'PipelineRootClassifier')).toContain('cookie=0x1010000000000, table=PipelineRootClassifier, priority=200,dl_type=0x86dd actions=goto_table:Classifier');
    expect(inTable(all, 'Classifier')).toContain(
      'cookie=0x1010000000000, table=Classifier, priority=210,in_port=2,dl_type=0x86dd,ipv6_src=fd00:10:10::1 actions=set_field:0x2/0xf->reg0,set_field:0x10000000/0x10000000->reg4,goto_table:SpoofGuard',
    );
    // The IPv6-only pod is classified by its port like any pod.
    expect(inTable(all, 'Classifier').some((l) => l.includes('in_port=12 '))).toBe(true);
  });

  it('SpoofGuard: a pod IPv6 source only with its own MAC and address, a link-local source, or a DAD solicitation for its own address', () => {
    const sg = v6(inTable(all, 'SpoofGuard'));
    expect(sg).toEqual(expect.arrayContaining([
      'cookie=0x1010000000000, table=SpoofGuard, priority=200,in_port=10,dl_src=02:00:00:00:00:0a,dl_type=0x86dd,ipv6_src=fd00:10:10::a actions=goto_table:IPv6',
      'cookie=0x1010000000000, table=SpoofGuard, priority=200,in_port=10,dl_src=02:00:00:00:00:0a,dl_type=0x86dd,ipv6_src=fe80::/10 actions=goto_table:IPv6',
      'cookie=0x1010000000000, table=SpoofGuard, priority=200,in_port=10,dl_src=02:00:00:00:00:0a,dl_type=0x86dd,nw_proto=58,ipv6_src=::,icmpv6_type=135,icmpv6_code=0,nd_target=fd00:10:10::a actions=goto_table:IPv6',
      'cookie=0x1010000000000, table=SpoofGuard, priority=200,in_port=2,dl_type=0x86dd actions=goto_table:IPv6',
    ]));
    // The IPv4-only pod has no IPv6 flow at all; the dual-stack and IPv6-only pods have five each.
    for (const [pod, n] of [[D, 0], [A, 4], [C, 4]] as const) expect(sg.filter((l) => l.includes(`in_port=${pod.ofport},`))).toHaveLength(n);
    // IPv4 SpoofGuard is unchanged: it goes on to conntrack, past the IPv6 table.
    expect(inTable(all, 'SpoofGuard')).toContain('cookie=0x1010000000000, table=SpoofGuard, priority=200,in_port=10,dl_src=02:00:00:00:00:0a,dl_type=0x800,nw_src=10.10.0.10 actions=goto_table:UnSNAT');
  });

  it('Neighbor Discovery: a pod solicits with its own MAC, advertises only its own addresses and MAC; the rest of its ND, RAs and redirects drop', () => {
    const t = inTable(all, 'IPv6');
    expect(t).toEqual(expect.arrayContaining([
      'cookie=0x1010000000000, table=IPv6, priority=210,in_port=10,dl_type=0x86dd,nw_proto=58,icmpv6_type=135,icmpv6_code=0,nd_sll=02:00:00:00:00:0a actions=NORMAL',
      'cookie=0x1010000000000, table=IPv6, priority=210,in_port=10,dl_type=0x86dd,nw_proto=58,icmpv6_type=135,icmpv6_code=0,nd_sll=00:00:00:00:00:00 actions=NORMAL',
      'cookie=0x1010000000000, table=IPv6, priority=210,in_port=10,dl_type=0x86dd,nw_proto=58,icmpv6_type=136,icmpv6_code=0,nd_target=fd00:10:10::a,nd_tll=02:00:00:00:00:0a actions=NORMAL',
      'cookie=0x1010000000000, table=IPv6, priority=210,in_port=10,dl_type=0x86dd,nw_proto=58,icmpv6_type=136,icmpv6_code=0,nd_target=fd00:10:10::a,nd_tll=00:00:00:00:00:00 actions=NORMAL',
      'cookie=0x1010000000000, table=IPv6, priority=210,in_port=10,dl_type=0x86dd,nw_proto=58,icmpv6_type=136,icmpv6_code=0,nd_target=fe80::/10,nd_tll=02:00:00:00:00:0a actions=NORMAL',
      'cookie=0x1010000000000, table=IPv6, priority=205,dl_type=0x86dd,nw_proto=58,icmpv6_type=135,icmpv6_code=0,reg0=0x3/0xf actions=drop',
      'cookie=0x1010000000000, table=IPv6, priority=205,dl_type=0x86dd,nw_proto=58,icmpv6_type=136,icmpv6_code=0,reg0=0x3/0xf actions=drop',
      'cookie=0x1010000000000, table=IPv6, priority=205,dl_type=0x86dd,nw_proto=58,icmpv6_type=134,reg0=0x3/0xf actions=drop',
      'cookie=0x1010000000000, table=IPv6, priority=205,dl_type=0x86dd,nw_proto=58,icmpv6_type=137,reg0=0x3/0xf actions=drop',
      // From the gateway (and for what the pod's flows allowed), ND and multicast are switched as in Antrea.
      'cookie=0x1010000000000, table=IPv6, priority=200,dl_type=0x86dd,nw_proto=58,icmpv6_type=135,icmpv6_code=0 actions=NORMAL',
      'cookie=0x1010000000000, table=IPv6, priority=200,dl_type=0x86dd,ipv6_dst=ff00::/8 actions=NORMAL',
    ]));
    // No advertisement of another pod's address is allowed from pod a's port.
    expect(t.filter((l) => l.includes('in_port=10,') && l.includes('nd_target=fd00:10:10::b'))).toEqual([]);
  });

  it('conntrack: IPv6 is tracked and committed in the IPv6 zone, invalid IPv6 dropped', () => {
    const zone = `zone=${CT_ZONE_V6}`;
    expect(inTable(all, 'ConntrackZone')).toContain(`cookie=0x1010000000000, table=ConntrackZone, priority=200,dl_type=0x86dd actions=ct(table=ConntrackState,${zone},nat)`);
    expect(inTable(all, 'ConntrackState')).toContain('cookie=0x1010000000000, table=ConntrackState, priority=200,dl_type=0x86dd,ct_state=+inv+trk actions=drop');
    expect(inTable(all, 'ConntrackCommit')).toContain(
      `cookie=0x1010000000000, table=ConntrackCommit, priority=200,dl_type=0x86dd,ct_state=+new+trk,ct_mark=0x0/0x20 actions=ct(commit,table=Output,${zone},exec(move:NXM_NX_REG0[0..3]->NXM_NX_CT_MARK[0..3]))`,
    );
    // Every ct() of an IPv6 flow uses an IPv6 zone (the Service SNAT flows the IPv6 SNAT zone).
    for (const l of v6(all).filter((x) => x.includes('ct('))) expect(l).toMatch(new RegExp(`zone=(${CT_ZONE_V6}|${SNAT_CT_ZONE_V6})[,)]`));
  });

  it('L3 forwarding: local pods, the gateway, the local IPv6 pod CIDR, and hop limit decrement', () => {
    const l3 = v6(inTable(all, 'L3Forwarding'));
    expect(l3).toEqual(expect.arrayContaining([
      'cookie=0x1010000000000, table=L3Forwarding, priority=210,dl_type=0x86dd,ipv6_dst=fd00:10:10::1 actions=set_field:02:00:00:00:00:01->eth_dst,set_field:0x20/0xf0->reg0,goto_table:L3DecTTL',
      'cookie=0x1010000000000, table=L3Forwarding, priority=200,dl_type=0x86dd,ipv6_dst=fd00:10:10::/64,reg0=0x0/0x200 actions=goto_table:L2ForwardingCalc',
      'cookie=0x1010000000000, table=L3Forwarding, priority=200,dl_type=0x86dd,ipv6_dst=fd00:10:10::c,reg0=0x200/0x200 actions=set_field:02:00:00:00:00:01->eth_src,set_field:02:00:00:00:00:0c->eth_dst,goto_table:L3DecTTL',
    ]));
    expect(v6(inTable(all, 'L3DecTTL'))).toContain('cookie=0x1010000000000, table=L3DecTTL, priority=200,dl_type=0x86dd actions=dec_ttl,goto_table:SNATMark');
  });

  it("L3 forwarding: a peer's IPv6 pod CIDR through the IPv4 tunnel to its node IP, or through the gateway when the host routes", () => {
    const tunnel = 'cookie=0x1010000000000, table=L3Forwarding, priority=200,dl_type=0x86dd,ipv6_dst=fd00:10:10:1::/64 actions=set_field:02:00:00:00:00:01->eth_src,set_field:aa:bb:cc:dd:ee:ff->eth_dst,set_field:192.168.77.101->tun_dst,set_field:0x10/0xf0->reg0,goto_table:L3DecTTL';
    expect(all).toContain(tunnel);
    expect(lines(dualStackState({ trafficMode: 'noEncap' }))).toContain(
      'cookie=0x1010000000000, table=L3Forwarding, priority=200,dl_type=0x86dd,ipv6_dst=fd00:10:10:1::/64 actions=set_field:02:00:00:00:00:01->eth_dst,set_field:0x20/0xf0->reg0,goto_table:L3DecTTL',
    );
    const ipsec = lines({ ...dualStackState(), remoteNodes: [{ ...PEER, ipsecTunnelOfport: 300 }] });
    expect(ipsec).toContain('cookie=0x1010000000000, table=L2ForwardingCalc, priority=210,dl_dst=aa:bb:cc:dd:ee:ff,dl_type=0x86dd,ipv6_dst=fd00:10:10:1::/64 actions=set_field:0x12c->reg1,set_field:0x200000/0x600000->reg0,goto_table:IngressSecurityClassifier');
    // A peer without an IPv6 pod CIDR has only its IPv4 route.
    const { podCIDRv6: _p, ...peer4 } = PEER;
    expect(v6(lines({ ...dualStackState(), remoteNodes: [peer4] })).filter((l) => l.includes('tun_dst'))).toEqual([]);
  });

  it("hybrid decides per family: a peer's IPv6 pod CIDR is routed when its nodeIPv6 is in the IPv6 transport subnet, tunnelled otherwise", () => {
    const peerV6 = (l: string[]): string[] => inTable(l, 'L3Forwarding').filter((x) => x.includes('ipv6_dst=fd00:10:10:1::/64'));
    const peerV4 = (l: string[]): string[] => inTable(l, 'L3Forwarding').filter((x) => x.includes('nw_dst=10.10.1.0/24'));
    const routed6 = 'cookie=0x1010000000000, table=L3Forwarding, priority=200,dl_type=0x86dd,ipv6_dst=fd00:10:10:1::/64 actions=set_field:02:00:00:00:00:01->eth_dst,set_field:0x20/0xf0->reg0,goto_table:L3DecTTL';
    const tunnelled6 = 'cookie=0x1010000000000, table=L3Forwarding, priority=200,dl_type=0x86dd,ipv6_dst=fd00:10:10:1::/64 actions=set_field:02:00:00:00:00:01->eth_src,set_field:aa:bb:cc:dd:ee:ff->eth_dst,set_field:192.168.77.101->tun_dst,set_field:0x10/0xf0->reg0,goto_table:L3DecTTL';
    const hybrid = (peer: typeof PEER & { nodeIPv6?: string }): string[] => lines({ ...dualStackState({ trafficMode: 'hybrid', nodeSubnet: '192.168.77.0/24', nodeSubnetV6: 'fd00:77::/64' }), remoteNodes: [peer] });
    expect(peerV6(hybrid({ ...PEER, nodeIPv6: 'fd00:77::65' }))).toEqual([routed6]);
    expect(peerV6(hybrid({ ...PEER, nodeIPv6: 'fd00:78::65' }))).toEqual([tunnelled6]);
    // No IPv6 node address known: no IPv6 next hop for the host, so the tunnel.
    expect(peerV6(hybrid(PEER))).toEqual([tunnelled6]);
    // IPv4 in the other IPv4 subnet is tunnelled while IPv6 in the same IPv6 subnet is routed.
    const split = hybrid({ ...PEER, nodeIP: '192.168.78.5', nodeIPv6: 'fd00:77::65' });
    expect(peerV6(split)).toEqual([routed6]);
    expect(peerV4(split).every((l) => l.includes('->tun_dst'))).toBe(true);
    expect(peerV4(split)).toHaveLength(1);
    // The peer's IPv6 node address changes no IPv4 flow.
    expect(inTable(hybrid({ ...PEER, nodeIPv6: 'fd00:77::65' }), 'L3Forwarding').filter((l) => !l.includes('0x86dd'))).toEqual(inTable(hybrid(PEER), 'L3Forwarding').filter((l) => !l.includes('0x86dd')));
  });

  it('policies: IPv6 members and ipBlocks (with except) match ipv6_src/ipv6_dst, services and allow flows get IPv6 twins', () => {
    const ing = inTable(all, 'IngressRule');
    expect(ing).toEqual(expect.arrayContaining([
      'cookie=0x1020000000000, table=IngressRule, priority=200,dl_type=0x800,nw_src=10.10.0.10 actions=conjunction(1,1/3)',
      'cookie=0x1020000000000, table=IngressRule, priority=200,dl_type=0x86dd,ipv6_src=fd00:10:10::a actions=conjunction(1,1/3)',
      'cookie=0x1020000000000, table=IngressRule, priority=200,dl_type=0x800,nw_proto=6,tcp_dst=8080 actions=conjunction(1,3/3)',
      'cookie=0x1020000000000, table=IngressRule, priority=200,dl_type=0x86dd,nw_proto=6,tcp_dst=8080 actions=conjunction(1,3/3)',
      `cookie=0x1020000000000, table=IngressRule, priority=190,dl_type=0x86dd,conj_id=1 actions=set_field:0x1->reg6,ct(commit,table=IngressMetric,zone=${CT_ZONE_V6},exec(set_field:0x1/0xffffffff->ct_label))`,
    ]));
    const eg = inTable(all, 'AntreaPolicyEgressRule').filter((l) => l.includes('conjunction(2,'));
    // fd00:99::/32 except fd00:99:1::/48: 16 blocks, fd00:99:1::/48 not among them.
    expect(eg.filter((l) => l.includes('ipv6_dst='))).toHaveLength(16);
    expect(eg.some((l) => l.includes('ipv6_dst=fd00:99:1::/48'))).toBe(false);
    expect(eg).toContain('cookie=0x1020000000000, table=AntreaPolicyEgressRule, priority=44980,dl_type=0x86dd,ipv6_src=fd00:10:10::c actions=conjunction(2,1/2)');
  });

  it('policies: an isolated pod has an IPv6 default drop; ICMP rules match ICMPv6 for IPv6', () => {
    const s2: NodeState = {
      ...s,
      policies: [{
        uid: 'k', name: 'k', namespace: 'ns', generation: 1, appliedToGroups: ['ta'], policyTypes: ['Egress'], sourceRef: { type: 'K8sNetworkPolicy', namespace: 'ns', name: 'k', uid: 'k' },
        rules: [{ direction: 'Out', from: { addressGroups: [], ipBlocks: [] }, to: { addressGroups: [], ipBlocks: [{ cidr: '::/0', except: [] }] }, services: [{ protocol: 'ICMP', icmpType: 128 }], priority: 0, enableLogging: false }],
      }],
      appliedToGroups: [{ name: 'ta', groupMembers: [{ ips: A.ips }] }],
    };
    const ls = lines(s2);
    expect(inTable(ls, 'EgressDefaultRule')).toEqual(expect.arrayContaining([
      'cookie=0x1020000000000, table=EgressDefaultRule, priority=200,dl_type=0x800,nw_src=10.10.0.10 actions=drop',
      'cookie=0x1020000000000, table=EgressDefaultRule, priority=200,dl_type=0x86dd,ipv6_src=fd00:10:10::a actions=drop',
    ]));
    expect(inTable(ls, 'EgressRule')).toEqual(expect.arrayContaining([
      'cookie=0x1020000000000, table=EgressRule, priority=200,dl_type=0x86dd actions=conjunction(1,2/3)',
      'cookie=0x1020000000000, table=EgressRule, priority=200,dl_type=0x86dd,nw_proto=58,icmpv6_type=128 actions=conjunction(1,3/3)',
      'cookie=0x1020000000000, table=EgressRule, priority=200,dl_type=0x800,nw_proto=1,icmp_type=128 actions=conjunction(1,3/3)',
    ]));
  });

  it('FQDN: DNS responses over IPv6 are intercepted too, and learned IPv6 addresses (AAAA) match ipv6_dst', () => {
    const fqdnState: NodeState = {
      ...s,
      fqdn: { conjId: 0xfffffff0, podOfports: [A.ofport], addresses: { 'svc.example.test': ['10.20.0.5', 'fd00:20::5'] } },
      policies: [{
        uid: 'f', name: 'f', namespace: '', generation: 1, appliedToGroups: ['ta'], priority: 1, tierPriority: 250, sourceRef: { type: 'AntreaClusterNetworkPolicy', namespace: '', name: 'f', uid: 'f' },
        rules: [{ direction: 'Out', from: { addressGroups: [], ipBlocks: [] }, to: { addressGroups: [], ipBlocks: [], fqdns: ['svc.example.test'] }, services: [], action: 'Allow', priority: 0, enableLogging: false }],
      }],
      appliedToGroups: [{ name: 'ta', groupMembers: [{ ips: A.ips }] }],
    };
    const ls = lines(fqdnState);
    expect(inTable(ls, 'AntreaPolicyIngressRule')).toEqual(expect.arrayContaining([
      'cookie=0x1020000000000, table=AntreaPolicyIngressRule, priority=64991,dl_type=0x800,nw_proto=17,udp_src=53 actions=conjunction(4294967280,1/2)',
      'cookie=0x1020000000000, table=AntreaPolicyIngressRule, priority=64991,dl_type=0x86dd,nw_proto=17,udp_src=53 actions=conjunction(4294967280,1/2)',
      'cookie=0x1020000000000, table=AntreaPolicyIngressRule, priority=64991,dl_type=0x86dd,nw_proto=6,tcp_src=53 actions=conjunction(4294967280,1/2)',
    ]));
    const eg = inTable(ls, 'AntreaPolicyEgressRule').filter((l) => l.includes('_dst='));
    expect(eg.some((l) => l.includes('nw_dst=10.20.0.5'))).toBe(true);
    expect(eg.some((l) => l.includes('ipv6_dst=fd00:20::5'))).toBe(true);
    // The same state on an IPv4-only node: no IPv6 intercept, the AAAA address ignored.
    expect(v6(lines(v4Only(fqdnState)))).toEqual([]);
  });

  it('an IPv4-only node ignores IPv6 addresses in the groups it receives (no IPv6 flow at all)', () => {
    const s4 = v4Only(s);
    expect(v6(lines({ ...s4, addressGroups: [{ name: 'ga', groupMembers: [{ ips: A.ips }] }] }))).toEqual([]);
  });

  it('the incremental pipeline equals the full computation through IPv6 changes', () => {
    const np = new NodePipeline({ features: nodeFeatures(s) });
    const steps: NodeState[] = [
      v4Only(s), s,
      { ...s, pods: s.pods.map((p) => (p.name === 'b' ? { ...p, ips: ['10.10.0.11', 'fd00:10:10::bb'] } : p)) },
      { ...s, pods: s.pods.filter((p) => p.name !== 'c'), addressGroups: [{ name: 'ga', groupMembers: [{ ips: ['fd00:10:10::a'] }] }] },
      s, v4Only(s),
    ];
    for (const st of steps) {
      np.update(st);
      expect(dumpFlows({ pipeline: np.pipeline!, flows: np.flows() }).sort()).toEqual(lines(st).sort());
    }
  });

  it('pod connectivity, remote nodes and NetworkPolicy keep the feature contract on dual-stack states', () => {
    const features = nodeFeatures(s);
    const states = [s, { ...s, pods: [A, { ...C, ips: ['fd00:10:10::cc'] }] }, v4Only(s)];
    for (const feature of [podConnectivity({ proxy: true }), remoteNodes(), networkPolicy({ antreaPolicy: true, proxy: true })]) {
      const list = features.map((f) => (f.name === feature.name ? feature : f));
      expect(checkFeatureContract({ feature, features: list, states }).states).toBe(3);
    }
  });
});

describe('bad IPv6 input', () => {
  const s = dualStackState();
  const err = (st: NodeState): PipelineError => {
    try {
      computeNodeFlows(st);
    } catch (e) {
      return e as PipelineError;
    }
    throw new Error('no error');
  };

  it.each([
    ['podCIDRv6 without gateway.ipv6', 'config.gateway.ipv6', (st: NodeState): NodeState => ({ ...st, config: { ...st.config, gateway: { ofport: 2, ip: '10.10.0.1', mac: GW.mac } } })],
    ['gateway.ipv6 without podCIDRv6', 'config.podCIDRv6', (st: NodeState): NodeState => {
      const { podCIDRv6: _c, ...config } = st.config;
      return { ...st, config };
    }],
    ['an IPv6 pod CIDR that is not one', 'config.podCIDRv6', (st: NodeState): NodeState => ({ ...st, config: { ...st.config, podCIDRv6: '10.20.0.0/16' } })],
    ["a peer's IPv6 pod CIDR that is not one", 'remoteNodes[n2].podCIDRv6', (st: NodeState): NodeState => ({ ...st, remoteNodes: [{ ...PEER, podCIDRv6: 'fd00::zz/64' }] })],
    ['an IPv6 pod address on a node without IPv6', 'pods[ns/c].ips[0]', (st: NodeState): NodeState => ({ ...v4Only(st), pods: [...v4Only(st).pods, C as LocalPod] })],
  ] as const)('%s: INVALID_INPUT at %s', (_n, path, edit) => {
    const e = err(edit(s));
    expect(e).toBeInstanceOf(PipelineError);
    expect(e.code).toBe('INVALID_INPUT');
    expect(e.path).toBe(path);
  });
});

describe('Traceflow on a dual-stack node', () => {
  const s = dualStackState();
  const nf = computeNodeFlows(s);
  const ctx = { pipeline: nf.pipeline, config: s.config, controllerId: 62373, flows: nf.flows };
  const tf = dumpFlows({ pipeline: nf.pipeline, flows: traceFlows(nodeFeatures(s), ctx, 7) });

  it('reports IPv6 packets tagged in their traffic class where IPv4 ones are reported', () => {
    const tagged6 = tf.filter((l) => l.includes('dl_type=0x86dd') && l.includes('ip_dscp=7'));
    expect(tagged6).toEqual(expect.arrayContaining([
      expect.stringContaining('table=SpoofGuard, priority=1,'),
      expect.stringContaining('table=ConntrackState, priority=202,'),
      expect.stringMatching(/table=Output, priority=214,.*ipv6_dst=fd00:10:10::1/),
      expect.stringMatching(/table=IngressDefaultRule, priority=202,.*reg1=0xb/),
      expect.stringMatching(/table=IngressMetric, priority=202,/),
    ]));
    // No trace flow mixes an IPv4 tag match with IPv6 fields.
    expect(tf.filter((l) => l.includes('dl_type=0x800') && l.includes('ipv6_'))).toEqual([]);
  });

  it('tags live IPv6 traffic in its traffic class', () => {
    const f = liveTagFlow(ctx, 7, 10, { ethType: 0x86dd, ipv6Dst: 'fd00:10:10::b' });
    expect(f.match).toMatchObject({ ethType: 0x86dd, ipDscp: 0, inPort: 10, ipv6Dst: 'fd00:10:10::b' });
  });
});

test('B and D keep their IPv4 flows on the dual-stack node', () => {
  const all = lines(dualStackState());
  for (const pod of [B, D]) expect(all.some((l) => l.includes(`nw_src=${pod.ips[0]}`))).toBe(true);
});

test('aggregateV6: IPv6 addresses and CIDRs into the fewest CIDRs, a /128 as a plain address', () => {
  expect(aggregateV6(['fd00::1', 'fd00::0', 'fd00:0:0:0::3', 'fd00:1::/64', 'fd00:1::8'])).toEqual(['fd00::/127', 'fd00::3', 'fd00:1::/64']);
});
