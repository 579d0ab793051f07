/** crd.antrea.io ExternalIPPool (v1beta1): IPs for Egress and for Services of type LoadBalancer. */
import type { LabelSelector, ObjectMeta } from '../meta';
import type { IPRange, SubnetInfo } from './ippool';

/** crd.antrea.io ExternalIPPool spec. */
export interface ExternalIPPoolSpec {
  /** Each range is `cidr`, or `start` and `end` (inclusive). A CIDR's network address (and an IPv4 CIDR's broadcast address) is never handed out. */
  ipRanges: IPRange[];
  /** Subnet of the ranges when they are not the Nodes' own (Egress only; ServiceExternalIP ignores it). */
  subnetInfo?: SubnetInfo;
  /** The Nodes that may host the pool's IPs; empty selects every Node. */
  nodeSelector: LabelSelector;
}

/** crd.antrea.io ExternalIPPool. */
export interface ExternalIPPool {
  apiVersion?: string;
  kind?: 'ExternalIPPool';
  metadata: ObjectMeta;
  spec: ExternalIPPoolSpec;
  status?: {
    /** `total`: addresses the ranges hold; `used`: addresses allocated (a shared IP counts once). */
    usage?: { total: number; used: number };
  };
}
