/** The pods feature's options: the CNI socket and the host-local address store. */
import type { FeatureOptionsFragment } from '../node/options';

export interface PodsOptions {
  /** Directory name of the IPAM store (host-local's network name). Default switchyard. */
  ipamNetwork?: string;
  /** CNI gRPC socket. Default /var/run/antrea/cni.sock. */
  cniSocket?: string;
}

export const podsOptions: FeatureOptionsFragment<PodsOptions> = {
  resolve: (o) => ({ ipamNetwork: o.ipamNetwork ?? 'switchyard', cniSocket: o.cniSocket ?? '/var/run/antrea/cni.sock' }),
  fromConfig: (cfg) => ({ cniSocket: cfg.cniSocket }),
};
