/**
 * Every module's output installs on a real userspace switch, and ofproto/trace gives the expected
 * verdict for allowed and denied packets.
 */
import { Testbed, type OvsInstance } from '@switchyard/testbed';
import { computeNodeFlows, type NodeFlows, type NodeState } from '../src/index';
import { install, trace } from './helpers';

let tb: Testbed;
let ovs: OvsInstance;
const BR = 'br-int';
const GW = { ofport: 2, ip: '10.10.0.1', mac: '02:00:00:00:00:01' };
const A = { name: 'a', namespace: 'ns', ofport: 10, ips: ['10.10.0.10'], mac: '02:00:00:00:00:0a', namedPorts: [{ name: 'http', port: 8080, protocol: 'TCP' as const }] };
const B = { name: 'b', namespace: 'ns', ofport: 11, ips: ['10.10.0.11'], mac: '02:00:00:00:00:0b', namedPorts: [{ name: 'http', port: 8080, protocol: 'TCP' as const }] };
const C = { name: 'c', namespace: 'ns', ofport: 12, ips: ['10.10.0.12'], mac: '02:00:00:00:00:0c' };

function state(over: Partial<NodeState['config']> = {}): NodeState {
  return {
    config: { round: 1, trafficMode: 'encap', gateway: GW, tunnelOfport: 1, podCIDR: '10.10.0.0/24', nodeIP: '192.168.77.100', nodeSubnet: '192.168.77.0/24', enableProxy: true, enableAntreaPolicy: true, ...over },
    pods: [A, B, C],
    remoteNodes: [
      { name: 'n2', podCIDR: '10.10.1.0/24', nodeIP: '192.168.77.101', gatewayIP: '10.10.1.1' },
      { name: 'n3', podCIDR: '10.10.2.0/24', nodeIP: '172.16.0.3', gatewayIP: '10.10.2.1' },
    ],
    addressGroups: [{ name: 'ga', groupMembers: [{ ips: A.ips }] }, { name: 'gc', groupMembers: [{ ips: C.ips }] }],
    appliedToGroups: [{ name: 'tb', groupMembers: [{ ips: B.ips }] }, { name: 'tc', groupMembers: [{ ips: C.ips }] }],
    policies: [
      // K8s NP on B: only A may reach TCP "http" (named port -> 8080) and UDP 5000-5007.
      { uid: 'k8s', name: 'k8s', namespace: 'ns', generation: 1, appliedToGroups: ['tb'], sourceRef: { type: 'K8sNetworkPolicy', namespace: 'ns', name: 'k8s', uid: 'k8s' },
        rules: [{ direction: 'In', from: { addressGroups: ['ga'], ipBlocks: [] }, to: { addressGroups: [], ipBlocks: [] }, services: [{ protocol: 'TCP', port: 'http' }, { protocol: 'UDP', port: 5000, endPort: 5007 }], priority: 0, enableLogging: false }] },
      // ACNP (security tier) on C: drop TCP 9000 from A, reject TCP 9090, pass the rest from A to the K8s layer.
      { uid: 'acnp', name: 'acnp', namespace: '', generation: 1, appliedToGroups: ['tc'], priority: 1, tierPriority: 100, sourceRef: { type: 'AntreaClusterNetworkPolicy', namespace: '', name: 'acnp', uid: 'acnp' },
        rules: [
          { direction: 'In', from: { addressGroups: ['ga'], ipBlocks: [] }, to: { addressGroups: [], ipBlocks: [] }, services: [{ protocol: 'TCP', port: 9000 }], action: 'Drop', priority: 0, enableLogging: false },
          { direction: 'In', from: { addressGroups: ['ga'], ipBlocks: [] }, to: { addressGroups: [], ipBlocks: [] }, services: [{ protocol: 'TCP', port: 9090 }], action: 'Reject', priority: 1, enableLogging: false },
          { direction: 'Out', from: { addressGroups: [], ipBlocks: [] }, to: { addressGroups: [], ipBlocks: [{ cidr: '10.99.0.0/16', except: ['10.99.1.0/24'] }] }, services: [], action: 'Drop', priority: 2, enableLogging: false },
        ] },
    ],
    services: [{ groupId: 100, protocol: 'TCP', clusterIP: '10.96.0.10', port: 80, endpoints: [{ ip: B.ips[0]!, port: 8080 }] }],
  };
}

beforeAll(async () => {
  tb = await Testbed.create();
  ovs = await tb.startOvs();
  await ovs.addBridge(BR, { failSecure: true });
  await ovs.vsctl('add-port', BR, 'tun0', '--', 'set', 'interface', 'tun0', 'type=geneve', 'options:remote_ip=flow', 'options:key=flow', 'ofport_request=1');
  await ovs.vsctl('add-port', BR, 'gw0', '--', 'set', 'interface', 'gw0', 'type=internal', 'ofport_request=2');
  for (const p of [A, B, C]) await ovs.vsctl('add-port', BR, `p${p.ofport}`, '--', 'set', 'interface', `p${p.ofport}`, 'type=internal', `ofport_request=${p.ofport}`);
});
afterAll(async () => {
  await tb?.cleanup();
});

const tcp = (src: { ofport: number; mac: string; ips: string[] }, dstMac: string, dstIp: string, port: number): string =>
  `in_port=${src.ofport},tcp,dl_src=${src.mac},dl_dst=${dstMac},nw_src=${src.ips[0]},nw_dst=${dstIp},nw_ttl=64,tp_src=40000,tp_dst=${port}`;
// ofproto/trace parses its flow with the meta-flow names, where tp_src/tp_dst are the TCP fields
// (prerequisite nw_proto=6): a UDP flow must say udp_src/udp_dst or trace fails with
// "prerequisites not met for setting tp_dst".
const udp = (src: { ofport: number; mac: string; ips: string[] }, dstMac: string, dstIp: string, port: number): string =>
  `in_port=${src.ofport},udp,dl_src=${src.mac},dl_dst=${dstMac},nw_src=${src.ips[0]},nw_dst=${dstIp},nw_ttl=64,udp_src=40000,udp_dst=${port}`;
const NEW = ['trk,new', 'trk,new', 'trk,new', 'trk,new'];
const EST = ['trk,est', 'trk,est', 'trk,est', 'trk,est'];

describe('encap node with policies and a Service', () => {
  let nf: NodeFlows;
  beforeAll(async () => {
    nf = computeNodeFlows(state());
    await install(ovs, BR, nf);
  });

  it('installs every flow', async () => {
    const dump = await ovs.ofctl('-O', 'OpenFlow15', 'dump-flows', ovs.mgmtSocket(BR), '--no-stats');
    expect(dump.trim().split('\n').filter((l) => l.includes('priority')).length).toBe(nf.flows.length);
  });

  const cases: [string, () => [string, string[]], RegExp][] = [
    ['K8s NP: A -> B tcp/8080 (named port) allowed', () => [tcp(A, B.mac, B.ips[0]!, 8080), NEW], /^11$/],
    ['K8s NP: A -> B tcp/8081 default-dropped', () => [tcp(A, B.mac, B.ips[0]!, 8081), NEW], /^drop$/],
    ['K8s NP: C -> B tcp/8080 default-dropped', () => [tcp(C, B.mac, B.ips[0]!, 8080), NEW], /^drop$/],
    ['established C -> B reply passes the -new+est bypass', () => [tcp(C, B.mac, B.ips[0]!, 8081), EST], /^11$/],
    ['ACNP Drop: A -> C tcp/9000 dropped', () => [tcp(A, C.mac, C.ips[0]!, 9000), NEW], /^drop$/],
    ['ACNP Reject: A -> C tcp/9090 goes to the controller', () => [tcp(A, C.mac, C.ips[0]!, 9090), NEW], /userspace|controller/],
    ['no rule: A -> C tcp/80 allowed (C not isolated by K8s NP)', () => [tcp(A, C.mac, C.ips[0]!, 80), NEW], /^12$/],
    ['B -> C tcp/9000 allowed (Drop only from A)', () => [tcp(B, C.mac, C.ips[0]!, 9000), NEW], /^12$/],
    ['ACNP egress Drop: C -> 10.99.0.5 dropped', () => [tcp(C, GW.mac, '10.99.0.5', 80), NEW], /^drop$/],
    ['ipBlock except: C -> 10.99.1.5 not dropped (routed to gateway)', () => [tcp(C, GW.mac, '10.99.1.5', 80), NEW], /^2$/],
    ['egress to the internet goes to the gateway', () => [tcp(A, GW.mac, '8.8.8.8', 443), NEW], /^2$/],
    ['A -> gateway IP delivered to the gateway port', () => [tcp(A, GW.mac, GW.ip, 22), NEW], /^2$/],
    ['spoofed source IP from A dropped', () => [`in_port=10,tcp,dl_src=${A.mac},nw_src=10.10.0.99,nw_dst=${B.ips[0]},tp_dst=8080`, NEW], /^drop$/],
    ['spoofed source MAC from A dropped', () => [`in_port=10,tcp,dl_src=02:00:00:00:00:99,nw_src=${A.ips[0]},nw_dst=${B.ips[0]},tp_dst=8080`, NEW], /^drop$/],
    ['unknown in_port dropped by Classifier', () => [`in_port=99,tcp,nw_src=10.10.0.10,nw_dst=10.10.0.11`, NEW], /^drop$/],
    ['invalid conntrack state dropped', () => [tcp(A, B.mac, B.ips[0]!, 8080), ['trk,inv']], /^drop$/],
    ['remote pod on n2 via tunnel with tun_dst', () => [tcp(A, GW.mac, '10.10.1.5', 80), NEW], /tunnel:192\.168\.77\.101/],
    ['remote pod on n3 via tunnel to 172.16.0.3', () => [tcp(A, GW.mac, '10.10.2.5', 80), NEW], /tunnel:172\.16\.0\.3/],
    ['ARP from A with correct spa/sha answered normally', () => [`in_port=10,arp,dl_src=${A.mac},arp_spa=${A.ips[0]},arp_sha=${A.mac},arp_tpa=${B.ips[0]},arp_op=1`, []], /\d/],
    ['ARP spoof from A (wrong spa) dropped', () => [`in_port=10,arp,dl_src=${A.mac},arp_spa=10.10.0.77,arp_sha=${A.mac},arp_tpa=${B.ips[0]},arp_op=1`, []], /^drop$/],
    ['ARP for the remote gateway answered back on in_port', () => [`in_port=2,arp,dl_src=${GW.mac},arp_spa=${GW.ip},arp_sha=${GW.mac},arp_tpa=10.10.1.1,arp_op=1`, []], /^set\(eth\(.*\)\),set\(arp\(.*\)\),2$|2$/],
    ['non-IP non-ARP dropped at PipelineRootClassifier', () => [`in_port=10,dl_type=0x88cc`, []], /^drop$/],
    ['from tunnel to local pod B via RewriteMAC (not isolated ports)', () => [`in_port=1,tcp,dl_dst=aa:bb:cc:dd:ee:ff,nw_src=10.10.1.5,nw_dst=${C.ips[0]},nw_ttl=64,tp_dst=80`, NEW], /^12$|set\(eth/],
    ['from tunnel to B tcp/8080 from non-A dropped by K8s NP', () => [`in_port=1,tcp,dl_dst=aa:bb:cc:dd:ee:ff,nw_src=10.10.1.5,nw_dst=${B.ips[0]},nw_ttl=64,tp_dst=8080`, NEW], /^drop$/],
    ['K8s NP port range: A -> B udp/5000 (range start) allowed', () => [udp(A, B.mac, B.ips[0]!, 5000), NEW], /^11$/],
    ['K8s NP port range: A -> B udp/5003 (inside 5000-5007, a masked match) allowed', () => [udp(A, B.mac, B.ips[0]!, 5003), NEW], /^11$/],
    ['K8s NP port range: A -> B udp/5007 (range end) allowed', () => [udp(A, B.mac, B.ips[0]!, 5007), NEW], /^11$/],
    ['K8s NP port range: A -> B udp/5008 (just past the end) dropped', () => [udp(A, B.mac, B.ips[0]!, 5008), NEW], /^drop$/],
    ['K8s NP port range: A -> B udp/4999 (just before the start) dropped', () => [udp(A, B.mac, B.ips[0]!, 4999), NEW], /^drop$/],
    ['K8s NP port range: C -> B udp/5003 (not from A) dropped', () => [udp(C, B.mac, B.ips[0]!, 5003), NEW], /^drop$/],
    ['ClusterIP 10.96.0.10:80 from A DNATs to B:8080 (allowed by named port)', () => [tcp(A, GW.mac, '10.96.0.10', 80), NEW], /hash|ct\(|11/],
  ];
  it.each(cases)('%s', async (_name, make, expected) => {
    const [f, ct] = make();
    expect(await trace(ovs, BR, f, ct)).toMatch(expected);
  });
});

describe('traffic modes', () => {
  const peerFlow = (dst: string): string => tcp(C, GW.mac, dst, 80);
  it.each([
    ['noEncap: n2 pod CIDR routed to the gateway', { trafficMode: 'noEncap' as const }, '10.10.1.5', /^2$/],
    ['noEncap: n3 pod CIDR routed to the gateway', { trafficMode: 'noEncap' as const }, '10.10.2.5', /^2$/],
    ['hybrid: same-subnet n2 routed to the gateway', { trafficMode: 'hybrid' as const }, '10.10.1.5', /^2$/],
    ['hybrid: cross-subnet n3 tunnelled', { trafficMode: 'hybrid' as const }, '10.10.2.5', /tunnel:172\.16\.0\.3/],
    ['wireGuard: n3 routed to the gateway for host encryption', { wireGuard: true }, '10.10.2.5', /^2$/],
    ['networkPolicyOnly: remote CIDR to the gateway', { trafficMode: 'networkPolicyOnly' as const }, '10.10.1.5', /^2$/],
    ['networkPolicyOnly: local pod delivered by IP', { trafficMode: 'networkPolicyOnly' as const }, A.ips[0]!, /^10$/],
  ] as const)('%s', async (_n, over, dst, expected) => {
    const s = state(over);
    s.policies = [];
    await install(ovs, BR, computeNodeFlows(s));
    expect(await trace(ovs, BR, peerFlow(dst), NEW)).toMatch(expected);
  });

  it('networkPolicyOnly answers any ARP request with the virtual MAC', async () => {
    const s = state({ trafficMode: 'networkPolicyOnly' });
    s.policies = [];
    await install(ovs, BR, computeNodeFlows(s));
    const out = await trace(ovs, BR, `in_port=10,arp,dl_src=${A.mac},arp_spa=${A.ips[0]},arp_sha=${A.mac},arp_tpa=10.10.0.200,arp_op=1`);
    expect(out).toMatch(/aa:bb:cc:dd:ee:ff/);
    expect(out).toMatch(/,10$/);
  });
});

describe('ExternalNode and multicluster', () => {
  it('ExternalNode forwards non-IP between uplink and pair port and IP through policies', async () => {
    const s = state();
    s.externalNode = { interfaces: [{ uplinkOfport: 10, pairOfport: 11, ips: ['10.10.0.11'] }], bypass: [{ direction: 'ingress', protocol: 'TCP', cidr: '10.0.0.0/8', port: 22 }] };
    s.policies = [];
    s.services = [];
    await install(ovs, BR, computeNodeFlows(s));
    expect(await trace(ovs, BR, 'in_port=10,dl_type=0x88cc', [])).toBe('11');
    expect(await trace(ovs, BR, 'in_port=11,dl_type=0x88cc', [])).toBe('10');
  });

  it('multicluster: other clusters\' CIDRs go through the tunnel to the gateway, with the label identity in tun_id', async () => {
    const s = state();
    s.policies = [];
    s.multicluster = { isGateway: false, localGatewayIP: '192.168.77.150', remoteClusters: [{ cidrs: ['10.200.0.0/16'], gatewayIP: '203.0.113.1' }], labelIdentities: [{ ip: A.ips[0]!, id: 42 }] };
    await install(ovs, BR, computeNodeFlows(s));
    const out = await trace(ovs, BR, tcp(A, GW.mac, '10.200.1.1', 80), NEW);
    expect(out).toMatch(/tunnel:192\.168\.77\.150/);
    expect(await ovs.appctl('ofproto/trace', BR, tcp(A, GW.mac, '10.200.1.1', 80))).toMatch(/tun_id=0x2a|tun_id->.*0x2a|set_field:0x2a->tun_id/);
  });
});

describe('K8s policyTypes', () => {
  it('policyTypes [Ingress] with no rules denies all ingress to C, C still reaches out; [Egress] denies C\'s egress', async () => {
    const s = state();
    s.policies = [{ uid: 'deny-in', name: 'deny-in', namespace: 'ns', generation: 1, appliedToGroups: ['tc'], policyTypes: ['Ingress'], rules: [], sourceRef: { type: 'K8sNetworkPolicy', namespace: 'ns', name: 'deny-in', uid: 'deny-in' } }];
    await install(ovs, BR, computeNodeFlows(s));
    expect(await trace(ovs, BR, tcp(A, C.mac, C.ips[0]!, 80), NEW)).toBe('drop');
    expect(await trace(ovs, BR, tcp(C, A.mac, A.ips[0]!, 80), NEW)).toBe('10');
    s.policies = [{ ...s.policies[0]!, uid: 'deny-out', policyTypes: ['Egress'] }];
    await install(ovs, BR, computeNodeFlows(s));
    expect(await trace(ovs, BR, tcp(C, A.mac, A.ips[0]!, 80), NEW)).toBe('drop');
    expect(await trace(ovs, BR, tcp(A, C.mac, C.ips[0]!, 80), NEW)).toBe('12');
  });
});
