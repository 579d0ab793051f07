// OVSDB schema model (RFC 7047 section 3.2) parsed from its JSON form, with the implicit columns added.
import { SchemaError } from './errors';

/** The five OVSDB atomic types. */
export type AtomicType = 'integer' | 'real' | 'boolean' | 'string' | 'uuid';

/** A decoded atom: uuids are lowercase strings. */
export type Atom = number | boolean | string;

/** Constraints on one atom (a column's key or value). */
export interface BaseType {
  readonly type: AtomicType;
  /** Allowed values, already decoded. */
  readonly enum?: readonly Atom[];
  readonly minInteger?: number;
  readonly maxInteger?: number;
  readonly minReal?: number;
  readonly maxReal?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly refTable?: string;
  readonly refType?: 'strong' | 'weak';
}

/** A column's type: a set of `min`..`max` keys, or a map when `value` is present. */
export interface ColumnType {
  readonly key: BaseType;
  readonly value?: BaseType;
  readonly min: number;
  /** `Infinity` for "unlimited". */
  readonly max: number;
}

export interface ColumnSchema {
  readonly name: string;
  readonly type: ColumnType;
  readonly ephemeral: boolean;
  readonly mutable: boolean;
}

export interface TableSchema {
  readonly name: string;
  readonly columns: Readonly<Record<string, ColumnSchema>>;
  readonly maxRows?: number;
  readonly isRoot: boolean;
  readonly indexes: readonly (readonly string[])[];
}

export interface DatabaseSchema {
  readonly name: string;
  readonly version: string;
  readonly cksum?: string;
  readonly tables: Readonly<Record<string, TableSchema>>;
}

const ATOMIC: ReadonlySet<string> = new Set(['integer', 'real', 'boolean', 'string', 'uuid']);
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for a textual UUID (any case). */
export function isUuid(s: unknown): s is string {
  return typeof s === 'string' && UUID_RE.test(s);
}

function fail(msg: string, table?: string, column?: string): never {
  throw new SchemaError(msg, table, column);
}

function parseEnumAtom(type: AtomicType, j: unknown, where: string): Atom {
  if (type === 'uuid') {
    if (Array.isArray(j) && j[0] === 'uuid' && isUuid(j[1])) return (j[1] as string).toLowerCase();
  } else if (
    type === 'integer' ? Number.isInteger(j) : type === 'real' ? typeof j === 'number' : typeof j === type
  ) {
    return j as Atom;
  }
  return fail(`${where}: enum value ${JSON.stringify(j)} is not a ${type}`);
}

/** Parses a base type (`"string"` or `{"type": "string", "enum": ...}`). */
export function parseBaseType(j: unknown, where = 'type'): BaseType {
  if (typeof j === 'string') {
    if (!ATOMIC.has(j)) fail(`${where}: unknown atomic type ${j}`);
    return { type: j as AtomicType };
  }
  if (typeof j !== 'object' || j === null || Array.isArray(j)) return fail(`${where}: invalid base type`);
  const o = j as Record<string, unknown>;
  if (typeof o.type !== 'string' || !ATOMIC.has(o.type))
    fail(`${where}: unknown atomic type ${String(o.type)}`);
  const type = o.type as AtomicType;
  const out: { -readonly [K in keyof BaseType]: BaseType[K] } = { type };
  if (o.enum !== undefined) {
    const e = o.enum;
    const items = Array.isArray(e) && e[0] === 'set' && Array.isArray(e[1]) ? (e[1] as unknown[]) : [e];
    out.enum = items.map((x) => parseEnumAtom(type, x, where));
  }
  for (const k of ['minInteger', 'maxInteger', 'minReal', 'maxReal', 'minLength', 'maxLength'] as const) {
    const v = o[k];
    if (v !== undefined) {
      if (typeof v !== 'number') fail(`${where}: ${k} must be a number`);
      out[k] = v;
    }
  }
  if (typeof o.refTable === 'string') {
    out.refTable = o.refTable;
    out.refType = o.refType === 'weak' ? 'weak' : 'strong';
  }
  return out;
}

/** Parses a column type in any of its JSON forms. */
export function parseColumnType(j: unknown, where = 'type'): ColumnType {
  if (typeof j === 'string') return { key: parseBaseType(j, where), min: 1, max: 1 };
  if (typeof j !== 'object' || j === null || Array.isArray(j)) return fail(`${where}: invalid column type`);
  const o = j as Record<string, unknown>;
  // A bare base type (`{"type": "integer", "minInteger": 1}`) is a scalar column type.
  if (o.key === undefined && typeof o.type === 'string')
    return { key: parseBaseType(o, where), min: 1, max: 1 };
  const key = parseBaseType(o.key, `${where}.key`);
  const min = o.min === undefined ? 1 : o.min;
  const max = o.max === undefined ? 1 : o.max === 'unlimited' ? Infinity : o.max;
  if (typeof min !== 'number' || (min !== 0 && min !== 1)) fail(`${where}: min must be 0 or 1`);
  if (typeof max !== 'number' || max < 1 || max < min) fail(`${where}: invalid max`);
  const t: ColumnType =
    o.value === undefined
      ? { key, min, max }
      : { key, value: parseBaseType(o.value, `${where}.value`), min, max };
  return t;
}

const UUID_COLUMN: ColumnType = { key: { type: 'uuid' }, min: 1, max: 1 };

/** Parses a database schema as returned by get_schema or stored in an `.ovsschema` file. */
export function parseSchema(json: unknown): DatabaseSchema {
  if (typeof json !== 'object' || json === null) fail('schema is not an object');
  const o = json as Record<string, unknown>;
  if (typeof o.name !== 'string') fail('schema has no name');
  const tablesJ = o.tables;
  if (typeof tablesJ !== 'object' || tablesJ === null) fail('schema has no tables');
  const tables: Record<string, TableSchema> = {};
  for (const [tname, tj] of Object.entries(tablesJ as Record<string, unknown>)) {
    const t = tj as Record<string, unknown>;
    const columns: Record<string, ColumnSchema> = {
      _uuid: { name: '_uuid', type: UUID_COLUMN, ephemeral: false, mutable: false },
      _version: { name: '_version', type: UUID_COLUMN, ephemeral: false, mutable: false },
    };
    for (const [cname, cj] of Object.entries((t.columns ?? {}) as Record<string, unknown>)) {
      const c = cj as Record<string, unknown>;
      columns[cname] = {
        name: cname,
        type: parseColumnType(c.type, `${tname}.${cname}`),
        ephemeral: c.ephemeral === true,
        mutable: c.mutable !== false,
      };
    }
    tables[tname] = {
      name: tname,
      columns,
      ...(typeof t.maxRows === 'number' ? { maxRows: t.maxRows } : {}),
      isRoot: t.isRoot === true,
      indexes: Array.isArray(t.indexes) ? (t.indexes as string[][]) : [],
    };
  }
  return {
    name: o.name,
    version: typeof o.version === 'string' ? o.version : '',
    ...(typeof o.cksum === 'string' ? { cksum: o.cksum } : {}),
    tables,
  };
}

/** Looks up a table, throwing a SchemaError naming it when absent. */
export function tableOf(schema: DatabaseSchema, table: string): TableSchema {
  const t = schema.tables[table];
  if (!t) throw new SchemaError(`database ${schema.name} has no table ${table}`, table);
  return t;
}

/** Looks up a column, throwing a SchemaError naming table and column when absent. */
export function columnOf(schema: DatabaseSchema, table: string, column: string): ColumnSchema {
  const c = tableOf(schema, table).columns[column];
  if (!c) throw new SchemaError(`table ${table} has no column ${column}`, table, column);
  return c;
}

/** Describes a column type for error messages, e.g. `set of 0..1 integer in [1, 65279]`. */
export function describeType(t: ColumnType): string {
  const base = (b: BaseType): string => {
    const parts: string[] = [b.type];
    if (b.enum) parts.push(`one of [${b.enum.join(', ')}]`);
    if (b.minInteger !== undefined || b.maxInteger !== undefined)
      parts.push(`in [${b.minInteger ?? '-inf'}, ${b.maxInteger ?? 'inf'}]`);
    if (b.minReal !== undefined || b.maxReal !== undefined)
      parts.push(`in [${b.minReal ?? '-inf'}, ${b.maxReal ?? 'inf'}]`);
    if (b.minLength !== undefined || b.maxLength !== undefined)
      parts.push(`length ${b.minLength ?? 0}..${b.maxLength ?? 'inf'}`);
    if (b.refTable) parts.push(`referencing ${b.refTable}`);
    return parts.join(' ');
  };
  const size = `${t.min}..${t.max === Infinity ? 'unlimited' : t.max}`;
  if (t.value) return `map (${size} pairs) of ${base(t.key)} to ${base(t.value)}`;
  if (t.min === 1 && t.max === 1) return base(t.key);
  return `set of ${size} ${base(t.key)}`;
}
