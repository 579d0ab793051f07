/**
 * @switchyard/apis: shared types, CRD schemas and the controlplane protobuf API of Switchyard.
 *
 * Plain TypeScript types for the Kubernetes and Antrea-compatible kinds, the internal
 * controlplane model, and (as they land) CRD manifests with schema validation, the controlplane
 * protobuf codec with stream framing, and agent/controller configuration parsing.
 * @packageDocumentation
 */
export type * from './meta.js';
export type * from './core.js';
export type * from './networking.js';
export type * from './crd/index.js';
export type * as controlplane from './controlplane.js';
export type * from './kinds.js';
