/**
 * The pipeline feature the multicluster part contributes: routes to other clusters through the
 * Gateway. Always listed (it has flows only once the part sets the node's multicluster spec).
 */
import { multicluster, type Feature } from '@switchyard/openflow-pipeline';
import type { AgentContext } from '../../context';

export function pipelineFeatures(ctx: AgentContext): Feature[] {
  return [multicluster({ proxy: ctx.options.enableProxy })];
}
