// From antrea-controller.conf (parsed by @switchyard/apis) and command-line flags to Controller options.
import type { ControllerConfig } from '@switchyard/apis';
import type { ControllerOptions } from './controller';

/** Flags of the binary that override or extend the config file. */
export interface ControllerFlags {
  kubeconfig?: string;
  port?: number;
  bindAddress?: string;
  namespace?: string;
  serviceName?: string;
  requestHeaderCaFile?: string;
}

/**
 * Controller options from a parsed config (pure). Flags win over the file; `nodeIPAM` only when
 * `enableNodeIPAM` is set; the ExternalNode feature gate switches the ExternalNode controller;
 * the Multicluster gate with `multicluster.enableStretchedNetworkPolicy` turns on stretched policies.
 */
export function optionsFromConfig(config: ControllerConfig, flags: ControllerFlags = {}): Omit<ControllerOptions, 'kube'> & { kubeconfig: string } {
  const out: Omit<ControllerOptions, 'kube'> & { kubeconfig: string } = {
    kubeconfig: flags.kubeconfig ?? config.clientConnection.kubeconfig,
    port: flags.port ?? config.apiPort,
    externalNode: config.featureGates.ExternalNode ?? false,
  };
  if (config.featureGates.AntreaIPAM) out.ipPools = true;
  if (config.featureGates.Multicluster && config.multicluster.enableStretchedNetworkPolicy) out.stretchedNetworkPolicy = true;
  if (config.featureGates.IPsecCertAuth) out.ipsecCSRSigner = { ...config.ipsecCSRSigner };
  if (flags.bindAddress) out.host = flags.bindAddress;
  if (flags.namespace) out.namespace = flags.namespace;
  if (flags.serviceName) out.serviceName = flags.serviceName;
  if (config.nodeIPAM.enableNodeIPAM) {
    out.nodeIPAM = { clusterCIDRs: config.nodeIPAM.clusterCIDRs, nodeMaskSizeIPv4: config.nodeIPAM.nodeCIDRMaskSizeIPv4, nodeMaskSizeIPv6: config.nodeIPAM.nodeCIDRMaskSizeIPv6 };
  }
  return out;
}
