// Structural types of crd.antrea.io IPPool as this allocator reads and writes it.
//
// @switchyard/apis has IPPool too, but its IPAddressPhase lacks 'Preallocated' (Antrea's phase of a
// StatefulSet address before its pod exists), so ipam keeps this minimal structural copy; a pool
// typed with @switchyard/apis' IPPool is accepted wherever IPPoolResource is.

/** Phase of an address in `status.ipAddresses`. */
export type IPPoolPhase = 'Allocated' | 'Preallocated' | 'Reserved';

/** Pod owner of an address. */
export interface IPPoolPodOwner {
  name: string;
  namespace: string;
  containerID: string;
  ifName?: string;
}

/** StatefulSet owner of an address: ordinal `index` keeps it across pod restarts. */
export interface IPPoolStatefulSetOwner {
  name: string;
  namespace: string;
  index: number;
}

/** Owner of an address: a pod, a StatefulSet ordinal, or both. */
export interface IPPoolOwner {
  pod?: IPPoolPodOwner;
  statefulSet?: IPPoolStatefulSetOwner;
}

/** One entry of `status.ipAddresses`. */
export interface IPPoolAddress {
  ipAddress: string;
  phase: IPPoolPhase;
  owner: IPPoolOwner;
}

/** A range of the pool: `cidr`, or `start` and `end`. */
export interface IPPoolRange {
  cidr?: string;
  start?: string;
  end?: string;
}

/** crd.antrea.io/v1beta1 IPPool, the fields the allocator uses. */
export interface IPPoolResource {
  apiVersion?: string;
  kind?: 'IPPool';
  metadata: { name?: string; resourceVersion?: string };
  spec: {
    ipRanges: IPPoolRange[];
    subnetInfo: { gateway: string; prefixLength: number; vlan?: number };
  };
  status?: {
    ipAddresses?: IPPoolAddress[];
    usage?: { total: number; used: number };
  };
}
