// Pure: ClusterInfo exchange. A member with a Gateway exports its ClusterInfo (gateway IPs, and a
// dual-stack Gateway's gatewayIPv6; service CIDR and serviceCIDRv6; pod CIDRs of both families; the Gateway's WireGuard public key); the leader copies each into a ResourceImport; every other member
// imports it as ClusterInfoImport `<cluster>-clusterinfo`, what a gateway needs to reach it.
import type { ClusterInfoImport, Gateway, ResourceExport, ResourceImport } from '@switchyard/apis';
import { CLUSTER_INFO_KIND, LABEL_SOURCE_CLUSTER, LABEL_SOURCE_KIND, clusterInfoName } from './resources';

/** A member's ClusterInfo ResourceExport, or none without a Gateway. */
export function clusterInfoExport(input: { clusterID: string; leaderNamespace: string; gateway: Gateway | undefined; serviceCIDR?: string; serviceCIDRv6?: string; podCIDRs?: readonly string[] }): ResourceExport[] {
  if (!input.gateway) return [];
  return [
    {
      metadata: { name: clusterInfoName(input.clusterID), namespace: input.leaderNamespace, labels: { [LABEL_SOURCE_CLUSTER]: input.clusterID, [LABEL_SOURCE_KIND]: CLUSTER_INFO_KIND } },
      spec: {
        clusterID: input.clusterID,
        name: input.clusterID,
        kind: CLUSTER_INFO_KIND,
        clusterInfo: {
          clusterID: input.clusterID,
          gatewayInfos: [{ ...(input.gateway.gatewayIP ? { gatewayIP: input.gateway.gatewayIP } : {}), ...(input.gateway.gatewayIPv6 ? { gatewayIPv6: input.gateway.gatewayIPv6 } : {}) }],
          ...(input.serviceCIDR ? { serviceCIDR: input.serviceCIDR } : {}),
          ...(input.serviceCIDRv6 ? { serviceCIDRv6: input.serviceCIDRv6 } : {}),
          ...(input.podCIDRs && input.podCIDRs.length > 0 ? { podCIDRs: [...input.podCIDRs] } : {}),
          ...(input.gateway.wireGuard?.publicKey ? { wireGuard: { publicKey: input.gateway.wireGuard.publicKey } } : {}),
        },
      },
    },
  ];
}

/** The leader's ClusterInfo ResourceImports: one per exporting cluster. */
export function clusterInfoImports(exports: readonly ResourceExport[], leaderNamespace: string): ResourceImport[] {
  return exports
    .filter((re) => re.spec.kind === CLUSTER_INFO_KIND && re.spec.clusterID && re.spec.clusterInfo)
    .map((re) => ({ metadata: { name: clusterInfoName(re.spec.clusterID!), namespace: leaderNamespace }, spec: { kind: CLUSTER_INFO_KIND, name: re.spec.clusterID!, clusters: [re.spec.clusterID!], clusterInfo: re.spec.clusterInfo! } }))
    .sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
}

/** A member's ClusterInfoImports: every other cluster's ClusterInfo. */
export function clusterInfoImportsFor(imports: readonly ResourceImport[], clusterID: string, namespace: string): ClusterInfoImport[] {
  return imports
    .filter((ri) => ri.spec.kind === CLUSTER_INFO_KIND && ri.spec.clusterInfo?.clusterID && ri.spec.clusterInfo.clusterID !== clusterID)
    .map((ri) => ({ apiVersion: 'multicluster.crd.antrea.io/v1alpha1', kind: 'ClusterInfoImport', metadata: { name: clusterInfoName(ri.spec.clusterInfo!.clusterID!), namespace }, spec: ri.spec.clusterInfo! }));
}
