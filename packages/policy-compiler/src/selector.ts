// The one label selector matcher: normalization (for group dedup), matching and validation.
import type { LabelSelector, LabelSelectorOperator } from '@switchyard/apis/types';
import { PolicyValidationError } from './errors';

/** One requirement of a normalized selector; matchLabels entries become `In` with one value. */
export interface Requirement {
  readonly key: string;
  readonly op: LabelSelectorOperator;
  /** Sorted, unique. Empty for Exists/DoesNotExist. */
  readonly values: readonly string[];
}

/**
 * A label selector in canonical form: requirements sorted and deduplicated, so two selectors
 * that select the same objects by construction (`matchLabels: {a: x}` and
 * `matchExpressions: [{key: a, operator: In, values: [x]}]`) have the same {@link key}.
 * An empty requirement list selects everything.
 */
export interface NormalizedSelector {
  readonly requirements: readonly Requirement[];
  /** Canonical text, e.g. `app in (db),tier notin (a,b),!legacy`. Empty string = everything. */
  readonly key: string;
}

/** Selects every object. */
export const EVERYTHING: NormalizedSelector = { requirements: [], key: '' };

const OPERATORS: ReadonlySet<string> = new Set(['In', 'NotIn', 'Exists', 'DoesNotExist']);
// Kubernetes label key: optional DNS-1123 subdomain prefix + '/' + name of <= 63 chars.
const NAME_RE = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;
const PREFIX_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function labelKeyProblem(key: unknown): string | undefined {
  if (typeof key !== 'string' || key === '') return 'label key must be a non-empty string';
  const slash = key.lastIndexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== undefined && (prefix.length > 253 || !PREFIX_RE.test(prefix))) return 'label key prefix must be a DNS subdomain';
  if (name === '' || name.length > 63 || !NAME_RE.test(name)) return 'label key name must be 1-63 alphanumerics, "-", "_" or "."';
  return undefined;
}

function labelValueProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'label value must be a string';
  if (value.length > 63 || !NAME_RE.test(value)) return 'label value must be at most 63 alphanumerics, "-", "_" or "."';
  return undefined;
}

/**
 * Validates a selector like the API server does (`invalid label selector`), returning every
 * problem with its field path under `path`.
 */
export function validateSelector(sel: LabelSelector | undefined, path: string): PolicyValidationError[] {
  const errs: PolicyValidationError[] = [];
  if (sel === undefined || sel === null) return errs;
  if (typeof sel !== 'object') {
    errs.push(new PolicyValidationError('INVALID_LABEL_SELECTOR', path, sel, 'invalid label selector: not an object'));
    return errs;
  }
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) {
    const kp = labelKeyProblem(k);
    if (kp) errs.push(new PolicyValidationError('INVALID_LABEL_SELECTOR', `${path}.matchLabels`, k, `invalid label selector: ${kp}`));
    const vp = labelValueProblem(v);
    if (vp) errs.push(new PolicyValidationError('INVALID_LABEL_SELECTOR', `${path}.matchLabels.${k}`, v, `invalid label selector: ${vp}`));
  }
  (sel.matchExpressions ?? []).forEach((req, i) => {
    const p = `${path}.matchExpressions[${i}]`;
    const kp = labelKeyProblem(req?.key);
    if (kp) errs.push(new PolicyValidationError('INVALID_LABEL_SELECTOR', `${p}.key`, req?.key, `invalid label selector: ${kp}`));
    if (!OPERATORS.has(req?.operator)) {
      errs.push(new PolicyValidationError('INVALID_LABEL_SELECTOR', `${p}.operator`, req?.operator, 'invalid label selector: operator must be In, NotIn, Exists or DoesNotExist'));
      return;
    }
    const values = req.values ?? [];
    if ((req.operator === 'In' || req.operator === 'NotIn') && values.length === 0) {
      errs.push(new PolicyValidationError('INVALID_LABEL_SELECTOR', `${p}.values`, values, `invalid label selector: values must be non-empty for ${req.operator}`));
    }
    if ((req.operator === 'Exists' || req.operator === 'DoesNotExist') && values.length > 0) {
      errs.push(new PolicyValidationError('INVALID_LABEL_SELECTOR', `${p}.values`, values, `invalid label selector: values must be empty for ${req.operator}`));
    }
    values.forEach((v, j) => {
      const vp = labelValueProblem(v);
      if (vp) errs.push(new PolicyValidationError('INVALID_LABEL_SELECTOR', `${p}.values[${j}]`, v, `invalid label selector: ${vp}`));
    });
  });
  return errs;
}

function reqKey(r: Requirement): string {
  switch (r.op) {
    case 'Exists':
      return r.key;
    case 'DoesNotExist':
      return `!${r.key}`;
    case 'In':
      return `${r.key} in (${r.values.join(',')})`;
    case 'NotIn':
      return `${r.key} notin (${r.values.join(',')})`;
  }
}

/** Builds a normalized selector from requirements (sorted, deduplicated). */
export function fromRequirements(reqs: Iterable<Requirement>): NormalizedSelector {
  const byKey = new Map<string, Requirement>();
  for (const r of reqs) {
    const norm: Requirement = { key: r.key, op: r.op, values: [...new Set(r.values)].sort() };
    byKey.set(reqKey(norm), norm);
  }
  const keys = [...byKey.keys()].sort();
  return { requirements: keys.map((k) => byKey.get(k) as Requirement), key: keys.join(',') };
}

/**
 * Normalizes a selector. `undefined` stays `undefined` (selects nothing where the API says so;
 * the caller decides), `{}` becomes {@link EVERYTHING}. Assumes the selector was validated.
 */
export function normalizeSelector(sel: LabelSelector): NormalizedSelector;
export function normalizeSelector(sel: LabelSelector | undefined): NormalizedSelector | undefined;
export function normalizeSelector(sel: LabelSelector | undefined): NormalizedSelector | undefined {
  if (sel === undefined || sel === null) return undefined;
  const sig = signature(sel);
  if (sig === undefined) return normalize(sel);
  let n = normalized.get(sig);
  if (n === undefined) {
    if (normalized.size >= NORMALIZED_CACHE_MAX) normalized.clear();
    normalized.set(sig, (n = normalize(sel)));
  }
  return n;
}

/**
 * Normalized selectors by the text of their raw form: thousands of policies (one per Namespace,
 * say) repeat the same few selectors, and sharing one normalized object (never written) saves
 * normalizing each again and keeping a copy per group.
 */
const normalized = new Map<string, NormalizedSelector>();
const NORMALIZED_CACHE_MAX = 10_000;

/**
 * Injective text of a raw selector (each string length-prefixed), or undefined when a field is
 * not of the shape the API defines (such a selector is normalized without the cache).
 */
function signature(sel: LabelSelector): string | undefined {
  let out = '';
  const labels = sel.matchLabels;
  if (labels !== undefined && labels !== null) {
    if (typeof labels !== 'object') return undefined;
    for (const k in labels) {
      if (!Object.prototype.hasOwnProperty.call(labels, k)) continue;
      const v = labels[k];
      if (typeof v !== 'string') return undefined;
      out += `${k.length}:${k}${v.length}:${v}`;
    }
  }
  const exprs = sel.matchExpressions;
  if (exprs === undefined || exprs === null) return out;
  if (!Array.isArray(exprs)) return undefined;
  for (const e of exprs) {
    if (typeof e?.key !== 'string' || typeof e.operator !== 'string') return undefined;
    const values: unknown = e.values ?? [];
    if (!Array.isArray(values)) return undefined;
    out += `|${e.key.length}:${e.key}${e.operator.length}:${e.operator}${values.length}#`;
    for (const v of values) {
      if (typeof v !== 'string') return undefined;
      out += `${v.length}:${v}`;
    }
  }
  return out;
}

function normalize(sel: LabelSelector): NormalizedSelector {
  const reqs: Requirement[] = [];
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) reqs.push({ key: k, op: 'In', values: [v] });
  for (const e of sel.matchExpressions ?? []) reqs.push({ key: e.key, op: e.operator, values: e.values ?? [] });
  return reqs.length === 0 ? EVERYTHING : fromRequirements(reqs);
}

/** True when `labels` satisfy every requirement of `sel`. */
export function matchesNormalized(sel: NormalizedSelector, labels: Readonly<Record<string, string>> | undefined): boolean {
  for (const r of sel.requirements) {
    const has = labels !== undefined && Object.prototype.hasOwnProperty.call(labels, r.key);
    const v = has ? (labels as Record<string, string>)[r.key] : undefined;
    switch (r.op) {
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      case 'In':
        if (!has || !r.values.includes(v as string)) return false;
        break;
      case 'NotIn':
        // Kubernetes semantics: a missing key satisfies NotIn.
        if (has && r.values.includes(v as string)) return false;
        break;
    }
  }
  return true;
}

/**
 * Matches a raw selector. Absent selector (`undefined`/`null`) selects nothing, `{}` selects
 * everything, as in meta/v1 LabelSelectorAsSelector.
 */
export function matchesSelector(sel: LabelSelector | undefined | null, labels: Readonly<Record<string, string>> | undefined): boolean {
  if (sel === undefined || sel === null) return false;
  return matchesNormalized(normalizeSelector(sel), labels);
}

/**
 * Keys under which an object with these labels could be selected: used to index selectors so
 * a label change only re-evaluates the selectors that could match. See {@link indexKeysOf}.
 */
export function labelIndexKeys(labels: Readonly<Record<string, string>> | undefined): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(labels ?? {})) out.push(`${k}=${v}`);
  return out;
}

/**
 * The index keys of a selector: when it has an `In` requirement, any matching object carries
 * one of `key=value` for that requirement, so the selector is indexed under those; otherwise it
 * can match objects with any labels and is indexed under `*`.
 */
export function indexKeysOf(sel: NormalizedSelector): readonly string[] {
  let keys = indexKeysMemo.get(sel);
  if (keys === undefined) {
    let best: Requirement | undefined;
    for (const r of sel.requirements) if (r.op === 'In' && (!best || r.values.length < best.values.length)) best = r;
    keys = best ? best.values.map((v) => [best.key, '=', v].join('')) : ['*'];
    if (indexKeysMemo.size >= 10_000) indexKeysMemo.clear();
    indexKeysMemo.set(sel, keys);
  }
  return keys;
}

/**
 * Index keys per normalized selector: selectors are shared (see {@link normalizeSelector}), and a
 * bulk load asks for the keys of the same few selectors for every group it creates, twice; the
 * per-Namespace group index keeps these strings as its keys. A Map bounded like the normalized
 * cache, not a WeakMap: with 10k distinct selectors (scenario 3 after scenario 1) the WeakMap's
 * ephemeron table cost the GC 18 % more CPU for that scenario's load (measured, 2 runs each).
 */
const indexKeysMemo = new Map<NormalizedSelector, readonly string[]>();
