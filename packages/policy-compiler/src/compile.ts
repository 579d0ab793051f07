// Compiles one user-facing policy into an internal NetworkPolicy plus the group definitions it uses.
import type {
  AdminNetworkPolicy,
  AdminNetworkPolicyPort,
  AntreaNetworkPolicyPeer,
  AntreaNetworkPolicyPort,
  AppliedTo,
  BaselineAdminNetworkPolicy,
  ClusterNetworkPolicy,
  AntreaNetworkPolicy,
  GroupSpec,
  K8sNetworkPolicy,
  LabelSelector,
  NamespacedPod,
  NetworkPolicyPeer as K8sPeer,
  NetworkPolicyPort,
  NetworkPolicyProtocol,
  PolicyType,
  Rule,
  Service as K8sService,
  controlplane,
} from '@switchyard/apis/types';
import { parseCidr } from '@switchyard/ipam/cidr';
import { andSel, groupOf, groupOfOwned, NAMESPACE_NAME_LABEL, namespaceLabels, selOrAll, type GroupDef, type Leaf } from './leaf';
import { EVERYTHING, fromRequirements, matchesNormalized, normalizeSelector, type NormalizedSelector } from './selector';
import { SmallMap, SoloMap } from './small-collections';
import { ANP_TIER_PRIORITY, BANP_TIER_PRIORITY, DEFAULT_TIER } from './validate';

/** Cluster facts a policy's compilation depends on (each read is recorded as a dependency). */
export interface CompileContext {
  tierPriority(name: string): number | undefined;
  clusterGroup(name: string): GroupSpec | undefined;
  group(namespace: string, name: string): GroupSpec | undefined;
  service(namespace: string, name: string): K8sService | undefined;
  /** Namespaces with their labels (for `namespaces.match: Self` and `sameLabels`). */
  namespaces(): Iterable<{ name: string; labels: Record<string, string> | undefined }>;
  /** Multi-cluster label identities (label string, id). */
  labelIdentities(): Iterable<{ label: string; id: number }>;
}

/** A compiled policy: the internal object, the groups it references by name and what it read. */
export interface CompiledPolicy {
  policy: controlplane.NetworkPolicy;
  addressGroups: Map<string, GroupDef>;
  appliedToGroups: Map<string, GroupDef>;
  /** Dependency keys (`tier:x`, `cg:x`, `grp:ns/x`, `svc:ns/x`, `ns:*`, `li:*`). */
  deps: Set<string>;
}

const ALL_IPS: controlplane.IPBlock[] = [
  { cidr: '0.0.0.0/0', except: [] },
  { cidr: '::/0', except: [] },
];

function emptyPeer(): controlplane.NetworkPolicyPeer {
  return { addressGroups: [], ipBlocks: [] };
}

// Shared, frozen parts of compiled policies (which are read only): tens of thousands of policies
// would otherwise each keep their own empty peer (three objects) on the side a rule does not
// select, their own empty service list and their own copy of the same policyTypes.
const NO_STRINGS = Object.freeze([]) as unknown as string[];
/** The peer on the side of a rule that selects nothing (`to` of an ingress rule, `from` of an egress rule). */
const NO_IPBLOCKS = Object.freeze([]) as unknown as controlplane.IPBlock[];
const NO_PEER: controlplane.NetworkPolicyPeer = Object.freeze({ addressGroups: NO_STRINGS, ipBlocks: NO_IPBLOCKS });
const NO_SERVICES = Object.freeze([]) as unknown as controlplane.Service[];
const NO_RULES = Object.freeze([]) as unknown as controlplane.NetworkPolicyRule[];
const POLICY_TYPES: Readonly<Record<string, PolicyType[]>> = {
  Ingress: Object.freeze(['Ingress']) as unknown as PolicyType[],
  Egress: Object.freeze(['Egress']) as unknown as PolicyType[],
  'Ingress,Egress': Object.freeze(['Ingress', 'Egress']) as unknown as PolicyType[],
  'Egress,Ingress': Object.freeze(['Egress', 'Ingress']) as unknown as PolicyType[],
};
/** `types`, or the shared frozen list equal to it. */
function sharedPolicyTypes(types: PolicyType[]): PolicyType[] {
  return (types.length <= 2 ? POLICY_TYPES[types.join(',')] : undefined) ?? types;
}
/** The distinct group names of a peer, in order, in an exactly sized array (a pushed one keeps room for 16). */
function distinct(names: string[]): string[] {
  return names.length === 1 ? [names[0] as string] : [...new Set(names)];
}
/**
 * A compiled policy's group map of one role as it is kept: one shared empty map when it uses no
 * group in that role (compiled policies are read only), a {@link SoloMap} for one group (most
 * policies), the builder's map otherwise.
 */
const NO_GROUP_DEFS: Map<string, GroupDef> = new SmallMap<string, GroupDef>();
function groupDefs(m: Map<string, GroupDef>): Map<string, GroupDef> {
  if (m.size === 0) return NO_GROUP_DEFS;
  if (m.size > 1) return m;
  const [name, def] = m.entries().next().value as [string, GroupDef];
  return new SoloMap<string, GroupDef>().set(name, def);
}

/** Every pod of every Namespace (Antrea's `matchAllPodsPeer`). */
const ALL_PODS_LEAF: Leaf = { kind: 'pod', nsSel: EVERYTHING, sel: EVERYTHING };

/** True when some port of the rule is a named port (a container port name, resolved per pod). */
function hasNamedPort(services: readonly controlplane.Service[]): boolean {
  return services.some((s) => typeof s.port === 'string');
}

/**
 * The peer of a rule without peers: every address. An egress rule with a named port also gets
 * an address group of every pod, as Antrea does: agents resolve a named port against the pods
 * of the rule's address groups (an ipBlock carries no container ports), so without the group
 * the rule would match nothing. Ingress named ports resolve against the applied-to pods instead.
 */
function matchAllPeer(b: Builder, direction: controlplane.Direction, services: readonly controlplane.Service[]): controlplane.NetworkPolicyPeer {
  const peer: controlplane.NetworkPolicyPeer = { addressGroups: [], ipBlocks: ALL_IPS.map((x) => ({ ...x })) };
  if (direction === 'Out' && hasNamedPort(services)) peer.addressGroups.push(b.addr([ALL_PODS_LEAF]));
  return peer;
}

function canonCidr(text: string): string {
  return parseCidr(text).toString();
}

/**
 * The dependencies of most policies (those reading no Tier, group, Service or Namespace list):
 * one shared empty set instead of one per policy. Never written: compiled policies are read only.
 */
const NO_DEPS: Set<string> = new Set();

function depsOf(b: Builder): Set<string> {
  return b.hasDeps ? b.deps : NO_DEPS;
}

/** Accumulates one compilation's groups and dependencies. */
class Builder {
  // Most policies use one or two groups of each role: inline maps (see small-collections.ts).
  readonly addressGroups: Map<string, GroupDef> = new SmallMap<string, GroupDef>();
  readonly appliedToGroups: Map<string, GroupDef> = new SmallMap<string, GroupDef>();
  private depSet: Set<string> | undefined;
  constructor(readonly ctx: CompileContext) {}

  /** What the compilation read (created on the first dependency: most policies read none). */
  get deps(): Set<string> {
    return (this.depSet ??= new Set<string>());
  }
  get hasDeps(): boolean {
    return this.depSet !== undefined && this.depSet.size > 0;
  }

  /** `owned`: `leaves` is a literal handed over (see {@link groupOfOwned}). */
  addr(leaves: Leaf[], owned = false): string {
    const g = owned ? groupOfOwned(leaves) : groupOf(leaves);
    this.addressGroups.set(g.name, g);
    return g.name;
  }
  applied(leaves: Leaf[], owned = false): string {
    const g = owned ? groupOfOwned(leaves) : groupOf(leaves);
    this.appliedToGroups.set(g.name, g);
    return g.name;
  }

  /** Leaves and ipBlocks of a ClusterGroup (namespace undefined) or Group, children included. */
  resolveGroup(namespace: string | undefined, name: string, seen = new Set<string>()): { leaves: Leaf[]; ipBlocks: controlplane.IPBlock[] } {
    const out = { leaves: [] as Leaf[], ipBlocks: [] as controlplane.IPBlock[] };
    if (seen.has(name)) return out; // cycles are refused by validation; this only guards
    seen.add(name);
    this.deps.add(namespace === undefined ? `cg:${name}` : `grp:${namespace}/${name}`);
    const spec = namespace === undefined ? this.ctx.clusterGroup(name) : this.ctx.group(namespace, name);
    if (!spec) return out;
    const pod = spec.podSelector ? normalizeSelector(spec.podSelector) : undefined;
    const nss = spec.namespaceSelector ? normalizeSelector(spec.namespaceSelector) : undefined;
    if (spec.externalEntitySelector) {
      out.leaves.push(scoped('ee', namespace, nss, normalizeSelector(spec.externalEntitySelector)));
    } else if (pod || nss) {
      out.leaves.push(scoped('pod', namespace, nss, pod ?? EVERYTHING));
    }
    if (spec.nodeSelector) out.leaves.push({ kind: 'node', sel: normalizeSelector(spec.nodeSelector) });
    if (spec.serviceReference) out.leaves.push(...this.serviceLeaves(spec.serviceReference.namespace, spec.serviceReference.name));
    for (const b of spec.ipBlocks ?? []) out.ipBlocks.push(ipBlockOf(b));
    for (const child of spec.childGroups ?? []) {
      const r = this.resolveGroup(namespace, child, seen);
      out.leaves.push(...r.leaves);
      out.ipBlocks.push(...r.ipBlocks);
    }
    return out;
  }

  /** Pods behind a Service: its selector in its Namespace (no selector: no pods). */
  serviceLeaves(namespace: string, name: string): Leaf[] {
    this.deps.add(`svc:${namespace}/${name}`);
    const svc = this.ctx.service(namespace, name);
    const sel = svc?.spec?.selector;
    if (!sel || Object.keys(sel).length === 0) return [];
    return [{ kind: 'pod', ns: namespace, sel: normalizeSelector({ matchLabels: sel }) }];
  }
}

/** A pod/ee leaf: namespaced policies fix the Namespace; cluster-scoped ones default to all Namespaces. */
function scoped(kind: 'pod' | 'ee', namespace: string | undefined, nss: NormalizedSelector | undefined, sel: NormalizedSelector): Leaf {
  if (nss) return { kind, nsSel: nss, sel };
  if (namespace !== undefined) return { kind, ns: namespace, sel };
  return { kind, nsSel: EVERYTHING, sel };
}

function ipBlockOf(b: { cidr: string; except?: readonly string[] }): controlplane.IPBlock {
  return { cidr: canonCidr(b.cidr), except: (b.except ?? []).map(canonCidr) };
}

function sourceRef(type: controlplane.NetworkPolicyType, meta: { name?: string; uid?: string }, namespace: string): controlplane.NetworkPolicyReference {
  const name = meta.name ?? '';
  // join builds one flat string; a template literal keeps a tree of concatenations per policy.
  return { type, namespace, name, uid: meta.uid ?? [type, namespace, name].join('/') };
}

// ---------------------------------------------------------------------------------------------
// networking.k8s.io/v1 NetworkPolicy

/** API-server defaulting of `policyTypes`: Ingress always, Egress when egress rules exist. */
export function defaultPolicyTypes(np: K8sNetworkPolicy): PolicyType[] {
  if (np.spec.policyTypes && np.spec.policyTypes.length > 0) return [...np.spec.policyTypes];
  return (np.spec.egress ?? []).length > 0 ? ['Ingress', 'Egress'] : ['Ingress'];
}

function k8sServices(ports: NetworkPolicyPort[] | undefined): controlplane.Service[] {
  if (!ports || ports.length === 0) return NO_SERVICES;
  return ports.map((p) => {
    const s: controlplane.Service = { protocol: p.protocol ?? 'TCP' };
    if (p.port !== undefined) s.port = p.port;
    if (p.endPort !== undefined) s.endPort = p.endPort;
    return s;
  });
}

function k8sPeer(b: Builder, peers: K8sPeer[] | undefined, ns: string, direction: controlplane.Direction, services: readonly controlplane.Service[]): controlplane.NetworkPolicyPeer {
  // No peers (or an empty list) matches every source/destination.
  if (!peers || peers.length === 0) return matchAllPeer(b, direction, services);
  const out = emptyPeer();
  for (const p of peers) {
    if (p.ipBlock) {
      out.ipBlocks.push(ipBlockOf(p.ipBlock));
      continue;
    }
    const leaf: Leaf = p.namespaceSelector
      ? { kind: 'pod', nsSel: normalizeSelector(p.namespaceSelector), sel: selOrAll(p.podSelector) }
      : { kind: 'pod', ns, sel: selOrAll(p.podSelector) };
    out.addressGroups.push(b.addr([leaf], true));
  }
  out.addressGroups = distinct(out.addressGroups);
  if (out.ipBlocks.length === 0) out.ipBlocks = NO_IPBLOCKS;
  return out;
}

/** Compiles a K8s NetworkPolicy. */
export function compileK8sNetworkPolicy(np: K8sNetworkPolicy, ctx: CompileContext): CompiledPolicy {
  const b = new Builder(ctx);
  const ns = np.metadata.namespace ?? 'default';
  const types = defaultPolicyTypes(np);
  const appliedTo = b.applied([{ kind: 'pod', ns, sel: selOrAll(np.spec.podSelector) }], true);
  // Built with map and concat, which size the arrays exactly: an array grown by push keeps room
  // for 16 entries, and tens of thousands of compiled policies keep their rule lists.
  const ingress = !types.includes('Ingress') ? [] : (np.spec.ingress ?? []).map((r, i): controlplane.NetworkPolicyRule => {
    const services = k8sServices(r.ports);
    return { direction: 'In', from: k8sPeer(b, r.from, ns, 'In', services), to: NO_PEER, services, priority: i, enableLogging: false };
  });
  const egress = !types.includes('Egress') ? [] : (np.spec.egress ?? []).map((r, i): controlplane.NetworkPolicyRule => {
    const services = k8sServices(r.ports);
    return { direction: 'Out', from: NO_PEER, to: k8sPeer(b, r.to, ns, 'Out', services), services, priority: i, enableLogging: false };
  });
  const rules = egress.length === 0 ? (ingress.length === 0 ? NO_RULES : ingress) : ingress.concat(egress);
  const ref = sourceRef('K8sNetworkPolicy', np.metadata, ns);
  return {
    policy: { uid: ref.uid, name: ref.name, namespace: ns, sourceRef: ref, rules, appliedToGroups: [appliedTo], policyTypes: sharedPolicyTypes(types), generation: np.metadata.generation ?? 1 },
    addressGroups: groupDefs(b.addressGroups),
    appliedToGroups: groupDefs(b.appliedToGroups),
    deps: depsOf(b),
  };
}

// ---------------------------------------------------------------------------------------------
// crd.antrea.io ClusterNetworkPolicy / NetworkPolicy

function antreaServices(ports: AntreaNetworkPolicyPort[] | undefined, protocols: NetworkPolicyProtocol[] | undefined): controlplane.Service[] {
  const out: controlplane.Service[] = [];
  for (const p of ports ?? []) {
    const s: controlplane.Service = { protocol: p.protocol ?? 'TCP' };
    if (p.port !== undefined) s.port = p.port;
    if (p.endPort !== undefined) s.endPort = p.endPort;
    if (p.sourcePort !== undefined) s.srcPort = p.sourcePort;
    if (p.sourceEndPort !== undefined) s.srcEndPort = p.sourceEndPort;
    out.push(s);
  }
  for (const p of protocols ?? []) {
    if (p.icmp) {
      const s: controlplane.Service = { protocol: 'ICMP' };
      if (p.icmp.icmpType !== undefined) s.icmpType = p.icmp.icmpType;
      if (p.icmp.icmpCode !== undefined) s.icmpCode = p.icmp.icmpCode;
      out.push(s);
    } else if (p.igmp) {
      const s: controlplane.Service = { protocol: 'IGMP' };
      if (p.igmp.igmpType !== undefined) s.igmpType = p.igmp.igmpType;
      if (p.igmp.groupAddress !== undefined) s.groupAddress = p.igmp.groupAddress;
      out.push(s);
    }
  }
  return out;
}

/** Leaves of one appliedTo entry (`namespace` set for namespaced policies). */
function appliedToLeaves(b: Builder, a: AppliedTo, namespace: string | undefined): Leaf[] {
  if (a.group) return b.resolveGroup(namespace, a.group).leaves;
  if (a.serviceAccount) return [{ kind: 'pod', ns: a.serviceAccount.namespace, sel: EVERYTHING, sa: a.serviceAccount.name }];
  if (a.service) return b.serviceLeaves(a.service.namespace, a.service.name);
  if (a.nodeSelector) return [{ kind: 'node', sel: normalizeSelector(a.nodeSelector) }];
  const nss = a.namespaceSelector ? normalizeSelector(a.namespaceSelector) : undefined;
  if (a.externalEntitySelector) return [scoped('ee', namespace, nss, normalizeSelector(a.externalEntitySelector))];
  if (a.podSelector || nss) return [scoped('pod', namespace, nss, selOrAll(a.podSelector))];
  return [];
}

/** Restricts leaves to Namespaces also matching `extra` (for Self / sameLabels expansion). */
function restrictLeaves(leaves: Leaf[], extra: NormalizedSelector): Leaf[] {
  return leaves.map((l) => (l.kind === 'node' ? l : { ...l, nsSel: andSel(l.nsSel, extra) }));
}

/** Parses a label identity string `ns:k=v,k=v&pod:k=v`. */
function parseLabelIdentity(label: string): { ns: Record<string, string>; pod: Record<string, string> } {
  const out = { ns: {} as Record<string, string>, pod: {} as Record<string, string> };
  for (const part of label.split('&')) {
    const colon = part.indexOf(':');
    const which = part.slice(0, colon);
    const target = which === 'ns' ? out.ns : which === 'pod' ? out.pod : undefined;
    if (!target) continue;
    for (const kv of part.slice(colon + 1).split(',')) {
      const eq = kv.indexOf('=');
      if (eq > 0) target[kv.slice(0, eq)] = kv.slice(eq + 1);
    }
  }
  return out;
}

interface PeerOptions {
  /** Namespace for Self expansion (peer pods in exactly this Namespace). */
  selfNamespace?: string;
  /** Extra Namespace restriction for sameLabels expansion. */
  sameLabels?: NormalizedSelector;
}

function antreaPeer(b: Builder, peers: (AntreaNetworkPolicyPeer)[] | undefined, namespace: string | undefined, opts: PeerOptions, direction: controlplane.Direction, services: readonly controlplane.Service[]): controlplane.NetworkPolicyPeer {
  if (!peers || peers.length === 0) return matchAllPeer(b, direction, services);
  const out = emptyPeer();
  for (const p of peers) {
    if (p.ipBlock) {
      out.ipBlocks.push(ipBlockOf(p.ipBlock));
      continue;
    }
    if (p.fqdn !== undefined) {
      (out.fqdns ??= []).push(p.fqdn);
      continue;
    }
    if (p.group) {
      const r = b.resolveGroup(namespace, p.group);
      out.addressGroups.push(b.addr(r.leaves));
      out.ipBlocks.push(...r.ipBlocks);
      continue;
    }
    let leaves: Leaf[] = [];
    if (p.serviceAccount) leaves = [{ kind: 'pod', ns: p.serviceAccount.namespace, sel: EVERYTHING, sa: p.serviceAccount.name }];
    else if (p.nodeSelector) leaves = [{ kind: 'node', sel: normalizeSelector(p.nodeSelector) }];
    else {
      const kind = p.externalEntitySelector ? 'ee' : 'pod';
      const sel = p.externalEntitySelector ? normalizeSelector(p.externalEntitySelector) : selOrAll(p.podSelector);
      if (p.namespaces?.match === 'Self' && opts.selfNamespace !== undefined) leaves = [{ kind, ns: opts.selfNamespace, sel }];
      else if (p.namespaces?.sameLabels && opts.sameLabels) leaves = [{ kind, nsSel: opts.sameLabels, sel }];
      else if (p.namespaceSelector) leaves = [{ kind, nsSel: normalizeSelector(p.namespaceSelector), sel }];
      else if (p.podSelector || p.externalEntitySelector) leaves = [scoped(kind, namespace, undefined, sel)];
    }
    if (leaves.length > 0) out.addressGroups.push(b.addr(leaves));
    if (p.scope === 'ClusterSet') {
      b.deps.add('li:*');
      const nsSel = p.namespaceSelector ? normalizeSelector(p.namespaceSelector) : namespace !== undefined ? normalizeSelector({ matchLabels: { [NAMESPACE_NAME_LABEL]: namespace } }) : EVERYTHING;
      const podSel = selOrAll(p.podSelector);
      for (const li of b.ctx.labelIdentities()) {
        const parsed = parseLabelIdentity(li.label);
        if (matchesNormalized(nsSel, parsed.ns) && matchesNormalized(podSel, parsed.pod)) (out.labelIdentities ??= []).push(li.id);
      }
      if (out.labelIdentities) out.labelIdentities.sort((x, y) => x - y);
    }
  }
  out.addressGroups = [...new Set(out.addressGroups)];
  return out;
}

/** Compiles an Antrea ClusterNetworkPolicy (`namespace` undefined) or Antrea NetworkPolicy. */
export function compileAntreaPolicy(obj: ClusterNetworkPolicy | AntreaNetworkPolicy, namespace: string | undefined, ctx: CompileContext): CompiledPolicy {
  const b = new Builder(ctx);
  const spec = obj.spec;
  const tier = (spec.tier ?? DEFAULT_TIER).toLowerCase();
  b.deps.add(`tier:${tier}`);
  const tierPriority = ctx.tierPriority(tier);
  const policyLeaves = (spec.appliedTo ?? []).map((a) => appliedToLeaves(b, a, namespace));
  const perRule = (spec.appliedTo ?? []).length === 0;
  const rules: controlplane.NetworkPolicyRule[] = [];
  let needsNamespaces = false;
  for (const dir of ['ingress', 'egress'] as const) {
    (spec[dir] ?? []).forEach((r: Rule, i) => {
      const peers = dir === 'ingress' ? r.from : r.to;
      const ruleLeaves = perRule ? (r.appliedTo ?? []).map((a) => appliedToLeaves(b, a, namespace)) : policyLeaves;
      const self = (peers ?? []).some((p) => p.namespaces?.match === 'Self');
      const same = (peers ?? []).find((p) => p.namespaces?.sameLabels && p.namespaces.sameLabels.length > 0)?.namespaces?.sameLabels;
      const emit = (leaves: Leaf[][], opts: PeerOptions): void => {
        const services = antreaServices(r.ports, r.protocols);
        // A toServices rule's destination is the Services alone (no all-pods group for its ports).
        const peerServices = dir === 'egress' && r.toServices && (!r.to || r.to.length === 0) ? [] : services;
        const peer = antreaPeer(b, peers, namespace, opts, dir === 'ingress' ? 'In' : 'Out', peerServices);
        if (dir === 'egress' && r.toServices) {
          peer.toServices = r.toServices.map((s) => ({ name: s.name, namespace: s.namespace ?? namespace ?? 'default', ...(s.scope ? { scope: s.scope } : {}) }));
          if (!r.to || r.to.length === 0) peer.ipBlocks = [];
        }
        const rule: controlplane.NetworkPolicyRule = {
          direction: dir === 'ingress' ? 'In' : 'Out',
          from: dir === 'ingress' ? peer : NO_PEER,
          to: dir === 'ingress' ? NO_PEER : peer,
          services,
          action: r.action ?? 'Allow',
          priority: i,
          enableLogging: r.enableLogging ?? false,
        };
        if (r.logLabel !== undefined) rule.logLabel = r.logLabel;
        if (r.name !== undefined) rule.name = r.name;
        if (perRule || opts.selfNamespace !== undefined || opts.sameLabels) {
          rule.appliedToGroups = [...new Set(leaves.map((l) => b.applied(l)))];
        }
        rules.push(rule);
      };
      if (self || same) {
        // Expanded per Namespace (Self) or per set of label values (sameLabels), as Antrea does:
        // each copy is applied to the subset of the appliedTo in those Namespaces.
        needsNamespaces = true;
        b.deps.add('ns:*');
        const groups = new Map<string, { sel: NormalizedSelector; selfNs?: string }>();
        for (const n of ctx.namespaces()) {
          const labels = namespaceLabels(n.name, n.labels);
          if (self) {
            groups.set(n.name, { sel: normalizeSelector({ matchLabels: { [NAMESPACE_NAME_LABEL]: n.name } }), selfNs: n.name });
          } else if (same) {
            if (!same.every((k) => labels[k] !== undefined)) continue;
            const req = same.map((k) => ({ key: k, op: 'In' as const, values: [labels[k] as string] }));
            const sel = fromRequirements(req);
            groups.set(sel.key, { sel });
          }
        }
        for (const key of [...groups.keys()].sort()) {
          const g = groups.get(key) as { sel: NormalizedSelector; selfNs?: string };
          const leaves = ruleLeaves.map((l) => restrictLeaves(l, g.sel));
          emit(leaves, g.selfNs !== undefined ? { selfNamespace: g.selfNs } : { sameLabels: g.sel });
        }
      } else {
        emit(ruleLeaves, {});
      }
    });
  }
  const type = namespace === undefined ? 'AntreaClusterNetworkPolicy' : 'AntreaNetworkPolicy';
  const ref = sourceRef(type, obj.metadata, namespace ?? '');
  const policy: controlplane.NetworkPolicy = {
    uid: ref.uid,
    name: ref.name,
    namespace: namespace ?? '',
    sourceRef: ref,
    rules,
    appliedToGroups: perRule || needsNamespaces ? [] : [...new Set(policyLeaves.map((l) => b.applied(l)))],
    priority: spec.priority,
    generation: obj.metadata.generation ?? 1,
  };
  if (tierPriority !== undefined) policy.tierPriority = tierPriority;
  if (perRule || needsNamespaces) {
    policy.appliedToPerRule = true;
    // Rules without their own groups (non-expanded rules of a policy-level appliedTo) get the policy's.
    const policyGroups = [...new Set(policyLeaves.map((l) => b.applied(l)))];
    for (const rule of rules) if (!rule.appliedToGroups) rule.appliedToGroups = policyGroups;
  }
  return { policy, addressGroups: b.addressGroups, appliedToGroups: b.appliedToGroups, deps: depsOf(b) };
}

// ---------------------------------------------------------------------------------------------
// policy.networking.k8s.io AdminNetworkPolicy / BaselineAdminNetworkPolicy

function nsPodLeaf(p: NamespacedPod): Leaf {
  return { kind: 'pod', nsSel: normalizeSelector(p.namespaceSelector ?? {}), sel: normalizeSelector(p.podSelector ?? {}) };
}

function nsLeaf(sel: LabelSelector): Leaf {
  return { kind: 'pod', nsSel: normalizeSelector(sel), sel: EVERYTHING };
}

function anpServices(ports: AdminNetworkPolicyPort[] | undefined): controlplane.Service[] {
  const out: controlplane.Service[] = [];
  for (const p of ports ?? []) {
    if (p.portNumber) out.push({ protocol: p.portNumber.protocol ?? 'TCP', port: p.portNumber.port });
    else if (p.portRange) out.push({ protocol: p.portRange.protocol ?? 'TCP', port: p.portRange.start, endPort: p.portRange.end });
    else if (p.namedPort !== undefined) {
      // A named port matches the container port of that name whatever its protocol.
      for (const protocol of ['TCP', 'UDP', 'SCTP'] as const) out.push({ protocol, port: p.namedPort });
    }
  }
  return out;
}

/** Compiles an AdminNetworkPolicy (`baseline` false) or the BaselineAdminNetworkPolicy. */
export function compileAdminPolicy(obj: AdminNetworkPolicy | BaselineAdminNetworkPolicy, baseline: boolean, ctx: CompileContext): CompiledPolicy {
  const b = new Builder(ctx);
  const s = obj.spec.subject;
  const subject: Leaf[] = s.pods ? [nsPodLeaf(s.pods)] : s.namespaces ? [nsLeaf(s.namespaces)] : [];
  const appliedTo = b.applied(subject);
  const rules: controlplane.NetworkPolicyRule[] = [];
  const action = (a: string): controlplane.RuleAction => (a === 'Deny' ? 'Drop' : a === 'Pass' ? 'Pass' : 'Allow');
  (obj.spec.ingress ?? []).forEach((r, i) => {
    const peer = emptyPeer();
    for (const p of r.from ?? []) {
      const leaf = p.pods ? nsPodLeaf(p.pods) : p.namespaces ? nsLeaf(p.namespaces) : undefined;
      if (leaf) peer.addressGroups.push(b.addr([leaf]));
    }
    peer.addressGroups = [...new Set(peer.addressGroups)];
    const rule: controlplane.NetworkPolicyRule = { direction: 'In', from: peer, to: NO_PEER, services: anpServices(r.ports), action: action(r.action), priority: i, enableLogging: false };
    if (r.name !== undefined) rule.name = r.name;
    rules.push(rule);
  });
  (obj.spec.egress ?? []).forEach((r, i) => {
    const peer = emptyPeer();
    for (const p of r.to ?? []) {
      if (p.networks) for (const n of p.networks) peer.ipBlocks.push({ cidr: canonCidr(n), except: [] });
      const leaf = p.pods ? nsPodLeaf(p.pods) : p.namespaces ? nsLeaf(p.namespaces) : p.nodes ? ({ kind: 'node', sel: normalizeSelector(p.nodes) } as Leaf) : undefined;
      if (leaf) peer.addressGroups.push(b.addr([leaf]));
    }
    peer.addressGroups = [...new Set(peer.addressGroups)];
    const rule: controlplane.NetworkPolicyRule = { direction: 'Out', from: NO_PEER, to: peer, services: anpServices(r.ports), action: action(r.action), priority: i, enableLogging: false };
    if (r.name !== undefined) rule.name = r.name;
    rules.push(rule);
  });
  const type = baseline ? 'BaselineAdminNetworkPolicy' : 'AdminNetworkPolicy';
  const ref = sourceRef(type, obj.metadata, '');
  return {
    policy: {
      uid: ref.uid,
      name: ref.name,
      namespace: '',
      sourceRef: ref,
      rules,
      appliedToGroups: [appliedTo],
      priority: baseline ? 1 : (obj as AdminNetworkPolicy).spec.priority,
      tierPriority: baseline ? BANP_TIER_PRIORITY : ANP_TIER_PRIORITY,
      generation: obj.metadata.generation ?? 1,
    },
    addressGroups: b.addressGroups,
    appliedToGroups: b.appliedToGroups,
    deps: depsOf(b),
  };
}
