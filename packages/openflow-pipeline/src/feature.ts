/**
 * The feature interface: what a pipeline feature module declares (its tables, its node-level
 * flows, its flows per owning object, the miss flows it replaces) and the read-only view of the
 * node state it computes them from. Every read of another object goes through {@link FlowContext},
 * which is how the incremental pipeline learns what an owner's flows depend on.
 */
import type { Flow } from '@switchyard/openflow/codec';
import type { Group } from './format';
import type { ObjectKind, ObjectOf } from './objects';
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
 * flows are computed again.
 */
export interface FlowContext {
  readonly pipeline: Pipeline;
  readonly config: NodeConfig;
  /** Controller connection id in packet-in actions (Antrea: 62373). */
  readonly controllerId: number;
  /** First group id of NetworkPolicy logging groups. */
  readonly policyGroupIdBase: number;
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
 * pipeline is the list of enabled features ({@link nodeFeatures}).
 */
export interface Feature {
  /** Name, used in owner keys (`<feature>/<kind>:<key>`). */
  readonly name: string;
  /** Whether the feature is on under this configuration (default: always). */
  enabled?(cfg: NodeConfig): boolean;
  /** The declared tables ({@link TABLE_DECLS}) the feature needs. */
  tables(cfg: NodeConfig): TableName[];
  /** Tables whose priority-0 catch-all the feature emits itself (the pipeline's miss flow is left out). */
  readonly ownsMiss?: readonly TableName[];
  /**
   * Match flows of different owners with the same identity whose actions are all `conjunction`
   * carry the union of those actions (Antrea shares conjunctive match flows between rules). The
   * feature gives all its conjunctive match flows one cookie.
   */
  readonly mergesConjunctions?: boolean;
  /** Flows that exist once per node (a function of the pipeline and the configuration only). */
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
}

/** The tables, each once, that a list of features needs. */
export function featureTables(features: readonly Feature[], cfg: NodeConfig): TableName[] {
  return [...new Set(features.flatMap((f) => f.tables(cfg)))];
}
