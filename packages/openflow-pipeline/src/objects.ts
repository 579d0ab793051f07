/**
 * The node state as keyed objects: every pod, peer node, Service port, policy, group, FQDN pattern
 * and node-wide spec under a stable key, and what changed between two states. Dependency keys are
 * `<kind>:<key>` (plus `ip:<address>` for the local pod holding an address).
 */
import { PipelineError } from './errors';
import { sameValue } from './identity';
import type {
  ExternalNodeSpec, GroupMember, LocalPod, MulticlusterSpec, NetworkPolicy, NetworkPolicyRule, NodeState, RemoteNode, ServicePortSpec,
} from './state';

/** A group as the pipeline reads it. */
export interface MemberGroup {
  name: string;
  groupMembers: readonly GroupMember[];
}

/** One rule of a policy (key `<uid>/<index>`), with the policy it belongs to. */
export interface PolicyRule {
  policy: NetworkPolicy;
  index: number;
  rule: NetworkPolicyRule;
}

/** The DNS-intercept part of the FQDN spec (its addresses are objects of their own). */
export interface FqdnIntercept {
  conjId: number;
  podOfports: readonly number[];
}

/** Object kinds and their types. */
export interface ObjectKinds {
  pod: LocalPod;
  remoteNode: RemoteNode;
  service: ServicePortSpec;
  policy: NetworkPolicy;
  policyRule: PolicyRule;
  addressGroup: MemberGroup;
  appliedToGroup: MemberGroup;
  fqdnAddresses: readonly string[];
  fqdnIntercept: FqdnIntercept;
  multicluster: MulticlusterSpec;
  externalNode: ExternalNodeSpec;
}
export type ObjectKind = keyof ObjectKinds;
export type ObjectOf<K extends ObjectKind> = ObjectKinds[K];

/** Key of a node-wide object (a spec there is at most one of). */
export const NODE_KEY = 'node';

type Enumerate = (s: NodeState) => Iterable<readonly [string, unknown]>;
const one = <T>(v: T | undefined): [string, T][] => (v === undefined ? [] : [[NODE_KEY, v]]);

/** How each kind is found in the state, with its key (in state order). */
const ENUMERATE: { [K in ObjectKind]: Enumerate } = {
  pod: (s) => s.pods.map((p) => [`${p.namespace}/${p.name}`, p] as const),
  remoteNode: (s) => s.remoteNodes.map((n) => [n.name, n] as const),
  service: (s) => (s.services ?? []).map((x) => [String(x.groupId), x] as const),
  policy: (s) => s.policies.map((p) => [p.uid, p] as const),
  policyRule: (s) => s.policies.flatMap((policy) => policy.rules.map((rule, index) => [`${policy.uid}/${index}`, { policy, index, rule }] as const)),
  addressGroup: (s) => s.addressGroups.map((g) => [g.name, g] as const),
  appliedToGroup: (s) => s.appliedToGroups.map((g) => [g.name, g] as const),
  fqdnAddresses: (s) => Object.entries(s.fqdn?.addresses ?? {}),
  fqdnIntercept: (s) => one(s.fqdn && { conjId: s.fqdn.conjId, podOfports: s.fqdn.podOfports }),
  multicluster: (s) => one(s.multicluster),
  externalNode: (s) => one(s.externalNode),
};

export const OBJECT_KINDS = Object.keys(ENUMERATE) as ObjectKind[];

/** Dependency key of an object (`serviceRef:<namespace>/<name>`: the ports of a Service, by its name). */
export const depKey = (kind: ObjectKind | 'ip' | 'serviceRef', key: string): string => `${kind}:${key}`;

/**
 * The objects of one node state by kind and key, and local pods by address. It keeps the state's
 * top-level fields as they were (a shallow copy): callers replace arrays and objects to change the
 * state, they do not edit them in place.
 */
export class ObjectIndex {
  readonly byKind = new Map<ObjectKind, Map<string, unknown>>();
  /** Local pods by IPv4 address; the last pod in state order wins, as in the full computation. */
  readonly podsByIp = new Map<string, LocalPod>();
  /** Service ports by their Service (`<namespace>/<name>`), in state order. */
  readonly servicesByRef = new Map<string, ServicePortSpec[]>();
  readonly state: NodeState;

  constructor(state: NodeState) {
    this.state = { ...state };
    for (const kind of OBJECT_KINDS) {
      const m = new Map<string, unknown>();
      for (const [key, obj] of ENUMERATE[kind](state)) {
        if (m.has(key)) throw new PipelineError('INVALID_INPUT', `two ${kind} objects share the key ${key}`, key, kind);
        m.set(key, obj);
      }
      this.byKind.set(kind, m);
    }
    for (const p of state.pods) for (const ip of p.ips) this.podsByIp.set(ip, p);
    for (const s of state.services ?? []) {
      if (s.service === undefined) continue;
      const ports = this.servicesByRef.get(s.service);
      if (ports) ports.push(s);
      else this.servicesByRef.set(s.service, [s]);
    }
  }

  /** Objects of a kind, in state order. */
  of<K extends ObjectKind>(kind: K): ReadonlyMap<string, ObjectOf<K>> {
    return this.byKind.get(kind) as Map<string, ObjectOf<K>>;
  }

  /** Members of a group by name. */
  members(kind: 'addressGroup' | 'appliedToGroup', name: string): readonly GroupMember[] | undefined {
    return this.of(kind).get(name)?.groupMembers;
  }
}

/** Elementwise: the same member objects (or equal ones) in the same order. */
function sameMembers(a: readonly GroupMember[], b: readonly GroupMember[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i] && !sameValue(a[i], b[i])) return false;
  return true;
}

/** A policy's fields other than its rules (and its generation, which no flow depends on). */
function samePolicyHeader(a: NetworkPolicy, b: NetworkPolicy): boolean {
  if (a === b) return true;
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (k === 'rules' || k === 'generation') continue;
    if (!sameValue((a as unknown as Record<string, unknown>)[k], (b as unknown as Record<string, unknown>)[k])) return false;
  }
  return true;
}

/** Compares objects of one kind; policy headers are compared once per pair of policies. */
class Comparer {
  private readonly headers = new Map<NetworkPolicy, boolean>();

  same(kind: ObjectKind, a: unknown, b: unknown): boolean {
    if (a === b) return true;
    if (kind === 'addressGroup' || kind === 'appliedToGroup') return sameMembers((a as MemberGroup).groupMembers, (b as MemberGroup).groupMembers);
    if (kind === 'policyRule') return this.sameRule(a as PolicyRule, b as PolicyRule);
    return sameValue(a, b);
  }

  private sameRule(a: PolicyRule, b: PolicyRule): boolean {
    if (a.rule !== b.rule && !sameValue(a.rule, b.rule)) return false;
    if (a.policy === b.policy) return true;
    let same = this.headers.get(b.policy);
    if (same === undefined) {
      same = samePolicyHeader(a.policy, b.policy);
      this.headers.set(b.policy, same);
    }
    return same;
  }
}

/**
 * Dependency keys of everything that differs between two indexes: objects added, removed or
 * changed (by reference, then by value), `ip:<address>` of every address a changed pod held
 * before or holds now, and `serviceRef:<namespace>/<name>` of the Service a changed port belonged
 * to or belongs to now.
 */
export function changedKeys(prev: ObjectIndex, next: ObjectIndex): Set<string> {
  const out = new Set<string>();
  const cmp = new Comparer();
  for (const kind of OBJECT_KINDS) {
    const a = prev.of(kind);
    const b = next.of(kind);
    if (a.size === 0 && b.size === 0) continue;
    for (const [key, obj] of b) if (!a.has(key) || !cmp.same(kind, a.get(key), obj)) out.add(depKey(kind, key));
    for (const key of a.keys()) if (!b.has(key)) out.add(depKey(kind, key));
  }
  for (const k of out) {
    if (k.startsWith('service:')) {
      const key = k.slice(8);
      for (const s of [prev.of('service').get(key), next.of('service').get(key)]) if (s?.service !== undefined) out.add(depKey('serviceRef', s.service));
      continue;
    }
    if (!k.startsWith('pod:')) continue;
    const key = k.slice(4);
    for (const p of [prev.of('pod').get(key), next.of('pod').get(key)]) for (const ip of p?.ips ?? []) out.add(depKey('ip', ip));
  }
  return out;
}
