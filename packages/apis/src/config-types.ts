/**
 * The configuration shapes (antrea-agent.conf, antrea-controller.conf, the Multi-cluster
 * controller_manager_config.yaml) as plain types, apart from their TypeBox schemas in config.ts, so
 * the pure `types` entry and its declarations carry no TypeBox.
 */

/** A non-fatal finding while parsing a configuration (e.g. an unknown key). */
export interface ConfigWarning {
  /** Stable code: `UNKNOWN_KEY` or `UNKNOWN_FEATURE_GATE`. */
  code: 'UNKNOWN_KEY' | 'UNKNOWN_FEATURE_GATE';
  /** Key path, e.g. `multicluster.wireGuard.prot`. */
  path: string;
  message: string;
}

/** Result of a config parse: the defaulted config and the warnings (unknown keys, unknown feature gates). */
export interface ParsedConfig<T> {
  config: T;
  warnings: ConfigWarning[];
}

export type TrafficEncapMode = 'encap' | 'noEncap' | 'hybrid' | 'networkPolicyOnly';
export type TunnelType = 'geneve' | 'vxlan' | 'gre' | 'stt';
export type TrafficEncryptionMode = 'none' | 'ipsec' | 'wireGuard';

/** A traffic class that bypasses NetworkPolicy on an ExternalNode. */
export interface PolicyBypassRule {
  direction: 'ingress' | 'egress';
  protocol: 'tcp' | 'udp' | 'icmp' | 'ip';
  /** Peer CIDR: source for ingress, destination for egress. */
  cidr: string;
  /** Destination port (tcp/udp). */
  port?: number;
}

/** antrea-agent.conf after defaulting. */
export interface AgentConfig {
  featureGates: Record<string, boolean>;
  /** `k8sNode` (default) or `externalNode` (VM / bare metal agent). */
  nodeType: 'k8sNode' | 'externalNode';
  cniSocket: string;
  clientConnection: { kubeconfig: string };
  antreaClientConnection: { kubeconfig: string };
  ovsBridge: string;
  ovsDatapathType: 'system' | 'netdev';
  ovsRunDir: string;
  hostGateway: string;
  trafficEncapMode: TrafficEncapMode;
  noSNAT: boolean;
  tunnelType: TunnelType;
  /** 0 means the tunnel type's default port. */
  tunnelPort: number;
  tunnelCsum: boolean;
  trafficEncryptionMode: TrafficEncryptionMode;
  enableBridgingMode: boolean;
  disableTXChecksumOffload: boolean;
  /** 0 means discover from the transport interface. */
  defaultMTU: number;
  packetInRate: number;
  serviceCIDR: string;
  serviceCIDRv6: string;
  transportInterface: string;
  transportInterfaceCIDRs: string[];
  multicastInterfaces: string[];
  kubeAPIServerOverride: string;
  dnsServerOverride: string;
  enablePrometheusMetrics: boolean;
  apiPort: number;
  clusterMembershipPort: number;
  tlsCipherSuites: string;
  tlsMinVersion: string;
  fqdnCacheMinTTL: number;
  wireGuard: { port: number };
  ipsec: { authenticationMode: 'psk' | 'cert' };
  egress: { exceptCIDRs: string[]; maxEgressIPsPerNode: number; snatFullyRandomPorts: boolean };
  nodePortLocal: { enable: boolean; portRange: string };
  antreaProxy: {
    /** AntreaProxy on (Antrea >= 2.0 key; the AntreaProxy feature gate before). */
    enable: boolean;
    proxyAll: boolean;
    nodePortAddresses: string[];
    skipServices: string[];
    proxyLoadBalancerIPs: boolean;
    serviceProxyName: string;
    defaultLoadBalancerMode: 'nat' | 'dsr';
  };
  flowExporter: {
    enable: boolean;
    flowCollectorAddr: string;
    flowPollInterval: string;
    activeFlowExportTimeout: string;
    idleFlowExportTimeout: string;
  };
  multicast: { igmpQueryVersions: string[]; igmpQueryInterval: string };
  externalNode: { externalNodeNamespace: string; policyBypassRules: PolicyBypassRule[] };
  multicluster: {
    enableGateway: boolean;
    /** Namespace of the Multi-cluster Controller; "" means the agent's own Namespace. */
    namespace: string;
    enableStretchedNetworkPolicy: boolean;
    enablePodToPodConnectivity: boolean;
    trafficEncryptionMode: 'none' | 'wireGuard';
    wireGuard: { port: number };
  };
  secondaryNetwork: { ovsBridges: { bridgeName: string; physicalInterfaces: string[] }[] };
  auditLogging: { maxSize: number; maxBackups: number; maxAge: number; compress: boolean };
}

/** antrea-controller.conf after defaulting. */
export interface ControllerConfig {
  featureGates: Record<string, boolean>;
  clientConnection: { kubeconfig: string };
  selfSignedCert: boolean;
  apiPort: number;
  enablePrometheusMetrics: boolean;
  tlsCipherSuites: string;
  tlsMinVersion: string;
  nodeIPAM: {
    enableNodeIPAM: boolean;
    clusterCIDRs: string[];
    serviceCIDR: string;
    serviceCIDRv6: string;
    nodeCIDRMaskSizeIPv4: number;
    nodeCIDRMaskSizeIPv6: number;
  };
  ipsecCSRSigner: { autoApprove: boolean; selfSignedCA: boolean };
  multicluster: { enableStretchedNetworkPolicy: boolean };
}

/** Multi-cluster Controller configuration (antrea-mc-controller-config, controller_manager_config.yaml). */
export interface MultiClusterConfig {
  apiVersion: string;
  kind: string;
  health: { healthProbeBindAddress: string };
  metrics: { bindAddress: string };
  webhook: { port: number };
  leaderElection: { leaderElect: boolean; resourceName: string };
  serviceCIDR: string;
  podCIDRs: string[];
  gatewayIPPrecedence: 'private' | 'public' | 'internal' | 'external';
  endpointIPType: 'ClusterIP' | 'PodIP';
  enableStretchedNetworkPolicy: boolean;
}
