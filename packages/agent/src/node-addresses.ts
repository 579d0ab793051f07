/**
 * The node's pod CIDR(s) and addresses as the binary takes them: `--pod-cidr` and `--node-ip` when
 * given, else the Node object's spec.podCIDRs and InternalIPs (Antrea's agent takes them from the
 * Node alone). Pure: the caller fetches the Node when {@link needsNodeObject} says so.
 */
import { parseIp } from '@switchyard/ipam/cidr';
import { AgentError } from './errors';
import { ipv4Of } from './ipv4';
import type { NodeFacts } from './features/routes/node-routes';

/** What the agent runs with: its pod CIDR (IPv4, or IPv6 on an IPv6-only node), the dual-stack IPv6 one, its transport address and its IPv6 address. */
export interface NodeAddresses {
  podCIDR: string;
  podCIDRv6?: string;
  /** The transport address: IPv4, or IPv6 on an IPv6 underlay (an IPv6-only node without IPv4). */
  nodeIP: string;
  /** Dual-stack or IPv6-only: the node's IPv6 address (IPv6 node ports; the transport address itself on an IPv6 underlay). */
  nodeIPv6?: string;
}

/** What the flags gave, checked: each field absent when its flag was. */
export type GivenAddresses = Partial<NodeAddresses>;

/** `text` as an IPv6 address in RFC 5952 form, when it is one in any form. */
function anyIpv6(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  try {
    const ip = parseIp(text);
    return ip.family === 6 ? ip.toString() : undefined;
  } catch {
    return undefined;
  }
}

/** Reads `--pod-cidr v4[,v6]|v6` and `--node-ip v4[,v6]|v6`; a malformed value is an `INVALID_CONFIG` naming the flag. */
export function givenAddresses(flags: { podCidr?: string | undefined; nodeIp?: string | undefined }): GivenAddresses {
  const cidrs = flags.podCidr?.split(',').map((s) => s.trim());
  if (cidrs && (cidrs.length > 2 || (cidrs.length === 2 && (cidrs[0]!.includes(':') || !cidrs[1]!.includes(':'))))) {
    throw new AgentError('INVALID_CONFIG', '--pod-cidr takes an IPv4 CIDR, an IPv4 and an IPv6 CIDR comma-separated (dual-stack), or an IPv6 CIDR (IPv6-only)', flags.podCidr, '--pod-cidr');
  }
  const ips = flags.nodeIp?.split(',').map((s) => s.trim());
  // An IPv6 address alone: an IPv6-only node without IPv4, whose tunnels run over IPv6 from it.
  const only6 = ips?.length === 1 ? anyIpv6(ips[0]) : undefined;
  const given6 = ips?.[1] === undefined ? only6 : anyIpv6(ips[1]);
  if (ips && only6 === undefined && (ips.length > 2 || ipv4Of(ips[0]) === undefined || (ips.length === 2 && given6 === undefined))) {
    throw new AgentError('INVALID_CONFIG', `--node-ip takes an IPv4 address, an IPv4 and an IPv6 address comma-separated (dual-stack), or an IPv6 address alone (an IPv6-only node without IPv4), got ${JSON.stringify(flags.nodeIp)}`, flags.nodeIp, '--node-ip');
  }
  const nodeIP = only6 ?? ips?.[0];
  return {
    ...(cidrs?.[0] ? { podCIDR: cidrs[0] } : {}),
    ...(cidrs?.[1] ? { podCIDRv6: cidrs[1] } : {}),
    ...(nodeIP ? { nodeIP } : {}),
    ...(given6 ? { nodeIPv6: given6 } : {}),
  };
}

/** Whether the IPv6 pods of a node with these pod CIDRs want an IPv6 node address (dual-stack or IPv6-only). */
const hasV6Pods = (g: GivenAddresses): boolean => g.podCIDRv6 !== undefined || (g.podCIDR?.includes(':') ?? false);

/**
 * Whether the Node object has something the flags left out: the pod CIDR, the transport address,
 * or (a node with IPv6 pods given `--node-ip <IPv4>` alone) the IPv6 address.
 */
export function needsNodeObject(g: GivenAddresses): boolean {
  return !g.podCIDR || !g.nodeIP || (g.nodeIPv6 === undefined && hasV6Pods(g));
}

/**
 * The flags, completed from the Node's facts: its pod CIDRs where `--pod-cidr` is absent; its
 * IPv4 InternalIP as the transport address where `--node-ip` is absent, or on an IPv6-only node
 * whose Node has an IPv6 InternalIP alone that one (an IPv6 underlay); its IPv6 InternalIP as the
 * IPv6 address of a node with IPv6 pods. Refuses (naming the flag) what no node can run.
 */
export function nodeAddressesOf(given: GivenAddresses, node: NodeFacts | undefined): NodeAddresses {
  const cidrs = given.podCIDR ? given : { podCIDR: node?.podCIDR ?? node?.podCIDRv6, podCIDRv6: node?.podCIDR !== undefined ? node.podCIDRv6 : undefined };
  const podCIDR = cidrs.podCIDR;
  const podCIDRv6 = cidrs.podCIDRv6;
  if (!podCIDR) throw new AgentError('INVALID_CONFIG', 'no pod CIDR: pass --pod-cidr or give the Node a spec.podCIDR', undefined, '--pod-cidr');
  const v6Pods = hasV6Pods({ podCIDR, ...(podCIDRv6 ? { podCIDRv6 } : {}) });
  const v6Only = podCIDR.includes(':') && podCIDRv6 === undefined;
  // The Node's IPv6 InternalIP stands in for the IPv6 address the flag did not give (nodeFacts gives it canonical).
  const nodeIPv6 = given.nodeIPv6 ?? (given.nodeIP?.includes(':') ? undefined : node?.nodeIPv6);
  // A Node with an IPv6 InternalIP alone, on an IPv6-only node: an IPv6 underlay.
  const nodeIP = given.nodeIP ?? node?.nodeIP ?? (v6Only ? nodeIPv6 : undefined);
  if (!nodeIP) throw new AgentError('INVALID_CONFIG', 'no node IP: pass --node-ip or give the Node an InternalIP (an IPv6 one alone on an IPv6-only node)', undefined, '--node-ip');
  if (nodeIP.includes(':') && !v6Only) {
    throw new AgentError('INVALID_CONFIG', `--node-ip ${nodeIP} is IPv6 alone: an IPv6 underlay is for an IPv6-only node (--pod-cidr an IPv6 CIDR alone), got pod CIDR ${[podCIDR, podCIDRv6].filter(Boolean).join(',')}`, nodeIP, '--node-ip');
  }
  return { podCIDR, ...(podCIDRv6 ? { podCIDRv6 } : {}), nodeIP, ...(nodeIPv6 && v6Pods ? { nodeIPv6 } : {}) };
}
