/**
 * Desired-vs-installed flow diff. A flow's identity is (table, priority, match), as in OVS's
 * strict flow-mods; two flows with the same identity and different actions are one modify.
 * The result is sorted by identity, so it does not depend on input order.
 */
import type { Flow } from '@switchyard/openflow/codec';
import { PipelineError } from './errors';

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

/** Identity of a flow: table, priority and match. */
export function flowKey(f: Flow): string {
  return `${f.table}/${f.priority}/${canonical(f.match)}`;
}

function flowBody(f: Flow, cookies: boolean): string {
  return cookies ? `${canonical(f.actions)}#${f.cookie ?? ''}` : canonical(f.actions);
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
  const want = indexFlows(desired, 'desired flows');
  const have = new Map<string, Flow>();
  for (const f of installed) have.set(flowKey(f), f);
  const add: [string, Flow][] = [];
  const modify: [string, Flow][] = [];
  const del: [string, Flow][] = [];
  for (const [k, f] of want) {
    const h = have.get(k);
    if (!h) add.push([k, f]);
    else if (flowBody(h, cookies) !== flowBody(f, cookies)) modify.push([k, f]);
  }
  for (const [k, f] of have) if (!want.has(k)) del.push([k, f]);
  const byKey = (a: [string, Flow], b: [string, Flow]): number => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
  return {
    add: add.sort(byKey).map((e) => e[1]),
    modify: modify.sort(byKey).map((e) => e[1]),
    delete: del.sort(byKey).map((e) => e[1]),
  };
}

/** Applies a diff to a flow list (what the switch holds after the flow-mods). */
export function applyDiff(installed: readonly Flow[], diff: FlowDiff): Flow[] {
  const m = new Map<string, Flow>();
  for (const f of installed) m.set(flowKey(f), f);
  for (const f of diff.delete) m.delete(flowKey(f));
  for (const f of diff.modify) {
    const k = flowKey(f);
    const old = m.get(k);
    // A strict modify changes actions only; the installed cookie stays.
    m.set(k, old && old.cookie !== undefined && f.cookie !== old.cookie ? { ...f, cookie: old.cookie } : f);
  }
  for (const f of diff.add) m.set(flowKey(f), f);
  return [...m.values()];
}
