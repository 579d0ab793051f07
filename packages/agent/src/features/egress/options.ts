/** The Egress feature's options: on/off, and the destinations no Egress applies to. */
import { parseCidr } from '@switchyard/ipam/cidr';
import { AgentError } from '../../errors';
import type { FeatureOptionsFragment } from '../node/options';

export interface EgressOptions {
  /**
   * Egress: traffic of the pods an Egress selects to outside the cluster leaves through the node
   * owning the Egress's IP (the ExternalIPPool ownership of ServiceExternalIP), SNATed to it. Needs
   * `kube` and AntreaProxy; default false (antrea-agent.conf feature gate `Egress`, on in Antrea).
   */
  egress?: boolean;
  /** Destinations never SNATed to an egress IP (antrea-agent.conf `egress.exceptCIDRs`); the nodes' own addresses always are. */
  egressExceptCIDRs?: string[];
  /**
   * EgressSeparateSubnet: on the owner, an Egress IP whose ExternalIPPool has `subnetInfo` leaves
   * through that subnet (its gateway, and its VLAN on a sub-interface of the transport device).
   * Default false (antrea-agent.conf feature gate `EgressSeparateSubnet`, alpha in Antrea).
   */
  egressSeparateSubnet?: boolean;
  /**
   * EgressTrafficShaping: an Egress's `spec.bandwidth` limits its members' traffic through an OVS
   * meter on the egress node (antrea-agent.conf feature gate `EgressTrafficShaping`); default false,
   * as in Antrea, where the gate is alpha.
   */
  egressTrafficShaping?: boolean;
}

export const egressOptions: FeatureOptionsFragment<EgressOptions> = {
  resolve: (o) => ({
    egress: o.kube !== undefined && (o.egress ?? false), egressExceptCIDRs: o.egressExceptCIDRs ?? [],
    egressSeparateSubnet: o.egressSeparateSubnet ?? false, egressTrafficShaping: o.egressTrafficShaping ?? false,
  }),
  check: (r) => {
    r.egressExceptCIDRs.forEach((c, i) => {
      let ok = false;
      try {
        ok = parseCidr(c).family === 4;
      } catch {
        ok = false;
      }
      if (!ok) throw new AgentError('INVALID_CONFIG', `egress.exceptCIDRs[${i}]: ${JSON.stringify(c)} is not an IPv4 CIDR`, c, `egress.exceptCIDRs[${i}]`);
    });
  },
  fromConfig: (cfg) => ({
    egress: cfg.featureGates.Egress === true, egressExceptCIDRs: [...cfg.egress.exceptCIDRs],
    egressSeparateSubnet: cfg.featureGates.EgressSeparateSubnet === true, egressTrafficShaping: cfg.featureGates.EgressTrafficShaping === true,
  }),
};
