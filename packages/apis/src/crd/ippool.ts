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

/** Phase of an allocated address. */
export type IPAddressPhase = 'Allocated' | 'Reserved';

/** An allocated address with its owner. */
export interface IPAddressState {
  ipAddress: string;
  phase: IPAddressPhase;
  owner: {
    pod?: { name: string; namespace: string; containerID: string; ifName?: string };
    statefulSet?: { name: string; namespace: string; index: number };
  };
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
