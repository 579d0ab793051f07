/** rbac.authorization.k8s.io/v1 kinds that appear in Switchyard manifests (typed only as far as they are read). */
import type { ObjectMeta } from './meta';

/** A subject of a binding. */
export interface Subject {
  kind: 'ServiceAccount' | 'User' | 'Group';
  name: string;
  namespace?: string;
  apiGroup?: string;
}

/** A reference to the Role/ClusterRole a binding grants. */
export interface RoleRef {
  apiGroup: string;
  kind: 'Role' | 'ClusterRole';
  name: string;
}

/** A policy rule of a Role/ClusterRole. */
export interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  verbs: string[];
  nonResourceURLs?: string[];
}

export interface Role {
  apiVersion?: 'rbac.authorization.k8s.io/v1';
  kind?: 'Role';
  metadata: ObjectMeta;
  rules?: PolicyRule[];
}

export interface ClusterRole {
  apiVersion?: 'rbac.authorization.k8s.io/v1';
  kind?: 'ClusterRole';
  metadata: ObjectMeta;
  rules?: PolicyRule[];
}

export interface RoleBinding {
  apiVersion?: 'rbac.authorization.k8s.io/v1';
  kind?: 'RoleBinding';
  metadata: ObjectMeta;
  roleRef: RoleRef;
  subjects?: Subject[];
}

export interface ClusterRoleBinding {
  apiVersion?: 'rbac.authorization.k8s.io/v1';
  kind?: 'ClusterRoleBinding';
  metadata: ObjectMeta;
  roleRef: RoleRef;
  subjects?: Subject[];
}
