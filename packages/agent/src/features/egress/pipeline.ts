/** The pipeline feature the Egress part contributes (with the `egress` option and AntreaProxy). */
import { egress, type Feature } from '@switchyard/openflow-pipeline';
import type { AgentContext } from '../../context';

export function pipelineFeatures(ctx: AgentContext): Feature[] {
  return ctx.options.egress && ctx.options.enableProxy ? [egress({ trafficShaping: ctx.options.egressTrafficShaping })] : [];
}
