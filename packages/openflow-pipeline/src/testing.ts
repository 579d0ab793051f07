/**
 * @switchyard/openflow-pipeline/testing: the compliance kit for pipeline features. A feature's
 * author calls {@link checkFeatureContract} from their own test with the feature, its node's
 * feature list and a sequence of states (a few by hand, or a generator's); it throws
 * {@link FeatureContractError} naming every broken promise.
 * @packageDocumentation
 */
export {
  checkFeatureContract, FeatureContractError, type FeatureContractOptions, type FeatureContractReport, type ContractProblem, type ContractCheck,
} from './testing/contract';
export { overlaps } from './testing/checks';
