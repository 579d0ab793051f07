/**
 * The feature interface: what a pipeline feature module declares (its tables, the object kinds
 * it reads from the state, its own configuration, its node-level flows, its flows per owning
 * object, the miss flows it replaces) and the read-only view of the node state it computes them
 * from. Every read of another object goes through {@link FlowContext}, which is how the
 * incremental pipeline learns what an owner's flows depend on.
 */
import type { Flow } from '@switchyard/openflow/codec';
import { PipelineError } from './errors';
import type { Group } from './format';
import type { ObjectKind, ObjectKindDecl, ObjectOf } from './objects';
import type { GroupMember, LocalPod, NodeConfig, NodeState, ServicePortSpec } from './state';
import type { Pipeline, TableName } from './tables';

/** Flows and groups of one owner (an object, or the feature's node-level part). */
export interface OwnerOutput {
  flows: Flow[];
  groups?: Group[];
}

/**
 * What a feature may read while computing an owner's flows. Reads of objects other than the
 * owner itself are recorded as the owner's dependencies: when one of them changes, the owner's
 * flows are computed again. A feature reads only the kinds it declares ({@link Feature.kinds}).
 */
export interface FlowContext {
  readonly pipeline: Pipeline;
  /** Node facts (gateway, pod CIDR, traffic mode, cookie round); a feature's own settings are its `config`. */
  readonly config: NodeConfig;
  /** Controller connection id in packet-in actions (Antrea: 62373). */
  readonly controllerId: number;
  /** First group id of NetworkPolicy logging groups. */
  readonly policyGroupIdBase: number;
  /** An object by kind and key. Dependency `<kind>:<key>`. */
  object<K extends ObjectKind>(kind: K, key: string): ObjectOf<K> | undefined;
  /** Objects of a kind found under `value` by the kind's index, in state order. Dependency `<index>:<value>`. */
  lookup<K extends ObjectKind>(kind: K, value: string): readonly ObjectOf<K>[];
  /** The local pod holding `ip` (the last in state order when several claim it). Dependency `ip:<ip>`. */
  podByIp(ip: string): LocalPod | undefined;
  /** Members of an address group. Dependency `addressGroup:<name>`. */
  addressGroup(name: string): readonly GroupMember[] | undefined;
  /** Members of an applied-to group. Dependency `appliedToGroup:<name>`. */
  appliedToGroup(name: string): readonly GroupMember[] | undefined;
  /** Addresses learned for an FQDN pattern. Dependency `fqdnAddresses:<pattern>`. */
  fqdnAddresses(pattern: string): readonly string[] | undefined;
  /** The ports of a Service by its `<namespace>/<name>` (empty when it has none here). Dependency `serviceRef:<namespace>/<name>`. */
  servicePorts(ref: string): readonly ServicePortSpec[];
  /**
   * The conjunction id of a rule key. Ids of keys an owner keeps asking for stay stable; keys it
   * stops asking for are released after the change.
   */
  conjunctionId(ruleKey: string): number;
  /** A value the feature computes across all its objects ({@link Feature.shared}). Dependency `shared:<feature>:<key>`. */
  shared(key: string): number | undefined;
}

/** Per-object flow functions of a feature, by the kind of object that owns the flows. */
export type PerObjectFlows = { [K in ObjectKind]?: (ctx: FlowContext, obj: ObjectOf<K>) => OwnerOutput };

/**
 * A pipeline feature (Antrea's `feature` interface): one module per feature, and a node's
 * pipeline is a list of features ({@link podNodeFeatures}, or a list of the caller's own). A
 * feature may also implement optional capabilities ({@link Traceable}).
 */
export interface Feature {
  /** Name, used in owner keys (`<feature>/<kind>:<key>`); unique within a list. */
  readonly name: string;
  /**
   * The feature's own settings (plain data: its factory's options). NodePipeline takes two
   * features of one name with equal `config` for the same feature, so a list built again from the
   * same options recomputes nothing; without `config`, only the same object is the same feature.
   */
  readonly config?: unknown;
  /**
   * Whether the feature is on under this configuration (default: always). Only the deprecated
   * feature constants (`serviceFeature`, `fqdnFeature`, ...) use it, reading NodeConfig's flags.
   */
  enabled?(cfg: NodeConfig): boolean;
  /** The declared tables ({@link TABLE_DECLS}) the feature needs. */
  tables(cfg: NodeConfig): TableName[];
  /**
   * The object kinds the feature owns flows of ({@link perObject}) or reads through the context:
   * its slice of the node state. A kind several features declare is one declaration object.
   */
  readonly kinds?: readonly ObjectKindDecl[];
  /** Tables whose priority-0 catch-all the feature emits itself (the pipeline's miss flow is left out). */
  readonly ownsMiss?: readonly TableName[];
  /**
   * Match flows of different owners with the same identity whose actions are all `conjunction`
   * carry the union of those actions (Antrea shares conjunctive match flows between rules). The
   * feature gives all its conjunctive match flows one cookie.
   */
  readonly mergesConjunctions?: boolean;
  /** Flows that exist once per node (a function of the pipeline, the configuration and what it reads). */
  nodeFlows?(ctx: FlowContext): OwnerOutput;
  /** Flows per owning object, by object kind. */
  readonly perObject?: PerObjectFlows;
  /**
   * Values computed across all of the node's objects that owners read through
   * {@link FlowContext.shared} (NetworkPolicy: the OpenFlow priorities of Antrea-native rules, which
   * depend on every rule's precedence). Computed again when an object of `sharedInputs` changes.
   */
  shared?(state: NodeState): ReadonlyMap<string, number>;
  /** Object kinds {@link shared} reads. */
  readonly sharedInputs?: readonly ObjectKind[];
  /**
   * Rule keys the full computation assigns conjunction ids to, in this order, when the state
   * carries no `conjIds` (NetworkPolicy: {@link policyRuleKeys}); a key not listed gets the next
   * free id when an owner first asks for it.
   */
  conjunctionKeys?(state: NodeState): string[];
}

/** The tables, each once, that a list of features needs. */
export function featureTables(features: readonly Feature[], cfg: NodeConfig): TableName[] {
  return [...new Set(features.flatMap((f) => f.tables(cfg)))];
}

/** The features of a list that are on under `cfg` (only deprecated constants can be off). */
export function enabledFeatures(features: readonly Feature[], cfg: NodeConfig): Feature[] {
  return features.filter((f) => f.enabled?.(cfg) ?? true);
}

/** A checked feature list: the kinds it declares, once each, and the kinds each feature may read. */
export interface FeatureKinds {
  kinds: ObjectKindDecl[];
  declared: Map<Feature, ReadonlySet<string>>;
}

/**
 * Checks a feature list and collects its kinds: names are unique, a kind several features
 * declare is one declaration, index names are unique, and every kind a feature owns flows of or
 * computes shared values from is declared by it. Errors are `INVALID_FEATURE`.
 */
export function featureKinds(features: readonly Feature[]): FeatureKinds {
  const byName = new Map<string, ObjectKindDecl>();
  const indexes = new Map<string, string>();
  const names = new Set<string>();
  const declared = new Map<Feature, ReadonlySet<string>>();
  for (const f of features) {
    if (names.has(f.name)) throw new PipelineError('INVALID_FEATURE', `two features are named ${f.name}`, f.name, 'features');
    names.add(f.name);
    const own = new Set<string>();
    for (const k of f.kinds ?? []) {
      const known = byName.get(k.name);
      if (known && known !== k) throw new PipelineError('INVALID_FEATURE', `kind ${k.name} is declared twice, differently`, k.name, `${f.name}.kinds`);
      if (k.index && indexes.get(k.index.name) !== undefined && indexes.get(k.index.name) !== k.name) {
        throw new PipelineError('INVALID_FEATURE', `index ${k.index.name} belongs to kind ${indexes.get(k.index.name)}`, k.index.name, `${f.name}.kinds`);
      }
      byName.set(k.name, k);
      if (k.index) indexes.set(k.index.name, k.name);
      own.add(k.name);
    }
    for (const k of [...Object.keys(f.perObject ?? {}), ...(f.sharedInputs ?? [])]) {
      if (!own.has(k)) throw new PipelineError('INVALID_FEATURE', `feature ${f.name} uses kind ${k} without declaring it`, k, `${f.name}.kinds`);
    }
    declared.set(f, own);
  }
  return { kinds: [...byName.values()], declared };
}
