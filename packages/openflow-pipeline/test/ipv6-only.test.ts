/**
 * An IPv6-only node (issue #36): no IPv4 pod CIDR and no gateway IPv4 address. Its flows are the
 * dual-stack node's less every flow that names an IPv4 address of the node or a peer; the IPv6 ones
 * are the same.
 */
import { PipelineError, computeNodeFlows, dumpFlows, type NodeState } from '../src/index';
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
