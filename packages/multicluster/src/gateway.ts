// Pure: which Node is a member's Multi-cluster Gateway. Candidates carry the annotation
// `multicluster.antrea.io/gateway=true`; the current Gateway stays while it is a Ready candidate,
// otherwise the first Ready candidate by name takes over. gatewayIP is the gateway-ip annotation,
// else the InternalIP or ExternalIP by precedence; internalIP is always the InternalIP; the
// WireGuard public key its agent published (if any) goes along. A dual-stack Node (an IPv4 and an
// IPv6 address of a type) also gives gatewayIPv6 and internalIPv6: the tunnels stay IPv4, the IPv6
// addresses are what IPv6 traffic to other clusters is SNATed to and what their replies go to. An
// IPv6-only Node gives gatewayIPv6 and internalIPv6 alone: the tunnels to it are IPv6.
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
/** The Node's first address of a type and family. */
const address = (n: GatewayNode, type: string, family: 4 | 6): string | undefined => n.status?.addresses?.find((a) => a.type === type && isIP(a.address) === family)?.address;

/** The Gateway the member should have, or undefined when no candidate is Ready and addressed. */
export function chooseGateway(input: { nodes: readonly GatewayNode[]; current?: string; namespace: string; precedence?: GatewayIPPrecedence }): Gateway | undefined {
  const candidates = input.nodes.filter((n) => n.metadata.annotations?.[GATEWAY_ANNOTATION] === 'true' && ready(n) && (address(n, 'InternalIP', 4) ?? address(n, 'InternalIP', 6)));
  candidates.sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
  const node = candidates.find((n) => n.metadata.name === input.current) ?? candidates[0];
  if (!node) return undefined;
  const external = input.precedence === 'external';
  const annotation = node.metadata.annotations?.[GATEWAY_IP_ANNOTATION];
  const publicKey = node.metadata.annotations?.[GATEWAY_WIREGUARD_KEY_ANNOTATION];
  const internalIP = address(node, 'InternalIP', 4);
  const internalIPv6 = address(node, 'InternalIP', 6);
  // The gateway-ip annotation sets the IPv4 address, or an IPv6-only Node's IPv6 one.
  const gatewayIP = internalIP ? (annotation ?? (external ? address(node, 'ExternalIP', 4) : undefined) ?? internalIP) : undefined;
  const annotated6 = !internalIP && annotation && isIP(annotation) === 6 ? annotation : undefined;
  const gatewayIPv6 = internalIPv6 ? (annotated6 ?? (external ? address(node, 'ExternalIP', 6) : undefined) ?? internalIPv6) : undefined;
  return {
    apiVersion: 'multicluster.crd.antrea.io/v1alpha1', kind: 'Gateway', metadata: { name: node.metadata.name ?? '', namespace: input.namespace },
    ...(gatewayIP ? { gatewayIP } : {}), ...(internalIP ? { internalIP } : {}),
    ...(gatewayIPv6 ? { gatewayIPv6 } : {}), ...(internalIPv6 ? { internalIPv6 } : {}),
    ...(publicKey ? { wireGuard: { publicKey } } : {}),
  };
}
