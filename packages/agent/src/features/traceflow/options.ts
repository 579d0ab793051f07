/** The Traceflow feature's options. */
import type { FeatureOptionsFragment } from '../node/options';

export interface TraceflowOptions {
  /**
   * Traceflow: watch Traceflows, install their trace flows, inject the probe on the source pod's
   * node and report what this node saw. Needs `kube`; default true (antrea-agent.conf feature gate
   * `Traceflow`, on by default in Antrea).
   */
  traceflow?: boolean;
}

export const traceflowOptions: FeatureOptionsFragment<TraceflowOptions> = {
  resolve: (o) => ({ traceflow: o.kube !== undefined && (o.traceflow ?? true) }),
  fromConfig: (cfg) => ({ traceflow: cfg.featureGates.Traceflow !== false }),
};
