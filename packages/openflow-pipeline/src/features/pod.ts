/**
 * Pod connectivity: classifier, spoofguard (IP and ARP), ARP responder, conntrack zone/state,
 * L3 forwarding to local pods and the gateway, dec TTL, L2 forwarding calculation, conntrack
 * commit and output. Peer nodes are remote-nodes.ts.
 */
import type { Flow, Match } from '@switchyard/openflow/codec';
import type { Feature, FlowContext } from '../feature';
import { CookieCategory, makeCookie } from '../cookie';
import {
  CT_ZONE, FromExternalRegMark, HairpinCTMark, NotConnSNATCTMark, FromGatewayCTMark, FromGatewayRegMark, FromLocalRegMark,
  FromPodRegMark, FromTunnelRegMark, GLOBAL_VIRTUAL_MAC, NotRewriteMACRegMark, NotServiceCTMark,
  OutputToOFPortRegMark, PRIORITY, PktSourceField, RewriteMACRegMark, ServiceCTMark, TargetOFPortField,
  ToGatewayRegMark, loadMarks, matchCtMarks, matchField, matchMarks,
} from '../fields';
import { defineKind } from '../objects';
import type { Pipeline, TableName } from '../tables';
import type { LocalPod, NodeConfig } from '../state';
import { traceFlow, traceOutputActions, traceToController, type TraceContext, type Traceable } from '../trace';
import { ARP, IP, IPV6, arpReplyActions, flow, goto, hasIpv6, ipv4Net, ipv6Addr, setEthDst, setEthSrc, withOptions } from './common';
import { podConnectivityIpv6BaseFlows, podIpv4s, podIpv6Flows } from './pod-ipv6';

/** Local pods, by `<namespace>/<name>`; found by address (index `ip`: {@link FlowContext.podByIp}). */
export const podKind = defineKind({
  name: 'pod',
  enumerate: (s) => s.pods.map((p) => [`${p.namespace}/${p.name}`, p] as const),
  index: { name: 'ip', keys: (p) => p.ips },
});

/** Settings of pod connectivity (Antrea's featurePodConnectivity fields). */
export interface PodConnectivityOptions {
  /** AntreaProxy is on: Service connections keep the MAC rewrite, hairpin packets leave by their input port. */
  proxy?: boolean;
  /** WireGuard: inter-node traffic leaves through the gateway, so a traced packet output there goes on. */
  wireGuard?: boolean;
}

/** The options as the deprecated constant reads them from NodeConfig's flags. */
const legacyPodOptions = (cfg: NodeConfig): PodConnectivityOptions => ({ proxy: cfg.enableProxy ?? false, wireGuard: cfg.wireGuard ?? false });

/** Tables pod connectivity needs (the IPv6 table on a dual-stack node). */
export function podConnectivityTables(cfg?: NodeConfig): TableName[] {
  return [
    'PipelineRootClassifier', 'ARPSpoofGuard', 'ARPResponder', 'Classifier', 'SpoofGuard', ...(cfg && hasIpv6(cfg) ? ['IPv6' as const] : []), 'ConntrackZone',
    'ConntrackState', 'L3Forwarding', 'L3DecTTL', 'L2ForwardingCalc', 'ConntrackCommit', 'Output',
  ];
}

export const cookieOf = (cfg: NodeConfig): bigint => makeCookie(cfg.round, CookieCategory.PodConnectivity);

/** Flows that exist once per node: gateway, tunnel, conntrack, forwarding defaults. */
export function podConnectivityBaseFlows(p: Pipeline, cfg: NodeConfig, opts: PodConnectivityOptions = legacyPodOptions(cfg)): Flow[] {
  const c = cookieOf(cfg);
  const gw = cfg.gateway;
  const afterValidation = p.stageId('conntrackState');
  const egressSecurity = p.stageId('egressSecurity');
  // An IPv6-only node (no IPv4 pod CIDR) has no gateway IPv4 address: the flows matching it are left out.
  const gwIp = gw.ip;
  const flows: Flow[] = [
    flow(p.id('PipelineRootClassifier'), PRIORITY.normal, ARP, [goto(p.id('ARPSpoofGuard'))], c),
    flow(p.id('PipelineRootClassifier'), PRIORITY.normal, IP, [goto(p.id('Classifier'))], c),
    ...(gwIp !== undefined ? [flow(p.id('ARPSpoofGuard'), PRIORITY.normal, { ...ARP, inPort: gw.ofport, arpSpa: gwIp, arpSha: gw.mac }, [goto(p.id('ARPResponder'))], c)] : []),
    flow(p.id('ARPResponder'), PRIORITY.low, ARP, [{ type: 'output', port: 'NORMAL' }], c),
    ...(gwIp !== undefined ? [flow(p.id('Classifier'), PRIORITY.high, { ...IP, inPort: gw.ofport, ipv4Src: gwIp }, [...loadMarks(FromGatewayRegMark, FromLocalRegMark), goto(p.id('SpoofGuard'))], c)] : []),
    flow(p.id('Classifier'), PRIORITY.normal, { inPort: gw.ofport }, [...loadMarks(FromGatewayRegMark, FromExternalRegMark), goto(p.id('SpoofGuard'))], c),
    flow(p.id('SpoofGuard'), PRIORITY.normal, { ...IP, inPort: gw.ofport }, [goto(afterValidation)], c),
    flow(p.id('ConntrackZone'), PRIORITY.normal, IP, [{ type: 'ct', table: p.id('ConntrackState'), zone: CT_ZONE, nat: {} }], c),
    flow(p.id('ConntrackState'), PRIORITY.normal, { ctState: { inv: true, trk: true }, ...IP }, [], c),
    flow(p.id('ConntrackState'), PRIORITY.low, { ctState: { new: false, trk: true }, ...matchCtMarks(NotServiceCTMark), ...IP }, [goto(egressSecurity)], c),
    ...(gwIp !== undefined ? [flow(p.id('L3Forwarding'), PRIORITY.high, { ...IP, ipv4Dst: gwIp }, [setEthDst(gw.mac), ...loadMarks(ToGatewayRegMark), goto(p.id('L3DecTTL'))], c)] : []),
    flow(p.id('L3Forwarding'), PRIORITY.high, { ctState: { rpl: true, trk: true }, ...matchCtMarks(FromGatewayCTMark), ...IP }, [setEthDst(gw.mac), ...loadMarks(ToGatewayRegMark), goto(p.id('L3DecTTL'))], c),
    flow(p.id('L3DecTTL'), PRIORITY.high, { ...IP, ...matchMarks(FromGatewayRegMark) }, [goto(p.nextId('L3DecTTL'))], c),
    flow(p.id('L3DecTTL'), PRIORITY.normal, IP, [{ type: 'decTtl' }, goto(p.nextId('L3DecTTL'))], c),
    flow(p.id('L2ForwardingCalc'), PRIORITY.normal, { ethDst: gw.mac }, [...loadMarks(TargetOFPortField.mark(gw.ofport), OutputToOFPortRegMark), goto(p.nextId('L2ForwardingCalc'))], c),
    flow(p.id('ConntrackCommit'), PRIORITY.normal, { ctState: { new: true, trk: true }, ...matchCtMarks(NotConnSNATCTMark), ...IP }, [
      { type: 'ct', commit: true, table: p.id('Output'), zone: CT_ZONE, exec: [{ type: 'copyField', src: PktSourceField.ref(), dst: { field: 'ctMark', start: 0, end: 3 } }] },
    ], c),
    flow(p.id('Output'), PRIORITY.normal, matchMarks(OutputToOFPortRegMark), [{ type: 'output', port: TargetOFPortField.ref() }], c),
  ];
  if (opts.proxy) {
    flows.push(flow(p.id('ConntrackState'), PRIORITY.low, { ctState: { new: false, trk: true }, ...matchCtMarks(ServiceCTMark), ...IP }, [...loadMarks(RewriteMACRegMark), goto(egressSecurity)], c));
  }
  if (cfg.trafficMode === 'networkPolicyOnly') {
    // Every ARP request from a pod is answered with the virtual MAC; all IP goes via the gateway.
    flows.push(flow(p.id('ARPResponder'), PRIORITY.normal, { ...ARP, arpOp: 1 }, arpReplyActions(), c));
  } else if (cfg.podCIDR !== undefined) {
    flows.push(flow(p.id('L3Forwarding'), PRIORITY.normal, { ...IP, ...matchMarks(NotRewriteMACRegMark), ipv4Dst: ipv4Net(cfg.podCIDR) }, [goto(p.id('L2ForwardingCalc'))], c));
  }
  // L3Forwarding miss: everything else (external) leaves through the gateway.
  flows.push(flow(p.id('L3Forwarding'), PRIORITY.miss, {}, [...loadMarks(ToGatewayRegMark), goto(p.id('L2ForwardingCalc'))], c));
  if (cfg.tunnelOfport !== undefined && (cfg.trafficMode === 'encap' || cfg.trafficMode === 'hybrid')) {
    const t = cfg.tunnelOfport;
    flows.push(
      flow(p.id('Classifier'), PRIORITY.normal, { inPort: t }, [...loadMarks(FromTunnelRegMark, RewriteMACRegMark), goto(afterValidation)], c),
      flow(p.id('L2ForwardingCalc'), PRIORITY.normal, { ethDst: GLOBAL_VIRTUAL_MAC }, [...loadMarks(TargetOFPortField.mark(t), OutputToOFPortRegMark), goto(p.nextId('L2ForwardingCalc'))], c),
    );
  }
  if (opts.proxy) {
    flows.push(flow(p.id('Output'), PRIORITY.high, matchCtMarks(HairpinCTMark), [{ type: 'output', port: 'IN_PORT' }], c));
  }
  for (const f of podConnectivityIpv6BaseFlows(p, cfg, c, opts.proxy ?? false)) flows.push(f);
  return flows;
}

/** Flows of one local pod. */
export function podFlows(p: Pipeline, cfg: NodeConfig, pod: LocalPod): Flow[] {
  const c = cookieOf(cfg);
  // A pod off the node's pod CIDR (IPPool subnet) reaches every other address by routing: its
  // packets are marked for the MAC rewrite so local destinations are routed inside OVS, not
  // hairpinned through the host (which would pass conntrack twice in one zone).
  const offSubnet = pod.gatewayIP !== undefined && pod.gatewayIP !== cfg.gateway.ip;
  const fromMarks = offSubnet ? [FromPodRegMark, FromLocalRegMark, RewriteMACRegMark] : [FromPodRegMark, FromLocalRegMark];
  const flows: Flow[] = [
    flow(p.id('Classifier'), PRIORITY.low, { inPort: pod.ofport }, [...loadMarks(...fromMarks), goto(p.id('SpoofGuard'))], c),
    flow(p.id('L2ForwardingCalc'), PRIORITY.normal, { ethDst: pod.mac }, [...loadMarks(TargetOFPortField.mark(pod.ofport), OutputToOFPortRegMark), goto(p.nextId('L2ForwardingCalc'))], c),
  ];
  const ipv4s = podIpv4s(pod);
  for (const ip of ipv4s) {
    flows.push(
      flow(p.id('ARPSpoofGuard'), PRIORITY.normal, { ...ARP, inPort: pod.ofport, arpSpa: ip, arpSha: pod.mac }, [goto(p.id('ARPResponder'))], c),
      flow(p.id('SpoofGuard'), PRIORITY.normal, { ...IP, inPort: pod.ofport, ethSrc: pod.mac, ipv4Src: ip }, [goto(p.stageId('conntrackState'))], c),
      flow(p.id('L3Forwarding'), PRIORITY.normal, { ...IP, ...matchMarks(RewriteMACRegMark), ipv4Dst: ip }, [setEthSrc(cfg.gateway.mac), setEthDst(pod.mac), goto(p.id('L3DecTTL'))], c),
    );
    if (cfg.trafficMode === 'networkPolicyOnly') {
      // Packets routed back from the gateway carry the gateway's MAC: deliver by IP.
      flows.push(flow(p.id('L3Forwarding'), PRIORITY.normal, { ...IP, ipv4Dst: ip }, [setEthDst(pod.mac), goto(p.id('L3DecTTL'))], c));
    }
  }
  if (offSubnet && pod.gatewayIP !== undefined) {
    // The node gateway stands in for the pod's own (IPPool) gateway.
    flows.push(flow(p.id('ARPResponder'), PRIORITY.normal, { ...ARP, inPort: pod.ofport, arpOp: 1, arpTpa: pod.gatewayIP }, arpReplyActions(pod.gatewayIP, cfg.gateway.mac), c));
    // Pods of the pod CIDR send to it through their gateway's MAC: route that inside OVS too.
    for (const ip of ipv4s) {
      flows.push(flow(p.id('L3Forwarding'), PRIORITY.normal, { ...IP, ethDst: cfg.gateway.mac, ipv4Dst: ip }, [setEthSrc(cfg.gateway.mac), setEthDst(pod.mac), goto(p.id('L3DecTTL'))], c));
    }
  }
  for (const f of podIpv6Flows(p, cfg, pod, c)) flows.push(f);
  return flows;
}

/**
 * Trace flows of pod connectivity: where SpoofGuard drops a tagged packet, where conntrack drops
 * it as invalid, where it is output (a local port, the tunnel, the gateway) and where it would meet
 * Output's miss drop because L2 forwarding found no port. A packet bound for the tunnel, or for
 * the gateway when the host routes between nodes, goes on after its packet-in (the next node
 * reports it again); live traffic goes on from every output ({@link traceOutputActions}).
 */
export function podConnectivityTraceFlows(ctx: TraceContext, tag: number, opts: PodConnectivityOptions = legacyPodOptions(ctx.config)): Flow[] {
  const p = ctx.pipeline;
  const cfg = ctx.config;
  const gw = cfg.gateway;
  const out = p.id('Output');
  const report = traceToController(ctx);
  const toPort = (port: number) => ({ ...matchMarks(OutputToOFPortRegMark), ...matchField(TargetOFPortField, port) });
  const output = [{ type: 'output' as const, port: TargetOFPortField.ref() }];
  const hostRoutes = cfg.trafficMode !== 'encap' || (opts.wireGuard ?? false);
  const flows: Flow[] = [
    // Drops: a packet SpoofGuard does not know, an invalid connection, no output port.
    traceFlow(ctx, tag, p.id('SpoofGuard'), PRIORITY.miss + 1, {}, report),
    traceFlow(ctx, tag, p.id('ConntrackState'), PRIORITY.normal + 2, { ctState: { inv: true, trk: true } }, report),
    traceFlow(ctx, tag, out, PRIORITY.miss + 1, {}, report),
  ];
  // Outputs, above every Output decision (hairpin and relay outputs sit at PRIORITY.high).
  const outputs: [number, Match, boolean][] = [
    [PRIORITY.high + 2, matchMarks(OutputToOFPortRegMark), false],
    [PRIORITY.high + 3, toPort(gw.ofport), hostRoutes],
    ...(gw.ip !== undefined ? [[PRIORITY.high + 4, { ...toPort(gw.ofport), ipv4Dst: gw.ip }, false] as [number, Match, boolean]] : []),
  ];
  if (cfg.tunnelOfport !== undefined && (cfg.trafficMode === 'encap' || cfg.trafficMode === 'hybrid')) outputs.push([PRIORITY.high + 3, toPort(cfg.tunnelOfport), true]);
  if (hasIpv6(cfg)) {
    // IPv6 packets carry the tag in their traffic class: the same points, matched as IPv6. (Neighbor
    // Discovery the IPv6 table drops is not reported: a Traceflow's packet is unicast TCP, UDP or ICMP.)
    const v6: Match = IPV6;
    flows.push(
      traceFlow(ctx, tag, p.id('SpoofGuard'), PRIORITY.miss + 1, v6, report),
      traceFlow(ctx, tag, p.id('ConntrackState'), PRIORITY.normal + 2, { ctState: { inv: true, trk: true }, ...v6 }, report),
      traceFlow(ctx, tag, out, PRIORITY.miss + 1, v6, report),
    );
    outputs.push(
      [PRIORITY.high + 2, { ...matchMarks(OutputToOFPortRegMark), ...v6 }, false],
      [PRIORITY.high + 3, { ...toPort(gw.ofport), ...v6 }, hostRoutes],
      [PRIORITY.high + 4, { ...toPort(gw.ofport), ...v6, ipv6Dst: ipv6Addr(gw.ipv6!, 'config.gateway.ipv6') }, false],
    );
    if (cfg.tunnelOfport !== undefined && (cfg.trafficMode === 'encap' || cfg.trafficMode === 'hybrid')) outputs.push([PRIORITY.high + 3, { ...toPort(cfg.tunnelOfport), ...v6 }, true]);
  }
  for (const [prio, match, onward] of outputs) {
    const actions = traceOutputActions(ctx, output, onward);
    if (actions) flows.push(traceFlow(ctx, tag, out, prio, match, actions));
  }
  return flows;
}

const forms = withOptions(
  (optionsOf): Feature & Traceable => ({
    name: 'podConnectivity',
    tables: podConnectivityTables,
    kinds: [podKind],
    ownsMiss: ['L3Forwarding'],
    nodeFlows: (ctx: FlowContext) => ({ flows: podConnectivityBaseFlows(ctx.pipeline, ctx.config, optionsOf(ctx.config)) }),
    perObject: { pod: (ctx, pod) => ({ flows: podFlows(ctx.pipeline, ctx.config, pod) }) },
    traceFlows: (ctx, tag) => podConnectivityTraceFlows(ctx, tag, optionsOf(ctx.config)),
  }),
  (o: PodConnectivityOptions) => ({ proxy: o.proxy ?? false, wireGuard: o.wireGuard ?? false }),
  legacyPodOptions,
);

/** Pod connectivity: gateway, tunnel, conntrack and forwarding defaults, then each local pod. Traceable. */
export const podConnectivity: (opts?: PodConnectivityOptions) => Feature & Traceable = forms.factory;

/** @deprecated Reads `enableProxy` and `wireGuard` from NodeConfig; use {@link podConnectivity}. */
export const podConnectivityFeature: Feature & Traceable = forms.constant;
