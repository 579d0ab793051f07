/** The pipeline features the policies part contributes: NetworkPolicy (conjunctions, tiers, Reject and logging) and FQDN rules, openflow-pipeline's. */
export { networkPolicyFeature as pipelineFeature, fqdnFeature } from '@switchyard/openflow-pipeline';
