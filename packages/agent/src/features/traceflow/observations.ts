/**
 * What one node saw of a traced packet, from the Traceflow packet-in its pipeline sent (pure).
 * The packet-in comes from the table that decided the packet's fate on this node (a drop, or its
 * output); the registers it carries say what the pipeline did before that: the NetworkPolicy
 * rules that allowed it (their conjunction ids), the deny rule and its disposition, the output
 * port. Observations are listed in the order the pipeline met them, as Antrea lists them.
 */
import type { TraceflowObservation } from '@switchyard/apis/types';
import type { Match } from '@switchyard/openflow/codec';
import {
  APConjIDField, APDenyRegMark, APDispositionField, DISPOSITION_REJECT, EgressMarkField, OutputToOFPortRegMark, TFEgressConjIDField, TFIngressConjIDField, TargetOFPortField,
  type EgressRule, type LocalPod, type RemoteNode,
} from '@switchyard/openflow-pipeline';
import { parseCidr, parseIp } from '@switchyard/ipam/cidr';
import type { ParsedIp } from '../../packet';

/** A NetworkPolicy rule as a Traceflow names it. */
export interface TracedRule {
  /** `<type>:<namespace>/<name>` (`AntreaClusterNetworkPolicy:<name>` for cluster-scoped kinds), as Antrea writes it. */
  policy: string;
  /** The rule's name, or `rule <index>` when it has none. */
  rule: string;
}

/** What the agent knows of its node when it reads a packet-in. */
export interface TraceNodeView {
  /** Table names by id (the installed pipeline). */
  tableName(id: number): string | undefined;
  /** The gateway's IPv4 address is absent on an IPv6-only node; its IPv6 one on an IPv4-only node. */
  gateway: { ofport: number; ip?: string; ipv6?: string };
  tunnelOfport?: number;
  nodeIP: string;
  /** The node's IPv6 address (dual-stack), what IPv6 traffic leaving the cluster is masqueraded to. */
  nodeIPv6?: string;
  /** Absent on an IPv6-only node. */
  podCIDR?: string;
  /** The IPv6 pod CIDR (dual-stack, IPv6-only). */
  podCIDRv6?: string;
  pods: readonly LocalPod[];
  remoteNodes: readonly RemoteNode[];
  /** The rule behind each conjunction id in use. */
  rules: ReadonlyMap<number, TracedRule>;
  /** The Egresses this node realizes (`NodeState.egress`), each with the name of the node owning its IP. */
  egresses?: readonly TracedEgress[];
}

/** An Egress as a Traceflow names it: the pipeline's rule plus its egress node's name. */
export interface TracedEgress extends Pick<EgressRule, 'name' | 'ip' | 'local' | 'mark' | 'ownerIP' | 'localPods'> {
  /** The node owning the IP (this node when `local`). */
  egressNode: string;
}

/** The traced packet-in. */
export interface TracedPacketIn {
  tableId: number;
  metadata: Match;
  packet: ParsedIp;
}

/** How the traced packet started: injected or tagged on this node (Sender) or arrived from elsewhere. */
export interface TraceOrigin {
  sender: boolean;
  /** The destination the probe was sent to (a Service's ClusterIP for a Service trace). */
  dstIP?: string;
}

const reg = (m: Match, r: keyof Match): number | undefined => {
  const v = m[r];
  if (v === undefined) return undefined;
  return typeof v === 'object' ? Number((v as { value: number }).value) : Number(v);
};

/** Whether `ip` is in `cidr`; false without one (an IPv6-only node or peer has no IPv4 pod CIDR) or in another family. */
const inCidr = (ip: string, cidr: string | undefined): boolean => cidr !== undefined && cidr.includes(':') === ip.includes(':') && parseCidr(cidr).contains(parseIp(ip));

/** Whether `ip` is in a pod CIDR of a node (either family). */
const inPodCidrs = (ip: string, n: { podCIDR?: string; podCIDRv6?: string }): boolean => inCidr(ip, n.podCIDR) || inCidr(ip, n.podCIDRv6);

/** The NetworkPolicy observation of an allowing rule's conjunction id, if one was hit. */
function allowedBy(view: TraceNodeView, id: number, info: 'EgressRule' | 'IngressRule'): TraceflowObservation | undefined {
  if (id === 0) return undefined;
  const rule = view.rules.get(id);
  return { component: 'NetworkPolicy', componentInfo: info, action: 'Forwarded', ...(rule ? { networkPolicy: rule.policy, networkPolicyRule: rule.rule } : {}) };
}

/** A drop in a NetworkPolicy table: a K8s default drop, or an Antrea-native Drop/Reject rule (its id in APConjIDField). */
function policyDrop(view: TraceNodeView, table: string, md: Match): TraceflowObservation {
  if (table.endsWith('DefaultRule')) return { component: 'NetworkPolicy', componentInfo: table, action: 'Dropped' };
  const r0 = reg(md, APDenyRegMark.field.reg);
  const rule = view.rules.get(APConjIDField.read(reg(md, APConjIDField.reg)));
  const action = APDispositionField.read(r0) === DISPOSITION_REJECT ? 'Rejected' : 'Dropped';
  return { component: 'NetworkPolicy', componentInfo: table, action, ...(rule ? { networkPolicy: rule.policy, networkPolicyRule: rule.rule } : {}) };
}

/** The tunnel destination the flows loaded: `tun_dst`, or `tun_ipv6_dst` on an IPv6 underlay. */
const tunnelDstOf = (md: Match): string | undefined => {
  const dst = md.tunIpv4Dst ?? md.tunIpv6Dst;
  return dst === undefined ? undefined : typeof dst === 'string' ? dst : dst.value;
};

/**
 * The Egress hop, as Antrea reports it (component Egress with the Egress's name, IP and node): on a
 * node that does not own the IP, a member's packet leaving the cluster goes into the tunnel to the
 * egress node (ForwardedToEgressNode); on the egress node, a packet carrying an Egress's mark is
 * SNATed to its IP (MarkedForSNAT). Undefined for any other packet.
 */
function egressHop(view: TraceNodeView, md: Match, p: ParsedIp, port: number): TracedEgress & { action: 'MarkedForSNAT' | 'ForwardedToEgressNode' } | undefined {
  const egresses = view.egresses ?? [];
  const mark = EgressMarkField.read(reg(md, EgressMarkField.reg));
  if (mark !== 0) {
    const e = egresses.find((x) => x.local && x.mark === mark);
    return e ? { ...e, action: 'MarkedForSNAT' } : undefined;
  }
  // Diverted only when no pod or node route took the packet: a destination in a peer's pod CIDR is pod traffic.
  if (port !== view.tunnelOfport || view.remoteNodes.some((n) => inPodCidrs(p.dstIP, n))) return undefined;
  const dst = tunnelDstOf(md);
  const e = egresses.find((x) => !x.local && x.localPods.includes(p.srcIP) && (dst === undefined || x.ownerIP === dst));
  return e ? { ...e, action: 'ForwardedToEgressNode' } : undefined;
}

/** The Output decision: a local pod, the tunnel, the gateway (the node, a peer through host routes, or out of the overlay). */
function outputObservations(view: TraceNodeView, md: Match, p: ParsedIp): TraceflowObservation[] {
  const r0 = reg(md, OutputToOFPortRegMark.field.reg);
  if (OutputToOFPortRegMark.field.read(r0) !== OutputToOFPortRegMark.value) return [{ component: 'Forwarding', componentInfo: 'Output', action: 'Dropped' }];
  const port = TargetOFPortField.read(reg(md, TargetOFPortField.reg));
  const eg = egressHop(view, md, p, port);
  const out = outputObservation(view, md, p, port);
  if (!eg) return [out];
  const hop: TraceflowObservation = { component: 'Egress', action: eg.action, egress: eg.name, egressIP: eg.ip, egressNode: eg.egressNode };
  // On the egress node OVS has SNATed the packet to the Egress IP (no node masquerade after it).
  return [hop, eg.action === 'MarkedForSNAT' && out.action === 'ForwardedOutOfOverlay' ? { ...out, translatedSrcIP: eg.ip } : out];
}

function outputObservation(view: TraceNodeView, md: Match, p: ParsedIp, port: number): TraceflowObservation {
  const pod = view.pods.find((x) => x.ofport === port);
  if (pod) return { component: 'Forwarding', componentInfo: 'Output', action: 'Delivered', pod: `${pod.namespace}/${pod.name}` };
  const peer = view.remoteNodes.find((n) => inPodCidrs(p.dstIP, n));
  if (port === view.tunnelOfport || (peer?.ipsecTunnelOfport !== undefined && port === peer.ipsecTunnelOfport)) {
    const tunnelDst = tunnelDstOf(md) ?? peer?.nodeIP;
    return { component: 'Forwarding', componentInfo: 'Output', action: 'Forwarded', ...(tunnelDst ? { tunnelDstIP: tunnelDst } : {}) };
  }
  if (port === view.gateway.ofport) {
    if ([view.gateway.ip, view.gateway.ipv6, view.nodeIP, view.nodeIPv6].includes(p.dstIP)) return { component: 'Forwarding', componentInfo: 'Output', action: 'Delivered' };
    // The host routes it to the peer (noEncap, hybrid in one subnet, WireGuard): the peer reports it.
    if (peer) return { component: 'Forwarding', componentInfo: 'Output', action: 'Forwarded', tunnelDstIP: peer.nodeIP };
    // Leaves the overlay for the host: the node masquerades pod addresses to its own when the
    // packet leaves the cluster (not for an address of its own pod CIDR, which the host drops or routes back).
    // IPv6 (ip6tables) likewise, to the node's IPv6 address when it has one.
    const masqueraded = inPodCidrs(p.srcIP, view) && !inPodCidrs(p.dstIP, view);
    const to = p.family === 6 ? view.nodeIPv6 : view.nodeIP;
    return { component: 'Forwarding', componentInfo: 'Output', action: 'ForwardedOutOfOverlay', ...(masqueraded && to !== undefined ? { translatedSrcIP: to } : {}) };
  }
  return { component: 'Forwarding', componentInfo: `Output to port ${port}`, action: 'Forwarded' };
}

/**
 * The observations of one node from its Traceflow packet-in: what the pipeline did to the packet
 * on this node, ending with the decision the packet-in reports.
 */
export function observe(view: TraceNodeView, pin: TracedPacketIn, origin: TraceOrigin): TraceflowObservation[] {
  const table = view.tableName(pin.tableId) ?? `table ${pin.tableId}`;
  const md = pin.metadata;
  const obs: TraceflowObservation[] = [];
  if (origin.sender) {
    obs.push({ component: 'SpoofGuard', action: table === 'SpoofGuard' ? 'Dropped' : 'Forwarded' });
    if (table === 'SpoofGuard') return obs;
  } else {
    obs.push({ component: 'Forwarding', componentInfo: 'Classification', action: 'Received' });
  }
  if (table === 'ConntrackState') return [...obs, { component: 'Forwarding', componentInfo: 'ConntrackState: invalid connection', action: 'Dropped' }];
  // A Service's endpoint chosen: the packet reached this point with the endpoint's address.
  if (origin.sender && origin.dstIP !== undefined && pin.packet.dstIP !== origin.dstIP) {
    obs.push({ component: 'LB', componentInfo: 'EndpointDNAT', action: 'Forwarded', translatedDstIP: pin.packet.dstIP });
  }
  const egress = allowedBy(view, TFEgressConjIDField.read(reg(md, TFEgressConjIDField.reg)), 'EgressRule');
  if (egress) obs.push(egress);
  if (table === 'EgressDefaultRule' || table === 'EgressMetric') return [...obs, policyDrop(view, table, md)];
  const ingress = allowedBy(view, TFIngressConjIDField.read(reg(md, TFIngressConjIDField.reg)), 'IngressRule');
  if (ingress) obs.push(ingress);
  if (table === 'IngressDefaultRule' || table === 'IngressMetric') return [...obs, policyDrop(view, table, md)];
  if (table === 'Output') return [...obs, ...outputObservations(view, md, pin.packet)];
  return [...obs, { component: 'Forwarding', componentInfo: table, action: 'Dropped' }];
}

/** Whether an observation ends a trace (nothing follows it on another node). */
export const isFinal = (o: TraceflowObservation | undefined): boolean =>
  o?.action === 'Delivered' || o?.action === 'Dropped' || o?.action === 'Rejected' || o?.action === 'ForwardedOutOfOverlay';
