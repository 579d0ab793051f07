/**
 * Multi-cluster dataplane input: the node's {@link MulticlusterSpec} computed from the elected
 * Gateway and the ClusterInfoImports of the Multi-cluster namespace (pure).
 */
import { isIP } from 'node:net';
import { normalizedLabel } from '@switchyard/apis';
import { parseCidr } from '@switchyard/ipam/cidr';
import type { MulticlusterSpec } from '@switchyard/openflow-pipeline';
import { parseWireGuardKey, type WireGuardFamilies, type WireGuardPeer } from '../wireguard/wireguard';

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

/** The canonical text of a CIDR (host bits cleared, RFC 5952), or the text itself when ipam reads it otherwise. */
function canonicalCIDR(text: string): string {
  try {
    return parseCidr(text).toString();
  } catch {
    return text;
  }
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
  /** Clusters left out, with why (no gateway address or CIDR of this gateway's families, no or a malformed key). */
  skipped: { clusterID: string; reason: string }[];
}

/** The address families (4, 6) of pod families `f`: a node reaches, and carries, these alone. */
const familiesOf = (f: WireGuardFamilies): readonly number[] => (f === 'ipv4' ? [4] : f === 'ipv6' ? [6] : [4, 6]);
const FAMILY_NAMES: Record<WireGuardFamilies, string> = { ipv4: 'IPv4', ipv6: 'IPv6', dual: 'IPv4 or IPv6' };

/** A remote cluster's CIDRs in spec order (service CIDRs, then pod CIDRs), of the families in `families` (all without it). */
function remoteCIDRs(rc: RemoteClusterFacts, podCIDRs: boolean, families?: WireGuardFamilies): string[] {
  const all = [...(rc.serviceCIDR ? [rc.serviceCIDR] : []), ...(rc.serviceCIDRv6 ? [rc.serviceCIDRv6] : []), ...(podCIDRs ? rc.podCIDRs : [])];
  if (families === undefined) return all;
  const want = familiesOf(families);
  return all.filter((c) => want.includes(cidrFamily(c)));
}

/**
 * The address of a remote cluster's gateway that a node of `families` reaches it at: its IPv4
 * gateway IP unless this node is IPv6-only or the remote cluster is (then its IPv6 one, as the
 * node-to-node WireGuard does); undefined when they share no family. Without `families`, the
 * first gateway IP as before.
 */
function remoteGatewayOf(rc: RemoteClusterFacts, families?: WireGuardFamilies): string | undefined {
  const first = rc.gatewayIPs[0];
  if (families === undefined || first === undefined) return first;
  const v4 = isIP(first) === 4 ? first : undefined;
  const v6 = rc.gatewayIPv6 ?? (isIP(first) === 6 ? first : undefined);
  return families === 'ipv6' ? v6 : families === 'ipv4' ? v4 : v4 ?? v6;
}

/**
 * The WireGuard peers of this cluster's gateway: each other cluster's gateway with its published
 * key, allowed its service CIDRs and pod CIDRs (always both: the receiving gateway SNATs, so its
 * cluster's replies go back to the original client address, a remote pod's) of this gateway's
 * pod `families` (default IPv4). The endpoint is `<IPv4 gatewayIP>:<port>` while both sides have
 * IPv4, as between dual-stack nodes (IPv6 rides the same session); an IPv6-only side makes it
 * `[<gatewayIPv6>]:<port>`. Empty when this node is not the gateway.
 */
export function gatewayWireGuardPlan(spec: MulticlusterSpec | undefined, remoteClusters: readonly RemoteClusterFacts[], port: number, families: WireGuardFamilies = 'ipv4'): GatewayWireGuardPlan {
  const plan: GatewayWireGuardPlan = { peers: [], cidrs: [], skipped: [] };
  if (!spec?.isGateway) return plan;
  for (const rc of [...remoteClusters].sort((a, b) => a.clusterID.localeCompare(b.clusterID))) {
    const gatewayIP = remoteGatewayOf(rc, families);
    // Canonical, as the device and `ip route` print them (the host routes are diffed against those).
    const allowedIPs = remoteCIDRs(rc, true, families).map(canonicalCIDR);
    const skip = (reason: string): void => void plan.skipped.push({ clusterID: rc.clusterID, reason });
    if (rc.gatewayIPs.length === 0) skip('no gateway IP in its ClusterInfo');
    else if (gatewayIP === undefined) {
      skip(families === 'ipv6'
        ? `its ClusterInfo has no IPv6 gateway address (gatewayInfos[0].gatewayIPv6, got ${rc.gatewayIPs[0]}), and this gateway is IPv6-only`
        : `its gateway has an IPv6 address alone (${rc.gatewayIPs[0]}: an IPv6-only cluster), and this gateway is IPv4-only`);
    } else if (allowedIPs.length === 0) {
      const has = remoteCIDRs(rc, true);
      skip(has.length === 0
        ? 'neither a service CIDR nor pod CIDRs in its ClusterInfo'
        : `no service or pod CIDR of this gateway's family (${FAMILY_NAMES[families]}) in its ClusterInfo, only ${has.join(', ')}`);
    } else if (rc.wireGuardPublicKey === undefined) skip('its gateway has not published a WireGuard public key (spec.wireGuard.publicKey)');
    else if (!parseWireGuardKey(rc.wireGuardPublicKey)) skip(`spec.wireGuard.publicKey ${JSON.stringify(rc.wireGuardPublicKey)} is not a base64 32-byte key`);
    else {
      plan.peers.push({ node: rc.clusterID, publicKey: rc.wireGuardPublicKey, endpoint: isIP(gatewayIP) === 6 ? `[${gatewayIP}]:${port}` : `${gatewayIP}:${port}`, allowedIPs });
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
  /**
   * This node's pod families: other clusters' CIDRs of the families it lacks are left out, and a
   * remote gateway is reached at its address of a family this node has (an IPv6-only node: its
   * IPv6 gateway address). Absent: every CIDR and the first gateway IP, as before.
   */
  families?: WireGuardFamilies;
}

/**
 * The node's Multi-cluster spec: undefined without a Gateway (nothing reaches other clusters);
 * otherwise each remote cluster with a gateway address and at least one CIDR of this node's
 * families (its service CIDRs, plus its pod CIDRs with pod-to-pod connectivity or on a WireGuard
 * gateway) goes to that gateway address, sorted by cluster ID.
 */
export function multiclusterSpecOf(input: MulticlusterInput): MulticlusterSpec | undefined {
  const gw = [...input.gateways].sort((a, b) => a.name.localeCompare(b.name))[0];
  if (!gw) return undefined;
  const isGateway = gw.name === input.nodeName;
  const remoteClusters: MulticlusterSpec['remoteClusters'] = [];
  for (const rc of [...input.remoteClusters].sort((a, b) => a.clusterID.localeCompare(b.clusterID))) {
    const gatewayIP = remoteGatewayOf(rc, input.families);
    // A WireGuard gateway also needs the pod CIDRs: connections from other clusters keep their pod source address up to it.
    const cidrs = remoteCIDRs(rc, input.podToPod || (isGateway && input.wireGuard === true), input.families);
    if (gatewayIP === undefined || cidrs.length === 0) continue;
    // Replies to a remote gateway's IPv6 address: without WireGuard only (it does not SNAT through WireGuard), and from a node with IPv6.
    const v6 = rc.gatewayIPv6 && !input.wireGuard && input.families !== 'ipv4' ? { gatewayIPv6: rc.gatewayIPv6 } : {};
    remoteClusters.push({ cidrs, gatewayIP, ...v6 });
  }
  return {
    isGateway, remoteClusters, localGatewayIP: gw.internalIP, ...(isGateway ? { gatewayIP: gw.gatewayIP } : {}),
    ...(isGateway && gw.gatewayIPv6 && !input.wireGuard ? { gatewayIPv6: gw.gatewayIPv6 } : {}),
    ...(input.labelIdentities?.length ? { labelIdentities: input.labelIdentities.map((l) => ({ ...l })) } : {}),
    ...(input.wireGuard ? { wireGuard: true } : {}),
  };
}
