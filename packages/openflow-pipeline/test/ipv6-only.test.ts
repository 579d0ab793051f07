/**
 * An IPv6-only node (issue #36): no IPv4 pod CIDR and no gateway IPv4 address. Its flows are the
 * dual-stack node's less every flow that names an IPv4 address of the node or a peer; the IPv6 ones
 * are the same.
 */
import { decodeActions, encodeActions, normalizeFlow, parseFlow, renderFlow } from '@switchyard/openflow/codec';
import { PipelineError, canonical, computeNodeFlows, dumpFlows, egress, podNodeFeatures, type NodeState } from '../src/index';
import { C, PEER, dualStackState } from './dual-stack-state';

const lines = (s: NodeState): string[] => dumpFlows(computeNodeFlows(s));

/** The dual-stack state with every IPv4 input taken away (pods of IPv6 only; peers without an IPv4 pod CIDR). */
function v6Only(s: NodeState): NodeState {
  const { podCIDR: _c, ...config } = s.config;
  const { ip: _g, ...gateway } = config.gateway;
  const strip = (ips: readonly string[]) => ips.filter((ip) => ip.includes(':'));
  return {
    ...s,
    config: { ...config, gateway },
    pods: s.pods.filter((p) => strip(p.ips).length).map((p) => ({ ...p, ips: strip(p.ips) })),
    remoteNodes: s.remoteNodes.map(({ podCIDR: _p, gatewayIP: _gw, ...n }) => n),
    addressGroups: s.addressGroups.map((g) => ({ ...g, groupMembers: g.groupMembers.map((m) => ({ ...m, ips: strip(m.ips) })) })),
    appliedToGroups: s.appliedToGroups.map((g) => ({ ...g, groupMembers: g.groupMembers.map((m) => ({ ...m, ips: strip(m.ips) })) })),
  };
}

/** An IPv4 address of the node, its pods or the peer, as a flow would print it. */
const IPV4_OF_CLUSTER = /10\.10\.\d+\.\d+/;

describe('an IPv6-only node (no podCIDR, no gateway.ip)', () => {
  const dual = dualStackState();
  const only6 = v6Only(dual);
  const all = lines(only6);

  it('names no IPv4 address of the node, its pods or its peer', () => {
    expect(all.filter((l) => IPV4_OF_CLUSTER.test(l))).toEqual([]);
  });

  it('keeps every IPv6 flow of the dual-stack node', () => {
    const v6 = (ls: string[]) => ls.filter((l) => l.includes('dl_type=0x86dd') && !IPV4_OF_CLUSTER.test(l));
    const mine = new Set(all);
    // The dual-stack node's IPv6 flows for the IPv6-only pod C, the peer's IPv6 pod CIDR and the gateway's IPv6 address.
    expect(v6(lines({ ...dual, pods: [C] })).filter((l) => !mine.has(l) && !l.includes('ns/a') && !l.includes('ns/b'))).toEqual([]);
    expect(all).toEqual(expect.arrayContaining([
      expect.stringContaining(`ipv6_dst=${PEER.podCIDRv6}`),
      expect.stringContaining('ipv6_src=fd00:10:10::1'),
    ]));
  });

  it('has the Service feature\'s IPv6 flows and its family-free ones once', () => {
    const unsnat = all.filter((l) => l.includes('table=UnSNAT') && !l.includes('priority=0 '));
    expect(unsnat.every((l) => l.includes('dl_type=0x86dd'))).toBe(true);
    expect(unsnat.some((l) => l.includes('ipv6_dst=fd00:10:10::1'))).toBe(true);
    expect(all.filter((l) => l.includes('table=SessionAffinity') && l.includes('priority=0'))).toHaveLength(1);
  });
});

it("noEncap on an IPv6-only node: the peer's IPv6 pod CIDR goes to the gateway (the host routes it to the peer's IPv6 node address), no tunnel", () => {
  const s = v6Only(dualStackState({ trafficMode: 'noEncap' }));
  const peer = lines({ ...s, remoteNodes: [{ name: PEER.name, podCIDRv6: PEER.podCIDRv6, nodeIP: PEER.nodeIP, nodeIPv6: 'fd00:77::65' }] }).filter((l) => l.includes('fd00:10:10:1::'));
  expect(peer).toEqual([
    'cookie=0x1010000000000, table=L3Forwarding, priority=200,dl_type=0x86dd,ipv6_dst=fd00:10:10:1::/64 actions=set_field:02:00:00:00:00:01->eth_dst,set_field:0x20/0xf0->reg0,goto_table:L3DecTTL',
  ]);
});

it('a node with neither a gateway IPv4 address nor IPv6 is refused naming config.gateway.ip', () => {
  const s = dualStackState();
  const { podCIDR: _c, podCIDRv6: _c6, ...config } = s.config;
  const { ip: _g, ipv6: _g6, ...gateway } = config.gateway;
  expect(() => computeNodeFlows({ ...s, config: { ...config, gateway }, pods: [], remoteNodes: [] })).toThrow(PipelineError);
  expect(() => computeNodeFlows({ ...s, config: { ...config, gateway }, pods: [], remoteNodes: [] })).toThrow(expect.objectContaining({ code: 'INVALID_INPUT', path: 'config.gateway.ip' }));
});

/**
 * An IPv6 underlay (issue #36): an IPv6-only node whose Node has no IPv4 address. Its transport
 * address (`nodeIP`) is IPv6 and so is each peer's: the tunnel destination is `tun_ipv6_dst`
 * (NXM_NX_TUN_IPV6_DST), and OVS sends the Geneve packet over IPv6.
 */
describe('an IPv6-only node on an IPv6 underlay (IPv6 nodeIP, peers at their IPv6 InternalIP)', () => {
  const NODE6 = 'fd00:77::64';
  const PEER6 = 'fd00:77::65';
  const underlay6 = (over: Partial<NodeState['config']> = {}, peerIP = PEER6): NodeState => {
    const s = v6Only(dualStackState({ nodeIP: NODE6, nodeIPv6: NODE6, ...over }));
    return { ...s, remoteNodes: [{ name: PEER.name, podCIDRv6: PEER.podCIDRv6, nodeIP: peerIP, nodeIPv6: PEER6 }] };
  };
  /** An IPv4 address as a flow would print it: the cluster's, the underlay's, or any tun_dst. */
  const ANY_IPV4 = /(?<![\d:])\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}(?![\d])/;

  it('encap: the peer\'s IPv6 pod CIDR goes into the tunnel with tun_ipv6_dst set to the peer\'s IPv6 node IP, and no flow names an IPv4 address or tun_dst', () => {
    const all = lines(underlay6());
    expect(all.filter((l) => l.includes('fd00:10:10:1::'))).toEqual([
      'cookie=0x1010000000000, table=L3Forwarding, priority=200,dl_type=0x86dd,ipv6_dst=fd00:10:10:1::/64 actions=set_field:02:00:00:00:00:01->eth_src,set_field:aa:bb:cc:dd:ee:ff->eth_dst,set_field:fd00:77::65->tun_ipv6_dst,set_field:0x10/0xf0->reg0,goto_table:L3DecTTL',
    ]);
    expect(all.filter((l) => /->tun_dst\b/.test(l))).toEqual([]);
    // Only the fixed link-local and virtual addresses aside, nothing IPv4 (the virtual IPv4 Service addresses are not on an IPv6-only node either).
    expect(all.filter((l) => ANY_IPV4.test(l))).toEqual([]);
  });

  it('the tunnel flow survives the codec: NXM_NX_TUN_IPV6_DST encodes and parses back to the same flow', () => {
    const nf = computeNodeFlows(underlay6());
    const tunnel = nf.flows.filter((f) => f.actions.some((a) => a.type === 'setField' && a.field === 'tunIpv6Dst'));
    expect(tunnel).toHaveLength(1);
    for (const f of tunnel) expect(canonical(normalizeFlow(parseFlow(renderFlow(f))))).toBe(canonical(f));
    expect(tunnel[0]!.actions).toContainEqual({ type: 'setField', field: 'tunIpv6Dst', value: PEER6 });
    // On the wire: an OXM set_field of NXM_NX_TUN_IPV6_DST (class 0x0001, field 110: header 0x0001dc10), decoded back the same.
    const setTun = tunnel[0]!.actions.filter((a) => a.type === 'setField' && a.field === 'tunIpv6Dst');
    const wire = encodeActions(setTun);
    expect(Buffer.from(wire).toString('hex')).toContain('0001dc10fd000077000000000000000000000065');
    expect(decodeActions(wire)).toEqual(setTun);
  });

  it('an IPv6 node IP in another spelling is written in RFC 5952 form; one that is no address is refused naming the peer', () => {
    expect(lines(underlay6({}, 'FD00:77:0:0::65')).filter((l) => l.includes('tun_ipv6_dst'))).toEqual([expect.stringContaining('set_field:fd00:77::65->tun_ipv6_dst')]);
    expect(() => computeNodeFlows(underlay6({}, 'fd00:77::zz'))).toThrow(expect.objectContaining({ code: 'INVALID_INPUT', path: `remoteNodes[${PEER.name}].nodeIP` }));
  });

  it('hybrid: a peer in the IPv6 transport subnet is routed through the gateway, one outside it tunnelled over IPv6', () => {
    const inside = lines(underlay6({ trafficMode: 'hybrid', nodeSubnetV6: 'fd00:77::/64' })).filter((l) => l.includes('fd00:10:10:1::'));
    expect(inside).toEqual(['cookie=0x1010000000000, table=L3Forwarding, priority=200,dl_type=0x86dd,ipv6_dst=fd00:10:10:1::/64 actions=set_field:02:00:00:00:00:01->eth_dst,set_field:0x20/0xf0->reg0,goto_table:L3DecTTL']);
    const s = underlay6({ trafficMode: 'hybrid', nodeSubnetV6: 'fd00:77::/64' });
    const far = lines({ ...s, remoteNodes: [{ name: PEER.name, podCIDRv6: PEER.podCIDRv6, nodeIP: 'fd00:78::65', nodeIPv6: 'fd00:78::65' }] }).filter((l) => l.includes('fd00:10:10:1::'));
    expect(far).toEqual([expect.stringContaining('set_field:fd00:78::65->tun_ipv6_dst')]);
  });

  it('Egress: members are tunnelled to the owner\'s IPv6 node IP with tun_ipv6_dst', () => {
    const s: NodeState = { ...underlay6(), policies: [], addressGroups: [], appliedToGroups: [], egress: { exceptCIDRs: [`${NODE6}/128`, `${PEER6}/128`], egresses: [{ name: 'eg', ip: 'fd00:77::d9', local: false, ownerIP: PEER6, localPods: ['fd00:10:10::c'], remotePods: [] }] } };
    const all = dumpFlows(computeNodeFlows(s, { features: [...podNodeFeatures({ enableProxy: true }), egress()] }), { cookie: false });
    expect(all.filter((l) => l.startsWith('table=EgressMark,') && l.includes('ipv6_src=fd00:10:10::c'))).toEqual([
      'table=EgressMark, priority=200,dl_type=0x86dd,ipv6_src=fd00:10:10::c actions=set_field:02:00:00:00:00:01->eth_src,set_field:aa:bb:cc:dd:ee:ff->eth_dst,set_field:fd00:77::65->tun_ipv6_dst,set_field:0x10/0xf0->reg0,goto_table:L3DecTTL',
    ]);
  });

  it('a peer still reached over IPv4 (an IPv6-only node keeping an IPv4 node IP) keeps tun_dst, byte for byte as before', () => {
    const s = v6Only(dualStackState());
    expect(lines(s).filter((l) => l.includes('fd00:10:10:1::'))).toEqual([
      `cookie=0x1010000000000, table=L3Forwarding, priority=200,dl_type=0x86dd,ipv6_dst=fd00:10:10:1::/64 actions=set_field:02:00:00:00:00:01->eth_src,set_field:aa:bb:cc:dd:ee:ff->eth_dst,set_field:${PEER.nodeIP}->tun_dst,set_field:0x10/0xf0->reg0,goto_table:L3DecTTL`,
    ]);
  });
});
