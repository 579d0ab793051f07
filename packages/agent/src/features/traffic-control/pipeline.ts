/** The pipeline feature the TrafficControl part contributes (with the `trafficControl` option). */
import { trafficControl, type Feature } from '@switchyard/openflow-pipeline';
import type { AgentContext } from '../../context';

export function pipelineFeatures(ctx: AgentContext): Feature[] {
  return ctx.options.trafficControl ? [trafficControl()] : [];
}
