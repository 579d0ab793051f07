/** What every part of a running agent shares: its options and the node facts derived from them once. */
import { parseCidr } from '@switchyard/ipam/cidr';
import type { Logger } from '@switchyard/runtime';
import { AgentError } from './errors';
import { AgentMetrics } from './metrics';
import { NodeNetwork } from './netops';
import { podMtuOf, resolveAgentOptions, unmasqueradedOf, type AgentOptions, type ResolvedAgentOptions } from './options';

export interface AgentContext {
  readonly options: ResolvedAgentOptions;
  /** The pod CIDR in canonical form (as the flows, IPAM ranges and routes carry it). */
  readonly podCIDR: string;
  /** networkPolicyOnly: chained after a routed primary CNI, which owns addresses and routing. */
  readonly policyOnly: boolean;
  /** Pod traffic to other nodes leaves through the tunnel (encap, hybrid). */
  readonly encap: boolean;
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
  if (cidr.family !== 4) throw new AgentError('INVALID_CONFIG', 'only an IPv4 pod CIDR is supported so far', options.podCIDR, 'podCIDR');
  const encap = options.trafficMode === 'encap' || options.trafficMode === 'hybrid';
  const wireGuard = options.trafficEncryptionMode === 'wireGuard';
  const ipsec = options.trafficEncryptionMode === 'ipsec';
  return {
    options,
    podCIDR: cidr.toString(),
    policyOnly: options.trafficMode === 'networkPolicyOnly',
    encap,
    wireGuard,
    ipsec,
    // Each feature's overhead on traffic between nodes (tunnel, WireGuard, ESP), as its options fragment says.
    mtu: podMtuOf(options),
    net: new NodeNetwork(options.nodeNetns, { unmasqueraded: unmasqueradedOf(options), netnsHelper: options.netnsHelper || undefined }),
    metrics: new AgentMetrics(),
    log: options.logger,
  };
}
