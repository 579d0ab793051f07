/**
 * The FlowContext features compute with: reads served from an {@link ObjectIndex}, each one noted
 * as a dependency of the owner being computed, and only of kinds the computing feature declares;
 * conjunction ids and shared values come from the caller (a fixed map for the full computation,
 * the incremental pipeline's allocator otherwise).
 */
import { PipelineError } from './errors';
import type { Feature, FlowContext, OwnerOutput } from './feature';
import { depKey, NODE_KEY, type ObjectIndex, type ObjectKind, type ObjectOf } from './objects';
import type { GroupMember, LocalPod, NodeConfig, ServicePortSpec } from './state';
import type { Pipeline } from './tables';

/** Key of an owner: `<feature>/<kind>:<key>`, or `<feature>/node` for node-level flows. */
export const ownerKey = (feature: string, kind?: string, key?: string): string =>
  kind === undefined ? `${feature}/${NODE_KEY}` : `${feature}/${kind}:${key}`;

/** Where ids and shared values come from. */
export interface ReaderSources {
  pipeline: Pipeline;
  config: NodeConfig;
  controllerId: number;
  policyGroupIdBase: number;
  index: ObjectIndex;
  /** The kinds each feature declares ({@link featureKinds}). */
  declared: ReadonlyMap<Feature, ReadonlySet<string>>;
  conjunctionId(owner: string, ruleKey: string): number;
  shared(feature: string, key: string): number | undefined;
}

const NOTHING: ReadonlySet<string> = new Set();
/** Reads kept in a plain list up to this many (a linear search each), then in a set. */
const DEPS_LIST_MAX = 16;

/** A FlowContext over one node state that records what each owner reads. */
export class StateReader implements FlowContext {
  readonly pipeline: Pipeline;
  readonly config: NodeConfig;
  readonly controllerId: number;
  readonly policyGroupIdBase: number;
  private owner = '';
  private feature = '';
  private kinds: ReadonlySet<string> = NOTHING;
  /** The owner's reads in order, each once: a list (an owner reads a few keys), a set past {@link DEPS_LIST_MAX}. */
  private deps: string[] = [];
  private depSet: Set<string> | undefined;

  constructor(private readonly src: ReaderSources) {
    this.pipeline = src.pipeline;
    this.config = src.config;
    this.controllerId = src.controllerId;
    this.policyGroupIdBase = src.policyGroupIdBase;
  }

  /** Computes one owner's output; returns it with the dependency keys it read. */
  compute(feature: Feature, owner: string, fn: (ctx: FlowContext) => OwnerOutput): { output: OwnerOutput; deps: string[] } {
    this.owner = owner;
    this.feature = feature.name;
    this.kinds = this.src.declared.get(feature) ?? NOTHING;
    this.deps = [];
    this.depSet = undefined;
    const output = fn(this);
    return { output, deps: this.depSet ? [...this.depSet] : this.deps };
  }

  object<K extends ObjectKind>(kind: K, key: string): ObjectOf<K> | undefined {
    this.check(kind);
    this.read(depKey(kind, key));
    return this.src.index.of(kind).get(key);
  }

  lookup<K extends ObjectKind>(kind: K, value: string): readonly ObjectOf<K>[] {
    this.check(kind);
    const index = this.src.index.indexOf(kind);
    if (index === undefined) throw new PipelineError('INVALID_FEATURE', `kind ${kind} has no index to look objects up by`, kind, this.feature);
    this.read(depKey(index, value));
    return this.src.index.lookup(index, value) as readonly ObjectOf<K>[];
  }

  podByIp(ip: string): LocalPod | undefined {
    this.check('pod');
    this.read(depKey('ip', ip));
    const pods = this.src.index.lookup('ip', ip);
    return pods[pods.length - 1] as LocalPod | undefined;
  }

  addressGroup(name: string): readonly GroupMember[] | undefined {
    return this.object('addressGroup', name)?.groupMembers;
  }

  appliedToGroup(name: string): readonly GroupMember[] | undefined {
    return this.object('appliedToGroup', name)?.groupMembers;
  }

  fqdnAddresses(pattern: string): readonly string[] | undefined {
    return this.object('fqdnAddresses', pattern);
  }

  servicePorts(ref: string): readonly ServicePortSpec[] {
    this.check('service');
    this.read(depKey('serviceRef', ref));
    return this.src.index.lookup('serviceRef', ref) as readonly ServicePortSpec[];
  }

  conjunctionId(ruleKey: string): number {
    return this.src.conjunctionId(this.owner, ruleKey);
  }

  shared(key: string): number | undefined {
    this.read(sharedKey(this.feature, key));
    return this.src.shared(this.feature, key);
  }

  /** Notes a dependency of the owner being computed. */
  private read(key: string): void {
    if (this.depSet !== undefined) {
      this.depSet.add(key);
      return;
    }
    if (this.deps.includes(key)) return;
    this.deps.push(key);
    if (this.deps.length > DEPS_LIST_MAX) this.depSet = new Set(this.deps);
  }

  /** A feature reads only what it declares: anything else would be a dependency nobody indexes. */
  private check(kind: string): void {
    if (!this.kinds.has(kind)) throw new PipelineError('INVALID_FEATURE', `feature ${this.feature} reads kind ${kind} without declaring it`, kind, `${this.feature}.kinds`);
  }
}

/** Dependency key of a shared value. */
export const sharedKey = (feature: string, key: string): string => `shared:${feature}:${key}`;

/** One owner of a feature in a state. */
export interface OwnerRun {
  owner: string;
  kind?: ObjectKind;
  run: (ctx: FlowContext) => OwnerOutput;
}

/** Every owner of a feature in a state: node-level first, then per object kind in state order. */
export function* ownersOf(feature: Feature, index: ObjectIndex): Generator<OwnerRun> {
  const node = feature.nodeFlows;
  if (node) yield { owner: ownerKey(feature.name), run: (ctx) => node(ctx) };
  for (const kind of Object.keys(feature.perObject ?? {}) as ObjectKind[]) {
    for (const [key, obj] of index.of(kind)) yield { owner: ownerKey(feature.name, kind, key), kind, run: (ctx) => runFor(feature, kind, ctx, obj) };
  }
}

/** Runs a feature's per-object function for one object. */
export function runFor(feature: Feature, kind: ObjectKind, ctx: FlowContext, obj: unknown): OwnerOutput {
  const fn = feature.perObject![kind] as (ctx: FlowContext, obj: unknown) => OwnerOutput;
  return fn(ctx, obj);
}
