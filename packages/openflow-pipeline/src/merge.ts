/**
 * How the flows of several owners with one identity (table, priority, match) become the one flow
 * the switch holds: the first feature in the node's list wins; within it, conjunctive match flows
 * of a merging feature carry the union of their conjunction actions, anything else is taken from
 * the owner with the smallest key (then the first in its output). Shared by the full computation
 * and the incremental store, so both resolve identically.
 */
import type { Action, Flow } from '@switchyard/openflow/codec';
import type { Group } from './format';
import { FlowIndex, flowHash } from './identity';

/** One owner's flow (or group) at a position of its output. */
export interface Contribution<T = Flow> {
  /** Index of the feature in the node's feature list. */
  readonly feature: number;
  /** Owner key (`<feature>/<kind>:<key>`). */
  readonly owner: string;
  /** Position in the owner's output. */
  readonly seq: number;
  readonly value: T;
  /** Of a conjunctive match flow (actions all `conjunction`): its actions as codes. */
  readonly codes?: readonly number[] | undefined;
}

type Conjunction = Extract<Action, { type: 'conjunction' }>;

/** A conjunction action as one number: id, clause (1-3) and clause count (1-3), exact in a double. */
const encode = (a: Conjunction): number => (a.id * 4 + a.clause) * 4 + a.nClauses;

/** Conjunction action objects by code, shared by every flow that carries one (actions are never mutated). */
const ACTIONS = new Map<number, Action>();
function decode(code: number): Action {
  let a = ACTIONS.get(code);
  if (!a) {
    const nClauses = code % 4;
    const c = (code - nClauses) / 4;
    a = { type: 'conjunction', id: (c - (c % 4)) / 4, clause: c % 4, nClauses };
    if (ACTIONS.size >= 1 << 20) ACTIONS.clear();
    ACTIONS.set(code, a);
  }
  return a;
}

/** A flow's contribution, with its conjunction codes when it is a conjunctive match flow. */
export function contribution(feature: number, owner: string, seq: number, value: Flow): Contribution {
  return { feature, owner, seq, value, codes: conjunctionCodes(value) };
}

/** Interned one-action conjunction lists, and the codes of interned lists. */
const SINGLE = new Map<number, Action[]>();
const CODES_OF = new WeakMap<readonly Action[], number[]>();

/**
 * The action list `[conjunction(id, clause/nClauses)]`, one object per distinct action: most
 * conjunctive match flows carry exactly one, and a policy's address flows mostly the same one.
 * Lists are never mutated.
 */
export function singleConjunction(id: number, clause: number, nClauses: number): Action[] {
  const code = (id * 4 + clause) * 4 + nClauses;
  let list = SINGLE.get(code);
  if (!list) {
    list = [decode(code)];
    if (SINGLE.size >= 1 << 20) SINGLE.clear();
    SINGLE.set(code, list);
    CODES_OF.set(list, [code]);
  }
  return list;
}

/** The codes of a conjunctive match flow's actions; undefined for any other flow. */
export function conjunctionCodes(f: Flow): readonly number[] | undefined {
  const acts = f.actions;
  if (acts.length === 0) return undefined;
  const known = CODES_OF.get(acts);
  if (known) return known;
  const codes = new Array<number>(acts.length);
  for (let i = 0; i < acts.length; i++) {
    const a = acts[i]!;
    if (a.type !== 'conjunction') return undefined;
    codes[i] = encode(a);
  }
  return codes;
}

/** Negative when `a` takes precedence over `b`. */
export function precedence<T>(a: Contribution<T>, b: Contribution<T>): number {
  return a.feature - b.feature || (a.owner < b.owner ? -1 : a.owner > b.owner ? 1 : 0) || a.seq - b.seq;
}

function first<T>(cs: readonly Contribution<T>[]): Contribution<T> {
  let best = cs[0]!;
  for (let i = 1; i < cs.length; i++) if (precedence(cs[i]!, best) < 0) best = cs[i]!;
  return best;
}

/** Equal code lists. */
export function sameCodes(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The sorted, distinct codes of the contributions of one feature. */
function unionCodes(cs: readonly Contribution[], feature: number, total: number): number[] {
  const all = new Float64Array(total);
  let n = 0;
  for (const c of cs) if (c.feature === feature) for (const x of c.codes!) all[n++] = x;
  all.sort();
  const out: number[] = [];
  for (let r = 0; r < n; r++) if (r === 0 || all[r - 1] !== all[r]) out.push(all[r]!);
  return out;
}

/**
 * The merged flow: `template` (any of the contributions: a merging feature gives all its
 * conjunctive match flows one cookie) with the actions of `codes`; `prev` when it is the same,
 * `template` itself when its own actions are those.
 */
export function mergedFlow(template: Flow, codes: readonly number[], prev?: Resolved): Resolved {
  if (prev?.flow && prev.codes && sameCodes(prev.codes, codes) && prev.flow.cookie === template.cookie) return prev;
  const own = conjunctionCodes(template);
  if (own && sameCodes(own, codes)) return { flow: template, codes };
  return { flow: { ...template, actions: codes.map(decode) }, codes };
}

/** A resolved identity: its flow, and the conjunction codes of a merged conjunctive match flow. */
export interface Resolved {
  flow: Flow | undefined;
  codes: readonly number[] | undefined;
}

/**
 * The flow of one identity (undefined when nobody contributes it). The first feature in the list
 * decides. In a merging feature, a flow that is not a conjunctive match flow wins (the smallest
 * owner key, then the first in its output); else its conjunctive match flows become one flow with
 * the sorted union of their actions. In any other feature, the smallest owner key wins. `prev`,
 * the identity's last resolution, is returned as it is when a merged flow comes out the same.
 */
export function resolveFlow(cs: readonly Contribution[], mergesConjunctions: (feature: number) => boolean, prev?: Resolved): Resolved {
  if (cs.length === 0) return { flow: undefined, codes: undefined };
  if (cs.length === 1 && !(cs[0]!.codes && mergesConjunctions(cs[0]!.feature))) return { flow: cs[0]!.value, codes: undefined };
  let feature = cs[0]!.feature;
  for (const c of cs) if (c.feature < feature) feature = c.feature;
  const own = cs.filter((c) => c.feature === feature);
  if (!mergesConjunctions(feature)) return { flow: first(own).value, codes: undefined };
  const plain = own.filter((c) => !c.codes);
  if (plain.length > 0) return { flow: first(plain).value, codes: undefined };
  let total = 0;
  for (const c of own) total += c.codes!.length;
  return mergedFlow(first(own).value, unionCodes(own, feature, total), prev);
}

/** The group of one id, or undefined. */
export function resolveGroup(cs: readonly Contribution<Group>[]): Group | undefined {
  return cs.length <= 1 ? cs[0]?.value : first(cs).value;
}

/** Every identity resolved once, in order of first appearance (the full computation). */
export function mergeFlows(cs: readonly Contribution[], mergesConjunctions: (feature: number) => boolean): Flow[] {
  const index = new FlowIndex();
  const lists: Contribution[][] = [];
  for (const c of cs) {
    const h = flowHash(c.value);
    const i = index.find(c.value, h);
    if (i < 0) {
      index.insert(c.value, h);
      lists.push([c]);
    } else lists[i]!.push(c);
  }
  return lists.map((l) => resolveFlow(l, mergesConjunctions).flow!);
}

/** Every group id resolved once, in order of first appearance. */
export function mergeGroups(cs: readonly Contribution<Group>[]): Group[] {
  const lists = new Map<number, Contribution<Group>[]>();
  for (const c of cs) {
    const l = lists.get(c.value.groupId);
    if (l) l.push(c);
    else lists.set(c.value.groupId, [c]);
  }
  return [...lists.values()].map((l) => resolveGroup(l)!);
}
