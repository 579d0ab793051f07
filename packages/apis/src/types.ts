/**
 * `@switchyard/apis/types`: the plain types of every kind (Kubernetes, crd.antrea.io,
 * policy.networking.k8s.io, multicluster), the controlplane model and the configuration shapes,
 * plus the dependency-free IP text/bytes helpers and Multi-cluster naming conventions. Nothing here
 * loads ajv, protobufjs, TypeBox or the embedded CRDs, so pure packages (and browser bundles)
 * import their types from this entry.
 * @packageDocumentation
 */
export type * from './meta';
export type * from './core';
export type * from './networking';
export type * from './rbac';
export type * from './crd/index';
export type * as controlplane from './controlplane';
export type * from './kinds';
export { ipToBytes, bytesToIp, canonicalIp, formatIpv6 } from './ip';
export { MULTICLUSTER_SERVICE_PREFIX, serviceReferenceKey } from './service-reference';
export { GATEWAY_WIREGUARD_KEY_ANNOTATION, normalizedLabel } from './multicluster';
export { SERVICE_EXTERNAL_IP_POOL_ANNOTATION, SERVICE_ALLOW_SHARED_IP_ANNOTATION } from './service-external-ip';
export { TRACEFLOW_TAGS, TRACEFLOW_DEFAULT_TIMEOUT_S, TRACEFLOW_MAX_TIMEOUT_S, traceflowFamily, podAddresses, addressesOfFamily, type TraceflowFamilyInput, type PodAddressesInput } from './traceflow';
export type { CustomResourceDefinition, CustomResourceDefinitionVersion, CustomResourceColumnDefinition, JSONSchemaProps } from './crd-loader';
export type { SchemaValidationError, ValidationResult } from './validation';
export type { FrameDecoderOptions } from './framing';
export type {
  AgentConfig,
  ControllerConfig,
  MultiClusterConfig,
  PolicyBypassRule,
  ParsedConfig,
  ConfigWarning,
  TrafficEncapMode,
  TunnelType,
  TrafficEncryptionMode,
} from './config-types';
