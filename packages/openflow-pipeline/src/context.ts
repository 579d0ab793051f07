/**
 * The FlowContext features compute with: reads served from an {@link ObjectIndex}, each one noted
 * as a dependency of the owner being computed; conjunction ids and shared values come from the
 * caller (a fixed map for the full computation, the incremental pipeline's allocator otherwise).
 */
import type { Feature, FlowContext, OwnerOutput } from './feature';
import { depKey, NODE_KEY, type ObjectIndex, type ObjectKind } from './objects';
import type { GroupMember, LocalPod, NodeConfig, ServicePortSpec } from './state';
import type { Pipeline } from './tables';

/** Key of an owner: `<feature>/<kind>:<key>`, or `<feature>/node` for node-level flows. */
export const ownerKey = (feature: string, kind?: ObjectKind, key?: string): string =>
  kind === undefined ? `${feature}/${NODE_KEY}` : `${feature}/${kind}:${key}`;

/** Where ids and shared values come from. */
export interface ReaderSources {
  pipeline: Pipeline;
  config: NodeConfig;
  controllerId: number;
  policyGroupIdBase: number;
  index: ObjectIndex;
  conjunctionId(owner: string, ruleKey: string): number;
  shared(feature: string, key: string): number | undefined;
}

/** A FlowContext over one node state that records what each owner reads. */
export class StateReader implements FlowContext {
  readonly pipeline: Pipeline;
  readonly config: NodeConfig;
  readonly controllerId: number;
  readonly policyGroupIdBase: number;
  private owner = '';
  private feature = '';
  private deps = new Set<string>();

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
    this.deps = new Set();
    const output = fn(this);
    return { output, deps: [...this.deps] };
  }

  podByIp(ip: string): LocalPod | undefined {
    this.deps.add(depKey('ip', ip));
    return this.src.index.podsByIp.get(ip);
  }

  addressGroup(name: string): readonly GroupMember[] | undefined {
    this.deps.add(depKey('addressGroup', name));
    return this.src.index.members('addressGroup', name);
  }

  appliedToGroup(name: string): readonly GroupMember[] | undefined {
    this.deps.add(depKey('appliedToGroup', name));
    return this.src.index.members('appliedToGroup', name);
  }

  fqdnAddresses(pattern: string): readonly string[] | undefined {
    this.deps.add(depKey('fqdnAddresses', pattern));
    return this.src.index.of('fqdnAddresses').get(pattern);
  }

  servicePorts(ref: string): readonly ServicePortSpec[] {
    this.deps.add(depKey('serviceRef', ref));
    return this.src.index.servicesByRef.get(ref) ?? [];
  }

  conjunctionId(ruleKey: string): number {
    return this.src.conjunctionId(this.owner, ruleKey);
  }

  shared(key: string): number | undefined {
    this.deps.add(sharedKey(this.feature, key));
    return this.src.shared(this.feature, key);
  }
}

/** Dependency key of a shared value. */
export const sharedKey = (feature: string, key: string): string => `shared:${feature}:${key}`;

/** Every owner of a feature in a state: node-level first, then per object kind in state order. */
export function* ownersOf(feature: Feature, index: ObjectIndex): Generator<{ owner: string; kind?: ObjectKind; run: (ctx: FlowContext) => OwnerOutput }> {
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
