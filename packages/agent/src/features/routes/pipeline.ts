/** The pipeline feature the routes part contributes: remote nodes (tunnel or gateway flows per peer pod CIDR). */
import { remoteNodes, type Feature } from '@switchyard/openflow-pipeline';
import type { AgentContext } from '../../context';

export function pipelineFeatures(ctx: AgentContext): Feature[] {
  return [remoteNodes({ wireGuard: ctx.wireGuard })];
}
