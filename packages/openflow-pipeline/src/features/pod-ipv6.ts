/**
 * Pod connectivity's IPv6 twins on a dual-stack node (NodeConfig.podCIDRv6): classification,
 * SpoofGuard with Neighbor Discovery checks in the IPv6 table (where ARPSpoofGuard checks ARP for
 * IPv4), conntrack in the IPv6 zones, L3 forwarding to the gateway and local pods, hop limit.
 */
import type { Flow, Match } from '@switchyard/openflow/codec';
import {
  CT_ZONE_V6, FromGatewayCTMark, FromGatewayRegMark, FromLocalRegMark, FromPodRegMark, NotConnSNATCTMark, NotRewriteMACRegMark,
  NotServiceCTMark, PRIORITY, PktSourceField, RewriteMACRegMark, ServiceCTMark, ToGatewayRegMark, loadMarks, matchCtMarks, matchMarks,
} from '../fields';
import type { Pipeline } from '../tables';
import type { LocalPod, NodeConfig } from '../state';
import { PipelineError } from '../errors';
import { ICMPV6, IPV6, flow, goto, hasIpv6, ipv6Addr, ipv6Net, isIpv6, setEthDst, setEthSrc } from './common';

/** ICMPv6 Neighbor Solicitation and Advertisement (RFC 4861). */
export const ND_NS = 135;
export const ND_NA = 136;
/** Router Advertisement and Redirect: only routers send them, and a pod is none (RFC 4861). */
export const ND_RA = 134;
export const ND_REDIRECT = 137;
/** Link-local unicast (fe80::/10) and multicast (ff00::/8), as Antrea's ipv6LinkLocalAddr / ipv6MulticastAddr. */
const LINK_LOCAL = { value: 'fe80::', mask: 'ffc0::' };
const MULTICAST = { value: 'ff00::', mask: 'ff00::' };
/** The source of Duplicate Address Detection's solicitations. */
const UNSPECIFIED = '::';
/** An ND option that is absent reads as the zero MAC (ovs-fields(7), nd_sll / nd_tll). */
const NO_LLADDR = '00:00:00:00:00:00';
/**
 * Neighbor Discovery from a pod port that none of the pod's own flows (PRIORITY.high) allowed,
 * and any router advertisement or redirect from a pod: dropped above the table's NORMAL for ND
 * and multicast (PRIORITY.normal).
 */
export const ND_FROM_POD_DROP_PRIORITY = PRIORITY.normal + 5;

/** The pod's IPv6 addresses (canonical text); an error when the node has no IPv6. */
export function podIpv6s(cfg: NodeConfig, pod: LocalPod): string[] {
  const out: string[] = [];
  pod.ips.forEach((ip, i) => {
    if (!isIpv6(ip)) return;
    const path = `pods[${pod.namespace}/${pod.name}].ips[${i}]`;
    if (!hasIpv6(cfg)) throw new PipelineError('INVALID_INPUT', `IPv6 address ${ip} on a node without IPv6 (config.podCIDRv6)`, ip, path);
    out.push(ipv6Addr(ip, path));
  });
  return out;
}

/** Node-level IPv6 flows (none on an IPv4-only node). */
export function podConnectivityIpv6BaseFlows(p: Pipeline, cfg: NodeConfig, c: bigint, proxy: boolean): Flow[] {
  if (!hasIpv6(cfg)) return [];
  const gw = cfg.gateway;
  const gw6 = ipv6Addr(gw.ipv6!, 'config.gateway.ipv6');
  const ipv6Table = p.id('IPv6');
  const egressSecurity = p.stageId('egressSecurity');
  const nd = (type: number): Match => ({ ...ICMPV6, icmpv6Type: type, icmpv6Code: 0 });
  const normal = [{ type: 'output' as const, port: 'NORMAL' as const }];
  const toGateway = [setEthDst(gw.mac), ...loadMarks(ToGatewayRegMark), goto(p.id('L3DecTTL'))];
  const flows: Flow[] = [
    flow(p.id('PipelineRootClassifier'), PRIORITY.normal, IPV6, [goto(p.id('Classifier'))], c),
    flow(p.id('Classifier'), PRIORITY.high, { ...IPV6, inPort: gw.ofport, ipv6Src: gw6 }, [...loadMarks(FromGatewayRegMark, FromLocalRegMark), goto(p.id('SpoofGuard'))], c),
    flow(p.id('SpoofGuard'), PRIORITY.normal, { ...IPV6, inPort: gw.ofport }, [goto(ipv6Table)], c),
    // Neighbor Discovery and multicast (MLD, router solicitations) are switched, as in Antrea;
    // what a pod sends of ND passed its own flows above (podIpv6Flows) or is dropped here.
    flow(ipv6Table, PRIORITY.normal, nd(ND_NS), normal, c),
    flow(ipv6Table, PRIORITY.normal, nd(ND_NA), normal, c),
    flow(ipv6Table, PRIORITY.normal, { ...IPV6, ipv6Dst: MULTICAST }, normal, c),
    flow(ipv6Table, ND_FROM_POD_DROP_PRIORITY, { ...nd(ND_NS), ...matchMarks(FromPodRegMark) }, [], c),
    flow(ipv6Table, ND_FROM_POD_DROP_PRIORITY, { ...nd(ND_NA), ...matchMarks(FromPodRegMark) }, [], c),
    // A pod's router advertisement or redirect would reroute its neighbours: never switched.
    flow(ipv6Table, ND_FROM_POD_DROP_PRIORITY, { ...ICMPV6, icmpv6Type: ND_RA, ...matchMarks(FromPodRegMark) }, [], c),
    flow(ipv6Table, ND_FROM_POD_DROP_PRIORITY, { ...ICMPV6, icmpv6Type: ND_REDIRECT, ...matchMarks(FromPodRegMark) }, [], c),
    flow(p.id('ConntrackZone'), PRIORITY.normal, IPV6, [{ type: 'ct', table: p.id('ConntrackState'), zone: CT_ZONE_V6, nat: {} }], c),
    flow(p.id('ConntrackState'), PRIORITY.normal, { ctState: { inv: true, trk: true }, ...IPV6 }, [], c),
    flow(p.id('ConntrackState'), PRIORITY.low, { ctState: { new: false, trk: true }, ...matchCtMarks(NotServiceCTMark), ...IPV6 }, [goto(egressSecurity)], c),
    flow(p.id('L3Forwarding'), PRIORITY.high, { ...IPV6, ipv6Dst: gw6 }, toGateway, c),
    flow(p.id('L3Forwarding'), PRIORITY.high, { ctState: { rpl: true, trk: true }, ...matchCtMarks(FromGatewayCTMark), ...IPV6 }, toGateway, c),
    // dec_ttl decrements the IPv6 hop limit (and drops at zero, as for IPv4's TTL).
    flow(p.id('L3DecTTL'), PRIORITY.high, { ...IPV6, ...matchMarks(FromGatewayRegMark) }, [goto(p.nextId('L3DecTTL'))], c),
    flow(p.id('L3DecTTL'), PRIORITY.normal, IPV6, [{ type: 'decTtl' }, goto(p.nextId('L3DecTTL'))], c),
    flow(p.id('ConntrackCommit'), PRIORITY.normal, { ctState: { new: true, trk: true }, ...matchCtMarks(NotConnSNATCTMark), ...IPV6 }, [
      { type: 'ct', commit: true, table: p.id('Output'), zone: CT_ZONE_V6, exec: [{ type: 'copyField', src: PktSourceField.ref(), dst: { field: 'ctMark', start: 0, end: 3 } }] },
    ], c),
  ];
  if (proxy) {
    flows.push(flow(p.id('ConntrackState'), PRIORITY.low, { ctState: { new: false, trk: true }, ...matchCtMarks(ServiceCTMark), ...IPV6 }, [...loadMarks(RewriteMACRegMark), goto(egressSecurity)], c));
  }
  if (cfg.trafficMode !== 'networkPolicyOnly') {
    flows.push(flow(p.id('L3Forwarding'), PRIORITY.normal, { ...IPV6, ...matchMarks(NotRewriteMACRegMark), ipv6Dst: ipv6Net(cfg.podCIDRv6!, 'config.podCIDRv6') }, [goto(p.id('L2ForwardingCalc'))], c));
  }
  return flows;
}

/**
 * Flows of one local pod's IPv6 addresses. SpoofGuard: the pod's MAC with one of its addresses,
 * a link-local source, or `::` in a Duplicate Address Detection solicitation for its own address.
 * IPv6 table: its solicitations carry its MAC (or none) as source link-layer address; its
 * advertisements name one of its addresses (or a link-local one) as target, its MAC (or none) as
 * target link-layer address. Anything else of ND from it is dropped.
 */
export function podIpv6Flows(p: Pipeline, cfg: NodeConfig, pod: LocalPod, c: bigint): Flow[] {
  const ips = podIpv6s(cfg, pod);
  if (!ips.length) return [];
  const sg = p.id('SpoofGuard');
  const ipv6Table = p.id('IPv6');
  const normal = [{ type: 'output' as const, port: 'NORMAL' as const }];
  const from: Match = { ...IPV6, inPort: pod.ofport, ethSrc: pod.mac };
  const dad = (target: Match['ndTarget']): Match => ({ ...ICMPV6, inPort: pod.ofport, ethSrc: pod.mac, ipv6Src: UNSPECIFIED, icmpv6Type: ND_NS, icmpv6Code: 0, ndTarget: target! });
  const ns = (sll: string): Match => ({ ...ICMPV6, inPort: pod.ofport, icmpv6Type: ND_NS, icmpv6Code: 0, ndSll: sll });
  const na = (target: Match['ndTarget'], tll: string): Match => ({ ...ICMPV6, inPort: pod.ofport, icmpv6Type: ND_NA, icmpv6Code: 0, ndTarget: target!, ndTll: tll });
  const flows: Flow[] = [
    flow(sg, PRIORITY.normal, { ...from, ipv6Src: LINK_LOCAL }, [goto(ipv6Table)], c),
    flow(sg, PRIORITY.normal, dad(LINK_LOCAL), [goto(ipv6Table)], c),
    flow(ipv6Table, PRIORITY.high, ns(pod.mac), normal, c),
    flow(ipv6Table, PRIORITY.high, ns(NO_LLADDR), normal, c),
    flow(ipv6Table, PRIORITY.high, na(LINK_LOCAL, pod.mac), normal, c),
    flow(ipv6Table, PRIORITY.high, na(LINK_LOCAL, NO_LLADDR), normal, c),
  ];
  const offSubnet = pod.gatewayIP !== undefined && pod.gatewayIP !== cfg.gateway.ip;
  for (const ip of ips) {
    flows.push(
      flow(sg, PRIORITY.normal, { ...from, ipv6Src: ip }, [goto(ipv6Table)], c),
      flow(sg, PRIORITY.normal, dad(ip), [goto(ipv6Table)], c),
      flow(ipv6Table, PRIORITY.high, na(ip, pod.mac), normal, c),
      flow(ipv6Table, PRIORITY.high, na(ip, NO_LLADDR), normal, c),
      flow(p.id('L3Forwarding'), PRIORITY.normal, { ...IPV6, ...matchMarks(RewriteMACRegMark), ipv6Dst: ip }, [setEthSrc(cfg.gateway.mac), setEthDst(pod.mac), goto(p.id('L3DecTTL'))], c),
    );
    if (cfg.trafficMode === 'networkPolicyOnly') {
      flows.push(flow(p.id('L3Forwarding'), PRIORITY.normal, { ...IPV6, ipv6Dst: ip }, [setEthDst(pod.mac), goto(p.id('L3DecTTL'))], c));
    }
    if (offSubnet) {
      // An IPPool pod's packets carry the rewrite mark (pod.ts); pods of the pod CIDR reach its
      // IPv6 address through their gateway's MAC: routed inside OVS too.
      flows.push(flow(p.id('L3Forwarding'), PRIORITY.normal, { ...IPV6, ethDst: cfg.gateway.mac, ipv6Dst: ip }, [setEthSrc(cfg.gateway.mac), setEthDst(pod.mac), goto(p.id('L3DecTTL'))], c));
    }
  }
  return flows;
}

/** The IPv4 addresses of a pod (its IPv6 ones have their own flows). */
export const podIpv4s = (pod: LocalPod): string[] => (pod.ips.some(isIpv6) ? pod.ips.filter((ip) => !isIpv6(ip)) : pod.ips);
