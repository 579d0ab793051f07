/**
 * A dual-stack node's whole flow set installs on a real userspace switch, and ofproto/trace gives
 * the expected verdict for IPv6 packets: pod to pod on the node, to a peer's IPv6 pod CIDR through
 * the IPv4 tunnel (hop limit decremented), Neighbor Discovery from a pod with a spoofed target,
 * source or link-layer address, an IPv6 ipBlock Drop rule and its except, and a Traceflow-tagged
 * IPv6 packet reported where it is dropped, an IPv6 ClusterIP reaching its select group. IPv4
 * through the same node keeps its verdicts.
 */
import { Testbed, type OvsInstance } from '@switchyard/testbed';
import { computeNodeFlows, nodeFeatures, traceFlows, type NodeFlows } from '../src/index';
import { A, B, C, D, GW, dualStackState } from '../test/dual-stack-state';
import { install, trace } from './helpers';

let tb: Testbed;
let ovs: OvsInstance;
const BR = 'br-int';
/** With an IPv6 Service whose endpoint is B (TCP 8080, behind the K8s NP) and one whose endpoint is C. */
const s = {
  ...dualStackState(),
  services: [
    { groupId: 0x100000, service: 'ns/b', protocol: 'TCP' as const, clusterIP: 'fd00:10:96::b', port: 80, endpoints: [{ ip: B.ips[1]!, port: 8080, local: true }] },
    { groupId: 0x100001, service: 'ns/c', protocol: 'TCP' as const, clusterIP: 'fd00:10:96::c', port: 80, endpoints: [{ ip: C.ips[0]!, port: 80, local: true }] },
  ],
};
const nf6 = (): NodeFlows => computeNodeFlows(s);

beforeAll(async () => {
  tb = await Testbed.create();
  ovs = await tb.startOvs();
  await ovs.addBridge(BR, { failSecure: true });
  await ovs.vsctl('add-port', BR, 'tun0', '--', 'set', 'interface', 'tun0', 'type=geneve', 'options:remote_ip=flow', 'options:key=flow', 'ofport_request=1');
  await ovs.vsctl('add-port', BR, 'gw0', '--', 'set', 'interface', 'gw0', 'type=internal', 'ofport_request=2');
  for (const p of [A, B, C, D]) await ovs.vsctl('add-port', BR, `p${p.ofport}`, '--', 'set', 'interface', `p${p.ofport}`, 'type=internal', `ofport_request=${p.ofport}`);
});
afterAll(async () => {
  await tb?.cleanup();
});

type Pod = { ofport: number; mac: string; ips: string[] };
const v6Of = (p: Pod): string => p.ips.find((ip) => ip.includes(':'))!;
const v4Of = (p: Pod): string => p.ips.find((ip) => !ip.includes(':'))!;
const tcp6 = (src: Pod, dstMac: string, dstIp: string, port: number): string =>
  `in_port=${src.ofport},tcp6,dl_src=${src.mac},dl_dst=${dstMac},ipv6_src=${v6Of(src)},ipv6_dst=${dstIp},nw_ttl=64,tp_src=40000,tp_dst=${port}`;
const tcp4 = (src: Pod, dstMac: string, dstIp: string, port: number): string =>
  `in_port=${src.ofport},tcp,dl_src=${src.mac},dl_dst=${dstMac},nw_src=${v4Of(src)},nw_dst=${dstIp},nw_ttl=64,tp_src=40000,tp_dst=${port}`;
/** A Neighbor Solicitation from a pod's port (to the target's solicited-node group). */
const ns = (src: Pod, ipv6Src: string, target: string, sll: string): string =>
  `in_port=${src.ofport},icmp6,dl_src=${src.mac},dl_dst=33:33:ff:00:00:01,ipv6_src=${ipv6Src},ipv6_dst=ff02::1:ff00:1,nw_ttl=255,icmpv6_type=135,icmpv6_code=0,nd_target=${target},nd_sll=${sll}`;
/** A Neighbor Advertisement from a pod's port to the gateway. */
const na = (src: Pod, target: string, tll: string): string =>
  `in_port=${src.ofport},icmp6,dl_src=${src.mac},dl_dst=${GW.mac},ipv6_src=${v6Of(src)},ipv6_dst=${GW.ipv6},nw_ttl=255,icmpv6_type=136,icmpv6_code=0,nd_target=${target},nd_tll=${tll}`;
const NEW = ['trk,new', 'trk,new', 'trk,new', 'trk,new'];
const NONE = '00:00:00:00:00:00';
/** NORMAL floods or forwards: some output port, never a drop. */
const SWITCHED = /^(?!drop$).*\d/;

describe('a dual-stack encap node with IPv6 policies', () => {
  let nf: NodeFlows;
  beforeAll(async () => {
    nf = computeNodeFlows(s);
    await install(ovs, BR, nf);
  });

  it('installs every flow', async () => {
    const dump = await ovs.ofctl('-O', 'OpenFlow15', 'dump-flows', ovs.mgmtSocket(BR), '--no-stats');
    expect(dump.trim().split('\n').filter((l) => l.includes('priority')).length).toBe(nf.flows.length);
    // The switch holds the ND matches as the pipeline wrote them.
    expect(dump).toMatch(/icmp_type=136,icmp_code=0,nd_target=fd00:10:10::a,nd_tll=02:00:00:00:00:0a actions=NORMAL/);
  });

  const cases: [string, () => [string, string[]], RegExp][] = [
    ['v6 pod to pod: A -> B tcp/8080 allowed by the K8s NP (A is in its peer group)', () => [tcp6(A, B.mac, v6Of(B), 8080), NEW], /^11$/],
    ['v6 pod to pod: C -> B tcp/8080 default-dropped (C is not a peer)', () => [tcp6(C, B.mac, v6Of(B), 8080), NEW], /^drop$/],
    ['v6 pod to pod: A -> C tcp/80 delivered (C not isolated for ingress)', () => [tcp6(A, C.mac, v6Of(C), 80), NEW], /^12$/],
    ['v6 to the gateway IPv6 address goes to the gateway port', () => [tcp6(A, GW.mac, GW.ipv6, 22), NEW], /^2$/],
    ["v6 to the peer's IPv6 pod CIDR: tunnel to its IPv4 node IP", () => [tcp6(A, GW.mac, 'fd00:10:10:1::5', 80), NEW], /tunnel:192\.168\.77\.101/],
    ['v6 to the internet goes to the gateway', () => [tcp6(A, GW.mac, '2001:db8::1', 443), NEW], /^2$/],
    ["v6 from the tunnel (a peer's pod) to C delivered with the MAC rewrite", () => [`in_port=1,tcp6,dl_src=02:00:00:00:01:01,dl_dst=aa:bb:cc:dd:ee:ff,ipv6_src=fd00:10:10:1::5,ipv6_dst=${v6Of(C)},nw_ttl=63,tp_src=40000,tp_dst=80`, NEW], /^12$/],
    ['v6 from the tunnel to B tcp/8080 dropped by the K8s NP (not from A)', () => [`in_port=1,tcp6,dl_dst=aa:bb:cc:dd:ee:ff,ipv6_src=fd00:10:10:1::5,ipv6_dst=${v6Of(B)},nw_ttl=63,tp_dst=8080`, NEW], /^drop$/],
    ['v6 from the gateway address to B (a kubelet probe) bypasses B\'s ingress isolation', () => [`in_port=2,tcp6,dl_src=${GW.mac},dl_dst=${B.mac},ipv6_src=${GW.ipv6},ipv6_dst=${v6Of(B)},nw_ttl=64,tp_src=40000,tp_dst=9999`, NEW], /^11$/],
    ['v6 spoofed source address from A dropped', () => [`in_port=10,tcp6,dl_src=${A.mac},ipv6_src=fd00:10:10::99,ipv6_dst=${v6Of(B)},tp_dst=8080`, NEW], /^drop$/],
    ['v6 spoofed source MAC from A dropped', () => [`in_port=10,tcp6,dl_src=02:00:00:00:00:99,ipv6_src=${v6Of(A)},ipv6_dst=${v6Of(B)},tp_dst=8080`, NEW], /^drop$/],
    ['v6 from the IPv4-only pod D dropped by SpoofGuard', () => [`in_port=13,tcp6,dl_src=${D.mac},ipv6_src=fd00:10:10::d,ipv6_dst=${v6Of(B)},tp_dst=80`, NEW], /^drop$/],
    ['ipBlock Drop: C -> fd00:99::5 dropped (ACNP egress)', () => [tcp6(C, GW.mac, 'fd00:99::5', 80), NEW], /^drop$/],
    ['ipBlock except: C -> fd00:99:1::5 not dropped (routed to the gateway)', () => [tcp6(C, GW.mac, 'fd00:99:1::5', 80), NEW], /^2$/],
    ['ipBlock is C\'s only: A -> fd00:99::5 goes to the gateway', () => [tcp6(A, GW.mac, 'fd00:99::5', 80), NEW], /^2$/],
    ['ND: NS from A with its own source and link-layer address is switched', () => [ns(A, v6Of(A), v6Of(B), A.mac), []], SWITCHED],
    ['ND: NS from A with a spoofed source link-layer address dropped', () => [ns(A, v6Of(A), v6Of(B), B.mac), []], /^drop$/],
    ["ND: DAD NS from A for its own address is switched", () => [ns(A, '::', v6Of(A), NONE), []], SWITCHED],
    ["ND: DAD NS from A with a spoofed target (B's address) dropped", () => [ns(A, '::', v6Of(B), NONE), []], /^drop$/],
    ["ND: NS from A with B's source address dropped", () => [ns(A, v6Of(B), v6Of(C), A.mac), []], /^drop$/],
    ['ND: NA from A for its own address and MAC is switched', () => [na(A, v6Of(A), A.mac), []], SWITCHED],
    ["ND: NA from A claiming B's address dropped", () => [na(A, v6Of(B), A.mac), []], /^drop$/],
    ["ND: NA from A with B's MAC as target link-layer address dropped", () => [na(A, v6Of(A), B.mac), []], /^drop$/],
    ['ND: router advertisement from a pod dropped', () => [`in_port=10,icmp6,dl_src=${A.mac},dl_dst=33:33:00:00:00:01,ipv6_src=fe80::a,ipv6_dst=ff02::1,nw_ttl=255,icmpv6_type=134,icmpv6_code=0`, []], /^drop$/],
    ['ND: NS from the gateway is switched', () => [`in_port=2,icmp6,dl_src=${GW.mac},dl_dst=33:33:ff:00:00:0a,ipv6_src=${GW.ipv6},ipv6_dst=ff02::1:ff00:a,nw_ttl=255,icmpv6_type=135,icmpv6_code=0,nd_target=${v6Of(A)},nd_sll=${GW.mac}`, []], SWITCHED],
    // The select group picks its bucket by dp_hash, a recirculation ofproto/trace stops at (as for
    // IPv4 in trace.test.ts); service-ipv6-live.test.ts sends real traffic through these flows.
    ['v6 ClusterIP: A -> [fd00:10:96::b]:80 reaches its select group', () => [tcp6(A, GW.mac, 'fd00:10:96::b', 80), NEW], /^hash\(/],
    ['v6 ClusterIP: a port the Service does not have is not load-balanced (routed to the gateway)', () => [tcp6(A, GW.mac, 'fd00:10:96::b', 81), NEW], /^2$/],
    ['v4 on the same node: A -> B tcp/8080 allowed', () => [tcp4(A, B.mac, v4Of(B), 8080), NEW], /^11$/],
    ['v4 on the same node: D -> B tcp/8080 default-dropped', () => [tcp4(D, B.mac, v4Of(B), 8080), NEW], /^drop$/],
    ['v4 on the same node: remote IPv4 pod CIDR through the tunnel', () => [tcp4(A, GW.mac, '10.10.1.5', 80), NEW], /tunnel:192\.168\.77\.101/],
  ];
  it.each(cases)('%s', async (_name, make, expected) => {
    const [f, ct] = make();
    expect(await trace(ovs, BR, f, ct)).toMatch(expected);
  });

  it("drops a pod's spoofed ND where the pipeline checks it: DAD in SpoofGuard, advertisements in the IPv6 table", async () => {
    const last = async (f: string): Promise<string> => {
      const out = await ovs.appctl('ofproto/trace', BR, f);
      return out.split('\n').filter((l) => /^\s+\d+\. /.test(l)).pop() ?? '';
    };
    expect(await last(ns(A, '::', v6Of(B), NONE))).toMatch(new RegExp(`^\\s+${nf6().pipeline.id('SpoofGuard')}\\. priority 0`));
    expect(await last(na(A, v6Of(B), A.mac))).toMatch(/icmp_type=136,icmp_code=0, priority 205/);
    expect(await last(ns(A, v6Of(A), v6Of(B), B.mac))).toMatch(/icmp_type=135,icmp_code=0, priority 205/);
  });

  it("decrements the hop limit of IPv6 routed to a peer's pod CIDR, and tracks it in the IPv6 zone", async () => {
    const out = await ovs.appctl('ofproto/trace', BR, tcp6(A, GW.mac, 'fd00:10:10:1::5', 80), ...NEW.flatMap((c) => ['--ct-next', c]));
    expect(out).toMatch(/dec_ttl/);
    expect(out).toMatch(/hlimit=63/);
    expect(out).toMatch(/ct\(table=\d+,zone=65510,nat\)/);
  });
});

describe('Traceflow on the dual-stack node', () => {
  it('reports a tagged IPv6 packet where the IPv6 ipBlock rule drops it, and at the tunnel output', async () => {
    const nf = computeNodeFlows(s);
    const tf = traceFlows(nodeFeatures(s), { pipeline: nf.pipeline, config: s.config, controllerId: 62373, flows: nf.flows }, 7);
    await install(ovs, BR, { ...nf, flows: [...nf.flows, ...tf] });
    // nw_tos=28: tag 7 in the DSCP bits of the traffic class.
    const dropped = await trace(ovs, BR, `${tcp6(C, GW.mac, 'fd00:99::5', 80)},nw_tos=28`, NEW);
    expect(dropped).toMatch(/userspace|controller/);
    const out = await ovs.appctl('ofproto/trace', BR, `${tcp6(A, GW.mac, 'fd00:10:10:1::5', 80)},nw_tos=28`, ...NEW.flatMap((c) => ['--ct-next', c]));
    expect(out).toMatch(/controller/);
    // Untagged, the same packet is only dropped.
    expect(await trace(ovs, BR, tcp6(C, GW.mac, 'fd00:99::5', 80), NEW)).toBe('drop');
  });
});
