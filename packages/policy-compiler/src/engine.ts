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
} from '@switchyard/apis';
import { compileAdminPolicy, compileAntreaPolicy, compileK8sNetworkPolicy, type CompileContext, type CompiledPolicy } from './compile';
import { PolicyCompilerError, type PolicyValidationError } from './errors';
import { leafMatches, namespaceLabels, type GroupDef, type Leaf, type MemberFacts } from './leaf';
import { indexKeysOf } from './selector';
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

/** Engine kind of an input object (the two `NetworkPolicy` kinds are told apart by apiVersion). */
export function kindOf(obj: ClusterObject): ObjectKind {
  const kind = obj.kind as string | undefined;
  const api = (obj.apiVersion as string | undefined) ?? '';
  if (kind === 'NetworkPolicy') return api.startsWith('crd.antrea.io') ? 'AntreaNetworkPolicy' : 'K8sNetworkPolicy';
  const known: readonly string[] = ['Namespace', 'Pod', 'Node', 'Service', 'Endpoints', 'EndpointSlice', 'ServiceAccount', 'ExternalEntity', 'ExternalNode', 'Tier', 'ClusterGroup', 'Group', 'ClusterNetworkPolicy', 'AdminNetworkPolicy', 'BaselineAdminNetworkPolicy', 'LabelIdentity'];
  if (kind && known.includes(kind)) return kind as ObjectKind;
  throw new PolicyCompilerError('UNKNOWN_KIND', 'object.kind', kind, `unsupported kind ${String(kind)} (${api})`);
}

const CLUSTER_SCOPED: ReadonlySet<ObjectKind> = new Set(['Namespace', 'Node', 'ExternalNode', 'Tier', 'ClusterGroup', 'ClusterNetworkPolicy', 'AdminNetworkPolicy', 'BaselineAdminNetworkPolicy', 'LabelIdentity']);

function objectKey(kind: ObjectKind, obj: ClusterObject): string {
  const name = obj.metadata?.name;
  if (!name) throw new PolicyCompilerError('MISSING_NAME', 'metadata.name', name, `${kind} without metadata.name`);
  return CLUSTER_SCOPED.has(kind) ? `${kind}/${name}` : `${kind}/${obj.metadata.namespace ?? 'default'}/${name}`;
}

/** Member key: `p:ns/name`, `e:ns/name` or `n:name`. */
type MemberKey = string;

interface GroupState {
  def: GroupDef;
  members: Map<MemberKey, controlplane.GroupMember>;
  memberNode: Map<MemberKey, string>;
  byNode: Map<string, Map<MemberKey, controlplane.GroupMember>>;
  addrUsers: Set<string>;
  appliedUsers: Set<string>;
  /** node -> number of policies using this address group whose span has the node. */
  addrSpan: Map<string, number>;
  indexKeys: string[];
}

interface PolicyState {
  key: string;
  compiled: CompiledPolicy;
  /** node -> number of the policy's applied-to groups with members there. */
  span: Map<string, number>;
}

interface TxGroup {
  wasAddr: boolean;
  wasApplied: boolean;
  preAddrSpan: Set<string>;
  preAppliedSpan: Set<string>;
  preMembers: Map<MemberKey, { m: controlplane.GroupMember; node: string } | null>;
}
interface TxPolicy {
  preSpan: Set<string>;
  pre: controlplane.NetworkPolicy | undefined;
}

function podIps(pod: Pod): string[] {
  return pod.status?.podIPs?.map((x) => x.ip) ?? (pod.status?.podIP ? [pod.status.podIP] : []);
}

function emptyNodeDelta(): NodeDelta {
  const k = () => ({ added: [], updated: [], patched: [], deleted: [] });
  return { networkPolicies: k(), addressGroups: k(), appliedToGroups: k() };
}

function sameMember(a: controlplane.GroupMember, b: controlplane.GroupMember): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
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
  private readonly podsByNs = new Map<string, Set<string>>();
  private readonly podsByLabel = new Map<string, Set<string>>();
  private readonly eesByNs = new Map<string, Set<string>>();
  private readonly groupIndex = new Map<string, Set<string>>();
  private readonly deps = new Map<string, Set<string>>();
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
      if (g.addrUsers.size > 0 && (node === undefined || g.addrSpan.has(node))) addressGroups.push({ name, groupMembers: sortMembers(g.members.values()) });
      if (g.appliedUsers.size > 0) {
        if (node === undefined) appliedToGroups.push({ name, groupMembers: sortMembers(g.members.values()) });
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
    const ctx = this.validationContext();
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
          this.policyObjects.set(key, { kind, obj });
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
    const users = this.deps.get(dep);
    if (!users) return;
    for (const p of [...users].sort()) this.syncPolicy(p);
  }

  private setPod(key: string, pod: Pod | undefined): void {
    const old = this.pods.get(key);
    const ns = (pod ?? old)?.metadata.namespace ?? 'default';
    const name = (pod ?? old)?.metadata.name ?? '';
    const podKey = `${ns}/${name}`;
    this.trackIps(`p:${podKey}`, old ? podIps(old) : [], pod && !pod.spec?.hostNetwork ? podIps(pod) : []);
    if (old) {
      this.podsByNs.get(ns)?.delete(podKey);
      for (const [k, v] of Object.entries(old.metadata.labels ?? {})) this.podsByLabel.get(`${k}=${v}`)?.delete(podKey);
    }
    if (pod) {
      this.pods.set(key, pod);
      let s = this.podsByNs.get(ns);
      if (!s) this.podsByNs.set(ns, (s = new Set()));
      s.add(podKey);
      for (const [k, v] of Object.entries(pod.metadata.labels ?? {})) {
        const lk = `${k}=${v}`;
        let ls = this.podsByLabel.get(lk);
        if (!ls) this.podsByLabel.set(lk, (ls = new Set()));
        ls.add(podKey);
      }
    } else this.pods.delete(key);
    // Candidate groups: selectors indexed under one of the old or new labels, the Namespace, or '*'.
    const cand = new Set<string>();
    const addIdx = (k: string): void => {
      const s = this.groupIndex.get(k);
      if (s) for (const g of s) cand.add(g);
    };
    addIdx('p:*');
    addIdx(`p:N:${ns}`);
    for (const p of [old, pod]) if (p) for (const [k, v] of Object.entries(p.metadata.labels ?? {})) {
      addIdx(`p:L:${k}=${v}`);
      addIdx(`p:NL:${ns}|${k}=${v}`);
    }
    const mk = `p:${podKey}`;
    for (const g of cand) this.evalMember(g, mk);
  }

  private setEE(key: string, ee: ExternalEntity | undefined): void {
    const old = this.externalEntities.get(key);
    const ns = (ee ?? old)?.metadata.namespace ?? 'default';
    const eeKey = `${ns}/${(ee ?? old)?.metadata.name ?? ''}`;
    this.trackIps(`e:${eeKey}`, (old?.spec.endpoints ?? []).map((e) => e.ip), (ee?.spec.endpoints ?? []).map((e) => e.ip));
    if (ee) {
      this.externalEntities.set(key, ee);
      let s = this.eesByNs.get(ns);
      if (!s) this.eesByNs.set(ns, (s = new Set()));
      s.add(eeKey);
    } else {
      this.externalEntities.delete(key);
      this.eesByNs.get(ns)?.delete(eeKey);
    }
    for (const g of [...(this.groupIndex.get('e:*') ?? [])]) this.evalMember(g, `e:${eeKey}`);
  }

  private setNode(key: string, node: Node | undefined): void {
    const name = key.slice('Node/'.length);
    const nodeIps = (n: Node | undefined): string[] => (n?.status?.addresses ?? []).filter((a) => a.type === 'InternalIP' || a.type === 'ExternalIP').map((a) => a.address);
    this.trackIps(`n:${name}`, nodeIps(this.nodes.get(key)), nodeIps(node));
    if (node) this.nodes.set(key, node);
    else this.nodes.delete(key);
    for (const g of [...(this.groupIndex.get('n:*') ?? [])]) this.evalMember(g, `n:${name}`);
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
    const labelsChanged = !old || !ns || JSON.stringify(old.metadata.labels ?? {}) !== JSON.stringify(ns.metadata.labels ?? {});
    if (!labelsChanged) return;
    const cand = new Set<string>();
    const addIdx = (k: string): void => {
      const s = this.groupIndex.get(k);
      if (s) for (const g of s) cand.add(g);
    };
    addIdx('s:*');
    for (const n of [old, ns]) if (n) for (const [k, v] of Object.entries(namespaceLabels(name, n.metadata.labels))) addIdx(`s:L:${k}=${v}`);
    const members = [...(this.podsByNs.get(name) ?? [])].map((p) => `p:${p}`).concat([...(this.eesByNs.get(name) ?? [])].map((e) => `e:${e}`));
    for (const g of cand) for (const m of members) this.evalMember(g, m);
    this.resync('ns:*');
  }

  // ------------------------------------------------------------------------------------------
  // Members

  private nsLabelsOf(ns: string): Record<string, string> {
    return namespaceLabels(ns, this.namespaces.get(`Namespace/${ns}`)?.metadata.labels);
  }

  /** Facts, group member and node of a member key; undefined when it does not exist or is not selectable. */
  private memberInfo(mk: MemberKey): { facts: MemberFacts; member: controlplane.GroupMember; node: string } | undefined {
    const kind = mk[0];
    const rest = mk.slice(2);
    if (kind === 'p') {
      const slash = rest.indexOf('/');
      const ns = rest.slice(0, slash);
      const pod = this.pods.get(`Pod/${rest}`);
      if (!pod || pod.spec?.hostNetwork || pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') return undefined;
      const ips = podIps(pod);
      const ports: controlplane.NamedPort[] = [];
      for (const c of pod.spec?.containers ?? []) for (const p of c.ports ?? []) if (p.name) ports.push({ name: p.name, port: p.containerPort, protocol: p.protocol ?? 'TCP' });
      const member: controlplane.GroupMember = { pod: { name: rest.slice(slash + 1), namespace: ns }, ips };
      if (ports.length > 0) member.ports = ports;
      const facts: MemberFacts = { kind: 'pod', namespace: ns, labels: pod.metadata.labels, nsLabels: this.nsLabelsOf(ns) };
      const sa = pod.spec?.serviceAccountName ?? pod.spec?.serviceAccount;
      if (sa !== undefined) facts.serviceAccount = sa;
      return { facts, member, node: pod.spec?.nodeName ?? '' };
    }
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
    if (info && g.def.leaves.some((l) => leafMatches(l, info.facts))) this.setMember(g, mk, info.member, info.node);
    else this.deleteMember(g, mk);
  }

  private touchGroup(g: GroupState): TxGroup {
    let t = this.txGroups.get(g.def.name);
    if (!t) {
      t = {
        wasAddr: g.addrUsers.size > 0,
        wasApplied: g.appliedUsers.size > 0,
        preAddrSpan: new Set(g.addrSpan.keys()),
        preAppliedSpan: new Set(g.byNode.keys()),
        preMembers: new Map(),
      };
      this.txGroups.set(g.def.name, t);
    }
    return t;
  }

  private setMember(g: GroupState, mk: MemberKey, m: controlplane.GroupMember, node: string): void {
    const old = g.members.get(mk);
    const oldNode = g.memberNode.get(mk);
    if (old && oldNode === node && sameMember(old, m)) return;
    const t = this.touchGroup(g);
    if (!t.preMembers.has(mk)) t.preMembers.set(mk, old ? { m: old, node: oldNode ?? '' } : null);
    if (old) this.unlinkMember(g, mk, old, oldNode ?? '');
    g.members.set(mk, m);
    g.memberNode.set(mk, node);
    let gs = this.memberGroups.get(mk);
    if (!gs) this.memberGroups.set(mk, (gs = new Set()));
    gs.add(g.def.name);
    if (node !== '') {
      let local = g.byNode.get(node);
      if (!local) {
        g.byNode.set(node, (local = new Map()));
        for (const p of g.appliedUsers) this.policyNodeInc(p, node);
      }
      local.set(mk, m);
    }
  }

  private deleteMember(g: GroupState, mk: MemberKey): void {
    const old = g.members.get(mk);
    if (!old) return;
    const t = this.touchGroup(g);
    const oldNode = g.memberNode.get(mk) ?? '';
    if (!t.preMembers.has(mk)) t.preMembers.set(mk, { m: old, node: oldNode });
    this.unlinkMember(g, mk, old, oldNode);
    const gs = this.memberGroups.get(mk);
    gs?.delete(g.def.name);
    if (gs && gs.size === 0) this.memberGroups.delete(mk);
  }

  private unlinkMember(g: GroupState, mk: MemberKey, _old: controlplane.GroupMember, node: string): void {
    g.members.delete(mk);
    g.memberNode.delete(mk);
    if (node === '') return;
    const local = g.byNode.get(node);
    if (!local) return;
    local.delete(mk);
    if (local.size === 0) {
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

  /** Candidate member keys of a leaf, narrowed by the label and Namespace indexes. */
  private leafCandidates(l: Leaf): Iterable<MemberKey> {
    if (l.kind === 'node') return [...this.nodes.keys()].map((k) => `n:${k.slice(5)}`);
    if (l.kind === 'ee') {
      const src = l.ns !== undefined ? [...(this.eesByNs.get(l.ns) ?? [])] : [...this.externalEntities.keys()].map((k) => k.slice('ExternalEntity/'.length));
      return src.map((k) => `e:${k}`);
    }
    const keys = indexKeysOf(l.sel);
    let pods: Iterable<string>;
    const byNs = l.ns !== undefined ? (this.podsByNs.get(l.ns) ?? new Set<string>()) : undefined;
    const labelled = keys[0] !== '*' ? keys.reduce((n, k) => n + (this.podsByLabel.get(k)?.size ?? 0), 0) : Infinity;
    if (byNs && byNs.size <= labelled) pods = byNs;
    else if (keys[0] !== '*') {
      // Smaller than the Namespace's pods: walk the label index (leafMatches checks the Namespace).
      const u = new Set<string>();
      for (const k of keys) for (const p of this.podsByLabel.get(k) ?? []) u.add(p);
      pods = u;
    } else pods = [...this.pods.keys()].map((k) => k.slice(4));
    const out: string[] = [];
    for (const p of pods) out.push(`p:${p}`);
    return out;
  }

  private acquireGroup(def: GroupDef): GroupState {
    let g = this.groups.get(def.name);
    if (g) return g;
    g = { def, members: new Map(), memberNode: new Map(), byNode: new Map(), addrUsers: new Set(), appliedUsers: new Set(), addrSpan: new Map(), indexKeys: [] };
    this.groups.set(def.name, g);
    this.touchGroup(g);
    const keys = new Set<string>();
    for (const l of def.leaves) for (const k of this.leafIndexKeys(l)) keys.add(k);
    g.indexKeys = [...keys];
    for (const k of g.indexKeys) {
      let s = this.groupIndex.get(k);
      if (!s) this.groupIndex.set(k, (s = new Set()));
      s.add(def.name);
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
    for (const k of g.indexKeys) {
      const s = this.groupIndex.get(k);
      s?.delete(g.def.name);
      if (s && s.size === 0) this.groupIndex.delete(k);
    }
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
    const ctx = this.compileContext();
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

  private touchPolicy(key: string): void {
    if (this.txPolicies.has(key)) return;
    const p = this.policies.get(key);
    this.txPolicies.set(key, { preSpan: new Set(p?.span.keys() ?? []), pre: p?.compiled.policy });
  }

  private syncPolicy(key: string): void {
    this.touchPolicy(key);
    const input = this.policyObjects.get(key);
    const next = input ? this.compile(input.kind, input.obj) : undefined;
    let p = this.policies.get(key);
    const oldGroups: GroupState[] = [];
    if (p) {
      // Detach from the old groups (spans drop), keep them alive until the new ones attach.
      const old = p.compiled;
      for (const name of old.addressGroups.keys()) {
        const g = this.groups.get(name);
        if (!g) continue;
        for (const n of p.span.keys()) this.addrDec(g, n);
        this.touchGroup(g);
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
      for (const d of old.deps) {
        const s = this.deps.get(d);
        s?.delete(key);
        if (s && s.size === 0) this.deps.delete(d);
      }
    }
    if (next) {
      if (!p) this.policies.set(key, (p = { key, compiled: next, span: new Map() }));
      p.compiled = next;
      for (const d of next.deps) {
        let s = this.deps.get(d);
        if (!s) this.deps.set(d, (s = new Set()));
        s.add(key);
      }
      for (const def of next.appliedToGroups.values()) {
        const g = this.acquireGroup(def);
        this.touchGroup(g);
        g.appliedUsers.add(key);
        for (const n of g.byNode.keys()) p.span.set(n, (p.span.get(n) ?? 0) + 1);
      }
      for (const def of next.addressGroups.values()) {
        const g = this.acquireGroup(def);
        this.touchGroup(g);
        g.addrUsers.add(key);
        for (const n of p.span.keys()) this.addrInc(g, n);
      }
    } else if (p) this.policies.delete(key);
    for (const g of oldGroups) this.releaseIfUnused(g);
  }

  private policyNodeInc(key: string, node: string): void {
    const p = this.policies.get(key);
    if (!p) return;
    const c = p.span.get(node) ?? 0;
    if (c === 0) this.touchPolicy(key);
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
      this.touchPolicy(key);
      p.span.delete(node);
      for (const name of p.compiled.addressGroups.keys()) {
        const g = this.groups.get(name);
        if (g) this.addrDec(g, node);
      }
    } else p.span.set(node, c - 1);
  }

  private addrInc(g: GroupState, node: string): void {
    this.touchGroup(g);
    g.addrSpan.set(node, (g.addrSpan.get(node) ?? 0) + 1);
  }

  private addrDec(g: GroupState, node: string): void {
    this.touchGroup(g);
    const c = g.addrSpan.get(node) ?? 0;
    if (c <= 1) g.addrSpan.delete(node);
    else g.addrSpan.set(node, c - 1);
  }

  // ------------------------------------------------------------------------------------------
  // Delta

  private buildDelta(): Map<string, NodeDelta> {
    const out = new Map<string, NodeDelta>();
    const at = (n: string): NodeDelta => {
      let d = out.get(n);
      if (!d) out.set(n, (d = emptyNodeDelta()));
      return d;
    };
    for (const [name, t] of this.txGroups) {
      const g = this.groups.get(name);
      // Net member changes since the start of this event.
      const added: { m: controlplane.GroupMember; node: string }[] = [];
      const removed: { m: controlplane.GroupMember; node: string }[] = [];
      for (const [mk, pre] of t.preMembers) {
        const cur = g?.members.get(mk);
        const curNode = g?.memberNode.get(mk) ?? '';
        if (pre && cur && pre.node === curNode && sameMember(pre.m, cur)) continue;
        if (pre) removed.push(pre);
        if (cur) added.push({ m: cur, node: curNode });
      }
      const isAddr = !!g && g.addrUsers.size > 0;
      const postAddr = isAddr ? new Set(g.addrSpan.keys()) : new Set<string>();
      const preAddr = t.wasAddr ? t.preAddrSpan : new Set<string>();
      for (const n of postAddr) {
        if (!preAddr.has(n)) at(n).addressGroups.added.push({ name, groupMembers: sortMembers((g as GroupState).members.values()) });
        else if (added.length + removed.length > 0) at(n).addressGroups.patched.push({ name, addedGroupMembers: added.map((x) => x.m), removedGroupMembers: removed.map((x) => x.m) });
      }
      for (const n of preAddr) if (!postAddr.has(n)) at(n).addressGroups.deleted.push(name);
      const isApplied = !!g && g.appliedUsers.size > 0;
      const postApplied = isApplied ? new Set(g.byNode.keys()) : new Set<string>();
      const preApplied = t.wasApplied ? t.preAppliedSpan : new Set<string>();
      for (const n of postApplied) {
        if (!preApplied.has(n)) at(n).appliedToGroups.added.push({ name, groupMembers: sortMembers((g as GroupState).byNode.get(n)?.values() ?? []) });
        else {
          const a = added.filter((x) => x.node === n).map((x) => x.m);
          const r = removed.filter((x) => x.node === n).map((x) => x.m);
          if (a.length + r.length > 0) at(n).appliedToGroups.patched.push({ name, addedGroupMembers: a, removedGroupMembers: r });
        }
      }
      for (const n of preApplied) if (!postApplied.has(n)) at(n).appliedToGroups.deleted.push(name);
    }
    for (const [key, t] of this.txPolicies) {
      const p = this.policies.get(key);
      const post = p ? new Set(p.span.keys()) : new Set<string>();
      const cur = p?.compiled.policy;
      const changed = cur !== undefined && t.pre !== undefined && cur !== t.pre && JSON.stringify(cur) !== JSON.stringify(t.pre);
      for (const n of post) {
        if (!t.preSpan.has(n)) at(n).networkPolicies.added.push(cur as controlplane.NetworkPolicy);
        else if (changed) at(n).networkPolicies.updated.push(cur as controlplane.NetworkPolicy);
      }
      // A policy replaced under a new uid is a delete of the old uid.
      for (const n of t.preSpan) {
        if (!post.has(n)) at(n).networkPolicies.deleted.push((t.pre as controlplane.NetworkPolicy).uid);
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
