/** crd.antrea.io IPPool (v1beta1 shape). */
import type { Condition, ObjectMeta } from '../meta';

/** A range of an IPPool: either `cidr` or `start`+`end`. */
export interface IPRange {
  cidr?: string;
  start?: string;
  end?: string;
}

/** Subnet attributes of the pool's addresses. */
export interface SubnetInfo {
  gateway: string;
  prefixLength: number;
  vlan?: number;
}

/**
 * Phase of an address in `status.ipAddresses`: `Allocated` to a running pod, `Preallocated`
 * for a StatefulSet ordinal whose pod does not exist yet, `Reserved` for a StatefulSet ordinal
 * between pods (Antrea's three phases).
 */
export type IPAddressPhase = 'Allocated' | 'Preallocated' | 'Reserved';

/** Pod owner of a pool address. */
export interface IPAddressPodOwner {
  name: string;
  namespace: string;
  containerID: string;
  ifName?: string;
}

/** StatefulSet owner of a pool address: ordinal `index` keeps it across pod restarts. */
export interface IPAddressStatefulSetOwner {
  name: string;
  namespace: string;
  index: number;
}

/** Owner of a pool address: a pod, a StatefulSet ordinal, or both. */
export interface IPAddressOwner {
  pod?: IPAddressPodOwner;
  statefulSet?: IPAddressStatefulSetOwner;
}

/** An allocated address with its owner. */
export interface IPAddressState {
  ipAddress: string;
  phase: IPAddressPhase;
  owner: IPAddressOwner;
}

/** crd.antrea.io IPPool. */
export interface IPPool {
  apiVersion?: string;
  kind?: 'IPPool';
  metadata: ObjectMeta;
  spec: {
    ipRanges: IPRange[];
    subnetInfo: SubnetInfo;
  };
  status?: {
    ipAddresses?: IPAddressState[];
    usage?: { total: number; used: number };
    conditions?: Condition[];
  };
}
