// The Kubernetes resources the reconcilers read and write, and the names, labels and annotations
// they put on what they create (the ones Antrea Multi-cluster uses, so objects read the same).
import { collectionPath, type ResourceSpec } from '@switchyard/kube';

const MC = 'multicluster.crd.antrea.io';
const MCS = 'multicluster.x-k8s.io';

export const CLUSTERSETS: ResourceSpec = { group: MC, version: 'v1alpha2', plural: 'clustersets', kind: 'ClusterSet', namespaced: true };
export const MEMBER_ANNOUNCES: ResourceSpec = { group: MC, version: 'v1alpha1', plural: 'memberclusterannounces', kind: 'MemberClusterAnnounce', namespaced: true };
export const RESOURCE_EXPORTS: ResourceSpec = { group: MC, version: 'v1alpha1', plural: 'resourceexports', kind: 'ResourceExport', namespaced: true };
export const RESOURCE_IMPORTS: ResourceSpec = { group: MC, version: 'v1alpha1', plural: 'resourceimports', kind: 'ResourceImport', namespaced: true };
export const SERVICE_EXPORTS: ResourceSpec = { group: MCS, version: 'v1alpha1', plural: 'serviceexports', kind: 'ServiceExport', namespaced: true };
export const SERVICE_IMPORTS: ResourceSpec = { group: MCS, version: 'v1alpha1', plural: 'serviceimports', kind: 'ServiceImport', namespaced: true };
export const SERVICES: ResourceSpec = { group: '', version: 'v1', plural: 'services', kind: 'Service', namespaced: true };
export const ENDPOINTS: ResourceSpec = { group: '', version: 'v1', plural: 'endpoints', kind: 'Endpoints', namespaced: true };
export const ENDPOINT_SLICES: ResourceSpec = { group: 'discovery.k8s.io', version: 'v1', plural: 'endpointslices', kind: 'EndpointSlice', namespaced: true };
/** Label of an EndpointSlice naming its Service. */
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

/** apiVersion of a resource spec. */
export const apiVersionOf = (r: ResourceSpec): string => (r.group === '' ? r.version : `${r.group}/${r.version}`);

/** Path of one object (or of its `status` subresource). */
export function objectPath(r: ResourceSpec, namespace: string, name: string, subresource?: string): string {
  return `${collectionPath(r.group, r.version, r.plural, namespace)}/${encodeURIComponent(name)}${subresource ? `/${subresource}` : ''}`;
}

/** Labels on a ResourceExport naming what it was made from (Antrea's label keys). */
export const LABEL_SOURCE_CLUSTER = 'sourceClusterID';
export const LABEL_SOURCE_KIND = 'sourceKind';
export const LABEL_SOURCE_NAME = 'sourceName';
export const LABEL_SOURCE_NAMESPACE = 'sourceNamespace';

/** Annotation on every Service, Endpoints and ServiceImport a member imports. */
export const IMPORTED_ANNOTATION = 'multicluster.antrea.io/imported-service';
/** Annotation the member refreshes on its MemberClusterAnnounce with each heartbeat. */
export const TOUCH_ANNOTATION = 'multicluster.antrea.io/touch-ts';
/** Prefix of imported Service and Endpoints names. */
export const IMPORTED_PREFIX = 'antrea-mc-';

/** Name of a member's MemberClusterAnnounce in the leader's namespace. */
export const announceName = (clusterID: string): string => `member-announce-from-${clusterID}`;
/** ResourceExport names in the leader: `<cluster>-<ns>-<name>-service` / `-endpoints`. */
export const exportName = (clusterID: string, namespace: string, name: string, kind: 'service' | 'endpoints'): string => `${clusterID}-${namespace}-${name}-${kind}`;
/** ResourceImport names in the leader: `<ns>-<name>-service` / `-endpoints`. */
export const importName = (namespace: string, name: string, kind: 'service' | 'endpoints'): string => `${namespace}-${name}-${kind}`;
export const NAMESPACES: ResourceSpec = { group: '', version: 'v1', plural: 'namespaces', kind: 'Namespace', namespaced: false };
export const CLUSTER_NETWORK_POLICIES: ResourceSpec = { group: 'crd.antrea.io', version: 'v1beta1', plural: 'clusternetworkpolicies', kind: 'ClusterNetworkPolicy', namespaced: false };
export const TIERS: ResourceSpec = { group: 'crd.antrea.io', version: 'v1beta1', plural: 'tiers', kind: 'Tier', namespaced: false };
/** Kind of a ResourceExport/ResourceImport carrying an Antrea ClusterNetworkPolicy to replicate. */
export const ACNP_KIND = 'AntreaClusterNetworkPolicy';
/** ResourceImport name of a replicated ACNP: `<name>-antreaclusternetworkpolicy`. */
export const acnpImportName = (name: string): string => `${name}-antreaclusternetworkpolicy`;
export const PODS: ResourceSpec = { group: '', version: 'v1', plural: 'pods', kind: 'Pod', namespaced: true };
export const LABEL_IDENTITIES: ResourceSpec = { group: MC, version: 'v1alpha1', plural: 'labelidentities', kind: 'LabelIdentity', namespaced: false };
export const LABEL_IDENTITY_KIND = 'LabelIdentity';
export const NODES: ResourceSpec = { group: '', version: 'v1', plural: 'nodes', kind: 'Node', namespaced: false };
export const GATEWAYS: ResourceSpec = { group: MC, version: 'v1alpha1', plural: 'gateways', kind: 'Gateway', namespaced: true };
/** Node annotation making a Node a Gateway candidate (value `true`). */
export const GATEWAY_ANNOTATION = 'multicluster.antrea.io/gateway';
/** Node annotation giving the gateway IP explicitly (wins over the address precedence). */
export const GATEWAY_IP_ANNOTATION = 'multicluster.antrea.io/gateway-ip';
/** Node annotation with a gateway's Multi-cluster WireGuard public key; defined with the API types (the agent writes it). */
export { GATEWAY_WIREGUARD_KEY_ANNOTATION } from '@switchyard/apis/types';
export const CLUSTER_INFO_IMPORTS: ResourceSpec = { group: MC, version: 'v1alpha1', plural: 'clusterinfoimports', kind: 'ClusterInfoImport', namespaced: true };
export const CLUSTER_INFO_KIND = 'ClusterInfo';
/** ResourceExport, ResourceImport and ClusterInfoImport name of a cluster's ClusterInfo. */
export const clusterInfoName = (clusterID: string): string => `${clusterID}-clusterinfo`;
