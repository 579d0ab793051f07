/** Custom resource kinds (crd.antrea.io, policy.networking.k8s.io, multicluster groups). */
export type * from './policy';
export type * from './entity';
export type * from './ippool';
export type * from './external-ip-pool';
export type * from './traceflow';
export type * from './traffic-control';
export type * from './egress';
export type * from './info';
export type * from './adminpolicy';
export type * from './multicluster';
