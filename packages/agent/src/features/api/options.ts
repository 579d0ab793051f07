/** The API feature's options: the local API socket and the agent API on TCP. */
import type { FeatureOptionsFragment } from '../node/options';

export interface ApiOptions {
  /** Local API socket (podinterfaces, ovsflows, agentinfo); none when absent. */
  apiSocket?: string;
  /** TCP port of the agent API (Antrea's apiPort, 10350); none when absent. 0 = any free port. */
  apiPort?: number;
  /**
   * Address the TCP API binds: default 0.0.0.0 with `kube` (every node address, for the API
   * server's node proxy), 127.0.0.1 without. The API is HTTPS; with `kube`, callers are
   * authenticated and authorized through the Kubernetes API (a non-loopback address needs `kube`).
   */
  apiBindAddress?: string;
}

export type ApiUnset = 'apiSocket' | 'apiPort';

export const apiOptions: FeatureOptionsFragment<ApiOptions, ApiUnset> = {
  resolve: (o) => ({
    // Authenticated callers only (with `kube`): reachable by the API server's node proxy on
    // every node address, as Antrea's agent API; without `kube`, loopback only.
    apiBindAddress: o.apiBindAddress ?? (o.kube !== undefined ? '0.0.0.0' : '127.0.0.1'),
    ...(o.apiSocket !== undefined ? { apiSocket: o.apiSocket } : {}),
    ...(o.apiPort !== undefined ? { apiPort: o.apiPort } : {}),
  }),
  fromConfig: (cfg) => (cfg.apiPort > 0 ? { apiPort: cfg.apiPort } : {}),
};
