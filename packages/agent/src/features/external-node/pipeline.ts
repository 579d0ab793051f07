/** The pipeline feature the ExternalNode part contributes: uplink/pair forwarding with policy bypass rules. */
import { externalNode, type Feature } from '@switchyard/openflow-pipeline';

export function pipelineFeatures(): Feature[] {
  return [externalNode()];
}
