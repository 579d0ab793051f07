/**
 * Peer nodes by traffic mode: encap (tunnel with tun_dst, or tun_ipv6_dst to a peer on an IPv6
 * underlay; ARP responder for the peer gateway; with IPsec the peer's own tunnel port instead),
 * noEncap / WireGuard / hybrid within the node subnet (routed through the gateway; IPv6 pod CIDRs
 * by the IPv6 transport subnet),
 * networkPolicyOnly (nothing per peer).
 */
import type { Flow } from '@switchyard/openflow/codec';
import { Cidr } from '@switchyard/ipam/cidr';
import type { Feature } from '../feature';
import { defineKind } from '../objects';
import { FromTunnelRegMark, GLOBAL_VIRTUAL_MAC, OutputToOFPortRegMark, PRIORITY, RewriteMACRegMark, TargetOFPortField, ToGatewayRegMark, ToTunnelRegMark, loadMarks } from '../fields';
import type { Pipeline } from '../tables';
import type { NodeConfig, RemoteNode } from '../state';
import { ARP, IP, IPV6, arpReplyActions, flow, goto, hasIpv6, ipv4Net, ipv6Net, isIpv6, setEthDst, setEthSrc, setTunDst, withOptions } from './common';
import { cookieOf } from './pod';

/** Peer nodes, by name. */
export const remoteNodeKind = defineKind({ name: 'remoteNode', enumerate: (s) => s.remoteNodes.map((n) => [n.name, n] as const) });

/** Settings of the remote-node routes. */
export interface RemoteNodesOptions {
  /** WireGuard encryption: peers are reached through the gateway (the host routes into its WireGuard device). */
  wireGuard?: boolean;
}

const legacyRemoteOptions = (cfg: NodeConfig): RemoteNodesOptions => ({ wireGuard: cfg.wireGuard ?? false });

function sameSubnet(cfg: NodeConfig, peer: RemoteNode): boolean {
  // A peer reached over an IPv6 underlay has no IPv4 transport address to compare.
  if (!cfg.nodeSubnet || isIpv6(peer.nodeIP)) return false;
  return Cidr.parse(cfg.nodeSubnet).contains(Cidr.parse(`${peer.nodeIP}/32`));
}

/** Hybrid, IPv6: whether the peer's IPv6 underlay address is in this node's IPv6 transport subnet (Antrea decides per family). */
function sameSubnet6(cfg: NodeConfig, peer: RemoteNode): boolean {
  if (!cfg.nodeSubnetV6 || peer.nodeIPv6 === undefined) return false;
  return Cidr.parse(cfg.nodeSubnetV6).contains(Cidr.parse(`${peer.nodeIPv6}/128`));
}

/** Flows for one peer node, by traffic mode. */
export function remoteNodeFlows(p: Pipeline, cfg: NodeConfig, peer: RemoteNode, opts: RemoteNodesOptions = legacyRemoteOptions(cfg)): Flow[] {
  const c = cookieOf(cfg);
  const gw = cfg.gateway;
  const flows: Flow[] = [];
  if (cfg.trafficMode === 'networkPolicyOnly') return flows;
  const viaTunnel = !opts.wireGuard && (cfg.trafficMode === 'encap' || (cfg.trafficMode === 'hybrid' && !sameSubnet(cfg, peer)));
  // The peer's IPv4 pod CIDR (absent for an IPv6-only peer, or on an IPv6-only node).
  const v4 = peer.podCIDR !== undefined && peer.gatewayIP !== undefined && cfg.podCIDR !== undefined ? { dst: ipv4Net(peer.podCIDR), gatewayIP: peer.gatewayIP } : undefined;
  if (viaTunnel && peer.ipsecTunnelOfport !== undefined) {
    // IPsec: the peer has its own tunnel port (fixed remote_ip, encrypted by strongSwan); traffic
    // to its pod CIDR leaves there, and what arrives there is tunnel input like the shared port's.
    const port = peer.ipsecTunnelOfport;
    if (v4) flows.push(flow(p.id('ARPResponder'), PRIORITY.normal, { ...ARP, arpTpa: v4.gatewayIP, arpOp: 1 }, arpReplyActions(v4.gatewayIP), c));
    flows.push(flow(p.id('Classifier'), PRIORITY.normal, { inPort: port }, [...loadMarks(FromTunnelRegMark, RewriteMACRegMark), goto(p.stageId('conntrackState'))], c));
    if (v4) {
      flows.push(
        flow(p.id('L3Forwarding'), PRIORITY.normal, { ...IP, ipv4Dst: v4.dst }, [
          setEthSrc(gw.mac), setEthDst(GLOBAL_VIRTUAL_MAC), ...loadMarks(ToTunnelRegMark), goto(p.id('L3DecTTL')),
        ], c),
        // Above the shared tunnel port's virtual-MAC flow: this peer's pod CIDR goes to its own port.
        flow(p.id('L2ForwardingCalc'), PRIORITY.high, { ...IP, ethDst: GLOBAL_VIRTUAL_MAC, ipv4Dst: v4.dst }, [
          ...loadMarks(TargetOFPortField.mark(port), OutputToOFPortRegMark), goto(p.nextId('L2ForwardingCalc')),
        ], c),
      );
    }
  } else if (viaTunnel) {
    if (v4) {
      flows.push(
        flow(p.id('ARPResponder'), PRIORITY.normal, { ...ARP, arpTpa: v4.gatewayIP, arpOp: 1 }, arpReplyActions(v4.gatewayIP), c),
        flow(p.id('L3Forwarding'), PRIORITY.normal, { ...IP, ipv4Dst: v4.dst }, [
          setEthSrc(gw.mac), setEthDst(GLOBAL_VIRTUAL_MAC), setTunDst(peer.nodeIP, `remoteNodes[${peer.name}].nodeIP`), ...loadMarks(ToTunnelRegMark), goto(p.id('L3DecTTL')),
        ], c),
      );
    }
  } else if (v4) {
    // noEncap, hybrid within the subnet, WireGuard: the host routes it.
    flows.push(flow(p.id('L3Forwarding'), PRIORITY.normal, { ...IP, ipv4Dst: v4.dst }, [setEthDst(gw.mac), ...loadMarks(ToGatewayRegMark), goto(p.id('L3DecTTL'))], c));
  }
  if (peer.podCIDRv6 !== undefined && hasIpv6(cfg)) {
    // The peer's IPv6 pod CIDR: through the tunnel to its node IP (IPv4, or IPv6 on an IPv6
    // underlay) or its IPsec port, or the gateway where the host routes it (to the peer's IPv6
    // node address). Hybrid decides by
    // the IPv6 transport subnet, as Antrea does per family. No Neighbor Discovery answer for the
    // peer's gateway here: the host resolves it by a static neighbor entry (the agent's routes).
    const viaTunnel6 = !opts.wireGuard && (cfg.trafficMode === 'encap' || (cfg.trafficMode === 'hybrid' && !sameSubnet6(cfg, peer)));
    const dst = ipv6Net(peer.podCIDRv6, `remoteNodes[${peer.name}].podCIDRv6`);
    if (viaTunnel6 && peer.ipsecTunnelOfport !== undefined) {
      const port = peer.ipsecTunnelOfport;
      flows.push(
        flow(p.id('L3Forwarding'), PRIORITY.normal, { ...IPV6, ipv6Dst: dst }, [setEthSrc(gw.mac), setEthDst(GLOBAL_VIRTUAL_MAC), ...loadMarks(ToTunnelRegMark), goto(p.id('L3DecTTL'))], c),
        flow(p.id('L2ForwardingCalc'), PRIORITY.high, { ...IPV6, ethDst: GLOBAL_VIRTUAL_MAC, ipv6Dst: dst }, [
          ...loadMarks(TargetOFPortField.mark(port), OutputToOFPortRegMark), goto(p.nextId('L2ForwardingCalc')),
        ], c),
      );
    } else if (viaTunnel6) {
      flows.push(flow(p.id('L3Forwarding'), PRIORITY.normal, { ...IPV6, ipv6Dst: dst }, [
        setEthSrc(gw.mac), setEthDst(GLOBAL_VIRTUAL_MAC), setTunDst(peer.nodeIP, `remoteNodes[${peer.name}].nodeIP`), ...loadMarks(ToTunnelRegMark), goto(p.id('L3DecTTL')),
      ], c));
    } else {
      flows.push(flow(p.id('L3Forwarding'), PRIORITY.normal, { ...IPV6, ipv6Dst: dst }, [setEthDst(gw.mac), ...loadMarks(ToGatewayRegMark), goto(p.id('L3DecTTL'))], c));
    }
  }
  return flows;
}

const forms = withOptions(
  (optionsOf): Feature => ({
    name: 'remoteNodes',
    tables: () => ['ARPResponder', 'Classifier', 'L3Forwarding', 'L3DecTTL', 'L2ForwardingCalc'],
    kinds: [remoteNodeKind],
    perObject: { remoteNode: (ctx, peer) => ({ flows: remoteNodeFlows(ctx.pipeline, ctx.config, peer, optionsOf(ctx.config)) }) },
  }),
  (o: RemoteNodesOptions) => ({ wireGuard: o.wireGuard ?? false }),
  legacyRemoteOptions,
);

/** Remote nodes: the route to each peer's pod CIDR, by traffic mode. */
export const remoteNodes: (opts?: RemoteNodesOptions) => Feature = forms.factory;

/** @deprecated Reads `wireGuard` from NodeConfig; use {@link remoteNodes}. */
export const remoteNodesFeature: Feature = forms.constant;
