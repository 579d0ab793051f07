/**
 * @switchyard/apis: shared types, CRD schemas and the controlplane protobuf API of Switchyard.
 *
 * Plain TypeScript types for the Kubernetes and Antrea-compatible kinds, the internal
 * controlplane model, and (as they land) CRD manifests with schema validation, the controlplane
 * protobuf codec with stream framing, and agent/controller configuration parsing.
 * @packageDocumentation
 */
// Everything of the dependency-free `types` entry, then what needs ajv, protobufjs or TypeBox.
export * from './types';
export * from './errors';
export { watchEventToProto, watchEventFromProto, networkPolicyToProto, networkPolicyFromProto } from './controlplane-codec';
export {
  decodeWatchEvent,
  decodeNetworkPolicy,
  decodeAddressGroup,
  decodeAppliedToGroup,
  decodeNetworkPolicyStatus,
  decodeAgentInfo,
} from './controlplane-reader';
export {
  encodeWatchEvent,
  encodeNetworkPolicy,
  encodeAddressGroup,
  encodeAppliedToGroup,
  encodeNetworkPolicyStatus,
  encodeAgentInfo,
  WatchEventEncoder,
} from './controlplane-writer';
export { encodeFrame, encodeWatchEventFrame, FrameDecoder, decodeWatchEventStream, DEFAULT_MAX_FRAME_BYTES } from './framing';
/** Generated protobuf classes (`switchyard.controlplane.v1.*`), e.g. for gRPC serializers. */
export { switchyard as proto } from './gen/controlplane';
export { loadCrds, findCrd, storageVersion, isServed, parseApiVersion } from './crd-loader';
export { validateObject, hasCrdSchema } from './validation';
export { toInternalVersion } from './convert';
export { isKnownObject, asKnownObject } from './manifest';
export {
  parseAgentConfig,
  parseControllerConfig,
  parseMultiClusterConfig,
  AGENT_FEATURE_GATES,
  CONTROLLER_FEATURE_GATES,
  AGENT_CONFIG_SCHEMA,
  CONTROLLER_CONFIG_SCHEMA,
  MULTICLUSTER_CONFIG_SCHEMA,
} from './config';
export {
  installAgentConfig,
  installControllerConfig,
  checkInstallOptions,
  InstallOptionError,
  DEFAULT_INSTALL_OPTIONS,
  INSTALL_TRAFFIC_ENCAP_MODES,
  INSTALL_ENCRYPTION_MODES,
  INSTALL_TUNNEL_TYPES,
  type InstallOptions,
} from './install-config';
