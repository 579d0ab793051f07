/** The pipeline feature the services part contributes: AntreaProxy's Service tables and select groups, openflow-pipeline's. */
export { serviceFeature as pipelineFeature } from '@switchyard/openflow-pipeline';
