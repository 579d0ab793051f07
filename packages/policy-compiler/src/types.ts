// Input and output shapes of the compiler beyond those defined in @switchyard/apis.
import type { PolicyValidationError } from './errors';
import type {
  AdminNetworkPolicy,
  AntreaIPBlock,
  AntreaNetworkPolicy,
  BaselineAdminNetworkPolicy,
  ClusterGroup,
  ClusterNetworkPolicy,
  EndpointSlice,
  Endpoints,
  ExternalEntity,
  ExternalNode,
  Group,
  K8sNetworkPolicy,
  LabelIdentity,
  Namespace,
  Node,
  Pod,
  Service,
  ServiceAccount,
  Tier,
  controlplane,
} from '@switchyard/apis/types';

/**
 * @deprecated `AntreaIPBlock` of @switchyard/apis now carries `except` (a documented Switchyard
 * extension); this alias stays only so existing imports keep compiling.
 */
export type AntreaIPBlockWithExcept = AntreaIPBlock;

/** Every input kind the compiler understands. Policies are told apart by `apiVersion` + `kind`. */
export type ClusterObject =
  | Namespace
  | Pod
  | Node
  | Service
  | Endpoints
  | EndpointSlice
  | ServiceAccount
  | ExternalEntity
  | ExternalNode
  | Tier
  | ClusterGroup
  | Group
  | K8sNetworkPolicy
  | ClusterNetworkPolicy
  | AntreaNetworkPolicy
  | AdminNetworkPolicy
  | BaselineAdminNetworkPolicy
  | LabelIdentity;

/** Canonical kind names used by the engine (the two `NetworkPolicy` kinds are told apart). */
export type ObjectKind =
  | 'Namespace'
  | 'Pod'
  | 'Node'
  | 'Service'
  | 'Endpoints'
  | 'EndpointSlice'
  | 'ServiceAccount'
  | 'ExternalEntity'
  | 'ExternalNode'
  | 'Tier'
  | 'ClusterGroup'
  | 'Group'
  | 'K8sNetworkPolicy'
  | 'ClusterNetworkPolicy'
  | 'AntreaNetworkPolicy'
  | 'AdminNetworkPolicy'
  | 'BaselineAdminNetworkPolicy'
  | 'LabelIdentity';

/** An informer-style event. */
export interface ClusterEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: ClusterObject;
}

/**
 * @deprecated Use `controlplane.NetworkPolicy` of @switchyard/apis, which now has `policyTypes`;
 * this alias stays only so existing imports keep compiling.
 */
export type InternalNetworkPolicy = controlplane.NetworkPolicy;

/** The compiled state, whole or as seen by one node. */
export interface PolicySnapshot {
  networkPolicies: controlplane.NetworkPolicy[];
  addressGroups: controlplane.AddressGroup[];
  appliedToGroups: controlplane.AppliedToGroup[];
}

/** Objects of one kind for one node: full objects added or replaced, patches, deletions by name. */
export interface KindDelta<T, P = never> {
  added: T[];
  updated: T[];
  patched: P[];
  deleted: string[];
}

/** What one node must change: directly servable as controlplane watch events ({@link toWatchEvents}). */
export interface NodeDelta {
  networkPolicies: KindDelta<controlplane.NetworkPolicy>;
  addressGroups: KindDelta<controlplane.AddressGroup, controlplane.AddressGroupPatch>;
  appliedToGroups: KindDelta<controlplane.AppliedToGroup, controlplane.AppliedToGroupPatch>;
}

/** An input object that failed validation, with every error. */
export interface RejectedObject {
  /** `''` when the kind could not be known (an item of {@link PolicyEngine.load} without one). */
  kind: ObjectKind | '';
  namespace: string;
  name: string;
  errors: PolicyValidationError[];
}

/** Result of applying one event. */
export interface PolicyDelta {
  /** Per node name; nodes with nothing to change are absent. */
  nodes: Map<string, NodeDelta>;
  /** Set when the event's object was refused; the previous valid version (if any) stays in force. */
  rejected?: RejectedObject;
}
