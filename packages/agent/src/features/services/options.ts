/** The Services feature's options (AntreaProxy). */
import type { FeatureOptionsFragment } from '../node/options';

export interface ServicesOptions {
  /**
   * AntreaProxy: Service load balancing in OVS from the Services and EndpointSlices the agent
   * watches. Needs `kube`; default true when it is given (antrea-agent.conf `antreaProxy.enable`).
   */
  enableProxy?: boolean;
}

export const servicesOptions: FeatureOptionsFragment<ServicesOptions> = {
  resolve: (o) => ({ enableProxy: o.kube !== undefined && (o.enableProxy ?? true) }),
  // Antrea >= 2.0 turns AntreaProxy off with antreaProxy.enable; older configs with the gate.
  fromConfig: (cfg) => ({ enableProxy: cfg.featureGates.AntreaProxy !== false && cfg.antreaProxy.enable }),
};
