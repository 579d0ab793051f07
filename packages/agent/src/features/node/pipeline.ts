/** The pipeline feature the node part contributes: pod connectivity (classifier, spoof guard, L2/L3 forwarding), openflow-pipeline's. */
export { podConnectivityFeature as pipelineFeature } from '@switchyard/openflow-pipeline';
