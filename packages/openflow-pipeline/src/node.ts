/**
 * The whole node at once: the enabled features' tables, every owner of every feature, merged by
 * identity, plus the miss flows no feature replaces. The reference the incremental pipeline
 * (node-pipeline.ts) is tested against.
 */
import type { Flow } from '@switchyard/openflow/codec';
import { StateReader, ownersOf } from './context';
import { CookieCategory, makeCookie } from './cookie';
import { featureKinds, featureTables, type Feature } from './feature';
import { activeFeatures } from './features/index';
import { conjIdsFrom } from './features/policy';
import { assignConjunctionIds } from './features/policy-priorities';
import { formatFlow, type Group } from './format';
import { contribution, mergeFlows, mergeGroups, type Contribution } from './merge';
import { ObjectIndex } from './objects';
import { CONTROLLER_ID } from './fields';
import { Pipeline, type TableName } from './tables';
import type { NodeConfig, NodeState } from './state';

/** Result of {@link computeNodeFlows}. */
export interface NodeFlows {
  pipeline: Pipeline;
  flows: Flow[];
  groups: Group[];
  /** Conjunction ids in use, by rule key: pass back as `state.conjIds` next time. */
  conjIds: Map<string, number>;
}

/** Options that are not node state. */
export interface ComputeOptions {
  /** Controller connection id in packet-in actions (Antrea: 62373). */
  controllerId?: number;
  /** First group id of NetworkPolicy logging groups (Service groups use their own ids). */
  policyGroupIdBase?: number;
  /**
   * The node's features, in precedence order (default: the state's preset, {@link nodeFeatures}:
   * podNodeFeatures or externalNodeFeatures of its configuration).
   */
  features?: readonly Feature[];
}

/** Tables realized for a node state. */
export function requiredTables(state: NodeState, opts: Pick<ComputeOptions, 'features'> = {}): TableName[] {
  return featureTables(activeFeatures(state, opts.features), state.config);
}

/** Owner key of the pipeline's miss flows. */
export const MISS_OWNER = 'pipeline/miss';

/** The priority-0 miss flows of the tables no feature owns the catch-all of. */
export function missFlows(p: Pipeline, cfg: NodeConfig, features: readonly Feature[]): Flow[] {
  const owned = new Set<string>(features.flatMap((f) => f.ownsMiss ?? []));
  return p.missFlows(makeCookie(cfg.round, CookieCategory.Default)).filter((f) => !owned.has(p.nameOf(f.table)!));
}

/** Whether a feature (by its index in the list) merges conjunctive match flows. */
export const mergerOf = (features: readonly Feature[]) => (i: number): boolean => features[i]?.mergesConjunctions ?? false;

/**
 * Conjunction ids of the full computation: the state's (a key missing is an input error), else
 * ids assigned in the order of the features' `conjunctionKeys`, then the next free id for a key
 * first asked for. Every id handed out is recorded in `used`.
 */
function conjunctionIds(state: NodeState, features: readonly Feature[], used: Map<string, number>): (key: string) => number {
  if (state.conjIds) return conjIdsFrom(state.conjIds, used);
  const ids = assignConjunctionIds(new Map(), features.flatMap((f) => f.conjunctionKeys?.(state) ?? []));
  let next = 1;
  for (const id of ids.values()) if (id >= next) next = id + 1;
  return (key) => {
    let id = ids.get(key);
    if (id === undefined) {
      id = next++;
      ids.set(key, id);
    }
    used.set(key, id);
    return id;
  };
}

/**
 * Computes every flow and group of the node: all features, all owners. Pure and deterministic:
 * the same state (and feature list) gives the same flows in the same order.
 */
export function computeNodeFlows(state: NodeState, opts: ComputeOptions = {}): NodeFlows {
  const cfg = state.config;
  const features = activeFeatures(state, opts.features);
  const { kinds, declared } = featureKinds(features);
  const p = Pipeline.build(featureTables(features, cfg));
  const index = new ObjectIndex(state, kinds);
  const conjIds = new Map<string, number>();
  const idOf = conjunctionIds(state, features, conjIds);
  const shared = new Map(features.map((f) => [f.name, f.shared?.(state) ?? new Map<string, number>()]));
  const reader = new StateReader({
    pipeline: p, config: cfg, index, declared, controllerId: opts.controllerId ?? CONTROLLER_ID, policyGroupIdBase: opts.policyGroupIdBase ?? 1,
    conjunctionId: (_owner, key) => idOf(key), shared: (f, key) => shared.get(f)?.get(key),
  });
  const flows: Contribution[] = [];
  const groups: Contribution<Group>[] = [];
  features.forEach((f, feature) => {
    for (const o of ownersOf(f, index)) {
      const { output } = reader.compute(f, o.owner, o.run);
      output.flows.forEach((value, seq) => flows.push(contribution(feature, o.owner, seq, value)));
      (output.groups ?? []).forEach((value, seq) => groups.push({ feature, owner: o.owner, seq, value }));
    }
  });
  missFlows(p, cfg, features).forEach((value, seq) => flows.push(contribution(features.length, MISS_OWNER, seq, value)));
  return { pipeline: p, flows: mergeFlows(flows, mergerOf(features)), groups: mergeGroups(groups), conjIds };
}

/** Renders flows with table names, as `antctl get ovsflows` / `yardctl get ovsflows`. */
export function dumpFlows(nf: Pick<NodeFlows, 'pipeline' | 'flows'>, opts: { cookie?: boolean } = {}): string[] {
  return nf.flows.map((f) => formatFlow(f, { tableName: (id) => nf.pipeline.nameOf(id), ...opts }));
}
