/**
 * @switchyard/openflow-pipeline: Antrea-compatible OpenFlow pipeline builder and flow diff (pure).
 * Given a node's state it returns the exact set of flows; given desired and installed flows it
 * returns the minimal change.
 * @packageDocumentation
 */
export { PipelineError, type PipelineErrorCode } from './errors';
export * from './fields';
export {
  Pipeline, PIPELINES, STAGES, TABLE_DECLS, type PipelineId, type StageId, type TableDecl, type TableName, type RealizedTable,
} from './tables';
export {
  CookieCategory, makeCookie, parseCookie, cookieMaskForRound, nextRound, isStaleRound, flowsOfPreviousRounds,
  ROUND_MASK, CATEGORY_MASK, OBJECT_ID_MASK,
} from './cookie';
export { diffFlows, applyDiff, flowKey, matchKey, canonical, indexFlows, sortByIdentity, type FlowDiff, type DiffOptions } from './diff';
export { FlowIndex, flowHash, matchHash, sameIdentity, sameValue } from './identity';
export { formatFlow, formatActions, formatGroup, parseNamedFlow, type FormatOptions, type Group, type TableNamer } from './format';
export type * from './state';
export { portRangeToMasks, type PortMask } from './features/ports';
export { aggregateV4, ipBlockCidrs } from './features/addresses';
export type { Feature, FlowContext, OwnerOutput, PerObjectFlows } from './feature';
export type { ObjectKind, ObjectKinds, MemberGroup, FqdnIntercept } from './objects';
export { POD_NODE_FEATURES, EXTERNAL_NODE_FEATURES, nodeFeatures } from './features/index';
export { podConnectivityBaseFlows, podFlows, podConnectivityTables, podConnectivityFeature } from './features/pod';
export { remoteNodeFlows, remoteNodesFeature } from './features/remote-nodes';
export {
  networkPolicyFlows, networkPolicyBaseFlows, networkPolicyTables, networkPolicyFeature, policyRuleFlows, policyLevelFlows, assignConjunctionIds, assignOFPriorities,
  policyRuleKeys, ruleKey, BASELINE_TIER_PRIORITY, BANP_TIER_PRIORITY, DEFAULT_TIER_PRIORITY,
  type NetworkPolicyInput, type NetworkPolicyFlows, type RulePriority,
} from './features/policy';
export { serviceBaseFlows, servicePortFlows, serviceHairpinPodFlows, serviceTables, serviceFeature } from './features/service';
export { externalNodeFlows, externalNodeTables, externalNodeFeature, bypassProtocolMatch } from './features/external-node';
export { multiclusterFlows, multiclusterFeature } from './features/multicluster';
export { fqdnFlows, fqdnFeature } from './features/fqdn';
export { computeNodeFlows, requiredTables, dumpFlows, type NodeFlows, type ComputeOptions } from './node';
export { NodePipeline, type NodeDelta, type GroupDelta } from './node-pipeline';
