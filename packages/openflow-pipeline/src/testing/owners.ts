/** The testing kit's own computation of one feature's owners: each from scratch, with what it read. */
import { StateReader, ownersOf } from '../context';
import { featureKinds, featureTables, type Feature, type OwnerOutput } from '../feature';
import { CONTROLLER_ID } from '../fields';
import { ObjectIndex } from '../objects';
import type { NodeState } from '../state';
import { Pipeline } from '../tables';

/** One owner computed: its output and the dependency keys it read. */
export interface Computed {
  output: OwnerOutput;
  deps: string[];
}

/** Options of the pipeline the owners are computed in. */
export interface OwnerOptions {
  controllerId?: number;
  policyGroupIdBase?: number;
}

/**
 * Every owner of `feature` in `state` (a list of `features`), computed from scratch: conjunction
 * ids come from `conjIds` (a key it lacks gets an id above all of them, so an owner asking for a
 * key the pipeline never gave out differs), shared values from the feature's `shared(state)`.
 */
export function computeOwners(state: NodeState, features: readonly Feature[], feature: Feature, conjIds: ReadonlyMap<string, number>, opts: OwnerOptions = {}): Map<string, Computed> {
  const { kinds, declared } = featureKinds(features);
  const index = new ObjectIndex(state, kinds);
  const pipeline = Pipeline.build(featureTables(features, state.config));
  const shared = feature.shared?.(state) ?? new Map<string, number>();
  let spare = 1;
  for (const id of conjIds.values()) if (id >= spare) spare = id + 1;
  const reader = new StateReader({
    pipeline, config: state.config, index, declared, controllerId: opts.controllerId ?? CONTROLLER_ID, policyGroupIdBase: opts.policyGroupIdBase ?? 1,
    conjunctionId: (_owner, key) => conjIds.get(key) ?? spare, shared: (_f, key) => shared.get(key),
  });
  const out = new Map<string, Computed>();
  for (const o of ownersOf(feature, index)) out.set(o.owner, reader.compute(feature, o.owner, o.run));
  return out;
}
