/** Custom resource kinds (crd.antrea.io, policy.networking.k8s.io, multicluster groups). */
export type * from './policy.js';
export type * from './entity.js';
export type * from './ippool.js';
export type * from './traceflow.js';
export type * from './info.js';
export type * from './adminpolicy.js';
export type * from './multicluster.js';
