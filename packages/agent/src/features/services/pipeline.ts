/** The pipeline feature the services part contributes: AntreaProxy's Service tables and select groups (with enableProxy). */
import { service, type Feature } from '@switchyard/openflow-pipeline';
import type { AgentContext } from '../../context';

export function pipelineFeatures(ctx: AgentContext): Feature[] {
  return ctx.options.enableProxy ? [service()] : [];
}
