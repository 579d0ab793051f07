// Typed builders for every transact operation, their schema-checked encoding, and typed results.
import { SchemaError, TransactionError } from './errors';
import { columnOf, isUuid, tableOf, type ColumnType, type DatabaseSchema } from './schema';
import { decodeDatum, encodeDatum, type Datum } from './values';

/** Condition functions (RFC 7047 5.1). */
export type ConditionFunction = '==' | '!=' | '<' | '<=' | '>' | '>=' | 'includes' | 'excludes';
/** `[column, function, value]`; `value` in JS form (uuids as strings, maps as Map or object). */
export type Condition<C extends string = string> = readonly [
  column: C | '_uuid',
  fn: ConditionFunction,
  value: unknown,
];
/** Mutators (RFC 7047 5.1). */
export type Mutator = '+=' | '-=' | '*=' | '/=' | '%=' | 'insert' | 'delete';
export type Mutation<C extends string = string> = readonly [column: C, mutator: Mutator, value: unknown];

type Row = Record<string, unknown>;
type Cols<R> = Extract<keyof R, string>;

export interface InsertOp<R = Row> {
  readonly op: 'insert';
  readonly table: string;
  readonly row: Partial<R>;
  /** Name other operations in the transaction can refer to with `namedUuid(name)`. */
  readonly uuidName?: string;
  /** Requested UUID for the new row (OVS extension, ovsdb-server >= 2.13). */
  readonly uuid?: string;
}
export interface SelectOp<R = Row> {
  readonly op: 'select';
  readonly table: string;
  readonly where: readonly Condition<Cols<R>>[];
  readonly columns?: readonly (Cols<R> | '_uuid' | '_version')[];
}
export interface UpdateOp<R = Row> {
  readonly op: 'update';
  readonly table: string;
  readonly where: readonly Condition<Cols<R>>[];
  readonly row: Partial<R>;
}
export interface MutateOp<R = Row> {
  readonly op: 'mutate';
  readonly table: string;
  readonly where: readonly Condition<Cols<R>>[];
  readonly mutations: readonly Mutation<Cols<R>>[];
}
export interface DeleteOp<R = Row> {
  readonly op: 'delete';
  readonly table: string;
  readonly where: readonly Condition<Cols<R>>[];
}
export interface WaitOp<R = Row> {
  readonly op: 'wait';
  readonly table: string;
  readonly where: readonly Condition<Cols<R>>[];
  readonly columns: readonly (Cols<R> | '_uuid' | '_version')[];
  readonly until: '==' | '!=';
  readonly rows: readonly Partial<R>[];
  /** Milliseconds; 0 (the usual choice for optimistic checks) fails at once when not satisfied. */
  readonly timeout?: number;
}
export interface CommitOp {
  readonly op: 'commit';
  readonly durable: boolean;
}
export interface AbortOp {
  readonly op: 'abort';
}
export interface CommentOp {
  readonly op: 'comment';
  readonly comment: string;
}
export interface AssertOp {
  readonly op: 'assert';
  readonly lock: string;
}

/** Any transact operation. */
export type Operation =
  | InsertOp<Row>
  | SelectOp<Row>
  | UpdateOp<Row>
  | MutateOp<Row>
  | DeleteOp<Row>
  | WaitOp<Row>
  | CommitOp
  | AbortOp
  | CommentOp
  | AssertOp;

/** Builders typed by a map of table name -> row type (e.g. the generated `VswitchTables`). */
export interface OperationBuilders<DB extends object> {
  insert<T extends Extract<keyof DB, string>>(
    table: T,
    row: Partial<DB[T]>,
    opts?: { uuidName?: string; uuid?: string },
  ): InsertOp<DB[T]>;
  select<T extends Extract<keyof DB, string>>(
    table: T,
    where?: readonly Condition<Cols<DB[T]>>[],
    columns?: readonly (Cols<DB[T]> | '_uuid' | '_version')[],
  ): SelectOp<DB[T]>;
  update<T extends Extract<keyof DB, string>>(
    table: T,
    where: readonly Condition<Cols<DB[T]>>[],
    row: Partial<DB[T]>,
  ): UpdateOp<DB[T]>;
  mutate<T extends Extract<keyof DB, string>>(
    table: T,
    where: readonly Condition<Cols<DB[T]>>[],
    mutations: readonly Mutation<Cols<DB[T]>>[],
  ): MutateOp<DB[T]>;
  delete<T extends Extract<keyof DB, string>>(
    table: T,
    where: readonly Condition<Cols<DB[T]>>[],
  ): DeleteOp<DB[T]>;
  wait<T extends Extract<keyof DB, string>>(
    table: T,
    where: readonly Condition<Cols<DB[T]>>[],
    columns: readonly (Cols<DB[T]> | '_uuid' | '_version')[],
    until: '==' | '!=',
    rows: readonly Partial<DB[T]>[],
    timeout?: number,
  ): WaitOp<DB[T]>;
  commit(durable?: boolean): CommitOp;
  abort(): AbortOp;
  comment(comment: string): CommentOp;
  assert(lock: string): AssertOp;
}

/** Returns operation builders typed for a database's tables. */
export function operationsFor<DB extends object>(): OperationBuilders<DB> {
  return ops as unknown as OperationBuilders<DB>;
}

/** Untyped operation builders (any table, any column). */
// Optional members by branches, not spreads of `{}` or `{ key }`: VSwitch.addPorts builds 3,001 of
// these per 1,000 ports, and each spread was a temporary object and a copy.
export const ops: OperationBuilders<Record<string, Row>> = {
  insert: (table, row, o = {}) => {
    const { uuidName, uuid } = o;
    if (uuid === undefined) return uuidName === undefined ? { op: 'insert', table, row } : { op: 'insert', table, row, uuidName };
    return uuidName === undefined ? { op: 'insert', table, row, uuid } : { op: 'insert', table, row, uuidName, uuid };
  },
  select: (table, where = [], columns) => ({ op: 'select', table, where, ...(columns ? { columns } : {}) }),
  update: (table, where, row) => ({ op: 'update', table, where, row }),
  mutate: (table, where, mutations) => ({ op: 'mutate', table, where, mutations }),
  delete: (table, where) => ({ op: 'delete', table, where }),
  wait: (table, where, columns, until, rows, timeout) =>
    timeout === undefined
      ? { op: 'wait', table, where, columns, until, rows }
      : { op: 'wait', table, where, columns, until, rows, timeout },
  commit: (durable = false) => ({ op: 'commit', durable }),
  abort: () => ({ op: 'abort' }),
  comment: (comment) => ({ op: 'comment', comment }),
  assert: (lock) => ({ op: 'assert', lock }),
};

const ARITH = new Set<Mutator>(['+=', '-=', '*=', '/=', '%=']);
const isSetOrMap = (t: ColumnType): boolean => t.value !== undefined || t.max !== 1 || t.min !== 1;

function encodeRow(
  schema: DatabaseSchema,
  table: string,
  row: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [col, v] of Object.entries(row)) {
    if (v === undefined) continue;
    if (col === '_uuid' || col === '_version')
      throw new SchemaError(`${table}.${col} cannot be written`, table, col);
    out[col] = encodeDatum(columnOf(schema, table, col).type, v, { table, column: col });
  }
  return out;
}

/** Encodes a condition's value: atoms against scalar columns, partial sets/maps otherwise. */
export function encodeCondition(schema: DatabaseSchema, table: string, c: Condition): unknown[] {
  const [col, fn, value] = c;
  const t = columnOf(schema, table, col).type;
  const ctx = { table, column: col };
  if (!isSetOrMap(t)) return [col, fn, encodeDatum(t, value, ctx)];
  return [col, fn, encodeDatum(t, value, ctx, { relaxed: true })];
}

function encodeMutation(schema: DatabaseSchema, table: string, m: Mutation): unknown[] {
  const [col, mut, value] = m;
  const t = columnOf(schema, table, col).type;
  const ctx = { table, column: col };
  if (ARITH.has(mut)) {
    // Arithmetic applies to each element: the operand is a single atom of the key type.
    return [col, mut, encodeDatum({ key: t.key, min: 1, max: 1 }, value, ctx)];
  }
  if (t.value !== undefined && mut === 'delete' && (Array.isArray(value) || value instanceof Set)) {
    // Deleting map entries by key: a set of keys.
    return [col, mut, encodeDatum({ key: t.key, min: 0, max: Infinity }, value, ctx, { relaxed: true })];
  }
  return [col, mut, encodeDatum(t, value, ctx, { relaxed: true })];
}

/** Encodes one operation to wire JSON, validating every value against the schema first. */
export function encodeOperation(schema: DatabaseSchema, op: Operation): Record<string, unknown> {
  switch (op.op) {
    case 'insert': {
      tableOf(schema, op.table);
      return {
        op: 'insert',
        table: op.table,
        row: encodeRow(schema, op.table, op.row),
        ...(op.uuidName !== undefined ? { 'uuid-name': op.uuidName } : {}),
        ...(op.uuid !== undefined ? { uuid: op.uuid } : {}),
      };
    }
    case 'select':
      tableOf(schema, op.table);
      for (const c of op.columns ?? []) columnOf(schema, op.table, c);
      return {
        op: 'select',
        table: op.table,
        where: op.where.map((c) => encodeCondition(schema, op.table, c)),
        ...(op.columns ? { columns: [...op.columns] } : {}),
      };
    case 'update':
      return {
        op: 'update',
        table: op.table,
        where: op.where.map((c) => encodeCondition(schema, op.table, c)),
        row: encodeRow(schema, op.table, op.row),
      };
    case 'mutate':
      return {
        op: 'mutate',
        table: op.table,
        where: op.where.map((c) => encodeCondition(schema, op.table, c)),
        mutations: op.mutations.map((m) => encodeMutation(schema, op.table, m)),
      };
    case 'delete':
      return {
        op: 'delete',
        table: op.table,
        where: op.where.map((c) => encodeCondition(schema, op.table, c)),
      };
    case 'wait': {
      for (const c of op.columns) columnOf(schema, op.table, c);
      const rows = op.rows.map((r) => {
        const out: Record<string, unknown> = {};
        for (const [col, v] of Object.entries(r)) {
          out[col] = encodeDatum(columnOf(schema, op.table, col).type, v, { table: op.table, column: col });
        }
        return out;
      });
      return {
        op: 'wait',
        table: op.table,
        where: op.where.map((c) => encodeCondition(schema, op.table, c)),
        columns: [...op.columns],
        until: op.until,
        rows,
        ...(op.timeout !== undefined ? { timeout: op.timeout } : {}),
      };
    }
    case 'commit':
      return { op: 'commit', durable: op.durable };
    case 'abort':
      return { op: 'abort' };
    case 'comment':
      return { op: 'comment', comment: op.comment };
    case 'assert':
      return { op: 'assert', lock: op.lock };
  }
}

/** A decoded row: column -> value, plus `_uuid`/`_version` when present. */
export type DecodedRow = Record<string, Datum>;

/** Decodes a wire row of `table` (unknown columns are an error: they mean a schema mismatch). */
export function decodeRow(schema: DatabaseSchema, table: string, row: unknown): DecodedRow {
  if (typeof row !== 'object' || row === null || Array.isArray(row)) {
    throw new SchemaError(`row of ${table} is not an object`, table);
  }
  const out: DecodedRow = {};
  for (const [col, j] of Object.entries(row as Record<string, unknown>)) {
    out[col] = decodeDatum(columnOf(schema, table, col).type, j, { table, column: col });
  }
  return out;
}

/** Result of one successful operation. */
export type OperationResult =
  | { readonly op: 'insert'; readonly uuid: string }
  | { readonly op: 'select'; readonly rows: DecodedRow[] }
  | { readonly op: 'update' | 'mutate' | 'delete'; readonly count: number }
  | { readonly op: 'wait' | 'commit' | 'abort' | 'comment' | 'assert' };

/** An OVSDB error object (`{"error": ..., "details": ...}`). */
export interface OperationError {
  readonly error: string;
  readonly details?: string;
}

/** A transaction that committed: one result per operation, plus `uuid-name` -> real UUID. */
export interface TransactionSuccess {
  readonly ok: true;
  readonly results: OperationResult[];
  readonly uuids: Readonly<Record<string, string>>;
}

/**
 * A transaction that did not commit. `index` is the failed operation (`undefined` when the commit as a
 * whole failed, e.g. a constraint or referential integrity violation). Nothing was changed.
 */
export interface TransactionFailure {
  readonly ok: false;
  readonly error: string;
  readonly details?: string;
  readonly index: number | undefined;
  readonly operation: Operation | undefined;
  /** Results of the operations before the failure (they were rolled back). */
  readonly results: Array<OperationResult | null>;
}

/** Discriminated by `ok`: a failed transaction is never a success. */
export type TransactionResult = TransactionSuccess | TransactionFailure;

/** Returns the success or throws a {@link TransactionError} carrying the server's error. */
export function unwrap(r: TransactionResult): TransactionSuccess {
  if (r.ok) return r;
  throw new TransactionError(r.error, r.details, r.index, r.operation);
}

function asError(x: unknown): OperationError | undefined {
  if (typeof x === 'object' && x !== null && typeof (x as { error?: unknown }).error === 'string') {
    const e = x as { error: string; details?: unknown };
    return typeof e.details === 'string' ? { error: e.error, details: e.details } : { error: e.error };
  }
  return undefined;
}

/**
 * One successful operation's result, or why it is not of its operation's shape (a server bug must
 * not pass for a commit). A module-level function: a closure per result was measurable for the
 * 3,001 results of a 1,000-port transaction.
 */
function decodeResult(schema: DatabaseSchema, op: Operation, r: object): OperationResult | string {
  if (Array.isArray(r)) return 'not an object';
  const o = r as Record<string, unknown>;
  switch (op.op) {
    case 'insert': {
      const u = o.uuid;
      if (!Array.isArray(u) || u.length !== 2 || u[0] !== 'uuid' || !isUuid(u[1])) return 'uuid is not ["uuid", <uuid>]';
      return { op: 'insert', uuid: u[1].toLowerCase() };
    }
    case 'select':
      if (!Array.isArray(o.rows)) return 'rows is not an array';
      return { op: 'select', rows: (o.rows as unknown[]).map((row) => decodeRow(schema, op.table, row)) };
    case 'update':
    case 'mutate':
    case 'delete':
      if (!Number.isInteger(o.count) || (o.count as number) < 0) return 'count is not a non-negative integer';
      return { op: op.op, count: o.count as number };
    default:
      return { op: op.op };
  }
}

/** Turns a transact reply into a {@link TransactionResult}. */
export function decodeTransactResult(
  schema: DatabaseSchema,
  operations: readonly Operation[],
  reply: unknown,
): TransactionResult {
  if (!Array.isArray(reply)) {
    return {
      ok: false,
      error: 'invalid reply',
      details: 'transact reply is not an array',
      index: undefined,
      operation: undefined,
      results: [],
    };
  }
  const results: Array<OperationResult | null> = [];
  const uuids: Record<string, string> = {};
  let nulls = false;
  for (let i = 0; i < reply.length; i++) {
    const r = reply[i] as unknown;
    const err = asError(r);
    if (err) {
      const op = operations[i];
      return {
        ok: false,
        ...err,
        index: i < operations.length ? i : undefined,
        operation: op,
        results,
      };
    }
    const op = operations[i];
    if (!op) continue;
    if (r === null) {
      results.push(null);
      nulls = true;
      continue;
    }
    const res = typeof r === 'object' ? decodeResult(schema, op, r) : 'not an object';
    if (typeof res === 'string') {
      return { ok: false, error: 'invalid reply', details: `result ${i} of ${op.op}: ${res}`, index: i, operation: op, results };
    }
    if (res.op === 'insert' && op.op === 'insert' && op.uuidName !== undefined) uuids[op.uuidName] = res.uuid;
    results.push(res);
  }
  if (results.length < operations.length || nulls) {
    return {
      ok: false,
      error: 'invalid reply',
      details: `expected ${operations.length} results, got ${reply.length}`,
      index: undefined,
      operation: undefined,
      results,
    };
  }
  return { ok: true, results: results as OperationResult[], uuids };
}
