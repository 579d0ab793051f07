// The HTTP(S) front: routes Kubernetes REST paths to KubeApi, with authentication, RBAC,
// discovery, watch streaming and proxying.

import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { decodeBody, type DeleteOptions, type KubeApi, type ListOptions, type PatchType, type WatchEvent, type WriteOptions } from './api';
import { type Authenticator, forbiddenMessage, type RbacAuthorizer, type RequestAttributes, reviewAccess, type UserInfo } from './auth';
import { apiGroup, apiGroupList, apiResourceList, apiVersions, type AggregatedGroup, toTable } from './discovery';
import { badRequest, KubeApiError } from './errors';
import { execTarget, refuseUpgrade, relayUpgrade } from './exec';
import { decodeKubeProtobuf } from './protobuf';
import { openapiV3Doc, openapiV3Root } from './openapi';
import { apiServiceTarget, findApiService, forward, nodeTarget, type ProxyClientCert, type ProxyTarget, serviceTarget } from './proxy';
import { apiVersionOf, type ResourceType } from './registry';
import { parseResourcePath, resourcePatterns, RouteTable, verbFor, type ParsedPath, type RouteParams } from './routes';
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

/** An authenticated request on its way through the routes. */
interface Exchange {
  req: http.IncomingMessage;
  res: http.ServerResponse;
  url: URL;
  /** The URL's path as it came (not decoded). */
  path: string;
  method: string;
  user: UserInfo;
}

/** What the server does with a request whose path matched. */
type Route = (x: Exchange, params: RouteParams) => Promise<void> | void;

/** A resource request once its type is known and the caller may make it. */
interface ResourceRequest {
  x: Exchange;
  t: ResourceType;
  p: ParsedPath;
  ns: string | undefined;
  q: URLSearchParams;
}

const notFound = (): KubeApiError => new KubeApiError('NotFound', 'the server could not find the requested resource');

/** A discovery document, or NotFound when there is none for the path. */
function found<T>(doc: T | undefined): T {
  if (doc === undefined) throw notFound();
  return doc;
}

/** Paths served without authentication (health and version). */
const publicRoutes = new RouteTable<(res: http.ServerResponse, version: Record<string, string>) => void>();
for (const check of ['/healthz', '/livez', '/readyz']) {
  const ok = (res: http.ServerResponse): void => {
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('ok');
  };
  publicRoutes.add(check, ok).add(`${check}/*`, ok);
}
publicRoutes.add('/version', (res, version) => send(res, 200, version));

export class HttpFront {
  private readonly openStreams = new Set<() => void>();
  private readonly routes = new RouteTable<Route>();

  constructor(private readonly o: HttpFrontOptions) {
    const api = o.api;
    // Discovery and OpenAPI: non-resource paths.
    this.routes
      .add('/api', this.nonResource((x) => send(x.res, 200, apiVersions(o.serverAddress()))))
      .add('/apis', this.nonResource((x) => send(x.res, 200, apiGroupList(api.registry, this.aggregatedGroups()))))
      .add('/api/:version', this.nonResource((x, pr) => send(x.res, 200, found(apiResourceList(api.registry, '', pr.version as string)))))
      .add('/apis/:group', this.nonResource((x, pr) => send(x.res, 200, found(apiGroup(api.registry, this.aggregatedGroups(), pr.group as string)))))
      .add('/apis/:group/:version', (x, pr) => this.groupVersion(x, pr.group as string, pr.version as string))
      .add('/openapi/v3', this.nonResource((x) => send(x.res, 200, openapiV3Root(api.registry))))
      .add('/openapi/v3/api/:version', this.nonResource((x, pr) => send(x.res, 200, found(openapiV3Doc(api.registry, '', pr.version as string)))))
      .add('/openapi/v3/apis/:group/:version', this.nonResource((x, pr) => send(x.res, 200, found(openapiV3Doc(api.registry, pr.group as string, pr.version as string)))))
      .add('/openapi/v2', this.nonResource((x) => this.openapiV2(x)));
    for (const { pattern, shape } of resourcePatterns()) this.routes.add(pattern, (x, pr) => this.resource(x, parseResourcePath(pr, shape, x.path)));
  }

  /** End every open watch stream and exec relay (server stop). */
  closeWatches(): void {
    for (const c of [...this.openStreams]) c();
  }

  handle = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    this.route(req, res).catch((e: unknown) => sendError(res, e, this.o.logger));
  };

  /** A request asking for a protocol upgrade: `pods/exec` (relayed to the pod's kubelet), nothing else. */
  handleUpgrade = (req: http.IncomingMessage, socket: Duplex, head: Buffer): void => {
    socket.on('error', () => undefined);
    // An upgraded connection is no longer the HTTP server's to close: it ends with the watches at stop.
    const end = (): void => void socket.destroy();
    this.openStreams.add(end);
    socket.once('close', () => this.openStreams.delete(end));
    this.upgrade(req, socket, head).catch((e: unknown) => {
      if (!(e instanceof KubeApiError)) this.o.logger.error({ err: e }, 'internal error in an upgrade');
      if (socket.writable) refuseUpgrade(socket, e instanceof KubeApiError ? e : new KubeApiError('InternalError', `Internal error occurred: ${(e as Error).message}`));
    });
  };

  private async upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://x');
    const user = this.authenticate(req);
    if (!user) throw new KubeApiError('Unauthorized', 'Unauthorized');
    const hit = this.routes.find(req.method ?? 'GET', url.pathname);
    const p = hit?.params.resource !== undefined ? parseResourcePath(hit.params, { legacyWatch: false }, url.pathname) : undefined;
    if (!p || p.group !== '' || p.resource !== 'pods' || p.subresource !== 'exec' || p.namespace === '') {
      throw badRequest(`upgrade to ${JSON.stringify(req.headers.upgrade ?? '')} is served for pods/exec only, not ${url.pathname}`);
    }
    this.authorize({ user, verb: 'create', isResourceRequest: true, path: url.pathname, apiGroup: '', resource: 'pods', subresource: 'exec', namespace: p.namespace, name: p.name });
    const target = execTarget(this.o.api, p.namespace, p.name, url.searchParams, this.o.nodeProxyHost);
    await relayUpgrade(req, socket, head, target, user, this.o.proxyClientCert);
  }

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
    const open = publicRoutes.find(method, path);
    if (open) return open.route(res, this.o.version);
    const user = this.authenticate(req);
    if (!user) return send(res, 401, new KubeApiError('Unauthorized', 'Unauthorized').toStatus());
    const x: Exchange = { req, res, url, path, method, user };
    const hit = this.routes.find(method, path);
    if (hit) return hit.route(x, hit.params);
    this.authorizeNonResource(x);
    throw notFound();
  }

  private nonResourceAttributes(x: Exchange, verb: string): RequestAttributes {
    return { user: x.user, verb, isResourceRequest: false, path: x.path, apiGroup: '', resource: '', subresource: '', namespace: '', name: '' };
  }

  private authorizeNonResource(x: Exchange): void {
    this.authorize(this.nonResourceAttributes(x, x.method === 'GET' ? 'get' : x.method.toLowerCase()));
  }

  /** A non-resource route: the caller's access to the path is checked first. */
  private nonResource(serve: Route): Route {
    return (x, params) => {
      this.authorizeNonResource(x);
      return serve(x, params);
    };
  }

  /** Discovery of a group-version: from its backend when an APIService serves it. */
  private groupVersion(x: Exchange, group: string, version: string): Promise<void> | void {
    const svc = findApiService(this.o.api, group, version);
    if (svc) {
      this.authorize(this.nonResourceAttributes(x, 'get'));
      return this.proxy(x.req, x.res, apiServiceTarget(this.o.api, svc, `${x.path}${x.url.search}`), x.user);
    }
    this.authorizeNonResource(x);
    send(x.res, 200, found(apiResourceList(this.o.api.registry, group, version)));
  }

  private openapiV2(x: Exchange): void {
    // An empty document: kubectl's client-side validation then finds no schema and skips.
    if (/protobuf/.test(x.req.headers.accept ?? '')) {
      x.res.writeHead(200, { 'Content-Type': 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf', 'Content-Length': 0 });
      x.res.end();
      return;
    }
    send(x.res, 200, { swagger: '2.0', info: { title: 'Kubernetes', version: this.o.version.gitVersion }, paths: {}, definitions: {} });
  }

  private async resource(x: Exchange, p: ParsedPath): Promise<void> {
    const q = x.url.searchParams;
    const watch = q.get('watch') === 'true' || q.get('watch') === '1';
    // exec is `create` on pods/exec whatever the method (a WebSocket's GET included), as Kubernetes
    // authorizes it once AuthorizePodWebsocketUpgradeCreatePermission is on (the default since 1.35).
    const verb = p.subresource === 'exec' ? 'create' : verbFor(x.method, p, watch);
    const attrs: RequestAttributes = { user: x.user, verb, isResourceRequest: true, path: x.path, apiGroup: p.group, resource: p.resource, subresource: p.subresource, namespace: p.namespace, name: p.name };
    if (p.resource === 'namespaces' && p.group === '' && p.name !== '') attrs.namespace = p.name;
    // Aggregated APIs go to their backend whole (discovery included).
    const svc = p.group === '' ? undefined : findApiService(this.o.api, p.group, p.version);
    if (svc) {
      this.authorize(attrs);
      return this.proxy(x.req, x.res, apiServiceTarget(this.o.api, svc, `${x.path}${x.url.search}`), x.user);
    }
    const t = this.servedType(p);
    this.authorize(attrs);
    if (p.subresource === 'proxy') return this.proxySubresource(x, t, p);
    if (p.subresource === 'exec') throw badRequest('Upgrade request required');
    const r: ResourceRequest = { x, t, p, ns: p.namespace === '' ? undefined : p.namespace, q };
    if (verb === 'watch') return this.watch(x.req, x.res, t, p, r.ns, q);
    if (verb === 'get' || verb === 'list') return this.read(r, verb);
    return this.write(r, verb);
  }

  /** The type a resource path names, with the scope and subresource it asks for. */
  private servedType(p: ParsedPath): ResourceType {
    const t = this.o.api.registry.lookup(p.group, p.version, p.resource);
    if (!t) throw notFound();
    if (!t.namespaced && p.namespace !== '' && !(t.resource === 'namespaces')) throw notFound();
    if (p.subresource !== '' && p.subresource !== 'status' && !t.subresources.includes(p.subresource)) throw notFound();
    if (p.subresource === 'status' && !t.hasStatus) throw notFound();
    return t;
  }

  private proxySubresource(x: Exchange, t: ResourceType, p: ParsedPath): Promise<void> {
    const fullProxy = `${p.proxyPath}${x.path.endsWith('/') && p.proxyPath !== '/' ? '/' : ''}${x.url.search}`;
    let target: ProxyTarget;
    if (t.resource === 'nodes') target = nodeTarget(this.o.api, p.name, fullProxy, this.o.nodeProxyHost);
    else if (t.resource === 'services') target = serviceTarget(this.o.api, p.namespace, p.name, fullProxy);
    else throw notFound();
    return this.proxy(x.req, x.res, target, x.user);
  }

  private read({ x, t, p, ns, q }: ResourceRequest, verb: 'get' | 'list'): void {
    const api = this.o.api;
    const includeObject = q.get('includeObject') ?? 'Metadata';
    if (verb === 'get') {
      const o = api.present(t, api.get(t, ns, p.name), p.version);
      if (wantsTable(x.req)) return send(x.res, 200, toTable(t, p.version, [o], { resourceVersion: o.metadata.resourceVersion }, includeObject, this.o.clock.now()));
      return send(x.res, 200, o);
    }
    const r = api.list(t, ns, listOptions(q));
    const items = r.items.map((o) => api.present(t, o, p.version));
    const meta: Record<string, unknown> = { resourceVersion: r.resourceVersion };
    if (r.continue) meta.continue = r.continue;
    if (r.remainingItemCount !== undefined) meta.remainingItemCount = r.remainingItemCount;
    if (wantsTable(x.req)) return send(x.res, 200, toTable(t, p.version, items, meta, includeObject, this.o.clock.now()));
    send(x.res, 200, { kind: t.listKind, apiVersion: apiVersionOf(t.group, p.version), metadata: meta, items });
  }

  private async write(r: ResourceRequest, verb: string): Promise<void> {
    const { x, t, p, ns, q } = r;
    const api = this.o.api;
    const raw = x.method === 'GET' || x.method === 'HEAD' ? Buffer.alloc(0) : await readBody(x.req);
    const contentType = x.req.headers['content-type'] ?? 'application/json';
    const isProtobuf = contentType.startsWith('application/vnd.kubernetes.protobuf');
    const body = isProtobuf ? '' : raw.toString('utf8');
    const decodeObject = (): Record<string, unknown> => {
      const input = isProtobuf ? decodeKubeProtobuf(raw) : decodeBody(body, contentType);
      if (!isRecord(input)) throw badRequest('the request body must be a JSON object');
      return input;
    };
    const warnings: string[] = [];
    const wo = writeOptions(q, p, { warnings, requester: x.user });
    const review = { t, p, ns, user: x.user, dryRun: wo.dryRun === true, warnings };
    // A webhook's dry run writes nothing and keeps its warnings to itself.
    const dry = (dryRun: boolean): WriteOptions => (dryRun ? { ...wo, dryRun: true, warnings: [] } : wo);
    switch (verb) {
      case 'create': {
        const input = decodeObject();
        if (p.subresource === 'token' && t.resource === 'serviceaccounts') return send(x.res, 201, this.tokenRequest(p.namespace, p.name, input));
        const answer = this.review(t, x.user, input, p.namespace);
        if (answer) return send(x.res, 201, answer);
        if (p.name !== '' && p.subresource === '') throw new KubeApiError('MethodNotAllowed', 'the server does not allow this method on the requested resource');
        const created = await this.withWebhooks({ op: 'create', ...review }, (d) => api.create(t, ns, input as KubeObject, dry(d), p.version));
        return send(x.res, 201, api.present(t, created, p.version), warnings);
      }
      case 'update': {
        const input = decodeObject();
        const updated = await this.withWebhooks({ op: 'update', ...review }, (d) => api.update(t, ns, p.name, input as KubeObject, dry(d), p.version));
        return send(x.res, 200, api.present(t, updated, p.version), warnings);
      }
      case 'patch': {
        const type = patchTypeOf(contentType);
        const patch = decodeBody(body, type === 'apply' ? 'yaml' : 'json');
        const existed = api.tryGet(t, ns, p.name) !== undefined;
        const patched = await this.withWebhooks({ op: existed ? 'update' : 'create', ...review }, (d) => api.patch(t, ns, p.name, type, patch, dry(d), p.version));
        return send(x.res, existed ? 200 : 201, api.present(t, patched, p.version), warnings);
      }
      case 'delete': {
        const opts = deleteOptions(q, isProtobuf ? undefined : decodeBody(body, 'json'));
        const gone = await this.withWebhooks({ op: 'delete', ...review, dryRun: opts.dryRun === true }, (d) => api.delete(t, ns, p.name, d ? { ...opts, dryRun: true } : opts));
        return send(x.res, 200, api.present(t, gone, p.version), warnings);
      }
      case 'deletecollection': {
        const opts = deleteOptions(q, isProtobuf ? undefined : decodeBody(body, 'json'));
        const gone = api.deleteCollection(t, ns, listOptions(q), opts);
        return send(x.res, 200, { kind: t.listKind, apiVersion: apiVersionOf(t.group, p.version), metadata: { resourceVersion: String(api.store.resourceVersion) }, items: gone.map((o) => api.present(t, o, p.version)) });
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
      this.openStreams.delete(close);
      res.end();
    };
    this.openStreams.add(close);
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

/** The options of a write from its query: dry run, field validation (default Warn), subresource. */
function writeOptions(q: URLSearchParams, p: ParsedPath, base: Pick<WriteOptions, 'warnings' | 'requester'>): WriteOptions {
  const w: WriteOptions = { ...base };
  if (q.getAll('dryRun').includes('All')) w.dryRun = true;
  const fv = q.get('fieldValidation');
  w.fieldValidation = fv === 'Strict' || fv === 'Warn' || fv === 'Ignore' ? fv : 'Warn';
  if (p.subresource !== '') w.subresource = p.subresource;
  return w;
}
