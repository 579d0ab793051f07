/**
 * @switchyard/ipam: CIDR math, node subnets, host-local compatible crash-safe allocator and IPPools.
 * The CIDR math is also available alone, without any I/O, as `@switchyard/ipam/cidr`; the
 * compliance kit for IPPoolStore implementations is `@switchyard/ipam/testing`.
 * @packageDocumentation
 */
export * from './cidr/index';
export { IpamError, type IpamErrorCode } from './errors';
// The logger every Switchyard package shares, re-exported under ipam's names.
export { silentLogger, type Logger } from '@switchyard/runtime';
export { NodeSubnetAllocator, type NodeLike, type NodeSubnetConfig, type NodeSubnets, type RebuildConflict } from './node-subnets';
export {
  HostLocalStore,
  HOST_LOCAL_DATA_DIR,
  type Attachment,
  type HostLocalAllocation,
  type HostLocalBatch,
  type HostLocalEntry,
  type HostLocalRange,
  type HostLocalStoreOptions,
} from './host-local/store';
export { createDirLock, FlockCommandLock, PerlHelperLock, type DirLock, type LockMechanism } from './host-local/lock';
export type { IPPoolAddress, IPPoolOwner, IPPoolPhase, IPPoolPodOwner, IPPoolRange, IPPoolResource, IPPoolStatefulSetOwner } from './ippool/types';
export { InMemoryIPPoolStore, type IPPoolStore } from './ippool/store';
export { KubeIPPoolStore, ipPoolPath, type KubeRequester } from './ippool/kube-store';
export { IPPoolAllocator, poolAddresses, type IPPoolAllocatorOptions, type PoolAllocation, type RetryPolicy } from './ippool/allocator';
