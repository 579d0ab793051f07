/** A small declarative description of configuration files: types, enums, ranges and defaults, walked by parseConfig. */
import { ConfigError } from './errors';

/** Description of one configuration value. */
export type ConfigSpec =
  | { kind: 'string'; default?: string; enum?: readonly string[] }
  | { kind: 'bool'; default?: boolean }
  | { kind: 'int'; default?: number; min?: number; max?: number }
  | { kind: 'stringList'; default?: readonly string[] }
  | { kind: 'object'; fields: Readonly<Record<string, ConfigSpec>>; aliases?: Readonly<Record<string, string>> }
  | { kind: 'list'; item: ConfigSpec }
  | { kind: 'gates'; defaults: Readonly<Record<string, boolean>> };

/** A non-fatal finding while parsing a configuration (e.g. an unknown key). */
export interface ConfigWarning {
  /** Stable code: `UNKNOWN_KEY` or `UNKNOWN_FEATURE_GATE`. */
  code: 'UNKNOWN_KEY' | 'UNKNOWN_FEATURE_GATE';
  /** Key path, e.g. `multicluster.wireGuard.prot`. */
  path: string;
  message: string;
}

const join = (path: string, key: string): string => (path ? `${path}.${key}` : key);
const typeName = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/** Parse `value` against `spec`, filling defaults; unknown keys become warnings, wrong types ConfigErrors. */
export function parseWithSpec(value: unknown, spec: ConfigSpec, path: string, warnings: ConfigWarning[]): unknown {
  // YAML `key:` with nothing after it parses as null: treat like an absent key.
  if (value === null || value === undefined) {
    switch (spec.kind) {
      case 'object':
        return parseWithSpec({}, spec, path, warnings);
      case 'gates':
        return { ...spec.defaults };
      case 'list':
        return [];
      case 'stringList':
        return spec.default ? [...spec.default] : [];
      default:
        return spec.default;
    }
  }
  switch (spec.kind) {
    case 'string':
      if (typeof value !== 'string') throw new ConfigError('INVALID_TYPE', `expected a string, got ${typeName(value)}`, path, value);
      if (spec.enum && !spec.enum.includes(value)) {
        throw new ConfigError('INVALID_VALUE', `must be one of ${spec.enum.join(', ')}`, path, value);
      }
      return value;
    case 'bool':
      if (typeof value !== 'boolean') throw new ConfigError('INVALID_TYPE', `expected a boolean, got ${typeName(value)}`, path, value);
      return value;
    case 'int':
      if (typeof value !== 'number' || !Number.isInteger(value)) throw new ConfigError('INVALID_TYPE', `expected an integer, got ${typeName(value)}`, path, value);
      if ((spec.min !== undefined && value < spec.min) || (spec.max !== undefined && value > spec.max)) {
        throw new ConfigError('INVALID_VALUE', `must be in [${spec.min ?? '-inf'}, ${spec.max ?? 'inf'}]`, path, value);
      }
      return value;
    case 'stringList':
      if (!Array.isArray(value)) throw new ConfigError('INVALID_TYPE', `expected a list, got ${typeName(value)}`, path, value);
      return value.map((v, i) => {
        if (typeof v !== 'string') throw new ConfigError('INVALID_TYPE', `expected a string, got ${typeName(v)}`, `${path}[${i}]`, v);
        return v;
      });
    case 'list':
      if (!Array.isArray(value)) throw new ConfigError('INVALID_TYPE', `expected a list, got ${typeName(value)}`, path, value);
      return value.map((v, i) => parseWithSpec(v, spec.item, `${path}[${i}]`, warnings));
    case 'gates': {
      if (typeof value !== 'object' || Array.isArray(value)) throw new ConfigError('INVALID_TYPE', `expected a map, got ${typeName(value)}`, path, value);
      const out: Record<string, boolean> = { ...spec.defaults };
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        if (typeof v !== 'boolean') throw new ConfigError('INVALID_TYPE', `expected a boolean, got ${typeName(v)}`, join(path, k), v);
        if (!(k in spec.defaults)) warnings.push({ code: 'UNKNOWN_FEATURE_GATE', path: join(path, k), message: `unknown feature gate ${k}` });
        out[k] = v;
      }
      return out;
    }
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) throw new ConfigError('INVALID_TYPE', `expected a map, got ${typeName(value)}`, path, value);
      const input = value as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      // Aliases move a key to its canonical place first (e.g. top-level externalNodeNamespace, as
      // the ExternalNode guide writes it, is read as externalNode.externalNodeNamespace).
      const moved: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(input)) {
        const target = spec.aliases?.[k];
        if (target) {
          const [head, ...rest] = target.split('.');
          if (head === undefined || rest.length === 0) continue;
          const inner = (moved[head] as Record<string, unknown> | undefined) ?? {};
          inner[rest.join('.')] = v;
          moved[head] = inner;
        }
      }
      for (const [k, fieldSpec] of Object.entries(spec.fields)) {
        let v = input[k];
        if (moved[k] !== undefined) v = { ...(v && typeof v === 'object' ? (v as Record<string, unknown>) : {}), ...(moved[k] as Record<string, unknown>) };
        const parsed = parseWithSpec(v, fieldSpec, join(path, k), warnings);
        if (parsed !== undefined) out[k] = parsed;
      }
      for (const k of Object.keys(input)) {
        if (!(k in spec.fields) && !spec.aliases?.[k]) warnings.push({ code: 'UNKNOWN_KEY', path: join(path, k), message: `unknown key ${k}` });
      }
      return out;
    }
  }
}
