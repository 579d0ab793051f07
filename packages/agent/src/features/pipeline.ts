/**
 * The node's pipeline feature list, assembled from what each feature folder contributes
 * (`features/<name>/pipeline.ts`). Adding a feature with flows is its folder's `pipeline.ts` and
 * one line here, at its place in the precedence order.
 */
import type { Feature } from '@switchyard/openflow-pipeline';
import type { AgentContext } from '../context';
import * as egress from './egress/pipeline';
import * as externalNode from './external-node/pipeline';
import * as multicluster from './multicluster/pipeline';
import * as node from './node/pipeline';
import * as policy from './policy/pipeline';
import * as routes from './routes/pipeline';
import * as services from './services/pipeline';
import * as trafficControl from './traffic-control/pipeline';

/**
 * The pipeline features of a node with pods under these options, in precedence order (earlier
 * wins for flows of one identity), each contributed by its feature folder: the list the node's
 * FlowSync computes with.
 */
export function nodePipelineFeatures(ctx: AgentContext): Feature[] {
  return [
    ...node.pipelineFeatures(ctx),
    ...routes.pipelineFeatures(ctx),
    ...services.pipelineFeatures(ctx),
    ...policy.networkPolicyFeatures(ctx.options),
    ...multicluster.pipelineFeatures(ctx),
    ...policy.fqdnFeatures(ctx.options),
    ...trafficControl.pipelineFeatures(ctx),
    ...egress.pipelineFeatures(ctx),
  ];
}

/** The pipeline features of an ExternalNode: its uplink forwarding, NetworkPolicy and FQDN (no proxy, no packet-in meters). */
export function externalNodePipelineFeatures(datapathType: 'system' | 'netdev'): Feature[] {
  const o = { enableProxy: false, packetInRate: 0, datapathType };
  return [...externalNode.pipelineFeatures(), ...policy.networkPolicyFeatures(o), ...policy.fqdnFeatures(o)];
}
