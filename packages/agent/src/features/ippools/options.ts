/** The IPPools feature's options (AntreaIPAM). */
import type { FeatureOptionsFragment } from '../node/options';

export interface IPPoolsOptions {
  /**
   * AntreaIPAM: pods (or Namespaces) annotated `ipam.antrea.io/ippools` take their address from
   * that IPPool. Needs `kube`; default false (antrea-agent.conf feature gate `AntreaIPAM`).
   */
  enableIPPools?: boolean;
}

export const ipPoolsOptions: FeatureOptionsFragment<IPPoolsOptions> = {
  resolve: (o) => ({ enableIPPools: o.kube !== undefined && (o.enableIPPools ?? false) }),
  fromConfig: (cfg) => ({ enableIPPools: cfg.featureGates.AntreaIPAM === true }),
};
