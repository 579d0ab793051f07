/**
 * Schema-level validation of custom objects against the shipped CRD schema of their
 * apiVersion/kind, with ajv. Unknown fields are reported (like kubectl's strict field
 * validation) instead of being pruned silently. Semantic checks (cross-field, cross-object)
 * belong to the policy-compiler.
 */
import Ajv from 'ajv';
import type { ValidateFunction, ErrorObject } from 'ajv';
import { crdKindList, findCrd, parseApiVersion } from './crd-loader';
import type { JSONSchemaProps } from './crd-loader';
import { ipToBytes } from './ip';

/** One schema violation. */
export interface SchemaValidationError {
  /** Field path, e.g. `spec.ingress[0].ports[0].port` (empty for the object itself). */
  path: string;
  /** Machine-readable reason: the JSON-schema keyword (`maximum`, `enum`, `pattern`, `required`, `additionalProperties`, ...) or `kind`/`apiVersion`. */
  keyword: string;
  message: string;
  /** The offending value (undefined for missing fields). */
  value?: unknown;
}

/** Result of {@link validateObject}. */
export interface ValidationResult {
  valid: boolean;
  errors: SchemaValidationError[];
}

const K8S_KEYWORDS = [
  'x-kubernetes-int-or-string',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
  'x-kubernetes-validations',
];

function isCidr(text: string): boolean {
  const slash = text.indexOf('/');
  if (slash < 0) return false;
  const bytes = ipToBytes(text.slice(0, slash));
  const len = text.slice(slash + 1);
  return bytes !== undefined && /^(0|[1-9]\d{0,2})$/.test(len) && Number(len) <= bytes.length * 8;
}

let ajvInstance: Ajv | undefined;
function ajv(): Ajv {
  if (ajvInstance) return ajvInstance;
  const a = new Ajv({ allErrors: true, strict: true, strictTypes: false, strictRequired: false, validateFormats: true });
  for (const k of K8S_KEYWORDS) a.addKeyword({ keyword: k });
  // The formats the API server itself checks and that the schemas use.
  a.addFormat('cidr', { type: 'string', validate: isCidr });
  a.addFormat('ipv4', { type: 'string', validate: (s: string) => !s.includes(':') && ipToBytes(s) !== undefined });
  a.addFormat('ipv6', { type: 'string', validate: (s: string) => s.includes(':') && ipToBytes(s) !== undefined });
  a.addFormat('date-time', { type: 'string', validate: /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/ });
  a.addFormat('byte', { type: 'string', validate: /^[A-Za-z0-9+/]*={0,2}$/ });
  a.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -0x80000000 && n <= 0x7fffffff });
  a.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
  ajvInstance = a;
  return a;
}

/** Copy of `schema` where every object with `properties` rejects unknown fields, and IP patterns are also checked exactly. */
function strictify(schema: JSONSchemaProps): JSONSchemaProps {
  const out: JSONSchemaProps = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'properties' && v && typeof v === 'object') {
      out[k] = Object.fromEntries(Object.entries(v as Record<string, JSONSchemaProps>).map(([pk, pv]) => [pk, strictify(pv)]));
    } else if ((k === 'items' || k === 'additionalProperties') && v && typeof v === 'object') {
      out[k] = strictify(v as JSONSchemaProps);
    } else if ((k === 'anyOf' || k === 'oneOf' || k === 'allOf') && Array.isArray(v)) {
      out[k] = v.map((x: JSONSchemaProps) => strictify(x));
    } else {
      out[k] = v;
    }
  }
  if (out['properties'] && out['additionalProperties'] === undefined && !out['x-kubernetes-preserve-unknown-fields']) {
    out['additionalProperties'] = false;
  }
  return out;
}

const compiled = new Map<string, ValidateFunction>();

function validatorFor(group: string, version: string, kind: string): ValidateFunction | undefined {
  const key = `${group}/${version}/${kind}`;
  const hit = compiled.get(key);
  if (hit) return hit;
  const crd = findCrd(group, kind);
  const v = crd?.spec.versions.find((x) => x.name === version && x.served);
  if (!v) return undefined;
  const fn = ajv().compile(strictify(v.schema.openAPIV3Schema));
  compiled.set(key, fn);
  return fn;
}

/** Convert ajv's JSON pointer (`/spec/ingress/0/ports`) to a field path (`spec.ingress[0].ports`). */
function toFieldPath(pointer: string): string {
  let out = '';
  for (const raw of pointer.split('/').slice(1)) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (/^\d+$/.test(seg)) out += `[${seg}]`;
    else out += out ? `.${seg}` : seg;
  }
  return out;
}

function valueAt(obj: unknown, pointer: string): unknown {
  let cur: unknown = obj;
  for (const raw of pointer.split('/').slice(1)) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[raw.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return cur;
}

function convertErrors(obj: unknown, errors: ErrorObject[]): SchemaValidationError[] {
  const out: SchemaValidationError[] = [];
  const seen = new Set<string>();
  // int-or-string fields report one error per anyOf branch plus the anyOf itself; a failed
  // anyOf on a field that already has a value error (e.g. maximum) adds nothing useful.
  const paths = new Set(errors.filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'type').map((e) => e.instancePath));
  for (const e of errors) {
    if (e.schemaPath.includes('/anyOf/')) continue;
    if (e.keyword === 'anyOf' && paths.has(e.instancePath)) continue;
    let path = toFieldPath(e.instancePath);
    let value: unknown = valueAt(obj, e.instancePath);
    let message = e.message ?? e.keyword;
    if (e.keyword === 'required') {
      const missing = (e.params as { missingProperty: string }).missingProperty;
      path = path ? `${path}.${missing}` : missing;
      value = undefined;
      message = 'required field missing';
    } else if (e.keyword === 'additionalProperties') {
      const extra = (e.params as { additionalProperty: string }).additionalProperty;
      path = path ? `${path}.${extra}` : extra;
      value = (value as Record<string, unknown> | undefined)?.[extra];
      message = 'unknown field';
    } else if (e.keyword === 'enum') {
      message = `must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((x) => JSON.stringify(x)).join(', ')}`;
    } else if (e.keyword === 'anyOf') {
      message = 'must be an integer or a string';
    }
    const key = `${path}\0${e.keyword}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(value === undefined ? { path, keyword: e.keyword, message } : { path, keyword: e.keyword, message, value });
  }
  return out;
}

/**
 * Validate an object (as parsed from YAML/JSON) against the shipped CRD schema of its
 * apiVersion and kind. Only the CRD kinds (crd.antrea.io, policy.networking.k8s.io,
 * multicluster) have a schema here: built-in Kubernetes kinds (a networking.k8s.io/v1
 * NetworkPolicy, a Pod) are not validated, and are reported as an error on `kind` that names the
 * kind and lists the CRD kinds (see {@link hasCrdSchema} to ask first). Unserved versions are an
 * error on `apiVersion`.
 */
export function validateObject(obj: unknown): ValidationResult {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
    return { valid: false, errors: [{ path: '', keyword: 'type', message: 'must be an object', value: obj }] };
  }
  const { apiVersion, kind } = obj as { apiVersion?: unknown; kind?: unknown };
  if (typeof apiVersion !== 'string' || apiVersion === '') {
    return { valid: false, errors: [{ path: 'apiVersion', keyword: 'required', message: 'apiVersion is required' }] };
  }
  if (typeof kind !== 'string' || kind === '') {
    return { valid: false, errors: [{ path: 'kind', keyword: 'required', message: 'kind is required' }] };
  }
  const { group, version } = parseApiVersion(apiVersion);
  const crd = findCrd(group, kind);
  if (!crd) {
    const message = `no CRD schema for ${apiVersion} ${kind} (validateObject checks the CRD kinds only: ${crdKindList()})`;
    return { valid: false, errors: [{ path: 'kind', keyword: 'kind', message, value: kind }] };
  }
  const fn = validatorFor(group, version, kind);
  if (!fn) {
    const served = crd.spec.versions.filter((v) => v.served).map((v) => v.name);
    return { valid: false, errors: [{ path: 'apiVersion', keyword: 'apiVersion', message: `version ${version} of ${kind} is not served (served: ${served.join(', ')})`, value: apiVersion }] };
  }
  if (fn(obj)) return { valid: true, errors: [] };
  return { valid: false, errors: convertErrors(obj, fn.errors ?? []) };
}

/** Whether {@link validateObject} has a CRD schema for this apiVersion and kind. */
export function hasCrdSchema(apiVersion: string, kind: string): boolean {
  const { group, version } = parseApiVersion(apiVersion);
  return findCrd(group, kind)?.spec.versions.some((v) => v.name === version && v.served) ?? false;
}
