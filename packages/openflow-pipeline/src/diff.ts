/**
 * Desired-vs-installed flow diff. A flow's identity is (table, priority, match), as in OVS's
 * strict flow-mods; two flows with the same identity and different actions are one modify.
 * The result is sorted by identity, so it does not depend on input order.
 */
import type { Flow, Match } from '@switchyard/openflow/codec';
import { PipelineError } from './errors';
import { FlowIndex, flowHash, sameValue } from './identity';

/** The minimal change that turns the installed flows into the desired ones. */
export interface FlowDiff {
  /** Flows to add (identity not installed). */
  add: Flow[];
  /** Desired flows whose installed twin has other actions (send as strict modify). */
  modify: Flow[];
  /** Installed flows with no desired twin (send as strict delete). */
  delete: Flow[];
}

export interface DiffOptions {
  /**
   * Also count a changed cookie as a modification (default false: after a restart the agent
   * re-adds with the new round's cookie and deletes the previous round by cookie mask).
   */
  compareCookies?: boolean;
}

/** Canonical text of a value: object keys sorted, bigints and bytes spelled out. */
export function canonical(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
    case 'boolean':
      return String(v);
    case 'bigint':
      return `${v.toString(16)}n`;
    case 'undefined':
      return 'u';
    case 'object': {
      if (v === null) return 'null';
      if (Array.isArray(v)) {
        let s = '[';
        for (let i = 0; i < v.length; i++) s += (i ? ',' : '') + canonical(v[i]);
        return `${s}]`;
      }
      if (v instanceof Uint8Array) return `b${Array.from(v, (b) => b.toString(16).padStart(2, '0')).join('')}`;
      const o = v as Record<string, unknown>;
      const keys = Object.keys(o).filter((k) => o[k] !== undefined).sort();
      let s = '{';
      for (let i = 0; i < keys.length; i++) s += `${i ? ',' : ''}${keys[i]}:${canonical(o[keys[i]!])}`;
      return `${s}}`;
    }
    default:
      return String(v);
  }
}

/** Text of one match value: numbers in hex, bigints with an `n`, `value/mask`, ct_state flags. */
function valueKey(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return v;
    case 'number':
      return v.toString(16);
    case 'bigint':
      return `${v.toString(16)}n`;
    case 'object': {
      if (v === null) return 'null';
      const o = v as { value?: unknown; mask?: unknown };
      if ('mask' in o) return `${valueKey(o.value)}/${valueKey(o.mask)}`;
      return canonical(v);
    }
    default:
      return String(v);
  }
}

/**
 * Canonical key of a match: field names in sorted order with their values. Cheap (a match has a
 * handful of fields) and independent of the order the fields were written in.
 */
export function matchKey(m: Match): string {
  const rec = m as Record<string, unknown>;
  const keys = Object.keys(rec);
  if (keys.length > 1) keys.sort();
  let s = '';
  for (const k of keys) {
    const v = rec[k];
    if (v !== undefined) s += `${k}=${valueKey(v)};`;
  }
  return s;
}

/** Identity of a flow: table, priority and match. */
export function flowKey(f: Flow): string {
  return `${f.table}/${f.priority}/${matchKey(f.match)}`;
}

function sameBody(a: Flow, b: Flow, cookies: boolean): boolean {
  return (!cookies || a.cookie === b.cookie) && sameValue(a.actions, b.actions);
}

/** Indexes flows by identity; two flows with one identity are a DUPLICATE_FLOW error. */
export function indexFlows(flows: readonly Flow[], what = 'flows'): Map<string, Flow> {
  const m = new Map<string, Flow>();
  for (const f of flows) {
    const k = flowKey(f);
    if (m.has(k)) throw new PipelineError('DUPLICATE_FLOW', `two ${what} share table, priority and match`, f, `table ${f.table}`);
    m.set(k, f);
  }
  return m;
}

/** Computes the minimal add/modify/delete set turning `installed` into `desired`. */
export function diffFlows(desired: readonly Flow[], installed: readonly Flow[], opts: DiffOptions = {}): FlowDiff {
  const cookies = opts.compareCookies ?? false;
  // One index for both sides: installed flows first; a desired flow claims the slot of its
  // identity (state TAKEN) or adds its own. Untaken installed slots are deletions, and a desired
  // flow meeting a TAKEN slot is a duplicate.
  const index = new FlowIndex();
  for (const f of installed) index.put(f);
  const nInstalled = index.size;
  const taken = new Uint8Array(nInstalled);
  const add: number[] = [];
  const addF: Flow[] = [];
  const modify: number[] = [];
  const modF: Flow[] = [];
  for (const f of desired) {
    const h = flowHash(f);
    const i = index.find(f, h);
    if (i >= nInstalled || (i >= 0 && taken[i] === 1)) {
      throw new PipelineError('DUPLICATE_FLOW', 'two desired flows share table, priority and match', f, `table ${f.table}`);
    }
    if (i < 0) {
      add.push(index.insert(f, h));
      addF.push(f);
      continue;
    }
    taken[i] = 1;
    if (!sameBody(index.flows[i]!, f, cookies)) {
      modify.push(i);
      modF.push(f);
    }
  }
  const del: number[] = [];
  for (let i = 0; i < nInstalled; i++) if (taken[i] === 0) del.push(i);
  const order = identityOrder(index);
  return {
    add: sortSlots(add, addF, order),
    modify: sortSlots(modify, modF, order),
    delete: sortSlots(del, del.map((i) => index.flows[i]!), order),
  };
}

/** Total order on the index's slots: table, priority, hash, then the match text on a hash tie. */
function identityOrder(index: FlowIndex): (a: number, b: number) => number {
  return (a, b) => {
    const fa = index.flows[a]!;
    const fb = index.flows[b]!;
    if (fa.table !== fb.table) return fa.table - fb.table;
    if (fa.priority !== fb.priority) return fb.priority - fa.priority;
    const ha = index.hashes[a]!;
    const hb = index.hashes[b]!;
    if (ha !== hb) return ha - hb;
    const ka = matchKey(fa.match);
    const kb = matchKey(fb.match);
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  };
}

/** The flows of `slots`, ordered by their slots' identities (input order does not matter). */
function sortSlots(slots: number[], flows: Flow[], order: (a: number, b: number) => number): Flow[] {
  const idx = new Uint32Array(slots.length);
  for (let i = 0; i < idx.length; i++) idx[i] = i;
  idx.sort((x, y) => order(slots[x]!, slots[y]!));
  const out = new Array<Flow>(idx.length);
  for (let i = 0; i < idx.length; i++) out[i] = flows[idx[i]!]!;
  return out;
}

/** Flows in the order diffFlows reports them: table, priority (high first), identity hash, match text. */
export function sortByIdentity(flows: readonly Flow[]): Flow[] {
  const hashes = flows.map(flowHash);
  const idx = Array.from(flows.keys());
  idx.sort((a, b) => {
    const fa = flows[a]!;
    const fb = flows[b]!;
    if (fa.table !== fb.table) return fa.table - fb.table;
    if (fa.priority !== fb.priority) return fb.priority - fa.priority;
    if (hashes[a] !== hashes[b]) return hashes[a]! - hashes[b]!;
    const ka = matchKey(fa.match);
    const kb = matchKey(fb.match);
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  });
  return idx.map((i) => flows[i]!);
}

/** Applies a diff to a flow list (what the switch holds after the flow-mods). */
export function applyDiff(installed: readonly Flow[], diff: FlowDiff): Flow[] {
  const index = new FlowIndex();
  for (const f of installed) index.put(f);
  const gone = new Set<number>();
  for (const f of diff.delete) {
    const i = index.find(f);
    if (i >= 0) gone.add(i);
  }
  for (const f of diff.modify) {
    const i = index.find(f);
    if (i < 0 || gone.has(i)) continue;
    const old = index.flows[i]!;
    // A strict modify changes actions only; the installed cookie stays.
    index.flows[i] = old.cookie !== undefined && f.cookie !== old.cookie ? { ...f, cookie: old.cookie } : f;
  }
  for (const f of diff.add) {
    const i = index.find(f);
    if (i >= 0 && !gone.has(i)) index.flows[i] = f;
    else index.insert(f);
  }
  return index.flows.filter((_f, i) => !gone.has(i));
}
