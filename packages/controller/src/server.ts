// The controller's HTTPS API: per-node protobuf watch streams for agents, agents' status reports,
// the JSON read API for the cli (also reached through the Kubernetes aggregator), metrics, health.
import https from 'node:https';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeNetworkPolicyStatus, encodeWatchEvent, type controlplane } from '@switchyard/apis';
import { delimited, SharedEncodings } from './frames';
import { explain, queryEndpoint, type FlowQuery } from '@switchyard/policy-compiler';
import { nodeOf, type AccessAttributes, type RequestAuth, type UserInfo } from '@switchyard/kube';
import { CONTROLPLANE_RESOURCES, WATCHABLE_RESOURCES, type ControlplaneHub, type ControlplaneResource, type NodeWatcher } from './hub';
import { silentLogger, type Logger, type PartsHealth } from '@switchyard/runtime';
import type { MetricsRegistry } from './metrics';
import type { PolicyStatusAggregator } from './status';
import { VALIDATE_PREFIX, type AdmissionWebhook } from './webhook';
import Router from 'find-my-way';

/** API group and version of the controlplane API. */
export const CONTROLPLANE_GROUP = 'controlplane.switchyard.io';
export const CONTROLPLANE_VERSION = 'v1beta2';
const PREFIX = `/apis/${CONTROLPLANE_GROUP}/${CONTROLPLANE_VERSION}`;

/** One request as a route sees it: the path without trailing slashes and find-my-way's params. */
interface RouteContext {
  req: http.IncomingMessage;
  res: http.ServerResponse;
  url: URL;
  path: string;
  params: Record<string, string | undefined>;
}
type Route = (c: RouteContext) => Promise<void>;
/** Content type of watch streams: varint-length-delimited `switchyard.controlplane.v1.WatchEvent` messages. */
export const WATCH_CONTENT_TYPE = 'application/vnd.switchyard.controlplane.watch+protobuf;stream=delimited';
/** Response header naming how a watch started: `initial` or `resume`. */
export const WATCH_MODE_HEADER = 'x-switchyard-watch-mode';

/** Options of {@link ControlplaneServer}. */
export interface ControlplaneServerOptions {
  hub: ControlplaneHub;
  auth: RequestAuth;
  tls: { certPem: string; keyPem: string; /** CA verifying front-proxy client certificates (aggregation). */ clientCaPem?: string };
  port?: number;
  host?: string;
  /** Largest number of bytes queued for one watcher before it is disconnected (default 16 MiB). */
  maxWatcherBufferBytes?: number;
  status?: PolicyStatusAggregator;
  /** Validating admission webhook served at `/validate/<kind>` (called by the API server). */
  admission?: AdmissionWebhook;
  metrics?: MetricsRegistry;
  /** Extra data served at /controllerinfo. */
  info?: () => Record<string, unknown>;
  /** Each part's health, served at `/healthz?verbose` (to callers allowed `get` on `/healthz`). */
  health?: () => PartsHealth;
  logger?: Logger;
}

/** Counters of the server. */
export interface ServerStats {
  watchesOpened: number;
  watchesExpired: number;
  overflowDisconnects: number;
  eventsSent: number;
  bytesSent: number;
  statusReports: number;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

/** One agent's open watch: frames go straight to the socket while its buffer stays under the bound. */
export class WatchConnection implements NodeWatcher {
  /** Most bytes ever buffered for this watcher after the initial state (what the bound limits). */
  maxBufferedBytes = 0;
  closed = false;
  overflowed = false;
  private initialBytes = 0;
  private initialDraining = false;

  constructor(
    readonly node: string,
    readonly resources: ReadonlySet<ControlplaneResource>,
    private readonly res: http.ServerResponse,
    private readonly bound: number,
    private readonly onOverflow: (w: WatchConnection) => void,
    private readonly stats: ServerStats,
    /** Frames of live events, shared with the other watchers of the same change. */
    private readonly liveFrames: SharedEncodings = new SharedEncodings(),
  ) {}

  /** Bytes accepted but not yet handed to the kernel. */
  get bufferedBytes(): number {
    return this.res.writableLength;
  }

  /**
   * Write the initial state or replay in one go; the bound applies to what comes after it. With
   * `shared` (the initial state at one resourceVersion), objects other nodes also hold are encoded
   * once for all of them.
   */
  writeInitial(events: readonly controlplane.WatchEvent[], shared?: { messages: SharedEncodings; version: string }): void {
    const buf = shared ? shared.messages.concat(events, shared.version) : delimited(events.map((e) => encodeWatchEvent(e)));
    this.stats.eventsSent += events.length;
    this.stats.bytesSent += buf.length;
    this.initialBytes = buf.length;
    if (!this.res.write(buf)) {
      this.initialDraining = true;
      this.res.once('drain', () => {
        this.initialDraining = false;
      });
    }
  }

  send(events: readonly controlplane.WatchEvent[]): void {
    if (this.closed) return;
    for (const e of events) {
      const frame = this.liveFrames.of(e, e.resourceVersion ?? '');
      const limit = this.initialDraining ? this.bound + this.initialBytes : this.bound;
      if (this.res.writableLength + frame.length > limit) {
        this.overflowed = true;
        this.onOverflow(this);
        return;
      }
      this.res.write(frame);
      this.stats.eventsSent++;
      this.stats.bytesSent += frame.length;
      if (!this.initialDraining) this.maxBufferedBytes = Math.max(this.maxBufferedBytes, this.res.writableLength);
    }
  }

  /** End the stream cleanly (graceful shutdown) or abruptly. */
  close(abrupt = false): void {
    if (this.closed) return;
    this.closed = true;
    if (abrupt) this.res.destroy();
    else this.res.end();
  }
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function statusBody(code: number, reason: string, message: string): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Failure', message, reason, code };
}

async function readBody(req: http.IncomingMessage, limit = 4 << 20): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const c of req) {
    n += (c as Buffer).length;
    if (n > limit) throw new HttpError(413, 'RequestEntityTooLarge', 'request body too large');
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks);
}

const KIND_OF: Record<ControlplaneResource, string> = { networkpolicies: 'NetworkPolicy', addressgroups: 'AddressGroup', appliedtogroups: 'AppliedToGroup', egressgroups: 'EgressGroup' };

/**
 * HTTPS server of the controller. Paths (all under `/apis/controlplane.switchyard.io/v1beta2`):
 * `{networkpolicies,addressgroups,appliedtogroups}` (JSON list, or `?watch=true&nodeName=` protobuf
 * stream), `watch?nodeName=` (all three in one stream), `networkpolicies/{uid}/status` (POST),
 * `endpointquery?pod=ns/name`, `explain?src=&dst=&protocol=&port=&ipFamily=`, `controllerinfo`; and
 * `POST /validate/<kind>` (AdmissionReview v1, see webhook.ts).
 */
export class ControlplaneServer {
  readonly stats: ServerStats = { watchesOpened: 0, watchesExpired: 0, overflowDisconnects: 0, eventsSent: 0, bytesSent: 0, statusReports: 0 };
  readonly connections = new Set<WatchConnection>();
  private readonly server: https.Server;
  private readonly router: Router.Instance<Router.HTTPVersion.V1>;
  private readonly log: Logger;
  private readonly bound: number;
  private closing = false;
  /** Frames of the change being fanned out, and frames of the initial states at the current resourceVersion (copied into each state, so their memory is reused). */
  private readonly liveFrames = new SharedEncodings();
  private readonly initialMessages = new SharedEncodings({ recycle: true });

  constructor(private readonly o: ControlplaneServerOptions) {
    this.log = o.logger ?? silentLogger;
    this.bound = o.maxWatcherBufferBytes ?? 16 << 20;
    this.router = this.routes();
    const tlsOpts: https.ServerOptions = { cert: o.tls.certPem, key: o.tls.keyPem, minVersion: 'TLSv1.2' };
    if (o.tls.clientCaPem) {
      tlsOpts.ca = o.tls.clientCaPem;
      tlsOpts.requestCert = true;
      tlsOpts.rejectUnauthorized = false;
    }
    this.server = https.createServer(tlsOpts, (req, res) => {
      this.handle(req, res).catch((e: unknown) => {
        const err = e instanceof HttpError ? e : new HttpError(500, 'InternalError', (e as Error).message);
        if (!(e instanceof HttpError)) this.log.debug({ stack: (e as Error).stack }, 'stack');
        if (err.status >= 500) this.log.error({ err: (e as Error).message, url: req.url }, 'request failed');
        if (!res.headersSent) sendJson(res, err.status, statusBody(err.status, err.reason, err.message));
        else res.destroy();
      });
    });
  }

  /** Listen; resolves with the bound port. */
  async listen(): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.o.port ?? 0, this.o.host ?? '0.0.0.0', () => resolve());
    });
    return (this.server.address() as AddressInfo).port;
  }

  /** Watchers' buffered bytes in total (queue depth metric). */
  bufferedBytes(): number {
    let n = 0;
    for (const c of this.connections) n += c.bufferedBytes;
    return n;
  }

  /** Graceful shutdown: stop accepting, end every stream cleanly (agents resume elsewhere), close. */
  async close(): Promise<void> {
    this.closing = true;
    for (const c of [...this.connections]) this.dropConnection(c, false);
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeIdleConnections();
      setTimeout(() => this.server.closeAllConnections(), 2000).unref();
    });
  }

  private dropConnection(c: WatchConnection, abrupt: boolean): void {
    this.o.hub.unwatch(c);
    this.connections.delete(c);
    c.close(abrupt);
  }

  private async user(req: http.IncomingMessage): Promise<UserInfo> {
    const u = await this.o.auth.authenticate(req);
    if (!u) throw new HttpError(401, 'Unauthorized', 'Unauthorized');
    return u;
  }

  private async require(user: UserInfo, attrs: AccessAttributes): Promise<void> {
    if (!(await this.o.auth.authorize(user, attrs))) {
      const what = attrs.path ?? `${attrs.resource ?? ''}${attrs.subresource ? `/${attrs.subresource}` : ''}.${attrs.group ?? ''}`;
      throw new HttpError(403, 'Forbidden', `user "${user.username}" cannot ${attrs.verb} ${what}${attrs.name ? ` "${attrs.name}"` : ''}`);
    }
  }

  /** An agent may only use its own node's stream; other identities need `get` on nodestreams/<node>. */
  private async requireNode(user: UserInfo, node: string): Promise<void> {
    const own = nodeOf(user);
    if (own !== undefined) {
      if (own !== node) throw new HttpError(403, 'Forbidden', `node "${own}" may not access node "${node}"`);
      return;
    }
    await this.require(user, { verb: 'get', group: CONTROLPLANE_GROUP, version: CONTROLPLANE_VERSION, resource: 'nodestreams', name: node });
  }

  /** The routes: find-my-way matches method and path; a path served for other methods only is a 405. */
  private routes(): Router.Instance<Router.HTTPVersion.V1> {
    const r = Router({ ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: 1024 });
    const on = (method: Router.HTTPMethod, path: string, route: Route): void => void r.on(method, path, () => undefined, route);
    for (const probe of ['/healthz', '/livez', '/readyz']) on('GET', probe, (c) => this.serveProbe(probe, c));
    // The API server calls webhooks without credentials (as it calls Antrea's); the review only
    // answers allowed or not, and reveals nothing beyond what the caller sent.
    on('POST', `${VALIDATE_PREFIX}*`, async ({ req, res, path }) => {
      if (!this.o.admission) throw new HttpError(404, 'NotFound', `no route for ${path}`);
      const reply = await this.o.admission.review(path, await readBody(req));
      sendJson(res, reply.status, reply.body);
    });
    on('GET', '/metrics', async ({ req, res }) => {
      await this.require(await this.user(req), { verb: 'get', path: '/metrics' });
      const text = (await this.o.metrics?.render()) ?? '';
      res.writeHead(200, { 'content-type': this.o.metrics?.contentType ?? 'text/plain; version=0.0.4' });
      res.end(text);
    });
    const discovery = (body: () => unknown): Route => async ({ req, res }) => {
      await this.user(req);
      sendJson(res, 200, body());
    };
    on('GET', '/apis', discovery(() => ({ kind: 'APIGroupList', apiVersion: 'v1', groups: [this.apiGroup()] })));
    on('GET', `/apis/${CONTROLPLANE_GROUP}`, discovery(() => this.apiGroup()));
    on('GET', PREFIX, discovery(() => this.resourceList()));
    on('GET', `${PREFIX}/watch`, async ({ req, res, url }) => this.serveWatch(await this.user(req), [...CONTROLPLANE_RESOURCES], url.searchParams, res));
    on('GET', `${PREFIX}/:resource`, (c) => this.serveResource(c));
    on('GET', `${PREFIX}/:resource/:name`, (c) => this.serveResource(c));
    on('POST', `${PREFIX}/networkpolicies/:name/status`, async ({ req, res, params }) => this.serveStatus(await this.user(req), params.name!, req, res));
    return r;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'https://controller');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const method = (req.method ?? 'GET') as Router.HTTPMethod;
    const hit = this.router.find(method, path);
    if (hit) return (hit.store as Route)({ req, res, url, path, params: hit.params });
    const elsewhere = (['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const).some((m) => m !== method && this.router.find(m, path));
    // Credentials first: an anonymous caller learns nothing about which paths exist.
    await this.user(req);
    if (elsewhere) throw new HttpError(405, 'MethodNotAllowed', `${req.method} not allowed on ${path}`);
    throw new HttpError(404, 'NotFound', `no route for ${path}`);
  }

  /** Liveness and readiness without credentials; `/healthz?verbose` (the parts' health) with them. */
  private async serveProbe(probe: string, { req, res, url }: RouteContext): Promise<void> {
    if (probe === '/healthz' && url.searchParams.has('verbose')) {
      // Only with credentials: the parts' details name errors and addresses.
      await this.require(await this.user(req), { verb: 'get', path: '/healthz' });
      const h = this.o.health?.() ?? { ok: true, parts: [] };
      return sendJson(res, 200, { status: h.ok ? 'ok' : 'degraded', parts: h.parts });
    }
    const ok = probe !== '/readyz' || this.o.hub.synced;
    res.writeHead(ok ? 200 : 503, { 'content-type': 'text/plain' });
    res.end(ok ? 'ok' : 'not synced');
  }

  /** GET of a controlplane resource: a watch, a list or one object, or one of the query resources. */
  private async serveResource({ req, res, url, params }: RouteContext): Promise<void> {
    const user = await this.user(req);
    const { resource = '', name } = params;
    const q = url.searchParams;
    const isWatch = q.get('watch') === 'true' || q.get('watch') === '1';
    if (isWatch && name === undefined) {
      if (!WATCHABLE_RESOURCES.includes(resource as ControlplaneResource)) throw new HttpError(404, 'NotFound', `unknown resource ${resource}`);
      return this.serveWatch(user, [resource as ControlplaneResource], q, res);
    }
    const access = (r: string, extra: Partial<AccessAttributes> = {}): Promise<void> =>
      this.require(user, { verb: 'get', group: CONTROLPLANE_GROUP, version: CONTROLPLANE_VERSION, resource: r, ...extra });
    switch (resource) {
      case 'networkpolicies':
      case 'addressgroups':
      case 'appliedtogroups':
        await access(resource, name ? { name } : { verb: 'list' });
        return this.serveRead(resource, name, q, res);
      case 'egressgroups':
        await access(resource, name ? { name } : { verb: 'list' });
        return this.serveEgressGroups(name, res);
      case 'endpointquery': {
        await access('endpointquery');
        const pod = q.get('pod') ?? (q.get('namespace') && q.get('name') ? `${q.get('namespace')}/${q.get('name')}` : '');
        if (!pod.includes('/')) throw new HttpError(400, 'BadRequest', 'pod must be namespace/name');
        return sendJson(res, 200, { kind: 'EndpointQueryResponse', apiVersion: `${CONTROLPLANE_GROUP}/${CONTROLPLANE_VERSION}`, pod, ...queryEndpoint(this.o.hub.engine, pod) });
      }
      case 'explain':
        await access('explain');
        return sendJson(res, 200, { kind: 'Explanation', apiVersion: `${CONTROLPLANE_GROUP}/${CONTROLPLANE_VERSION}`, ...this.explain(q) });
      case 'controllerinfo':
        await access('controllerinfo');
        return sendJson(res, 200, { kind: 'ControllerInfo', apiVersion: `${CONTROLPLANE_GROUP}/${CONTROLPLANE_VERSION}`, ...this.info() });
      default:
        throw new HttpError(404, 'NotFound', `unknown resource ${resource}`);
    }
  }

  /** `policy explain`: which rule decides a flow between two endpoints. */
  private explain(q: URLSearchParams): ReturnType<typeof explain> {
    const ep = (v: string | null, field: string): FlowQuery['src'] => {
      if (!v) throw new HttpError(400, 'BadRequest', `${field} is required (namespace/pod or an IP)`);
      return v.includes('/') ? { pod: v } : { ip: v };
    };
    const query: FlowQuery = { src: ep(q.get('src'), 'src'), dst: ep(q.get('dst'), 'dst'), protocol: (q.get('protocol') ?? 'TCP').toUpperCase() as FlowQuery['protocol'] };
    if (q.get('port')) query.port = Number(q.get('port'));
    // `ipFamily=IPv6`: the family of a flow between two dual-stack pods (checked by explain()).
    const family = q.get('ipFamily');
    if (family) query.ipFamily = family as NonNullable<FlowQuery['ipFamily']>;
    try {
      return explain(this.o.hub.engine, query);
    } catch (e) {
      throw new HttpError(400, 'BadRequest', (e as Error).message);
    }
  }

  /** Controller facts for the cli. */
  info(): Record<string, unknown> {
    const snap = this.o.hub.engine.snapshot();
    return {
      resourceVersion: this.o.hub.resourceVersion,
      synced: this.o.hub.synced,
      networkPolicyNum: snap.networkPolicies.length,
      addressGroupNum: snap.addressGroups.length,
      appliedToGroupNum: snap.appliedToGroups.length,
      connectedAgentNum: this.o.hub.connectedNodes().length,
      watchers: this.connections.size,
      ...(this.o.info?.() ?? {}),
    };
  }

  private apiGroup(): Record<string, unknown> {
    const gv = { groupVersion: `${CONTROLPLANE_GROUP}/${CONTROLPLANE_VERSION}`, version: CONTROLPLANE_VERSION };
    return { kind: 'APIGroup', apiVersion: 'v1', name: CONTROLPLANE_GROUP, versions: [gv], preferredVersion: gv };
  }

  private resourceList(): Record<string, unknown> {
    const r = (name: string, kind: string, verbs: string[]): Record<string, unknown> => ({ name, singularName: '', namespaced: false, kind, verbs });
    return {
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: `${CONTROLPLANE_GROUP}/${CONTROLPLANE_VERSION}`,
      resources: [
        r('networkpolicies', 'NetworkPolicy', ['get', 'list', 'watch']),
        r('networkpolicies/status', 'NetworkPolicyStatus', ['create']),
        r('addressgroups', 'AddressGroup', ['get', 'list', 'watch']),
        r('appliedtogroups', 'AppliedToGroup', ['get', 'list', 'watch']),
        r('egressgroups', 'EgressGroup', ['get', 'list', 'watch']),
        r('endpointquery', 'EndpointQueryResponse', ['get']),
        r('explain', 'Explanation', ['get']),
        r('controllerinfo', 'ControllerInfo', ['get']),
      ],
    };
  }

  /** The Egress groups (every node holds all of them: no `nodeName` cut). */
  private serveEgressGroups(name: string | undefined, res: http.ServerResponse): void {
    const apiVersion = `${CONTROLPLANE_GROUP}/${CONTROLPLANE_VERSION}`;
    const items = this.o.hub.egressGroupList().map((g) => ({ kind: 'EgressGroup', apiVersion, metadata: { name: g.name }, ...g }));
    if (name !== undefined) {
      const hit = items.find((i) => i.name === name);
      if (!hit) throw new HttpError(404, 'NotFound', `egressgroups "${name}" not found`);
      return sendJson(res, 200, hit);
    }
    sendJson(res, 200, { kind: 'EgressGroupList', apiVersion, metadata: { resourceVersion: this.o.hub.resourceVersion }, items });
  }

  private serveRead(resource: Exclude<ControlplaneResource, 'egressgroups'>, name: string | undefined, q: URLSearchParams, res: http.ServerResponse): void {
    const engine = this.o.hub.engine;
    const node = q.get('nodeName') ?? undefined;
    const snap = engine.snapshot(node);
    const apiVersion = `${CONTROLPLANE_GROUP}/${CONTROLPLANE_VERSION}`;
    let items: Record<string, unknown>[];
    if (resource === 'networkpolicies') {
      items = snap.networkPolicies.map((p) => ({ kind: 'NetworkPolicy', apiVersion, metadata: { name: p.uid, uid: p.uid }, ...p, span: engine.spanOf('NetworkPolicy', p.uid), ...(this.o.status ? { status: this.o.status.realization(p.uid) } : {}) }));
    } else {
      const groups = resource === 'addressgroups' ? snap.addressGroups : snap.appliedToGroups;
      const kind = resource === 'addressgroups' ? 'AddressGroup' : 'AppliedToGroup';
      items = groups.map((g) => ({ kind, apiVersion, metadata: { name: g.name }, ...g, span: engine.spanOf(kind, g.name) }));
    }
    if (name !== undefined) {
      const hit = items.find((i) => (i.metadata as { name: string }).name === name || (i as { name?: string }).name === name);
      if (!hit) throw new HttpError(404, 'NotFound', `${resource} "${name}" not found`);
      return sendJson(res, 200, hit);
    }
    sendJson(res, 200, { kind: `${KIND_OF[resource]}List`, apiVersion, metadata: { resourceVersion: this.o.hub.resourceVersion }, items });
  }

  private async serveStatus(user: UserInfo, uid: string, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    await this.require(user, { verb: 'create', group: CONTROLPLANE_GROUP, version: CONTROLPLANE_VERSION, resource: 'networkpolicies', subresource: 'status', name: uid });
    const body = await readBody(req);
    let status: controlplane.NetworkPolicyStatus;
    try {
      status = (req.headers['content-type'] ?? '').includes('protobuf') ? decodeNetworkPolicyStatus(body) : (JSON.parse(body.toString('utf8')) as controlplane.NetworkPolicyStatus);
    } catch (e) {
      throw new HttpError(400, 'BadRequest', `cannot decode NetworkPolicyStatus: ${(e as Error).message}`);
    }
    if (status.name !== uid || !Array.isArray(status.nodes)) throw new HttpError(400, 'BadRequest', 'status.name must equal the policy uid in the path and nodes must be a list');
    for (const n of status.nodes) await this.requireNode(user, n.nodeName);
    for (const n of status.nodes) this.o.status?.report(n.nodeName, { name: uid, nodes: [n] });
    this.stats.statusReports++;
    sendJson(res, 201, { kind: 'NetworkPolicyStatus', apiVersion: `${CONTROLPLANE_GROUP}/${CONTROLPLANE_VERSION}`, ...status });
  }

  private async serveWatch(user: UserInfo, resources: ControlplaneResource[], q: URLSearchParams, res: http.ServerResponse): Promise<void> {
    const node = q.get('nodeName') ?? '';
    if (node === '') throw new HttpError(400, 'BadRequest', 'nodeName is required for watches');
    for (const r of resources) await this.require(user, { verb: 'watch', group: CONTROLPLANE_GROUP, version: CONTROLPLANE_VERSION, resource: r });
    await this.requireNode(user, node);
    if (this.closing) throw new HttpError(503, 'ServiceUnavailable', 'shutting down');
    await this.o.hub.whenSynced();
    const conn = new WatchConnection(node, new Set(resources), res, this.bound, (c) => {
      this.stats.overflowDisconnects++;
      this.log.warn({ node: c.node, bound: this.bound }, 'watcher too slow: buffer bound exceeded, disconnecting');
      this.dropConnection(c, true);
    }, this.stats, this.liveFrames);
    const start = this.o.hub.watch(conn, q.get('resourceVersion') ?? undefined);
    res.writeHead(200, { 'content-type': WATCH_CONTENT_TYPE, 'cache-control': 'no-cache', [WATCH_MODE_HEADER]: start.mode });
    if (start.mode === 'expired') {
      this.stats.watchesExpired++;
      conn.writeInitial([{ type: 'ERROR', kind: 'Status', object: { code: 410, reason: 'Expired', message: start.reason } }]);
      res.end();
      return;
    }
    this.stats.watchesOpened++;
    this.connections.add(conn);
    res.on('close', () => {
      this.o.hub.unwatch(conn);
      this.connections.delete(conn);
      conn.closed = true;
    });
    const shared = start.mode === 'initial' ? { messages: this.initialMessages, version: start.resourceVersion } : undefined;
    conn.writeInitial([...start.events, { type: 'BOOKMARK', kind: 'Bookmark', object: { resourceVersion: start.resourceVersion }, resourceVersion: start.resourceVersion }], shared);
    this.log.debug({ node, mode: start.mode, events: start.events.length }, 'watch opened');
  }
}
