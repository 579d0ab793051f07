/**
 * @switchyard/controller: the Switchyard controller. Watches the Kubernetes API, compiles
 * policies with @switchyard/policy-compiler and serves each agent its node's share as
 * length-delimited protobuf watch streams over HTTPS; ExternalNode -> ExternalEntity; policy
 * status; node IPAM; the `switchyard-controller` binary.
 * @packageDocumentation
 */
export { Controller, CONTROLLER_VERSION } from './controller';
export type { ControllerOptions } from './options';
export { CONTROLLER_PARTS } from './controller-parts';
export type { ControllerContext } from './context';
export type { ClusterInformers, Watch, WatchingPart } from './informers';
// The parts' types, for `controller.part<T>(name)`.
export type { Admission } from './parts/admission';
export type { ControllerApi } from './parts/controller-api';
export type { ControllerInfoHeartbeat } from './parts/controller-info';
export type { ExternalNodes } from './parts/external-nodes';
export type { IPPools } from './parts/ip-pools';
export type { LabelIdentities } from './parts/label-identities';
export type { NodeIpam } from './parts/node-ipam';
export type { PolicyCore } from './parts/policy-core';
export type { Registration } from './parts/registration';
export type { ServingCertificate } from './parts/serving-certificate';
export type { ServiceExternalIP } from './parts/service-external-ip';
export type { EgressController } from './parts/egress';
export { validateEgress, egressIPSlots, type EgressIPSlot } from './egress';
export type { EgressGroups } from './parts/egress-groups';
export { EgressMembership, egressCompetes, egressMemberPod, egressSelectorFacts, egressSelectsPod, overlapNote, type EgressGroupChange, type EgressMemberPod, type EgressSelectorFacts } from './egress-groups';
export type { TraceflowController } from './parts/traceflow';
export { ControlplaneHub, CONTROLPLANE_RESOURCES, WATCHABLE_RESOURCES, resourceOf } from './hub';
export type { ControlplaneHubOptions, ControlplaneResource, NodeWatcher, WatchStart, HubStats } from './hub';
export { ControlplaneServer, WatchConnection, CONTROLPLANE_GROUP, CONTROLPLANE_VERSION, WATCH_CONTENT_TYPE, WATCH_MODE_HEADER } from './server';
export type { ControlplaneServerOptions, ServerStats } from './server';
export { KubeDelegatedAuth, nodeOf, NODE_NAME_EXTRA } from '@switchyard/kube';
export type { AuthRequest, RequestAuth, UserInfo, AccessAttributes, DelegatedAuthOptions } from '@switchyard/kube';
export { Informer } from '@switchyard/kube';
export type { InformerOptions, InformerEvent, InformerStats, KubeObject, ResourceSpec } from '@switchyard/kube';
export { KubeConfigClient, collectionPath } from '@switchyard/kube';
export type { KubeClient, WatchStream } from '@switchyard/kube';
export { ExternalNodeController, externalEntitiesFor, externalEntityName } from './externalnode';
export { NodeIpamController } from './nodeipam';
export { KubeIPPoolStore, ipPoolPath } from '@switchyard/ipam';
export { IPPoolController, IPPOOL_ANNOTATION, IPPOOL_FINALIZER, poolsOf } from './ippool';
export type { IPPoolControllerOptions } from './ippool';
export { PolicyStatusAggregator } from './status';
export type { PolicyRealization } from './status';
export { createPki, ensureClusterPki, ensureCa, defaultSans } from './pki';
export { IPsecCertificateSigner, IPSEC_SIGNER_NAME, IPSEC_CA_CONFIGMAP, ipsecRequestProblem } from './ipsec-signer';
export type { IPsecSignerOptions } from './ipsec-signer';
export type { ControllerPki, PkiLocation } from './pki';
export { MetricsRegistry } from './metrics';
export { optionsFromConfig } from './options';
export type { ControllerFlags } from './options';
export { POLICY_INPUTS, EXTERNAL_NODES, IPPOOLS, STATEFULSETS, TRACEFLOWS, EXTERNAL_IP_POOLS } from './resources';
export { ExternalIPAllocator } from './external-ip-allocator';
export type { ExternalIPHolding, ExternalIPRefusal, ExternalIPResult, ExternalIPPoolUsage } from './external-ip-allocator';
export { poolRanges, validateExternalIPPool } from './external-ip-pool';
export type { PoolRange, PoolRanges } from './external-ip-pool';
export { externalIPRequest } from './service-external-ip';
export type { ExternalIPRequest } from './service-external-ip';
export { EventRecorder } from './events';
export type { EventRecorderOptions, EventNote } from './events';
export { FINAL_ACTIONS as TRACEFLOW_FINAL_ACTIONS, isComplete as traceflowComplete } from './traceflow';
// The logger and clock every Switchyard package shares, re-exported under the controller's names.
export { systemClock } from '@switchyard/runtime';
export type { Clock, Logger, TimerHandle } from '@switchyard/runtime';
/** @deprecated A test clock: import it from `@switchyard/runtime/testing`. */
export { ManualClock } from '@switchyard/runtime/testing';
export { ControllerError, KubeRequestError } from './errors';
export type { ControllerErrorCode } from './errors';
