/**
 * Multi-cluster dataplane input: the node's {@link MulticlusterSpec} computed from the elected
 * Gateway and the ClusterInfoImports of the Multi-cluster namespace (pure).
 */
import { isIP } from 'node:net';
import { normalizedLabel } from '@switchyard/apis';
import type { MulticlusterSpec } from '@switchyard/openflow-pipeline';
import { parseWireGuardKey, type WireGuardPeer } from '../wireguard/wireguard';

/** The Gateway CR as the agent reads it (multicluster.crd.antrea.io/v1alpha1, named after its Node). */
export interface GatewayFacts {
  name: string;
  /** What other clusters' gateways tunnel to: `gatewayIP`, an IPv6-only Gateway's `gatewayIPv6`. */
  gatewayIP: string;
  /** What this cluster's nodes tunnel to: `internalIP`, an IPv6-only Gateway's `internalIPv6`. */
  internalIP: string;
  /** A dual-stack Gateway's IPv6 address (`gatewayIPv6`): what it SNATs IPv6 traffic to other clusters to. */
  gatewayIPv6?: string;
}

/** Another cluster's ClusterInfoImport as the agent reads it. */
export interface RemoteClusterFacts {
  clusterID: string;
  gatewayIPs: string[];
  serviceCIDR?: string;
  /** A dual-stack cluster's IPv6 Service range (`spec.serviceCIDRv6`). */
  serviceCIDRv6?: string;
  /** Pod CIDRs of either family. */
  podCIDRs: string[];
  /** Its dual-stack gateway's IPv6 address (`spec.gatewayInfos[0].gatewayIPv6`): where replies to the IPv6 connections it SNATed go. */
  gatewayIPv6?: string;
  /** Fields left out because their value is malformed, each naming the field and value. */
  problems?: string[];
  /** `spec.wireGuard.publicKey`: the public key of its gateway's Multi-cluster WireGuard device, as written. */
  wireGuardPublicKey?: string;
}

/** The family (4, 6) of a CIDR's text, 0 when it is none. */
function cidrFamily(v: string): number {
  const [ip, len, ...rest] = v.split('/');
  const family = isIP(ip ?? '');
  return rest.length === 0 && family !== 0 && len !== undefined && /^\d{1,3}$/.test(len) && Number(len) <= (family === 4 ? 32 : 128) ? family : 0;
}

/** An IPv6 address field's value, else undefined. */
const ipv6Of = (v: unknown): string | undefined => (typeof v === 'string' && isIP(v) === 6 ? v : undefined);
/** A non-empty string field's value, else undefined. */
const textOf = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * Gateway facts of a Gateway object; undefined when a field is missing. A `gatewayIPv6` that is not
 * an IPv6 address is left out. An IPv6-only Gateway (`gatewayIPv6` / `internalIPv6` without
 * `gatewayIP` / `internalIP`) is tunnelled to at its IPv6 addresses.
 */
export function gatewayFacts(o: { metadata: { name?: string }; [k: string]: unknown }): GatewayFacts | undefined {
  const name = o.metadata.name;
  const gatewayIPv6 = ipv6Of(o['gatewayIPv6']);
  const gatewayIP = textOf(o['gatewayIP']) ?? gatewayIPv6;
  const internalIP = textOf(o['internalIP']) ?? ipv6Of(o['internalIPv6']);
  if (!name || !gatewayIP || !internalIP) return undefined;
  return { name, gatewayIP, internalIP, ...(gatewayIPv6 ? { gatewayIPv6 } : {}) };
}

/** Remote cluster facts of a ClusterInfoImport object; undefined without a cluster ID. */
export function remoteClusterFacts(o: { metadata: { name?: string }; [k: string]: unknown }): RemoteClusterFacts | undefined {
  const spec = (o['spec'] ?? {}) as { clusterID?: unknown; gatewayInfos?: unknown; serviceCIDR?: unknown; serviceCIDRv6?: unknown; podCIDRs?: unknown; wireGuard?: { publicKey?: unknown } };
  if (typeof spec.clusterID !== 'string' || !spec.clusterID) return undefined;
  // An IPv6-only cluster's gateway has gatewayIPv6 alone: the tunnel goes to that address.
  const gatewayIPs = Array.isArray(spec.gatewayInfos)
    ? spec.gatewayInfos.map((g) => textOf((g as { gatewayIP?: unknown }).gatewayIP) ?? ipv6Of((g as { gatewayIPv6?: unknown }).gatewayIPv6)).filter((ip): ip is string => ip !== undefined)
    : [];
  // Malformed values are left out (the rest still routes), each named with its field and value.
  const problems: string[] = [];
  const where = `ClusterInfoImport ${o.metadata.name ?? spec.clusterID}`;
  const podCIDRs: string[] = [];
  if (Array.isArray(spec.podCIDRs))
    spec.podCIDRs.forEach((c: unknown, i) => {
      if (typeof c === 'string' && c !== '' && cidrFamily(c) !== 0) podCIDRs.push(c);
      else if (c !== '') problems.push(`${where}: spec.podCIDRs[${i}] ${JSON.stringify(c)} is not a CIDR`);
    });
  const v6 = (field: string, value: unknown, cidr: boolean): string | undefined => {
    if (value === undefined || value === '') return undefined;
    if (typeof value === 'string' && (cidr ? cidrFamily(value) : isIP(value)) === 6) return value;
    problems.push(`${where}: ${field} ${JSON.stringify(value)} is not an IPv6 ${cidr ? 'CIDR' : 'address'}`);
    return undefined;
  };
  const serviceCIDRv6 = v6('spec.serviceCIDRv6', spec.serviceCIDRv6, true);
  const first = Array.isArray(spec.gatewayInfos) ? (spec.gatewayInfos[0] as { gatewayIPv6?: unknown } | undefined) : undefined;
  const gatewayIPv6 = v6('spec.gatewayInfos[0].gatewayIPv6', first?.gatewayIPv6, false);
  const key = spec.wireGuard?.publicKey;
  return {
    clusterID: spec.clusterID, gatewayIPs, ...(typeof spec.serviceCIDR === 'string' && spec.serviceCIDR ? { serviceCIDR: spec.serviceCIDR } : {}), podCIDRs,
    ...(serviceCIDRv6 ? { serviceCIDRv6 } : {}), ...(gatewayIPv6 ? { gatewayIPv6 } : {}),
    ...(typeof key === 'string' && key ? { wireGuardPublicKey: key } : {}),
    ...(problems.length > 0 ? { problems } : {}),
  };
}

/** What the gateway's Multi-cluster WireGuard device and host routes should hold. */
export interface GatewayWireGuardPlan {
  /** One peer per other cluster (`node` is its cluster ID), in cluster ID order. */
  peers: WireGuardPeer[];
  /** The CIDRs routed into the device: every peer's allowed IPs. */
  cidrs: string[];
  /** Clusters left out, with why (no gateway IP, no CIDR, no or a malformed key). */
  skipped: { clusterID: string; reason: string }[];
}

/**
 * The WireGuard peers of this cluster's gateway: each other cluster's gateway at
 * `<gatewayIP>:<port>` with its published key, allowed its service CIDR and pod CIDRs (always
 * both: the receiving gateway SNATs, so its cluster's replies go back to the original client
 * address, a remote pod's). Empty when this node is not the gateway.
 */
export function gatewayWireGuardPlan(spec: MulticlusterSpec | undefined, remoteClusters: readonly RemoteClusterFacts[], port: number): GatewayWireGuardPlan {
  const plan: GatewayWireGuardPlan = { peers: [], cidrs: [], skipped: [] };
  if (!spec?.isGateway) return plan;
  for (const rc of [...remoteClusters].sort((a, b) => a.clusterID.localeCompare(b.clusterID))) {
    const gatewayIP = rc.gatewayIPs[0];
    // IPv4 only: WireGuard between the gateways does not carry IPv6 yet (docs/multicluster.md).
    const allowedIPs = [...(rc.serviceCIDR ? [rc.serviceCIDR] : []), ...rc.podCIDRs].filter((c) => cidrFamily(c) === 4);
    const skip = (reason: string): void => void plan.skipped.push({ clusterID: rc.clusterID, reason });
    if (gatewayIP === undefined) skip('no gateway IP in its ClusterInfo');
    else if (allowedIPs.length === 0) skip('neither a service CIDR nor pod CIDRs in its ClusterInfo');
    else if (rc.wireGuardPublicKey === undefined) skip('its gateway has not published a WireGuard public key (spec.wireGuard.publicKey)');
    else if (!parseWireGuardKey(rc.wireGuardPublicKey)) skip(`spec.wireGuard.publicKey ${JSON.stringify(rc.wireGuardPublicKey)} is not a base64 32-byte key`);
    else {
      plan.peers.push({ node: rc.clusterID, publicKey: rc.wireGuardPublicKey, endpoint: `${gatewayIP}:${port}`, allowedIPs });
      plan.cidrs.push(...allowedIPs);
    }
  }
  return plan;
}

/** A Pod on this node as stretched NetworkPolicy reads it. */
export interface LocalPodLabels {
  namespace: string;
  labels: Record<string, string>;
  ip: string;
  /** Every address of a dual-stack pod (`status.podIPs`), `ip` first; absent: `ip` alone. */
  ips?: string[];
}

/**
 * The label identities of this node's pods: each pod's normalized label (its Namespace's labels
 * and its own, as the Multi-cluster controller exports them) looked up in the ClusterSet's
 * LabelIdentities (`label -> id`); pods whose label has no id yet are left out. Sorted by address.
 */
export function podLabelIdentities(pods: readonly LocalPodLabels[], namespaceLabels: ReadonlyMap<string, Record<string, string>>, ids: ReadonlyMap<string, number>): { ip: string; id: number }[] {
  const out: { ip: string; id: number }[] = [];
  for (const p of pods) {
    const id = ids.get(normalizedLabel(namespaceLabels.get(p.namespace), p.labels));
    if (id !== undefined) for (const ip of p.ips ?? [p.ip]) out.push({ ip, id });
  }
  return out.sort((a, b) => a.ip.localeCompare(b.ip));
}

/** What {@link multiclusterSpecOf} computes from. */
export interface MulticlusterInput {
  nodeName: string;
  /** The Gateway CRs (the Multi-cluster controller keeps one; with several, the first by name counts). */
  gateways: readonly GatewayFacts[];
  remoteClusters: readonly RemoteClusterFacts[];
  /** `multicluster.enablePodToPodConnectivity`: remote pod CIDRs are routed too. */
  podToPod: boolean;
  /** Stretched NetworkPolicy: the label identities of this node's pods (see {@link podLabelIdentities}). */
  labelIdentities?: readonly { ip: string; id: number }[];
  /** WireGuard between the gateways (`multicluster.trafficEncryptionMode: wireGuard`). */
  wireGuard?: boolean;
}

/**
 * The node's Multi-cluster spec: undefined without a Gateway (nothing reaches other clusters);
 * otherwise each remote cluster with a gateway IP and at least one CIDR (its service CIDR, plus
 * its pod CIDRs with pod-to-pod connectivity or on a WireGuard gateway) goes to its first gateway
 * IP, sorted by cluster ID.
 */
export function multiclusterSpecOf(input: MulticlusterInput): MulticlusterSpec | undefined {
  const gw = [...input.gateways].sort((a, b) => a.name.localeCompare(b.name))[0];
  if (!gw) return undefined;
  const isGateway = gw.name === input.nodeName;
  const remoteClusters: MulticlusterSpec['remoteClusters'] = [];
  for (const rc of [...input.remoteClusters].sort((a, b) => a.clusterID.localeCompare(b.clusterID))) {
    const gatewayIP = rc.gatewayIPs[0];
    // A WireGuard gateway also needs the pod CIDRs: connections from other clusters keep their pod source address up to it.
    const all = [...(rc.serviceCIDR ? [rc.serviceCIDR] : []), ...(rc.serviceCIDRv6 ? [rc.serviceCIDRv6] : []), ...(input.podToPod || (isGateway && input.wireGuard) ? rc.podCIDRs : [])];
    // IPv6 CIDRs ride the IPv4 tunnel between the gateways; not WireGuard between them (IPv4 only).
    const cidrs = input.wireGuard ? all.filter((c) => cidrFamily(c) === 4) : all;
    if (gatewayIP === undefined || cidrs.length === 0) continue;
    remoteClusters.push({ cidrs, gatewayIP, ...(rc.gatewayIPv6 && !input.wireGuard ? { gatewayIPv6: rc.gatewayIPv6 } : {}) });
  }
  return {
    isGateway, remoteClusters, localGatewayIP: gw.internalIP, ...(isGateway ? { gatewayIP: gw.gatewayIP } : {}),
    ...(isGateway && gw.gatewayIPv6 && !input.wireGuard ? { gatewayIPv6: gw.gatewayIPv6 } : {}),
    ...(input.labelIdentities?.length ? { labelIdentities: input.labelIdentities.map((l) => ({ ...l })) } : {}),
    ...(input.wireGuard ? { wireGuard: true } : {}),
  };
}
