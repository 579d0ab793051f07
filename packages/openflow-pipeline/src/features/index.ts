/**
 * The presets: the feature lists of a node with pods and of an ExternalNode, built from the
 * feature switches of NodeConfig, and the deprecated constant lists. Adding a feature is a module
 * and an entry in a list (a preset here, or the caller's own list).
 */
import { enabledFeatures, type Feature } from '../feature';
import type { NodeConfig, NodeState } from '../state';
import { externalNode, externalNodeFeature } from './external-node';
import { fqdn, fqdnFeature } from './fqdn';
import { multicluster, multiclusterFeature } from './multicluster';
import { podConnectivity, podConnectivityFeature } from './pod';
import { networkPolicy, networkPolicyFeature } from './policy';
import { remoteNodes, remoteNodesFeature } from './remote-nodes';
import { service, serviceFeature } from './service';

/** The feature switches of NodeConfig the presets turn into the features' options. */
export type FeatureFlags = Pick<NodeConfig, 'enableProxy' | 'enableAntreaPolicy' | 'wireGuard' | 'netdevDatapath' | 'packetInMeters'>;

const policyOptions = (flags: FeatureFlags) => ({
  antreaPolicy: flags.enableAntreaPolicy ?? false, proxy: flags.enableProxy ?? false, packetInMeters: flags.packetInMeters ?? false, netdevDatapath: flags.netdevDatapath ?? true,
});

/**
 * A node with pods, in the order features take precedence for flows of the same identity: pod
 * connectivity, remote nodes, Service load balancing (with `enableProxy`), NetworkPolicy,
 * Multi-cluster, FQDN (with `enableAntreaPolicy`).
 */
export function podNodeFeatures(flags: FeatureFlags = {}): Feature[] {
  const proxy = flags.enableProxy ?? false;
  const wireGuard = flags.wireGuard ?? false;
  return [
    podConnectivity({ proxy, wireGuard }),
    remoteNodes({ wireGuard }),
    ...(proxy ? [service()] : []),
    networkPolicy(policyOptions(flags)),
    multicluster({ proxy }),
    ...(flags.enableAntreaPolicy ? [fqdn({ packetInMeters: flags.packetInMeters ?? false })] : []),
  ];
}

/** An ExternalNode (a VM or host running the agent without pods): ExternalNode, NetworkPolicy, FQDN (with `enableAntreaPolicy`). */
export function externalNodeFeatures(flags: FeatureFlags = {}): Feature[] {
  return [externalNode(), networkPolicy(policyOptions(flags)), ...(flags.enableAntreaPolicy ? [fqdn({ packetInMeters: flags.packetInMeters ?? false })] : [])];
}

/** The preset of a node state: {@link externalNodeFeatures} when it has `externalNode`, else {@link podNodeFeatures}, from its configuration. */
export function nodeFeatures(state: Pick<NodeState, 'config' | 'externalNode'>): Feature[] {
  return state.externalNode ? externalNodeFeatures(state.config) : podNodeFeatures(state.config);
}

/**
 * @deprecated A node with pods as constants that read NodeConfig's switches when they compute
 * (`enabled(cfg)` leaves out Services and FQDN); use {@link podNodeFeatures}.
 */
export const POD_NODE_FEATURES: readonly Feature[] = [
  podConnectivityFeature, remoteNodesFeature, serviceFeature, networkPolicyFeature, multiclusterFeature, fqdnFeature,
];

/** @deprecated An ExternalNode as constants reading NodeConfig's switches; use {@link externalNodeFeatures}. */
export const EXTERNAL_NODE_FEATURES: readonly Feature[] = [externalNodeFeature, networkPolicyFeature, fqdnFeature];

/** The features of a list that are on for a configuration (a list given explicitly, or the state's preset). */
export function activeFeatures(state: Pick<NodeState, 'config' | 'externalNode'>, features?: readonly Feature[]): Feature[] {
  return features ? enabledFeatures(features, state.config) : nodeFeatures(state);
}
