/**
 * @switchyard/agent: Switchyard node agent and switchyard-cni plugin.
 * The agent composes @switchyard/ovsdb, @switchyard/openflow(-pipeline) and @switchyard/ipam into
 * pod networking on Open vSwitch; the plugin binary forwards CNI calls to it over gRPC.
 * @packageDocumentation
 */
export { Agent, agentOptionsFromConfig, POLICY_CACHE_FILE, type AgentOptions } from './agent';
export { PolicyView, memberKey, type PolicyViewData, type ApplyOutcome } from './policy/view';
export { ControlplaneClient, CONTROLPLANE_BASE, type ControlplaneClientOptions } from './policy/controlplane-client';
export { RejectResponder, buildRejectReply } from './policy/reject';
export { PolicyAuditLog, summarizeFrame, policyRef, formatTimestamp, type AuditLogOptions, type AuditLogSource, type PacketSummary } from './policy/audit-log';
export { NetworkPolicyController, loadPolicyView, savePolicyView, type NetworkPolicyControllerOptions } from './policy/controller';
export { AgentError, type AgentErrorCode } from './errors';
export { AgentMetrics, LatencyHistogram, LATENCY_BUCKETS, type NodeState } from './metrics';
export { LocalApi, agentInfo, flowConcernsPod, flowOfConjunctions, type AgentInfo, type AgentIntrospection } from './api';
export { AgentInfoReporter, buildAgentInfo, AGENT_INFO_PATH, AGENT_VERSION, type AgentInfoReporterOptions } from './agent-info';
export { NodeRouteController, nodeFacts, remoteNodesOf, hostRoutesFor, sameSubnet, type NodeFacts, type RefusedNode, type HostRoute, type NodeRouteSink, type NodeRouteControllerOptions } from './node-routes';
export {
  ServiceController,
  ServiceGroupIds,
  servicesToSpecs,
  servicePortKey,
  SERVICE_NAME_LABEL,
  SERVICE_GROUP_ID_BASE,
  DEFAULT_AFFINITY_TIMEOUT,
  type ServiceMapping,
  type ServiceMappingInput,
  type ServiceSink,
  type ServiceControllerOptions,
  type SkippedObject,
} from './services';
export { FqdnController, FqdnCache, fqdnMatches, DNS_INTERCEPT_CONJ_ID, type FqdnOptions } from './policy/fqdn';
export { decodeDnsMessage, resolveAnswers, dnsPayloadOfFrame, DnsParseError } from './policy/dns';
export type { Logger } from './logger';
export {
  TUNNEL_OVERHEAD,
  ROUND_KEY,
  bringUpNode,
  checkDatapathSupport,
  tunnelInterfaceOptions,
  podMtu,
  readRound,
  writeRound,
  startRound,
  type TunnelType,
  type NodeInfo,
  type BridgeSetupOptions,
} from './bridge';
export { FlowSync, type SyncStats } from './flow-sync';
export { InterfaceStore, EXTERNAL_IDS, podExternalIds, readPodPorts, type PodInterface, type StoredPort } from './interface-store';
export { NodeNetwork, netnsPath, probeNetns, ROUTE_PROTO, MASQ_CHAIN, type PodLinkSpec, type PodInterfaceState } from './netops';
export { PodNetwork, hostInterfaceName, randomMac, podResult, type PodRequest, type PodNetworkDeps } from './pods';
export { CniServer, CniHandler, KeyedSerializer, IPAM_TYPES, cniServiceDefinition, ipamModeOf, type PodOperations } from './cni/server';
export {
  CniError,
  CniErrorCode,
  SUPPORTED_CNI_VERSIONS,
  CURRENT_CNI_VERSION,
  CNI_SERVICE,
  CNI_METHODS,
  parseNetConf,
  parseCniArgs,
  parsePrevResult,
  formatResult,
  compareVersions,
  type CniCommand,
  type CniRequest,
  type CniReply,
  type CniResult,
  type CniInterface,
  type CniIpConfig,
  type CniRoute,
  type NetConf,
} from './cni/spec';
export { grpcUnary, grpcFrame, GrpcCallError } from './cni/plugin/grpc-client';
