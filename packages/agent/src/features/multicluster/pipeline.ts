/** The pipeline feature the multicluster part contributes: routes to other clusters through the Gateway, openflow-pipeline's. */
export { multiclusterFeature as pipelineFeature } from '@switchyard/openflow-pipeline';
