/** What every part of a running agent shares: its options and the node facts derived from them once. */
import { parseCidr } from '@switchyard/ipam/cidr';
import { canonicalIp } from '@switchyard/apis/types';
import type { Logger } from '@switchyard/runtime';
import { AgentError } from './errors';
import { AgentMetrics } from './metrics';
import { NodeNetwork } from './netops';
import { podMtuOf, resolveAgentOptions, unmasqueradedOf, type AgentOptions, type ResolvedAgentOptions } from './options';
import { underlay6 as isUnderlay6 } from './features/node/options';

export interface AgentContext {
  readonly options: ResolvedAgentOptions;
  /**
   * The IPv4 pod CIDR in canonical form (as the flows, IPAM ranges and routes carry it); absent on
   * an IPv6-only node (options.podCIDR is an IPv6 prefix and there is no podCIDRv6).
   */
  readonly podCIDR?: string;
  /** Dual-stack or IPv6-only: the IPv6 pod CIDR in canonical form (an IPAM range set, the gateway's IPv6 address). */
  readonly podCIDRv6?: string;
  /** networkPolicyOnly: chained after a routed primary CNI, which owns addresses and routing. */
  readonly policyOnly: boolean;
  /** Pod traffic to other nodes leaves through the tunnel (encap, hybrid). */
  readonly encap: boolean;
  /**
   * The node's transport address (`options.nodeIP`) is IPv6: an IPv6-only node without an IPv4
   * address, whose tunnels run over IPv6 (to each peer's IPv6 InternalIP, from `local_ip` nodeIP).
   */
  readonly underlay6: boolean;
  /** Pod traffic to other nodes goes through the WireGuard device (trafficEncryptionMode wireGuard). */
  readonly wireGuard: boolean;
  /** Pod traffic to other nodes goes through per-peer IPsec tunnel ports (trafficEncryptionMode ipsec). */
  readonly ipsec: boolean;
  /** MTU of pod interfaces and the gateway: the link's, less the tunnel (or WireGuard) overhead. */
  readonly mtu: number;
  /** The node's host side (links, addresses, routes, masquerade). */
  readonly net: NodeNetwork;
  readonly metrics: AgentMetrics;
  readonly log: Logger;
}

/** Resolves the options and checks what no node can run (`AgentError` `INVALID_CONFIG`, `UNSUPPORTED_TUNNEL`). */
export function agentContext(o: AgentOptions): AgentContext {
  const options = resolveAgentOptions(o);
  const cidr = parseCidr(options.podCIDR);
  // An IPv6 podCIDR alone: an IPv6-only node (Kubernetes' spec.podCIDR is the first of spec.podCIDRs, of either family).
  const v6Only = cidr.family === 6 && options.podCIDRv6 === undefined;
  if (cidr.family !== 4 && !v6Only) throw new AgentError('INVALID_CONFIG', 'podCIDR must be IPv4 when podCIDRv6 is given (dual-stack: IPv4 first)', options.podCIDR, 'podCIDR');
  const v6 = v6Only ? podCIDRv6Of(options.podCIDR, options.trafficMode, 'podCIDR') : options.podCIDRv6 === undefined ? undefined : podCIDRv6Of(options.podCIDRv6, options.trafficMode);
  // An IPv6 node IP: the tunnels run over IPv6. Only an IPv6-only node has no IPv4 address to tunnel from
  // (a dual-stack node's IPv4 pods are tunnelled over IPv4), and its IPv6 address is that node IP.
  const underlay6 = isUnderlay6(options.nodeIP);
  if (underlay6 && !v6Only) throw new AgentError('INVALID_CONFIG', `nodeIP ${options.nodeIP} is IPv6: an IPv6 underlay is for an IPv6-only node (an IPv6 podCIDR alone); a node with IPv4 pods needs an IPv4 nodeIP`, options.nodeIP, 'nodeIP');
  if (underlay6 && (options.nodeIPv6 === undefined || canonicalIp(options.nodeIPv6) !== options.nodeIP)) throw new AgentError('INVALID_CONFIG', `nodeIPv6 ${String(options.nodeIPv6)} differs from the IPv6 nodeIP ${options.nodeIP} (on an IPv6 underlay they are the node's one address)`, options.nodeIPv6, 'nodeIPv6');
  const encap = options.trafficMode === 'encap' || options.trafficMode === 'hybrid';
  const wireGuard = options.trafficEncryptionMode === 'wireGuard';
  const ipsec = options.trafficEncryptionMode === 'ipsec';
  return {
    options,
    ...(v6Only ? {} : { podCIDR: cidr.toString() }),
    ...(v6 !== undefined ? { podCIDRv6: v6 } : {}),
    policyOnly: options.trafficMode === 'networkPolicyOnly',
    encap,
    underlay6,
    wireGuard,
    ipsec,
    // Each feature's overhead on traffic between nodes (tunnel, WireGuard, ESP), as its options fragment says.
    mtu: podMtuOf(options),
    net: new NodeNetwork(options.nodeNetns, { unmasqueraded: unmasqueradedOf(options), netnsHelper: options.netnsHelper || undefined }),
    metrics: new AgentMetrics(),
    log: options.logger,
  };
}

/** The IPv6 pod CIDR, canonical; refused when it is no IPv6 prefix with room for pods, or the node does not assign addresses. */
function podCIDRv6Of(text: string, trafficMode: string, field = 'podCIDRv6'): string {
  let cidr;
  try {
    cidr = parseCidr(text);
  } catch (e) {
    throw new AgentError('INVALID_CONFIG', `${field} is not a CIDR: ${(e as Error).message}`, text, field);
  }
  if (cidr.family !== 6) throw new AgentError('INVALID_CONFIG', `${field} must be an IPv6 prefix`, text, field);
  // The gateway takes the first address; a pod needs another.
  if (cidr.prefix > 126) throw new AgentError('INVALID_CONFIG', `${field} /${cidr.prefix} leaves no address for pods (at most /126)`, text, field);
  if (trafficMode === 'networkPolicyOnly') throw new AgentError('INVALID_CONFIG', `an IPv6 ${field} is not used in networkPolicyOnly mode: the primary CNI assigns addresses`, text, field);
  return cidr.toString();
}
