// The incremental engine: cluster state in, internal policies and groups with per-node spans out,
// and for each event the per-node delta. PolicyEngine routes each event to the parts that own the
// state (inputs, member index, group index, membership, span, policies, change records); work per
// event is proportional to what it changes.
import type { ClusterGroup, ExternalEntity, Group, LabelIdentity, Namespace, Node, Pod, Service, Tier } from '@switchyard/apis/types';
import type { Logger } from '@switchyard/runtime';
import { ChangeRecorder } from './change-record';
import { ClusterInputs } from './cluster-inputs';
import type { CompiledPolicy } from './compile';
import { DeltaBuilder } from './delta';
import { sameLabels, samePolicyInput } from './equality';
import { PolicyCompilerError, PolicyValidationError } from './errors';
import { loadOrder } from './bulk-load';
import { GroupSelectorIndex } from './group-index';
import { GroupMembership } from './group-membership';
import type { GroupDef } from './leaf';
import type { LoadInput, LoadOptions } from './load-input';
import { MemberIndex, podMemberKey } from './member-index';
import { dependencyKey, kindOf, namespaceOf, objectKey, POLICY_KINDS, validateObject } from './object-kinds';
import { PolicyTable } from './policy-table';
import { QueryMemo } from './query-memo';
import { Snapshots } from './snapshot';
import { SpanCounter } from './span';
import type { GroupState, MemberKey, PolicyState } from './state';
import type { ClusterEvent, ClusterObject, ObjectKind, PolicyDelta, PolicySnapshot, RejectedObject } from './types';

export { kindOf } from './object-kinds';
export { toWatchEvents } from './delta';

/** The refusal of an object whose fields are not of the shapes its kind defines. */
function malformed(e: unknown): PolicyValidationError {
  return new PolicyValidationError('MALFORMED', 'spec', undefined, `a field is not of the shape its kind defines (${e instanceof Error ? e.message : String(e)})`);
}

/** Options of {@link PolicyEngine}. */
export interface PolicyEngineOptions {
  logger?: Logger;
}

/**
 * Incremental policy compiler. Feed it informer events with {@link PolicyEngine.apply}; each
 * call returns the per-node delta (what every affected agent must add, update, patch or delete).
 * {@link PolicyEngine.snapshot} gives the whole compiled state or one node's view of it.
 *
 * @example
 * const engine = new PolicyEngine();
 * engine.apply({ type: 'ADDED', object: namespace });
 * const delta = engine.apply({ type: 'ADDED', object: networkPolicy });
 * for (const [node, d] of delta.nodes) send(node, toWatchEvents(d));
 */
export class PolicyEngine {
  private readonly log: Logger | undefined;
  // Inputs (owned by the inputs part; read by explain and tests).
  readonly namespaces: Map<string, Namespace>;
  /** Pods by object key (`Pod/<namespace>/<name>`): a read-only view of the member index, which stores them. */
  readonly pods: ReadonlyMap<string, Pod>;
  readonly nodes: Map<string, Node>;
  readonly externalEntities: Map<string, ExternalEntity>;
  readonly services: Map<string, Service>;
  readonly tiers: Map<string, Tier>;
  readonly clusterGroups: Map<string, ClusterGroup>;
  readonly groupObjects: Map<string, Group>;
  readonly labelIdentities: Map<string, LabelIdentity>;
  /** member key -> names of groups containing it (for explain / queryEndpoint). */
  readonly memberGroups: ReadonlyMap<string, ReadonlySet<string>>;
  /** IP -> member key. */
  readonly ipOwners: Map<string, string>;
  // Compiled state.
  readonly groups: Map<string, GroupState>;
  readonly policies: Map<string, PolicyState>;
  // The parts, each owning its state.
  private readonly inputs = new ClusterInputs();
  private readonly members: MemberIndex;
  private readonly selectors = new GroupSelectorIndex();
  private readonly memo = new QueryMemo();
  private readonly changes: ChangeRecorder;
  private readonly spans: SpanCounter;
  private readonly membership: GroupMembership;
  private readonly policyTable: PolicyTable;
  private readonly deltas: DeltaBuilder;
  private readonly snapshots: Snapshots;

  constructor(options: PolicyEngineOptions = {}) {
    this.log = options.logger;
    const inputs = this.inputs;
    this.members = new MemberIndex({ inputs });
    this.changes = new ChangeRecorder({ onGroupTouched: (name) => this.memo.drop(name) });
    // Span counts read groups and policies, whose owners are built next and report to it.
    this.spans = new SpanCounter({ changes: this.changes, group: (name) => this.membership.group(name), policy: (key) => this.policyTable.get(key) });
    this.membership = new GroupMembership({ members: this.members, selectors: this.selectors, changes: this.changes, spans: this.spans });
    this.policyTable = new PolicyTable({ inputs, membership: this.membership, spans: this.spans, changes: this.changes });
    const state = { groups: this.membership.groups, policies: this.policyTable.policies };
    this.deltas = new DeltaBuilder({ state });
    this.snapshots = new Snapshots(state);
    this.namespaces = inputs.namespaces;
    this.pods = this.members.pods;
    this.nodes = inputs.nodes;
    this.externalEntities = inputs.externalEntities;
    this.services = inputs.services;
    this.tiers = inputs.tiers;
    this.clusterGroups = inputs.clusterGroups;
    this.groupObjects = inputs.groupObjects;
    this.labelIdentities = inputs.labelIdentities;
    this.memberGroups = this.membership.memberGroups;
    this.ipOwners = this.members.ipOwners;
    this.groups = this.membership.groups;
    this.policies = this.policyTable.policies;
  }

  // ------------------------------------------------------------------------------------------
  // Public API

  /** Applies one event and returns what every affected node must change. */
  apply(event: ClusterEvent): PolicyDelta {
    if (!event || !event.object || !['ADDED', 'MODIFIED', 'DELETED'].includes(event.type)) {
      throw new PolicyCompilerError('INVALID_EVENT', 'event', event, 'event must have type ADDED, MODIFIED or DELETED and an object');
    }
    const kind = kindOf(event.object);
    const key = objectKey(kind, event.object);
    this.changes.discard();
    let rejected: RejectedObject | undefined;
    if (event.type === 'DELETED') {
      this.inputs.setRefused(key, undefined);
      this.change(kind, key, event.object, undefined);
    } else rejected = this.admit(kind, key, event.object);
    const nodes = this.deltas.build(this.changes.take());
    return rejected ? { nodes, rejected } : { nodes };
  }

  /**
   * Bulk initial sync (or resync): adds or replaces every object in one pass, in dependency order
   * (tiers, groups, Namespaces and Nodes, other objects, then policies), and compiles each policy
   * and group once, without building per-event deltas. Returns the objects refused.
   *
   * `input` is an array of objects, a Kubernetes List as a LIST request answers it
   * (`{ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicyList', items }`), or an array
   * mixing both. An item without `kind` / `apiVersion` takes them from its List (the List's kind
   * minus `List`), else from `options.kind` / `options.apiVersion`. An object whose kind is still
   * unknown is refused (kind `''`, one MISSING_FIELD error whose path is its place in the input,
   * e.g. `items[3].kind`, and whose message names it as `namespace/name`); it is not kept in
   * {@link PolicyEngine.rejected}, which is keyed by kind.
   *
   * No delta is returned: serve each node its {@link PolicyEngine.snapshot} afterwards (agents
   * start with a full list anyway). Use {@link PolicyEngine.apply} for events after that.
   *
   * @throws PolicyCompilerError UNKNOWN_KIND for a kind the engine does not handle (e.g. a
   * ConfigMap), MISSING_NAME, INVALID_EVENT for a non-object; nothing is loaded then.
   */
  load(input: LoadInput, options: LoadOptions = {}): RejectedObject[] {
    const rejected: RejectedObject[] = [];
    const list = loadOrder(input, options, (r, where) => {
      rejected.push(r);
      this.log?.warn({ where, errors: r.errors.map((e) => e.message) }, 'object rejected');
    });
    let objects = 0;
    this.changes.withoutRecording(() => {
      // The whole input is ordered (and a kind it cannot load throws) before the first object is admitted.
      for (const bucket of list) {
        for (let i = 0; i < bucket.length; i += 3) {
          objects++;
          const r = this.admit(bucket[i] as ObjectKind, bucket[i + 1] as string, bucket[i + 2] as ClusterObject);
          if (r) rejected.push(r);
        }
      }
    });
    this.log?.debug({ objects, rejected: rejected.length }, 'bulk load done');
    return rejected;
  }

  /**
   * Memo slot of a shared group for read-side queries (queryEndpoint): computed once and kept
   * until the group or a policy using it changes.
   * @internal
   */
  groupMemo<T>(group: string, slot: string, compute: () => T): T {
    return this.memo.get(group, slot, compute);
  }

  /** Applies events in order, merging nothing: returns each delta. */
  applyAll(events: Iterable<ClusterEvent>): PolicyDelta[] {
    const out: PolicyDelta[] = [];
    for (const e of events) out.push(this.apply(e));
    return out;
  }

  /** Objects currently refused by validation. */
  rejected(): RejectedObject[] {
    return this.inputs.refusedObjects();
  }

  /**
   * The compiled state: everything (no node), or what `node` receives (policies and address
   * groups whose span has the node; applied-to groups reduced to the node's members).
   */
  snapshot(node?: string): PolicySnapshot {
    return this.snapshots.snapshot(node);
  }

  /** Span (node names) of a policy (by uid), address group or applied-to group. */
  spanOf(kind: 'NetworkPolicy' | 'AddressGroup' | 'AppliedToGroup', name: string): string[] {
    return this.snapshots.spanOf(kind, name);
  }

  /** Group definition (leaves) of a shared group. */
  groupDefinition(name: string): GroupDef | undefined {
    return this.membership.group(name)?.def;
  }

  /** Compiled policies, with their internal state, for the evaluator. */
  compiledPolicies(): Iterable<CompiledPolicy> {
    return [...this.policies.values()].map((p) => p.compiled);
  }

  /** Policy keys using a group as applied-to (`applied`) or address group. */
  groupUsers(name: string, role: 'applied' | 'address'): ReadonlySet<string> {
    const g = this.membership.group(name);
    return (role === 'applied' ? g?.appliedUsers : g?.addrUsers) ?? new Set();
  }

  /** Compiled policy by engine key. */
  policyByKey(key: string): CompiledPolicy | undefined {
    return this.policyTable.get(key)?.compiled;
  }

  // ------------------------------------------------------------------------------------------
  // Event routing

  /** Validates an added or modified object: applies it, or refuses it (its previous version stays in force). */
  private admit(kind: ObjectKind, key: string, obj: ClusterObject): RejectedObject | undefined {
    let errors: PolicyValidationError[];
    try {
      errors = validateObject(kind, obj, this.inputs.validation);
    } catch (e) {
      // The checks read the fields they expect; a value of another shape (a number where a list
      // belongs, a list entry that is not an object) can make them throw. That is a refusal too.
      if (e instanceof PolicyCompilerError) throw e;
      errors = [malformed(e)];
    }
    if (errors.length > 0) return this.refuse(kind, key, obj, errors);
    const prev = this.store(kind, key, obj);
    try {
      this.changed(kind, key, obj, prev, obj);
    } catch (e) {
      if (e instanceof PolicyCompilerError) throw e;
      // Valid as far as the checks go, yet not compilable: refused like an invalid object, and
      // the previous version goes back in force.
      this.change(kind, key, obj, prev);
      return this.refuse(kind, key, obj, [malformed(e)]);
    }
    this.inputs.setRefused(key, undefined);
    return undefined;
  }

  private refuse(kind: ObjectKind, key: string, obj: ClusterObject, errors: PolicyValidationError[]): RejectedObject {
    const rejected: RejectedObject = { kind, namespace: namespaceOf(kind, obj), name: obj.metadata.name ?? '', errors };
    this.inputs.setRefused(key, rejected);
    this.log?.warn({ kind, key, errors: errors.map((e) => e.message) }, 'object rejected');
    return rejected;
  }

  /** Stores an object's new version (`next` undefined: deleted) and updates what depends on it. */
  private change(kind: ObjectKind, key: string, obj: ClusterObject, next: ClusterObject | undefined): void {
    this.changed(kind, key, obj, this.store(kind, key, next), next);
  }

  /**
   * Stores an object's new version (undefined: forgets it) and returns the version it replaces.
   * A pod is stored by the member index when {@link PolicyEngine.changed} hands it over (one
   * lookup of its member key finds its slot), a policy with its compiled record by the policy
   * table: here their stored versions are only read.
   */
  private store(kind: ObjectKind, key: string, next: ClusterObject | undefined): ClusterObject | undefined {
    if (kind === 'Pod') return next ? this.members.storedPod(podMemberKey(next as Pod)) : this.members.pods.get(key);
    if (POLICY_KINDS.has(kind)) return this.policyTable.input(key);
    return this.inputs.put(kind, key, next);
  }

  /** Updates what depends on an object whose stored version went from `prev` to `next`. */
  private changed(kind: ObjectKind, key: string, obj: ClusterObject, prev: ClusterObject | undefined, next: ClusterObject | undefined): void {
    switch (kind) {
      case 'Pod':
        return this.podChanged(prev as Pod | undefined, next as Pod | undefined);
      case 'Namespace':
        return this.namespaceChanged(key.slice('Namespace/'.length), prev as Namespace | undefined, next as Namespace | undefined);
      case 'Node':
        return this.memberChanged(this.members.setNode(key.slice('Node/'.length), prev as Node | undefined, next as Node | undefined), this.selectors.nodeGroups(), next);
      case 'ExternalEntity':
        return this.memberChanged(this.members.setExternalEntity(prev as ExternalEntity | undefined, next as ExternalEntity | undefined), this.selectors.externalEntityGroups(), next);
    }
    const dep = dependencyKey(kind, obj);
    if (dep !== undefined) return this.policyTable.resync(dep);
    if (!POLICY_KINDS.has(kind)) return;
    // A metadata-only update (labels, annotations, status) compiles to the same policy.
    if (next && prev && samePolicyInput(prev, next)) return;
    this.policyTable.sync(key, next ?? null);
  }

  private podChanged(old: Pod | undefined, pod: Pod | undefined): void {
    // The deletion of a pod never stored: nothing to forget.
    if (!old && !pod) return;
    const change = this.members.setPod(old, pod);
    // No group yet (a bulk load adds pods before policies): nothing to evaluate.
    if (!change || this.membership.size === 0) return;
    for (const g of this.selectors.podGroups(change.namespace, change.labelSets)) this.membership.evaluate(g, change.member);
  }

  /** An ExternalEntity or Node changed: the groups selecting that kind decide again. */
  private memberChanged(mk: MemberKey, groups: readonly string[], next: ClusterObject | undefined): void {
    for (const g of groups) this.membership.evaluate(g, mk);
    if (!next) this.members.forget(mk);
  }

  private namespaceChanged(name: string, old: Namespace | undefined, ns: Namespace | undefined): void {
    if (old && ns && sameLabels(old.metadata.labels, ns.metadata.labels)) return;
    // No group yet (a bulk load adds Namespaces before policies): none to look up.
    const groups = this.membership.size === 0 ? [] : this.selectors.namespaceGroups(name, [old, ns]);
    const members = this.members.namespaceChanged(name);
    for (const g of groups) for (const m of members) this.membership.evaluate(g, m);
    this.policyTable.resync('ns:*');
  }
}
