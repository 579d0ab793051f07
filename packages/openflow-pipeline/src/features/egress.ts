/**
 * Egress (Antrea's Egress API, crd.antrea.io/v1beta1): traffic of selected pods to outside the
 * cluster leaves through the node owning the Egress's IP, SNATed to it.
 *
 * - L3Forwarding: a member pod's packet that no pod, node or Service flow routed (it is going out of
 *   the cluster) goes to EgressMark instead of straight to the gateway.
 * - EgressMark: on the node owning the IP, the members' packets (its own pods', and the other nodes'
 *   arriving through the tunnel) get the Egress's mark and go to the gateway; on any other node, its
 *   members' packets are tunnelled to the owner. Destinations of `exceptCIDRs` (the nodes' addresses)
 *   and non-members leave as before (the table's own miss flows repeat L3Forwarding's).
 * - SNATMark / SNAT: a new marked connection is committed in the pod zone with ConnSNATCTMark, then
 *   SNATed to the IP in the SNAT zone; later packets are translated there too.
 * - UnSNAT: replies to the IP (routed into the gateway by the host) are un-SNATed back to the pod,
 *   then routed to it, locally or through the tunnel.
 * - EgressQoS (with `trafficShaping`, Antrea's EgressTrafficShaping): the owner's marked packets
 *   pass through the table; an Egress with a bandwidth has its meter there (one per Egress, shared
 *   by all its members, local and tunnelled), whose drop band limits them before SNAT.
 *
 * An IPv6 egress IP (a dual-stack or IPv6-only node) has the same flows for the members' IPv6
 * addresses, in the IPv6 conntrack zones; other nodes reach its owner through the same tunnel as
 * their pod traffic (to its IPv4 node address, which IPv6-only nodes keep for the tunnel).
 *
 * Antrea SNATs in the host (pkt_mark + iptables); a userspace datapath hands no pkt_mark to the
 * host through the gateway's tap, so OVS SNATs here (docs/egress.md).
 */
import type { Flow, Match } from '@switchyard/openflow/codec';
import type { Feature } from '../feature';
import { CookieCategory, makeCookie } from '../cookie';
import {
  CT_ZONE, CT_ZONE_V6, ConnSNATCTMark, EgressMarkField, GLOBAL_VIRTUAL_MAC, NotRewriteMACRegMark, NotServiceCTMark, PRIORITY, PktSourceField, RewriteMACRegMark,
  SNAT_CT_ZONE, SNAT_CT_ZONE_V6, ToGatewayRegMark, ToTunnelRegMark, loadCtMark, loadField, loadMarks, matchCtMarks, matchField, matchMarks,
} from '../fields';
import { PipelineError } from '../errors';
import { defineKind, nodeObject } from '../objects';
import type { EgressRule, NodeConfig } from '../state';
import type { Pipeline, TableName } from '../tables';
import { IP, IPV6, flow, goto, hasIpv6, ipv4Net, ipv6Addr, ipv6Net, isIpv6, setEthDst, setEthSrc, setTunDst } from './common';

export type { EgressRule, EgressSpec } from '../state';

/**
 * The object key of an Egress rule: its name for an IPv4 IP, `<name>/IPv6` for an IPv6 one (a
 * dual-stack Egress has one rule per family).
 */
export const egressRuleKey = (r: Pick<EgressRule, 'name' | 'ip'>): string => (isIpv6(r.ip) ? `${r.name}/IPv6` : r.name);
/** Egresses by {@link egressRuleKey}, from `NodeState.egress`. */
export const egressKind = defineKind({ name: 'egress', enumerate: (s) => (s.egress?.egresses ?? []).map((r) => [egressRuleKey(r), r] as const) });
/** The destinations no Egress applies to (key `node`). */
export const egressExceptKind = defineKind({ name: 'egressExcept', enumerate: (s) => nodeObject(s.egress?.exceptCIDRs) });

const cookieOf = (cfg: NodeConfig): bigint => makeCookie(cfg.round, CookieCategory.Egress);
const NEW = { ctState: { new: true, trk: true } } as const;
const NOT_NEW = { ctState: { new: false, trk: true } } as const;
/** Above the Service feature's catch-all for routed packets (PRIORITY.low), below every pod and node route. */
const DIVERT = PRIORITY.low + 1;

/** The Egress feature's own settings. */
export interface EgressFeatureOptions {
  /**
   * EgressTrafficShaping: the owner's marked packets go through EgressQoS, where the meter of an
   * Egress with a bandwidth ({@link EgressRule.meter}) limits them. Default false, as Antrea's gate.
   */
  trafficShaping?: boolean;
}

/** Tables the Egress feature writes or jumps to. */
export function egressTables(opts: EgressFeatureOptions = {}): TableName[] {
  return ['UnSNAT', 'ConntrackZone', 'L3Forwarding', 'EgressMark', ...(opts.trafficShaping ? ['EgressQoS' as const] : []), 'L3DecTTL', 'SNATMark', 'SNAT', 'L2ForwardingCalc'];
}

/** What a packet leaving the cluster without Egress does after L3Forwarding, as EgressMark actions. */
function asBefore(p: Pipeline, cfg: NodeConfig, rewriteMAC: boolean) {
  // As L3Forwarding's miss (to the gateway as addressed) or, for packets to be routed (tunnel,
  // off-subnet pods), as the Service feature's routed catch-all (gateway MAC, then TTL).
  return rewriteMAC ? [setEthDst(cfg.gateway.mac), ...loadMarks(ToGatewayRegMark), goto(p.id('L3DecTTL'))] : [...loadMarks(ToGatewayRegMark), goto(p.id('L2ForwardingCalc'))];
}

/** EgressMark's miss flows: non-members leave as before. */
export function egressNodeFlows(p: Pipeline, cfg: NodeConfig): Flow[] {
  const c = cookieOf(cfg);
  const t = p.id('EgressMark');
  return [
    flow(t, PRIORITY.miss, {}, asBefore(p, cfg, false), c),
    // Per family the node has: an IPv6-only node (no gateway IPv4 address) has no IPv4 twin.
    ...(cfg.gateway.ip !== undefined ? [flow(t, PRIORITY.miss + 1, { ...IP, ...matchMarks(RewriteMACRegMark) }, asBefore(p, cfg, true), c)] : []),
    ...(hasIpv6(cfg) ? [flow(t, PRIORITY.miss + 1, { ...IPV6, ...matchMarks(RewriteMACRegMark) }, asBefore(p, cfg, true), c)] : []),
  ];
}

/** How one family's flows match and track: IPv4 or IPv6 ethertype, address fields and conntrack zones. */
interface Family {
  eth: Match;
  src: (ip: string, path: string) => Match;
  dst: (cidr: string, path: string) => Match;
  zone: number;
  snatZone: number;
}
const V4: Family = { eth: IP, src: (ip) => ({ ipv4Src: ip }), dst: (cidr) => ({ ipv4Dst: ipv4Net(cidr) }), zone: CT_ZONE, snatZone: SNAT_CT_ZONE };
const V6: Family = {
  eth: IPV6,
  src: (ip, path) => ({ ipv6Src: ipv6Addr(ip, path) }),
  dst: (cidr, path) => ({ ipv6Dst: ipv6Net(cidr, path) }),
  zone: CT_ZONE_V6,
  snatZone: SNAT_CT_ZONE_V6,
};
const familyOf = (ip: string): Family => (isIpv6(ip) ? V6 : V4);

/** Destinations no Egress applies to leave as before, members' packets too. */
export function egressExceptFlows(p: Pipeline, cfg: NodeConfig, exceptCIDRs: readonly string[]): Flow[] {
  const c = cookieOf(cfg);
  const t = p.id('EgressMark');
  return exceptCIDRs.flatMap((cidr, i) => {
    const f = familyOf(cidr);
    const dst = f.dst(cidr, `egress.exceptCIDRs[${i}]`);
    return [
      flow(t, PRIORITY.high, { ...f.eth, ...matchMarks(NotRewriteMACRegMark), ...dst }, asBefore(p, cfg, false), c),
      flow(t, PRIORITY.high, { ...f.eth, ...matchMarks(RewriteMACRegMark), ...dst }, asBefore(p, cfg, true), c),
    ];
  });
}

/**
 * The flows of one Egress on this node, in the family of its IP: an IPv6 Egress IP SNATs and
 * tunnels the members' IPv6 addresses (in the IPv6 conntrack zones), an IPv4 one their IPv4 ones.
 */
export function egressFlows(p: Pipeline, cfg: NodeConfig, rule: EgressRule, opts: EgressFeatureOptions = {}): Flow[] {
  const c = cookieOf(cfg);
  const gw = cfg.gateway;
  const f = familyOf(rule.ip);
  const path = `egress.egresses[${rule.name}]`;
  if (f === V6 && !hasIpv6(cfg)) throw new PipelineError('INVALID_INPUT', `Egress ${rule.name}: IPv6 egress IP ${rule.ip} on a node without IPv6 (config.podCIDRv6)`, rule.ip, `${path}.ip`);
  if (f === V4 && cfg.gateway.ip === undefined) throw new PipelineError('INVALID_INPUT', `Egress ${rule.name}: IPv4 egress IP ${rule.ip} on an IPv6-only node (no config.gateway.ip)`, rule.ip, `${path}.ip`);
  const src = (ip: string, field: string): Match => {
    if (isIpv6(ip) !== (f === V6)) throw new PipelineError('INVALID_INPUT', `Egress ${rule.name}: member address ${ip} is not of the family of the egress IP ${rule.ip}`, ip, `${path}.${field}`);
    return f.src(ip, `${path}.${field}`);
  };
  const divert = (ip: string, field: string): Flow => flow(p.id('L3Forwarding'), DIVERT, { ...f.eth, ...matchCtMarks(NotServiceCTMark), ...src(ip, field) }, [goto(p.id('EgressMark'))], c);
  if (rule.local && rule.mark !== undefined) {
    const members = [...new Set([...rule.localPods, ...rule.remotePods])].sort();
    const marked = matchField(EgressMarkField, rule.mark);
    // With traffic shaping every marked packet passes EgressQoS (its miss goes on to L3DecTTL), so a
    // bandwidth added or removed changes one EgressQoS flow, not the members' flows.
    const next = opts.trafficShaping ? p.id('EgressQoS') : p.id('L3DecTTL');
    const snatIP = rule.snatIP ?? rule.ip;
    const snatDst = f.dst(snatIP, `${path}.${rule.snatIP !== undefined ? 'snatIP' : 'ip'}`);
    const snatTo = f === V6 ? (snatDst as { ipv6Dst: string }).ipv6Dst : snatIP;
    return [
      ...members.flatMap((ip) => [
        divert(ip, 'members'),
        flow(p.id('EgressMark'), PRIORITY.normal, { ...f.eth, ...src(ip, 'members') }, [setEthDst(gw.mac), loadField(EgressMarkField, rule.mark!), ...loadMarks(ToGatewayRegMark), goto(next)], c),
      ]),
      ...(opts.trafficShaping && rule.meter !== undefined ? [flow(p.id('EgressQoS'), PRIORITY.normal, { ...f.eth, ...marked }, [{ type: 'meter' as const, id: rule.meter }, goto(p.id('L3DecTTL'))], c)] : []),
      flow(p.id('SNATMark'), PRIORITY.normal, { ...NEW, ...f.eth, ...marked }, [
        { type: 'ct', commit: true, table: p.id('SNAT'), zone: f.zone, exec: [loadCtMark(ConnSNATCTMark), { type: 'copyField', src: PktSourceField.ref(), dst: { field: 'ctMark', start: 0, end: 3 } }] },
      ], c),
      flow(p.id('SNAT'), PRIORITY.normal, { ...NEW, ...f.eth, ...marked }, [
        { type: 'ct', commit: true, table: p.id('L2ForwardingCalc'), zone: f.snatZone, nat: { kind: 'src', ipMin: snatTo }, exec: [loadCtMark(ConnSNATCTMark)] },
      ], c),
      flow(p.id('SNAT'), PRIORITY.normal, { ...NOT_NEW, ...f.eth, ...marked }, [{ type: 'ct', table: p.id('L2ForwardingCalc'), zone: f.snatZone, nat: {} }], c),
      // Replies: back to the pod's address; routed to it by address (the host's neighbour MAC is not the pod's).
      flow(p.id('UnSNAT'), PRIORITY.normal, { ...f.eth, ...snatDst }, [...loadMarks(RewriteMACRegMark), { type: 'ct', table: p.id('ConntrackZone'), zone: f.snatZone, nat: {} }], c),
    ];
  }
  if (rule.ownerIP === undefined) return []; // no node owns the IP: the members leave through their own node, as without Egress
  // The owner is reached through the tunnel to its node IP, whatever the family of the inner packet
  // (IPv4, or IPv6 on an IPv6 underlay: tun_ipv6_dst).
  return [...rule.localPods].sort().flatMap((ip) => [
    divert(ip, 'localPods'),
    flow(p.id('EgressMark'), PRIORITY.normal, { ...f.eth, ...src(ip, 'localPods') }, [setEthSrc(gw.mac), setEthDst(GLOBAL_VIRTUAL_MAC), setTunDst(rule.ownerIP!, `egress.egresses[${rule.name}].ownerIP`), ...loadMarks(ToTunnelRegMark), goto(p.id('L3DecTTL'))], c),
  ]);
}

/** Egress: selected pods' traffic out of the cluster leaves SNATed to the Egress IP, through the node owning it. */
export function egress(opts: EgressFeatureOptions = {}): Feature {
  const own: EgressFeatureOptions = { trafficShaping: opts.trafficShaping === true };
  return {
    name: 'egress',
    config: own,
    tables: () => egressTables(own),
    kinds: [egressKind, egressExceptKind],
    ownsMiss: ['EgressMark'],
    nodeFlows: (ctx) => ({ flows: egressNodeFlows(ctx.pipeline, ctx.config) }),
    perObject: {
      egressExcept: (ctx, cidrs) => ({ flows: egressExceptFlows(ctx.pipeline, ctx.config, cidrs) }),
      egress: (ctx, rule) => ({ flows: egressFlows(ctx.pipeline, ctx.config, rule, own) }),
    },
  };
}
