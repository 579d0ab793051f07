// The incremental engine: cluster state in, internal policies and groups with per-node spans out,
// and for each event the per-node delta. Work per event is proportional to what it changes.
import type {
  AdminNetworkPolicy,
  AntreaNetworkPolicy,
  BaselineAdminNetworkPolicy,
  ClusterGroup,
  ClusterNetworkPolicy,
  ExternalEntity,
  Group,
  GroupSpec,
  K8sNetworkPolicy,
  LabelIdentity,
  Namespace,
  Node,
  Pod,
  Service,
  Tier,
  controlplane,
} from '@switchyard/apis/types';
import { compileAdminPolicy, compileAntreaPolicy, compileK8sNetworkPolicy, type CompileContext, type CompiledPolicy } from './compile';
import { PolicyCompilerError, type PolicyValidationError } from './errors';
import { describeObject, loadItems, type LoadInput, type LoadOptions } from './load-input';
import { leafMatches, namespaceLabels, type GroupDef, type Leaf, type MemberFacts } from './leaf';
import { MultiIndex } from './multi-index';
import { indexKeysOf, matchesNormalized } from './selector';
import type { ClusterEvent, ClusterObject, NodeDelta, ObjectKind, PolicyDelta, PolicySnapshot, RejectedObject } from './types';
import { STATIC_TIERS, validateAdminPolicy, validateAntreaPolicy, validateGroup, validateK8sNetworkPolicy, validateTier, type ValidationContext } from './validate';

/** pino-compatible logger; the engine is silent without one. */
export interface Logger {
  debug(obj: unknown, msg?: string): void;
  info(obj: unknown, msg?: string): void;
  warn(obj: unknown, msg?: string): void;
  error(obj: unknown, msg?: string): void;
}

/** Options of {@link PolicyEngine}. */
export interface PolicyEngineOptions {
  logger?: Logger;
}

const POLICY_KINDS: ReadonlySet<ObjectKind> = new Set(['K8sNetworkPolicy', 'ClusterNetworkPolicy', 'AntreaNetworkPolicy', 'AdminNetworkPolicy', 'BaselineAdminNetworkPolicy']);

/**
 * Engine kind of an input object (the two `NetworkPolicy` kinds are told apart by apiVersion; no
 * apiVersion means the Kubernetes one). `where` names the object's place in errors.
 * @throws PolicyCompilerError UNKNOWN_KIND naming the object, its kind and apiVersion.
 */
export function kindOf(obj: ClusterObject, where = 'object'): ObjectKind {
  const kind = obj.kind as string | undefined;
  const api = (obj.apiVersion as string | undefined) ?? '';
  if (kind === 'NetworkPolicy') return api.startsWith('crd.antrea.io') ? 'AntreaNetworkPolicy' : 'K8sNetworkPolicy';
  const known: readonly string[] = ['Namespace', 'Pod', 'Node', 'Service', 'Endpoints', 'EndpointSlice', 'ServiceAccount', 'ExternalEntity', 'ExternalNode', 'Tier', 'ClusterGroup', 'Group', 'ClusterNetworkPolicy', 'AdminNetworkPolicy', 'BaselineAdminNetworkPolicy', 'LabelIdentity'];
  if (kind && known.includes(kind)) return kind as ObjectKind;
  const what = kind === undefined || kind === '' ? 'no kind' : `unsupported kind ${kind}${api ? ` (${api})` : ''}`;
  throw new PolicyCompilerError('UNKNOWN_KIND', `${where}.kind`, kind, `${describeObject(obj)} has ${what}`);
}

const CLUSTER_SCOPED: ReadonlySet<ObjectKind> = new Set(['Namespace', 'Node', 'ExternalNode', 'Tier', 'ClusterGroup', 'ClusterNetworkPolicy', 'AdminNetworkPolicy', 'BaselineAdminNetworkPolicy', 'LabelIdentity']);

function objectKey(kind: ObjectKind, obj: ClusterObject, where?: string): string {
  const name = obj.metadata?.name;
  if (!name) {
    throw new PolicyCompilerError('MISSING_NAME', where ? `${where}.metadata.name` : 'metadata.name', name, `${kind} without metadata.name`);
  }
  return CLUSTER_SCOPED.has(kind) ? `${kind}/${name}` : `${kind}/${obj.metadata.namespace ?? 'default'}/${name}`;
}

/** Member key: `p:ns/name`, `e:ns/name` or `n:name`. */
type MemberKey = string;

/** A member as a group holds it: the controlplane object and the node it is on ('' for none). */
interface MemberEntry {
  readonly member: controlplane.GroupMember;
  readonly node: string;
}

interface GroupState {
  def: GroupDef;
  members: Map<MemberKey, MemberEntry>;
  byNode: Map<string, Map<MemberKey, controlplane.GroupMember>>;
  /** Policy keys using the group; {@link NO_USERS} until the first one (most groups have one role). */
  addrUsers: Set<string>;
  appliedUsers: Set<string>;
  /** node -> number of policies using this address group whose span has the node; {@link NO_SPAN} until used. */
  addrSpan: Map<string, number>;
  indexKeys: string[];
}

// Shared empty placeholders: replaced by a group's own collection on first write, never written.
const NO_USERS: Set<string> = new Set();
/** Pods a Namespace needs before it gets its own label index (see PolicyEngine.nsLabelIndex). */
const NS_LABEL_INDEX_MIN = 32;
const NO_SPAN: Map<string, number> = new Map();

interface PolicyState {
  key: string;
  compiled: CompiledPolicy;
  /** node -> number of the policy's applied-to groups with members there. */
  span: Map<string, number>;
}

/**
 * What a group looked like when the current event first touched it. Spans are copied lazily,
 * right before their first change, so touching a group costs O(1) however wide its span is.
 */
interface TxGroup {
  g: GroupState;
  wasAddr: boolean;
  wasApplied: boolean;
  /** Address-group span nodes whose presence changed, with their presence before the event. */
  addrChanges: SpanChanges;
  /** Same for the applied-to span (nodes with members). */
  appliedChanges: SpanChanges;
  /** Members as they were before the event (null: absent); recorded only for groups nodes already had. */
  preMembers: Map<MemberKey, { m: controlplane.GroupMember; node: string } | null>;
}
interface TxPolicy {
  /** The policy's state object at the start of the event (undefined: it did not exist). */
  state: PolicyState | undefined;
  pre: controlplane.NetworkPolicy | undefined;
  spanChanges: SpanChanges;
}

/**
 * Nodes whose presence in a span changed during an event, mapped to their presence before it
 * (set on the first change only). Recording changes instead of copying spans keeps touching a
 * group or policy O(1) however many nodes it spans.
 */
type SpanChanges = Map<string, boolean>;

function noteSpan(changes: SpanChanges, node: string, presentBefore: boolean): void {
  if (!changes.has(node)) changes.set(node, presentBefore);
}

/** The span before the event, from the current span and the recorded changes. */
function preSpan(current: ReadonlyMap<string, unknown>, changes: SpanChanges): string[] {
  const out: string[] = [];
  for (const n of current.keys()) if (changes.get(n) ?? true) out.push(n);
  for (const [n, before] of changes) if (before && !current.has(n)) out.push(n);
  return out;
}

/** Derived facts of a member, cached per member key until the member or its Namespace changes. */
interface MemberInfo extends MemberEntry {
  facts: MemberFacts;
}

/** A pod and its member facts (undefined: not computed yet; null: not selectable). */
interface PodSlot {
  readonly pod: Pod;
  info: MemberInfo | null | undefined;
}

function podIps(pod: Pod): string[] {
  return pod.status?.podIPs?.map((x) => x.ip) ?? (pod.status?.podIP ? [pod.status.podIP] : []);
}

function emptyNodeDelta(): NodeDelta {
  return {
    networkPolicies: { added: [], updated: [], patched: [], deleted: [] },
    addressGroups: { added: [], updated: [], patched: [], deleted: [] },
    appliedToGroups: { added: [], updated: [], patched: [], deleted: [] },
  };
}

/** Structural equality of plain JSON-like data (no cycles), without building strings. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    if (!Object.prototype.hasOwnProperty.call(b, k)) return false;
    if (!deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

const sameMember = (a: controlplane.GroupMember, b: controlplane.GroupMember): boolean => deepEqual(a, b);

/** Same labels (order-insensitive); absent and empty are the same. */
function sameLabels(a: Readonly<Record<string, string>> | undefined, b: Readonly<Record<string, string>> | undefined): boolean {
  const ka = a ? Object.keys(a) : [];
  const kb = b ? Object.keys(b) : [];
  if (ka.length !== kb.length) return false;
  for (const k of ka) if ((a as Record<string, string>)[k] !== b?.[k]) return false;
  return true;
}

/** Order of a bulk {@link PolicyEngine.load}: what policies reference comes before them. */
function loadRank(kind: ObjectKind): number {
  if (kind === 'Tier') return 0;
  if (kind === 'ClusterGroup' || kind === 'Group') return 1;
  if (kind === 'Namespace' || kind === 'Node') return 2;
  return POLICY_KINDS.has(kind) ? 4 : 3;
}

/** Same inputs to compilation: uid, name, namespace, generation and spec. */
function samePolicyInput(a: ClusterObject, b: ClusterObject): boolean {
  return (
    a.metadata.uid === b.metadata.uid &&
    a.metadata.name === b.metadata.name &&
    a.metadata.namespace === b.metadata.namespace &&
    a.metadata.generation === b.metadata.generation &&
    deepEqual((a as { spec?: unknown }).spec, (b as { spec?: unknown }).spec)
  );
}


function allMembers(g: GroupState): controlplane.GroupMember[] {
  const out: controlplane.GroupMember[] = [];
  for (const e of g.members.values()) out.push(e.member);
  return sortMembers(out);
}

const byName = <T extends { name: string }>(a: T, b: T): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

function memberSortKey(m: controlplane.GroupMember): string {
  return m.pod ? `p:${m.pod.namespace}/${m.pod.name}` : m.externalEntity ? `e:${m.externalEntity.namespace}/${m.externalEntity.name}` : m.node ? `n:${m.node.name}` : `i:${m.ips.join(',')}`;
}
function sortMembers(ms: Iterable<controlplane.GroupMember>): controlplane.GroupMember[] {
  return [...ms].sort((a, b) => (memberSortKey(a) < memberSortKey(b) ? -1 : 1));
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
  // Inputs.
  readonly namespaces = new Map<string, Namespace>();
  readonly pods = new Map<string, Pod>();
  readonly nodes = new Map<string, Node>();
  readonly externalEntities = new Map<string, ExternalEntity>();
  readonly services = new Map<string, Service>();
  readonly tiers = new Map<string, Tier>();
  readonly clusterGroups = new Map<string, ClusterGroup>();
  readonly groupObjects = new Map<string, Group>();
  readonly labelIdentities = new Map<string, LabelIdentity>();
  private readonly others = new Map<string, ClusterObject>();
  private readonly policyObjects = new Map<string, { kind: ObjectKind; obj: ClusterObject }>();
  private readonly rejectedObjects = new Map<string, RejectedObject>();
  // Indexes.
  // Pod indexes hold member keys (`p:ns/name`), so candidates need no string building.
  private readonly podsByNs = new MultiIndex<MemberKey>();
  /** `key=value` -> pod member keys, cluster-wide; built on first use by a Namespace-less selector. */
  private podsByLabel: MultiIndex<MemberKey> | undefined;
  /** `ns|key=value` -> pod keys: candidates of namespaced selectors without scanning the Namespace. */
  /**
   * Per-Namespace `key=value` -> pod member keys, only for Namespaces that grew past
   * {@link NS_LABEL_INDEX_MIN} pods: in small ones scanning the Namespace's pods is cheaper than
   * keeping an index entry per label.
   */
  private readonly nsLabelIndex = new Map<string, MultiIndex<MemberKey>>();
  /** Cached facts of ExternalEntity and Node members (null: not selectable). Pods keep theirs in {@link PodSlot}. */
  private readonly infoCache = new Map<MemberKey, MemberInfo | null>();
  /** Pods by member key with their cached facts: one lookup serves both (this is the hottest map). */
  private readonly podOf = new Map<MemberKey, PodSlot>();
  private readonly nsLabelCache = new Map<string, Record<string, string>>();
  /** Per-group memo for queries (see {@link PolicyEngine.groupMemo}); dropped when the group is touched. */
  private readonly memo = new Map<string, Map<string, unknown>>();
  /** True during {@link PolicyEngine.load}: no per-event transaction is recorded. */
  private bulk = false;
  private readonly eesByNs = new MultiIndex<string>();
  /** Selector index key (see leafIndexKeys) -> names of groups that could select an object under it. */
  private readonly groupIndex = new MultiIndex<string>();
  /** Dependency key (`cg:x`, `ns:*`, ...) -> keys of the policies that read it when compiled. */
  private readonly deps = new MultiIndex<string>();
  /** member key -> names of groups containing it (for explain / queryEndpoint). */
  readonly memberGroups = new Map<MemberKey, Set<string>>();
  /** IP -> member key. */
  readonly ipOwners = new Map<string, MemberKey>();
  // Compiled state.
  readonly groups = new Map<string, GroupState>();
  readonly policies = new Map<string, PolicyState>();
  // Per-apply transaction.
  private txGroups = new Map<string, TxGroup>();
  private txPolicies = new Map<string, TxPolicy>();

  constructor(options: PolicyEngineOptions = {}) {
    this.log = options.logger;
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
    this.txGroups = new Map();
    this.txPolicies = new Map();
    let rejected: RejectedObject | undefined;
    if (event.type === 'DELETED') {
      this.rejectedObjects.delete(key);
      this.remove(kind, key, event.object);
    } else {
      const errors = this.validate(kind, event.object);
      if (errors.length > 0) {
        rejected = { kind, namespace: CLUSTER_SCOPED.has(kind) ? '' : (event.object.metadata.namespace ?? 'default'), name: event.object.metadata.name ?? '', errors };
        this.rejectedObjects.set(key, rejected);
        this.log?.warn({ kind, key, errors: errors.map((e) => e.message) }, 'object rejected');
      } else {
        this.rejectedObjects.delete(key);
        this.upsert(kind, key, event.object);
      }
    }
    const nodes = this.buildDelta();
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
    // Bucketed by dependency rank (a stable counting sort: input order kept within a rank).
    const buckets: { kind: ObjectKind; key: string; obj: ClusterObject }[][] = [[], [], [], [], []];
    for (const { obj, where, error } of loadItems(input, options)) {
      if (error) {
        rejected.push({ kind: '', namespace: obj.metadata?.namespace ?? '', name: obj.metadata?.name ?? '', errors: [error] });
        this.log?.warn({ where, errors: [error.message] }, 'object rejected');
        continue;
      }
      const kind = kindOf(obj, where);
      (buckets[loadRank(kind)] as { kind: ObjectKind; key: string; obj: ClusterObject }[]).push({ kind, key: objectKey(kind, obj, where), obj });
    }
    const list = buckets.flat();
    this.bulk = true;
    try {
      for (const { kind, key, obj } of list) {
        const errors = this.validate(kind, obj);
        if (errors.length > 0) {
          const r: RejectedObject = { kind, namespace: CLUSTER_SCOPED.has(kind) ? '' : (obj.metadata.namespace ?? 'default'), name: obj.metadata.name ?? '', errors };
          this.rejectedObjects.set(key, r);
          rejected.push(r);
          this.log?.warn({ kind, key, errors: errors.map((e) => e.message) }, 'object rejected');
        } else {
          if (this.rejectedObjects.size > 0) this.rejectedObjects.delete(key);
          this.upsert(kind, key, obj);
        }
      }
    } finally {
      this.bulk = false;
      this.txGroups = new Map();
      this.txPolicies = new Map();
    }
    this.log?.debug({ objects: list.length, rejected: rejected.length }, 'bulk load done');
    return rejected;
  }

  /**
   * Memo slot of a shared group for read-side queries (queryEndpoint): computed once and kept
   * until the group or a policy using it changes.
   * @internal
   */
  groupMemo<T>(group: string, slot: string, compute: () => T): T {
    let m = this.memo.get(group);
    if (!m) this.memo.set(group, (m = new Map()));
    if (m.has(slot)) return m.get(slot) as T;
    const v = compute();
    m.set(slot, v);
    return v;
  }

  /** Applies events in order, merging nothing: returns each delta. */
  applyAll(events: Iterable<ClusterEvent>): PolicyDelta[] {
    const out: PolicyDelta[] = [];
    for (const e of events) out.push(this.apply(e));
    return out;
  }

  /** Objects currently refused by validation. */
  rejected(): RejectedObject[] {
    return [...this.rejectedObjects.values()];
  }

  /**
   * The compiled state: everything (no node), or what `node` receives (policies and address
   * groups whose span has the node; applied-to groups reduced to the node's members).
   */
  snapshot(node?: string): PolicySnapshot {
    const networkPolicies: controlplane.NetworkPolicy[] = [];
    for (const p of this.policies.values()) if (node === undefined || p.span.has(node)) networkPolicies.push(p.compiled.policy);
    networkPolicies.sort((a, b) => (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0));
    const addressGroups: controlplane.AddressGroup[] = [];
    const appliedToGroups: controlplane.AppliedToGroup[] = [];
    for (const [name, g] of this.groups) {
      if (g.addrUsers.size > 0 && (node === undefined || g.addrSpan.has(node))) addressGroups.push({ name, groupMembers: allMembers(g) });
      if (g.appliedUsers.size > 0) {
        if (node === undefined) appliedToGroups.push({ name, groupMembers: allMembers(g) });
        else {
          const local = g.byNode.get(node);
          if (local) appliedToGroups.push({ name, groupMembers: sortMembers(local.values()) });
        }
      }
    }
    addressGroups.sort(byName);
    appliedToGroups.sort(byName);
    return { networkPolicies, addressGroups, appliedToGroups };
  }

  /** Span (node names) of a policy (by uid), address group or applied-to group. */
  spanOf(kind: 'NetworkPolicy' | 'AddressGroup' | 'AppliedToGroup', name: string): string[] {
    if (kind === 'NetworkPolicy') {
      for (const p of this.policies.values()) if (p.compiled.policy.uid === name) return [...p.span.keys()].sort();
      return [];
    }
    const g = this.groups.get(name);
    if (!g) return [];
    return (kind === 'AddressGroup' ? (g.addrUsers.size > 0 ? [...g.addrSpan.keys()] : []) : g.appliedUsers.size > 0 ? [...g.byNode.keys()] : []).sort();
  }

  /** Group definition (leaves) of a shared group. */
  groupDefinition(name: string): GroupDef | undefined {
    return this.groups.get(name)?.def;
  }

  /** Compiled policies, with their internal state, for the evaluator. */
  compiledPolicies(): Iterable<CompiledPolicy> {
    return [...this.policies.values()].map((p) => p.compiled);
  }

  /** Policy keys using a group as applied-to (`applied`) or address group. */
  groupUsers(name: string, role: 'applied' | 'address'): ReadonlySet<string> {
    const g = this.groups.get(name);
    return (role === 'applied' ? g?.appliedUsers : g?.addrUsers) ?? new Set();
  }

  /** Compiled policy by engine key. */
  policyByKey(key: string): CompiledPolicy | undefined {
    return this.policies.get(key)?.compiled;
  }

  // ------------------------------------------------------------------------------------------
  // Validation

  private readonly vctx: ValidationContext = this.validationContext();
  private readonly cctx: CompileContext = this.compileContext();

  private validationContext(): ValidationContext {
    return {
      tierPriority: (n) => this.tierPriority(n),
      tierWithPriority: (p) => {
        for (const [n, v] of Object.entries(STATIC_TIERS)) if (v === p) return n;
        for (const t of this.tiers.values()) if (t.spec.priority === p) return t.metadata.name;
        return undefined;
      },
      childGroups: (ns, n) => (ns === undefined ? this.clusterGroups.get(`ClusterGroup/${n}`)?.spec.childGroups : this.groupObjects.get(`Group/${ns}/${n}`)?.spec.childGroups),
    };
  }

  private validate(kind: ObjectKind, obj: ClusterObject): PolicyValidationError[] {
    const ctx = this.vctx;
    switch (kind) {
      case 'K8sNetworkPolicy':
        return validateK8sNetworkPolicy(obj as K8sNetworkPolicy);
      case 'ClusterNetworkPolicy':
        return validateAntreaPolicy((obj as ClusterNetworkPolicy).spec, true, ctx);
      case 'AntreaNetworkPolicy':
        return validateAntreaPolicy((obj as AntreaNetworkPolicy).spec, false, ctx);
      case 'AdminNetworkPolicy':
        return validateAdminPolicy(obj as AdminNetworkPolicy, false);
      case 'BaselineAdminNetworkPolicy':
        return validateAdminPolicy(obj as BaselineAdminNetworkPolicy, true);
      case 'Tier':
        return validateTier(obj as Tier, ctx);
      case 'ClusterGroup':
        return validateGroup((obj as ClusterGroup).spec, undefined, obj.metadata.name ?? '', ctx);
      case 'Group':
        return validateGroup((obj as Group).spec, obj.metadata.namespace ?? 'default', obj.metadata.name ?? '', ctx);
      default:
        return [];
    }
  }

  private tierPriority(name: string): number | undefined {
    const s = STATIC_TIERS[name];
    if (s !== undefined) return s;
    return this.tiers.get(`Tier/${name}`)?.spec.priority;
  }

  // ------------------------------------------------------------------------------------------
  // Inputs

  private upsert(kind: ObjectKind, key: string, obj: ClusterObject): void {
    switch (kind) {
      case 'Pod':
        return this.setPod(key, obj as Pod);
      case 'Namespace':
        return this.setNamespace(key, obj as Namespace);
      case 'Node':
        return this.setNode(key, obj as Node);
      case 'ExternalEntity':
        return this.setEE(key, obj as ExternalEntity);
      case 'Service':
        this.services.set(key, obj as Service);
        return this.resync(`svc:${(obj.metadata.namespace ?? 'default')}/${obj.metadata.name}`);
      case 'Tier':
        this.tiers.set(key, obj as Tier);
        return this.resync(`tier:${obj.metadata.name}`);
      case 'ClusterGroup':
        this.clusterGroups.set(key, obj as ClusterGroup);
        return this.resync(`cg:${obj.metadata.name}`);
      case 'Group':
        this.groupObjects.set(key, obj as Group);
        return this.resync(`grp:${obj.metadata.namespace ?? 'default'}/${obj.metadata.name}`);
      case 'LabelIdentity':
        this.labelIdentities.set(key, obj as LabelIdentity);
        return this.resync('li:*');
      default:
        if (POLICY_KINDS.has(kind)) {
          const prev = this.policyObjects.get(key);
          this.policyObjects.set(key, { kind, obj });
          // A metadata-only update (labels, annotations, status) compiles to the same policy.
          if (prev && this.policies.has(key) && samePolicyInput(prev.obj, obj)) return;
          return this.syncPolicy(key);
        }
        this.others.set(key, obj);
    }
  }

  private remove(kind: ObjectKind, key: string, obj: ClusterObject): void {
    switch (kind) {
      case 'Pod':
        return this.setPod(key, undefined);
      case 'Namespace':
        return this.setNamespace(key, undefined);
      case 'Node':
        return this.setNode(key, undefined);
      case 'ExternalEntity':
        return this.setEE(key, undefined);
      case 'Service':
        this.services.delete(key);
        return this.resync(`svc:${(obj.metadata.namespace ?? 'default')}/${obj.metadata.name}`);
      case 'Tier':
        this.tiers.delete(key);
        return this.resync(`tier:${obj.metadata.name}`);
      case 'ClusterGroup':
        this.clusterGroups.delete(key);
        return this.resync(`cg:${obj.metadata.name}`);
      case 'Group':
        this.groupObjects.delete(key);
        return this.resync(`grp:${obj.metadata.namespace ?? 'default'}/${obj.metadata.name}`);
      case 'LabelIdentity':
        this.labelIdentities.delete(key);
        return this.resync('li:*');
      default:
        if (POLICY_KINDS.has(kind)) {
          this.policyObjects.delete(key);
          return this.syncPolicy(key);
        }
        this.others.delete(key);
    }
  }

  private resync(dep: string): void {
    const users = [...this.deps.get(dep)];
    for (const p of users.sort()) this.syncPolicy(p);
  }

  private setPod(key: string, pod: Pod | undefined): void {
    const old = this.pods.get(key);
    const ns = (pod ?? old)?.metadata.namespace ?? 'default';
    const name = (pod ?? old)?.metadata.name ?? '';
    const mk = `p:${ns}/${name}`;
    const prevSlot = this.podOf.get(mk);
    this.trackIps(mk, old ? podIps(old) : [], pod && !pod.spec?.hostNetwork ? podIps(pod) : []);
    const oldLabels = old?.metadata.labels;
    const newLabels = pod?.metadata.labels;
    const labelsSame = old !== undefined && pod !== undefined && sameLabels(oldLabels, newLabels);
    const nsIndex = this.nsLabelIndex.get(ns);
    if (old && !labelsSame) {
      for (const [k, v] of Object.entries(oldLabels ?? {})) {
        this.podsByLabel?.delete(`${k}=${v}`, mk);
        nsIndex?.delete(`${k}=${v}`, mk);
      }
    }
    if (pod) {
      this.pods.set(key, pod);
      this.podOf.set(mk, { pod, info: undefined });
      this.podsByNs.add(ns, mk);
      if (!labelsSame) {
        for (const [k, v] of Object.entries(newLabels ?? {})) {
          this.podsByLabel?.add(`${k}=${v}`, mk);
          nsIndex?.add(`${k}=${v}`, mk);
        }
      }
    } else {
      this.pods.delete(key);
      this.podOf.delete(mk);
      this.podsByNs.delete(ns, mk);
      if (this.podsByNs.size(ns) === 0) this.nsLabelIndex.delete(ns);
    }
    const before = prevSlot?.info;
    if (labelsSame && before !== undefined) {
      // Labels unchanged: group membership is decided by the same facts unless the service
      // account or selectability changed; when the member object is equal too, nothing moves.
      const after = this.memberInfo(mk);
      if (before === null ? after === undefined : after !== undefined && after.node === before.node && after.facts.serviceAccount === before.facts.serviceAccount && sameMember(after.member, before.member)) return;
    }
    // No group yet (a bulk load adds pods before policies): nothing to evaluate.
    if (this.groups.size === 0) return;
    // Candidate groups: selectors indexed under one of the old or new labels, the Namespace, or '*'.
    const cand = new Set<string>();
    const addIdx = (k: string): void => {
      for (const g of this.groupIndex.get(k)) cand.add(g);
    };
    addIdx('p:*');
    addIdx(`p:N:${ns}`);
    for (const labels of labelsSame ? [newLabels] : [oldLabels, newLabels]) for (const [k, v] of Object.entries(labels ?? {})) {
      addIdx(`p:L:${k}=${v}`);
      addIdx(`p:NL:${ns}|${k}=${v}`);
    }
    for (const g of cand) this.evalMember(g, mk);
  }

  private setEE(key: string, ee: ExternalEntity | undefined): void {
    const old = this.externalEntities.get(key);
    const ns = (ee ?? old)?.metadata.namespace ?? 'default';
    const eeKey = `${ns}/${(ee ?? old)?.metadata.name ?? ''}`;
    this.trackIps(`e:${eeKey}`, (old?.spec.endpoints ?? []).map((e) => e.ip), (ee?.spec.endpoints ?? []).map((e) => e.ip));
    if (ee) {
      this.externalEntities.set(key, ee);
      this.eesByNs.add(ns, eeKey);
    } else {
      this.externalEntities.delete(key);
      this.eesByNs.delete(ns, eeKey);
    }
    this.infoCache.delete(`e:${eeKey}`);
    for (const g of [...this.groupIndex.get('e:*')]) this.evalMember(g, `e:${eeKey}`);
    if (!ee) this.infoCache.delete(`e:${eeKey}`);
  }

  private setNode(key: string, node: Node | undefined): void {
    const name = key.slice('Node/'.length);
    const nodeIps = (n: Node | undefined): string[] => (n?.status?.addresses ?? []).filter((a) => a.type === 'InternalIP' || a.type === 'ExternalIP').map((a) => a.address);
    this.trackIps(`n:${name}`, nodeIps(this.nodes.get(key)), nodeIps(node));
    if (node) this.nodes.set(key, node);
    else this.nodes.delete(key);
    this.infoCache.delete(`n:${name}`);
    for (const g of [...this.groupIndex.get('n:*')]) this.evalMember(g, `n:${name}`);
    if (!node) this.infoCache.delete(`n:${name}`);
  }

  private trackIps(mk: MemberKey, before: string[], after: string[]): void {
    for (const ip of before) if (this.ipOwners.get(ip) === mk) this.ipOwners.delete(ip);
    for (const ip of after) this.ipOwners.set(ip, mk);
  }

  private setNamespace(key: string, ns: Namespace | undefined): void {
    const name = key.slice('Namespace/'.length);
    const old = this.namespaces.get(key);
    if (ns) this.namespaces.set(key, ns);
    else this.namespaces.delete(key);
    const labelsChanged = !old || !ns || !sameLabels(old.metadata.labels, ns.metadata.labels);
    if (!labelsChanged) return;
    this.nsLabelCache.delete(name);
    const cand = new Set<string>();
    const addIdx = (k: string): void => {
      for (const g of this.groupIndex.get(k)) cand.add(g);
    };
    addIdx('s:*');
    for (const n of [old, ns]) if (n) for (const [k, v] of Object.entries(namespaceLabels(name, n.metadata.labels))) addIdx(`s:L:${k}=${v}`);
    const members = [...this.podsByNs.get(name)].concat([...this.eesByNs.get(name)].map((e) => `e:${e}`));
    // Their cached facts carry the Namespace's labels.
    for (const m of members) {
      const slot = this.podOf.get(m);
      if (slot) slot.info = undefined;
      else this.infoCache.delete(m);
    }
    for (const g of cand) for (const m of members) this.evalMember(g, m);
    this.resync('ns:*');
  }

  // ------------------------------------------------------------------------------------------
  // Members

  private nsLabelsOf(ns: string): Record<string, string> {
    let l = this.nsLabelCache.get(ns);
    if (!l) this.nsLabelCache.set(ns, (l = namespaceLabels(ns, this.namespaces.get(`Namespace/${ns}`)?.metadata.labels)));
    return l;
  }

  /** Facts, group member and node of a member key (cached); undefined when it does not exist or is not selectable. */
  private memberInfo(mk: MemberKey): MemberInfo | undefined {
    if (mk.charCodeAt(0) === 112 /* 'p' */) {
      const slot = this.podOf.get(mk);
      if (!slot) return undefined;
      if (slot.info === undefined) slot.info = this.podInfo(mk, slot.pod) ?? null;
      return slot.info ?? undefined;
    }
    const c = this.infoCache.get(mk);
    if (c !== undefined) return c ?? undefined;
    const info = this.otherInfo(mk.slice(0, 1), mk.slice(2));
    this.infoCache.set(mk, info ?? null);
    return info;
  }


  private podInfo(mk: MemberKey, pod: Pod): MemberInfo | undefined {
    if (pod.spec?.hostNetwork || pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') return undefined;
    const rest = mk.slice(2);
    const slash = rest.indexOf('/');
    const ns = rest.slice(0, slash);
    const ports: controlplane.NamedPort[] = [];
    for (const c of pod.spec?.containers ?? []) for (const p of c.ports ?? []) if (p.name) ports.push({ name: p.name, port: p.containerPort, protocol: p.protocol ?? 'TCP' });
    const member: controlplane.GroupMember = { pod: { name: rest.slice(slash + 1), namespace: ns }, ips: podIps(pod) };
    if (ports.length > 0) member.ports = ports;
    const facts: MemberFacts = { kind: 'pod', namespace: ns, labels: pod.metadata.labels, nsLabels: this.nsLabelsOf(ns) };
    const sa = pod.spec?.serviceAccountName ?? pod.spec?.serviceAccount;
    if (sa !== undefined) facts.serviceAccount = sa;
    return { facts, member, node: pod.spec?.nodeName ?? '' };
  }

  /** Facts of an ExternalEntity (`e`) or Node (`n`) member. */
  private otherInfo(kind: string, rest: string): MemberInfo | undefined {
    if (kind === 'e') {
      const ee = this.externalEntities.get(`ExternalEntity/${rest}`);
      if (!ee) return undefined;
      const ns = ee.metadata.namespace ?? 'default';
      const member: controlplane.GroupMember = { externalEntity: { name: ee.metadata.name ?? '', namespace: ns }, ips: (ee.spec.endpoints ?? []).map((e) => e.ip) };
      const ports = (ee.spec.ports ?? []).filter((p) => p.name && p.port).map((p) => ({ name: p.name as string, port: p.port as number, protocol: p.protocol ?? 'TCP' }));
      if (ports.length > 0) member.ports = ports;
      return { facts: { kind: 'ee', namespace: ns, labels: ee.metadata.labels, nsLabels: this.nsLabelsOf(ns) }, member, node: ee.spec.externalNode ?? '' };
    }
    const node = this.nodes.get(`Node/${rest}`);
    if (!node) return undefined;
    const ips = (node.status?.addresses ?? []).filter((a) => a.type === 'InternalIP' || a.type === 'ExternalIP').map((a) => a.address);
    return { facts: { kind: 'node', namespace: '', labels: node.metadata.labels, nsLabels: undefined }, member: { node: { name: rest }, ips }, node: rest };
  }

  private evalMember(groupName: string, mk: MemberKey): void {
    const g = this.groups.get(groupName);
    if (!g) return;
    const info = this.memberInfo(mk);
    if (info && g.def.leaves.some((l) => leafMatches(l, info.facts))) this.setMember(g, mk, info);
    else this.deleteMember(g, mk);
  }

  /** Starts recording a group's pre-event state (no-op during a bulk load). */
  private touchGroup(g: GroupState): TxGroup | undefined {
    this.memo.delete(g.def.name);
    if (this.bulk) return undefined;
    let t = this.txGroups.get(g.def.name);
    if (!t) {
      t = { g, wasAddr: g.addrUsers.size > 0, wasApplied: g.appliedUsers.size > 0, addrChanges: new Map(), appliedChanges: new Map(), preMembers: new Map() };
      this.txGroups.set(g.def.name, t);
    } else if (t.g !== g) {
      // Released and acquired again within this event: the pre-event record stays, state moves on.
      t.g = g;
    }
    return t;
  }

  private recordMember(g: GroupState, mk: MemberKey, pre: { m: controlplane.GroupMember; node: string } | null): void {
    const t = this.touchGroup(g);
    // A group no node received before this event is sent whole: its member history is not needed.
    if (t && (t.wasAddr || t.wasApplied) && !t.preMembers.has(mk)) t.preMembers.set(mk, pre);
  }

  private setMember(g: GroupState, mk: MemberKey, e: MemberEntry): void {
    const old = g.members.get(mk);
    if (old === e) return;
    const node = e.node;
    const m = e.member;
    if (old && old.node === node && (old.member === m || sameMember(old.member, m))) {
      // Equal but a fresh object: keep the newest so later comparisons stay by reference.
      g.members.set(mk, e);
      g.byNode.get(node)?.set(mk, m);
      return;
    }
    this.recordMember(g, mk, old ? { m: old.member, node: old.node } : null);
    if (old) this.unlinkMember(g, mk, old.node);
    g.members.set(mk, e);
    let gs = this.memberGroups.get(mk);
    if (!gs) this.memberGroups.set(mk, (gs = new Set()));
    gs.add(g.def.name);
    if (node !== '') {
      let local = g.byNode.get(node);
      if (!local) {
        const t = this.touchGroup(g);
        if (t) noteSpan(t.appliedChanges, node, false);
        g.byNode.set(node, (local = new Map()));
        for (const p of g.appliedUsers) this.policyNodeInc(p, node);
      }
      local.set(mk, m);
    }
  }

  private deleteMember(g: GroupState, mk: MemberKey): void {
    const old = g.members.get(mk);
    if (!old) return;
    this.recordMember(g, mk, { m: old.member, node: old.node });
    this.unlinkMember(g, mk, old.node);
    const gs = this.memberGroups.get(mk);
    gs?.delete(g.def.name);
    if (gs && gs.size === 0) this.memberGroups.delete(mk);
  }

  private unlinkMember(g: GroupState, mk: MemberKey, node: string): void {
    g.members.delete(mk);
    if (node === '') return;
    const local = g.byNode.get(node);
    if (!local) return;
    local.delete(mk);
    if (local.size === 0) {
      const t = this.touchGroup(g);
      if (t) noteSpan(t.appliedChanges, node, true);
      g.byNode.delete(node);
      for (const p of g.appliedUsers) this.policyNodeDec(p, node);
    }
  }

  // ------------------------------------------------------------------------------------------
  // Groups

  private leafIndexKeys(l: Leaf): string[] {
    const out: string[] = [];
    if (l.kind === 'node') return ['n:*'];
    if (l.kind === 'ee') out.push('e:*');
    else {
      // Namespaced leaves are indexed under their Namespace (and label), never cluster-wide keys,
      // so thousands of per-Namespace groups with the same labels do not all wake on every pod.
      const keys = indexKeysOf(l.sel);
      if (l.ns !== undefined) out.push(...(keys[0] !== '*' ? keys.map((k) => `p:NL:${l.ns}|${k}`) : [`p:N:${l.ns}`]));
      else if (keys[0] !== '*') out.push(...keys.map((k) => `p:L:${k}`));
      else out.push('p:*');
    }
    if (l.nsSel) out.push(...indexKeysOf(l.nsSel).map((k) => (k === '*' ? 's:*' : `s:L:${k}`)));
    return out;
  }

  /** The label index of a Namespace, built once it has enough pods to be worth it. */
  private namespaceLabelIndex(ns: string): MultiIndex<MemberKey> | undefined {
    let index = this.nsLabelIndex.get(ns);
    if (index || this.podsByNs.size(ns) < NS_LABEL_INDEX_MIN) return index;
    index = new MultiIndex<MemberKey>();
    for (const mk of this.podsByNs.get(ns)) {
      for (const [k, v] of Object.entries(this.podOf.get(mk)?.pod.metadata.labels ?? {})) index.add(`${k}=${v}`, mk);
    }
    this.nsLabelIndex.set(ns, index);
    return index;
  }

  private clusterLabelIndex(): MultiIndex<MemberKey> {
    if (!this.podsByLabel) {
      const index = new MultiIndex<MemberKey>();
      for (const [key, pod] of this.pods) {
        const mk = `p:${key.slice(4)}`;
        for (const [k, v] of Object.entries(pod.metadata.labels ?? {})) index.add(`${k}=${v}`, mk);
      }
      this.podsByLabel = index;
    }
    return this.podsByLabel;
  }

  /** Candidate member keys of a leaf, narrowed by the label and Namespace indexes. */
  private leafCandidates(l: Leaf): Iterable<MemberKey> {
    if (l.kind === 'node') return [...this.nodes.keys()].map((k) => `n:${k.slice(5)}`);
    if (l.kind === 'ee') {
      const src = l.ns !== undefined ? [...this.eesByNs.get(l.ns)] : [...this.externalEntities.keys()].map((k) => k.slice('ExternalEntity/'.length));
      return src.map((k) => `e:${k}`);
    }
    const keys = indexKeysOf(l.sel);
    if (l.ns !== undefined) {
      // Namespace + one `In` requirement: exactly the pods carrying one of its values there.
      if (keys[0] === '*') return this.podsByNs.get(l.ns);
      const index = this.namespaceLabelIndex(l.ns);
      if (!index) return this.podsByNs.get(l.ns);
      if (keys.length === 1) return index.get(keys[0] as string);
      return keys.flatMap((k) => [...index.get(k)]);
    }
    if (keys[0] !== '*') {
      const index = this.clusterLabelIndex();
      return keys.length === 1 ? index.get(keys[0] as string) : keys.flatMap((k) => [...index.get(k)]);
    }
    const out: MemberKey[] = [];
    const push = (pods: Iterable<MemberKey> | undefined): void => {
      if (pods) for (const p of pods) out.push(p);
    };
    if (l.nsSel && l.nsSel.requirements.length > 0) {
      // Cluster-wide pods restricted by a Namespace selector: the pods of the matching Namespaces.
      for (const n of this.namespaces.values()) {
        const name = n.metadata.name ?? '';
        if (matchesNormalized(l.nsSel, this.nsLabelsOf(name))) push(this.podsByNs.get(name));
      }
      return out;
    }
    return [...this.podsByNs.all()];
  }

  private acquireGroup(def: GroupDef): GroupState {
    let g = this.groups.get(def.name);
    if (g) return g;
    g = { def, members: new Map(), byNode: new Map(), addrUsers: NO_USERS, appliedUsers: NO_USERS, addrSpan: NO_SPAN, indexKeys: [] };
    this.groups.set(def.name, g);
    this.touchGroup(g);
    const keys = new Set<string>();
    for (const l of def.leaves) for (const k of this.leafIndexKeys(l)) keys.add(k);
    g.indexKeys = [...keys];
    for (const k of g.indexKeys) this.groupIndex.add(k, def.name);
    if (def.leaves.length === 1) {
      for (const mk of this.leafCandidates(def.leaves[0] as Leaf)) this.evalMember(def.name, mk);
      return g;
    }
    const seen = new Set<string>();
    for (const l of def.leaves) for (const mk of this.leafCandidates(l)) if (!seen.has(mk)) {
      seen.add(mk);
      this.evalMember(def.name, mk);
    }
    return g;
  }

  private releaseIfUnused(g: GroupState): void {
    if (g.addrUsers.size > 0 || g.appliedUsers.size > 0) return;
    this.touchGroup(g);
    for (const k of g.indexKeys) this.groupIndex.delete(k, g.def.name);
    for (const mk of [...g.members.keys()]) this.deleteMember(g, mk);
    this.groups.delete(g.def.name);
  }

  // ------------------------------------------------------------------------------------------
  // Policies and spans

  private compileContext(): CompileContext {
    return {
      tierPriority: (n) => this.tierPriority(n),
      clusterGroup: (n): GroupSpec | undefined => this.clusterGroups.get(`ClusterGroup/${n}`)?.spec,
      group: (ns, n) => this.groupObjects.get(`Group/${ns}/${n}`)?.spec,
      service: (ns, n) => this.services.get(`Service/${ns}/${n}`),
      namespaces: () => [...this.namespaces.values()].map((n) => ({ name: n.metadata.name ?? '', labels: n.metadata.labels })),
      labelIdentities: () => [...this.labelIdentities.values()].filter((l) => l.spec?.label && l.spec.id !== undefined).map((l) => ({ label: l.spec.label as string, id: l.spec.id as number })),
    };
  }

  private compile(kind: ObjectKind, obj: ClusterObject): CompiledPolicy {
    const ctx = this.cctx;
    switch (kind) {
      case 'K8sNetworkPolicy':
        return compileK8sNetworkPolicy(obj as K8sNetworkPolicy, ctx);
      case 'ClusterNetworkPolicy':
        return compileAntreaPolicy(obj as ClusterNetworkPolicy, undefined, ctx);
      case 'AntreaNetworkPolicy':
        return compileAntreaPolicy(obj as AntreaNetworkPolicy, obj.metadata.namespace ?? 'default', ctx);
      case 'AdminNetworkPolicy':
        return compileAdminPolicy(obj as AdminNetworkPolicy, false, ctx);
      default:
        return compileAdminPolicy(obj as BaselineAdminNetworkPolicy, true, ctx);
    }
  }

  /** Starts recording a policy's pre-event state (no-op during a bulk load). */
  private touchPolicy(key: string): TxPolicy | undefined {
    if (this.bulk) return undefined;
    let t = this.txPolicies.get(key);
    if (!t) {
      const p = this.policies.get(key);
      t = { state: p, pre: p?.compiled.policy, spanChanges: new Map() };
      this.txPolicies.set(key, t);
    }
    return t;
  }

  private syncPolicy(key: string): void {
    const t = this.touchPolicy(key);
    const input = this.policyObjects.get(key);
    const next = input ? this.compile(input.kind, input.obj) : undefined;
    let p = this.policies.get(key);
    const oldGroups: GroupState[] = [];
    const oldSpan = p && t ? new Set(p.span.keys()) : undefined;
    if (p) {
      // Detach from the old groups (spans drop), keep them alive until the new ones attach.
      const old = p.compiled;
      for (const name of old.addressGroups.keys()) {
        const g = this.groups.get(name);
        if (!g) continue;
        this.touchGroup(g);
        for (const n of p.span.keys()) this.addrDec(g, n);
        g.addrUsers.delete(key);
        oldGroups.push(g);
      }
      for (const name of old.appliedToGroups.keys()) {
        const g = this.groups.get(name);
        if (!g) continue;
        this.touchGroup(g);
        g.appliedUsers.delete(key);
        oldGroups.push(g);
      }
      p.span.clear();
      for (const d of old.deps) this.deps.delete(d, key);
    }
    if (next) {
      if (!p) this.policies.set(key, (p = { key, compiled: next, span: new Map() }));
      p.compiled = next;
      for (const d of next.deps) this.deps.add(d, key);
      for (const def of next.appliedToGroups.values()) {
        const g = this.acquireGroup(def);
        // Share the live group's definition instead of keeping an equal copy per policy.
        if (g.def !== def) next.appliedToGroups.set(def.name, g.def);
        this.touchGroup(g);
        if (g.appliedUsers === NO_USERS) g.appliedUsers = new Set();
        g.appliedUsers.add(key);
        for (const n of g.byNode.keys()) p.span.set(n, (p.span.get(n) ?? 0) + 1);
      }
      for (const def of next.addressGroups.values()) {
        const g = this.acquireGroup(def);
        if (g.def !== def) next.addressGroups.set(def.name, g.def);
        this.touchGroup(g);
        if (g.addrUsers === NO_USERS) g.addrUsers = new Set();
        g.addrUsers.add(key);
        for (const n of p.span.keys()) this.addrInc(g, n);
      }
    } else if (p) this.policies.delete(key);
    if (t && oldSpan) {
      const now = p && next ? p.span : new Map<string, number>();
      for (const n of oldSpan) if (!now.has(n)) noteSpan(t.spanChanges, n, true);
      for (const n of now.keys()) if (!oldSpan.has(n)) noteSpan(t.spanChanges, n, false);
    }
    for (const g of oldGroups) this.releaseIfUnused(g);
  }

  private policyNodeInc(key: string, node: string): void {
    const p = this.policies.get(key);
    if (!p) return;
    const c = p.span.get(node) ?? 0;
    if (c === 0) {
      const t = this.touchPolicy(key);
      if (t) noteSpan(t.spanChanges, node, false);
    }
    p.span.set(node, c + 1);
    if (c === 0) for (const name of p.compiled.addressGroups.keys()) {
      const g = this.groups.get(name);
      if (g) this.addrInc(g, node);
    }
  }

  private policyNodeDec(key: string, node: string): void {
    const p = this.policies.get(key);
    if (!p) return;
    const c = p.span.get(node) ?? 0;
    if (c <= 1) {
      const t = this.touchPolicy(key);
      if (t && c > 0) noteSpan(t.spanChanges, node, true);
      p.span.delete(node);
      for (const name of p.compiled.addressGroups.keys()) {
        const g = this.groups.get(name);
        if (g) this.addrDec(g, node);
      }
    } else p.span.set(node, c - 1);
  }

  private addrInc(g: GroupState, node: string): void {
    const t = this.touchGroup(g);
    const c = g.addrSpan.get(node) ?? 0;
    if (c === 0 && t) noteSpan(t.addrChanges, node, false);
    if (g.addrSpan === NO_SPAN) g.addrSpan = new Map();
    g.addrSpan.set(node, c + 1);
  }

  private addrDec(g: GroupState, node: string): void {
    const t = this.touchGroup(g);
    const c = g.addrSpan.get(node) ?? 0;
    if (c <= 1) {
      if (c > 0 && t) noteSpan(t.addrChanges, node, true);
      if (c > 0) g.addrSpan.delete(node);
    } else g.addrSpan.set(node, c - 1);
  }

  // ------------------------------------------------------------------------------------------
  // Delta

  /**
   * The per-node delta of the current event, from what was recorded: work is proportional to
   * the members and span nodes that changed (plus one patch per node that must receive one).
   */
  private buildDelta(): Map<string, NodeDelta> {
    const out = new Map<string, NodeDelta>();
    const at = (n: string): NodeDelta => {
      let d = out.get(n);
      if (!d) out.set(n, (d = emptyNodeDelta()));
      return d;
    };
    for (const [name, t] of this.txGroups) {
      const g = t.g;
      const alive = this.groups.get(name) === g;
      // Net member changes since the start of this event.
      const added: { m: controlplane.GroupMember; node: string }[] = [];
      const removed: { m: controlplane.GroupMember; node: string }[] = [];
      for (const [mk, pre] of t.preMembers) {
        const cur = alive ? g.members.get(mk) : undefined;
        if (pre && cur && pre.node === cur.node && (pre.m === cur.member || sameMember(pre.m, cur.member))) continue;
        if (pre) removed.push(pre);
        if (cur) added.push({ m: cur.member, node: cur.node });
      }

      // Address groups: whole group to nodes entering the span, patches to nodes staying.
      const isAddr = alive && g.addrUsers.size > 0;
      if (!t.wasAddr) {
        if (isAddr) for (const n of g.addrSpan.keys()) at(n).addressGroups.added.push({ name, groupMembers: allMembers(g) });
      } else if (!isAddr) {
        for (const n of preSpan(g.addrSpan, t.addrChanges)) at(n).addressGroups.deleted.push(name);
      } else {
        for (const [n, before] of t.addrChanges) {
          const now = g.addrSpan.has(n);
          if (!before && now) at(n).addressGroups.added.push({ name, groupMembers: allMembers(g) });
          else if (before && !now) at(n).addressGroups.deleted.push(name);
        }
        if (added.length + removed.length > 0) {
          const patch = { name, addedGroupMembers: added.map((x) => x.m), removedGroupMembers: removed.map((x) => x.m) };
          for (const n of g.addrSpan.keys()) if (t.addrChanges.get(n) ?? true) at(n).addressGroups.patched.push(patch);
        }
      }
      // Applied-to groups: per node, only that node's members.
      const isApplied = alive && g.appliedUsers.size > 0;
      const local = (n: string) => sortMembers(g.byNode.get(n)?.values() ?? []);
      if (!t.wasApplied) {
        if (isApplied) for (const n of g.byNode.keys()) at(n).appliedToGroups.added.push({ name, groupMembers: local(n) });
      } else if (!isApplied) {
        for (const n of preSpan(g.byNode, t.appliedChanges)) at(n).appliedToGroups.deleted.push(name);
      } else {
        for (const [n, before] of t.appliedChanges) {
          const now = g.byNode.has(n);
          if (!before && now) at(n).appliedToGroups.added.push({ name, groupMembers: local(n) });
          else if (before && !now) at(n).appliedToGroups.deleted.push(name);
        }
        const perNode = new Map<string, { a: controlplane.GroupMember[]; r: controlplane.GroupMember[] }>();
        const slot = (n: string) => {
          let x = perNode.get(n);
          if (!x) perNode.set(n, (x = { a: [], r: [] }));
          return x;
        };
        for (const x of added) if (x.node !== '') slot(x.node).a.push(x.m);
        for (const x of removed) if (x.node !== '') slot(x.node).r.push(x.m);
        for (const [n, x] of perNode) {
          // Only nodes that had the group before and still have it get a patch.
          if (g.byNode.has(n) && (t.appliedChanges.get(n) ?? true)) at(n).appliedToGroups.patched.push({ name, addedGroupMembers: x.a, removedGroupMembers: x.r });
        }
      }
    }
    for (const [key, t] of this.txPolicies) {
      const p = this.policies.get(key);
      const cur = p?.compiled.policy;
      const pre = t.pre;
      const span = p ? p.span : new Map<string, number>();
      if (!pre) {
        if (cur) for (const n of span.keys()) at(n).networkPolicies.added.push(cur);
        continue;
      }
      const preNodes = (): Iterable<string> => preSpan(t.state && t.state === p ? span : (t.state?.span ?? new Map<string, number>()), t.spanChanges);
      if (!cur) {
        for (const n of preNodes()) at(n).networkPolicies.deleted.push(pre.uid);
        continue;
      }
      if (cur.uid !== pre.uid) {
        // A policy replaced under a new uid is a delete of the old uid and an add of the new one.
        for (const n of preNodes()) at(n).networkPolicies.deleted.push(pre.uid);
        for (const n of span.keys()) at(n).networkPolicies.added.push(cur);
        continue;
      }
      for (const [n, before] of t.spanChanges) {
        const now = span.has(n);
        if (!before && now) at(n).networkPolicies.added.push(cur);
        else if (before && !now) at(n).networkPolicies.deleted.push(pre.uid);
      }
      if (cur !== pre && !deepEqual(cur, pre)) {
        for (const n of span.keys()) if (t.spanChanges.get(n) ?? true) at(n).networkPolicies.updated.push(cur);
      }
    }
    this.txGroups = new Map();
    this.txPolicies = new Map();
    return out;
  }
}

/**
 * Orders a node delta as controlplane watch events an agent can apply one by one: groups a
 * policy needs arrive before it, and are deleted after it.
 */
export function toWatchEvents(d: NodeDelta): controlplane.WatchEvent[] {
  const ev: controlplane.WatchEvent[] = [];
  for (const o of d.addressGroups.added) ev.push({ type: 'ADDED', kind: 'AddressGroup', object: o });
  for (const o of d.addressGroups.updated) ev.push({ type: 'MODIFIED', kind: 'AddressGroup', object: o });
  for (const o of d.addressGroups.patched) ev.push({ type: 'MODIFIED', kind: 'AddressGroupPatch', object: o });
  for (const o of d.appliedToGroups.added) ev.push({ type: 'ADDED', kind: 'AppliedToGroup', object: o });
  for (const o of d.appliedToGroups.updated) ev.push({ type: 'MODIFIED', kind: 'AppliedToGroup', object: o });
  for (const o of d.appliedToGroups.patched) ev.push({ type: 'MODIFIED', kind: 'AppliedToGroupPatch', object: o });
  for (const o of d.networkPolicies.added) ev.push({ type: 'ADDED', kind: 'NetworkPolicy', object: o });
  for (const o of d.networkPolicies.updated) ev.push({ type: 'MODIFIED', kind: 'NetworkPolicy', object: o });
  for (const uid of d.networkPolicies.deleted) ev.push({ type: 'DELETED', kind: 'NetworkPolicy', object: { uid, name: uid, namespace: '', sourceRef: { type: 'K8sNetworkPolicy', namespace: '', name: '', uid }, rules: [], appliedToGroups: [], generation: 0 } });
  for (const name of d.addressGroups.deleted) ev.push({ type: 'DELETED', kind: 'AddressGroup', object: { name, groupMembers: [] } });
  for (const name of d.appliedToGroups.deleted) ev.push({ type: 'DELETED', kind: 'AppliedToGroup', object: { name, groupMembers: [] } });
  return ev;
}
