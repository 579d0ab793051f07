/** The agent's options: what a caller gives, the defaults, and the mapping from antrea-agent.conf. */
import { join } from 'node:path';
import type { AgentConfig } from '@switchyard/apis';
import type { KubeClient } from '@switchyard/kube';
import type { PolicyBypass, TrafficMode } from '@switchyard/openflow-pipeline';
import { AgentError } from './errors';
import { silentLogger, type Clock, type Logger } from '@switchyard/runtime';
import { checkDatapathSupport, type TunnelType } from './bridge';
import { ipsecPSK } from './features/ipsec/ipsec';
import type { MulticlusterOptions } from './features/multicluster/part';

/** Everything the agent needs to run a node. */
export interface AgentOptions {
  nodeName: string;
  /** This node's pod CIDR (IPv4); the gateway gets its first address. */
  podCIDR: string;
  /** This node's transport address. */
  nodeIP: string;
  /** OVSDB remote, as `ovs-vsctl --db` takes it (`unix:/var/run/openvswitch/db.sock`). */
  ovsdbRemote: string;
  /** Directory of `<bridge>.mgmt` (the OpenFlow management socket). Default /var/run/openvswitch. */
  ovsRunDir?: string;
  /** Bridge name. Default br-int. */
  bridge?: string;
  /** `netdev` (userspace) or `system` (kernel). Default system, as Antrea. */
  datapathType?: 'system' | 'netdev';
  /** Gateway internal port. Default antrea-gw0. */
  gatewayName?: string;
  /** Tunnel port. Default antrea-tun0. */
  tunnelName?: string;
  /** Default geneve. `stt` is refused on the netdev datapath. */
  tunnelType?: TunnelType;
  /** 0 = the tunnel type's default UDP port. */
  tunnelPort?: number;
  tunnelCsum?: boolean;
  /** MTU of the node's transport link; pods get it minus the tunnel overhead. Default 1500. */
  linkMtu?: number;
  /** State directory: the host-local store lives in `<dataDir>/networks/<ipamNetwork>`. */
  dataDir: string;
  /** Directory name of the IPAM store (host-local's network name). Default switchyard. */
  ipamNetwork?: string;
  /** CNI gRPC socket. Default /var/run/antrea/cni.sock. */
  cniSocket?: string;
  /**
   * Lab only: netns (name or path) holding the node's host side (gateway, veth host ends), when
   * the agent process runs outside it.
   */
  nodeNetns?: string;
  /** np.log of rules with enableLogging. Default `<dataDir>/networkpolicy/np.log`. */
  policyLogFile?: string;
  /** Local API socket (podinterfaces, ovsflows, agentinfo); none when absent. */
  apiSocket?: string;
  /**
   * The controller's controlplane stream. Without it, pods still get connectivity and the policies
   * cached on disk (if any) stay enforced.
   */
  controlplane?: {
    /** `https://host:port` of the controller. */
    url: string;
    caPem?: string;
    /** Bearer token, or a file to read it from at each connection (projected ServiceAccount token). */
    token?: string;
    tokenFile?: string;
    backoff?: { initialMs?: number; maxMs?: number };
  };
  /** Transmit checksum offload off on both veth ends. Default: on the netdev datapath. */
  disableTxChecksumOffload?: boolean;
  /**
   * How pod traffic crosses nodes. Default encap. networkPolicyOnly: chained after a routed
   * primary CNI, policies only (no IPAM, tunnel, routes or SNAT of ours).
   */
  trafficMode?: TrafficMode;
  /**
   * Encryption of pod traffic between nodes. wireGuard: a WireGuard device (`switchyard-wg0`,
   * userspace wireguard-go) carries it instead of the tunnel; needs `kube` (keys are exchanged
   * through Node annotations). ipsec: one tunnel port per peer Node with `remote_ip` and `psk`
   * (ovs-monitor-ipsec and strongSwan encrypt it); needs `kube` and encap. Default none.
   */
  trafficEncryptionMode?: 'none' | 'wireGuard' | 'ipsec';
  /** IPsec pre-shared key. Default: the environment variable ANTREA_IPSEC_PSK (required with ipsec and psk authentication). */
  ipsecPSK?: string;
  /**
   * How IPsec peers authenticate (antrea-agent.conf `ipsec.authenticationMode`): `psk` (default) or
   * `cert`, a certificate for `CN=<nodeName>` issued by the controller's IPsec signer through a
   * CertificateSigningRequest, kept in `<dataDir>/ipsec`.
   */
  ipsecAuthenticationMode?: 'psk' | 'cert';
  /** Namespace of the IPsec CA ConfigMap (switchyard-ipsec-ca). Default kube-system. */
  ipsecCANamespace?: string;
  /** UDP port of the WireGuard device. Default 51820 (antrea-agent.conf `wireGuard.port`). */
  wireGuardPort?: number;
  /** The wireguard-go program. Default `wireguard-go` (on PATH). */
  wireGuardGo?: string;
  /**
   * Rotate the WireGuard key once it is this old (its key file's time on the agent's clock), ms.
   * Absent: never by age (removing the key file still rotates it).
   */
  wireGuardKeyRotationMs?: number;
  /** Do not masquerade pod -> external traffic (the network routes pod addresses). Default false. */
  noSNAT?: boolean;
  /**
   * The Kubernetes API. With it the agent watches Nodes (remote nodes' flows and host routes) and
   * its own node's Pods, and keeps its AntreaAgentInfo current. Without it there are no remote
   * nodes: pods reach only pods of this node.
   */
  kube?: KubeClient;
  /** TCP port of the agent API (Antrea's apiPort, 10350); none when absent. 0 = any free port. */
  apiPort?: number;
  /**
   * Address the TCP API binds: default 0.0.0.0 with `kube` (every node address, for the API
   * server's node proxy), 127.0.0.1 without. The API is HTTPS; with `kube`, callers are
   * authenticated and authorized through the Kubernetes API (a non-loopback address needs `kube`).
   */
  apiBindAddress?: string;
  /**
   * Packet-ins per second allowed per category (NetworkPolicy logging/Reject, DNS), through
   * OpenFlow meters; 0 = no meters. Default 500 (Antrea's packetInRate).
   */
  packetInRate?: number;
  /**
   * AntreaProxy: Service load balancing in OVS from the Services and EndpointSlices the agent
   * watches. Needs `kube`; default true when it is given (antrea-agent.conf `antreaProxy.enable`).
   */
  enableProxy?: boolean;
  /**
   * AntreaIPAM: pods (or Namespaces) annotated `ipam.antrea.io/ippools` take their address from
   * that IPPool. Needs `kube`; default false (antrea-agent.conf feature gate `AntreaIPAM`).
   */
  enableIPPools?: boolean;
  /** AntreaAgentInfo heartbeat period. Default 60 s. */
  agentInfoIntervalMs?: number;
  /** Time source of heartbeats and informer backoff. */
  clock?: Clock;
  /**
   * Multi-cluster (antrea-agent.conf `featureGates.Multicluster` and `multicluster.enableGateway`):
   * routes to other clusters through the elected Gateway. Needs `kube` and AntreaProxy.
   */
  multicluster?: MulticlusterOptions;
  logger?: Logger;
}

/** Options without a default: absent means that feature (or override) is off. */
type Unset = 'nodeNetns' | 'apiSocket' | 'controlplane' | 'kube' | 'apiPort' | 'clock' | 'ipsecPSK' | 'multicluster' | 'wireGuardKeyRotationMs';

/** {@link AgentOptions} with every default applied. */
export type ResolvedAgentOptions = Required<Omit<AgentOptions, Unset>> & Pick<AgentOptions, Unset>;

/** Applies the defaults; throws `AgentError` (`INVALID_CONFIG`, `UNSUPPORTED_TUNNEL`) for options no node can run. */
export function resolveAgentOptions(o: AgentOptions): ResolvedAgentOptions {
  const resolved: ResolvedAgentOptions = {
    nodeName: o.nodeName,
    podCIDR: o.podCIDR,
    nodeIP: o.nodeIP,
    ovsdbRemote: o.ovsdbRemote,
    ovsRunDir: o.ovsRunDir ?? '/var/run/openvswitch',
    bridge: o.bridge ?? 'br-int',
    datapathType: o.datapathType ?? 'system',
    gatewayName: o.gatewayName ?? 'antrea-gw0',
    tunnelName: o.tunnelName ?? 'antrea-tun0',
    tunnelType: o.tunnelType ?? 'geneve',
    tunnelPort: o.tunnelPort ?? 0,
    tunnelCsum: o.tunnelCsum ?? false,
    linkMtu: o.linkMtu ?? 1500,
    dataDir: o.dataDir,
    ipamNetwork: o.ipamNetwork ?? 'switchyard',
    cniSocket: o.cniSocket ?? '/var/run/antrea/cni.sock',
    disableTxChecksumOffload: o.disableTxChecksumOffload ?? (o.datapathType ?? 'system') === 'netdev',
    trafficMode: o.trafficMode ?? 'encap',
    noSNAT: o.noSNAT ?? false,
    trafficEncryptionMode: o.trafficEncryptionMode ?? 'none',
    wireGuardPort: o.wireGuardPort ?? 51820,
    ipsecAuthenticationMode: o.ipsecAuthenticationMode ?? 'psk',
    ipsecCANamespace: o.ipsecCANamespace ?? 'kube-system',
    wireGuardGo: o.wireGuardGo ?? 'wireguard-go',
    // Authenticated callers only (with `kube`): reachable by the API server's node proxy on
    // every node address, as Antrea's agent API; without `kube`, loopback only.
    apiBindAddress: o.apiBindAddress ?? (o.kube !== undefined ? '0.0.0.0' : '127.0.0.1'),
    agentInfoIntervalMs: o.agentInfoIntervalMs ?? 60_000,
    packetInRate: o.packetInRate ?? 500,
    ...(o.kube !== undefined ? { kube: o.kube } : {}),
    ...(o.apiPort !== undefined ? { apiPort: o.apiPort } : {}),
    ...(o.clock !== undefined ? { clock: o.clock } : {}),
    ...(o.wireGuardKeyRotationMs !== undefined ? { wireGuardKeyRotationMs: o.wireGuardKeyRotationMs } : {}),
    enableProxy: o.kube !== undefined && (o.enableProxy ?? true),
    enableIPPools: o.kube !== undefined && (o.enableIPPools ?? false),
    ...(o.nodeNetns !== undefined ? { nodeNetns: o.nodeNetns } : {}),
    ...(o.multicluster !== undefined ? { multicluster: o.multicluster } : {}),
    ...(o.apiSocket !== undefined ? { apiSocket: o.apiSocket } : {}),
    ...(o.controlplane !== undefined ? { controlplane: o.controlplane } : {}),
    policyLogFile: o.policyLogFile ?? join(o.dataDir, 'networkpolicy', 'np.log'),
    logger: o.logger ?? silentLogger,
  };
  checkDatapathSupport(resolved);
  if (resolved.trafficEncryptionMode === 'wireGuard') {
    if (resolved.kube === undefined) throw new AgentError('INVALID_CONFIG', 'trafficEncryptionMode wireGuard exchanges keys through Node annotations and needs the Kubernetes API', resolved.trafficEncryptionMode, 'trafficEncryptionMode');
    if (resolved.trafficMode === 'networkPolicyOnly') throw new AgentError('INVALID_CONFIG', 'trafficEncryptionMode wireGuard needs a traffic mode where this agent routes pod traffic, not networkPolicyOnly', resolved.trafficMode, 'trafficEncapMode');
    const period = resolved.wireGuardKeyRotationMs;
    if (period !== undefined && !(Number.isFinite(period) && period >= 1000)) throw new AgentError('INVALID_CONFIG', `wireGuardKeyRotationMs must be a number of milliseconds of at least 1000, not ${String(period)}`, period, 'wireGuardKeyRotationMs');
  }
  if (resolved.trafficEncryptionMode === 'ipsec') {
    if (resolved.kube === undefined) throw new AgentError('INVALID_CONFIG', 'trafficEncryptionMode ipsec makes one tunnel port per peer Node and needs the Kubernetes API', resolved.trafficEncryptionMode, 'trafficEncryptionMode');
    // As Antrea: IPsec encrypts the tunnel, so every peer must be reached through it.
    if (resolved.trafficMode !== 'encap') throw new AgentError('INVALID_CONFIG', `trafficEncryptionMode ipsec needs trafficEncapMode encap, not ${resolved.trafficMode}`, resolved.trafficMode, 'trafficEncapMode');
    if (resolved.ipsecAuthenticationMode === 'psk') resolved.ipsecPSK = ipsecPSK(o.ipsecPSK, process.env);
  }
  return resolved;
}

/** Agent options from an antrea-agent.conf (parsed by `parseAgentConfig`) plus the node's facts. */
export function agentOptionsFromConfig(
  cfg: AgentConfig,
  node: { nodeName: string; podCIDR: string; nodeIP: string; dataDir: string; nodeNetns?: string; logger?: Logger },
): AgentOptions {
  return {
    ...node,
    trafficMode: cfg.trafficEncapMode,
    noSNAT: cfg.noSNAT,
    ...encryptionFromConfig(cfg),
    packetInRate: cfg.packetInRate,
    // Antrea >= 2.0 turns AntreaProxy off with antreaProxy.enable; older configs with the gate.
    enableIPPools: cfg.featureGates.AntreaIPAM === true,
    enableProxy: cfg.featureGates.AntreaProxy !== false && cfg.antreaProxy.enable,
    ...(cfg.apiPort > 0 ? { apiPort: cfg.apiPort } : {}),
    ...multiclusterFromConfig(cfg),
    ovsdbRemote: `unix:${join(cfg.ovsRunDir, 'db.sock')}`,
    ovsRunDir: cfg.ovsRunDir,
    bridge: cfg.ovsBridge,
    datapathType: cfg.ovsDatapathType,
    gatewayName: cfg.hostGateway,
    tunnelType: cfg.tunnelType as TunnelType,
    tunnelPort: cfg.tunnelPort,
    tunnelCsum: cfg.tunnelCsum,
    ...(cfg.defaultMTU > 0 ? { linkMtu: cfg.defaultMTU } : {}),
    cniSocket: cfg.cniSocket,
    disableTxChecksumOffload: cfg.disableTXChecksumOffload || cfg.ovsDatapathType === 'netdev',
  };
}

/**
 * antrea-agent.conf `externalNode.policyBypassRules` as the pipeline takes them. The port is the
 * destination port and is required for tcp and udp (as Antrea's guide says); icmp and ip take none.
 * Throws `AgentError` `INVALID_CONFIG` naming the rule's field.
 */
export function policyBypassFromConfig(rules: AgentConfig['externalNode']['policyBypassRules']): PolicyBypass[] {
  return rules.map((r, i) => {
    const at = `externalNode.policyBypassRules[${i}]`;
    const protocol = r.protocol.toUpperCase() as PolicyBypass['protocol'];
    if (protocol === 'TCP' || protocol === 'UDP') {
      if (r.port === undefined) throw new AgentError('INVALID_CONFIG', `${r.protocol} bypass rules need a destination port`, r, `${at}.port`);
      return { direction: r.direction, protocol, cidr: r.cidr, port: r.port };
    }
    if (r.port !== undefined) throw new AgentError('INVALID_CONFIG', `${r.protocol} bypass rules take no port`, r.port, `${at}.port`);
    return { direction: r.direction, protocol, cidr: r.cidr };
  });
}

/**
 * antrea-agent.conf `trafficEncryptionMode`, `wireGuard` and `ipsec`. With `psk` authentication
 * the key comes from ANTREA_IPSEC_PSK when the options are resolved; with `cert` from the
 * controller's IPsec signer at start.
 */
function encryptionFromConfig(cfg: AgentConfig): Pick<AgentOptions, 'trafficEncryptionMode' | 'wireGuardPort' | 'ipsecAuthenticationMode'> {
  return { trafficEncryptionMode: cfg.trafficEncryptionMode, wireGuardPort: cfg.wireGuard.port, ...(cfg.trafficEncryptionMode === 'ipsec' ? { ipsecAuthenticationMode: cfg.ipsec.authenticationMode } : {}) };
}

/**
 * antrea-agent.conf `featureGates.Multicluster` and `multicluster.*`: the gateway dataplane is on
 * when both the gate and `enableGateway` are; an empty `namespace` means the agent's own
 * (`$POD_NAMESPACE`, else kube-system, where Antrea installs it); `trafficEncryptionMode:
 * wireGuard` with `wireGuard.port` (default 51821) encrypts between the clusters' gateways.
 */
export function multiclusterFromConfig(cfg: AgentConfig, env: NodeJS.ProcessEnv = process.env): Pick<AgentOptions, 'multicluster'> {
  if (cfg.featureGates.Multicluster !== true || !cfg.multicluster.enableGateway) return {};
  return {
    multicluster: {
      namespace: cfg.multicluster.namespace || env.POD_NAMESPACE || 'kube-system',
      enablePodToPodConnectivity: cfg.multicluster.enablePodToPodConnectivity,
      ...(cfg.multicluster.enableStretchedNetworkPolicy ? { enableStretchedNetworkPolicy: true } : {}),
      ...(cfg.multicluster.trafficEncryptionMode === 'wireGuard' ? { wireGuard: { port: cfg.multicluster.wireGuard.port } } : {}),
    },
  };
}
