// Kubernetes object semantics over the store: create/get/list/update/patch/delete/watch with
// resourceVersion, generation, finalizers, validation and admission hooks. Both the HTTP layer
// and the built-in controllers go through this class.

import { randomBytes, randomUUID } from 'node:crypto';
import { CSR_GROUP, CSR_RESOURCE, admitCsrCreate, csrUpdate } from './csr';
import { alreadyExists, badRequest, conflict, type FieldError, invalid, KubeApiError, notFound } from './errors';
import { jsonPatch, mergePatch, strategicMerge } from './patch';
import { apiVersionOf, grKey, type ResourceRegistry, type ResourceType, splitApiVersion } from './registry';
import { type FieldRequirement, type LabelRequirement, matchFields, matchLabels } from './selectors';
import type { ObjectStore, StoreEvent, WatchEventType } from './store';
import type { Clock, KubeObject, Logger, UserInfo } from './types';
import { clone, isRecord, rfc3339 } from './types';
import YAML from 'yaml';

export type Operation = 'create' | 'update' | 'delete';

const isCsr = (rt: ResourceType): boolean => rt.group === CSR_GROUP && rt.resource === CSR_RESOURCE;

/** What an admission hook sees; it may mutate `obj` or throw a KubeApiError. */
export interface AdmissionRequest {
  op: Operation;
  rt: ResourceType;
  obj: KubeObject;
  old?: KubeObject;
  subresource?: string;
  /** Nothing will be stored: hooks must not keep allocations. */
  dryRun?: boolean;
}

export type AdmissionHook = (req: AdmissionRequest) => void;

export interface ListOptions {
  labelSelector?: LabelRequirement[];
  fieldSelector?: FieldRequirement[];
  limit?: number;
  continue?: string;
}

export interface ListResult {
  items: KubeObject[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

export interface WriteOptions {
  dryRun?: boolean;
  /** Strict rejects unknown fields; Warn returns them as warnings; Ignore drops them. */
  fieldValidation?: 'Strict' | 'Warn' | 'Ignore';
  warnings?: string[];
  subresource?: string;
  /** Who writes (CertificateSigningRequests record their requester). */
  requester?: UserInfo;
}

export interface DeleteOptions {
  propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
}

export type PatchType = 'merge' | 'json' | 'strategic' | 'apply';

export interface WatchOptions {
  labelSelector?: LabelRequirement[];
  fieldSelector?: FieldRequirement[];
  /** '' or '0': start with synthetic ADDED events for current state. */
  resourceVersion?: string;
  sendInitialEvents?: boolean;
}

export interface WatchEvent {
  type: WatchEventType | 'BOOKMARK' | 'ERROR';
  object: KubeObject | Record<string, unknown>;
}

const nameChars = 'bcdfghjklmnpqrstvwxz2456789';
export function randomSuffix(n = 5): string {
  const b = randomBytes(n);
  let s = '';
  for (const x of b) s += nameChars[x % nameChars.length];
  return s;
}

const dns1123Subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const dns1123Label = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const dns1035Label = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

function validateName(rt: ResourceType, name: string): FieldError[] {
  const field = 'metadata.name';
  if (rt.group === 'rbac.authorization.k8s.io' || rt.resource === 'nodes' || rt.group === 'apiregistration.k8s.io') {
    if (name === '.' || name === '..' || name.includes('/') || name.includes('%')) {
      return [{ field, reason: 'FieldValueInvalid', detail: `Invalid value: "${name}": may not contain '/' or '%' and may not be '.' or '..'` }];
    }
    return [];
  }
  if (rt.resource === 'namespaces' && !(dns1123Label.test(name) && name.length <= 63)) {
    return [{ field, reason: 'FieldValueInvalid', detail: `Invalid value: "${name}": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')` }];
  }
  if (rt.resource === 'services' && rt.group === '' && !(dns1035Label.test(name) && name.length <= 63)) {
    return [{ field, reason: 'FieldValueInvalid', detail: `Invalid value: "${name}": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')` }];
  }
  if (!(dns1123Subdomain.test(name) && name.length <= 253)) {
    return [{ field, reason: 'FieldValueInvalid', detail: `Invalid value: "${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')` }];
  }
  return [];
}

const labelValue = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
function validateMeta(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(obj.metadata.labels ?? {})) {
    if (typeof v !== 'string' || v.length > 63 || !labelValue.test(v)) {
      errs.push({ field: `metadata.labels`, reason: 'FieldValueInvalid', detail: `Invalid value: ${JSON.stringify(v)}: a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character` });
    }
    if (k.length === 0) errs.push({ field: 'metadata.labels', reason: 'FieldValueInvalid', detail: 'Invalid value: "": name part must be non-empty' });
  }
  return errs;
}

/** Kinds whose metadata.generation tracks spec changes. */
function tracksGeneration(rt: ResourceType): boolean {
  return !rt.builtin || rt.group === 'apps' || rt.resource === 'networkpolicies' || rt.resource === 'customresourcedefinitions' || rt.resource === 'apiservices';
}

function specOf(o: KubeObject, rt: ResourceType): unknown {
  const rest: Record<string, unknown> = { ...o };
  delete rest.metadata;
  delete rest.apiVersion;
  delete rest.kind;
  if (rt.hasStatus) delete rest.status;
  return rest;
}

/** JSON with object keys sorted, so equality ignores key order (as typed decoding would). */
function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => (isRecord(x) ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, x[k]])) : x));
}

function sameJSON(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

/** Empty maps and lists in metadata are omitted on the wire by kube-apiserver (omitempty). */
function dropEmptyMeta(o: KubeObject): void {
  const m = o.metadata;
  for (const k of ['labels', 'annotations'] as const) if (m[k] !== undefined && Object.keys(m[k] ?? {}).length === 0) delete m[k];
  for (const k of ['finalizers', 'ownerReferences'] as const) if (Array.isArray(m[k]) && (m[k] ?? []).length === 0) delete m[k];
}

function withoutRV(o: KubeObject): KubeObject {
  const c = { ...o, metadata: { ...o.metadata } };
  delete c.metadata.resourceVersion;
  delete c.metadata.managedFields;
  return c;
}

export class KubeApi {
  private readonly hooks = new Map<string, AdmissionHook[]>();

  constructor(
    readonly registry: ResourceRegistry,
    readonly store: ObjectStore,
    readonly clock: Clock,
    readonly logger: Logger,
  ) {}

  /** Register an admission hook for one group/resource ('*' for all). */
  admit(group: string, resource: string, hook: AdmissionHook): void {
    const k = resource === '*' ? '*' : grKey(group, resource);
    const list = this.hooks.get(k) ?? [];
    list.push(hook);
    this.hooks.set(k, list);
  }

  private runHooks(req: AdmissionRequest): void {
    for (const h of this.hooks.get(grKey(req.rt.group, req.rt.resource)) ?? []) h(req);
    for (const h of this.hooks.get('*') ?? []) h(req);
  }

  /** Resolve a type or throw 404 as the server does for an unknown resource. */
  type(group: string, resource: string): ResourceType {
    const rt = this.registry.get(group, resource);
    if (!rt) throw new KubeApiError('NotFound', 'the server could not find the requested resource');
    return rt;
  }

  /** A stored object served at `version` (CRDs: apiVersion rewritten; no conversion). */
  present(rt: ResourceType, obj: KubeObject, version?: string): KubeObject {
    const out = clone(obj);
    out.apiVersion = apiVersionOf(rt.group, version ?? rt.versions[0] ?? 'v1');
    out.kind = rt.kind;
    return out;
  }

  get(rt: ResourceType, ns: string | undefined, name: string): KubeObject {
    const o = this.store.get(grKey(rt.group, rt.resource), rt.namespaced ? ns : undefined, name);
    if (!o) throw notFound(rt.resource, rt.group, name);
    return o;
  }

  tryGet(rt: ResourceType, ns: string | undefined, name: string): KubeObject | undefined {
    return this.store.get(grKey(rt.group, rt.resource), rt.namespaced ? ns : undefined, name);
  }

  list(rt: ResourceType, ns: string | undefined, opts: ListOptions = {}): ListResult {
    let start = '';
    if (opts.continue) {
      let tok: { rv: number; start: string };
      try {
        tok = JSON.parse(Buffer.from(opts.continue, 'base64url').toString('utf8')) as { rv: number; start: string };
      } catch {
        throw badRequest('continue key is not valid: illegal base64 data');
      }
      if (tok.rv < this.store.oldestResumableRV) {
        throw new KubeApiError('Expired', 'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.');
      }
      start = tok.start;
    }
    const all = this.store.list(grKey(rt.group, rt.resource), rt.namespaced ? ns : undefined).filter((o) => this.matches(o, opts));
    const after = start === '' ? all : all.filter((o) => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}` > start);
    const rv = String(this.store.resourceVersion);
    if (opts.limit && opts.limit > 0 && after.length > opts.limit) {
      const page = after.slice(0, opts.limit);
      const last = page[page.length - 1] as KubeObject;
      const cont = Buffer.from(JSON.stringify({ rv: this.store.resourceVersion, start: `${last.metadata.namespace ?? ''}/${last.metadata.name ?? ''}` })).toString('base64url');
      return { items: page, resourceVersion: rv, continue: cont, remainingItemCount: after.length - page.length };
    }
    return { items: after, resourceVersion: rv };
  }

  private matches(o: KubeObject, opts: { labelSelector?: LabelRequirement[]; fieldSelector?: FieldRequirement[] }): boolean {
    if (opts.labelSelector && !matchLabels(opts.labelSelector, o.metadata.labels)) return false;
    if (opts.fieldSelector && !matchFields(opts.fieldSelector, o)) return false;
    return true;
  }

  private checkNamespace(rt: ResourceType, ns: string | undefined, forCreate: boolean): void {
    if (!rt.namespaced) return;
    if (!ns) throw badRequest('the server could not find the requested resource (namespace is required)');
    const nsType = this.type('', 'namespaces');
    const nsObj = this.tryGet(nsType, undefined, ns);
    if (!nsObj) throw notFound('namespaces', '', ns);
    if (forCreate && nsObj.metadata.deletionTimestamp) {
      throw new KubeApiError('Forbidden', `${rt.kind.toLowerCase()} "" is forbidden: unable to create new content in namespace ${ns} because it is being terminated`, { group: rt.group, kind: rt.resource });
    }
  }

  /** Schema validation, pruning and defaulting for CRD-served kinds. */
  private validateSchema(rt: ResourceType, obj: KubeObject, version: string, opts: WriteOptions): void {
    const v = rt.schemas.get(version);
    const name = obj.metadata.name ?? '';
    if (!v) return;
    const unknown = v.prune(obj as Record<string, unknown>);
    if (unknown.length > 0) {
      if (opts.fieldValidation === 'Strict') {
        throw badRequest(`${rt.kind} in version "${version}" cannot be handled as a ${rt.kind}: strict decoding error: ${unknown.map((u) => `unknown field "${u}"`).join(', ')}`);
      }
      if (opts.fieldValidation === 'Warn') opts.warnings?.push(...unknown.map((u) => `unknown field "${u}"`));
    }
    const errs = v.validate(obj as Record<string, unknown>);
    if (errs.length > 0) throw invalid(rt.kind, rt.group, name, errs);
  }

  private checkApiVersion(rt: ResourceType, obj: KubeObject, version: string | undefined): string {
    const want = version ?? (rt.versions[0] as string);
    if (obj.apiVersion !== undefined && obj.kind !== undefined) {
      const { group, version: v } = splitApiVersion(obj.apiVersion);
      if (group !== rt.group || obj.kind !== rt.kind || !rt.versions.includes(v)) {
        throw badRequest(`the API version in the data (${obj.apiVersion}) does not match the expected API version (${apiVersionOf(rt.group, want)})`);
      }
    }
    return want;
  }

  create(rt: ResourceType, ns: string | undefined, input: KubeObject, opts: WriteOptions = {}, version?: string): KubeObject {
    if (!isRecord(input)) throw badRequest('request body must be an object');
    const obj = clone(input);
    if (!isRecord(obj.metadata)) obj.metadata = {};
    const v = this.checkApiVersion(rt, obj, version);
    obj.apiVersion = apiVersionOf(rt.group, rt.versions[0] as string);
    obj.kind = rt.kind;
    const m = obj.metadata;
    if (rt.namespaced) {
      if (m.namespace && ns && m.namespace !== ns) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      m.namespace = ns ?? m.namespace ?? 'default';
    } else delete m.namespace;
    if (!m.name) {
      if (m.generateName) m.name = `${m.generateName}${randomSuffix()}`;
      else throw invalid(rt.kind, rt.group, '', [{ field: 'metadata.name', reason: 'FieldValueRequired', detail: 'Required value: name or generateName is required' }]);
    }
    const errs = [...validateName(rt, m.name), ...validateMeta(obj)];
    if (errs.length > 0) throw invalid(rt.kind, rt.group, m.name, errs);
    this.checkNamespace(rt, m.namespace, true);
    if (this.tryGet(rt, m.namespace, m.name)) throw alreadyExists(rt.resource, rt.group, m.name);
    // kube-apiserver's storage layer refuses this (as an internal error, not a validation one).
    if (m.resourceVersion !== undefined && m.resourceVersion !== '' && m.resourceVersion !== '0') {
      throw new KubeApiError('InternalError', 'resourceVersion should not be set on objects to be created');
    }
    m.uid = randomUUID();
    m.creationTimestamp = rfc3339(this.clock.now());
    delete m.deletionTimestamp;
    delete m.deletionGracePeriodSeconds;
    delete m.resourceVersion;
    delete m.managedFields;
    delete m.selfLink;
    if (tracksGeneration(rt)) m.generation = 1;
    else delete m.generation;
    if (rt.hasStatus && !rt.builtin) delete obj.status;
    if (isCsr(rt)) admitCsrCreate(obj, opts.requester);
    this.validateSchema(rt, obj, v, opts);
    this.runHooks(opts.dryRun ? { op: 'create', rt, obj, dryRun: true } : { op: 'create', rt, obj });
    dropEmptyMeta(obj);
    if (opts.dryRun) return obj;
    return this.store.put(grKey(rt.group, rt.resource), obj);
  }

  /**
   * Replace an object (PUT). With `subresource: 'status'` only status changes; on the main
   * resource status is kept from the stored object when the kind has a status subresource.
   */
  update(rt: ResourceType, ns: string | undefined, name: string, input: KubeObject, opts: WriteOptions = {}, version?: string): KubeObject {
    if (!isRecord(input) || !isRecord(input.metadata)) throw badRequest('request body must be an object with metadata');
    const old = this.get(rt, ns, name);
    const obj = clone(input);
    const v = this.checkApiVersion(rt, obj, version);
    obj.apiVersion = old.apiVersion as string;
    obj.kind = rt.kind;
    if (obj.metadata.name !== undefined && obj.metadata.name !== name) {
      throw badRequest(`the name of the object (${String(obj.metadata.name)}) does not match the name on the URL (${name})`);
    }
    if (rt.namespaced && obj.metadata.namespace !== undefined && obj.metadata.namespace !== ns) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    const rv = obj.metadata.resourceVersion;
    if (rv !== undefined && rv !== '' && rv !== old.metadata.resourceVersion) {
      throw conflict(rt.resource, rt.group, name, 'the object has been modified; please apply your changes to the latest version and try again');
    }
    let next: KubeObject;
    if (opts.subresource === 'status') {
      next = clone(old);
      next.status = obj.status;
      if (next.status === undefined) delete next.status;
    } else {
      next = obj;
      next.metadata.name = name;
      if (rt.namespaced) next.metadata.namespace = ns as string;
      else delete next.metadata.namespace;
      if (rt.hasStatus) {
        if (old.status === undefined) delete next.status;
        else next.status = clone(old.status);
      }
    }
    if (isCsr(rt)) next = csrUpdate(old, next, input, opts.subresource);
    const m = next.metadata;
    m.uid = old.metadata.uid as string;
    m.creationTimestamp = old.metadata.creationTimestamp as string;
    if (old.metadata.deletionTimestamp) {
      m.deletionTimestamp = old.metadata.deletionTimestamp;
      m.deletionGracePeriodSeconds = old.metadata.deletionGracePeriodSeconds ?? 0;
      const added = (m.finalizers ?? []).filter((f) => !(old.metadata.finalizers ?? []).includes(f));
      if (added.length > 0) {
        throw invalid(rt.kind, rt.group, name, [{ field: 'metadata.finalizers', reason: 'FieldValueForbidden', detail: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(', ')}}` }]);
      }
    } else {
      delete m.deletionTimestamp;
      delete m.deletionGracePeriodSeconds;
    }
    delete m.managedFields;
    const errs = [...validateName(rt, name), ...validateMeta(next)];
    if (errs.length > 0) throw invalid(rt.kind, rt.group, name, errs);
    if (tracksGeneration(rt)) {
      m.generation = (old.metadata.generation ?? 1) + (sameJSON(specOf(old, rt), specOf(next, rt)) ? 0 : 1);
    } else delete m.generation;
    this.validateSchema(rt, next, v, opts);
    const admission: AdmissionRequest = { op: 'update', rt, obj: next, old };
    if (opts.subresource !== undefined) admission.subresource = opts.subresource;
    if (opts.dryRun) admission.dryRun = true;
    this.runHooks(admission);
    dropEmptyMeta(next);
    if (opts.dryRun) return next;
    if (sameJSON(withoutRV(old), withoutRV(next))) return old;
    if (m.deletionTimestamp && (m.finalizers ?? []).length === 0) {
      return this.store.remove(grKey(rt.group, rt.resource), m.namespace, name) ?? next;
    }
    return this.store.put(grKey(rt.group, rt.resource), next);
  }

  patch(rt: ResourceType, ns: string | undefined, name: string, type: PatchType, body: unknown, opts: WriteOptions = {}, version?: string): KubeObject {
    const existing = this.tryGet(rt, ns, name);
    if (!existing) {
      if (type === 'apply') {
        const created = clone(body) as KubeObject;
        created.metadata = { ...(created.metadata ?? {}), name };
        return this.create(rt, ns, created, opts, version);
      }
      throw notFound(rt.resource, rt.group, name);
    }
    const current = this.present(rt, existing, version);
    let patched: unknown;
    switch (type) {
      case 'merge':
      case 'apply':
        patched = mergePatch(current, body);
        break;
      case 'json':
        patched = jsonPatch(current, body);
        break;
      case 'strategic':
        if (!rt.strategicMerge) {
          throw new KubeApiError('UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml`);
        }
        patched = strategicMerge(current, body);
        break;
    }
    if (!isRecord(patched) || !isRecord(patched.metadata)) throw badRequest('patch produced an object without metadata');
    const next = patched as KubeObject;
    // A patch without a resourceVersion never conflicts: it applies to what is stored now.
    if (next.metadata.resourceVersion === undefined) next.metadata.resourceVersion = existing.metadata.resourceVersion as string;
    return this.update(rt, ns, name, next, opts, version);
  }

  /** Delete (or mark for deletion when finalizers remain). Returns the object's last state. */
  delete(rt: ResourceType, ns: string | undefined, name: string, opts: DeleteOptions = {}): KubeObject {
    const old = this.get(rt, ns, name);
    const pre = opts.preconditions;
    if (pre?.uid && pre.uid !== old.metadata.uid) {
      throw conflict(rt.resource, rt.group, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${old.metadata.uid ?? ''}`);
    }
    if (pre?.resourceVersion && pre.resourceVersion !== old.metadata.resourceVersion) {
      throw conflict(rt.resource, rt.group, name, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${old.metadata.resourceVersion ?? ''}`);
    }
    const obj = clone(old);
    this.runHooks({ op: 'delete', rt, obj, old });
    if (opts.dryRun) return obj;
    const finalizers = [...(obj.metadata.finalizers ?? [])];
    if (opts.propagationPolicy === 'Orphan' && !finalizers.includes('orphan')) finalizers.push('orphan');
    if (opts.propagationPolicy === 'Foreground' && !finalizers.includes('foregroundDeletion')) finalizers.push('foregroundDeletion');
    const nsFinalizers = rt.resource === 'namespaces' && rt.group === '' ? ((obj.spec as { finalizers?: string[] } | undefined)?.finalizers ?? []) : [];
    if (finalizers.length === 0 && nsFinalizers.length === 0) {
      return this.store.remove(grKey(rt.group, rt.resource), obj.metadata.namespace, name) ?? obj;
    }
    if (obj.metadata.deletionTimestamp) return obj;
    obj.metadata.finalizers = finalizers;
    obj.metadata.deletionTimestamp = rfc3339(this.clock.now());
    obj.metadata.deletionGracePeriodSeconds = 0;
    if (nsFinalizers.length > 0) obj.status = { ...(isRecord(obj.status) ? obj.status : {}), phase: 'Terminating' };
    return this.store.put(grKey(rt.group, rt.resource), obj);
  }

  /** Remove an object regardless of finalizers (controllers finishing a deletion). */
  forceRemove(rt: ResourceType, ns: string | undefined, name: string): void {
    this.store.remove(grKey(rt.group, rt.resource), rt.namespaced ? ns : undefined, name);
  }

  deleteCollection(rt: ResourceType, ns: string | undefined, list: ListOptions, opts: DeleteOptions = {}): KubeObject[] {
    const out: KubeObject[] = [];
    for (const o of this.list(rt, ns, list).items) {
      try {
        out.push(this.delete(rt, o.metadata.namespace, o.metadata.name as string, opts));
      } catch (e) {
        if (!(e instanceof KubeApiError && e.code === 'NotFound')) throw e;
      }
    }
    return out;
  }

  /**
   * Start a watch. `send` receives events in order; returns a cancel function. Throws 410
   * (Expired) through `send` as an ERROR event when resourceVersion is too old.
   */
  watch(rt: ResourceType, ns: string | undefined, opts: WatchOptions, version: string | undefined, send: (e: WatchEvent) => void): () => void {
    const gr = grKey(rt.group, rt.resource);
    const scopeNs = rt.namespaced ? ns : undefined;
    const inScope = (o: KubeObject): boolean => scopeNs === undefined || o.metadata.namespace === scopeNs;
    const sel = (o: KubeObject | undefined): boolean => o !== undefined && inScope(o) && this.matches(o, opts);
    const deliver = (e: StoreEvent): void => {
      if (e.gr !== gr) return;
      const now = sel(e.obj);
      const before = e.type === 'MODIFIED' ? sel(e.prev) : now;
      if (e.type === 'MODIFIED' && now && !before) send({ type: 'ADDED', object: this.present(rt, e.obj, version) });
      else if (e.type === 'MODIFIED' && !now && before) send({ type: 'DELETED', object: this.present(rt, e.obj, version) });
      else if (now) send({ type: e.type, object: this.present(rt, e.obj, version) });
    };
    const rvText = opts.resourceVersion ?? '';
    let replay: StoreEvent[] = [];
    if (rvText === '' || rvText === '0' || opts.sendInitialEvents) {
      for (const o of this.store.list(gr, scopeNs)) if (this.matches(o, opts)) send({ type: 'ADDED', object: this.present(rt, o, version) });
      if (opts.sendInitialEvents) {
        send({ type: 'BOOKMARK', object: { kind: rt.kind, apiVersion: apiVersionOf(rt.group, version ?? (rt.versions[0] as string)), metadata: { resourceVersion: String(this.store.resourceVersion), annotations: { 'k8s.io/initial-events-end': 'true' } } } });
      }
    } else {
      const rv = Number(rvText);
      if (!Number.isFinite(rv)) throw badRequest(`invalid resourceVersion "${rvText}"`);
      const since = this.store.eventsSince(rv);
      if (since === 'expired') {
        send({ type: 'ERROR', object: new KubeApiError('Expired', `too old resource version: ${rv} (${this.store.oldestResumableRV})`).toStatus() as unknown as Record<string, unknown> });
        return () => undefined;
      }
      replay = since;
    }
    for (const e of replay) deliver(e);
    return this.store.subscribe(deliver);
  }
}

/** Decode a request body: JSON, or YAML for apply patches and YAML content types. */
export function decodeBody(text: string, contentType: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    if (/yaml/.test(contentType)) return YAML.parse(text) as unknown;
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw badRequest(`couldn't decode request body: ${(e as Error).message}`);
  }
}
