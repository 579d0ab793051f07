/** The ServiceExternalIP feature's options: on/off, and the member Lease that says this agent is alive. */
import { AgentError } from '../../errors';
import type { FeatureOptionsFragment } from '../node/options';

export interface ExternalIPOptions {
  /**
   * ServiceExternalIP: one node among those an ExternalIPPool's `nodeSelector` selects answers ARP
   * for each LoadBalancer ingress IP allocated from the pool, and the IP moves when that node goes
   * NotReady or its agent stops. Needs `kube`; default false (antrea-agent.conf feature gate
   * `ServiceExternalIP`, as in Antrea before 2.3).
   */
  serviceExternalIP?: boolean;
  /** Seconds between renewals of this agent's member Lease (`switchyard-agent-<nodeName>`). Default 2. */
  memberLeaseRenewSeconds?: number;
  /**
   * The Lease's `leaseDurationSeconds` (a whole number): an agent whose Lease was not renewed for this
   * long is gone, and its IPs move. Must exceed the renew period. Default 6.
   */
  memberLeaseDurationSeconds?: number;
  /**
   * Self-fencing margin: an agent whose Lease was not renewed for `memberLeaseDurationSeconds` less
   * this many seconds (its own clock) releases every external IP, so it is gone before the others
   * may take it, with clocks apart by up to this much. Must be positive and leave more than one renew
   * period (`memberLeaseDurationSeconds - memberLeaseRenewSeconds` above it). Default 1, or half that
   * room when it is under 2 s.
   */
  memberLeaseFenceMarginSeconds?: number;
  /** Namespace of the member Leases. Default kube-system. */
  memberLeaseNamespace?: string;
}

export const externalIPOptions: FeatureOptionsFragment<ExternalIPOptions> = {
  resolve: (o) => ({
    serviceExternalIP: o.kube !== undefined && (o.serviceExternalIP ?? false),
    memberLeaseRenewSeconds: o.memberLeaseRenewSeconds ?? 2,
    memberLeaseDurationSeconds: o.memberLeaseDurationSeconds ?? 6,
    memberLeaseFenceMarginSeconds: o.memberLeaseFenceMarginSeconds ?? Math.min(1, ((o.memberLeaseDurationSeconds ?? 6) - (o.memberLeaseRenewSeconds ?? 2)) / 2),
    memberLeaseNamespace: o.memberLeaseNamespace ?? 'kube-system',
  }),
  check: (r) => {
    const renew = r.memberLeaseRenewSeconds;
    const duration = r.memberLeaseDurationSeconds;
    if (!(Number.isFinite(renew) && renew > 0)) throw new AgentError('INVALID_CONFIG', `memberLeaseRenewSeconds must be a positive number of seconds, not ${String(renew)}`, renew, 'memberLeaseRenewSeconds');
    if (!(Number.isInteger(duration) && duration >= 1)) throw new AgentError('INVALID_CONFIG', `memberLeaseDurationSeconds must be a whole number of seconds of at least 1 (a Lease's leaseDurationSeconds), not ${String(duration)}`, duration, 'memberLeaseDurationSeconds');
    if (renew >= duration) throw new AgentError('INVALID_CONFIG', `memberLeaseRenewSeconds (${renew}) must be shorter than memberLeaseDurationSeconds (${duration}), or the Lease expires between renewals`, renew, 'memberLeaseRenewSeconds');
    const margin = r.memberLeaseFenceMarginSeconds;
    if (!(Number.isFinite(margin) && margin > 0 && margin < duration - renew)) throw new AgentError('INVALID_CONFIG', `memberLeaseFenceMarginSeconds must be a positive number of seconds below memberLeaseDurationSeconds - memberLeaseRenewSeconds (${duration} - ${renew}), or a healthy agent would let go of its IPs between renewals; not ${String(margin)}`, margin, 'memberLeaseFenceMarginSeconds');
    if (!/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(r.memberLeaseNamespace)) throw new AgentError('INVALID_CONFIG', `memberLeaseNamespace must be a Namespace name, not ${JSON.stringify(r.memberLeaseNamespace)}`, r.memberLeaseNamespace, 'memberLeaseNamespace');
  },
  fromConfig: (cfg) => ({ serviceExternalIP: cfg.featureGates.ServiceExternalIP === true }),
};
