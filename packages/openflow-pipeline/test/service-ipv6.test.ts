/**
 * IPv6 and dual-stack Services (issue #36): a dual-stack Service is one Service port per family,
 * each with its own select group. The IPv6 one matches ipv6_dst, loads the endpoint into xxreg3,
 * DNATs in the IPv6 zone and learns ClientIP affinity over IPv6 addresses; the node's IPv6 Service
 * flows (un-SNAT, SNAT, hairpin) are Antrea's IPv6 twins; IPv4's flows stay as they were.
 */
import {
  CT_ZONE_V6, NodePipeline, PipelineError, SNAT_CT_ZONE_V6, VIRTUAL_NODEPORT_DNAT_IPV6, VIRTUAL_SERVICE_IPV6, computeNodeFlows, dumpFlows, formatGroup, nodeFeatures, service,
  type NodeState, type ServicePortSpec,
} from '../src/index';
import { checkFeatureContract } from '../src/testing';
import { A, B, C, GW, dualStackState } from './dual-stack-state';

const V4: ServicePortSpec = { groupId: 0x100000, service: 'ns/web', protocol: 'TCP', clusterIP: '10.96.0.10', port: 80, endpoints: [{ ip: '10.10.0.11', port: 8080, local: true }] };
const V6: ServicePortSpec = {
  groupId: 0x100001, service: 'ns/web', protocol: 'TCP', clusterIP: 'fd00:10:96::a', port: 80,
  endpoints: [{ ip: 'fd00:10:10::b', port: 8080, local: true }, { ip: 'fd00:10:10:1::5', port: 8080 }],
};
const withServices = (s: NodeState, services: ServicePortSpec[]): NodeState => ({ ...s, services });
const render = (s: NodeState): { flows: string[]; groups: string[] } => {
  const nf = computeNodeFlows(s);
  return { flows: dumpFlows(nf), groups: nf.groups.map((g) => formatGroup(g)) };
};
const inTable = (ls: string[], table: string): string[] => ls.filter((l) => l.includes(`, table=${table},`));
const v6 = (ls: string[]): string[] => ls.filter((l) => l.includes('dl_type=0x86dd'));

describe('IPv6 Service ports on a dual-stack node', () => {
  const { flows, groups } = render(withServices(dualStackState(), [V4, V6]));
  const endpointDNAT = computeNodeFlows(dualStackState()).pipeline.id('EndpointDNAT');

  it('the ClusterIP selects the IPv6 port\'s own group, which loads each IPv6 endpoint into xxreg3', () => {
    expect(inTable(flows, 'ServiceLB')).toContain(
      'cookie=0x1030000100001, table=ServiceLB, priority=200,dl_type=0x86dd,nw_proto=6,tcp_dst=80,ipv6_dst=fd00:10:96::a,reg4=0x10000/0x70000 actions=set_field:0x200/0x200->reg0,set_field:0x20000/0x70000->reg4,set_field:0x100001->reg7,group:1048577',
    );
    expect(groups).toContain(
      `group_id=1048577,type=select,bucket=bucket_id:0,weight:100,actions=set_field:0xfd00001000100000000000000000000b->xxreg3,set_field:0x1f90/0xffff->reg4,resubmit(,${endpointDNAT}),` +
        `bucket=bucket_id:1,weight:100,actions=set_field:0xfd000010001000010000000000000005->xxreg3,set_field:0x1f90/0xffff->reg4,resubmit(,${endpointDNAT})`,
    );
  });

  it('each IPv6 endpoint is DNATed in the IPv6 zone, matched by xxreg3 (as the four registers the switch reports) and its port', () => {
    const dnat = inTable(flows, 'EndpointDNAT').filter((l) => l.includes('dl_type=0x86dd'));
    expect(dnat).toEqual([
      `cookie=0x1030000100001, table=EndpointDNAT, priority=200,dl_type=0x86dd,nw_proto=6,reg4=0x21f90/0x7ffff,reg12=0xfd000010,reg13=0x100000,reg14=0x0,reg15=0xb actions=ct(commit,table=AntreaPolicyEgressRule,zone=${CT_ZONE_V6},nat(dst=[fd00:10:10::b]:8080),exec(set_field:0x10/0x10->ct_mark,move:NXM_NX_REG7[]->NXM_NX_CT_LABEL[96..127]))`,
      `cookie=0x1030000100001, table=EndpointDNAT, priority=200,dl_type=0x86dd,nw_proto=6,reg4=0x21f90/0x7ffff,reg12=0xfd000010,reg13=0x100001,reg14=0x0,reg15=0x5 actions=ct(commit,table=AntreaPolicyEgressRule,zone=${CT_ZONE_V6},nat(dst=[fd00:10:10:1::5]:8080),exec(set_field:0x10/0x10->ct_mark,move:NXM_NX_REG7[]->NXM_NX_CT_LABEL[96..127]))`,
    ]);
  });

  it('the node\'s IPv6 twins: un-SNAT of the gateway and virtual IPv6 addresses, SNAT in the IPv6 SNAT zone, the Services pass for IPv6', () => {
    expect(inTable(flows, 'UnSNAT')).toEqual(expect.arrayContaining([
      `cookie=0x1030000000000, table=UnSNAT, priority=200,dl_type=0x86dd,ipv6_dst=${GW.ipv6} actions=ct(table=ConntrackZone,zone=${SNAT_CT_ZONE_V6},nat)`,
      `cookie=0x1030000000000, table=UnSNAT, priority=200,dl_type=0x86dd,ipv6_dst=${VIRTUAL_SERVICE_IPV6} actions=ct(table=ConntrackZone,zone=${SNAT_CT_ZONE_V6},nat)`,
    ]));
    expect(inTable(flows, 'PreRoutingClassifier')).toContain('cookie=0x1030000000000, table=PreRoutingClassifier, priority=200,dl_type=0x86dd actions=resubmit(,NodePortMark),resubmit(,SessionAffinity),resubmit(,ServiceLB)');
    const snat = v6(inTable(flows, 'SNAT'));
    // Hairpin from a pod: SNAT to the gateway's IPv6 address; the established ones un-SNAT in 65511.
    expect(snat).toContain(`cookie=0x1030000000000, table=SNAT, priority=200,dl_type=0x86dd,ct_state=+new+trk,ct_mark=0x40/0x40,reg0=0x3/0xf actions=ct(commit,table=L2ForwardingCalc,zone=${SNAT_CT_ZONE_V6},nat(src=${GW.ipv6}),exec(set_field:0x10/0x10->ct_mark,set_field:0x20/0x20->ct_mark,set_field:0x40/0x40->ct_mark))`);
    expect(snat).toContain(`cookie=0x1030000000000, table=SNAT, priority=200,dl_type=0x86dd,ct_state=-new-rpl+trk,ct_mark=0x20/0x20 actions=ct(table=L2ForwardingCalc,zone=${SNAT_CT_ZONE_V6},nat)`);
    for (const l of snat) expect(l).toContain(`zone=${SNAT_CT_ZONE_V6}`);
  });

  it('each IPv6 address of a local pod gets the hairpin mark, committed in the IPv6 zone', () => {
    const marks = v6(inTable(flows, 'SNATMark')).filter((l) => l.includes('ipv6_src='));
    expect(marks.map((l) => /ipv6_src=([^,]+)/.exec(l)![1])).toEqual([A.ips[1], B.ips[1], C.ips[0]]);
    expect(marks[0]).toBe(
      `cookie=0x1030000000000, table=SNATMark, priority=190,dl_type=0x86dd,ipv6_src=${A.ips[1]},ipv6_dst=${A.ips[1]},ct_state=+new+trk actions=ct(commit,table=SNAT,zone=${CT_ZONE_V6},exec(set_field:0x20/0x20->ct_mark,set_field:0x40/0x40->ct_mark,move:NXM_NX_REG0[0..3]->NXM_NX_CT_MARK[0..3]))`,
    );
  });

  it('ClientIP affinity learns the IPv6 client and ClusterIP, and the xxreg3 endpoint', () => {
    const { flows: f } = render(withServices(dualStackState(), [{ ...V6, affinityTimeout: 300 }]));
    const learn = inTable(f, 'ServiceLB').find((l) => l.includes('learn('))!;
    expect(learn).toContain('learn(table=SessionAffinity,hard_timeout=300,priority=200,cookie=0x1030000100001,delete_learned,eth_type=0x86dd,nw_proto=6,NXM_OF_TCP_DST[]=NXM_OF_TCP_DST[],NXM_NX_IPV6_DST[]=NXM_NX_IPV6_DST[],NXM_NX_IPV6_SRC[]=NXM_NX_IPV6_SRC[],load:NXM_NX_REG4[0..15]->NXM_NX_REG4[0..15],load:NXM_NX_REG7[]->NXM_NX_REG7[],load:NXM_NX_XXREG3[]->NXM_NX_XXREG3[]');
  });

  it('an IPv6 port with no endpoint has the reject bucket, like IPv4\'s', () => {
    const { groups: g } = render(withServices(dualStackState(), [{ ...V6, endpoints: [] }]));
    expect(g).toEqual([`group_id=1048577,type=select,bucket=bucket_id:0,weight:100,actions=set_field:0x4000/0x4000->reg0,resubmit(,${endpointDNAT})`]);
  });

  it('IPv4\'s Service flows and group are the same with the IPv6 port beside them', () => {
    const alone = render(withServices(dualStackState(), [V4]));
    expect(flows.filter((l) => !l.includes('dl_type=0x86dd') && !l.includes('xxreg3'))).toEqual(alone.flows.filter((l) => !l.includes('dl_type=0x86dd')));
    expect(groups.filter((g) => g.startsWith('group_id=1048576,'))).toEqual(alone.groups);
  });

  it('adding and removing the IPv6 port incrementally gives what a full computation gives', () => {
    const features = nodeFeatures(dualStackState());
    const np = new NodePipeline({ features });
    np.update(withServices(dualStackState(), [V4]));
    np.update(withServices(dualStackState(), [V4, V6]));
    const both = computeNodeFlows(withServices(dualStackState(), [V4, V6]), { features });
    expect(new Set(np.flows().map((f) => JSON.stringify(f, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))))).toEqual(
      new Set(both.flows.map((f) => JSON.stringify(f, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)))),
    );
    expect(np.groups().map((g) => g.groupId).sort()).toEqual([0x100000, 0x100001]);
    np.update(withServices(dualStackState(), [V4]));
    expect(np.groups().map((g) => g.groupId)).toEqual([0x100000]);
    expect(np.flows().some((f) => f.match.reg12 !== undefined)).toBe(false);
  });
});

describe('IPv6 node ports on a dual-stack node with an IPv6 address (config.nodeIPv6)', () => {
  const NP6: ServicePortSpec = { ...V6, nodePort: 30080 };
  const NP4: ServicePortSpec = { ...V4, nodePort: 30080 };
  const node = (): NodeState => dualStackState({ nodeIPv6: 'fd00:77:0:0::1' });
  const { flows } = render(withServices(node(), [NP4, NP6]));

  it('NodePortMark marks the node\'s IPv6 address (canonical text) and the IPv6 NodePort DNAT address, as IPv4\'s does its two', () => {
    expect(v6(inTable(flows, 'NodePortMark'))).toEqual([
      'cookie=0x1030000000000, table=NodePortMark, priority=200,dl_type=0x86dd,ipv6_dst=fd00:77::1 actions=set_field:0x80000/0x80000->reg4',
      `cookie=0x1030000000000, table=NodePortMark, priority=200,dl_type=0x86dd,ipv6_dst=${VIRTUAL_NODEPORT_DNAT_IPV6} actions=set_field:0x80000/0x80000->reg4`,
    ]);
  });

  it('ServiceLB selects the IPv6 port\'s group on the node port with ToNodePortAddress, marking the traffic external', () => {
    expect(v6(inTable(flows, 'ServiceLB'))).toContain(
      'cookie=0x1030000100001, table=ServiceLB, priority=200,dl_type=0x86dd,nw_proto=6,tcp_dst=30080,reg4=0x90000/0xf0000 actions=set_field:0x200/0x200->reg0,set_field:0x20000/0x70000->reg4,set_field:0x200000/0x200000->reg4,set_field:0x100001->reg7,group:1048577',
    );
  });

  it('external traffic (Cluster policy) is committed in the IPv6 zone and SNATed in the IPv6 SNAT zone: the virtual IPv6 address to a local endpoint, the gateway\'s to a remote one', () => {
    expect(v6(inTable(flows, 'SNATMark'))).toContain(
      `cookie=0x1030000000000, table=SNATMark, priority=200,dl_type=0x86dd,ct_state=+new+trk,reg0=0x2/0xf,reg4=0x200000/0x200000 actions=ct(commit,table=SNAT,zone=${CT_ZONE_V6},exec(set_field:0x20/0x20->ct_mark,move:NXM_NX_REG0[0..3]->NXM_NX_CT_MARK[0..3]))`,
    );
    const snat = v6(inTable(flows, 'SNAT'));
    expect(snat).toEqual(expect.arrayContaining([
      `cookie=0x1030000000000, table=SNAT, priority=201,dl_type=0x86dd,ct_state=+new+trk,ct_mark=0x20/0x20,reg0=0x12/0xff actions=ct(commit,table=L2ForwardingCalc,zone=${SNAT_CT_ZONE_V6},nat(src=${GW.ipv6}),exec(set_field:0x10/0x10->ct_mark,set_field:0x20/0x20->ct_mark))`,
      `cookie=0x1030000000000, table=SNAT, priority=200,dl_type=0x86dd,ct_state=+new+trk,ct_mark=0x20/0x20,reg0=0x2/0xf actions=ct(commit,table=L2ForwardingCalc,zone=${SNAT_CT_ZONE_V6},nat(src=${VIRTUAL_SERVICE_IPV6}),exec(set_field:0x10/0x10->ct_mark,set_field:0x20/0x20->ct_mark))`,
    ]));
  });

  it('externalTrafficPolicy Local: from the gateway, the node port selects the local group without the external mark', () => {
    const { flows: f } = render(withServices(node(), [{ ...NP6, externalLocal: true, localGroupId: 0x100002 }]));
    expect(v6(inTable(f, 'ServiceLB'))).toContain(
      'cookie=0x1030000100001, table=ServiceLB, priority=201,dl_type=0x86dd,nw_proto=6,tcp_dst=30080,reg0=0x2/0xf,reg4=0x90000/0xf0000 actions=set_field:0x200/0x200->reg0,set_field:0x20000/0x70000->reg4,set_field:0x100002->reg7,group:1048578',
    );
  });

  it('IPv4\'s flows are the same with the node\'s IPv6 address and the IPv6 node port beside them', () => {
    const alone = render(withServices(dualStackState(), [NP4]));
    expect(flows.filter((l) => !l.includes('dl_type=0x86dd') && !l.includes('xxreg3'))).toEqual(alone.flows.filter((l) => !l.includes('dl_type=0x86dd')));
  });

  it('without config.nodeIPv6 only the DNAT address is marked (the host DNATs to it)', () => {
    const { flows: f } = render(withServices(dualStackState(), [NP6]));
    expect(v6(inTable(f, 'NodePortMark')).map((l) => /ipv6_dst=(\S+) /.exec(l)![1])).toEqual([VIRTUAL_NODEPORT_DNAT_IPV6]);
  });
});

describe('the service feature\'s contract with IPv6 ports', () => {
  it('holds over dual-stack states: both families, the IPv6 port changed and gone, affinity and a local group', () => {
    const base = dualStackState();
    const states = [
      withServices(base, [V4, V6]),
      withServices(base, [V4, { ...V6, endpoints: [V6.endpoints[1]!], affinityTimeout: 60, internalLocal: true, localGroupId: 0x100002 }]),
      withServices(base, [V4]),
      withServices({ ...base, pods: [A, C] }, [V6]),
    ];
    const features = nodeFeatures(base);
    const feature = service();
    const list = features.map((f) => (f.name === feature.name ? feature : f));
    expect(checkFeatureContract({ feature, features: list, states }).states).toBe(4);
  });
});

describe('bad IPv6 Service input', () => {
  const err = (s: NodeState): PipelineError => {
    try {
      computeNodeFlows(s);
    } catch (e) {
      if (e instanceof PipelineError) return e;
      throw e;
    }
    throw new Error('no error');
  };
  const v4Node = (): NodeState => {
    const s = dualStackState();
    const { podCIDRv6: _c, ...config } = s.config;
    const { ipv6: _g, ...gateway } = config.gateway;
    return { ...s, config: { ...config, gateway }, pods: [], remoteNodes: [], addressGroups: [], appliedToGroups: [], policies: [] };
  };

  it('an IPv6 Service port on a node without IPv6 names the port\'s clusterIP', () => {
    const e = err(withServices(v4Node(), [V6]));
    expect([e.code, e.path, e.message]).toEqual(['INVALID_INPUT', 'services[1048577].clusterIP', 'IPv6 Service fd00:10:96::a on a node without IPv6 (config.podCIDRv6) (at services[1048577].clusterIP)']);
  });

  it('config.nodeIPv6 that is not an IPv6 address, or without config.podCIDRv6, names config.nodeIPv6', () => {
    const bad = err(withServices(dualStackState({ nodeIPv6: '192.168.77.100' }), [V6]));
    expect([bad.code, bad.path, bad.value]).toEqual(['INVALID_INPUT', 'config.nodeIPv6', '192.168.77.100']);
    const alone = v4Node();
    const e = err(withServices({ ...alone, config: { ...alone.config, nodeIPv6: 'fd00:77::1' } }, [V4]));
    expect([e.code, e.path, e.message]).toEqual(['INVALID_INPUT', 'config.nodeIPv6', 'config.nodeIPv6 fd00:77::1 on a node without IPv6 (config.podCIDRv6) (at config.nodeIPv6)']);
  });

  it('an endpoint of the other family names the endpoint, in either direction', () => {
    const e6 = err(withServices(dualStackState(), [{ ...V6, endpoints: [{ ip: '10.10.0.11', port: 8080 }] }]));
    expect([e6.code, e6.path]).toEqual(['INVALID_INPUT', 'services[1048577].endpoints[0].ip']);
    expect(e6.message).toBe('10.10.0.11 is not of the family of clusterIP fd00:10:96::a (at services[1048577].endpoints[0].ip)');
    const e4 = err(withServices(dualStackState(), [{ ...V4, endpoints: [V4.endpoints[0]!, { ip: 'fd00:10:10::b', port: 8080 }] }]));
    expect([e4.code, e4.path]).toEqual(['INVALID_INPUT', 'services[1048576].endpoints[1].ip']);
  });
});
