/** The pipeline feature the ExternalNode part contributes: uplink/pair forwarding with policy bypass rules, openflow-pipeline's. */
export { externalNodeFeature as pipelineFeature } from '@switchyard/openflow-pipeline';
