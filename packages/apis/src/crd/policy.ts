/** crd.antrea.io Antrea-native policy kinds: ClusterNetworkPolicy, NetworkPolicy, Tier, ClusterGroup, Group (v1beta1 shape). */
import type { Condition, IntOrString, LabelSelector, ObjectMeta } from '../meta';

/** Action of an Antrea-native rule. */
export type RuleAction = 'Allow' | 'Drop' | 'Reject' | 'Pass';

/** Protocols accepted in Antrea-native `ports[].protocol`. */
export type AntreaProtocol = 'TCP' | 'UDP' | 'SCTP';

/** Scope of a peer selector or `toServices` entry: the local cluster or the whole ClusterSet. */
export type PeerScope = 'Cluster' | 'ClusterSet';

/** A namespaced object name. */
export interface NamespacedName {
  name: string;
  namespace: string;
}

/**
 * An Antrea ipBlock (rule peer, or a ClusterGroup/Group `ipBlocks` entry).
 *
 * `except` is a Switchyard extension: Antrea's CRD has no `except` in Antrea-native ipBlocks, but
 * Switchyard accepts it with the K8s NetworkPolicy meaning (CIDRs carved out of `cidr`; each must
 * lie strictly inside it, which the policy-compiler checks). Manifests written for Antrea never
 * set it, so they are unaffected; manifests that use it are not portable back to Antrea.
 */
export interface AntreaIPBlock {
  cidr: string;
  /** Switchyard extension: CIDRs excluded from `cidr`. */
  except?: string[];
}

/** Where a policy or a rule is applied. Only one of the selector families may be set. */
export interface AppliedTo {
  podSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  externalEntitySelector?: LabelSelector;
  nodeSelector?: LabelSelector;
  group?: string;
  serviceAccount?: NamespacedName;
  service?: NamespacedName;
}

/** `namespaces` peer: match the applied-to pod's own Namespace, or Namespaces sharing label values. */
export interface PeerNamespaces {
  match?: 'Self';
  sameLabels?: string[];
}

/** A peer (from/to) of an Antrea-native rule. */
export interface AntreaNetworkPolicyPeer {
  ipBlock?: AntreaIPBlock;
  podSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  namespaces?: PeerNamespaces;
  externalEntitySelector?: LabelSelector;
  nodeSelector?: LabelSelector;
  group?: string;
  /** Egress only; wildcard `*` prefix allowed. */
  fqdn?: string;
  serviceAccount?: NamespacedName;
  scope?: PeerScope;
}

/** A Service reference in `toServices`. */
export interface PeerService {
  name: string;
  namespace?: string;
  scope?: PeerScope;
}

/** A port match of an Antrea-native rule, with optional destination and source ranges. */
export interface AntreaNetworkPolicyPort {
  protocol?: AntreaProtocol;
  port?: IntOrString;
  endPort?: number;
  sourcePort?: number;
  sourceEndPort?: number;
}

/** ICMP match. */
export interface ICMPProtocol {
  icmpType?: number;
  icmpCode?: number;
}

/** IGMP match. */
export interface IGMPProtocol {
  igmpType?: number;
  groupAddress?: string;
}

/** Non-port protocol match (`protocols`). Exactly one member is set. */
export interface NetworkPolicyProtocol {
  icmp?: ICMPProtocol;
  igmp?: IGMPProtocol;
}

/** Layer-7 protocol match. */
export interface L7Protocol {
  http?: { host?: string; method?: string; path?: string };
  tls?: { sniHostname?: string };
}

/** One rule of an Antrea-native policy. */
export interface Rule {
  action?: RuleAction;
  ports?: AntreaNetworkPolicyPort[];
  protocols?: NetworkPolicyProtocol[];
  l7Protocols?: L7Protocol[];
  from?: AntreaNetworkPolicyPeer[];
  to?: AntreaNetworkPolicyPeer[];
  toServices?: PeerService[];
  name?: string;
  enableLogging?: boolean;
  logLabel?: string;
  /** Per-rule appliedTo; mutually exclusive with spec.appliedTo. */
  appliedTo?: AppliedTo[];
}

/** Spec shared by ClusterNetworkPolicy and (namespaced) NetworkPolicy. */
export interface AntreaNetworkPolicySpec {
  tier?: string;
  /** 1..10000, fractional allowed; lower numbers take precedence within a tier. */
  priority: number;
  appliedTo?: AppliedTo[];
  ingress?: Rule[];
  egress?: Rule[];
}

/** Realization phase of an Antrea-native policy. */
export type NetworkPolicyPhase = 'Pending' | 'Realizing' | 'Realized' | 'Failed';

/** Status of an Antrea-native policy. */
export interface AntreaNetworkPolicyStatus {
  phase?: NetworkPolicyPhase;
  observedGeneration?: number;
  currentNodesRealized?: number;
  desiredNodesRealized?: number;
  conditions?: Condition[];
}

/** crd.antrea.io ClusterNetworkPolicy (ACNP). */
export interface ClusterNetworkPolicy {
  apiVersion?: string;
  kind?: 'ClusterNetworkPolicy';
  metadata: ObjectMeta;
  spec: AntreaNetworkPolicySpec;
  status?: AntreaNetworkPolicyStatus;
}

/** crd.antrea.io NetworkPolicy (ANNP, namespaced). */
export interface AntreaNetworkPolicy {
  apiVersion?: string;
  kind?: 'NetworkPolicy';
  metadata: ObjectMeta;
  spec: AntreaNetworkPolicySpec;
  status?: AntreaNetworkPolicyStatus;
}

/** crd.antrea.io Tier. */
export interface Tier {
  apiVersion?: string;
  kind?: 'Tier';
  metadata: ObjectMeta;
  spec: {
    /** 0..255; lower is evaluated first. */
    priority: number;
    description?: string;
  };
}

/** A Service reference selecting the Service's endpoints as group members. */
export interface ServiceReference {
  name: string;
  namespace: string;
}

/** Spec shared by ClusterGroup and Group. */
export interface GroupSpec {
  podSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  externalEntitySelector?: LabelSelector;
  nodeSelector?: LabelSelector;
  ipBlocks?: AntreaIPBlock[];
  serviceReference?: ServiceReference;
  childGroups?: string[];
}

/** Status of a group. */
export interface GroupStatus {
  conditions?: Condition[];
}

/** crd.antrea.io ClusterGroup. */
export interface ClusterGroup {
  apiVersion?: string;
  kind?: 'ClusterGroup';
  metadata: ObjectMeta;
  spec: GroupSpec;
  status?: GroupStatus;
}

/** crd.antrea.io Group (namespaced). */
export interface Group {
  apiVersion?: string;
  kind?: 'Group';
  metadata: ObjectMeta;
  spec: GroupSpec;
  status?: GroupStatus;
}
