/**
 * Multi-cluster dataplane input: the node's {@link MulticlusterSpec} computed from the elected
 * Gateway and the ClusterInfoImports of the Multi-cluster namespace (pure).
 */
import { normalizedLabel } from '@switchyard/multicluster';
import type { MulticlusterSpec } from '@switchyard/openflow-pipeline';

/** The Gateway CR as the agent reads it (multicluster.crd.antrea.io/v1alpha1, named after its Node). */
export interface GatewayFacts {
  name: string;
  /** What other clusters' gateways tunnel to. */
  gatewayIP: string;
  /** What this cluster's nodes tunnel to. */
  internalIP: string;
}

/** Another cluster's ClusterInfoImport as the agent reads it. */
export interface RemoteClusterFacts {
  clusterID: string;
  gatewayIPs: string[];
  serviceCIDR?: string;
  podCIDRs: string[];
}

/** Gateway facts of a Gateway object; undefined when a field is missing. */
export function gatewayFacts(o: { metadata: { name?: string }; [k: string]: unknown }): GatewayFacts | undefined {
  const name = o.metadata.name;
  const gatewayIP = o['gatewayIP'];
  const internalIP = o['internalIP'];
  if (!name || typeof gatewayIP !== 'string' || !gatewayIP || typeof internalIP !== 'string' || !internalIP) return undefined;
  return { name, gatewayIP, internalIP };
}

/** Remote cluster facts of a ClusterInfoImport object; undefined without a cluster ID. */
export function remoteClusterFacts(o: { metadata: { name?: string }; [k: string]: unknown }): RemoteClusterFacts | undefined {
  const spec = (o['spec'] ?? {}) as { clusterID?: unknown; gatewayInfos?: unknown; serviceCIDR?: unknown; podCIDRs?: unknown };
  if (typeof spec.clusterID !== 'string' || !spec.clusterID) return undefined;
  const gatewayIPs = Array.isArray(spec.gatewayInfos)
    ? spec.gatewayInfos.map((g) => (g as { gatewayIP?: unknown }).gatewayIP).filter((ip): ip is string => typeof ip === 'string' && ip !== '')
    : [];
  const podCIDRs = Array.isArray(spec.podCIDRs) ? spec.podCIDRs.filter((c): c is string => typeof c === 'string' && c !== '') : [];
  return { clusterID: spec.clusterID, gatewayIPs, ...(typeof spec.serviceCIDR === 'string' && spec.serviceCIDR ? { serviceCIDR: spec.serviceCIDR } : {}), podCIDRs };
}

/** A Pod on this node as stretched NetworkPolicy reads it. */
export interface LocalPodLabels {
  namespace: string;
  labels: Record<string, string>;
  ip: string;
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
    if (id !== undefined) out.push({ ip: p.ip, id });
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
}

/**
 * The node's Multi-cluster spec: undefined without a Gateway (nothing reaches other clusters);
 * otherwise each remote cluster with a gateway IP and at least one CIDR (its service CIDR, plus
 * its pod CIDRs with pod-to-pod connectivity) goes to its first gateway IP, sorted by cluster ID.
 */
export function multiclusterSpecOf(input: MulticlusterInput): MulticlusterSpec | undefined {
  const gw = [...input.gateways].sort((a, b) => a.name.localeCompare(b.name))[0];
  if (!gw) return undefined;
  const isGateway = gw.name === input.nodeName;
  const remoteClusters: MulticlusterSpec['remoteClusters'] = [];
  for (const rc of [...input.remoteClusters].sort((a, b) => a.clusterID.localeCompare(b.clusterID))) {
    const gatewayIP = rc.gatewayIPs[0];
    const cidrs = [...(rc.serviceCIDR ? [rc.serviceCIDR] : []), ...(input.podToPod ? rc.podCIDRs : [])];
    if (gatewayIP === undefined || cidrs.length === 0) continue;
    remoteClusters.push({ cidrs, gatewayIP });
  }
  return {
    isGateway, remoteClusters, localGatewayIP: gw.internalIP, ...(isGateway ? { gatewayIP: gw.gatewayIP } : {}),
    ...(input.labelIdentities?.length ? { labelIdentities: input.labelIdentities.map((l) => ({ ...l })) } : {}),
  };
}
