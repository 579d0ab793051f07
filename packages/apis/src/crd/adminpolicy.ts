/** policy.networking.k8s.io/v1alpha1 AdminNetworkPolicy and BaselineAdminNetworkPolicy. */
import type { Condition, LabelSelector, ObjectMeta } from '../meta';

export type AdminNetworkPolicyRuleAction = 'Allow' | 'Deny' | 'Pass';
export type BaselineAdminNetworkPolicyRuleAction = 'Allow' | 'Deny';

/** Pods selected by namespace and pod labels (both apply). */
export interface NamespacedPod {
  namespaceSelector: LabelSelector;
  podSelector: LabelSelector;
}

/** Subject of an (B)ANP: exactly one of namespaces or pods. */
export interface AdminNetworkPolicySubject {
  namespaces?: LabelSelector;
  pods?: NamespacedPod;
}

export interface AdminNetworkPolicyPort {
  portNumber?: { protocol: 'TCP' | 'UDP' | 'SCTP'; port: number };
  namedPort?: string;
  portRange?: { protocol?: 'TCP' | 'UDP' | 'SCTP'; start: number; end: number };
}

export interface AdminNetworkPolicyIngressPeer {
  namespaces?: LabelSelector;
  pods?: NamespacedPod;
}

export interface AdminNetworkPolicyEgressPeer {
  namespaces?: LabelSelector;
  pods?: NamespacedPod;
  nodes?: LabelSelector;
  /** CIDRs. */
  networks?: string[];
}

export interface AdminNetworkPolicyIngressRule<A extends string = AdminNetworkPolicyRuleAction> {
  name?: string;
  action: A;
  from: AdminNetworkPolicyIngressPeer[];
  ports?: AdminNetworkPolicyPort[];
}

export interface AdminNetworkPolicyEgressRule<A extends string = AdminNetworkPolicyRuleAction> {
  name?: string;
  action: A;
  to: AdminNetworkPolicyEgressPeer[];
  ports?: AdminNetworkPolicyPort[];
}

/** policy.networking.k8s.io AdminNetworkPolicy (cluster-scoped). */
export interface AdminNetworkPolicy {
  apiVersion?: 'policy.networking.k8s.io/v1alpha1';
  kind?: 'AdminNetworkPolicy';
  metadata: ObjectMeta;
  spec: {
    /** 0..1000; lower takes precedence. */
    priority: number;
    subject: AdminNetworkPolicySubject;
    ingress?: AdminNetworkPolicyIngressRule[];
    egress?: AdminNetworkPolicyEgressRule[];
  };
  status?: { conditions: Condition[] };
}

/** policy.networking.k8s.io BaselineAdminNetworkPolicy (singleton named `default`). */
export interface BaselineAdminNetworkPolicy {
  apiVersion?: 'policy.networking.k8s.io/v1alpha1';
  kind?: 'BaselineAdminNetworkPolicy';
  metadata: ObjectMeta;
  spec: {
    subject: AdminNetworkPolicySubject;
    ingress?: AdminNetworkPolicyIngressRule<BaselineAdminNetworkPolicyRuleAction>[];
    egress?: AdminNetworkPolicyEgressRule<BaselineAdminNetworkPolicyRuleAction>[];
  };
  status?: { conditions: Condition[] };
}
