/**
 * The agent's options: what a caller gives, the defaults, and the mapping from antrea-agent.conf.
 * Each feature owns its fragment (its fields, their defaults, its checks and config keys, its MTU
 * cost: features/<name>/options.ts); this module merges them.
 */
import type { AgentConfig } from '@switchyard/apis';
import type { Logger } from '@switchyard/runtime';
import type { OptionsFragment, Resolved } from './options-fragment';
import { agentInfoOptions, type AgentInfoOptions } from './features/agentinfo/options';
import { apiOptions, type ApiOptions, type ApiUnset } from './features/api/options';
import { externalIPOptions, type ExternalIPOptions } from './features/external-ip/options';
import { ipPoolsOptions, type IPPoolsOptions } from './features/ippools/options';
import { ipsecOptions, type IPsecOptions, type IPsecUnset } from './features/ipsec/options';
import { multiclusterOptions, type MulticlusterAgentOptions, type MulticlusterUnset } from './features/multicluster/options';
import { nodeOptions, type NodeOptions, type NodeUnset } from './features/node/options';
import { podsOptions, type PodsOptions } from './features/pods/options';
import { policyOptions, type PolicyOptions, type PolicyUnset } from './features/policy/options';
import { servicesOptions, type ServicesOptions } from './features/services/options';
import { traceflowOptions, type TraceflowOptions } from './features/traceflow/options';
import { trafficControlOptions, type TrafficControlOptions } from './features/traffic-control/options';
import { egressOptions, type EgressOptions } from './features/egress/options';
import { wireGuardOptions, type WireGuardOptions, type WireGuardUnset } from './features/wireguard/options';

export { policyBypassFromConfig } from './features/external-node/options';
export { multiclusterFromConfig } from './features/multicluster/options';

/** Everything the agent needs to run a node: the node's options and each feature's. */
export interface AgentOptions
  extends NodeOptions, PodsOptions, IPPoolsOptions, PolicyOptions, ServicesOptions, WireGuardOptions, IPsecOptions, MulticlusterAgentOptions, ApiOptions, AgentInfoOptions,
    TrafficControlOptions, TraceflowOptions, ExternalIPOptions, EgressOptions {}

/** Options without a default: absent means that feature (or override) is off. */
type Unset = NodeUnset | PolicyUnset | WireGuardUnset | IPsecUnset | MulticlusterUnset | ApiUnset;

/** {@link AgentOptions} with every default applied. */
export type ResolvedAgentOptions = Resolved<AgentOptions, Unset>;

/** A fragment as the merge sees it (each reads the options it is given, and returns its own share). */
type Fragment = OptionsFragment<object, never, AgentOptions, ResolvedAgentOptions>;

/** Every options fragment, node first; checks run in this order, and the pods' MTU is paid in it. */
const FRAGMENTS: readonly Fragment[] = [
  nodeOptions, podsOptions, ipPoolsOptions, policyOptions, servicesOptions, wireGuardOptions, ipsecOptions, multiclusterOptions, apiOptions, agentInfoOptions,
  trafficControlOptions, traceflowOptions, externalIPOptions, egressOptions,
];

/** Applies the defaults; throws `AgentError` (`INVALID_CONFIG`, `UNSUPPORTED_TUNNEL`) for options no node can run. */
export function resolveAgentOptions(o: AgentOptions, env: NodeJS.ProcessEnv = process.env): ResolvedAgentOptions {
  const resolved = Object.assign({}, ...FRAGMENTS.map((f) => f.resolve(o))) as ResolvedAgentOptions;
  for (const f of FRAGMENTS) Object.assign(resolved, f.check?.(resolved, o, env));
  return resolved;
}

/** MTU of pod interfaces and the gateway: the link's, less what each feature's traffic between nodes adds (tunnel, WireGuard, ESP). */
export function podMtuOf(o: ResolvedAgentOptions): number {
  return FRAGMENTS.reduce((mtu, f) => f.podMtu?.(o, mtu) ?? mtu, o.linkMtu);
}

/** Devices whose traffic is never masqueraded, as the features ask. */
export function unmasqueradedOf(o: ResolvedAgentOptions): string[] {
  return FRAGMENTS.flatMap((f) => f.unmasqueraded?.(o) ?? []);
}

/** Agent options from an antrea-agent.conf (parsed by `parseAgentConfig`) plus the node's facts. */
export function agentOptionsFromConfig(
  cfg: AgentConfig,
  node: { nodeName: string; podCIDR: string; podCIDRv6?: string; nodeIP: string; nodeIPv6?: string; dataDir: string; nodeNetns?: string; logger?: Logger },
  env: NodeJS.ProcessEnv = process.env,
): AgentOptions {
  return Object.assign({ ...node }, ...FRAGMENTS.map((f) => f.fromConfig?.(cfg, env))) as AgentOptions;
}
