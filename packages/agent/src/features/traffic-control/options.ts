/** The TrafficControl feature's options. */
import type { FeatureOptionsFragment } from '../node/options';

export interface TrafficControlOptions {
  /**
   * TrafficControl: mirror or redirect selected pods' traffic to a port of the bridge, from the
   * TrafficControl objects the agent watches. Needs `kube`; default false (antrea-agent.conf
   * feature gate `TrafficControl`, alpha in Antrea).
   */
  trafficControl?: boolean;
}

export const trafficControlOptions: FeatureOptionsFragment<TrafficControlOptions> = {
  resolve: (o) => ({ trafficControl: o.kube !== undefined && (o.trafficControl ?? false) }),
  fromConfig: (cfg) => ({ trafficControl: cfg.featureGates.TrafficControl === true }),
};
