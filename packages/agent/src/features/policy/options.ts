/** The NetworkPolicy feature's options: the controller's stream, np.log and the packet-in rate. */
import { join } from 'node:path';
import type { FeatureOptionsFragment } from '../node/options';

export interface PolicyOptions {
  /** np.log of rules with enableLogging. Default `<dataDir>/networkpolicy/np.log`. */
  policyLogFile?: string;
  /**
   * The controller's controlplane stream. Without it, pods still get connectivity and the policies
   * cached on disk (if any) stay enforced.
   */
  controlplane?: {
    /** `https://host:port` of the controller. */
    url: string;
    caPem?: string;
    /** The name the controller's certificate is checked against when `url` holds an address it does not name (its Service's ClusterIP): `switchyard.kube-system.svc`. */
    serverName?: string;
    /** Bearer token, or a file to read it from at each connection (projected ServiceAccount token). */
    token?: string;
    tokenFile?: string;
    backoff?: { initialMs?: number; maxMs?: number };
  };
  /**
   * Packet-ins per second allowed per category (NetworkPolicy logging/Reject, DNS), through
   * OpenFlow meters; 0 = no meters. Default 500 (Antrea's packetInRate).
   */
  packetInRate?: number;
}

export type PolicyUnset = 'controlplane';

export const policyOptions: FeatureOptionsFragment<PolicyOptions, PolicyUnset> = {
  resolve: (o) => ({
    policyLogFile: o.policyLogFile ?? join(o.dataDir, 'networkpolicy', 'np.log'),
    packetInRate: o.packetInRate ?? 500,
    ...(o.controlplane !== undefined ? { controlplane: o.controlplane } : {}),
  }),
  fromConfig: (cfg) => ({ packetInRate: cfg.packetInRate }),
};
