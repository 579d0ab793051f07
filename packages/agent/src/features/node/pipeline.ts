/** The pipeline feature the node part contributes: pod connectivity (classifier, spoof guard, L2/L3 forwarding). */
import { podConnectivity, type Feature } from '@switchyard/openflow-pipeline';
import type { AgentContext } from '../../context';

export function pipelineFeatures(ctx: AgentContext): Feature[] {
  return [podConnectivity({ proxy: ctx.options.enableProxy, wireGuard: ctx.wireGuard })];
}
