// Operations encoded straight to their JSON text, with each column's checks chosen once per table schema.
import { columnOf, type BaseType, type ColumnType, type DatabaseSchema, type TableSchema } from './schema';
import { encodeCondition, encodeOperation, type Condition, type Mutation, type Operation } from './ops';
import { encodeAtom, encodeDatum, NamedUuid, type DatumOptions, type ValueContext } from './values';

/*
 * Why this exists: a transaction's operations used to be encoded to wire objects (encodeOperation)
 * and then serialized (JSON.stringify). For the bench's 1,000-port transaction that was ~5 ms of
 * checking and encoding plus ~3.4 ms of JSON text per pass, all before the server could start, and
 * most of the garbage the collector then paid for. Here the common shapes (scalar atoms, single-
 * element sets, string-keyed maps, the insert/update/delete/select/wait/mutate operations) write
 * their text directly; everything else, and every value that fails a check, goes through the
 * object encoder, so the errors are its errors, and the text is JSON.stringify(encodeOperation(...))
 * byte for byte (unit-tested against it).
 */

/** Writes one atom (of `base`, the column's key or value type) to `out`; throws as encodeAtom does. */
type AtomText = (out: string[], v: unknown, base: BaseType, c: ColumnCodec) => void;

/** A column's encoder, made once per column of a table schema. */
interface ColumnCodec {
  readonly type: ColumnType;
  /** The column name as JSON text. */
  readonly nameJson: string;
  /** Shared by every value of this column (the errors carry table and column from it). */
  readonly ctx: ValueContext;
  readonly keyText: AtomText;
  /** A map column with string keys: Map and plain-object values take the direct path. */
  readonly stringMap: boolean;
  readonly valueText: AtomText | undefined;
}

/** A table's column encoders, made as each column is first written. */
interface TableCodec {
  readonly schema: TableSchema;
  /** The table's name as the schema's key (what errors name). */
  readonly name: string;
  readonly nameJson: string;
  readonly columns: Map<string, ColumnCodec>;
}

const STRICT: DatumOptions = {};
const RELAXED: DatumOptions = { relaxed: true };
const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** JSON text of a value in an array (JSON.stringify writes undefined and functions there as null). */
const inArray = (v: unknown): string => JSON.stringify(v) ?? 'null';
/** `,"key":<value>` as JSON.stringify writes an object member; nothing where it leaves one out. */
function member(out: string[], key: string, v: unknown): void {
  const j = JSON.stringify(v);
  if (j !== undefined) out.push(`,"${key}":`, j);
}

/** Any atom, through the object encoder: every check and every error message is encodeAtom's. */
const checkedAtomText: AtomText = (out, v, base, c) => {
  out.push(inArray(encodeAtom(base, v, c.ctx, c.type)));
};
/** A string without enum or length limits: any string is valid. */
const plainStringText: AtomText = (out, v, base, c) => {
  if (typeof v === 'string') out.push(JSON.stringify(v));
  else checkedAtomText(out, v, base, c);
};
/** A uuid: a named uuid is written as it is, a UUID string is checked by encodeAtom. */
const uuidText: AtomText = (out, v, base, c) => {
  if (v instanceof NamedUuid) out.push('["named-uuid",', JSON.stringify(v.name), ']');
  else checkedAtomText(out, v, base, c);
};

function atomTextOf(b: BaseType): AtomText {
  if (b.type === 'string' && !b.enum && b.minLength === undefined && b.maxLength === undefined) return plainStringText;
  if (b.type === 'uuid') return uuidText;
  return checkedAtomText;
}

const tableCodecs = new WeakMap<TableSchema, TableCodec>();

/** The table's encoders, or undefined for a name that is not one of the schema's own tables. */
function tableCodec(schema: DatabaseSchema, table: string): TableCodec | undefined {
  if (!hasOwn(schema.tables, table)) return undefined;
  const t = schema.tables[table]!;
  let codec = tableCodecs.get(t);
  if (!codec) {
    codec = { schema: t, name: table, nameJson: JSON.stringify(table), columns: new Map() };
    tableCodecs.set(t, codec);
  }
  return codec;
}

/** The column's encoder, or undefined when the table has no such column of its own. */
function columnCodec(table: TableCodec, column: string): ColumnCodec | undefined {
  let c = table.columns.get(column);
  if (c) return c;
  if (!hasOwn(table.schema.columns, column)) return undefined;
  const type = table.schema.columns[column]!.type;
  c = {
    type,
    nameJson: JSON.stringify(column),
    ctx: { table: table.name, column },
    keyText: atomTextOf(type.key),
    stringMap: type.value !== undefined && type.key.type === 'string',
    valueText: type.value === undefined ? undefined : atomTextOf(type.value),
  };
  table.columns.set(column, c);
  return c;
}

function checkSize(c: ColumnCodec, n: number, v: unknown, opts: DatumOptions): void {
  // Out of range: encodeDatum throws the size error (the atoms were checked already).
  if (!opts.relaxed && (n < c.type.min || n > c.type.max)) encodeDatum(c.type, v, c.ctx, opts);
}

const isPlainObject = (v: object): boolean => {
  const p: unknown = Object.getPrototypeOf(v);
  return p === Object.prototype || p === null;
};

/** Writes a value of column `c` to `out`, as JSON.stringify(encodeDatum(c.type, v, ctx, opts)) writes it. */
function datumText(out: string[], c: ColumnCodec, v: unknown, opts: DatumOptions): void {
  if (c.type.value !== undefined) {
    if (c.stringMap && typeof v === 'object' && v !== null) {
      if (v instanceof Map) return stringMapText(out, c, v as Map<unknown, unknown>, opts);
      if (!Array.isArray(v) && isPlainObject(v)) return stringObjectText(out, c, v as Record<string, unknown>, opts);
    }
    out.push(inArray(encodeDatum(c.type, v, c.ctx, opts)));
    return;
  }
  if (v !== null && v !== undefined && !Array.isArray(v) && !(v instanceof Set)) {
    // One atom: its own wire form.
    c.keyText(out, v, c.type.key, c);
    checkSize(c, 1, v, opts);
    return;
  }
  if (v === null || v === undefined || (v as unknown[]).length === 0) {
    checkSize(c, 0, v, opts);
    out.push('["set",[]]');
    return;
  }
  if (Array.isArray(v) && v.length === 1) {
    c.keyText(out, v[0], c.type.key, c);
    checkSize(c, 1, v, opts);
    return;
  }
  out.push(inArray(encodeDatum(c.type, v, c.ctx, opts)));
}

/** A string-keyed map from its keys and value texts, sorted by key as encodeDatum sorts them. */
function mapText(out: string[], keys: string[], values: string[]): void {
  const n = keys.length;
  // Insertion sort on the two arrays together: maps here have a handful of entries.
  for (let i = 1; i < n; i++) {
    const k = keys[i]!;
    const t = values[i]!;
    let j = i - 1;
    while (j >= 0 && keys[j]! > k) {
      keys[j + 1] = keys[j]!;
      values[j + 1] = values[j]!;
      j--;
    }
    keys[j + 1] = k;
    values[j + 1] = t;
  }
  out.push('["map",[');
  for (let i = 0; i < n; i++) out.push(i === 0 ? '[' : ',[', JSON.stringify(keys[i]), ',', values[i]!, ']');
  out.push(']]');
}

/** One map value's text (atom writers write to an array; a map's values are sorted before they go out). */
function valueText(c: ColumnCodec, x: unknown, scratch: string[]): string {
  scratch.length = 0;
  c.valueText!(scratch, x, c.type.value!, c);
  return scratch.length === 1 ? scratch[0]! : scratch.join('');
}

function stringMapText(out: string[], c: ColumnCodec, v: Map<unknown, unknown>, opts: DatumOptions): void {
  const keys: string[] = [];
  const values: string[] = [];
  for (const [k, x] of v) {
    if (typeof k !== 'string' || c.keyText !== plainStringText) c.keyText(SCRATCH, k, c.type.key, c); // throws unless valid
    keys.push(k as string);
    values.push(valueText(c, x, SCRATCH));
  }
  checkSize(c, keys.length, v, opts);
  mapText(out, keys, values);
}

/** A plain object for a string-keyed map: its own keys are distinct strings, as a Map's are. */
function stringObjectText(out: string[], c: ColumnCodec, v: Record<string, unknown>, opts: DatumOptions): void {
  const keys = Object.keys(v);
  const values: string[] = [];
  for (const k of keys) {
    if (c.keyText !== plainStringText) c.keyText(SCRATCH, k, c.type.key, c);
    values.push(valueText(c, v[k], SCRATCH));
  }
  checkSize(c, keys.length, v, opts);
  mapText(out, keys, values);
}
/** Where map keys are checked and map values written before they are sorted. */
const SCRATCH: string[] = [];

/**
 * Writes `{"col":<datum>,...}` of a row; false where the object encoder must write it (it then throws
 * its own error: `_uuid`/`_version` written by an insert or update, or no such column).
 * `written` (insert, update): undefined members are left out; a wait's rows take every member as it is.
 */
function rowText(out: string[], schema: DatabaseSchema, table: TableCodec, row: object, written: boolean): boolean {
  let first = true;
  out.push('{');
  for (const col of Object.keys(row)) {
    const v = (row as Record<string, unknown>)[col];
    if (written) {
      if (v === undefined) continue;
      if (col === '_uuid' || col === '_version') return false;
    }
    const c = columnCodec(table, col);
    if (!c) {
      columnOf(schema, table.name, col); // throws: no such column
      return false;
    }
    out.push(first ? c.nameJson : `,${c.nameJson}`, ':');
    first = false;
    datumText(out, c, v, STRICT);
  }
  out.push('}');
  return true;
}

function whereText(out: string[], schema: DatabaseSchema, table: TableCodec, where: readonly Condition[]): void {
  out.push('[');
  let first = true;
  for (const cond of where) {
    const [col, fn, value] = cond;
    if (!first) out.push(',');
    first = false;
    const c = typeof col === 'string' ? columnCodec(table, col) : undefined;
    if (!c) {
      out.push(inArray(encodeCondition(schema, table.name, cond)));
      continue;
    }
    out.push('[', c.nameJson, ',', inArray(fn), ',');
    // Sets and maps are compared with partial values (relaxed size), scalars with atoms.
    datumText(out, c, value, c.type.value !== undefined || c.type.min !== 1 || c.type.max !== 1 ? RELAXED : STRICT);
    out.push(']');
  }
  out.push(']');
}

const ARITH: ReadonlySet<unknown> = new Set(['+=', '-=', '*=', '/=', '%=']);

/**
 * A mutation written directly: a set or map operand of the column's own type. Arithmetic and
 * map-key deletion change the operand's type, so the object encoder does those.
 */
function isDirectMutation(table: TableCodec, m: Mutation): boolean {
  if (!Array.isArray(m) || typeof m[0] !== 'string') return false;
  const c = columnCodec(table, m[0]);
  return c !== undefined && !ARITH.has(m[1]) && !(c.type.value !== undefined && m[1] === 'delete');
}

function mutationsText(out: string[], table: TableCodec, mutations: readonly Mutation[]): void {
  out.push('[');
  let first = true;
  for (const [col, mut, value] of mutations) {
    const c = columnCodec(table, col)!;
    out.push(first ? '[' : ',[', c.nameJson, ',', inArray(mut), ',');
    first = false;
    datumText(out, c, value, RELAXED);
    out.push(']');
  }
  out.push(']');
}

const whole = (schema: DatabaseSchema, op: Operation): string => JSON.stringify(encodeOperation(schema, op));

/**
 * Writes one operation's JSON text to `out` in pieces, as `JSON.stringify(encodeOperation(schema, op))`
 * writes it, with the same checks in the same order and the same errors (a value the schema refuses
 * throws SchemaValueError naming table, column and value; an unknown table or column throws
 * SchemaError). What this does not write itself (commit, comment, arithmetic mutations, rows with
 * `_uuid`, ...), encodeOperation does. On a throw, `out` may hold part of the operation.
 */
export function writeOperation(out: string[], schema: DatabaseSchema, op: Operation): void {
  const table = 'table' in op && typeof op.table === 'string' ? tableCodec(schema, op.table) : undefined;
  if (!table || !writeTableOperation(out, schema, table, op)) out.push(whole(schema, op));
}

/** Pieces of the operation being written (reused: encoding is synchronous and not reentrant). */
const PIECES: string[] = [];

/**
 * One operation's JSON text (see {@link writeOperation}), one flat string: joined once from its
 * pieces, as the peer writes many operations (1,000 ports: ~75,000 pieces, which cost more to
 * queue and join one by one than the encoding saved).
 */
export function encodeOperationText(schema: DatabaseSchema, op: Operation): string {
  PIECES.length = 0;
  writeOperation(PIECES, schema, op);
  return PIECES.join('');
}

/** Writes an operation on `table`; false (and `out` as it was) where encodeOperation must write it. */
function writeTableOperation(out: string[], schema: DatabaseSchema, table: TableCodec, op: Operation): boolean {
  const mark = out.length;
  out.push('{"op":"', op.op, '","table":', table.nameJson);
  let ok = true;
  switch (op.op) {
    case 'insert':
      out.push(',"row":');
      if (!(ok = rowText(out, schema, table, op.row, true))) break;
      member(out, 'uuid-name', op.uuidName);
      member(out, 'uuid', op.uuid);
      break;
    case 'select':
      for (const c of op.columns ?? []) columnOf(schema, op.table, c);
      out.push(',"where":');
      whereText(out, schema, table, op.where);
      if (op.columns) out.push(',"columns":', JSON.stringify([...op.columns]));
      break;
    case 'update':
      out.push(',"where":');
      whereText(out, schema, table, op.where);
      out.push(',"row":');
      ok = rowText(out, schema, table, op.row, true);
      break;
    case 'mutate':
      for (const m of op.mutations) if (!isDirectMutation(table, m)) ok = false;
      if (!ok) break;
      out.push(',"where":');
      whereText(out, schema, table, op.where);
      out.push(',"mutations":');
      mutationsText(out, table, op.mutations);
      break;
    case 'delete':
      out.push(',"where":');
      whereText(out, schema, table, op.where);
      break;
    case 'wait': {
      for (const c of op.columns) columnOf(schema, op.table, c);
      // encodeOperation encodes the rows before the conditions: a bad row value throws first.
      const rows: string[] = [];
      for (const r of op.rows) {
        rows.push(rows.length === 0 ? '[' : ',');
        if (!(ok = rowText(rows, schema, table, r, false))) break;
      }
      if (!ok) break;
      out.push(',"where":');
      whereText(out, schema, table, op.where);
      out.push(',"columns":', JSON.stringify([...op.columns]));
      member(out, 'until', op.until);
      out.push(',"rows":');
      if (rows.length === 0) out.push('[]');
      else for (const piece of rows) out.push(piece);
      if (rows.length > 0) out.push(']');
      member(out, 'timeout', op.timeout);
      break;
    }
    default:
      ok = false;
  }
  if (!ok) {
    out.length = mark;
    return false;
  }
  out.push('}');
  return true;
}
