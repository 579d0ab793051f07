// The selectable members (pods, ExternalEntities, Nodes): their facts for selector matching,
// cached until the member or its Namespace changes, the indexes that narrow a selector to its
// candidate members (pods by Namespace and by label, ExternalEntities by Namespace), and IP owners.
import type { ExternalEntity, Namespace, Node, Pod, controlplane } from '@switchyard/apis/types';
import { sameLabels, sameMember } from './equality';
import { entityIps, nodeIps, podIps } from './ip-text';
import { namespaceLabels, type Leaf, type MemberFacts } from './leaf';
import { MultiIndex } from './multi-index';
import { indexKeysOf, matchesNormalized } from './selector';
import { groupSetOf, type GroupsHolder, type MemberEntry, type MemberKey } from './state';

/** Pods a Namespace needs before it gets its own label index (see {@link MemberIndex.namespaceLabelIndex}). */
export const NS_LABEL_INDEX_MIN = 32;

/** Derived facts of a member, cached per member key until the member or its Namespace changes. */
export interface MemberInfo extends MemberEntry {
  facts: MemberFacts;
}

/**
 * A pod, its member key and its member facts (undefined: not computed yet; null: not
 * selectable). One slot per pod for its lifetime: the pod indexes hold slots, so a group
 * evaluating its candidates reads their facts without looking each member up again.
 */
interface PodSlot extends GroupsHolder {
  readonly mk: MemberKey;
  /** The pod's Namespace in the index. */
  readonly ns: NamespacePods;
  pod: Pod;
  info: MemberInfo | null | undefined;
}

/**
 * What the index keeps per Namespace with pods: the pods, their label index once there are
 * enough of them, and the Namespace's labels as selectors see them. One lookup by name finds
 * all three (and a pod's slot points to it), where three maps keyed by Namespace name did.
 */
interface NamespacePods {
  /**
   * The pods in the order they were added: a lone one as itself, up to {@link NS_PODS_LIST_MAX}
   * in an exactly sized array (most Namespaces in scenario 1 have four; a Set and its table cost
   * twice the bytes), more in a Set.
   */
  pods: PodSlot | PodSlot[] | Set<PodSlot>;
  /**
   * `key=value` -> pods, only once the Namespace has {@link NS_LABEL_INDEX_MIN} pods: in small
   * ones scanning the pods is cheaper than keeping an index entry per label.
   */
  labelIndex: MultiIndex<PodSlot> | undefined;
  /** Labels with the implied name label (undefined: not read since the Namespace last changed). */
  labels: Record<string, string> | undefined;
}

const NO_PODS: readonly PodSlot[] = [];

/** Pods a Namespace keeps in an array before a Set (see {@link NamespacePods.pods}). */
const NS_PODS_LIST_MAX = 16;

function podsOf(n: NamespacePods | undefined): Iterable<PodSlot> {
  if (n === undefined) return NO_PODS;
  const pods = n.pods;
  return pods instanceof Set || Array.isArray(pods) ? pods : [pods];
}

function podCount(n: NamespacePods | undefined): number {
  if (n === undefined) return 0;
  const pods = n.pods;
  return pods instanceof Set ? pods.size : Array.isArray(pods) ? pods.length : 1;
}

/** The input objects the index reads, by object key (read only: the engine's inputs; pods are the index's own). */
export interface MemberInputs {
  readonly namespaces: ReadonlyMap<string, Namespace>;
  readonly nodes: ReadonlyMap<string, Node>;
  readonly externalEntities: ReadonlyMap<string, ExternalEntity>;
}

/** Options of {@link MemberIndex}. */
export interface MemberIndexOptions {
  inputs: MemberInputs;
}

/** A pod event that may change group membership: the groups to re-check are found from these. */
export interface PodChange {
  readonly member: MemberKey;
  readonly namespace: string;
  /** The pod's label sets to look groups up by: the new one, and the old one when it differs. */
  readonly labelSets: readonly (Readonly<Record<string, string>> | undefined)[];
}

/** The member key of a pod: `p:<namespace>/<name>`, built with join (one flat string: every index keeps it). */
export function podMemberKey(pod: Pod): MemberKey {
  return ['p:', pod.metadata.namespace ?? 'default', '/', pod.metadata.name ?? ''].join('');
}

/**
 * The stored pods by object key (`Pod/<namespace>/<name>`), read from their slots: a pod is kept
 * once, in its slot, instead of also in a map of inputs keyed by another string. Iterates in the
 * order pods were first added, as that map did. Read only.
 */
class StoredPods implements ReadonlyMap<string, Pod> {
  constructor(private readonly slots: ReadonlyMap<MemberKey, PodSlot>) {}

  get size(): number {
    return this.slots.size;
  }

  get(key: string): Pod | undefined {
    return key.startsWith('Pod/') ? this.slots.get(`p:${key.slice(4)}`)?.pod : undefined;
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  *entries(): MapIterator<[string, Pod]> {
    for (const slot of this.slots.values()) yield [`Pod/${slot.mk.slice(2)}`, slot.pod];
  }

  *keys(): MapIterator<string> {
    for (const [k] of this.entries()) yield k;
  }

  *values(): MapIterator<Pod> {
    for (const slot of this.slots.values()) yield slot.pod;
  }

  forEach(fn: (value: Pod, key: string, map: ReadonlyMap<string, Pod>) => void, thisArg?: unknown): void {
    for (const [k, v] of this.entries()) fn.call(thisArg, v, k, this);
  }

  [Symbol.iterator](): MapIterator<[string, Pod]> {
    return this.entries();
  }
}

/** Members, their cached facts and the candidate indexes. The caller updates its inputs first (pods are stored here, by {@link MemberIndex.setPod}). */
export class MemberIndex {
  /** IP -> member key. */
  readonly ipOwners = new Map<string, MemberKey>();
  private readonly inputs: MemberInputs;
  // Pod indexes hold pod slots (member key, pod, facts), so candidates need no string building
  // and no second lookup.
  /** Namespaces with pods (in the order they got their first pod). */
  private readonly podsByNs = new Map<string, NamespacePods>();
  /** `key=value` -> pods, cluster-wide; built on first use by a Namespace-less selector. */
  private podsByLabel: MultiIndex<PodSlot> | undefined;
  /** ExternalEntities (`ns/name`) by Namespace. */
  private readonly eesByNs = new MultiIndex<string>();
  /** Pods by member key with their cached facts: one lookup serves both (this is the hottest map). */
  private readonly podOf = new Map<MemberKey, PodSlot>();
  /** Cached facts of ExternalEntity and Node members (null: not selectable). Pods keep theirs in {@link PodSlot}. */
  private readonly infoCache = new Map<MemberKey, MemberInfo | null>();
  /** The stored pods by object key (`engine.pods`), a read-only view of the slots. */
  readonly pods: ReadonlyMap<string, Pod> = new StoredPods(this.podOf);

  constructor(options: MemberIndexOptions) {
    this.inputs = options.inputs;
  }

  /** The stored version of the pod with member key `mk` (see {@link podMemberKey}). */
  storedPod(mk: MemberKey): Pod | undefined {
    return this.podOf.get(mk)?.pod;
  }

  /**
   * Stores and indexes a pod's new version (`pod` undefined: deleted; `old`: the version stored
   * until now, {@link MemberIndex.storedPod}). Returns what group membership must re-check, or
   * undefined when the pod's labels are the same and so is everything a group records of it (its
   * facts, member object and node): status churn stops here. `mk`: the pod's member key when the
   * caller has it.
   */
  setPod(old: Pod | undefined, pod: Pod | undefined, mk?: MemberKey): PodChange | undefined {
    const some = pod ?? old;
    if (some === undefined) return undefined;
    mk ??= podMemberKey(some);
    const ns = some.metadata.namespace ?? 'default';
    let slot = this.podOf.get(mk);
    const before = slot?.info;
    this.trackIps(mk, old ? podIps(old) : [], pod && !pod.spec?.hostNetwork ? podIps(pod) : []);
    const oldLabels = old?.metadata.labels;
    const newLabels = pod?.metadata.labels;
    const labelsSame = old !== undefined && pod !== undefined && sameLabels(oldLabels, newLabels);
    if (!labelsSame && old && slot) this.indexLabels(slot, oldLabels, false);
    if (pod) {
      if (slot) {
        slot.pod = pod;
        slot.info = undefined;
      } else this.podOf.set(mk, (slot = this.addSlot(ns, mk, pod)));
      if (!labelsSame) this.indexLabels(slot, newLabels, true);
    } else if (slot) {
      this.podOf.delete(mk);
      this.removeSlot(ns, slot);
    }
    if (labelsSame && before !== undefined) {
      // Labels unchanged: group membership is decided by the same facts unless the service
      // account or selectability changed; when the member object is equal too, nothing moves.
      const after = this.memberInfo(mk);
      if (before === null ? after === undefined : after !== undefined && after.node === before.node && after.facts.serviceAccount === before.facts.serviceAccount && sameMember(after.member, before.member)) return undefined;
    }
    return { member: mk, namespace: ns, labelSets: labelsSame ? [newLabels] : [oldLabels, newLabels] };
  }

  /** Indexes an ExternalEntity's new version (undefined: deleted); returns its member key. */
  setExternalEntity(old: ExternalEntity | undefined, ee: ExternalEntity | undefined): MemberKey {
    const ns = (ee ?? old)?.metadata.namespace ?? 'default';
    const eeKey = `${ns}/${(ee ?? old)?.metadata.name ?? ''}`;
    const mk = `e:${eeKey}`;
    this.trackIps(mk, entityIps(old), entityIps(ee));
    if (ee) this.eesByNs.add(ns, eeKey);
    else this.eesByNs.delete(ns, eeKey);
    this.infoCache.delete(mk);
    return mk;
  }

  /** Indexes a Node's new version (undefined: deleted); returns its member key. */
  setNode(name: string, old: Node | undefined, node: Node | undefined): MemberKey {
    const mk = `n:${name}`;
    this.trackIps(mk, nodeIps(old), nodeIps(node));
    this.infoCache.delete(mk);
    return mk;
  }

  /** Drops the cached facts of a deleted ExternalEntity or Node (evaluating it cached a null). */
  forget(mk: MemberKey): void {
    this.infoCache.delete(mk);
  }

  /**
   * A Namespace's labels changed: drops the cached facts of its members (they carry the
   * Namespace's labels) and returns them, pods first.
   */
  namespaceChanged(ns: string): MemberKey[] {
    const nsPods = this.podsByNs.get(ns);
    if (nsPods) nsPods.labels = undefined;
    const pods = [...podsOf(nsPods)];
    for (const slot of pods) slot.info = undefined;
    const ees = [...this.eesByNs.get(ns)].map((e) => `e:${e}`);
    for (const m of ees) this.infoCache.delete(m);
    return pods.map((slot) => slot.mk).concat(ees);
  }

  /** Facts, group member and node of a member key (cached); undefined when it does not exist or is not selectable. */
  memberInfo(mk: MemberKey): MemberInfo | undefined {
    if (mk.charCodeAt(0) === 112 /* 'p' */) {
      const slot = this.podOf.get(mk);
      return slot ? this.slotInfo(slot) : undefined;
    }
    const c = this.infoCache.get(mk);
    if (c !== undefined) return c ?? undefined;
    const info = this.otherInfo(mk.slice(0, 1), mk.slice(2));
    this.infoCache.set(mk, info ?? null);
    return info;
  }

  /** Candidate member keys of a leaf, narrowed by the label and Namespace indexes. */
  candidates(l: Leaf): Iterable<MemberKey> {
    if (l.kind !== 'pod') return this.otherCandidates(l);
    return [...this.podCandidates(l)].map((slot) => slot.mk);
  }

  /**
   * Calls `visit` with each candidate of a leaf and its facts (undefined: not selectable), in
   * the order of {@link MemberIndex.candidates}; pods need no lookup by key.
   */
  visitCandidates(l: Leaf, visit: (mk: MemberKey, info: MemberInfo | undefined, holder: GroupsHolder | undefined) => void): void {
    if (l.kind !== 'pod') {
      for (const mk of this.otherCandidates(l)) visit(mk, this.memberInfo(mk), undefined);
      return;
    }
    for (const slot of this.podCandidates(l)) visit(slot.mk, this.slotInfo(slot), slot);
  }

  /** Where a pod keeps the names of its groups (its slot); undefined for other members and absent pods. */
  groupsHolder(mk: MemberKey): GroupsHolder | undefined {
    return mk.charCodeAt(0) === 112 /* 'p' */ ? this.podOf.get(mk) : undefined;
  }

  /** Pods in groups with the names of their groups, in the order pods were first added. */
  *podGroups(): IterableIterator<[MemberKey, Set<string>]> {
    for (const slot of this.podOf.values()) if (slot.groups !== undefined) yield [slot.mk, groupSetOf(slot.groups) as Set<string>];
  }

  private slotInfo(slot: PodSlot): MemberInfo | undefined {
    if (slot.info === undefined) slot.info = this.podInfo(slot) ?? null;
    return slot.info ?? undefined;
  }

  private otherCandidates(l: Leaf): MemberKey[] {
    if (l.kind === 'node') return [...this.inputs.nodes.keys()].map((k) => `n:${k.slice(5)}`);
    const src = l.ns !== undefined ? [...this.eesByNs.get(l.ns)] : [...this.inputs.externalEntities.keys()].map((k) => k.slice('ExternalEntity/'.length));
    return src.map((k) => `e:${k}`);
  }

  private podCandidates(l: Leaf): Iterable<PodSlot> {
    const keys = indexKeysOf(l.sel);
    if (l.ns !== undefined) {
      // Namespace + one `In` requirement: exactly the pods carrying one of its values there.
      const nsPods = this.podsByNs.get(l.ns);
      if (keys[0] === '*' || nsPods === undefined) return podsOf(nsPods);
      const index = this.namespaceLabelIndex(nsPods);
      if (!index) return podsOf(nsPods);
      return lookup(index, keys);
    }
    if (keys[0] !== '*') return lookup(this.clusterLabelIndex(), keys);
    if (l.nsSel && l.nsSel.requirements.length > 0) {
      // Cluster-wide pods restricted by a Namespace selector: the pods of the matching Namespaces.
      const out: PodSlot[] = [];
      for (const n of this.inputs.namespaces.values()) {
        const nsPods = this.podsByNs.get(n.metadata.name ?? '');
        if (nsPods && matchesNormalized(l.nsSel, this.podNamespaceLabels(n.metadata.name ?? '', nsPods))) for (const p of podsOf(nsPods)) out.push(p);
      }
      return out;
    }
    const out: PodSlot[] = [];
    for (const nsPods of this.podsByNs.values()) for (const p of podsOf(nsPods)) out.push(p);
    return out;
  }

  /** A new pod's slot, added to its Namespace's pods (which are created with the first pod). */
  private addSlot(ns: string, mk: MemberKey, pod: Pod): PodSlot {
    const nsPods = this.podsByNs.get(ns);
    if (nsPods === undefined) {
      const created: NamespacePods = { pods: undefined as unknown as PodSlot, labelIndex: undefined, labels: undefined };
      const slot: PodSlot = { mk, ns: created, pod, info: undefined, groups: undefined };
      created.pods = slot;
      this.podsByNs.set(ns, created);
      return slot;
    }
    const slot: PodSlot = { mk, ns: nsPods, pod, info: undefined, groups: undefined };
    const pods = nsPods.pods;
    if (pods instanceof Set) pods.add(slot);
    // concat: an exactly sized array (a pushed one keeps room for more).
    else if (!Array.isArray(pods)) nsPods.pods = [pods, slot];
    else if (pods.length < NS_PODS_LIST_MAX) nsPods.pods = pods.concat(slot);
    else nsPods.pods = new Set<PodSlot>(pods).add(slot);
    return slot;
  }

  /** Removes a deleted pod's slot; a Namespace without pods is forgotten (its label index and labels too). */
  private removeSlot(ns: string, slot: PodSlot): void {
    const nsPods = slot.ns;
    const pods = nsPods.pods;
    if (pods instanceof Set) {
      pods.delete(slot);
      if (pods.size === 1) nsPods.pods = pods.values().next().value as PodSlot;
    } else if (Array.isArray(pods)) {
      const rest = pods.filter((p) => p !== slot);
      nsPods.pods = rest.length === 1 ? (rest[0] as PodSlot) : rest;
    } else this.podsByNs.delete(ns);
  }

  private indexLabels(slot: PodSlot, labels: Readonly<Record<string, string>> | undefined, add: boolean): void {
    const nsIndex = slot.ns.labelIndex;
    // Neither index built yet (a bulk load adds pods first): nothing to do.
    if (!nsIndex && !this.podsByLabel) return;
    for (const [k, v] of Object.entries(labels ?? {})) {
      if (add) {
        this.podsByLabel?.add(`${k}=${v}`, slot);
        nsIndex?.add(`${k}=${v}`, slot);
      } else {
        this.podsByLabel?.delete(`${k}=${v}`, slot);
        nsIndex?.delete(`${k}=${v}`, slot);
      }
    }
  }

  private trackIps(mk: MemberKey, before: string[], after: string[]): void {
    for (const ip of before) if (this.ipOwners.get(ip) === mk) this.ipOwners.delete(ip);
    for (const ip of after) this.ipOwners.set(ip, mk);
  }

  /** The label index of a Namespace, built once it has enough pods to be worth it. */
  private namespaceLabelIndex(nsPods: NamespacePods): MultiIndex<PodSlot> | undefined {
    let index = nsPods.labelIndex;
    if (index || podCount(nsPods) < NS_LABEL_INDEX_MIN) return index;
    index = new MultiIndex<PodSlot>();
    for (const slot of podsOf(nsPods)) {
      for (const [k, v] of Object.entries(slot.pod.metadata.labels ?? {})) index.add(`${k}=${v}`, slot);
    }
    nsPods.labelIndex = index;
    return index;
  }

  private clusterLabelIndex(): MultiIndex<PodSlot> {
    if (!this.podsByLabel) {
      const index = new MultiIndex<PodSlot>();
      // Slots are in the order pods were first added, as the inputs are.
      for (const slot of this.podOf.values()) {
        for (const [k, v] of Object.entries(slot.pod.metadata.labels ?? {})) index.add(`${k}=${v}`, slot);
      }
      this.podsByLabel = index;
    }
    return this.podsByLabel;
  }

  /** Labels of a Namespace as selectors see them (cached with its pods when it has some). */
  private nsLabelsOf(ns: string): Record<string, string> {
    const nsPods = this.podsByNs.get(ns);
    return nsPods ? this.podNamespaceLabels(ns, nsPods) : namespaceLabels(ns, this.inputs.namespaces.get(`Namespace/${ns}`)?.metadata.labels);
  }

  private podNamespaceLabels(ns: string, nsPods: NamespacePods): Record<string, string> {
    return (nsPods.labels ??= namespaceLabels(ns, this.inputs.namespaces.get(`Namespace/${ns}`)?.metadata.labels));
  }

  private podInfo(slot: PodSlot): MemberInfo | undefined {
    const pod = slot.pod;
    if (pod.spec?.hostNetwork || pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') return undefined;
    // The pod's own strings (its member key is `p:<namespace>/<name>` of the same fields).
    const ns = pod.metadata.namespace ?? 'default';
    const ports: controlplane.NamedPort[] = [];
    for (const c of pod.spec?.containers ?? []) for (const p of c.ports ?? []) if (p.name) ports.push({ name: p.name, port: p.containerPort, protocol: p.protocol ?? 'TCP' });
    const member: controlplane.GroupMember = { pod: { name: pod.metadata.name ?? '', namespace: ns }, ips: podIps(pod) };
    if (ports.length > 0) member.ports = ports;
    // One object per pod: the facts are the info itself (`facts` points back to it).
    const info: MemberInfo & MemberFacts = { kind: 'pod', namespace: ns, labels: pod.metadata.labels, nsLabels: this.podNamespaceLabels(ns, slot.ns), member, node: pod.spec?.nodeName ?? '', facts: undefined as unknown as MemberFacts };
    info.facts = info;
    const sa = pod.spec?.serviceAccountName ?? pod.spec?.serviceAccount;
    if (sa !== undefined) info.serviceAccount = sa;
    return info;
  }

  /** Facts of an ExternalEntity (`e`) or Node (`n`) member. */
  private otherInfo(kind: string, rest: string): MemberInfo | undefined {
    if (kind === 'e') {
      const ee = this.inputs.externalEntities.get(`ExternalEntity/${rest}`);
      if (!ee) return undefined;
      const ns = ee.metadata.namespace ?? 'default';
      const member: controlplane.GroupMember = { externalEntity: { name: ee.metadata.name ?? '', namespace: ns }, ips: entityIps(ee) };
      const ports = (ee.spec.ports ?? []).filter((p) => p.name && p.port).map((p) => ({ name: p.name as string, port: p.port as number, protocol: p.protocol ?? 'TCP' }));
      if (ports.length > 0) member.ports = ports;
      return { facts: { kind: 'ee', namespace: ns, labels: ee.metadata.labels, nsLabels: this.nsLabelsOf(ns) }, member, node: ee.spec.externalNode ?? '' };
    }
    const node = this.inputs.nodes.get(`Node/${rest}`);
    if (!node) return undefined;
    return { facts: { kind: 'node', namespace: '', labels: node.metadata.labels, nsLabels: undefined }, member: { node: { name: rest }, ips: nodeIps(node) }, node: rest };
  }
}

/** Values of one key of an index, or of several (a selector's `In` values). */
function lookup(index: MultiIndex<PodSlot>, keys: readonly string[]): Iterable<PodSlot> {
  return keys.length === 1 ? index.get(keys[0] as string) : keys.flatMap((k) => [...index.get(k)]);
}
