/**
 * Flow identity (table, priority, match) without building strings: a 32-bit hash that ignores the
 * order fields were written in, confirmed by structural equality. Diffing 100k flows by text keys
 * spent most of its time making and hashing those strings.
 */
import type { Flow, Match } from '@switchyard/openflow/codec';

const mix = (h: number, x: number): number => {
  let v = Math.imul(h ^ x, 0x9e3779b1);
  v ^= v >>> 15;
  return Math.imul(v, 0x85ebca77) | 0;
};

function strHash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h | 0;
}

const nameHashes = new Map<string, number>();
function nameHash(s: string): number {
  let h = nameHashes.get(s);
  if (h === undefined) {
    h = strHash(s);
    nameHashes.set(s, h);
  }
  return h;
}

function valueHash(v: unknown): number {
  switch (typeof v) {
    case 'number':
      return mix(v | 0, Math.floor(v / 4294967296) | 0);
    case 'string':
      return strHash(v);
    case 'bigint':
      return strHash(v.toString(16));
    case 'boolean':
      return v ? 0x5bd1e995 : 0x1b873593;
    case 'object': {
      if (v === null) return 0;
      // Masked values, ct_state flags: order-independent over the object's own fields.
      let h = 0x27d4eb2f;
      const o = v as Record<string, unknown>;
      for (const k in o) if (o[k] !== undefined) h = (h + mix(nameHash(k), valueHash(o[k]))) | 0;
      return h;
    }
    default:
      return 0;
  }
}

/** Hashes of interned matches (objects shared by many flows, see {@link internMatchHash}). */
const INTERNED = new Map<Match, number>();

/**
 * Remembers the hash of a match object that many flows share (the pipeline interns address
 * matches), so flows carrying it are hashed without reading the match. The caller bounds how many.
 */
export function internMatchHash(m: Match): void {
  INTERNED.set(m, matchHash(m));
}

/** Forgets every interned match hash. */
export function clearInternedMatchHashes(): void {
  INTERNED.clear();
}

/** Hash of a match, independent of field order. */
export function matchHash(m: Match): number {
  const known = INTERNED.get(m);
  if (known !== undefined) return known;
  let h = 0;
  const o = m as Record<string, unknown>;
  for (const k in o) {
    const v = o[k];
    if (v !== undefined) h = (h + mix(nameHash(k), valueHash(v))) | 0;
  }
  return h;
}

/** Hash of a flow's identity (table, priority, match). */
export function flowHash(f: Flow): number {
  return mix(mix(matchHash(f.match), f.table), f.priority);
}

/** Structural equality of plain values (action lists, matches), without building text. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameValue(a[i], b[i])) return false;
    return true;
  }
  if (a instanceof Uint8Array) {
    if (!(b instanceof Uint8Array) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let nx = 0;
  for (const k in x) {
    if (x[k] === undefined) continue;
    nx++;
    if (!sameValue(x[k], y[k])) return false;
  }
  let ny = 0;
  for (const k in y) if (y[k] !== undefined) ny++;
  return nx === ny;
}

/** Same table, priority and match. */
export function sameIdentity(a: Flow, b: Flow): boolean {
  return a.table === b.table && a.priority === b.priority && sameValue(a.match, b.match);
}

/**
 * Flows indexed by identity: slots in insertion order, chained per hash (no per-entry objects).
 * `find` returns a slot number or -1.
 */
export class FlowIndex {
  private readonly head = new Map<number, number>();
  private readonly next: number[] = [];
  readonly flows: Flow[] = [];
  readonly hashes: number[] = [];

  /** Slot of the flow with the same identity, or -1. */
  find(f: Flow, h: number = flowHash(f)): number {
    let i = this.head.get(h);
    while (i !== undefined && i >= 0) {
      if (sameIdentity(this.flows[i]!, f)) return i;
      i = this.next[i]!;
    }
    return -1;
  }

  /** Appends a flow (the caller has checked it is not there) and returns its slot. */
  insert(f: Flow, h: number = flowHash(f)): number {
    const slot = this.flows.length;
    this.flows.push(f);
    this.hashes.push(h);
    this.next.push(this.head.get(h) ?? -1);
    this.head.set(h, slot);
    return slot;
  }

  /** Inserts, or replaces the flow of the same identity; returns the slot. */
  put(f: Flow): number {
    const h = flowHash(f);
    const i = this.find(f, h);
    if (i >= 0) {
      this.flows[i] = f;
      return i;
    }
    return this.insert(f, h);
  }

  get size(): number {
    return this.flows.length;
  }
}
