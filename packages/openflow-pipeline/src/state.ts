/** Inputs of the pipeline builder: the node's configuration and state, as plain data. */
import type { controlplane } from '@switchyard/apis/types';

/** Internal rule types from @switchyard/apis (controlplane), re-exported under short names. */
export type NetworkPolicy = controlplane.NetworkPolicy;
export type NetworkPolicyRule = controlplane.NetworkPolicyRule;
export type NetworkPolicyPeer = controlplane.NetworkPolicyPeer;
export type PolicyService = controlplane.Service;
export type IPBlock = controlplane.IPBlock;
export type GroupMember = controlplane.GroupMember;
export type NamedPort = controlplane.NamedPort;
export type AddressGroup = controlplane.AddressGroup;
export type AppliedToGroup = controlplane.AppliedToGroup;

/** How pod traffic crosses nodes. */
export type TrafficMode = 'encap' | 'noEncap' | 'hybrid' | 'networkPolicyOnly';
/** Tunnel type in encap/hybrid mode; flows are the same for all (stt is configuration only). */
export type TunnelType = 'geneve' | 'vxlan' | 'gre' | 'stt';

/** The local Antrea gateway port. */
export interface GatewayPort {
  ofport: number;
  /** IPv4 address; absent on an IPv6-only node (no IPv4 pod CIDR). */
  ip?: string;
  mac: string;
  /** IPv6 address (dual-stack; required with {@link NodeConfig.podCIDRv6}). */
  ipv6?: string;
}

/** A Pod (or ExternalEntity interface) attached to the bridge. */
export interface LocalPod {
  name: string;
  namespace: string;
  ofport: number;
  /**
   * The pod's addresses: IPv4, and IPv6 on a dual-stack node ({@link NodeConfig.podCIDRv6}); a
   * pod may have either family or both. An IPv6 address on a node without IPv6 is an input error.
   * Policy members find their pod by this text: give IPv6 in one form (RFC 5952, as Kubernetes
   * and the controlplane write it).
   */
  ips: string[];
  mac: string;
  /** Container ports, used to resolve named ports of policy rules. */
  namedPorts?: NamedPort[];
  /**
   * The pod's default gateway when it is not the node gateway's IP (a pod addressed from an
   * IPPool subnet): ARP requests of this pod for it are answered with the gateway's MAC, so the
   * pod's routed traffic reaches the node gateway. IPv4 only (IPv6 pool gateways are not modelled).
   */
  gatewayIP?: string;
}

/** A peer node. */
export interface RemoteNode {
  name: string;
  /** IPv4 pod CIDR; absent for an IPv6-only peer. */
  podCIDR?: string;
  /**
   * IPv6 pod CIDR (dual-stack, IPv6-only): through the tunnel to `nodeIP` in encap, through the
   * gateway where the host routes it (noEncap; hybrid when `nodeIPv6` is in this node's
   * `nodeSubnetV6`). Ignored on a node without IPv6.
   */
  podCIDRv6?: string;
  /**
   * Transport IP: the tunnel destination. IPv4 (`tun_dst`), or IPv6 for a peer reached over an
   * IPv6 underlay (an IPv6-only cluster whose Nodes have no IPv4 address): `tun_ipv6_dst`, the
   * tunnel then runs over IPv6. A peer with an IPv6 `nodeIP` has no IPv4 pod CIDR here.
   */
  nodeIP: string;
  /** The peer's IPv6 underlay address (its Node's IPv6 InternalIP): hybrid routes its IPv6 pod CIDR when it is in `nodeSubnetV6`. */
  nodeIPv6?: string;
  /** Gateway IP of the peer (first address of its IPv4 pod CIDR); absent for an IPv6-only peer. */
  gatewayIP?: string;
  /**
   * Per-peer IPsec tunnel port (trafficEncryptionMode ipsec): classified as tunnel input, and traffic
   * to the peer's pod CIDR is output there instead of the shared tunnel port with tun_dst.
   */
  ipsecTunnelOfport?: number;
}

/**
 * Node-wide configuration: facts of the node that every feature may read (cookie round, traffic
 * mode, gateway, tunnel port, CIDRs, addresses). The feature switches (`enableProxy`,
 * `enableAntreaPolicy`, `wireGuard`, `netdevDatapath`, `packetInMeters`) are read by the default
 * presets ({@link podNodeFeatures}, {@link externalNodeFeatures}), which turn them into the
 * features' own options; a feature built by its factory reads its options, not these flags.
 */
export interface NodeConfig {
  /** Cookie round of this agent run. */
  round: number;
  trafficMode: TrafficMode;
  tunnelType?: TunnelType;
  /** WireGuard encryption: inter-node traffic goes to the gateway for host routing. */
  wireGuard?: boolean;
  gateway: GatewayPort;
  /** Tunnel port (encap, hybrid). */
  tunnelOfport?: number;
  /**
   * Local pod CIDR (IPv4). Absent on an IPv6-only node (with `podCIDRv6` and no `gateway.ip`):
   * no flow matches an IPv4 address of the node then.
   */
  podCIDR?: string;
  /**
   * Local IPv6 pod CIDR: the node is dual-stack (IPv6 flows of every feature that has them;
   * requires `gateway.ipv6`). Absent: IPv4 only, and the flows are exactly the IPv4-only ones.
   */
  podCIDRv6?: string;
  /**
   * This node's transport IP: IPv4, or on an IPv6-only node without an IPv4 address its IPv6
   * address (the tunnels then run over IPv6; no flow names it as IPv4, `nodeIPv6` carries it for
   * the IPv6 flows).
   */
  nodeIP: string;
  /**
   * Dual-stack or IPv6-only: this node's IPv6 address on the underlay (a dual-stack node's tunnels
   * stay IPv4). With it the IPv6 NodePortMark matches it too, as IPv4's does `nodeIP`. Needs `podCIDRv6`.
   */
  nodeIPv6?: string;
  /** Transport subnet of this node (hybrid: peers inside it are routed, others tunnelled). */
  nodeSubnet?: string;
  /** IPv6 transport subnet of this node (hybrid: peers whose `nodeIPv6` is inside it get their IPv6 pod CIDR routed, others tunnelled). */
  nodeSubnetV6?: string;
  /** AntreaProxy: Service load balancing in OVS. */
  enableProxy?: boolean;
  /** Antrea-native policies (tiers). */
  enableAntreaPolicy?: boolean;
  /** Userspace (netdev) datapath: no pkt_mark for kubelet probes, match the gateway IP instead. */
  netdevDatapath?: boolean;
  /**
   * Source address of external Service traffic (NodePort, LoadBalancer, externalIPs with
   * `externalTrafficPolicy: Cluster`) SNATed to a local endpoint; the host routes it to the
   * gateway. Default {@link VIRTUAL_SERVICE_IP} (Antrea's 169.254.0.253).
   */
  virtualServiceIP?: string;
  /**
   * Where the host DNATs NodePort traffic it receives (`nodeIP:nodePort` -> this address, same
   * port) to hand it to OVS through the gateway. Default {@link VIRTUAL_NODEPORT_DNAT_IP}
   * (Antrea's 169.254.0.252).
   */
  nodePortDnatIP?: string;
  /**
   * Rate-limit packet-ins through OpenFlow meters (the agent installs them): NetworkPolicy
   * packet-ins (logging, Reject) pass meter PACKETIN_METER_ID_NP, DNS intercepts
   * PACKETIN_METER_ID_DNS. Off by default (Antrea's literal flows have no meter action).
   */
  packetInMeters?: boolean;
}

/**
 * One Service port (ClusterIP or NodePort) of one IP family: the family of `clusterIP`. A
 * dual-stack Service has one spec per family, each with its own group (as Antrea's proxier per
 * family). An IPv6 spec needs a dual-stack node (`config.podCIDRv6`); its endpoints, external
 * addresses are IPv6 too (`INVALID_INPUT` otherwise, naming `services[<groupId>].<field>`).
 */
export interface ServicePortSpec {
  /** Group id allocated for the service port. */
  groupId: number;
  /**
   * The Service this port belongs to, `<namespace>/<name>`: egress rules with `toServices` peers
   * match the group ids of their Services' ports (absent: no toServices peer can name it).
   */
  service?: string;
  protocol: 'TCP' | 'UDP' | 'SCTP';
  clusterIP: string;
  port: number;
  nodePort?: number;
  /** ClientIP affinity timeout in seconds; absent = no affinity. */
  affinityTimeout?: number;
  /**
   * External addresses served on `port`: LoadBalancer ingress IPs and `spec.externalIPs`. Traffic
   * to them (and to the node port) from the gateway is external traffic.
   */
  externalAddresses?: string[];
  /**
   * `externalTrafficPolicy: Local`: external traffic arriving from the gateway goes to this node's
   * endpoints only (group `localGroupId`; none: dropped) and keeps its client source address.
   * Otherwise it may go to any endpoint and is SNATed (so the reply returns through this node).
   */
  externalLocal?: boolean;
  /** `internalTrafficPolicy: Local`: ClusterIP traffic goes to this node's endpoints only (none: dropped). */
  internalLocal?: boolean;
  /** Group of this node's endpoints; required when `externalLocal` or `internalLocal` is set. */
  localGroupId?: number;
  endpoints: { ip: string; port: number; weight?: number; local?: boolean }[];
}

/** Antrea's default virtual source address of SNATed external Service traffic to local endpoints. */
export const VIRTUAL_SERVICE_IP = '169.254.0.253';
/** Antrea's default virtual address the host DNATs NodePort traffic to. */
export const VIRTUAL_NODEPORT_DNAT_IP = '169.254.0.252';
/** The IPv6 twin of {@link VIRTUAL_SERVICE_IP} (Antrea's VirtualServiceIPv6). */
export const VIRTUAL_SERVICE_IPV6 = 'fc01::aabb:ccdd:eeff';
/** The IPv6 twin of {@link VIRTUAL_NODEPORT_DNAT_IP} (Antrea's VirtualNodePortDNATIPv6). */
export const VIRTUAL_NODEPORT_DNAT_IPV6 = 'fc01::aabb:ccdd:eefe';

/** ExternalNode mode: the host's uplink and its pair (internal) port. */
export interface ExternalNodeSpec {
  /** Uplink port and the internal port that holds the host IP. */
  interfaces: { uplinkOfport: number; pairOfport: number; ips: string[] }[];
  /** Traffic that bypasses policies (policyBypassRules in the agent config). */
  bypass?: PolicyBypass[];
}

/**
 * One policyBypassRules entry: traffic of `protocol` from (ingress) or to (egress) `cidr` skips the
 * Antrea-native policy tables. `port` (destination port) applies to TCP and UDP only; without it
 * every port matches. `IP` matches every IPv4 protocol.
 */
export interface PolicyBypass {
  direction: 'ingress' | 'egress';
  protocol: 'TCP' | 'UDP' | 'ICMP' | 'IP';
  cidr: string;
  port?: number;
}

/** Multicluster gateway settings. */
export interface MulticlusterSpec {
  /** This node is the cluster's gateway. */
  isGateway: boolean;
  /**
   * Pod/Service CIDRs of the other clusters (either family: a dual-stack cluster's IPv6 CIDRs ride
   * the same IPv4 tunnel), with the remote gateway tunnel IP and, for a dual-stack remote gateway,
   * its IPv6 address (where the replies to the IPv6 connections it SNATed go). An IPv6 `gatewayIP`
   * (an IPv6-only remote cluster) is tunnelled to with `tun_ipv6_dst`.
   */
  remoteClusters: { cidrs: string[]; gatewayIP: string; gatewayIPv6?: string }[];
  /** Local gateway node's tunnel IP (for regular nodes); IPv6 in an IPv6-only cluster (`tun_ipv6_dst`). */
  localGatewayIP?: string;
  /**
   * This gateway's own gateway IP (set when `isGateway`): what the other clusters tunnel to. The
   * gateway SNATs the traffic it sends to other clusters to this address, so the replies come
   * back through it (and through the remote gateway, whose nodes route replies to it). An
   * IPv6-only gateway's is its IPv6 address.
   */
  gatewayIP?: string;
  /** A dual-stack gateway's IPv6 address (set when `isGateway`): what it SNATs IPv6 traffic to other clusters to. */
  gatewayIPv6?: string;
  /** Label identity ids of local pods by address (written into tun_id of their traffic to other clusters). */
  labelIdentities?: { ip: string; id: number }[];
  /**
   * WireGuard between the gateways (agent `multicluster.trafficEncryptionMode: wireGuard`): the
   * gateway hands traffic to other clusters to the host (which routes it into its WireGuard
   * device) instead of tunnelling it, and SNATs what arrives from other clusters through the
   * host to its own gateway (gw0) address, so this cluster's replies come back through it. It
   * does not SNAT what it sends (`gatewayIP` is not used), and nothing routes to remote gateway IPs.
   */
  wireGuard?: boolean;
}

/** FQDN policy support: DNS responses to local pods are intercepted. */
export interface FqdnSpec {
  /** Conjunction id of the DNS-intercept rule. */
  conjId: number;
  /** Local pods whose DNS responses are intercepted (those selected by FQDN rules). */
  podOfports: number[];
  /** Addresses learned from DNS responses, by FQDN (or pattern) as written in rules. */
  addresses?: Record<string, string[]>;
}

/** Everything the pipeline is a function of. */
export interface NodeState {
  config: NodeConfig;
  pods: LocalPod[];
  remoteNodes: RemoteNode[];
  policies: NetworkPolicy[];
  addressGroups: AddressGroup[];
  appliedToGroups: AppliedToGroup[];
  /** Conjunction ids by rule key (see ruleKey); kept by the caller across calls so ids are stable. */
  conjIds?: ReadonlyMap<string, number>;
  services?: ServicePortSpec[];
  externalNode?: ExternalNodeSpec;
  multicluster?: MulticlusterSpec;
  fqdn?: FqdnSpec;
  /** The Egresses that apply on this node (the `egress()` feature). */
  egress?: EgressSpec;
  /**
   * Slices of the state for features this package does not define, by the feature's name (its
   * kinds enumerate them). Typed by declaration merging of {@link NodeStateExtensions}.
   */
  extensions?: NodeStateExtensions & { readonly [feature: string]: unknown };
}

/**
 * The types of {@link NodeState.extensions}: a feature defined elsewhere adds its slice with
 * `declare module '@switchyard/openflow-pipeline' { interface NodeStateExtensions { myFeature?: MySpec } }`.
 */
export interface NodeStateExtensions {
  /** The TrafficControls that apply on this node (the `trafficControl()` feature). */
  trafficControl?: readonly TrafficControlRule[];
}

/** One TrafficControl as it applies on this node. */
export interface TrafficControlRule {
  /** The TrafficControl's name: the object's key. */
  name: string;
  /** Mirror: the packet goes on to its destination and a copy to the target. Redirect: only to the target. */
  action: 'Mirror' | 'Redirect';
  /** Ingress: traffic to the pods; Egress: traffic from them; Both. */
  direction: 'Ingress' | 'Egress' | 'Both';
  /** Bridge ports of the local pods it applies to (none: it has no flows on this node). */
  podOfports: readonly number[];
  /** Bridge port the traffic is mirrored or redirected to. */
  targetOfport: number;
  /** Redirect: the bridge port the traffic comes back through, to continue to its destination. */
  returnOfport?: number;
}


/** The Egresses as this node realizes them, and the destinations no Egress applies to. */
export interface EgressSpec {
  /**
   * Destinations never SNATed to an egress IP (Antrea's `egress.exceptCIDRs`, plus the nodes'
   * own addresses), IPv4 and IPv6: traffic to them leaves as it would without Egress. Pod CIDRs and Services never
   * reach the Egress tables (they are routed or load-balanced first).
   */
  exceptCIDRs: readonly string[];
  egresses: readonly EgressRule[];
}

/** One Egress as it applies on this node. */
export interface EgressRule {
  /** The Egress's name: the object's key (`<name>/IPv6` for an IPv6 IP: a dual-stack Egress has a rule per family). */
  name: string;
  /** The egress IP, IPv4 or (on a node with IPv6) IPv6; the member addresses are of its family. */
  ip: string;
  /**
   * This node owns the IP: it SNATs the members' traffic to it, its own pods' and the other nodes'
   * pods' arriving through the tunnel, under {@link EgressRule.mark}.
   */
  local: boolean;
  /** The owner's transport address when another node owns the IP: this node's members are tunnelled there (IPv4, or IPv6 on an IPv6 underlay). */
  ownerIP?: string;
  /** The Egress's mark on this node (1..255, Antrea's SNAT IP mark), when {@link EgressRule.local}. */
  mark?: number;
  /**
   * When {@link EgressRule.local}: the address OVS SNATs to (and un-SNATs replies to) instead of
   * {@link EgressRule.ip}. For an egress IP that is a local address of the node (an Egress without a
   * pool, put on an interface by hand): a packet leaving OVS with a local address as its source
   * would be dropped by the host as a martian, and a reply to it delivered to the host's own stack,
   * so OVS SNATs to this stand-in and the host SNATs it to the egress IP (its conntrack reverses it
   * before routing the reply back into the gateway).
   */
  snatIP?: string;
  /**
   * The OpenFlow meter that limits the Egress's bandwidth (`spec.bandwidth`, EgressTrafficShaping),
   * when {@link EgressRule.local}: every member's packet passes it in EgressQoS before it is SNATed.
   * The caller installs the meter before the flows naming it (the agent: its id is the mark).
   */
  meter?: number;
  /** Addresses of the member pods on this node. */
  localPods: readonly string[];
  /** Addresses of the member pods on other nodes (SNATed here when this node owns the IP). */
  remotePods: readonly string[];
}
