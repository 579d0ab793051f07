/**
 * @switchyard/agent: Switchyard node agent and switchyard-cni plugin.
 * The agent composes @switchyard/ovsdb, @switchyard/openflow(-pipeline) and @switchyard/ipam into
 * pod networking on Open vSwitch; the plugin binary forwards CNI calls to it over gRPC.
 *
 * The public surface is running an agent ({@link Agent}, its options and errors) and talking to
 * it the way the `switchyard-cni` plugin does (the CNI wire types and spec checks, the gRPC call).
 * The parts the agent is made of stay internal.
 * @packageDocumentation
 */
export { Agent } from './agent';
export { ExternalNodeAgent, type ExternalNodeAgentOptions } from './external-node-agent';
export type { ExternalNodeOptions } from './features/external-node/options';
export { agentOptionsFromConfig, type AgentOptions, type ResolvedAgentOptions } from './options';
export type { AgentHealth, ControllerHealth } from './health';
/** Which node owns an external IP (LoadBalancer or Egress) among the candidates: what every agent computes alike. */
export { rendezvousOwner } from './features/external-ip/ownership';
export type { NodeInfo, TunnelType } from './bridge';
export { AgentError, type AgentErrorCode } from './errors';
// The logger every Switchyard package shares, re-exported under the agent's name.
export type { Logger } from '@switchyard/runtime';

// What the switchyard-cni plugin uses to reach the agent.
export {
  CniError,
  CniErrorCode,
  SUPPORTED_CNI_VERSIONS,
  CURRENT_CNI_VERSION,
  CNI_SERVICE,
  CNI_METHODS,
  parseNetConf,
  compareVersions,
  type CniCommand,
  type CniRequest,
  type CniReply,
  type NetConf,
} from './cni/spec';
export { grpcUnary, GrpcCallError } from './cni/plugin/grpc-client';
