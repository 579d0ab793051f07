// The HTTP(S) front: routes Kubernetes REST paths to KubeApi, with authentication, RBAC,
// discovery, watch streaming and proxying.

import type http from 'node:http';
import { decodeBody, type DeleteOptions, type KubeApi, type ListOptions, type PatchType, type WatchEvent, type WriteOptions } from './api';
import { type Authenticator, forbiddenMessage, type RbacAuthorizer, type RequestAttributes, reviewAccess, type UserInfo } from './auth';
import { apiGroup, apiGroupList, apiResourceList, apiVersions, type AggregatedGroup, toTable } from './discovery';
import { badRequest, KubeApiError } from './errors';
import { decodeKubeProtobuf } from './protobuf';
import { openapiV3Doc, openapiV3Root, parseV3Path } from './openapi';
import { apiServiceTarget, findApiService, forward, nodeTarget, type ProxyClientCert, type ProxyTarget, serviceTarget } from './proxy';
import { apiVersionOf, type ResourceType } from './registry';
import { parseFieldSelector, parseLabelSelector } from './selectors';
import type { Clock, KubeObject, Logger, TimerHandle } from './types';
import { isRecord } from './types';
import type { ValidatingWebhooks, WebhookRequest, WriteUnderReview } from './webhook';

export interface HttpFrontOptions {
  api: KubeApi;
  authn: Authenticator;
  authz: RbacAuthorizer;
  clock: Clock;
  logger: Logger;
  bookmarkIntervalMs: number;
  serverAddress: () => string;
  proxyClientCert?: ProxyClientCert;
  /** Host to dial for a node's proxy subresource instead of its InternalIP (see KubeApiOptions). */
  nodeProxyHost?: (nodeName: string) => string | undefined;
  version: Record<string, string>;
  /** Validating admission webhooks run on writes (after built-in validation, before storage). */
  webhooks?: ValidatingWebhooks;
}

interface ParsedPath {
  group: string;
  version: string;
  namespace: string;
  resource: string;
  name: string;
  subresource: string;
  /** Path after `.../proxy` for proxy subresources (with leading slash). */
  proxyPath: string;
  legacyWatch: boolean;
}

const publicPaths = new Set(['/healthz', '/livez', '/readyz', '/version', '/version/']);

function parseResourcePath(segs: string[]): ParsedPath | undefined {
  let group: string;
  let version: string;
  let rest: string[];
  if (segs[0] === 'api') {
    if (segs.length < 3) return undefined;
    group = '';
    version = segs[1] as string;
    rest = segs.slice(2);
  } else {
    if (segs.length < 4) return undefined;
    group = segs[1] as string;
    version = segs[2] as string;
    rest = segs.slice(3);
  }
  let legacyWatch = false;
  if (rest[0] === 'watch') {
    legacyWatch = true;
    rest = rest.slice(1);
  }
  let namespace = '';
  if (rest[0] === 'namespaces' && rest.length >= 3 && !(group === '' && rest.length === 3 && (rest[2] === 'status' || rest[2] === 'finalize'))) {
    namespace = rest[1] as string;
    rest = rest.slice(2);
  }
  const resource = rest[0] ?? '';
  const name = rest[1] ?? '';
  const subresource = rest[2] ?? '';
  const proxyPath = subresource === 'proxy' ? `/${rest.slice(3).join('/')}` : '';
  return { group, version, namespace, resource, name, subresource, proxyPath, legacyWatch };
}

function verbFor(method: string, p: ParsedPath, watch: boolean): string {
  switch (method) {
    case 'GET':
    case 'HEAD':
      if (watch || p.legacyWatch) return 'watch';
      return p.name === '' ? 'list' : 'get';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return p.name === '' ? 'deletecollection' : 'delete';
    default:
      return method.toLowerCase();
  }
}

function patchTypeOf(contentType: string): PatchType {
  if (contentType.startsWith('application/merge-patch+json')) return 'merge';
  if (contentType.startsWith('application/json-patch+json')) return 'json';
  if (contentType.startsWith('application/strategic-merge-patch+json')) return 'strategic';
  if (contentType.startsWith('application/apply-patch')) return 'apply';
  throw new KubeApiError('UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json`);
}

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function send(res: http.ServerResponse, code: number, body: unknown, warnings: string[] = []): void {
  const text = JSON.stringify(body);
  const headers: http.OutgoingHttpHeaders = { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-cache, private' };
  if (warnings.length > 0) headers.Warning = warnings.map((w) => `299 - ${JSON.stringify(w)}`);
  res.writeHead(code, headers);
  res.end(text);
}

function sendError(res: http.ServerResponse, e: unknown, logger: Logger): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (e instanceof KubeApiError) {
    send(res, e.httpStatus, e.toStatus());
    return;
  }
  logger.error({ err: e }, 'internal error');
  send(res, 500, new KubeApiError('InternalError', `Internal error occurred: ${(e as Error).message}`).toStatus());
}

function wantsTable(req: http.IncomingMessage): boolean {
  return /as=Table/.test(req.headers.accept ?? '');
}

export class HttpFront {
  private readonly openWatches = new Set<() => void>();

  constructor(private readonly o: HttpFrontOptions) {}

  /** End every open watch stream (server stop). */
  closeWatches(): void {
    for (const c of [...this.openWatches]) c();
  }

  handle = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    this.route(req, res).catch((e: unknown) => sendError(res, e, this.o.logger));
  };

  private authenticate(req: http.IncomingMessage): UserInfo | undefined {
    const h = req.headers.authorization ?? '';
    const m = /^Bearer\s+(.+)$/i.exec(h);
    return m ? this.o.authn.authenticate((m[1] as string).trim()) : undefined;
  }

  private authorize(a: RequestAttributes): void {
    if (!this.o.authz.authorize(a).allowed) {
      throw new KubeApiError('Forbidden', forbiddenMessage(a), { group: a.apiGroup, kind: a.resource, name: a.name });
    }
  }

  private aggregatedGroups(): AggregatedGroup[] {
    const t = this.o.api.registry.get('apiregistration.k8s.io', 'apiservices');
    if (!t) return [];
    const out: AggregatedGroup[] = [];
    for (const s of this.o.api.list(t, undefined).items) {
      const spec = (s.spec ?? {}) as { group?: string; version?: string; service?: unknown; groupPriorityMinimum?: number };
      if (spec.group && spec.version && spec.service) {
        out.push({ group: spec.group, versions: [spec.version], ...(typeof spec.groupPriorityMinimum === 'number' ? { priority: spec.groupPriorityMinimum } : {}) });
      }
    }
    return out;
  }

  private async route(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname;
    const method = req.method ?? 'GET';
    if (publicPaths.has(path) || path.startsWith('/healthz/') || path.startsWith('/livez/') || path.startsWith('/readyz/')) {
      if (path.startsWith('/version')) return send(res, 200, this.o.version);
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('ok');
      return;
    }
    const user = this.authenticate(req);
    if (!user) {
      send(res, 401, new KubeApiError('Unauthorized', 'Unauthorized').toStatus());
      return;
    }
    const segs = path.split('/').filter((s) => s !== '');
    const isResourcePath = (segs[0] === 'api' && segs.length >= 3) || (segs[0] === 'apis' && segs.length >= 4);
    if (segs[0] === 'apis' && segs.length === 3) {
      // Discovery of an aggregated group-version comes from its backend.
      const svc = findApiService(this.o.api, segs[1] as string, segs[2] as string);
      if (svc) {
        this.authorize({ user, verb: 'get', isResourceRequest: false, path, apiGroup: '', resource: '', subresource: '', namespace: '', name: '' });
        return this.proxy(req, res, apiServiceTarget(this.o.api, svc, `${path}${url.search}`), user);
      }
    }
    if (!isResourcePath) {
      this.authorize({ user, verb: method === 'GET' ? 'get' : method.toLowerCase(), isResourceRequest: false, path, apiGroup: '', resource: '', subresource: '', namespace: '', name: '' });
      return this.nonResource(path, req.headers.accept ?? '', res);
    }
    const p = parseResourcePath(segs) as ParsedPath;
    const q = url.searchParams;
    const watch = q.get('watch') === 'true' || q.get('watch') === '1';
    const verb = verbFor(method, p, watch);
    const attrs: RequestAttributes = { user, verb, isResourceRequest: true, path, apiGroup: p.group, resource: p.resource, subresource: p.subresource, namespace: p.namespace, name: p.name };
    if (p.resource === 'namespaces' && p.group === '' && p.name !== '') attrs.namespace = p.name;

    // Aggregated APIs go to their backend whole (discovery included).
    if (p.group !== '') {
      const svc = findApiService(this.o.api, p.group, p.version);
      if (svc) {
        this.authorize(attrs);
        const target = apiServiceTarget(this.o.api, svc, `${path}${url.search}`);
        return this.proxy(req, res, target, user);
      }
    }
    const t = this.o.api.registry.lookup(p.group, p.version, p.resource);
    if (!t) throw new KubeApiError('NotFound', 'the server could not find the requested resource');
    if (!t.namespaced && p.namespace !== '' && !(t.resource === 'namespaces')) throw new KubeApiError('NotFound', 'the server could not find the requested resource');
    if (p.subresource !== '' && p.subresource !== 'status' && !t.subresources.includes(p.subresource)) throw new KubeApiError('NotFound', 'the server could not find the requested resource');
    if (p.subresource === 'status' && !t.hasStatus) throw new KubeApiError('NotFound', 'the server could not find the requested resource');
    this.authorize(attrs);

    if (p.subresource === 'proxy') {
      const fullProxy = `${p.proxyPath}${path.endsWith('/') && p.proxyPath !== '/' ? '/' : ''}${url.search}`;
      let target: ProxyTarget;
      if (t.resource === 'nodes') target = nodeTarget(this.o.api, p.name, fullProxy, this.o.nodeProxyHost);
      else if (t.resource === 'services') target = serviceTarget(this.o.api, p.namespace, p.name, fullProxy);
      else throw new KubeApiError('NotFound', 'the server could not find the requested resource');
      return this.proxy(req, res, target, user);
    }

    const ns = p.namespace === '' ? undefined : p.namespace;
    if (verb === 'watch') return this.watch(req, res, t, p, ns, q);
    const raw = method === 'GET' || method === 'HEAD' ? Buffer.alloc(0) : await readBody(req);
    const contentType = req.headers['content-type'] ?? 'application/json';
    const isProtobuf = contentType.startsWith('application/vnd.kubernetes.protobuf');
    const body = isProtobuf ? '' : raw.toString('utf8');
    const decode = (): unknown => (isProtobuf ? decodeKubeProtobuf(raw) : decodeBody(body, contentType));
    const api = this.o.api;
    const warnings: string[] = [];
    const writeOpts = (): WriteOptions => {
      const w: WriteOptions = { warnings, requester: user };
      if (q.getAll('dryRun').includes('All')) w.dryRun = true;
      const fv = q.get('fieldValidation');
      if (fv === 'Strict' || fv === 'Warn' || fv === 'Ignore') w.fieldValidation = fv;
      else w.fieldValidation = 'Warn';
      if (p.subresource !== '') w.subresource = p.subresource;
      return w;
    };
    switch (verb) {
      case 'get': {
        const o = api.present(t, api.get(t, ns, p.name), p.version);
        if (wantsTable(req)) return send(res, 200, toTable(t, p.version, [o], { resourceVersion: o.metadata.resourceVersion }, q.get('includeObject') ?? 'Metadata', this.o.clock.now()));
        return send(res, 200, o);
      }
      case 'list': {
        const lo = listOptions(q);
        const r = api.list(t, ns, lo);
        const items = r.items.map((o) => api.present(t, o, p.version));
        const meta: Record<string, unknown> = { resourceVersion: r.resourceVersion };
        if (r.continue) meta.continue = r.continue;
        if (r.remainingItemCount !== undefined) meta.remainingItemCount = r.remainingItemCount;
        if (wantsTable(req)) return send(res, 200, toTable(t, p.version, items, meta, q.get('includeObject') ?? 'Metadata', this.o.clock.now()));
        return send(res, 200, { kind: t.listKind, apiVersion: apiVersionOf(t.group, p.version), metadata: meta, items });
      }
      case 'create': {
        const input = decode();
        if (!isRecord(input)) throw badRequest('the request body must be a JSON object');
        if (p.subresource === 'token' && t.resource === 'serviceaccounts') return send(res, 201, this.tokenRequest(p.namespace, p.name, input));
        const review = this.review(t, user, input, p.namespace);
        if (review) return send(res, 201, review);
        if (p.name !== '' && p.subresource === '') throw new KubeApiError('MethodNotAllowed', 'the server does not allow this method on the requested resource');
        const wo = writeOpts();
        const created = await this.withWebhooks({ op: 'create', t, p, ns, user, dryRun: wo.dryRun === true, warnings }, (dry) => api.create(t, ns, input as KubeObject, dry ? { ...wo, dryRun: true, warnings: [] } : wo, p.version));
        return send(res, 201, api.present(t, created, p.version), warnings);
      }
      case 'update': {
        const input = decode();
        if (!isRecord(input)) throw badRequest('the request body must be a JSON object');
        const wo = writeOpts();
        const updated = await this.withWebhooks({ op: 'update', t, p, ns, user, dryRun: wo.dryRun === true, warnings }, (dry) => api.update(t, ns, p.name, input as KubeObject, dry ? { ...wo, dryRun: true, warnings: [] } : wo, p.version));
        return send(res, 200, api.present(t, updated, p.version), warnings);
      }
      case 'patch': {
        const type = patchTypeOf(contentType);
        const patch = decodeBody(body, type === 'apply' ? 'yaml' : 'json');
        const existed = api.tryGet(t, ns, p.name) !== undefined;
        const wo = writeOpts();
        const patched = await this.withWebhooks({ op: existed ? 'update' : 'create', t, p, ns, user, dryRun: wo.dryRun === true, warnings }, (dry) => api.patch(t, ns, p.name, type, patch, dry ? { ...wo, dryRun: true, warnings: [] } : wo, p.version));
        return send(res, existed ? 200 : 201, api.present(t, patched, p.version), warnings);
      }
      case 'delete': {
        const opts = deleteOptions(q, isProtobuf ? undefined : decodeBody(body, 'json'));
        const gone = await this.withWebhooks({ op: 'delete', t, p, ns, user, dryRun: opts.dryRun === true, warnings }, (dry) => api.delete(t, ns, p.name, dry ? { ...opts, dryRun: true } : opts));
        return send(res, 200, api.present(t, gone, p.version), warnings);
      }
      case 'deletecollection': {
        const opts = deleteOptions(q, isProtobuf ? undefined : decodeBody(body, 'json'));
        const gone = api.deleteCollection(t, ns, listOptions(q), opts);
        return send(res, 200, { kind: t.listKind, apiVersion: apiVersionOf(t.group, p.version), metadata: { resourceVersion: String(api.store.resourceVersion) }, items: gone.map((o) => api.present(t, o, p.version)) });
      }
      default:
        throw new KubeApiError('MethodNotAllowed', 'the server does not allow this method on the requested resource');
    }
  }

  /** Run `write` behind the validating webhooks (once, as before, when none selects it). */
  private withWebhooks(w: { op: WebhookRequest['op']; t: ResourceType; p: ParsedPath; ns: string | undefined; user: UserInfo; dryRun: boolean; warnings: string[] }, write: (dryRun: boolean) => KubeObject): Promise<KubeObject> {
    if (!this.o.webhooks) return Promise.resolve(write(false));
    const at: WriteUnderReview = { op: w.op, rt: w.t, version: w.p.version, name: w.p.name, user: w.user, dryRun: w.dryRun, warnings: w.warnings };
    if (w.p.subresource !== '') at.subresource = w.p.subresource;
    if (w.ns !== undefined) at.namespace = w.ns;
    return this.o.webhooks.guard(at, write);
  }

  private nonResource(path: string, accept: string, res: http.ServerResponse): void {
    const api = this.o.api;
    const segs = path.split('/').filter((s) => s !== '');
    if (path === '/api' || path === '/api/') return send(res, 200, apiVersions(this.o.serverAddress()));
    if (path === '/apis' || path === '/apis/') return send(res, 200, apiGroupList(api.registry, this.aggregatedGroups()));
    if (segs[0] === 'api' && segs.length === 2) {
      const doc = apiResourceList(api.registry, '', segs[1] as string);
      if (doc) return send(res, 200, doc);
    }
    if (segs[0] === 'apis' && segs.length === 2) {
      const doc = apiGroup(api.registry, this.aggregatedGroups(), segs[1] as string);
      if (doc) return send(res, 200, doc);
    }
    if (segs[0] === 'apis' && segs.length === 3) {
      const doc = apiResourceList(api.registry, segs[1] as string, segs[2] as string);
      if (doc) return send(res, 200, doc);
    }
    if (path === '/openapi/v3' || path === '/openapi/v3/') return send(res, 200, openapiV3Root(api.registry));
    if (path.startsWith('/openapi/v3/')) {
      const gv = parseV3Path(path);
      const doc = gv ? openapiV3Doc(api.registry, gv.group, gv.version) : undefined;
      if (doc) return send(res, 200, doc);
    }
    if (path === '/openapi/v2') {
      // An empty document: kubectl's client-side validation then finds no schema and skips.
      if (/protobuf/.test(accept)) {
        res.writeHead(200, { 'Content-Type': 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf', 'Content-Length': 0 });
        res.end();
        return;
      }
      return send(res, 200, { swagger: '2.0', info: { title: 'Kubernetes', version: this.o.version.gitVersion }, paths: {}, definitions: {} });
    }
    throw new KubeApiError('NotFound', 'the server could not find the requested resource');
  }

  private review(t: ResourceType, user: UserInfo, input: Record<string, unknown>, ns: string): Record<string, unknown> | undefined {
    const spec = isRecord(input.spec) ? input.spec : {};
    const base = { apiVersion: apiVersionOf(t.group, t.versions[0] as string), kind: t.kind, metadata: { creationTimestamp: null }, spec };
    switch (`${t.group}/${t.resource}`) {
      case 'authentication.k8s.io/tokenreviews': {
        const who = typeof spec.token === 'string' ? this.o.authn.authenticate(spec.token) : undefined;
        if (!who) return { ...base, status: { authenticated: false, user: {}, error: 'invalid bearer token' } };
        const u: Record<string, unknown> = { username: who.username, groups: who.groups };
        if (who.uid) u.uid = who.uid;
        return { ...base, status: { authenticated: true, user: u, audiences: (spec.audiences as string[] | undefined) ?? ['https://kubernetes.default.svc.cluster.local'] } };
      }
      case 'authentication.k8s.io/selfsubjectreviews': {
        const u: Record<string, unknown> = { username: user.username, groups: user.groups };
        if (user.uid) u.uid = user.uid;
        return { ...base, status: { userInfo: u } };
      }
      case 'authorization.k8s.io/subjectaccessreviews': {
        const subject: UserInfo = { username: String(spec.user ?? ''), groups: (spec.groups as string[] | undefined) ?? [] };
        if (typeof spec.uid === 'string') subject.uid = spec.uid;
        return { ...base, status: reviewAccess(this.o.authz, spec, subject) };
      }
      case 'authorization.k8s.io/localsubjectaccessreviews': {
        const ra = isRecord(spec.resourceAttributes) ? spec.resourceAttributes : undefined;
        if (!ra || (ra.namespace !== undefined && ra.namespace !== ns)) throw badRequest(`spec.resourceAttributes.namespace must match namespace: ${ns}`);
        const subject: UserInfo = { username: String(spec.user ?? ''), groups: (spec.groups as string[] | undefined) ?? [] };
        return { ...base, metadata: { namespace: ns, creationTimestamp: null }, status: reviewAccess(this.o.authz, { ...spec, resourceAttributes: { ...ra, namespace: ns } }, subject) };
      }
      case 'authorization.k8s.io/selfsubjectrulesreviews': {
        const rules = this.o.authz.rulesFor(user, String(spec.namespace ?? ''));
        const resourceRules = rules.filter((r) => (r.nonResourceURLs ?? []).length === 0).map((r) => {
          const out: Record<string, unknown> = { verbs: r.verbs ?? [], apiGroups: r.apiGroups ?? [], resources: r.resources ?? [] };
          if ((r.resourceNames ?? []).length > 0) out.resourceNames = r.resourceNames;
          return out;
        });
        const nonResourceRules = rules.filter((r) => (r.nonResourceURLs ?? []).length > 0).map((r) => ({ verbs: r.verbs ?? [], nonResourceURLs: r.nonResourceURLs ?? [] }));
        return { ...base, status: { resourceRules, nonResourceRules, incomplete: false } };
      }
      case 'authorization.k8s.io/selfsubjectaccessreviews':
        return { ...base, status: reviewAccess(this.o.authz, spec, user) };
      default:
        return undefined;
    }
  }

  private tokenRequest(ns: string, name: string, input: Record<string, unknown>): Record<string, unknown> {
    const sa = this.o.api.get(this.o.api.type('', 'serviceaccounts'), ns, name);
    const spec = isRecord(input.spec) ? input.spec : {};
    const seconds = typeof spec.expirationSeconds === 'number' ? spec.expirationSeconds : 3600;
    const token = this.o.authn.mintServiceAccountToken(ns, name, sa.metadata.uid as string, undefined, seconds);
    const expires = new Date(this.o.clock.now() + seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    return { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', metadata: { name, namespace: ns, creationTimestamp: null }, spec: { ...spec, expirationSeconds: seconds }, status: { token, expirationTimestamp: expires } };
  }

  private async proxy(req: http.IncomingMessage, res: http.ServerResponse, target: ProxyTarget, user: UserInfo): Promise<void> {
    await forward(req, res, target, user, this.o.proxyClientCert);
  }

  private watch(req: http.IncomingMessage, res: http.ServerResponse, t: ResourceType, p: ParsedPath, ns: string | undefined, q: URLSearchParams): void {
    const api = this.o.api;
    const lo = listOptions(q);
    // Watching one object (`/watch/.../<name>` or `.../<name>?watch=true`) is a name field selector.
    if (p.name !== '') lo.fieldSelector = [...(lo.fieldSelector ?? []), { field: 'metadata.name', equal: true, value: p.name }];
    const table = wantsTable(req);
    const includeObject = q.get('includeObject') ?? 'Metadata';
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
    res.flushHeaders();
    let closed = false;
    const timers: TimerHandle[] = [];
    let cancel: () => void = () => undefined;
    const close = (): void => {
      if (closed) return;
      closed = true;
      cancel();
      for (const h of timers) h.cancel();
      this.openWatches.delete(close);
      res.end();
    };
    this.openWatches.add(close);
    const write = (e: WatchEvent): void => {
      if (closed) return;
      let ev: WatchEvent = e;
      if (table && (e.type === 'ADDED' || e.type === 'MODIFIED' || e.type === 'DELETED')) {
        ev = { type: e.type, object: toTable(t, p.version, [e.object as KubeObject], { resourceVersion: (e.object as KubeObject).metadata.resourceVersion }, includeObject, this.o.clock.now()) };
      }
      res.write(`${JSON.stringify(ev)}\n`);
    };
    req.on('close', close);
    res.on('error', close);
    const wo: Parameters<KubeApi['watch']>[2] = {};
    if (lo.labelSelector) wo.labelSelector = lo.labelSelector;
    if (lo.fieldSelector) wo.fieldSelector = lo.fieldSelector;
    const rv = q.get('resourceVersion');
    if (rv !== null) wo.resourceVersion = rv;
    if (q.get('sendInitialEvents') === 'true') wo.sendInitialEvents = true;
    let expired = false;
    cancel = api.watch(t, ns, wo, p.version, (e) => {
      write(e);
      if (e.type === 'ERROR') expired = true;
    });
    if (expired) {
      close();
      return;
    }
    const timeout = Number(q.get('timeoutSeconds') ?? '1800');
    timers.push(this.o.clock.setTimeout(close, (Number.isFinite(timeout) && timeout > 0 ? timeout : 1800) * 1000));
    if (q.get('allowWatchBookmarks') === 'true') {
      const tick = (): void => {
        if (closed) return;
        write({ type: 'BOOKMARK', object: { kind: t.kind, apiVersion: apiVersionOf(t.group, p.version), metadata: { resourceVersion: String(api.store.resourceVersion) } } });
        timers.push(this.o.clock.setTimeout(tick, this.o.bookmarkIntervalMs));
      };
      timers.push(this.o.clock.setTimeout(tick, this.o.bookmarkIntervalMs));
    }
  }
}

function listOptions(q: URLSearchParams): ListOptions {
  const lo: ListOptions = {};
  const ls = q.get('labelSelector');
  if (ls) lo.labelSelector = parseLabelSelector(ls);
  const fs = q.get('fieldSelector');
  if (fs) lo.fieldSelector = parseFieldSelector(fs);
  const limit = Number(q.get('limit') ?? '0');
  if (limit > 0) lo.limit = limit;
  const c = q.get('continue');
  if (c) lo.continue = c;
  return lo;
}

function deleteOptions(q: URLSearchParams, body: unknown): DeleteOptions {
  const o: DeleteOptions = {};
  const b = isRecord(body) ? body : {};
  const pp = (b.propagationPolicy as string | undefined) ?? q.get('propagationPolicy') ?? undefined;
  if (pp === 'Background' || pp === 'Foreground' || pp === 'Orphan') o.propagationPolicy = pp;
  if (b.orphanDependents === true) o.propagationPolicy = 'Orphan';
  if (isRecord(b.preconditions)) {
    const pre: NonNullable<DeleteOptions['preconditions']> = {};
    if (typeof b.preconditions.uid === 'string') pre.uid = b.preconditions.uid;
    if (typeof b.preconditions.resourceVersion === 'string') pre.resourceVersion = b.preconditions.resourceVersion;
    o.preconditions = pre;
  }
  if (Array.isArray(b.dryRun) && b.dryRun.includes('All')) o.dryRun = true;
  if (q.getAll('dryRun').includes('All')) o.dryRun = true;
  return o;
}
