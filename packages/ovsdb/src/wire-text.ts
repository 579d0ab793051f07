// Operations encoded straight to their JSON text, with each column's checks chosen once per table schema.
import { columnOf, type BaseType, type ColumnType, type DatabaseSchema, type TableSchema } from './schema';
import { encodeCondition, encodeOperation, type Condition, type Mutation, type Operation } from './ops';
import { encodeAtom, encodeDatum, NamedUuid, type DatumOptions, type ValueContext } from './values';
import { Utf8Writer } from './jsonrpc/utf8-writer';

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

/** One atom's text (of `base`, the column's key or value type); throws as encodeAtom does. */
type AtomText = (v: unknown, base: BaseType, c: ColumnCodec) => string;

/** A column's encoder, made once per column of a table schema. */
interface ColumnCodec {
  readonly type: ColumnType;
  /** The column name as JSON text. */
  readonly nameJson: string;
  /** `"name":` and `,"name":`, a row member's start. */
  readonly member: string;
  readonly nextMember: string;
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
  /** `{"op":"<op>","table":<name>` per operation name, as first written. */
  readonly heads: Map<string, string>;
}

const STRICT: DatumOptions = {};
const RELAXED: DatumOptions = { relaxed: true };
const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** JSON text of a value in an array (JSON.stringify writes undefined and functions there as null). */
const inArray = (v: unknown): string => JSON.stringify(v) ?? 'null';
/** `,"key":<value>` (`keyText` is `,"key":`) as JSON.stringify writes an object member; nothing where it leaves one out. */
function member(out: Utf8Writer, keyText: string, v: unknown): void {
  if (typeof v === 'string') {
    out.json(keyText);
    out.string(v);
    return;
  }
  const j = JSON.stringify(v);
  if (j !== undefined) {
    out.json(keyText);
    out.json(j);
  }
}

/** Any atom, through the object encoder: every check and every error message is encodeAtom's. */
const checkedAtomText: AtomText = (v, base, c) => inArray(encodeAtom(base, v, c.ctx, c.type));
/** A string without enum or length limits: any string is valid. */
const plainStringText: AtomText = (v, base, c) => (typeof v === 'string' ? JSON.stringify(v) : checkedAtomText(v, base, c));
/** A uuid: a named uuid is written as it is, a UUID string is checked by encodeAtom. */
const uuidText: AtomText = (v, base, c) =>
  v instanceof NamedUuid ? `["named-uuid",${JSON.stringify(v.name)}]` : checkedAtomText(v, base, c);

/** Writes one atom of `text`'s kind: plain strings and named uuids directly, anything else as `text` makes it. */
function writeAtom(out: Utf8Writer, text: AtomText, v: unknown, base: BaseType, c: ColumnCodec): void {
  if (typeof v === 'string' && text === plainStringText) {
    out.string(v);
  } else if (v instanceof NamedUuid && text === uuidText) {
    out.json('["named-uuid",');
    out.string(v.name);
    out.json(']');
  } else {
    out.json(text(v, base, c));
  }
}

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
    codec = { schema: t, name: table, nameJson: JSON.stringify(table), columns: new Map(), heads: new Map() };
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
  const nameJson = JSON.stringify(column);
  c = {
    type,
    nameJson,
    member: `${nameJson}:`,
    nextMember: `,${nameJson}:`,
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

/** Writes a value of column `c`, as JSON.stringify(encodeDatum(c.type, v, ctx, opts)) writes it. */
function datumText(out: Utf8Writer, c: ColumnCodec, v: unknown, opts: DatumOptions): void {
  if (c.type.value !== undefined) {
    if (c.stringMap && typeof v === 'object' && v !== null) {
      if (v instanceof Map) return stringMapText(out, c, v as Map<unknown, unknown>, opts);
      if (!Array.isArray(v) && isPlainObject(v)) return stringObjectText(out, c, v as Record<string, unknown>, opts);
    }
    out.json(inArray(encodeDatum(c.type, v, c.ctx, opts)));
    return;
  }
  if (v !== null && v !== undefined && !Array.isArray(v) && !(v instanceof Set)) {
    // One atom: its own wire form.
    writeAtom(out, c.keyText, v, c.type.key, c);
    checkSize(c, 1, v, opts);
    return;
  }
  if (v === null || v === undefined || (v as unknown[]).length === 0) {
    checkSize(c, 0, v, opts);
    out.json('["set",[]]');
    return;
  }
  if (Array.isArray(v) && v.length === 1) {
    writeAtom(out, c.keyText, v[0], c.type.key, c);
    checkSize(c, 1, v, opts);
    return;
  }
  out.json(inArray(encodeDatum(c.type, v, c.ctx, opts)));
}

/*
 * A map's entries, checked in their own order and written sorted by key. Module-level and reused
 * (maps are written one at a time; an array emptied with `length = 0` gives its storage back):
 * KEYS the keys, VALUES a plain string value as it is, TEXTS any other value's JSON text.
 */
const KEYS: string[] = [];
const VALUES: string[] = [];
const TEXTS: Array<string | undefined> = [];

/** Checks one map entry and keeps it as entry `i` (throws as encodeDatum does). */
function keepEntry(c: ColumnCodec, i: number, k: unknown, x: unknown): void {
  if (typeof k !== 'string' || c.keyText !== plainStringText) c.keyText(k, c.type.key, c); // throws unless valid
  KEYS[i] = k as string;
  if (typeof x === 'string' && c.valueText === plainStringText) {
    VALUES[i] = x;
    TEXTS[i] = undefined;
  } else {
    TEXTS[i] = c.valueText!(x, c.type.value!, c);
  }
}

/** The first `n` kept entries as a map, sorted by key as encodeDatum sorts them. */
function mapText(out: Utf8Writer, n: number): void {
  // Insertion sort of the three arrays together: maps here have a handful of entries.
  for (let i = 1; i < n; i++) {
    const k = KEYS[i]!;
    const v = VALUES[i]!;
    const t = TEXTS[i];
    let j = i - 1;
    while (j >= 0 && KEYS[j]! > k) {
      KEYS[j + 1] = KEYS[j]!;
      VALUES[j + 1] = VALUES[j]!;
      TEXTS[j + 1] = TEXTS[j];
      j--;
    }
    KEYS[j + 1] = k;
    VALUES[j + 1] = v;
    TEXTS[j + 1] = t;
  }
  out.json('["map",[');
  for (let i = 0; i < n; i++) {
    out.json(i === 0 ? '[' : ',[');
    out.string(KEYS[i]!);
    out.json(',');
    const t = TEXTS[i];
    if (t === undefined) out.string(VALUES[i]!);
    else out.json(t);
    out.json(']');
  }
  out.json(']]');
}

function stringMapText(out: Utf8Writer, c: ColumnCodec, v: Map<unknown, unknown>, opts: DatumOptions): void {
  let n = 0;
  for (const [k, x] of v) keepEntry(c, n++, k, x);
  checkSize(c, n, v, opts);
  mapText(out, n);
}

/** A plain object for a string-keyed map: its own keys are distinct strings, as a Map's are. */
function stringObjectText(out: Utf8Writer, c: ColumnCodec, v: Record<string, unknown>, opts: DatumOptions): void {
  let n = 0;
  for (const k of Object.keys(v)) keepEntry(c, n++, k, v[k]);
  checkSize(c, n, v, opts);
  mapText(out, n);
}

/**
 * Writes `{"col":<datum>,...}` of a row; false where the object encoder must write it (it then throws
 * its own error: `_uuid`/`_version` written by an insert or update, or no such column).
 * `written` (insert, update): undefined members are left out; a wait's rows take every member as it is.
 */
function rowText(out: Utf8Writer, schema: DatabaseSchema, table: TableCodec, row: object, written: boolean): boolean {
  let first = true;
  out.json('{');
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
    out.json(first ? c.member : c.nextMember);
    first = false;
    datumText(out, c, v, STRICT);
  }
  out.json('}');
  return true;
}

function whereText(out: Utf8Writer, schema: DatabaseSchema, table: TableCodec, where: readonly Condition[]): void {
  out.json('[');
  let first = true;
  for (const cond of where) {
    const [col, fn, value] = cond;
    if (!first) out.json(',');
    first = false;
    const c = typeof col === 'string' ? columnCodec(table, col) : undefined;
    if (!c) {
      out.json(inArray(encodeCondition(schema, table.name, cond)));
      continue;
    }
    out.json('[');
    out.json(c.nameJson);
    out.json(',');
    out.json(inArray(fn));
    out.json(',');
    // Sets and maps are compared with partial values (relaxed size), scalars with atoms.
    datumText(out, c, value, c.type.value !== undefined || c.type.min !== 1 || c.type.max !== 1 ? RELAXED : STRICT);
    out.json(']');
  }
  out.json(']');
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

function mutationsText(out: Utf8Writer, table: TableCodec, mutations: readonly Mutation[]): void {
  out.json('[');
  let first = true;
  for (const [col, mut, value] of mutations) {
    const c = columnCodec(table, col)!;
    out.json(first ? '[' : ',[');
    out.json(c.nameJson);
    out.json(',');
    out.json(inArray(mut));
    out.json(',');
    first = false;
    datumText(out, c, value, RELAXED);
    out.json(']');
  }
  out.json(']');
}

const whole = (schema: DatabaseSchema, op: Operation): string => JSON.stringify(encodeOperation(schema, op));

/**
 * Writes one operation's JSON text to `out` as UTF-8, the bytes of
 * `Buffer.from(JSON.stringify(encodeOperation(schema, op)))`, with the same checks in the same order
 * and the same errors (a value the schema refuses throws SchemaValueError naming table, column and
 * value; an unknown table or column throws SchemaError). What this does not write itself (commit,
 * comment, arithmetic mutations, rows with `_uuid`, ...), encodeOperation does. On a throw, `out`
 * may hold part of the operation.
 */
export function writeOperation(out: Utf8Writer, schema: DatabaseSchema, op: Operation): void {
  const table = 'table' in op && typeof op.table === 'string' ? tableCodec(schema, op.table) : undefined;
  if (!table || !writeTableOperation(out, schema, table, op)) out.json(whole(schema, op));
}

/** One operation's JSON text (see {@link writeOperation}). */
export function encodeOperationText(schema: DatabaseSchema, op: Operation): string {
  const out = new Utf8Writer(256);
  writeOperation(out, schema, op);
  return out.take().toString('utf8');
}

/**
 * Where transactions are written: one buffer for all of them, each taking the bytes after the last
 * one's (see Utf8Writer.take), so a small transaction costs no allocation of its own.
 */
let shared: Utf8Writer | undefined;

/**
 * The params of a `transact` as JSON text in UTF-8, `[db,op,...]`, the bytes of
 * `Buffer.from(JSON.stringify([db, ...operations.map(encodeOperation)]))`. Every operation is
 * checked and written before the bytes are handed out, so a refused value throws before anything
 * can be sent.
 */
export function encodeTransactParams(schema: DatabaseSchema, db: string, operations: readonly Operation[]): Buffer {
  // A transaction written while another is (a getter in a row that starts one) gets its own buffer.
  const out = shared ?? new Utf8Writer(64 * 1024);
  shared = undefined;
  try {
    // ~170 bytes per operation of the bench's ports: room made once rather than doubled as it fills.
    out.reserve(64 + 192 * operations.length);
    out.json('[');
    if (typeof db === 'string') out.string(db);
    else out.json(inArray(db));
    for (const o of operations) {
      out.json(',');
      writeOperation(out, schema, o);
    }
    out.json(']');
    return out.take();
  } catch (err) {
    out.discard();
    throw err;
  } finally {
    shared = out;
  }
}

function opHead(table: TableCodec, op: string): string {
  let head = table.heads.get(op);
  if (head === undefined) {
    head = `{"op":"${op}","table":${table.nameJson}`;
    table.heads.set(op, head);
  }
  return head;
}

/** Writes an operation on `table`; false (and `out` as it was) where encodeOperation must write it. */
function writeTableOperation(out: Utf8Writer, schema: DatabaseSchema, table: TableCodec, op: Operation): boolean {
  const mark = out.length;
  let ok = true;
  switch (op.op) {
    case 'insert':
      out.json(opHead(table, op.op));
      out.json(',"row":');
      if (!(ok = rowText(out, schema, table, op.row, true))) break;
      member(out, ',"uuid-name":', op.uuidName);
      member(out, ',"uuid":', op.uuid);
      break;
    case 'select':
      for (const c of op.columns ?? []) columnOf(schema, op.table, c);
      out.json(opHead(table, op.op));
      out.json(',"where":');
      whereText(out, schema, table, op.where);
      if (op.columns) {
        out.json(',"columns":');
        out.json(JSON.stringify([...op.columns]));
      }
      break;
    case 'update':
      out.json(opHead(table, op.op));
      out.json(',"where":');
      whereText(out, schema, table, op.where);
      out.json(',"row":');
      ok = rowText(out, schema, table, op.row, true);
      break;
    case 'mutate':
      for (const m of op.mutations) if (!isDirectMutation(table, m)) ok = false;
      if (!ok) break;
      out.json(opHead(table, op.op));
      out.json(',"where":');
      whereText(out, schema, table, op.where);
      out.json(',"mutations":');
      mutationsText(out, table, op.mutations);
      break;
    case 'delete':
      out.json(opHead(table, op.op));
      out.json(',"where":');
      whereText(out, schema, table, op.where);
      break;
    case 'wait': {
      for (const c of op.columns) columnOf(schema, op.table, c);
      // encodeOperation encodes the rows before the conditions: a bad row value throws first, so
      // the rows are written first, to a buffer of their own.
      let rows: Buffer | undefined;
      if (op.rows.length > 0) {
        const w = new Utf8Writer(256);
        for (const r of op.rows) {
          w.json(w.length === 0 ? '[' : ',');
          if (!(ok = rowText(w, schema, table, r, false))) break;
        }
        if (!ok) break;
        w.json(']');
        rows = w.take();
      }
      out.json(opHead(table, op.op));
      out.json(',"where":');
      whereText(out, schema, table, op.where);
      out.json(',"columns":');
      out.json(JSON.stringify([...op.columns]));
      member(out, ',"until":', op.until);
      out.json(',"rows":');
      if (rows) out.writeBytes(rows);
      else out.json('[]');
      member(out, ',"timeout":', op.timeout);
      break;
    }
    default:
      ok = false;
  }
  if (!ok) {
    out.rewindTo(mark);
    return false;
  }
  out.json('}');
  return true;
}
