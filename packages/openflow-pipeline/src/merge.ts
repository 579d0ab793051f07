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

const conjOnly = (f: Flow): boolean => f.actions.length > 0 && f.actions.every((a) => a.type === 'conjunction');

/** Conjunction actions of several flows, sorted by (id, clause), each (id, clause) once. */
function unionConjunctions(flows: readonly Flow[]): Action[] {
  const all: Extract<Action, { type: 'conjunction' }>[] = [];
  for (const f of flows) for (const a of f.actions) all.push(a as Extract<Action, { type: 'conjunction' }>);
  all.sort((a, b) => a.id - b.id || a.clause - b.clause);
  const out: Action[] = [];
  for (const a of all) {
    const prev = out[out.length - 1] as Extract<Action, { type: 'conjunction' }> | undefined;
    if (!prev || prev.id !== a.id || prev.clause !== a.clause) out.push(a);
  }
  return out;
}

/** The flow of one identity, or undefined when nobody contributes it. */
export function resolveFlow(cs: readonly Contribution[], mergesConjunctions: (feature: number) => boolean): Flow | undefined {
  if (cs.length <= 1) return cs[0]?.value;
  const win = first(cs);
  if (!mergesConjunctions(win.feature)) return win.value;
  const same: Flow[] = [];
  for (const c of cs) {
    if (c.feature !== win.feature) continue;
    if (!conjOnly(c.value)) return win.value;
    same.push(c.value);
  }
  if (same.length === 1) return win.value;
  return { ...win.value, actions: unionConjunctions(same) };
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
  return lists.map((l) => resolveFlow(l, mergesConjunctions)!);
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
