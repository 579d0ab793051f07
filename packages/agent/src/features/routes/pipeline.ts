/** The pipeline feature the routes part contributes: remote nodes (tunnel or gateway flows per peer pod CIDR), openflow-pipeline's. */
export { remoteNodesFeature as pipelineFeature } from '@switchyard/openflow-pipeline';
