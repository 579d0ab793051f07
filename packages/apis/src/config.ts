/**
 * antrea-agent.conf / antrea-controller.conf / Multi-cluster controller_manager_config.yaml:
 * types with Antrea's keys, and parsers that apply Antrea's defaults and report unknown keys.
 * Input is the YAML-parsed object (this package does no YAML or file I/O).
 */
import type { ConfigSpec, ConfigWarning } from './config-spec';
import { parseWithSpec } from './config-spec';
import { ConfigError } from './errors';

export type { ConfigWarning } from './config-spec';

/** Result of a config parse: the defaulted config and the warnings (unknown keys, unknown feature gates). */
export interface ParsedConfig<T> {
  config: T;
  warnings: ConfigWarning[];
}

/** Feature gates and their defaults (Antrea's current release). Unknown gates are kept and warned about. */
export const AGENT_FEATURE_GATES: Readonly<Record<string, boolean>> = {
  AntreaPolicy: true,
  AntreaProxy: true,
  Egress: true,
  EndpointSlice: true,
  TopologyAwareHints: true,
  Traceflow: true,
  NodePortLocal: true,
  NetworkPolicyStats: true,
  FlowExporter: false,
  AntreaIPAM: false,
  Multicast: true,
  Multicluster: false,
  SecondaryNetwork: false,
  ServiceExternalIP: false,
  TrafficControl: false,
  IPsecCertAuth: false,
  ExternalNode: false,
  SupportBundleCollection: false,
  L7NetworkPolicy: false,
  AdminNetworkPolicy: false,
  EgressTrafficShaping: false,
  EgressSeparateSubnet: false,
  NodeNetworkPolicy: false,
  L7FlowExporter: false,
  BGPPolicy: false,
  NodeLatencyMonitor: false,
  PacketCapture: false,
  CleanupStaleUDPSvcConntrack: true,
  LoadBalancerModeDSR: false,
};

/** Controller feature gates and their defaults. */
export const CONTROLLER_FEATURE_GATES: Readonly<Record<string, boolean>> = {
  AntreaPolicy: true,
  Egress: true,
  Traceflow: true,
  NetworkPolicyStats: true,
  NodeIPAM: true,
  AntreaIPAM: false,
  Multicast: true,
  Multicluster: false,
  ServiceExternalIP: false,
  IPsecCertAuth: false,
  ExternalNode: false,
  SupportBundleCollection: false,
  L7NetworkPolicy: false,
  AdminNetworkPolicy: false,
  NodeNetworkPolicy: false,
  BGPPolicy: false,
  PacketCapture: false,
};

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

const s = (d: string, e?: readonly string[]): ConfigSpec => (e ? { kind: 'string', default: d, enum: e } : { kind: 'string', default: d });
const b = (d: boolean): ConfigSpec => ({ kind: 'bool', default: d });
const i = (d: number, min?: number, max?: number): ConfigSpec => ({
  kind: 'int',
  default: d,
  ...(min === undefined ? {} : { min }),
  ...(max === undefined ? {} : { max }),
});
const sl = (d: readonly string[] = []): ConfigSpec => ({ kind: 'stringList', default: d });
const o = (fields: Record<string, ConfigSpec>, aliases?: Record<string, string>): ConfigSpec => ({ kind: 'object', fields, ...(aliases ? { aliases } : {}) });
const port = (d: number): ConfigSpec => i(d, 0, 65535);

/** The antrea-agent.conf description (keys, types, defaults). */
export const AGENT_CONFIG_SPEC: ConfigSpec = o(
  {
    featureGates: { kind: 'gates', defaults: AGENT_FEATURE_GATES },
    nodeType: s('k8sNode', ['k8sNode', 'externalNode']),
    cniSocket: s('/var/run/antrea/cni.sock'),
    clientConnection: o({ kubeconfig: s('') }),
    antreaClientConnection: o({ kubeconfig: s('') }),
    ovsBridge: s('br-int'),
    ovsDatapathType: s('system', ['system', 'netdev']),
    ovsRunDir: s('/var/run/openvswitch'),
    hostGateway: s('antrea-gw0'),
    trafficEncapMode: s('encap', ['encap', 'noEncap', 'hybrid', 'networkPolicyOnly']),
    noSNAT: b(false),
    tunnelType: s('geneve', ['geneve', 'vxlan', 'gre', 'stt']),
    tunnelPort: port(0),
    tunnelCsum: b(false),
    trafficEncryptionMode: s('none', ['none', 'ipsec', 'wireGuard']),
    enableBridgingMode: b(false),
    disableTXChecksumOffload: b(false),
    defaultMTU: i(0, 0, 65535),
    packetInRate: i(500, 1),
    serviceCIDR: s(''),
    serviceCIDRv6: s(''),
    transportInterface: s(''),
    transportInterfaceCIDRs: sl(),
    multicastInterfaces: sl(),
    kubeAPIServerOverride: s(''),
    dnsServerOverride: s(''),
    enablePrometheusMetrics: b(true),
    apiPort: port(10350),
    clusterMembershipPort: port(10351),
    tlsCipherSuites: s(''),
    tlsMinVersion: s(''),
    fqdnCacheMinTTL: i(0, 0),
    wireGuard: o({ port: port(51820) }),
    ipsec: o({ authenticationMode: s('psk', ['psk', 'cert']) }),
    egress: o({ exceptCIDRs: sl(), maxEgressIPsPerNode: i(255, 1, 255), snatFullyRandomPorts: b(false) }),
    nodePortLocal: o({ enable: b(true), portRange: s('61000-62000') }),
    antreaProxy: o({
      enable: b(true),
      proxyAll: b(false),
      nodePortAddresses: sl(),
      skipServices: sl(),
      proxyLoadBalancerIPs: b(true),
      serviceProxyName: s(''),
      defaultLoadBalancerMode: s('nat', ['nat', 'dsr']),
    }),
    flowExporter: o({
      enable: b(false),
      flowCollectorAddr: s('flow-aggregator/flow-aggregator:4739:tls'),
      flowPollInterval: s('5s'),
      activeFlowExportTimeout: s('5s'),
      idleFlowExportTimeout: s('15s'),
    }),
    multicast: o({ igmpQueryVersions: sl(['1', '2', '3']), igmpQueryInterval: s('125s') }),
    externalNode: o({
      externalNodeNamespace: s('default'),
      policyBypassRules: {
        kind: 'list',
        item: o({
          direction: { kind: 'string', enum: ['ingress', 'egress'] },
          protocol: { kind: 'string', enum: ['tcp', 'udp', 'icmp', 'ip'] },
          cidr: { kind: 'string' },
          port: { kind: 'int', min: 1, max: 65535 },
        }),
      },
    }),
    multicluster: o({
      enableGateway: b(false),
      namespace: s(''),
      enableStretchedNetworkPolicy: b(false),
      enablePodToPodConnectivity: b(false),
      trafficEncryptionMode: s('none', ['none', 'wireGuard']),
      wireGuard: o({ port: port(51821) }),
    }),
    secondaryNetwork: o({ ovsBridges: { kind: 'list', item: o({ bridgeName: { kind: 'string' }, physicalInterfaces: sl() }) } }),
    auditLogging: o({ maxSize: i(500, 0), maxBackups: i(3, 0), maxAge: i(28, 0), compress: b(true) }),
  },
  // The ExternalNode guide writes these two at the top level.
  { externalNodeNamespace: 'externalNode.externalNodeNamespace', policyBypassRules: 'externalNode.policyBypassRules' },
);

/** The antrea-controller.conf description. */
export const CONTROLLER_CONFIG_SPEC: ConfigSpec = o({
  featureGates: { kind: 'gates', defaults: CONTROLLER_FEATURE_GATES },
  clientConnection: o({ kubeconfig: s('') }),
  selfSignedCert: b(true),
  apiPort: port(10349),
  enablePrometheusMetrics: b(true),
  tlsCipherSuites: s(''),
  tlsMinVersion: s(''),
  nodeIPAM: o({
    enableNodeIPAM: b(false),
    clusterCIDRs: sl(),
    serviceCIDR: s(''),
    serviceCIDRv6: s(''),
    nodeCIDRMaskSizeIPv4: i(24, 16, 30),
    nodeCIDRMaskSizeIPv6: i(64, 64, 126),
  }),
  ipsecCSRSigner: o({ autoApprove: b(true), selfSignedCA: b(true) }),
  multicluster: o({ enableStretchedNetworkPolicy: b(false) }),
});

/** The Multi-cluster controller_manager_config.yaml description. */
export const MULTICLUSTER_CONFIG_SPEC: ConfigSpec = o({
  apiVersion: s('multicluster.crd.antrea.io/v1alpha1'),
  kind: s('MultiClusterConfig', ['MultiClusterConfig']),
  health: o({ healthProbeBindAddress: s(':8080') }),
  metrics: o({ bindAddress: s('0') }),
  webhook: o({ port: port(9443) }),
  leaderElection: o({ leaderElect: b(false), resourceName: s('6536456a.crd.antrea.io') }),
  serviceCIDR: s(''),
  podCIDRs: sl(),
  gatewayIPPrecedence: s('private', ['private', 'public', 'internal', 'external']),
  endpointIPType: s('ClusterIP', ['ClusterIP', 'PodIP']),
  enableStretchedNetworkPolicy: b(false),
});

function parseRoot<T>(input: unknown, spec: ConfigSpec): ParsedConfig<T> {
  if (input !== null && input !== undefined && (typeof input !== 'object' || Array.isArray(input))) {
    throw new ConfigError('NOT_AN_OBJECT', 'configuration must be a map', '', input);
  }
  const warnings: ConfigWarning[] = [];
  const config = parseWithSpec(input ?? {}, spec, '', warnings) as T;
  return { config, warnings };
}

/**
 * Parse a YAML-parsed antrea-agent.conf: applies defaults, throws ConfigError on wrong types or
 * values, and returns unknown keys / feature gates as warnings (key paths), never dropping them silently.
 */
export function parseAgentConfig(input: unknown): ParsedConfig<AgentConfig> {
  const parsed = parseRoot<AgentConfig>(input, AGENT_CONFIG_SPEC);
  for (const [idx, r] of parsed.config.externalNode.policyBypassRules.entries()) {
    const path = `externalNode.policyBypassRules[${idx}]`;
    for (const key of ['direction', 'protocol', 'cidr'] as const) {
      if (r[key] === undefined) throw new ConfigError('INVALID_VALUE', 'required', `${path}.${key}`, undefined);
    }
    if ((r.protocol === 'tcp' || r.protocol === 'udp') && r.port === undefined) {
      throw new ConfigError('INVALID_VALUE', 'port is required for tcp and udp', `${path}.port`, undefined);
    }
  }
  return parsed;
}

/** Parse a YAML-parsed antrea-controller.conf (see {@link parseAgentConfig}). */
export function parseControllerConfig(input: unknown): ParsedConfig<ControllerConfig> {
  return parseRoot<ControllerConfig>(input, CONTROLLER_CONFIG_SPEC);
}

/** Parse a YAML-parsed Multi-cluster controller_manager_config.yaml (see {@link parseAgentConfig}). */
export function parseMultiClusterConfig(input: unknown): ParsedConfig<MultiClusterConfig> {
  return parseRoot<MultiClusterConfig>(input, MULTICLUSTER_CONFIG_SPEC);
}
