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
export { VIRTUAL_NODEPORT_DNAT_IP, VIRTUAL_NODEPORT_DNAT_IPV6, VIRTUAL_SERVICE_IP, VIRTUAL_SERVICE_IPV6 } from './state';
export { portRangeToMasks, type PortMask } from './features/ports';
export { aggregateV4, aggregateV6, ipBlockCidrs } from './features/addresses';
export type { Feature, FlowContext, OwnerOutput, PerObjectFlows } from './feature';
export {
  defineKind, nodeObject, NODE_KEY, type ObjectKind, type ObjectKinds, type ObjectOf, type ObjectKindDecl, type KindIndex, type MemberGroup, type PolicyRule,
  type FqdnIntercept,
} from './objects';
export { isTraceable, traceFlows, traceFlow, traceCookie, traceMatch, traceToController, traceOutputActions, liveTagFlow, LIVE_TAG_PRIORITY, type Traceable, type TraceContext } from './trace';
export {
  podNodeFeatures, externalNodeFeatures, nodeFeatures, POD_NODE_FEATURES, EXTERNAL_NODE_FEATURES, type FeatureFlags,
} from './features/index';
export {
  podConnectivity, podConnectivityBaseFlows, podFlows, podConnectivityTables, podConnectivityTraceFlows, podConnectivityFeature, podKind,
  type PodConnectivityOptions,
} from './features/pod';
export { remoteNodes, remoteNodeFlows, remoteNodesFeature, remoteNodeKind, type RemoteNodesOptions } from './features/remote-nodes';
export {
  networkPolicy, networkPolicyFlows, networkPolicyBaseFlows, networkPolicyTables, networkPolicyTraceFlows, networkPolicyFeature, policyRuleFlows, policyLevelFlows,
  assignConjunctionIds, assignOFPriorities, policyRuleKeys, ruleKey, BASELINE_TIER_PRIORITY, BANP_TIER_PRIORITY, DEFAULT_TIER_PRIORITY,
  type NetworkPolicyOptions, type NetworkPolicyInput, type NetworkPolicyFlows, type RulePriority,
} from './features/policy';
export { policyKind, policyRuleKind, addressGroupKind, appliedToGroupKind, fqdnAddressesKind } from './features/policy-kinds';
export { service, serviceBaseFlows, servicePortFlows, serviceHairpinPodFlows, serviceTables, serviceFeature, serviceKind } from './features/service';
export { externalNode, externalNodeFlows, externalNodeTables, externalNodeFeature, externalNodeKind, bypassProtocolMatch } from './features/external-node';
export { multicluster, multiclusterFlows, multiclusterFeature, multiclusterKind, type MulticlusterOptions } from './features/multicluster';
export { fqdn, fqdnFlows, fqdnFeature, fqdnInterceptKind, type FqdnOptions } from './features/fqdn';
export { trafficControl, trafficControlFlows, trafficControlNodeFlows, trafficControlKind, type TrafficControlRule } from './features/traffic-control';
export { egress, egressFlows, egressNodeFlows, egressExceptFlows, egressKind, egressExceptKind, egressRuleKey, egressTables, type EgressFeatureOptions, type EgressRule, type EgressSpec } from './features/egress';
export { computeNodeFlows, requiredTables, dumpFlows, type NodeFlows, type ComputeOptions } from './node';
export { NodePipeline, type NodeDelta, type GroupDelta, type TraceOptions } from './node-pipeline';
