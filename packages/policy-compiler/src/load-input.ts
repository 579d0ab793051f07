// What PolicyEngine.load accepts: objects, Kubernetes List responses (whose items carry no kind),
// or arrays of Lists, flattened into objects that each know their kind and where they came from.
import type { List } from '@switchyard/apis/types';
import { PolicyCompilerError, PolicyValidationError } from './errors';
import type { ClusterObject } from './types';

/** Options of {@link PolicyEngine.load}. */
export interface LoadOptions {
  /**
   * Kind of the input objects that carry none and come from no List naming one (e.g.
   * `'NetworkPolicy'` for the items of a `NetworkPolicyList` handed over without their List).
   */
  kind?: string;
  /**
   * apiVersion of the input objects that carry none and come from no List. Only needed to tell an
   * Antrea NetworkPolicy (`crd.antrea.io/v1beta1`) from a Kubernetes one, the default.
   */
  apiVersion?: string;
}

/**
 * A Kubernetes List as the API server answers a LIST request
 * (`{ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicyList', items }`): the items carry
 * no `kind` / `apiVersion`; they take them from the List.
 */
export type ClusterObjectList = List<ClusterObject>;

/**
 * Input of {@link PolicyEngine.load}: objects, one List, or objects and Lists mixed (e.g. the
 * answers of several LIST requests).
 */
export type LoadInput = Iterable<ClusterObject | ClusterObjectList> | ClusterObjectList;

/**
 * Called with each input object (its kind resolved), where it was in the input (`where(prefix,
 * index)`: `[3]`, `items[3]`, `[1].items[3]`; built only when asked for, most loads never need it)
 * and, when its kind cannot be known, the error saying so.
 */
export type LoadItemVisitor = (obj: ClusterObject, prefix: string, index: number, error?: PolicyValidationError) => void;

/** Where an input object was: `prefix[index]`. */
export function whereOf(prefix: string, index: number): string {
  return `${prefix}[${index}]`;
}

type Header = { kind?: unknown; apiVersion?: unknown; metadata?: { name?: unknown; namespace?: unknown } };

function isList(x: unknown): x is ClusterObjectList {
  if (x === null || typeof x !== 'object' || !Array.isArray((x as { items?: unknown }).items)) return false;
  const kind = (x as Header).kind;
  // No ClusterObject has a top-level `items` array, so an unnamed container is a List too.
  return kind === undefined || (typeof kind === 'string' && kind.endsWith('List'));
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** `namespace/name`, `name`, or `(no metadata.name)`: how an error names the object. */
export function describeObject(obj: unknown): string {
  const meta = (obj as Header | null)?.metadata;
  const name = str(meta?.name);
  const ns = str(meta?.namespace);
  if (!name) return '(no metadata.name)';
  return ns ? `${ns}/${name}` : name;
}

/**
 * Visits the input's objects in order, each with `kind` and `apiVersion` filled in from its List or
 * the options when it has none (a shallow copy; the caller's object is not changed). An object
 * whose kind is still unknown comes with a MISSING_FIELD error naming it and its place in the
 * input. A loop with a visitor rather than a generator: a bulk load has 200k objects, and each
 * yield cost a record and a resumption.
 * @throws PolicyCompilerError INVALID_EVENT for an element that is not an object.
 */
export function visitLoadItems(input: LoadInput, options: LoadOptions, visit: LoadItemVisitor): void {
  const fallback = { kind: str(options.kind), apiVersion: str(options.apiVersion) };
  if (isList(input)) {
    visitList(input, 'items', fallback, visit);
    return;
  }
  let i = 0;
  for (const x of input) {
    const at = i++;
    if (isList(x)) visitList(x, `${whereOf('', at)}.items`, fallback, visit);
    else withKind(x, '', at, fallback, 'options.kind', visit);
  }
}

type KindFallback = { kind: string | undefined; apiVersion: string | undefined };

function visitList(list: ClusterObjectList, prefix: string, fallback: KindFallback, visit: LoadItemVisitor): void {
  const listKind = str(list.kind);
  // `kind: List` (kubectl get a,b -o json) mixes kinds: its items carry their own.
  const itemKind = listKind && listKind !== 'List' ? listKind.slice(0, -'List'.length) : undefined;
  const from = itemKind
    ? { kind: itemKind, apiVersion: str(list.apiVersion) ?? fallback.apiVersion }
    : fallback;
  const source = itemKind ? `the List's kind (${listKind})` : listKind ? `options.kind (the List is a kind: List)` : 'options.kind';
  for (let j = 0; j < list.items.length; j++) withKind(list.items[j] as ClusterObject, prefix, j, from, source, visit);
}

function withKind(obj: ClusterObject, prefix: string, index: number, from: KindFallback, source: string, visit: LoadItemVisitor): void {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
    const where = whereOf(prefix, index);
    throw new PolicyCompilerError('INVALID_EVENT', where, obj, `load() takes objects and Lists; ${where} is ${obj === null ? 'null' : Array.isArray(obj) ? 'an array' : typeof obj}`);
  }
  const own = obj as Header;
  const kind = str(own.kind) ?? from.kind;
  if (!kind) {
    const where = whereOf(prefix, index);
    const error = new PolicyValidationError(
      'MISSING_FIELD',
      `${where}.kind`,
      own.kind,
      `${describeObject(obj)} has no kind, and ${source} gives none: pass a List, or load(items, { kind, apiVersion })`,
    );
    visit(obj, prefix, index, error);
    return;
  }
  const apiVersion = str(own.apiVersion) ?? from.apiVersion;
  if (kind === own.kind && apiVersion === own.apiVersion) visit(obj, prefix, index);
  else visit({ ...obj, kind, ...(apiVersion === undefined ? {} : { apiVersion }) } as ClusterObject, prefix, index);
}
