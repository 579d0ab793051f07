// Schema-aware value codec: JS values <-> OVSDB wire JSON (atoms, sets, maps, uuid, named-uuid), constraint checks.
import { SchemaValueError } from './errors';
import { describeType, isUuid, type Atom, type BaseType, type ColumnType } from './schema';

/** Reference to a row inserted earlier in the same transaction (`["named-uuid", name]`). */
export class NamedUuid {
  constructor(readonly name: string) {}
  toJSON(): unknown {
    return ['named-uuid', this.name];
  }
}

/** Builds a {@link NamedUuid}. */
export function namedUuid(name: string): NamedUuid {
  return new NamedUuid(name);
}

/** An atom as accepted on input: uuid columns also take a NamedUuid. */
export type AtomInput = Atom | NamedUuid;

/** A decoded column value: atom (scalar), atom|null (optional), array (set) or Map (map). */
export type Datum = Atom | null | readonly Atom[] | ReadonlyMap<Atom, Atom>;

/** Where a value belongs, for error messages. */
export interface ValueContext {
  table: string;
  column: string;
}

/** Options of the datum codec. */
export interface DatumOptions {
  /**
   * Ignore the column's min/max (used for mutate/condition operands and update2 diffs, which carry
   * partial sets and maps).
   */
  relaxed?: boolean;
  /** Check enum/range/length constraints on decode too (encode always checks). */
  validate?: boolean;
}

const isMap = (t: ColumnType): boolean => t.value !== undefined;
const isScalar = (t: ColumnType): boolean => !isMap(t) && t.min === 1 && t.max === 1;
const isOptional = (t: ColumnType): boolean => !isMap(t) && t.min === 0 && t.max === 1;

/** Identity of an atom for duplicate detection (0 and -0 are the same real, as in OVSDB). */
export function atomKey(a: AtomInput): string {
  if (a instanceof NamedUuid) return `n:${a.name}`;
  if (typeof a === 'number') return `#${a === 0 ? 0 : a}`;
  return typeof a === 'boolean' ? `b:${a}` : `s:${a}`;
}

/** Total order on atoms of one type, matching OVSDB's canonical (sorted) set order. */
export function compareAtoms(a: AtomInput, b: AtomInput): number {
  if (a instanceof NamedUuid || b instanceof NamedUuid) {
    const x = a instanceof NamedUuid ? `~${a.name}` : String(a);
    const y = b instanceof NamedUuid ? `~${b.name}` : String(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Code points in `s` (OVSDB counts string lengths in code points); no allocation without surrogates. */
function codePoints(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

// The checks below run for every value of every transaction, so they create no closure per call
// (measured in the ovsdb bench: per-call closures and a spread per string were the largest part of
// the client's CPU for one-port transactions).
function badValue(ctx: ValueContext, v: unknown, t: ColumnType, detail: string): never {
  throw new SchemaValueError(ctx.table, ctx.column, v, describeType(t), detail);
}

function checkConstraints(base: BaseType, a: AtomInput, ctx: ValueContext, t: ColumnType): void {
  if (a instanceof NamedUuid) return;
  if (base.enum && !base.enum.some((e) => atomKey(e) === atomKey(a)))
    badValue(ctx, a, t, `${String(a)} is not one of the allowed values`);
  if (typeof a === 'number') {
    const lo = base.type === 'integer' ? base.minInteger : base.minReal;
    const hi = base.type === 'integer' ? base.maxInteger : base.maxReal;
    if (lo !== undefined && a < lo) badValue(ctx, a, t, `${a} is less than minimum allowed value ${lo}`);
    if (hi !== undefined && a > hi) badValue(ctx, a, t, `${a} is greater than maximum allowed value ${hi}`);
  }
  if (typeof a === 'string' && base.type === 'string' && (base.minLength !== undefined || base.maxLength !== undefined)) {
    const len = codePoints(a);
    if (base.minLength !== undefined && len < base.minLength)
      badValue(ctx, a, t, `length ${len} is less than minimum allowed length ${base.minLength}`);
    if (base.maxLength !== undefined && len > base.maxLength)
      badValue(ctx, a, t, `length ${len} is greater than maximum allowed length ${base.maxLength}`);
  }
}

/** Encodes one atom to wire JSON after checking type and constraints. */
export function encodeAtom(
  base: BaseType,
  v: unknown,
  ctx: ValueContext,
  t: ColumnType = { key: base, min: 1, max: 1 },
): unknown {
  switch (base.type) {
    case 'integer':
      if (typeof v !== 'number' || !Number.isInteger(v)) badValue(ctx, v, t, `expected integer`);
      break;
    case 'real':
      if (typeof v !== 'number' || !Number.isFinite(v)) badValue(ctx, v, t, `expected real`);
      break;
    case 'boolean':
      if (typeof v !== 'boolean') badValue(ctx, v, t, `expected boolean`);
      break;
    case 'string':
      if (typeof v !== 'string') badValue(ctx, v, t, `expected string`);
      break;
    case 'uuid':
      if (v instanceof NamedUuid) return ['named-uuid', v.name];
      if (!isUuid(v)) badValue(ctx, v, t, `expected a UUID string or namedUuid()`);
      checkConstraints(base, (v as string).toLowerCase(), ctx, t);
      return ['uuid', (v as string).toLowerCase()];
  }
  checkConstraints(base, v as Atom, ctx, t);
  return v;
}

/** Decodes one wire atom (a uuid must be `["uuid", ...]`). */
export function decodeAtom(
  base: BaseType,
  j: unknown,
  ctx: ValueContext,
  opts: DatumOptions = {},
  t?: ColumnType,
): Atom {
  const type = t ?? { key: base, min: 1, max: 1 };
  const bad = (why: string): never => {
    throw new SchemaValueError(ctx.table, ctx.column, j, describeType(type), why);
  };
  let a: Atom;
  switch (base.type) {
    case 'integer':
      if (typeof j !== 'number' || !Number.isInteger(j)) bad('syntax error: expected integer');
      a = j as number;
      break;
    case 'real':
      if (typeof j !== 'number') bad('syntax error: expected real');
      a = j as number;
      break;
    case 'boolean':
      if (typeof j !== 'boolean') bad('syntax error: expected boolean');
      a = j as boolean;
      break;
    case 'string':
      if (typeof j !== 'string') bad('syntax error: expected string');
      a = j as string;
      break;
    case 'uuid':
      if (!Array.isArray(j) || j.length !== 2 || j[0] !== 'uuid' || !isUuid(j[1]))
        bad('syntax error: expected ["uuid", <string>]');
      a = ((j as unknown[])[1] as string).toLowerCase();
      break;
  }
  if (opts.validate) checkConstraints(base, a, ctx, type);
  return a;
}

function setElements(j: unknown): unknown[] | undefined {
  return Array.isArray(j) && j.length === 2 && j[0] === 'set' && Array.isArray(j[1])
    ? (j[1] as unknown[])
    : undefined;
}

function checkSize(t: ColumnType, n: number, ctx: ValueContext, value: unknown, opts: DatumOptions): void {
  if (opts.relaxed) return;
  if (n < t.min || n > t.max) {
    throw new SchemaValueError(ctx.table, ctx.column, value, describeType(t), `has ${n} element(s)`);
  }
}

/** Decodes a wire datum for a column into its JS form (see {@link Datum}). */
export function decodeDatum(t: ColumnType, j: unknown, ctx: ValueContext, opts: DatumOptions = {}): Datum {
  if (isMap(t)) {
    if (!Array.isArray(j) || j.length !== 2 || j[0] !== 'map' || !Array.isArray(j[1])) {
      throw new SchemaValueError(
        ctx.table,
        ctx.column,
        j,
        describeType(t),
        'syntax error: expected ["map", [...]]',
      );
    }
    const out = new Map<Atom, Atom>();
    for (const pair of j[1] as unknown[]) {
      if (!Array.isArray(pair) || pair.length !== 2) {
        throw new SchemaValueError(ctx.table, ctx.column, j, describeType(t), 'map pair is not [key, value]');
      }
      const k = decodeAtom(t.key, pair[0], ctx, opts, t);
      if (out.has(k))
        throw new SchemaValueError(ctx.table, ctx.column, j, describeType(t), 'map contains duplicate key');
      out.set(k, decodeAtom(t.value!, pair[1], ctx, opts, t));
    }
    checkSize(t, out.size, ctx, j, opts);
    return out;
  }
  const elems = setElements(j) ?? [j];
  const atoms: Atom[] = [];
  const seen = new Set<string>();
  for (const e of elems) {
    const a = decodeAtom(t.key, e, ctx, opts, t);
    const k = atomKey(a);
    if (seen.has(k))
      throw new SchemaValueError(ctx.table, ctx.column, j, describeType(t), 'set contains duplicate');
    seen.add(k);
    atoms.push(a);
  }
  checkSize(t, atoms.length, ctx, j, opts);
  if (!opts.relaxed) {
    if (isScalar(t)) return atoms[0]!;
    if (isOptional(t)) return atoms[0] ?? null;
  }
  return atoms.sort(compareAtoms);
}

function inputElements(t: ColumnType, v: unknown): unknown[] {
  if (v === null || v === undefined) return [];
  if (Array.isArray(v)) return v;
  if (v instanceof Set) return [...(v as Set<unknown>)];
  return [v];
}

function inputPairs(t: ColumnType, v: unknown, ctx: ValueContext): Array<[unknown, unknown]> {
  if (v instanceof Map) return [...(v as Map<unknown, unknown>).entries()];
  if (Array.isArray(v)) return v as Array<[unknown, unknown]>;
  if (typeof v === 'object' && v !== null && !(v instanceof NamedUuid)) {
    // Plain objects are accepted for string- and integer-keyed maps (keys arrive as strings).
    return Object.entries(v).map(([k, x]) => [
      t.key.type === 'integer' && /^-?\d+$/.test(k) ? Number(k) : k,
      x,
    ]);
  }
  throw new SchemaValueError(ctx.table, ctx.column, v, describeType(t), 'expected a Map or an object');
}

const NO_OPTIONS: DatumOptions = {};

/**
 * A Map for a string-keyed map column (external_ids, options, other_config...): its keys are
 * distinct strings already, so no duplicate check, and they sort with `<` as compareAtoms sorts
 * strings. Per-transaction CPU of one-port transactions was led by encodeDatum in the ovsdb bench.
 */
function encodeStringKeyedMap(t: ColumnType, v: Map<unknown, unknown>, ctx: ValueContext, opts: DatumOptions): unknown {
  const out: Array<[string, unknown]> = [];
  for (const [k, x] of v) out.push([encodeAtom(t.key, k, ctx, t) as string, encodeAtom(t.value!, x, ctx, t)]);
  checkSize(t, out.length, ctx, v, opts);
  if (out.length > 1) out.sort(byFirstString);
  return ['map', out];
}
const byFirstString = (a: [string, unknown], b: [string, unknown]): number => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

/**
 * Encodes a JS value for a column into wire JSON, checking type, constraints and size; sets and maps
 * come out sorted, singletons as bare atoms, as ovsdb-server prints them. Throws SchemaValueError.
 */
export function encodeDatum(t: ColumnType, v: unknown, ctx: ValueContext, opts: DatumOptions = NO_OPTIONS): unknown {
  if (isMap(t)) {
    if (v instanceof Map && t.key.type === 'string') return encodeStringKeyedMap(t, v as Map<unknown, unknown>, ctx, opts);
    const pairs = inputPairs(t, v, ctx);
    const seen = new Set<string>();
    const out: Array<[AtomInput, unknown, unknown]> = [];
    for (const pair of pairs) {
      if (!Array.isArray(pair) || pair.length !== 2) {
        throw new SchemaValueError(
          ctx.table,
          ctx.column,
          v,
          describeType(t),
          'map entries must be [key, value]',
        );
      }
      const [k, x] = pair as [unknown, unknown];
      const kj = encodeAtom(t.key, k, ctx, t);
      const key = atomKey(k as AtomInput);
      if (seen.has(key))
        throw new SchemaValueError(ctx.table, ctx.column, v, describeType(t), 'map contains duplicate key');
      seen.add(key);
      out.push([k as AtomInput, kj, encodeAtom(t.value!, x, ctx, t)]);
    }
    checkSize(t, out.length, ctx, v, opts);
    out.sort((a, b) => compareAtoms(a[0], b[0]));
    return ['map', out.map(([, kj, vj]) => [kj, vj])];
  }
  if (v !== null && v !== undefined && !Array.isArray(v) && !(v instanceof Set)) {
    // One atom (a scalar column's value, or a one-element set): it is its own wire form.
    const j = encodeAtom(t.key, v, ctx, t);
    checkSize(t, 1, ctx, v, opts);
    return j;
  }
  const elems = inputElements(t, v);
  if (elems.length > 1 && elems.every(isNamedUuid)) return encodeNamedUuidSet(t, elems as NamedUuid[], ctx, v, opts);
  const seen = new Set<string>();
  const out: Array<[AtomInput, unknown]> = [];
  for (const e of elems) {
    const j = encodeAtom(t.key, e, ctx, t);
    const k = atomKey(e as AtomInput);
    if (seen.has(k))
      throw new SchemaValueError(ctx.table, ctx.column, v, describeType(t), 'set contains duplicate');
    seen.add(k);
    out.push([e as AtomInput, j]);
  }
  checkSize(t, out.length, ctx, v, opts);
  out.sort((a, b) => compareAtoms(a[0], b[0]));
  if (out.length === 1) return out[0]![1];
  return ['set', out.map(([, j]) => j)];
}

const isNamedUuid = (e: unknown): e is NamedUuid => e instanceof NamedUuid;

/**
 * A set of rows inserted in the same transaction (a bridge's new ports): ordered by name, as
 * compareAtoms orders named uuids among themselves, without the two strings compareAtoms makes per
 * comparison (1,000 ports added in one transaction made ~20,000 of them).
 */
function encodeNamedUuidSet(t: ColumnType, elems: readonly NamedUuid[], ctx: ValueContext, v: unknown, opts: DatumOptions): unknown {
  if (t.key.type !== 'uuid') return encodeAtom(t.key, elems[0], ctx, t); // throws: not a uuid column
  const names = new Set<string>();
  for (const e of elems) {
    if (names.has(e.name)) throw new SchemaValueError(ctx.table, ctx.column, v, describeType(t), 'set contains duplicate');
    names.add(e.name);
  }
  checkSize(t, elems.length, ctx, v, opts);
  const sorted = [...names].sort();
  return ['set', sorted.map((name) => ['named-uuid', name])];
}

/**
 * The default value of a column type, as ovsdb-server fills in (and leaves out of update2 rows):
 * `null`, `[]` or an empty Map; scalars get 0, false, "" or the all-zero UUID (enums are ignored, as in OVSDB).
 */
export function defaultDatum(t: ColumnType): Datum {
  if (isMap(t)) return new Map();
  if (isOptional(t)) return null;
  if (!isScalar(t)) return [];
  switch (t.key.type) {
    case 'integer':
    case 'real':
      return 0;
    case 'boolean':
      return false;
    case 'string':
      return '';
    case 'uuid':
      return '00000000-0000-0000-0000-000000000000';
  }
}

/** Structural equality of two decoded datums. */
export function datumEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a instanceof Map && b instanceof Map) {
    if (a.size !== b.size) return false;
    for (const [k, v] of a) if (!b.has(k) || b.get(k) !== v) return false;
    return true;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return false;
    const keys = new Set(a.map((x: Atom) => atomKey(x)));
    return b.every((x: Atom) => keys.has(atomKey(x)));
  }
  return typeof a === 'number' && typeof b === 'number' && a === b;
}

function toAtoms(t: ColumnType, d: Datum): Atom[] {
  if (d === null) return [];
  if (Array.isArray(d)) return [...(d as Atom[])];
  return [d as Atom];
}

/**
 * Applies an update2/update3 `modify` diff to a column value: sets take the symmetric difference;
 * maps add new keys, remove keys whose diff value equals the old value, replace the others;
 * scalars take the new value.
 */
export function applyDiff(t: ColumnType, old: Datum, diff: unknown, ctx: ValueContext): Datum {
  if (isScalar(t)) return decodeDatum(t, diff, ctx);
  if (isMap(t)) {
    const d = decodeDatum(t, diff, ctx, { relaxed: true }) as Map<Atom, Atom>;
    const out = new Map(old as Map<Atom, Atom>);
    for (const [k, v] of d) {
      if (!out.has(k)) out.set(k, v);
      else if (out.get(k) === v) out.delete(k);
      else out.set(k, v);
    }
    return out;
  }
  const d = decodeDatum(t, diff, ctx, { relaxed: true }) as Atom[];
  const current = new Map(toAtoms(t, old).map((a) => [atomKey(a), a] as const));
  for (const a of d) {
    const k = atomKey(a);
    if (current.has(k)) current.delete(k);
    else current.set(k, a);
  }
  const atoms = [...current.values()].sort(compareAtoms);
  return isOptional(t) ? (atoms[0] ?? null) : atoms;
}

/** The update2 diff that turns `old` into `next` (inverse of {@link applyDiff}); wire JSON. */
export function diffDatum(t: ColumnType, old: Datum, next: Datum, ctx: ValueContext): unknown {
  if (isScalar(t)) return encodeDatum(t, next, ctx);
  if (isMap(t)) {
    const o = old as Map<Atom, Atom>;
    const n = next as Map<Atom, Atom>;
    const d = new Map<Atom, Atom>();
    for (const [k, v] of o) if (!n.has(k)) d.set(k, v);
    for (const [k, v] of n) if (o.get(k) !== v) d.set(k, v);
    return encodeDatum(t, d, ctx, { relaxed: true });
  }
  const ok = new Map(toAtoms(t, old).map((a) => [atomKey(a), a] as const));
  const nk = new Map(toAtoms(t, next).map((a) => [atomKey(a), a] as const));
  const d: Atom[] = [];
  for (const [k, a] of ok) if (!nk.has(k)) d.push(a);
  for (const [k, a] of nk) if (!ok.has(k)) d.push(a);
  const j = encodeDatum({ ...t, min: 0, max: Infinity }, d, ctx, { relaxed: true });
  return j;
}
