/**
 * The Multi-cluster feature's options (antrea-agent.conf `featureGates.Multicluster` and
 * `multicluster.*`) and what its gateways' WireGuard costs the pods' MTU.
 */
import type { AgentConfig } from '@switchyard/apis';
import type { FeatureOptionsFragment } from '../node/options';
import { WIREGUARD_OVERHEAD } from '../wireguard/wireguard';
import { MC_WIREGUARD_DEVICE } from './host-routes';

/** The agent's Multi-cluster settings (antrea-agent.conf `multicluster.*`). */
export interface MulticlusterOptions {
  /** Namespace of the Multi-cluster controller (its Gateway and ClusterInfoImports). */
  namespace: string;
  enablePodToPodConnectivity: boolean;
  /**
   * `multicluster.enableStretchedNetworkPolicy`: this node's pods carry their ClusterSet label
   * identity in `tun_id` to other clusters (the LabelIdentities, this node's Pods and the
   * Namespaces are watched for it).
   */
  enableStretchedNetworkPolicy?: boolean;
  /**
   * `multicluster.trafficEncryptionMode: wireGuard`: traffic between this cluster's gateway and the
   * other clusters' goes through a WireGuard device of the gateway (`multicluster.wireGuard.port`).
   */
  wireGuard?: { port: number };
}

export interface MulticlusterAgentOptions {
  /**
   * Multi-cluster (antrea-agent.conf `featureGates.Multicluster` and `multicluster.enableGateway`):
   * routes to other clusters through the elected Gateway. Needs `kube` and AntreaProxy.
   */
  multicluster?: MulticlusterOptions;
}

export type MulticlusterUnset = 'multicluster';

/**
 * antrea-agent.conf `featureGates.Multicluster` and `multicluster.*`: the gateway dataplane is on
 * when both the gate and `enableGateway` are; an empty `namespace` means the agent's own
 * (`$POD_NAMESPACE`, else kube-system, where Antrea installs it); `trafficEncryptionMode:
 * wireGuard` with `wireGuard.port` (default 51821) encrypts between the clusters' gateways.
 */
export function multiclusterFromConfig(cfg: AgentConfig, env: NodeJS.ProcessEnv = process.env): MulticlusterAgentOptions {
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

export const multiclusterOptions: FeatureOptionsFragment<MulticlusterAgentOptions, MulticlusterUnset> = {
  resolve: (o) => (o.multicluster !== undefined ? { multicluster: o.multicluster } : {}),
  fromConfig: multiclusterFromConfig,
  // WireGuard between Multi-cluster gateways adds its overhead to what pods may send.
  podMtu: (r, mtu) => mtu - (r.multicluster?.wireGuard ? WIREGUARD_OVERHEAD : 0),
  // Traffic to other clusters through the gateway's device keeps its pod address (their gateway SNATs it).
  unmasqueraded: (r) => (r.multicluster ? [MC_WIREGUARD_DEVICE] : []),
};
