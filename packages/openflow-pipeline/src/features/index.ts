/**
 * The feature lists: a node's pipeline is the list for its kind of node, minus the features its
 * configuration turns off. Adding a feature is a module and an entry here.
 */
import type { Feature } from '../feature';
import type { NodeState } from '../state';
import { externalNodeFeature } from './external-node';
import { fqdnFeature } from './fqdn';
import { multiclusterFeature } from './multicluster';
import { podConnectivityFeature } from './pod';
import { networkPolicyFeature } from './policy';
import { remoteNodesFeature } from './remote-nodes';
import { serviceFeature } from './service';

/** A node with pods, in the order features take precedence for flows of the same identity. */
export const POD_NODE_FEATURES: readonly Feature[] = [
  podConnectivityFeature, remoteNodesFeature, serviceFeature, networkPolicyFeature, multiclusterFeature, fqdnFeature,
];

/** An ExternalNode (a VM or host running the agent without pods). */
export const EXTERNAL_NODE_FEATURES: readonly Feature[] = [externalNodeFeature, networkPolicyFeature, fqdnFeature];

/** The enabled features of a node, in precedence order. */
export function nodeFeatures(state: Pick<NodeState, 'config' | 'externalNode'>): Feature[] {
  const list = state.externalNode ? EXTERNAL_NODE_FEATURES : POD_NODE_FEATURES;
  return list.filter((f) => f.enabled?.(state.config) ?? true);
}
