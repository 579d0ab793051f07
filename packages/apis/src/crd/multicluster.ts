/** multicluster.crd.antrea.io (ClusterSet, MemberClusterAnnounce, ResourceExport/Import, Gateway, ClusterInfoImport, LabelIdentity) and multicluster.x-k8s.io (ServiceExport, ServiceImport). */
import type { Condition, ObjectMeta } from '../meta';
import type { EndpointAddress, EndpointPort, ServicePort } from '../core';
import type { AntreaNetworkPolicySpec } from './policy';
import type { ExternalEntity } from './entity';

/** A leader cluster of a ClusterSet as seen from a member. */
export interface LeaderClusterInfo {
  clusterID?: string;
  /** Secret (in the member's Namespace) holding the token for the leader. */
  secret?: string;
  /** Leader API server URL. */
  server?: string;
}

/** v1alpha1 member/leader entry (superseded by spec.clusterID in v1alpha2). */
export interface MemberCluster {
  clusterID?: string;
  server?: string;
  secret?: string;
  serviceAccount?: string;
}

export interface ClusterStatus {
  clusterID?: string;
  conditions?: Condition[];
}

/**
 * multicluster.crd.antrea.io ClusterSet. The internal (storage) form is v1alpha2; v1alpha1
 * objects convert to it (see docs/apis.md): `members` is dropped, the local cluster ID is
 * taken from `spec.clusterID` when present.
 */
export interface ClusterSet {
  apiVersion?: string;
  kind?: 'ClusterSet';
  metadata: ObjectMeta;
  spec: {
    clusterID?: string;
    leaders: LeaderClusterInfo[];
    /** Namespace of the leader's Multi-cluster Controller (members only). */
    namespace?: string;
    /** v1alpha1 only. */
    members?: MemberCluster[];
  };
  status?: {
    totalClusters?: number;
    readyClusters?: number;
    observedGeneration?: number;
    conditions?: Condition[];
    clusterStatuses?: ClusterStatus[];
  };
}

/** MemberClusterAnnounce: a member's heartbeat in the leader cluster (fields at top level). */
export interface MemberClusterAnnounce {
  apiVersion?: string;
  kind?: 'MemberClusterAnnounce';
  metadata: ObjectMeta;
  clusterID?: string;
  clusterSetID?: string;
  leaderClusterID?: string;
}

export interface GatewayInfo {
  /** The address other clusters' gateways tunnel to (IPv4 on a dual-stack cluster, whose tunnels are IPv4); absent for an IPv6-only cluster. */
  gatewayIP?: string;
  /**
   * A dual-stack gateway's IPv6 address: the source of IPv6 traffic it sends to other clusters, the
   * destination of their replies. An IPv6-only cluster's gateway has this alone, and is tunnelled to at it.
   */
  gatewayIPv6?: string;
}

/** A member cluster's network information exported to the others. */
export interface ClusterInfo {
  clusterID?: string;
  gatewayInfos?: GatewayInfo[];
  serviceCIDR?: string;
  /** A dual-stack cluster's IPv6 Service range (`serviceCIDR` is then its IPv4 one), as antrea-agent.conf's `serviceCIDRv6`. */
  serviceCIDRv6?: string;
  /** Pod CIDRs of either family. */
  podCIDRs?: string[];
  wireGuard?: { publicKey?: string };
}

export interface LabelIdentitySpec {
  /** Normalized label string `ns:<labels>&pod:<labels>`. */
  label?: string;
  id?: number;
}

/** Kinds a ResourceExport/ResourceImport can carry. */
export type ExportedResourceKind =
  | 'Service'
  | 'Endpoints'
  | 'ServiceImport'
  | 'ClusterInfo'
  | 'AntreaClusterNetworkPolicy'
  | 'ExternalEntity'
  | 'LabelIdentity';

/** What a ResourceExport carries and the ResourceImport made from it repeats: the resource and its payload by kind. */
export interface ResourcePayload {
  name?: string;
  namespace?: string;
  kind?: ExportedResourceKind | (string & {});
  endpoints?: { subsets?: { addresses?: EndpointAddress[]; ports?: EndpointPort[] }[] };
  clusterInfo?: ClusterInfo;
  clusterNetworkPolicy?: AntreaNetworkPolicySpec;
  externalEntity?: { externalEntitySpec?: ExternalEntity['spec'] };
  labelIdentity?: { normalizedLabel?: string; id?: number };
  raw?: { data?: string };
}

/** multicluster.crd.antrea.io ResourceExport (in the leader cluster). */
export interface ResourceExport {
  apiVersion?: string;
  kind?: 'ResourceExport';
  metadata: ObjectMeta;
  spec: ResourcePayload & {
    clusterID?: string;
    service?: { serviceSpec?: Record<string, unknown> };
  };
  status?: { conditions?: Condition[] };
}

/** multicluster.crd.antrea.io ResourceImport (in the leader cluster). */
export interface ResourceImport {
  apiVersion?: string;
  kind?: 'ResourceImport';
  metadata: ObjectMeta;
  spec: ResourcePayload & {
    clusters?: string[];
    serviceImport?: ServiceImport;
  };
  status?: { clusterStatuses?: { clusterID?: string; conditions?: Condition[] }[] };
}

/** multicluster.crd.antrea.io Gateway (member cluster; fields at top level). */
export interface Gateway {
  apiVersion?: string;
  kind?: 'Gateway';
  metadata: ObjectMeta;
  /** The gateway Node's IPv4 address other clusters tunnel to; absent on an IPv6-only Node. */
  gatewayIP?: string;
  /** The gateway Node's IPv4 InternalIP, what this cluster's nodes tunnel to; absent on an IPv6-only Node. */
  internalIP?: string;
  /** The gateway Node's IPv6 address of the `gatewayIP` kind (by precedence; an IPv6-only Node's gateway-ip annotation). */
  gatewayIPv6?: string;
  /** The gateway Node's IPv6 InternalIP. */
  internalIPv6?: string;
  serviceCIDR?: string;
  serviceCIDRv6?: string;
  wireGuard?: { publicKey?: string };
}

/** multicluster.crd.antrea.io ClusterInfoImport (member cluster). */
export interface ClusterInfoImport {
  apiVersion?: string;
  kind?: 'ClusterInfoImport';
  metadata: ObjectMeta;
  spec: ClusterInfo;
  status?: { conditions?: Condition[] };
}

/** multicluster.crd.antrea.io LabelIdentity (cluster-scoped, member cluster). */
export interface LabelIdentity {
  apiVersion?: string;
  kind?: 'LabelIdentity';
  metadata: ObjectMeta;
  spec: LabelIdentitySpec;
}

/** multicluster.x-k8s.io ServiceExport: marks a Service for export; no spec. */
export interface ServiceExport {
  apiVersion?: 'multicluster.x-k8s.io/v1alpha1';
  kind?: 'ServiceExport';
  metadata: ObjectMeta;
  status?: { conditions?: Condition[] };
}

/** multicluster.x-k8s.io ServiceImport. */
export interface ServiceImport {
  apiVersion?: 'multicluster.x-k8s.io/v1alpha1';
  kind?: 'ServiceImport';
  metadata?: ObjectMeta;
  spec: {
    ports: ServicePort[];
    ips?: string[];
    /** The families of `ips`, in their order (a dual-stack export: both). */
    ipFamilies?: ('IPv4' | 'IPv6')[];
    type: 'ClusterSetIP' | 'Headless';
    sessionAffinity?: 'ClientIP' | 'None';
    sessionAffinityConfig?: { clientIP?: { timeoutSeconds?: number } };
  };
  status?: { clusters?: { cluster: string }[] };
}
