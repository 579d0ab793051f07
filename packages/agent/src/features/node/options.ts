/**
 * The node's options: who it is (name, pod CIDR, addresses, state directory), what it talks to
 * (OVS, the Kubernetes API) and its datapath (bridge, gateway, tunnel, traffic mode). Every other
 * feature's options fragment may read these.
 */
import { join } from 'node:path';
import type { TrafficMode } from '@switchyard/openflow-pipeline';
import { silentLogger, type Clock, type Logger } from '@switchyard/runtime';
import type { KubeClient } from '@switchyard/kube';
import { canonicalIp } from '@switchyard/apis/types';
import { checkDatapathSupport, podMtu, type TunnelType } from '../../bridge';
import type { OptionsFragment, Resolved } from '../../options-fragment';

export interface NodeOptions {
  nodeName: string;
  /** This node's pod CIDR (IPv4); the gateway gets its first address. */
  podCIDR: string;
  /**
   * Dual-stack: this node's IPv6 pod CIDR (the IPv6 entry of the Node's `spec.podCIDRs`). Each pod
   * gets an address from both, and the gateway the first address of each. Absent: IPv4 only.
   */
  podCIDRv6?: string;
  /**
   * This node's transport address: the tunnels run from it. IPv4; or, on an IPv6-only node whose
   * Node has no IPv4 address, IPv6 (an IPv6 underlay: the tunnel to each peer runs over IPv6 to
   * the peer's IPv6 InternalIP, and `nodeIPv6` defaults to it).
   */
  nodeIP: string;
  /**
   * Dual-stack or IPv6-only: this node's IPv6 address (the tunnels stay on `nodeIP`). With it IPv6 Services get
   * their node ports: the host DNATs what it receives on its IPv6 addresses (ip6tables). Absent:
   * node ports are served over IPv4 only (on an IPv6 underlay it is `nodeIP`).
   */
  nodeIPv6?: string;
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
  /**
   * Lab only: netns (name or path) holding the node's host side (gateway, veth host ends), when
   * the agent process runs outside it.
   */
  nodeNetns?: string;
  /** Transmit checksum offload off on the pod end of each veth (the host end is OVS's: only it sends there). Default: on the netdev datapath. */
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
  /** Do not masquerade pod -> external traffic (the network routes pod addresses). Default false. */
  noSNAT?: boolean;
  /**
   * The Kubernetes API. With it the agent watches Nodes (remote nodes' flows and host routes) and
   * its own node's Pods, and keeps its AntreaAgentInfo current. Without it there are no remote
   * nodes: pods reach only pods of this node.
   */
  kube?: KubeClient;
  /** Time source of heartbeats and informer backoff. */
  clock?: Clock;
  logger?: Logger;
}

/** The node's options without a default: absent means that feature (or override) is off. */
export type NodeUnset = 'podCIDRv6' | 'nodeIPv6' | 'nodeNetns' | 'kube' | 'clock';
export type ResolvedNodeOptions = Resolved<NodeOptions, NodeUnset>;

/** A feature's options fragment, which may read the node's options. */
export type FeatureOptionsFragment<O extends object, U extends keyof O = never> = OptionsFragment<O, U, NodeOptions, ResolvedNodeOptions>;

export const nodeOptions: OptionsFragment<NodeOptions, NodeUnset> = {
  resolve: (o) => ({
    nodeName: o.nodeName,
    podCIDR: o.podCIDR,
    ...(o.podCIDRv6 !== undefined ? { podCIDRv6: o.podCIDRv6 } : {}),
    ...nodeAddressesOf(o),
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
    disableTxChecksumOffload: o.disableTxChecksumOffload ?? (o.datapathType ?? 'system') === 'netdev',
    trafficMode: o.trafficMode ?? 'encap',
    trafficEncryptionMode: o.trafficEncryptionMode ?? 'none',
    noSNAT: o.noSNAT ?? false,
    ...(o.nodeNetns !== undefined ? { nodeNetns: o.nodeNetns } : {}),
    ...(o.kube !== undefined ? { kube: o.kube } : {}),
    ...(o.clock !== undefined ? { clock: o.clock } : {}),
    logger: o.logger ?? silentLogger,
  }),
  check: (r) => checkDatapathSupport(r),
  fromConfig: (cfg) => ({
    ovsdbRemote: `unix:${join(cfg.ovsRunDir, 'db.sock')}`,
    trafficMode: cfg.trafficEncapMode,
    trafficEncryptionMode: cfg.trafficEncryptionMode,
    noSNAT: cfg.noSNAT,
    ovsRunDir: cfg.ovsRunDir,
    bridge: cfg.ovsBridge,
    datapathType: cfg.ovsDatapathType,
    gatewayName: cfg.hostGateway,
    tunnelType: cfg.tunnelType as TunnelType,
    tunnelPort: cfg.tunnelPort,
    tunnelCsum: cfg.tunnelCsum,
    ...(cfg.defaultMTU > 0 ? { linkMtu: cfg.defaultMTU } : {}),
    disableTxChecksumOffload: cfg.disableTXChecksumOffload || cfg.ovsDatapathType === 'netdev',
  }),
  // Encap (and hybrid) pays the tunnel's overhead; over an IPv6 underlay 20 bytes more (its outer header).
  podMtu: (r, mtu) => podMtu(mtu, r.tunnelType, r.trafficMode === 'encap' || r.trafficMode === 'hybrid', underlay6(r.nodeIP)),
};

/**
 * `nodeIP` and `nodeIPv6` as given; an IPv6 `nodeIP` (an IPv6 underlay) in RFC 5952 form (as the
 * kernel prints it), and the node's IPv6 address too: `nodeIPv6` is it when absent or the same
 * address spelled otherwise (another address is kept, and refused by the agent context).
 */
function nodeAddressesOf(o: Pick<NodeOptions, 'nodeIP' | 'nodeIPv6'>): { nodeIP: string; nodeIPv6?: string } {
  if (!underlay6(o.nodeIP)) return { nodeIP: o.nodeIP, ...(o.nodeIPv6 !== undefined ? { nodeIPv6: o.nodeIPv6 } : {}) };
  const nodeIP = canonicalIp(o.nodeIP) ?? o.nodeIP;
  return { nodeIP, nodeIPv6: o.nodeIPv6 === undefined || canonicalIp(o.nodeIPv6) === nodeIP ? nodeIP : o.nodeIPv6 };
}

/** Whether a node IP is IPv6: the node's tunnels run over an IPv6 underlay (an IPv6-only node without an IPv4 address). */
export const underlay6 = (nodeIP: string): boolean => nodeIP.includes(':');
