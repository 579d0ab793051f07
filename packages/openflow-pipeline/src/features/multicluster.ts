/**
 * Multi-cluster: other clusters' CIDRs leave through the tunnel to the local gateway (regular
 * nodes) or to the remote cluster's gateway (the gateway), and the gateway relays between the
 * in-cluster tunnel and the gateway-to-gateway tunnel (one Geneve port with remote_ip=flow).
 *
 * Dual-stack: other clusters' IPv6 CIDRs take the same IPv4 tunnels (as remote nodes' IPv6 pod
 * CIDRs do inside the cluster); the gateway SNATs IPv6 connections to its IPv6 gateway address in
 * the IPv6 zones, and every node routes replies to a remote gateway's IPv6 address as for IPv4.
 *
 * Connection tracking across gateways: the sending gateway SNATs new connections to other
 * clusters to its own gateway IP (SNAT zone, as hairpin Service traffic), so the remote side only
 * ever answers a remote gateway IP. Every node routes replies to a remote gateway IP back through
 * its own gateway (regular nodes) or to that gateway (the gateway), so the reply passes the same
 * two gateways and the same conntrack entries (un-SNAT on the sending gateway, un-DNAT of an
 * imported Service on the client's node).
 *
 * With WireGuard between the gateways (`spec.wireGuard`), the gateway does not tunnel to the other
 * gateways: traffic to other clusters leaves through the host gateway port (the host routes it
 * into the Multi-cluster WireGuard device), and what the host hands back from that device enters
 * through the same port. The receiving gateway SNATs those new connections to its gw0 address (a
 * pod-CIDR address every node already routes to it), so replies from anywhere in its cluster
 * return through it and leave again through the host (conntrack remembers they came from the
 * gateway port). Both families: IPv6 CIDRs are handed to the host and SNATed to gw0's IPv6
 * address as IPv4 ones to its IPv4 address (the host's WireGuard peers carry both).
 */
import type { Flow, Match } from '@switchyard/openflow/codec';
import { CookieCategory, makeCookie } from '../cookie';
import type { Feature } from '../feature';
import { defineKind, nodeObject } from '../objects';
import {
  CT_ZONE, CT_ZONE_V6, ConnSNATCTMark, FromGatewayRegMark, GLOBAL_VIRTUAL_MAC, OutputToOFPortRegMark, PRIORITY, PktSourceField, SNAT_CT_ZONE, SNAT_CT_ZONE_V6, TargetOFPortField,
  ToGatewayRegMark, ToTunnelRegMark, loadCtMark, loadMarks, matchCtMarks, matchField, matchMarks,
} from '../fields';
import type { Pipeline } from '../tables';
import type { MulticlusterSpec, NodeConfig } from '../state';
import { IP, IPV6, flow, goto, ipv4Net, ipv6Addr, ipv6Net, isIpv6, setEthDst, setEthSrc, setTunDst, withOptions } from './common';

/** The node's Multi-cluster spec (key `node`). */
export const multiclusterKind = defineKind({ name: 'multicluster', enumerate: (s) => nodeObject(s.multicluster) });

/** Settings of the Multi-cluster feature. */
export interface MulticlusterOptions {
  /** AntreaProxy is on (Multi-cluster needs it, as in Antrea): the gateway SNATs in the proxy's SNAT tables. */
  proxy?: boolean;
}

const legacyMulticlusterOptions = (cfg: NodeConfig): MulticlusterOptions => ({ proxy: cfg.enableProxy ?? false });

const REPLY = { ctState: { rpl: true, trk: true } } as const;

/** Matches of one family: a CIDR as destination or source, and the conntrack zones. */
interface McFamily {
  eth: Match;
  dst(cidr: string, path: string): Match;
  src(cidr: string, path: string): Match;
  zone: number;
  snatZone: number;
}
const V4: McFamily = { eth: IP, dst: (c) => ({ ipv4Dst: ipv4Net(c) }), src: (c) => ({ ipv4Src: ipv4Net(c) }), zone: CT_ZONE, snatZone: SNAT_CT_ZONE };
const V6: McFamily = { eth: IPV6, dst: (c, path) => ({ ipv6Dst: ipv6Net(c, path) }), src: (c, path) => ({ ipv6Src: ipv6Net(c, path) }), zone: CT_ZONE_V6, snatZone: SNAT_CT_ZONE_V6 };
/** The family of an address or CIDR text. */
const familyOf = (text: string): McFamily => (isIpv6(text) ? V6 : V4);
const NEW = { ctState: { new: true, trk: true } } as const;

/** L3Forwarding to the tunnel with `tunDst`, as remote-node flows do. */
function toTunnel(p: Pipeline, cfg: NodeConfig, tunDst: string) {
  return [setEthSrc(cfg.gateway.mac), setEthDst(GLOBAL_VIRTUAL_MAC), setTunDst(tunDst), ...loadMarks(ToTunnelRegMark), goto(p.id('L3DecTTL'))];
}

/** Routes to the other clusters: their CIDRs, and replies to their gateway IPs. */
function routeFlows(p: Pipeline, cfg: NodeConfig, spec: MulticlusterSpec, c: bigint): Flow[] {
  const flows: Flow[] = [];
  // WireGuard gateway: to the host, which routes other clusters' CIDRs into its WireGuard device.
  const toHost = spec.isGateway && spec.wireGuard === true;
  spec.remoteClusters.forEach((rc, i) => {
    const tunDst = spec.isGateway ? rc.gatewayIP : spec.localGatewayIP;
    if (!tunDst && !toHost) return;
    const acts = toHost ? [setEthDst(cfg.gateway.mac), ...loadMarks(ToGatewayRegMark), goto(p.id('L3DecTTL'))] : toTunnel(p, cfg, tunDst!);
    rc.cidrs.forEach((cidr, j) => {
      const fam = familyOf(cidr);
      const dst = fam.dst(cidr, `multicluster.remoteClusters[${i}].cidrs[${j}]`);
      flows.push(flow(p.id('L3Forwarding'), PRIORITY.normal, { ...fam.eth, ...dst }, acts, c));
      // Label identity of the source pod travels in tun_id (stretched NetworkPolicy): the gateways
      // keep it, and the destination node's ingress rules match it. By source address (the
      // Classifier's spoof guard already tied it to the pod's port), of the CIDR's family.
      (spec.labelIdentities ?? []).forEach((li, k) => {
        if (familyOf(li.ip) !== fam) return;
        flows.push(flow(p.id('L3Forwarding'), PRIORITY.normal + 1, { ...fam.eth, ...fam.src(li.ip, `multicluster.labelIdentities[${k}].ip`), ...dst }, [{ type: 'setField', field: 'tunId', value: BigInt(li.id) }, ...acts], c));
      });
    });
    // Replies to connections the remote gateway SNATed to its gateway IP (without WireGuard only).
    // An IPv6-only remote gateway's gatewayIP is its IPv6 address (and equals its gatewayIPv6).
    if (spec.wireGuard !== true) {
      const replyTo = new Map<McFamily, string>([[familyOf(rc.gatewayIP), rc.gatewayIP]]);
      if (rc.gatewayIPv6 !== undefined) replyTo.set(V6, ipv6Addr(rc.gatewayIPv6, `multicluster.remoteClusters[${i}].gatewayIPv6`));
      for (const [fam, ip] of replyTo) flows.push(flow(p.id('L3Forwarding'), PRIORITY.normal, { ...REPLY, ...fam.eth, ...fam.dst(ip, `multicluster.remoteClusters[${i}].gatewayIP`) }, acts, c));
    }
  });
  return flows;
}

/** The gateway's relay: SNAT of new connections to other clusters, un-SNAT of their replies, output back out of the tunnel. */
function gatewayFlows(p: Pipeline, cfg: NodeConfig, spec: MulticlusterSpec, c: bigint, opts: MulticlusterOptions): Flow[] {
  const flows: Flow[] = [];
  const tun = cfg.tunnelOfport;
  // Traffic from the in-cluster tunnel leaves through the same port: OpenFlow drops an output to
  // the input port unless it is written as IN_PORT.
  if (tun !== undefined) {
    flows.push(flow(p.id('Output'), PRIORITY.high, { inPort: tun, ...matchMarks(OutputToOFPortRegMark), ...matchField(TargetOFPortField, tun) }, [{ type: 'output', port: 'IN_PORT' }], c));
  }
  // The SNAT tables exist with AntreaProxy (Multi-cluster needs it, as in Antrea).
  if (!opts.proxy) return flows;
  if (spec.wireGuard === true) return [...flows, ...wireGuardInboundFlows(p, cfg, spec, c)];
  if (!spec.gatewayIP) return flows;
  // The SNAT address of each family: the gateway IP, and a dual-stack gateway's IPv6 one (an
  // IPv6 CIDR without it is routed but not SNATed: its replies would not find the way back).
  const snatIPs = new Map<McFamily, string>([[familyOf(spec.gatewayIP), spec.gatewayIP]]);
  if (spec.gatewayIPv6 !== undefined) snatIPs.set(V6, ipv6Addr(spec.gatewayIPv6, 'multicluster.gatewayIPv6'));
  for (const [fam, snatIP] of snatIPs) flows.push(flow(p.id('UnSNAT'), PRIORITY.normal, { ...fam.eth, ...fam.dst(snatIP, 'multicluster.gatewayIP') }, [{ type: 'ct', table: p.id('ConntrackZone'), zone: fam.snatZone, nat: {} }], c));
  spec.remoteClusters.forEach((rc, i) => {
    rc.cidrs.forEach((cidr, j) => {
      const fam = familyOf(cidr);
      const snatIP = snatIPs.get(fam);
      if (snatIP === undefined) return;
      const dst = { ...fam.eth, ...fam.dst(cidr, `multicluster.remoteClusters[${i}].cidrs[${j}]`) };
      flows.push(
        // Committed here (not in ConntrackCommit) with the SNAT mark, so later packets take the SNAT zone too.
        flow(p.id('SNATMark'), PRIORITY.normal, { ...NEW, ...dst }, [
          { type: 'ct', commit: true, table: p.id('SNAT'), zone: fam.zone, exec: [loadCtMark(ConnSNATCTMark), { type: 'copyField', src: PktSourceField.ref(), dst: { field: 'ctMark', start: 0, end: 3 } }] },
        ], c),
        flow(p.id('SNAT'), PRIORITY.normal, { ...NEW, ...matchCtMarks(ConnSNATCTMark), ...dst }, [
          { type: 'ct', commit: true, table: p.id('L2ForwardingCalc'), zone: fam.snatZone, nat: { kind: 'src', ipMin: snatIP }, exec: [loadCtMark(ConnSNATCTMark)] },
        ], c),
      );
    });
  });
  return flows;
}

/**
 * WireGuard gateway, receiving side: new connections from other clusters' CIDRs that the host hands
 * in through the gateway port are SNATed to the gw0 address of their family (`gateway.ip`, a
 * dual-stack or IPv6-only node's `gateway.ipv6`, in that family's zones); the un-SNAT of their
 * replies is the Service feature's flow for that address. A CIDR of a family the node has no gw0
 * address of is left alone (the agent leaves such CIDRs out of the spec).
 */
function wireGuardInboundFlows(p: Pipeline, cfg: NodeConfig, spec: MulticlusterSpec, c: bigint): Flow[] {
  const flows: Flow[] = [];
  const gwIPs = new Map<McFamily, string>();
  if (cfg.gateway.ip !== undefined) gwIPs.set(V4, cfg.gateway.ip);
  if (cfg.gateway.ipv6 !== undefined) gwIPs.set(V6, ipv6Addr(cfg.gateway.ipv6, 'config.gateway.ipv6'));
  spec.remoteClusters.forEach((rc, i) => {
    rc.cidrs.forEach((cidr, j) => {
      const fam = familyOf(cidr);
      const gwIp = gwIPs.get(fam);
      if (gwIp === undefined) return;
      const src = { ...fam.eth, ...fam.src(cidr, `multicluster.remoteClusters[${i}].cidrs[${j}]`) };
      flows.push(
        flow(p.id('SNATMark'), PRIORITY.normal, { ...NEW, ...src, ...matchMarks(FromGatewayRegMark) }, [
          { type: 'ct', commit: true, table: p.id('SNAT'), zone: fam.zone, exec: [loadCtMark(ConnSNATCTMark), { type: 'copyField', src: PktSourceField.ref(), dst: { field: 'ctMark', start: 0, end: 3 } }] },
        ], c),
        flow(p.id('SNAT'), PRIORITY.normal, { ...NEW, ...matchCtMarks(ConnSNATCTMark), ...src }, [
          { type: 'ct', commit: true, table: p.id('L2ForwardingCalc'), zone: fam.snatZone, nat: { kind: 'src', ipMin: gwIp }, exec: [loadCtMark(ConnSNATCTMark)] },
        ], c),
      );
    });
  });
  return flows;
}

/** Multicluster: other clusters' CIDRs go through the tunnel to the gateway (or remote gateway); the gateway relays and SNATs. */
export function multiclusterFlows(p: Pipeline, cfg: NodeConfig, spec: MulticlusterSpec, opts: MulticlusterOptions = legacyMulticlusterOptions(cfg)): Flow[] {
  const c = makeCookie(cfg.round, CookieCategory.Multicluster);
  return [...routeFlows(p, cfg, spec, c), ...(spec.isGateway ? gatewayFlows(p, cfg, spec, c, opts) : [])];
}

const forms = withOptions(
  (optionsOf): Feature => ({
    name: 'multicluster',
    tables: () => ['L3Forwarding', 'L3DecTTL', 'Output'],
    kinds: [multiclusterKind],
    perObject: { multicluster: (ctx, spec) => ({ flows: multiclusterFlows(ctx.pipeline, ctx.config, spec, optionsOf(ctx.config)) }) },
  }),
  (o: MulticlusterOptions) => ({ proxy: o.proxy ?? false }),
  legacyMulticlusterOptions,
);

/** Multi-cluster gateway routing: the flows of the node's multicluster spec. */
export const multicluster: (opts?: MulticlusterOptions) => Feature = forms.factory;

/** @deprecated Reads `enableProxy` from NodeConfig; use {@link multicluster}. */
export const multiclusterFeature: Feature = forms.constant;
