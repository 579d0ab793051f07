/** networking.k8s.io/v1 NetworkPolicy. */
import type { Condition, IntOrString, LabelSelector, ObjectMeta } from './meta';
import type { Protocol } from './core';

/** A CIDR with optional excluded sub-ranges. */
export interface IPBlock {
  cidr: string;
  except?: string[];
}

/** A peer of a K8s NetworkPolicy rule; podSelector and namespaceSelector together mean AND. */
export interface NetworkPolicyPeer {
  podSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  ipBlock?: IPBlock;
}

/** A port (number or named) with optional range end. */
export interface NetworkPolicyPort {
  protocol?: Protocol;
  port?: IntOrString;
  endPort?: number;
}

export interface NetworkPolicyIngressRule {
  ports?: NetworkPolicyPort[];
  from?: NetworkPolicyPeer[];
}

export interface NetworkPolicyEgressRule {
  ports?: NetworkPolicyPort[];
  to?: NetworkPolicyPeer[];
}

export type PolicyType = 'Ingress' | 'Egress';

/** networking.k8s.io/v1 NetworkPolicy. */
export interface K8sNetworkPolicy {
  apiVersion?: 'networking.k8s.io/v1';
  kind?: 'NetworkPolicy';
  metadata: ObjectMeta;
  spec: {
    podSelector: LabelSelector;
    ingress?: NetworkPolicyIngressRule[];
    egress?: NetworkPolicyEgressRule[];
    policyTypes?: PolicyType[];
  };
  status?: { conditions?: Condition[] };
}
