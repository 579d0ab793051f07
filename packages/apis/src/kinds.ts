/** Unions over every kind this package types, for code that handles "any known object". */
import type { ConfigMap, EndpointSlice, Endpoints, Event, Namespace, Node, Pod, Secret, Service, ServiceAccount } from './core';
import type { K8sNetworkPolicy } from './networking';
import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from './rbac';
import type {
  AdminNetworkPolicy,
  AntreaAgentInfo,
  AntreaControllerInfo,
  AntreaNetworkPolicy,
  BaselineAdminNetworkPolicy,
  ClusterGroup,
  ClusterInfoImport,
  ClusterNetworkPolicy,
  ClusterSet,
  ExternalEntity,
  ExternalIPPool,
  ExternalNode,
  Gateway,
  Group,
  IPPool,
  LabelIdentity,
  MemberClusterAnnounce,
  ResourceExport,
  ResourceImport,
  ServiceExport,
  ServiceImport,
  Tier,
  Traceflow,
} from './crd/index';

/** Built-in Kubernetes kinds. */
export type CoreObject =
  | Namespace
  | Pod
  | Node
  | Service
  | Endpoints
  | EndpointSlice
  | ServiceAccount
  | Secret
  | Event
  | ConfigMap
  | K8sNetworkPolicy
  | Role
  | ClusterRole
  | RoleBinding
  | ClusterRoleBinding;

/** crd.antrea.io kinds. */
export type AntreaObject =
  | ClusterNetworkPolicy
  | AntreaNetworkPolicy
  | Tier
  | ClusterGroup
  | Group
  | ExternalEntity
  | ExternalNode
  | IPPool
  | ExternalIPPool
  | Traceflow
  | AntreaAgentInfo
  | AntreaControllerInfo;

/** policy.networking.k8s.io kinds. */
export type AdminPolicyObject = AdminNetworkPolicy | BaselineAdminNetworkPolicy;

/** multicluster.crd.antrea.io and multicluster.x-k8s.io kinds. */
export type MulticlusterObject =
  | ClusterSet
  | MemberClusterAnnounce
  | ResourceExport
  | ResourceImport
  | Gateway
  | ClusterInfoImport
  | LabelIdentity
  | ServiceExport
  | ServiceImport;

/** Every typed kind. */
export type KnownObject = CoreObject | AntreaObject | AdminPolicyObject | MulticlusterObject;
