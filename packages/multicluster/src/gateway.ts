// Pure: which Node is a member's Multi-cluster Gateway. Candidates carry the annotation
// `multicluster.antrea.io/gateway=true`; the current Gateway stays while it is a Ready candidate,
// otherwise the first Ready candidate by name takes over. gatewayIP is the gateway-ip annotation,
// else the InternalIP or ExternalIP by precedence; internalIP is always the InternalIP; the
// WireGuard public key its agent published (if any) goes along. A dual-stack Node (an IPv4 and an
// IPv6 address of a type) also gives gatewayIPv6 and internalIPv6: the tunnels stay IPv4, the IPv6
// addresses are what IPv6 traffic to other clusters is SNATed to and what their replies go to.
import { isIP } from 'node:net';
import type { Gateway } from '@switchyard/apis';
import { GATEWAY_ANNOTATION, GATEWAY_IP_ANNOTATION, GATEWAY_WIREGUARD_KEY_ANNOTATION } from './resources';

/** Which Node address is the gateway IP (`gatewayIPPrecedence`). */
export type GatewayIPPrecedence = 'internal' | 'external';

/** The parts of a Node the choice reads. */
export interface GatewayNode {
  metadata: { name?: string; annotations?: Record<string, string> };
  status?: { addresses?: { type: string; address: string }[]; conditions?: { type: string; status: string }[] };
}

const ready = (n: GatewayNode): boolean => (n.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
const address = (n: GatewayNode, type: string): string | undefined => n.status?.addresses?.find((a) => a.type === type)?.address;
const addressV6 = (n: GatewayNode, type: string): string | undefined => n.status?.addresses?.find((a) => a.type === type && isIP(a.address) === 6)?.address;

/** The Gateway the member should have, or undefined when no candidate is Ready and addressed. */
export function chooseGateway(input: { nodes: readonly GatewayNode[]; current?: string; namespace: string; precedence?: GatewayIPPrecedence }): Gateway | undefined {
  const candidates = input.nodes.filter((n) => n.metadata.annotations?.[GATEWAY_ANNOTATION] === 'true' && ready(n) && address(n, 'InternalIP'));
  candidates.sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
  const node = candidates.find((n) => n.metadata.name === input.current) ?? candidates[0];
  if (!node) return undefined;
  const internalIP = address(node, 'InternalIP')!;
  const preferred = input.precedence === 'external' ? (address(node, 'ExternalIP') ?? internalIP) : internalIP;
  const gatewayIP = node.metadata.annotations?.[GATEWAY_IP_ANNOTATION] ?? preferred;
  const publicKey = node.metadata.annotations?.[GATEWAY_WIREGUARD_KEY_ANNOTATION];
  // Dual-stack: the IPv6 twins, only beside IPv4 primaries (an IPv6-only Node's addresses are already IPv6).
  const internalIPv6 = isIP(internalIP) === 4 ? addressV6(node, 'InternalIP') : undefined;
  const gatewayIPv6 = isIP(gatewayIP) === 4 ? ((input.precedence === 'external' ? addressV6(node, 'ExternalIP') : undefined) ?? internalIPv6) : undefined;
  return {
    apiVersion: 'multicluster.crd.antrea.io/v1alpha1', kind: 'Gateway', metadata: { name: node.metadata.name ?? '', namespace: input.namespace }, gatewayIP, internalIP,
    ...(gatewayIPv6 ? { gatewayIPv6 } : {}), ...(internalIPv6 ? { internalIPv6 } : {}),
    ...(publicKey ? { wireGuard: { publicKey } } : {}),
  };
}
