/** The Services feature's options (AntreaProxy). */
import type { FeatureOptionsFragment } from '../node/options';

export interface ServicesOptions {
  /**
   * AntreaProxy: Service load balancing in OVS from the Services and EndpointSlices the agent
   * watches. Needs `kube`; default true when it is given (antrea-agent.conf `antreaProxy.enable`).
   */
  enableProxy?: boolean;
  /**
   * CIDRs of the node addresses that serve node ports (`antreaProxy.nodePortAddresses`); empty
   * (the default): every address of the node but loopback.
   */
  nodePortAddresses?: string[];
  /** Serve LoadBalancer ingress IPs in OVS (`antreaProxy.proxyLoadBalancerIPs`, default true). */
  proxyLoadBalancerIPs?: boolean;
  /** `namespace/name` of Services this proxy leaves alone (`antreaProxy.skipServices`). */
  skipServices?: string[];
  /**
   * The node's own processes reach ClusterIPs and node ports through OVS too
   * (`antreaProxy.proxyAll`, default false): kube-proxy can be removed.
   */
  proxyAll?: boolean;
}

export const servicesOptions: FeatureOptionsFragment<ServicesOptions> = {
  resolve: (o) => ({
    enableProxy: o.kube !== undefined && (o.enableProxy ?? true),
    nodePortAddresses: o.nodePortAddresses ?? [],
    proxyLoadBalancerIPs: o.proxyLoadBalancerIPs ?? true,
    skipServices: o.skipServices ?? [],
    proxyAll: o.proxyAll ?? false,
  }),
  // Antrea >= 2.0 turns AntreaProxy off with antreaProxy.enable; older configs with the gate.
  fromConfig: (cfg) => ({
    enableProxy: cfg.featureGates.AntreaProxy !== false && cfg.antreaProxy.enable,
    nodePortAddresses: cfg.antreaProxy.nodePortAddresses,
    proxyLoadBalancerIPs: cfg.antreaProxy.proxyLoadBalancerIPs,
    skipServices: cfg.antreaProxy.skipServices,
    proxyAll: cfg.antreaProxy.proxyAll,
  }),
};
