// crd.antrea.io IPPool as the allocator reads and writes it: the @switchyard/apis types, under
// the names ipam has always exported (kept as aliases so existing users compile unchanged).
import type { IPAddressOwner, IPAddressPhase, IPAddressPodOwner, IPAddressState, IPAddressStatefulSetOwner, IPPool, IPRange } from '@switchyard/apis';

/** Phase of an address in `status.ipAddresses` (apis `IPAddressPhase`). */
export type IPPoolPhase = IPAddressPhase;

/** Pod owner of an address (apis `IPAddressPodOwner`). */
export type IPPoolPodOwner = IPAddressPodOwner;

/** StatefulSet owner of an address: ordinal `index` keeps it across pod restarts (apis `IPAddressStatefulSetOwner`). */
export type IPPoolStatefulSetOwner = IPAddressStatefulSetOwner;

/** Owner of an address: a pod, a StatefulSet ordinal, or both (apis `IPAddressOwner`). */
export type IPPoolOwner = IPAddressOwner;

/** One entry of `status.ipAddresses` (apis `IPAddressState`). */
export type IPPoolAddress = IPAddressState;

/** A range of the pool: `cidr`, or `start` and `end` (apis `IPRange`). */
export type IPPoolRange = IPRange;

/** crd.antrea.io/v1beta1 IPPool (apis `IPPool`). */
export type IPPoolResource = IPPool;
