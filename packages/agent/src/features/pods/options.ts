/** The pods feature's options: the CNI socket, the host-local address store and the netns helper. */
import { locateNetnsHelper } from '../../host-network/netns-helper';
import type { FeatureOptionsFragment } from '../node/options';

export interface PodsOptions {
  /** Directory name of the IPAM store (host-local's network name). Default switchyard. */
  ipamNetwork?: string;
  /** CNI gRPC socket. Default /var/run/antrea/cni.sock. */
  cniSocket?: string;
  /**
   * The switchyard-netns helper (native/switchyard-netns.c) that sets pods' interfaces up inside
   * their namespaces. Default: `switchyard-netns` beside the agent's program (dist/ of the build)
   * when it is there; `false`: never (one `nsenter` child per pod setup instead).
   */
  netnsHelper?: string | false;
}

export const podsOptions: FeatureOptionsFragment<PodsOptions> = {
  resolve: (o) => ({
    ipamNetwork: o.ipamNetwork ?? 'switchyard',
    cniSocket: o.cniSocket ?? '/var/run/antrea/cni.sock',
    netnsHelper: o.netnsHelper === false ? false : (o.netnsHelper ?? locateNetnsHelper() ?? false),
  }),
  fromConfig: (cfg) => ({ cniSocket: cfg.cniSocket }),
};
