/**
 * The feature contract, checked over a sequence of node states: what every feature of a node's
 * list must do for the full computation and the incremental pipeline to agree.
 */
import type { Flow } from '@switchyard/openflow/codec';
import { applyDiff, canonical } from '../diff';
import type { Feature } from '../feature';
import { enabledFeatures } from '../feature';
import { CONTROLLER_ID } from '../fields';
import { sameIdentity, sameValue } from '../identity';
import { conjunctionCodes } from '../merge';
import { computeNodeFlows, type NodeFlows } from '../node';
import { NodePipeline, observeOwners } from '../node-pipeline';
import type { NodeState } from '../state';
import type { Pipeline } from '../tables';
import { isTraceable, traceFlows } from '../trace';
import { flowSetDifferences, notCanonical, show, traceFlowProblems } from './checks';
import { computeOwners, type Computed, type OwnerOptions } from './owners';

/** Which part of the contract a problem breaks. */
export type ContractCheck = 'list' | 'compute' | 'tables' | 'canonical' | 'deterministic' | 'oracle' | 'dependencies' | 'merge' | 'traceable';

/** One broken promise: the check, the state (its position in the sequence) and what was found. */
export interface ContractProblem {
  check: ContractCheck;
  state: number;
  message: string;
}

/** A feature broke the contract; `problems` names each problem found. */
export class FeatureContractError extends Error {
  override readonly name = 'FeatureContractError';
  constructor(
    readonly feature: string,
    readonly problems: readonly ContractProblem[],
  ) {
    super(`feature ${feature} breaks the pipeline contract:\n${problems.map((p) => `- [${p.check}] state ${p.state}: ${p.message}`).join('\n')}`);
  }
}

/** What {@link checkFeatureContract} checks. */
export interface FeatureContractOptions extends OwnerOptions {
  /** The feature under test. */
  feature: Feature;
  /** The node's features in precedence order, the one under test among them (default: it alone). */
  features?: readonly Feature[];
  /** The states the node goes through, in order (an array, or a generator's). At least one. */
  states: Iterable<NodeState>;
  /** Tags a traceable feature's flows are checked with (default: 7 and 59). */
  traceTags?: readonly number[];
  /** Stop collecting after this many problems (default 20). */
  maxProblems?: number;
}

/** What a passing check covered. */
export interface FeatureContractReport {
  states: number;
  /** Owner computations of the feature compared with the incremental pipeline's. */
  owners: number;
  /** Flows of the feature's owners checked. */
  flows: number;
  /** Trace flows checked. */
  traceFlows: number;
}

/** Problems found so far; `full` when there are enough to stop. */
class Problems {
  readonly list: ContractProblem[] = [];
  constructor(private readonly max: number) {}
  add(check: ContractCheck, state: number, messages: string | readonly string[]): void {
    for (const message of typeof messages === 'string' ? [messages] : messages.slice(0, 5)) if (!this.full) this.list.push({ check, state, message });
  }
  get full(): boolean {
    return this.list.length >= this.max;
  }
}

/** The running check: the pipeline under test and what it computed for each owner. */
interface Run {
  opts: FeatureContractOptions;
  features: readonly Feature[];
  np: NodePipeline;
  observed: Map<string, Computed>;
  problems: Problems;
  report: FeatureContractReport;
}

const message = (e: unknown): string => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));

/**
 * Checks that a feature keeps the pipeline's contract over a sequence of node states, and throws
 * {@link FeatureContractError} naming every problem otherwise:
 * - list: the feature is in the list and the list is valid (kinds declared once, names unique);
 * - tables / canonical: its owners' flows sit in tables it declares and are in the codec's
 *   canonical form (they survive render -> parse -> normalize unchanged);
 * - deterministic: computing a state twice gives the same flows in the same order;
 * - oracle: after each state, `NodePipeline` publishes exactly what `computeNodeFlows` gives (flows,
 *   actions, cookies, groups), and its delta turns the previous flows into the new ones;
 * - dependencies: each owner's flows, computed from scratch, are what the pipeline computed when
 *   it last recomputed that owner (an owner reading state other than through the FlowContext, or
 *   a kind's `same` hiding a change, goes stale here);
 * - merge: a merging feature gives the conjunctive match flows of one identity one cookie;
 * - traceable (when the feature implements it): trace flows are canonical, match the tag, carry
 *   the Traceflow cookie, and each sits above a decision flow of the node it overlaps.
 */
export function checkFeatureContract(opts: FeatureContractOptions): FeatureContractReport {
  const features = opts.features ?? [opts.feature];
  const problems = new Problems(opts.maxProblems ?? 20);
  const report: FeatureContractReport = { states: 0, owners: 0, flows: 0, traceFlows: 0 };
  if (!features.includes(opts.feature)) problems.add('list', 0, 'the feature is not in the list');
  const np = new NodePipeline({ ...pipelineOptions(opts), features });
  const observed = new Map<string, Computed>();
  observeOwners(np, (owner, c) => (c ? observed.set(owner, c) : observed.delete(owner)));
  const run: Run = { opts, features, np, observed, problems, report };
  for (const state of opts.states) {
    if (problems.full || !checkState(run, state, report.states)) break;
    report.states++;
  }
  if (report.states === 0 && problems.list.length === 0) problems.add('list', 0, 'no states to check');
  if (problems.list.length > 0) throw new FeatureContractError(opts.feature.name, problems.list);
  return report;
}

const pipelineOptions = (o: OwnerOptions): OwnerOptions => ({
  ...(o.controllerId !== undefined ? { controllerId: o.controllerId } : {}), ...(o.policyGroupIdBase !== undefined ? { policyGroupIdBase: o.policyGroupIdBase } : {}),
});

/** Checks one state; false when the sequence cannot go on (the pipeline threw). */
function checkState(run: Run, state: NodeState, i: number): boolean {
  const { np, problems } = run;
  const before = np.flows();
  let delta;
  try {
    delta = np.update(state);
  } catch (e) {
    problems.add('compute', i, `NodePipeline.update threw ${message(e)}`);
    return false;
  }
  const p = np.pipeline!;
  const conjIds = np.conjIds();
  let full: NodeFlows;
  try {
    full = computeNodeFlows({ ...state, conjIds }, { ...pipelineOptions(run.opts), features: run.features });
  } catch (e) {
    problems.add('compute', i, `computeNodeFlows threw ${message(e)}`);
    return false;
  }
  problems.add('oracle', i, flowSetDifferences(np.flows(), full.flows, p).map((d) => `NodePipeline vs computeNodeFlows: ${d}`));
  if (!sameValue(byId(np.groups()), byId(full.groups))) problems.add('oracle', i, 'NodePipeline groups differ from computeNodeFlows groups');
  problems.add('oracle', i, flowSetDifferences(applyDiff(before, delta.flows), np.flows(), p, false).map((d) => `the delta applied to the previous flows: ${d}`));
  const again = computeNodeFlows({ ...state, conjIds }, { ...pipelineOptions(run.opts), features: run.features });
  if (canonical(again.flows) !== canonical(full.flows) || canonical(again.groups) !== canonical(full.groups)) {
    problems.add('deterministic', i, 'computeNodeFlows of one state gave different flows (or order) twice');
  }
  checkOwners(run, state, i, p, conjIds);
  checkTrace(run, state, i, full);
  return true;
}

const byId = <T extends { groupId: number }>(gs: readonly T[]): T[] => [...gs].sort((a, b) => a.groupId - b.groupId);

/** The feature's owners from scratch against the pipeline's: tables, canonical form, determinism, dependencies, merge. */
function checkOwners(run: Run, state: NodeState, i: number, p: Pipeline, conjIds: ReadonlyMap<string, number>): void {
  const { opts, problems, observed } = run;
  const f = opts.feature;
  const active = enabledFeatures(run.features, state.config);
  if (!active.includes(f)) return;
  const fresh = computeOwners(state, active, f, conjIds, opts);
  const second = computeOwners(state, active, f, conjIds, opts);
  const declared = new Set<string>(f.tables(state.config));
  for (const [owner, c] of fresh) {
    run.report.owners++;
    run.report.flows += c.output.flows.length;
    const stray = c.output.flows.filter((x) => !declared.has(p.nameOf(x.table) ?? ''));
    if (stray.length) problems.add('tables', i, stray.map((x) => `${owner} writes a table the feature does not declare: ${show(p, x)}`));
    problems.add('canonical', i, notCanonical(c.output.flows).map((x) => `${owner} emits a flow not in the codec's canonical form: ${show(p, x)}`));
    if (!sameValue(second.get(owner), c)) problems.add('deterministic', i, `${owner} computed twice from one state gave different flows or reads`);
    const held = observed.get(owner);
    if (!held) problems.add('dependencies', i, `${owner} exists in the state but the pipeline never computed it`);
    else if (!sameValue(held.output, c.output)) {
      problems.add('dependencies', i, `${owner} is stale: from scratch its flows differ from the pipeline's, though nothing it read through the FlowContext changed (it read: ${held.deps.join(', ') || 'nothing'}); it depends on state it does not read through the context`);
    }
  }
  const prefix = `${f.name}/`;
  for (const owner of observed.keys()) if (owner.startsWith(prefix) && !fresh.has(owner)) problems.add('dependencies', i, `${owner} is held by the pipeline but has no object in the state`);
  if (f.mergesConjunctions) problems.add('merge', i, mergeProblems([...fresh.values()], p));
}

/** Conjunctive match flows of one identity from different owners that differ in anything but their actions. */
function mergeProblems(owners: readonly Computed[], p: Pipeline): string[] {
  const out: string[] = [];
  const seen: { flow: Flow }[] = [];
  for (const c of owners) {
    for (const f of c.output.flows) {
      if (!conjunctionCodes(f)) continue;
      const other = seen.find((s) => sameIdentity(s.flow, f));
      if (!other) seen.push({ flow: f });
      else if (!sameValue({ ...other.flow, actions: [] }, { ...f, actions: [] })) out.push(`conjunctive match flows of one identity differ besides their actions (cookie?): ${show(p, f)} vs ${show(p, other.flow)}`);
    }
  }
  return out;
}

/** A traceable feature's trace flows for each tag, against the node's flows. */
function checkTrace(run: Run, state: NodeState, i: number, full: NodeFlows): void {
  const f = run.opts.feature;
  if (!isTraceable(f) || !enabledFeatures(run.features, state.config).includes(f)) return;
  const ctx = { pipeline: full.pipeline, config: state.config, controllerId: run.opts.controllerId ?? CONTROLLER_ID, flows: full.flows };
  for (const tag of run.opts.traceTags ?? [7, 59]) {
    try {
      const flows = traceFlows([f], ctx, tag);
      run.report.traceFlows += flows.length;
      run.problems.add('traceable', i, traceFlowProblems(flows, full.flows, full.pipeline, tag).map((m) => `tag ${tag}: ${m}`));
      if (canonical(traceFlows([f], ctx, tag)) !== canonical(flows)) run.problems.add('traceable', i, `tag ${tag}: trace flows differ between two calls`);
    } catch (e) {
      run.problems.add('traceable', i, `tag ${tag}: traceFlows threw ${message(e)}`);
    }
  }
}
