/**
 * @switchyard/policy-compiler: Kubernetes, Antrea-native and AdminNetworkPolicy compiler to
 * internal rules, with shared groups, per-node span, an incremental engine and an evaluator.
 * Pure: no I/O.
 * @packageDocumentation
 */
export { PolicyEngine, toWatchEvents, kindOf } from './engine';
export type { PolicyEngineOptions } from './engine';
export type { Logger } from '@switchyard/runtime';
export type { LoadInput, LoadOptions, ClusterObjectList } from './load-input';
export { explain, queryEndpoint, engineOf } from './explain';
export type { Endpoint, FlowQuery, Explanation, DirectionVerdict, VerdictReason, EndpointQueryResult, RuleRef, IpFamilyName } from './explain';
export { compileK8sNetworkPolicy, compileAntreaPolicy, compileAdminPolicy, defaultPolicyTypes } from './compile';
export type { CompileContext, CompiledPolicy } from './compile';
export { matchesSelector, matchesNormalized, normalizeSelector, validateSelector, EVERYTHING } from './selector';
export type { NormalizedSelector, Requirement } from './selector';
export { groupOf, leafKey, leafMatches, NAMESPACE_NAME_LABEL } from './leaf';
export type { Leaf, GroupDef, MemberFacts } from './leaf';
export { PolicyValidationError, PolicyCompilerError } from './errors';
export type { PolicyValidationErrorCode, PolicyCompilerErrorCode } from './errors';
export { STATIC_TIERS, DEFAULT_TIER, BASELINE_TIER_PRIORITY, ANP_TIER_PRIORITY, BANP_TIER_PRIORITY, validateK8sNetworkPolicy, validateAntreaPolicy, validateAdminPolicy, validateTier, validateGroup } from './validate';
export type { ValidationContext } from './validate';
export type * from './types';
