/**
 * The node state as keyed objects, by the kinds a feature list declares: every object under a
 * stable key, objects found by a secondary key (a pod by its address), and what changed between
 * two states. Dependency keys are `<kind>:<key>`, and `<index>:<value>` for secondary keys.
 */
import { PipelineError } from './errors';
import { sameValue } from './identity';
import type {
  EgressRule, ExternalNodeSpec, GroupMember, LocalPod, MulticlusterSpec, NetworkPolicy, NetworkPolicyRule, NodeState, RemoteNode, ServicePortSpec, TrafficControlRule,
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

/**
 * Object kinds and their types. Open: a feature defined outside this package adds its kind by
 * declaration merging (`declare module '@switchyard/openflow-pipeline' { interface ObjectKinds {
 * myKind: MyObject } }`) and declares how it is found in the state ({@link ObjectKindDecl}).
 */
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
  trafficControl: TrafficControlRule;
  egress: EgressRule;
  egressExcept: readonly string[];
}
export type ObjectKind = keyof ObjectKinds;
export type ObjectOf<K extends ObjectKind> = ObjectKinds[K];

/** A secondary key of a kind's objects (a pod's addresses): owners find objects by it. */
export interface KindIndex<T> {
  /** Dependency keys of lookups are `<name>:<value>`; a name is used by one kind only. */
  readonly name: string;
  /** The values under which an object is found. */
  keys(obj: T): Iterable<string>;
}

/**
 * How a feature finds one kind of object in the node state. The feature's slice of the state is
 * what its kinds enumerate: the pipeline reads the state through them only, keeps the objects by
 * key, and recomputes an owner when its object (or one it read) is added, removed or changed.
 */
export interface ObjectKindDecl<K extends ObjectKind = ObjectKind> {
  /** The kind, a key of {@link ObjectKinds}. */
  readonly name: K;
  /** Its objects in a state, each with its key, in state order; a key may appear once. */
  enumerate(state: NodeState): Iterable<readonly [string, ObjectOf<K>]>;
  /** Whether an object is unchanged between two states (default: the same reference, else equal values). */
  same?(a: ObjectOf<K>, b: ObjectOf<K>): boolean;
  /** A secondary key to find objects by ({@link FlowContext.lookup}). */
  readonly index?: KindIndex<ObjectOf<K>>;
}

/** Declares an object kind (an identity function that checks the declaration's types). */
export function defineKind<K extends ObjectKind>(decl: ObjectKindDecl<K>): ObjectKindDecl<K> {
  return decl;
}

/** Key of a node-wide object (a spec there is at most one of). */
export const NODE_KEY = 'node';

/** A node-wide object as an enumeration: key `node`, or nothing when absent. */
export const nodeObject = <T>(v: T | undefined): [string, T][] => (v === undefined ? [] : [[NODE_KEY, v]]);

/** Dependency key of an object (`<kind>:<key>`) or of a secondary key (`<index>:<value>`). */
export const depKey = (kind: string, key: string): string => `${kind}:${key}`;

/**
 * The objects of one node state by kind and key, and by secondary key, for the kinds given. It
 * keeps the state's top-level fields as they were (a shallow copy): callers replace arrays and
 * objects to change the state, they do not edit them in place.
 */
export class ObjectIndex {
  readonly byKind = new Map<string, Map<string, unknown>>();
  /** Objects by index name, then value, in state order. */
  private readonly byIndex = new Map<string, Map<string, unknown[]>>();
  /** Index name by kind. */
  private readonly indexNames = new Map<string, string>();
  readonly state: NodeState;

  constructor(state: NodeState, readonly kinds: readonly ObjectKindDecl[]) {
    this.state = { ...state };
    for (const decl of kinds) {
      const m = new Map<string, unknown>();
      const index = decl.index && new Map<string, unknown[]>();
      for (const [key, obj] of decl.enumerate(state)) {
        if (m.has(key)) throw new PipelineError('INVALID_INPUT', `two ${decl.name} objects share the key ${key}`, key, decl.name);
        m.set(key, obj);
        if (index) for (const v of decl.index!.keys(obj)) addTo(index, v, obj);
      }
      this.byKind.set(decl.name, m);
      if (index) {
        this.byIndex.set(decl.index!.name, index);
        this.indexNames.set(decl.name, decl.index!.name);
      }
    }
  }

  /** Whether the kind is indexed (a feature of the list declares it). */
  has(kind: string): boolean {
    return this.byKind.has(kind);
  }

  /** Objects of a kind, in state order (none when no feature declares the kind). */
  of<K extends ObjectKind>(kind: K): ReadonlyMap<string, ObjectOf<K>> {
    return (this.byKind.get(kind) ?? EMPTY) as ReadonlyMap<string, ObjectOf<K>>;
  }

  /** The name of a kind's index (undefined: the kind has none, or is not declared). */
  indexOf(kind: string): string | undefined {
    return this.indexNames.get(kind);
  }

  /** Objects whose index `index` holds `value`, in state order. */
  lookup(index: string, value: string): readonly unknown[] {
    return this.byIndex.get(index)?.get(value) ?? NONE;
  }
}

const EMPTY: ReadonlyMap<string, unknown> = new Map();
const NONE: readonly unknown[] = [];

function addTo(index: Map<string, unknown[]>, value: string, obj: unknown): void {
  const l = index.get(value);
  if (l) {
    if (l[l.length - 1] !== obj) l.push(obj);
  } else index.set(value, [obj]);
}

/**
 * Dependency keys of everything that differs between two indexes of the same kinds: objects
 * added, removed or changed (the kind's `same`, else by reference, then by value), and the
 * secondary keys (`ip:<address>`) a changed object had before or has now.
 */
export function changedKeys(prev: ObjectIndex, next: ObjectIndex): Set<string> {
  const out = new Set<string>();
  for (const decl of next.kinds) {
    const a = prev.of(decl.name);
    const b = next.of(decl.name);
    if (a.size === 0 && b.size === 0) continue;
    const same = decl.same;
    const changed: string[] = [];
    // forEach: no iterator result and [key, obj] pair per object.
    b.forEach((obj, key) => {
      if (!a.has(key)) changed.push(key);
      else {
        const old = a.get(key);
        if (old !== obj && !(same ? same(old as never, obj as never) : sameValue(old, obj))) changed.push(key);
      }
    });
    a.forEach((_, key) => {
      if (!b.has(key)) changed.push(key);
    });
    for (const key of changed) {
      out.add(depKey(decl.name, key));
      if (!decl.index) continue;
      for (const o of [a.get(key), b.get(key)]) if (o !== undefined) for (const v of decl.index.keys(o as never)) out.add(depKey(decl.index.name, v));
    }
  }
  return out;
}
