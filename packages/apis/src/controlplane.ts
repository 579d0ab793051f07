/**
 * The internal controlplane model (modelled on Antrea's controlplane/v1beta2): what the
 * policy-compiler produces, the controller serves per node and the agent realizes.
 * IP addresses are canonical text here (`10.0.0.1`, `fd00::1`); on the wire they are 4 or 16 bytes.
 */

/** Kind of the user-facing policy an internal policy was compiled from. */
export type NetworkPolicyType =
  | 'K8sNetworkPolicy'
  | 'AntreaClusterNetworkPolicy'
  | 'AntreaNetworkPolicy'
  | 'AdminNetworkPolicy'
  | 'BaselineAdminNetworkPolicy';

/** Reference to the user-facing source policy. `namespace` is empty for cluster-scoped kinds. */
export interface NetworkPolicyReference {
  type: NetworkPolicyType;
  namespace: string;
  name: string;
  uid: string;
}

/** Direction of a rule relative to the applied-to members. */
export type Direction = 'In' | 'Out';

/** Rule action; absent means Allow (K8s NetworkPolicy rules carry none). */
export type RuleAction = 'Allow' | 'Drop' | 'Reject' | 'Pass';

/** Protocols of an internal service match. */
export type ServiceProtocol = 'TCP' | 'UDP' | 'SCTP' | 'ICMP' | 'IGMP';

/** An L4 match. `port` may be a named port (resolved per applied-to member by the agent). */
export interface Service {
  protocol: ServiceProtocol;
  port?: number | string;
  endPort?: number;
  srcPort?: number;
  srcEndPort?: number;
  icmpType?: number;
  icmpCode?: number;
  igmpType?: number;
  /** Multicast group address (IGMP). */
  groupAddress?: string;
}

/** A CIDR with excluded sub-ranges, CIDRs in canonical text form. */
export interface IPBlock {
  cidr: string;
  except: string[];
}

/** A Service selected by `toServices`; scope ClusterSet means the multi-cluster import. */
export interface ServiceReference {
  name: string;
  namespace: string;
  scope?: 'Cluster' | 'ClusterSet';
}

/** The peers of one side of a rule. An empty peer (no groups, blocks, fqdns, services) matches nothing. */
export interface NetworkPolicyPeer {
  addressGroups: string[];
  ipBlocks: IPBlock[];
  fqdns?: string[];
  toServices?: ServiceReference[];
  /** Multi-cluster label identity IDs (stretched policies). */
  labelIdentities?: number[];
}

/** One compiled rule. */
export interface NetworkPolicyRule {
  direction: Direction;
  from: NetworkPolicyPeer;
  to: NetworkPolicyPeer;
  /** Empty or absent: any protocol/port. */
  services: Service[];
  action?: RuleAction;
  /** Index of the rule within its policy and direction: lower is evaluated first. */
  priority: number;
  enableLogging: boolean;
  logLabel?: string;
  /** Per-rule applied-to; set when the source policy uses rule-level appliedTo. */
  appliedToGroups?: string[];
  name?: string;
}

/** A compiled policy as delivered to agents. */
export interface NetworkPolicy {
  uid: string;
  name: string;
  namespace: string;
  sourceRef: NetworkPolicyReference;
  rules: NetworkPolicyRule[];
  appliedToGroups: string[];
  /** Policy priority within its tier (ACNP/ANNP float, ANP integer). Absent for K8s NetworkPolicy. */
  priority?: number;
  /** Priority of the tier (Antrea-native) or the ANP/BANP pseudo tier. */
  tierPriority?: number;
  /** True when rules carry their own appliedToGroups. */
  appliedToPerRule?: boolean;
  /**
   * Directions the policy isolates, as in K8s NetworkPolicy `spec.policyTypes` (after API-server
   * defaulting). A direction listed here with no rule in it means "deny all in that direction" for
   * the applied-to members. Absent for kinds whose isolation follows from their rules alone.
   */
  policyTypes?: PolicyType[];
  generation: number;
}

/** A direction a policy isolates (K8s NetworkPolicy `policyTypes`). */
export type PolicyType = 'Ingress' | 'Egress';

/** A named port of a group member (container port or ExternalEntity port). */
export interface NamedPort {
  name: string;
  port: number;
  protocol: 'TCP' | 'UDP' | 'SCTP';
}

export interface PodReference {
  name: string;
  namespace: string;
}

export interface ExternalEntityReference {
  name: string;
  namespace: string;
}

export interface NodeReference {
  name: string;
}

/** A member of an address or applied-to group; exactly one of pod/externalEntity/node, or just IPs. */
export interface GroupMember {
  pod?: PodReference;
  externalEntity?: ExternalEntityReference;
  node?: NodeReference;
  ips: string[];
  ports?: NamedPort[];
}

/** Set of addresses referenced by rules' from/to. */
export interface AddressGroup {
  name: string;
  groupMembers: GroupMember[];
}

/** Set of members a policy (or rule) is applied to. */
export interface AppliedToGroup {
  name: string;
  groupMembers: GroupMember[];
}

/** Incremental change to an AddressGroup (MODIFIED events). */
export interface AddressGroupPatch {
  name: string;
  addedGroupMembers: GroupMember[];
  removedGroupMembers: GroupMember[];
}

/** Incremental change to an AppliedToGroup (MODIFIED events). */
export interface AppliedToGroupPatch {
  name: string;
  addedGroupMembers: GroupMember[];
  removedGroupMembers: GroupMember[];
}

/**
 * The members of one Egress (Antrea's EgressGroup), named after the Egress: every pod it applies
 * to, as a member with `pod`, `node` (the pod's node) and `ips`. A pod two Egresses select is a
 * member of the older one only. Computed by the controller, served on the `egressgroups` watch.
 */
export interface EgressGroup {
  name: string;
  groupMembers: GroupMember[];
}

/** Incremental change to an EgressGroup (MODIFIED events): remove, then add. */
export interface EgressGroupPatch {
  name: string;
  addedGroupMembers: GroupMember[];
  removedGroupMembers: GroupMember[];
}

/** Realization of one policy generation on one node. */
export interface NetworkPolicyNodeStatus {
  nodeName: string;
  generation: number;
  realizationFailure?: boolean;
  message?: string;
}

/** Realization status of a policy (named by the policy's uid), reported by agents. */
export interface NetworkPolicyStatus {
  name: string;
  nodes: NetworkPolicyNodeStatus[];
}

/** Condition of an agent. */
export interface AgentCondition {
  type: 'AgentHealthy' | 'ControllerConnectionUp' | 'OVSDBConnectionUp' | 'OpenflowConnectionUp';
  status: 'True' | 'False' | 'Unknown';
  lastHeartbeatTime?: string;
  reason?: string;
  message?: string;
}

/** Summary of an agent's state, served by its local API and reported to the controller. */
export interface AgentInfo {
  nodeName: string;
  version: string;
  podRef?: PodReference;
  nodeSubnets: string[];
  networkPolicyNum: number;
  addressGroupNum: number;
  appliedToGroupNum: number;
  localPodNum: number;
  ovsVersion?: string;
  bridgeName?: string;
  /** Table name to flow count. */
  flowTable?: Record<string, number>;
  conditions: AgentCondition[];
}

/** Position marker of a watch stream (BOOKMARK events). */
export interface Bookmark {
  resourceVersion: string;
}

/** Error payload of an ERROR event (mirrors meta/v1 Status). */
export interface WatchStatus {
  code: number;
  reason: string;
  message: string;
}

/** Watch event types. */
export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** Objects that travel in a controlplane watch stream, by kind. */
export interface WatchObjects {
  NetworkPolicy: NetworkPolicy;
  AddressGroup: AddressGroup;
  AddressGroupPatch: AddressGroupPatch;
  AppliedToGroup: AppliedToGroup;
  AppliedToGroupPatch: AppliedToGroupPatch;
  NetworkPolicyStatus: NetworkPolicyStatus;
  Bookmark: Bookmark;
  Status: WatchStatus;
  EgressGroup: EgressGroup;
  EgressGroupPatch: EgressGroupPatch;
}

/** Kind of a watch event payload. */
export type WatchObjectKind = keyof WatchObjects;

/**
 * One event of a controlplane watch stream, discriminated by `kind`. Groups are MODIFIED with
 * `*Patch` objects; DELETED carries the last known object (only its name matters).
 */
export type WatchEvent = {
  [K in WatchObjectKind]: { type: WatchEventType; kind: K; object: WatchObjects[K]; resourceVersion?: string };
}[WatchObjectKind];
