// Structural-schema handling for CRDs: ajv validation with kube-apiserver-style field errors,
// defaulting, and pruning of unknown fields.

import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import type { FieldError } from './errors';
import { isRecord } from './types';

export interface SchemaValidator {
  /** Applies defaults in place and returns field errors (empty when valid). */
  validate(obj: Record<string, unknown>): FieldError[];
  /** Removes fields the schema does not know, returning their paths (for fieldValidation). */
  prune(obj: Record<string, unknown>): string[];
}

type Schema = Record<string, unknown>;

const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: true, validateFormats: false, verbose: true });

/** Translate an OpenAPI v3 structural schema (with x-kubernetes-* extensions) to JSON Schema. */
function toJsonSchema(s: Schema): Schema {
  const out: Schema = {};
  for (const [k, v] of Object.entries(s)) {
    switch (k) {
      case 'properties':
      case 'patternProperties':
      case 'definitions':
        if (isRecord(v)) out[k] = Object.fromEntries(Object.entries(v).map(([pk, pv]) => [pk, isRecord(pv) ? toJsonSchema(pv) : pv]));
        break;
      case 'items':
      case 'additionalProperties':
      case 'not':
        out[k] = isRecord(v) ? toJsonSchema(v) : v;
        break;
      case 'anyOf':
      case 'oneOf':
      case 'allOf':
        if (Array.isArray(v)) out[k] = v.map((x) => (isRecord(x) ? toJsonSchema(x) : x));
        break;
      case 'exclusiveMinimum':
      case 'exclusiveMaximum':
      case 'nullable':
      case 'format':
      case 'description':
      case 'example':
      case 'externalDocs':
        break; // handled below or irrelevant to validation
      default:
        if (!k.startsWith('x-kubernetes-')) out[k] = v;
    }
  }
  // OpenAPI 3.0 spells exclusive bounds as booleans next to minimum/maximum.
  if (s.exclusiveMinimum === true && typeof s.minimum === 'number') {
    out.exclusiveMinimum = s.minimum;
    delete out.minimum;
  }
  if (s.exclusiveMaximum === true && typeof s.maximum === 'number') {
    out.exclusiveMaximum = s.maximum;
    delete out.maximum;
  }
  if (s['x-kubernetes-int-or-string'] === true) {
    out.type = ['integer', 'string'];
    delete out.anyOf;
    delete out.oneOf;
  }
  if (s.nullable === true && out.type !== undefined) {
    out.type = [...(Array.isArray(out.type) ? out.type : [out.type]), 'null'];
  }
  return out;
}

/** `/spec/ports/0/port` -> `spec.ports[0].port` */
export function fieldPath(pointer: string, extra?: string): string {
  const segs = pointer.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra !== undefined) segs.push(extra);
  let out = '';
  for (const s of segs) out += /^\d+$/.test(s) ? `[${s}]` : out === '' ? s : `.${s}`;
  return out;
}

function render(v: unknown): string {
  return typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v) ?? String(v);
}

function toFieldError(e: ErrorObject): FieldError | undefined {
  const field = fieldPath(e.instancePath);
  const p = e.params as Record<string, unknown>;
  const data = e.data;
  const inBody = `${field} in body`;
  switch (e.keyword) {
    case 'required':
      return { field: fieldPath(e.instancePath, String(p.missingProperty)), reason: 'FieldValueRequired', detail: 'Required value' };
    case 'type': {
      const t = Array.isArray(p.type) ? p.type.join(',') : String(p.type);
      return { field, reason: 'FieldValueTypeInvalid', detail: `Invalid value: "${typeName(data)}": ${inBody} must be of type ${t}: ${render(data)}` };
    }
    case 'enum': {
      const allowed = (p.allowedValues as unknown[]).map(render).join(', ');
      return { field, reason: 'FieldValueNotSupported', detail: `Unsupported value: ${render(data)}: supported values: ${allowed}` };
    }
    case 'maximum':
      return { field, reason: 'FieldValueInvalid', detail: `Invalid value: ${render(data)}: ${inBody} should be less than or equal to ${String(p.limit)}` };
    case 'minimum':
      return { field, reason: 'FieldValueInvalid', detail: `Invalid value: ${render(data)}: ${inBody} should be greater than or equal to ${String(p.limit)}` };
    case 'exclusiveMaximum':
      return { field, reason: 'FieldValueInvalid', detail: `Invalid value: ${render(data)}: ${inBody} should be less than ${String(p.limit)}` };
    case 'exclusiveMinimum':
      return { field, reason: 'FieldValueInvalid', detail: `Invalid value: ${render(data)}: ${inBody} should be greater than ${String(p.limit)}` };
    case 'pattern':
      return { field, reason: 'FieldValueInvalid', detail: `Invalid value: ${render(data)}: ${inBody} should match '${String(p.pattern)}'` };
    case 'maxLength':
      return { field, reason: 'FieldValueTooLong', detail: `Too long: may not be more than ${String(p.limit)} bytes` };
    case 'minLength':
      return { field, reason: 'FieldValueInvalid', detail: `Invalid value: ${render(data)}: ${inBody} should be at least ${String(p.limit)} chars long` };
    case 'maxItems':
      return { field, reason: 'FieldValueTooMany', detail: `Too many: ${(data as unknown[]).length}: must have at most ${String(p.limit)} items` };
    case 'minItems':
      return { field, reason: 'FieldValueInvalid', detail: `Invalid value: ${(data as unknown[]).length}: ${inBody} should have at least ${String(p.limit)} items` };
    case 'uniqueItems':
      return { field: `${field}[${String(p.j)}]`, reason: 'FieldValueDuplicate', detail: `Duplicate value: ${render((data as unknown[])[Number(p.j)])}` };
    case 'anyOf':
    case 'oneOf':
      return { field, reason: 'FieldValueInvalid', detail: `Invalid value: ${render(data)}: ${inBody} must validate ${e.keyword === 'oneOf' ? 'one and only one schema (oneOf)' : 'at least one schema (anyOf)'}` };
    case 'not':
      return { field, reason: 'FieldValueInvalid', detail: `Invalid value: ${render(data)}: ${inBody} must not validate the schema (not)` };
    default:
      return { field, reason: 'FieldValueInvalid', detail: `Invalid value: ${render(data)}: ${inBody} ${e.message ?? 'is invalid'}` };
  }
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** Drop fields not declared by the structural schema; returns the dropped paths. */
function pruneValue(value: unknown, s: Schema, path: string, out: string[], root: boolean): void {
  if (s['x-kubernetes-preserve-unknown-fields'] === true && !isRecord(s.properties)) return;
  if (isRecord(value)) {
    const props = isRecord(s.properties) ? s.properties : undefined;
    const addl = s.additionalProperties;
    for (const [k, v] of Object.entries(value)) {
      const child = path === '' ? k : `${path}.${k}`;
      if (root && (k === 'apiVersion' || k === 'kind' || k === 'metadata')) continue;
      const ps = props?.[k];
      if (isRecord(ps)) pruneValue(v, ps, child, out, false);
      else if (isRecord(addl)) pruneValue(v, addl, child, out, false);
      else if (addl === true || s['x-kubernetes-preserve-unknown-fields'] === true) continue;
      else if (props !== undefined || s.type === 'object') {
        out.push(child);
        delete value[k];
      }
    }
  } else if (Array.isArray(value) && isRecord(s.items)) {
    value.forEach((v, i) => pruneValue(v, s.items as Schema, `${path}[${i}]`, out, false));
  }
}

export function compileSchema(openAPIV3Schema: Record<string, unknown>): SchemaValidator {
  const fn: ValidateFunction = ajv.compile(toJsonSchema(openAPIV3Schema));
  return {
    validate(obj) {
      if (fn(obj)) return [];
      const seen = new Set<string>();
      const errs: FieldError[] = [];
      for (const e of fn.errors ?? []) {
        const fe = toFieldError(e);
        if (!fe) continue;
        const key = `${fe.field}|${fe.detail}`;
        if (seen.has(key)) continue;
        seen.add(key);
        errs.push(fe);
      }
      return errs;
    },
    prune(obj) {
      const out: string[] = [];
      pruneValue(obj, openAPIV3Schema, '', out, true);
      return out;
    },
  };
}
