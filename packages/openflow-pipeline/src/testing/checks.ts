/** The testing kit's checks over flows: canonical form, equal flow sets, and where trace flows sit. */
import { normalizeFlow, parseFlow, renderFlow, type Flow, type Match } from '@switchyard/openflow/codec';
import { parseCookie, CookieCategory } from '../cookie';
import { canonical } from '../diff';
import { formatFlow } from '../format';
import { FlowIndex, sameValue } from '../identity';
import type { Pipeline } from '../tables';

/** Text of a flow with table names, for messages. */
export const show = (p: Pipeline | undefined, f: Flow): string => formatFlow(f, p ? { tableName: (id) => p.nameOf(id) } : {});

/** Canonical text of a flow, a cookie of 0 and none alike (the switch does not tell them apart). */
const text = (f: Flow): string => canonical({ ...f, cookie: f.cookie ?? 0n });

/** Flows not already in the codec's canonical form, or that do not survive render -> parse. */
export function notCanonical(flows: readonly Flow[]): Flow[] {
  return flows.filter((f) => {
    const c = text(f);
    if (text(normalizeFlow(f)) !== c) return true;
    try {
      return text(normalizeFlow(parseFlow(renderFlow(f)))) !== c;
    } catch {
      return true;
    }
  });
}

/** What differs between two flow sets (identities, actions, cookies), as messages; empty when equal. */
export function flowSetDifferences(got: readonly Flow[], want: readonly Flow[], p: Pipeline | undefined, cookies = true): string[] {
  const index = new FlowIndex();
  for (const f of want) index.insert(f);
  const out: string[] = [];
  const seen = new Set<number>();
  for (const f of got) {
    const i = index.find(f);
    if (i < 0) out.push(`extra ${show(p, f)}`);
    else {
      seen.add(i);
      const w = index.flows[i]!;
      if (!sameValue(w.actions, f.actions) || (cookies && w.cookie !== f.cookie)) out.push(`${show(p, f)} instead of ${show(p, w)}`);
    }
  }
  index.flows.forEach((f, i) => {
    if (!seen.has(i)) out.push(`missing ${show(p, f)}`);
  });
  return out;
}

/** A match value as bits (numbers, bigints, IPv4 and MAC text; anything else by its text). */
function bits(v: unknown): bigint | string {
  if (typeof v === 'number') return BigInt(v);
  if (typeof v === 'bigint') return v;
  if (typeof v === 'string') {
    if (/^\d+\.\d+\.\d+\.\d+$/.test(v)) return v.split('.').reduce((a, o) => a * 256n + BigInt(o), 0n);
    if (/^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/i.test(v)) return BigInt(`0x${v.replace(/:/g, '')}`);
  }
  return String(v);
}

/** Whether one packet can match both matches: every field both constrain agrees on their common mask bits. */
export function overlaps(a: Match, b: Match): boolean {
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  for (const k of Object.keys(x)) {
    if (y[k] === undefined || x[k] === undefined) continue;
    if (k === 'ctState') {
      const sa = x[k] as Record<string, boolean>;
      const sb = y[k] as Record<string, boolean>;
      if (Object.keys(sa).some((flag) => sb[flag] !== undefined && sb[flag] !== sa[flag])) return false;
      continue;
    }
    const [va, ma] = split(x[k]);
    const [vb, mb] = split(y[k]);
    if (typeof va === 'string' || typeof vb === 'string' || typeof ma === 'string' || typeof mb === 'string') {
      if (va !== vb && ma === -1n && mb === -1n) return false;
      continue;
    }
    const m = (ma as bigint) & (mb as bigint);
    if ((va & m) !== (vb & m)) return false;
  }
  return true;
}

function split(v: unknown): [bigint | string, bigint | string] {
  if (typeof v === 'object' && v !== null && 'mask' in v && 'value' in v) return [bits(v.value), bits(v.mask)];
  return [bits(v), -1n];
}

/**
 * Problems of one tag's trace flows against the node's flows: canonical form, the tag in the
 * match, the Traceflow cookie, a realized table, no identity of a node flow, and a decision flow
 * below each (a node flow of the same table it overlaps, at a lower priority).
 */
export function traceFlowProblems(trace: readonly Flow[], node: readonly Flow[], p: Pipeline, tag: number): string[] {
  const out: string[] = [];
  const index = new FlowIndex();
  for (const f of node) index.insert(f);
  for (const f of notCanonical(trace)) out.push(`not in the codec's canonical form: ${show(p, f)}`);
  for (const f of trace) {
    // The tag is the DSCP of an IPv4 packet or the traffic class of an IPv6 one.
    if (f.match.ipDscp !== tag || (f.match.ethType !== 0x800 && f.match.ethType !== 0x86dd)) out.push(`does not match the tag ${tag} (ip or ipv6, ip_dscp=${tag}): ${show(p, f)}`);
    const c = f.cookie === undefined ? undefined : parseCookie(f.cookie);
    if (c?.category !== CookieCategory.Traceflow || c.objectId !== tag) out.push(`cookie is not the tag's Traceflow cookie (traceCookie): ${show(p, f)}`);
    if (p.nameOf(f.table) === undefined) out.push(`in a table the pipeline does not realize: ${show(p, f)}`);
    if (index.find(f) >= 0) out.push(`has the identity of a flow of the node (it would replace it): ${show(p, f)}`);
    if (!node.some((d) => d.table === f.table && d.priority < f.priority && overlaps(d.match, f.match))) {
      out.push(`shadows no decision flow (no flow of its table below it that a tagged packet could match): ${show(p, f)}`);
    }
  }
  return out;
}
