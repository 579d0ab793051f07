/**
 * The agent's local API for the cli: HTTP/JSON on a unix socket and, optionally, on a TCP port
 * (reached through the API server's node proxy). `GET /podinterfaces`,
 * `GET /ovsflows?pod=<ns>/<name>&table=<TableName>&networkpolicy=<uid|ns/name|name>`,
 * `GET /agentinfo`, `GET /metrics`, `GET /healthz` (`?verbose`: each part's health),
 * `GET /serviceexternalip?namespace=&name=` (ServiceExternalIP: each external IP and its owner),
 * `GET /services?namespace=&name=` (AntreaProxy: each Service port with its groups and buckets). Read-only.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { RequestAuth } from '@switchyard/kube';
import { chmodSync, mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Flow } from '@switchyard/openflow/codec';
import { formatFlow } from '@switchyard/openflow-pipeline';
import type { PodInterface } from '../../interface-store';
import { silentLogger, type Logger } from '@switchyard/runtime';
import type { AgentHealth } from '../../health';
import type { ServiceExternalIPInfo } from '../external-ip/controller';
import type { ServicePortInfo } from '../services/introspection';
import { AgentMetrics } from '../../metrics';

/** What the local API reads from the running agent. */
export interface AgentIntrospection {
  nodeName: string;
  /** The node's pod CIDR (IPv6 on an IPv6-only node; '' on an ExternalNode). */
  podCIDR: string;
  /** A dual-stack node's IPv6 pod CIDR. */
  podCIDRv6?: string;
  bridge: string;
  round: number;
  startTime: Date;
  podInterfaces(): PodInterface[];
  /** Flows as the switch reports them now. */
  installedFlows(): Promise<Flow[]>;
  /** Table name of a table id in the current pipeline. */
  tableName(id: number): string | undefined;
  /** Table id of a table name in the current pipeline. */
  tableId(name: string): number | undefined;
  ovsVersion(): Promise<string>;
  /** Sizes of the controlplane view. */
  policyCounts(): { policies: number; addressGroups: number; appliedToGroups: number };
  /** Metric families to expose at /metrics. */
  metrics?: AgentMetrics;
  /** Whether the controlplane stream is open (undefined: no controller configured). */
  controllerConnected(): boolean | undefined;
  /**
   * Conjunction ids of a policy's rules, the policy given by uid, `namespace/name` or name (of
   * its source object); undefined when no policy on this node matches.
   */
  policyConjIds?(ref: string): number[] | undefined;
  /** Health of each part of the agent. */
  health?(): AgentHealth;
  /**
   * The AgentHealthy condition, when the agent reports more than "running" (an ExternalNode agent
   * reports why its ExternalNode is not realized). Default: True.
   */
  healthCondition?(): { status: 'True' | 'False'; reason?: string; message?: string };
  /** Service external IPs with their owner node (ServiceExternalIP on; antctl's `get serviceexternalip`). */
  serviceExternalIPs?(): ServiceExternalIPInfo[];
  /** The Service ports AntreaProxy realises on this node (AntreaProxy on; `yardctl get service`). */
  services?(): ServicePortInfo[];
  /** What AntreaAgentInfo.nodeRef names; default the Node `nodeName`. */
  nodeRef?: { kind: 'Node' | 'ExternalNode'; name: string; namespace?: string };
}

/** Whether a flow belongs to one of the rules with these conjunction ids. */
export function flowOfConjunctions(f: Flow, ids: ReadonlySet<number>): boolean {
  if (f.match.conjId !== undefined && ids.has(f.match.conjId)) return true;
  return f.actions.some((a) => a.type === 'conjunction' && ids.has(a.id));
}

/** AntreaAgentInfo-shaped status (the fields this agent can fill so far). */
export interface AgentInfo {
  nodeRef: { kind: 'Node'; name: string };
  nodeSubnets: string[];
  ovsInfo: { bridgeName: string; version: string; flowTable: Record<string, number> };
  localPodNum: number;
  roundNum: number;
  agentConditions: { type: 'AgentHealthy' | 'ControllerConnectionUp'; status: 'True' | 'False'; lastHeartbeatTime: string; reason?: string; message?: string }[];
  networkPolicyControllerInfo: { networkPolicyNum: number; addressGroupNum: number; appliedToGroupNum: number };
}

/** Builds the agentinfo document. */
export async function agentInfo(a: AgentIntrospection, now: Date = new Date()): Promise<AgentInfo> {
  const flowTable: Record<string, number> = {};
  const counts = a.policyCounts();
  const connected = a.controllerConnected();
  for (const f of await a.installedFlows()) {
    const name = a.tableName(f.table) ?? String(f.table);
    flowTable[name] = (flowTable[name] ?? 0) + 1;
  }
  return {
    nodeRef: { kind: 'Node', name: a.nodeName },
    // Every pod CIDR of the node, IPv4's first (Antrea's order); none on an ExternalNode.
    nodeSubnets: [a.podCIDR, a.podCIDRv6 ?? ''].filter((c) => c !== ''),
    ovsInfo: { bridgeName: a.bridge, version: await a.ovsVersion(), flowTable },
    localPodNum: a.podInterfaces().length,
    roundNum: a.round,
    agentConditions: [
      { type: 'AgentHealthy', ...(a.healthCondition?.() ?? { status: 'True' }), lastHeartbeatTime: now.toISOString() },
      ...(connected === undefined ? [] : [{ type: 'ControllerConnectionUp' as const, status: connected ? ('True' as const) : ('False' as const), lastHeartbeatTime: now.toISOString() }]),
    ],
    networkPolicyControllerInfo: { networkPolicyNum: counts.policies, addressGroupNum: counts.addressGroups, appliedToGroupNum: counts.appliedToGroups },
  };
}

/** Whether a flow concerns a pod: matches or sets its ofport, MAC or address. */
export function flowConcernsPod(f: Flow, p: PodInterface): boolean {
  const ip = p.ipCidr.split('/')[0];
  const m = f.match;
  const same = (v: unknown, want: string | number): boolean =>
    v === want || (typeof v === 'object' && v !== null && (v as { value?: unknown }).value === want);
  if (same(m.inPort, p.ofport) || same(m.ethSrc, p.mac) || same(m.ethDst, p.mac)) return true;
  if (ip !== undefined && (same(m.ipv4Src, ip) || same(m.ipv4Dst, ip) || same(m.arpSpa, ip) || same(m.arpTpa, ip))) return true;
  return false;
}

/**
 * Health checks answer anyone (kubelet probes carry no credentials); their `?verbose` form, which
 * names what each part holds and its errors, only callers allowed the path.
 */
const ALWAYS_ALLOWED: ReadonlySet<string> = new Set(['/healthz', '/livez', '/readyz']);

/** A Kubernetes Status body (what kubectl-style clients print). */
function status(code: number, reason: string, message: string): Record<string, unknown> {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
}

/** Undefined when the caller may `get` the path; else the 401/403 answer. */
async function checkAccess(auth: RequestAuth, req: IncomingMessage, path: string): Promise<{ status: number; body: unknown } | undefined> {
  const user = await auth.authenticate(req);
  if (!user) return { status: 401, body: status(401, 'Unauthorized', 'Unauthorized') };
  if (!(await auth.authorize(user, { verb: 'get', path }))) {
    return { status: 403, body: status(403, 'Forbidden', `forbidden: User "${user.username}" cannot get path "${path}"`) };
  }
  return undefined;
}

/** A body sent as Prometheus text rather than JSON. */
class PromText {
  constructor(
    readonly text: string,
    readonly contentType: string,
  ) {}
}

type Handler = (url: URL) => Promise<{ status: number; body: unknown }>;

/** A running local API server. */
export class LocalApi {
  private constructor(
    private readonly server: Server,
    /** The unix socket path, or `host:port`. */
    readonly address: string,
    private readonly socketPath?: string,
  ) {}

  /** Serves on a unix socket (replacing a stale socket file). */
  static async listen(socketPath: string, a: AgentIntrospection, opts: { logger?: Logger } = {}): Promise<LocalApi> {
    const server = LocalApi.server(a, opts.logger ?? silentLogger);
    mkdirSync(dirname(socketPath), { recursive: true });
    rmSync(socketPath, { force: true });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath, () => resolve());
    });
    // Owner only: the socket answers without authentication (yardctl on the node runs as root).
    chmodSync(socketPath, 0o600);
    return new LocalApi(server, socketPath, socketPath);
  }

  /**
   * Serves on TCP `host:port` (port 0 = any free port; see {@link port}); over HTTPS with `tls`.
   * With `auth`, every path but the health checks needs a caller the Kubernetes API authenticates
   * (bearer token, the API server's front-proxy certificate with X-Remote-User, or a client
   * certificate signed by `tls.clientCaPem`) and allows `get` on the path (a non-resource
   * SubjectAccessReview, as for a kubelet's or an aggregated server's own paths).
   */
  static async listenTcp(
    host: string,
    port: number,
    a: AgentIntrospection,
    opts: { logger?: Logger; tls?: { certPem: string; keyPem: string; clientCaPem?: string }; auth?: RequestAuth } = {},
  ): Promise<LocalApi> {
    const server = LocalApi.server(a, opts.logger ?? silentLogger, opts.auth, opts.tls);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    const addr = server.address();
    const bound = typeof addr === 'object' && addr ? addr.port : port;
    return new LocalApi(server, `${host.includes(':') ? `[${host}]` : host}:${bound}`);
  }

  /** The TCP port served (undefined on a unix socket). */
  get port(): number | undefined {
    const addr = this.server.address();
    return typeof addr === 'object' && addr ? addr.port : undefined;
  }

  private static server(a: AgentIntrospection, log: Logger, auth?: RequestAuth, tls?: { certPem: string; keyPem: string; clientCaPem?: string }): Server {
    // Without the agent's own families (tests), the node gauges still have a registry of their own.
    const metrics = a.metrics ?? new AgentMetrics();
    const routes: Record<string, Handler> = {
      // Liveness stays 200 while the process answers: a part that is not ok (a controller away)
      // is reported, not a reason for the kubelet to restart the agent.
      '/healthz': async (url) => {
        const health = url.searchParams.has('verbose') ? a.health?.() : undefined;
        if (!health) return { status: 200, body: { status: 'ok' } };
        return { status: 200, body: { status: health.ok ? 'ok' : 'degraded', controllers: health.controllers } };
      },
      '/agentinfo': async () => ({ status: 200, body: await agentInfo(a) }),
      '/metrics': async () => {
        const info = await agentInfo(a);
        metrics.setNodeState({ flowsByTable: info.ovsInfo.flowTable, localPods: info.localPodNum, networkPolicies: info.networkPolicyControllerInfo.networkPolicyNum });
        return { status: 200, body: new PromText(await metrics.render(), metrics.contentType) };
      },
      '/podinterfaces': async (url) => {
        const ns = url.searchParams.get('namespace');
        const name = url.searchParams.get('name');
        const list = a.podInterfaces().filter((p) => (!ns || p.podNamespace === ns) && (!name || p.podName === name));
        return { status: 200, body: list };
      },
      '/serviceexternalip': async (url) => {
        if (!a.serviceExternalIPs) return { status: 404, body: { error: 'ServiceExternalIP is not enabled on this agent' } };
        const ns = url.searchParams.get('namespace');
        const name = url.searchParams.get('name');
        return { status: 200, body: a.serviceExternalIPs().filter((e) => (!ns || e.namespace === ns) && (!name || e.serviceName === name)) };
      },
      '/services': async (url) => {
        if (!a.services) return { status: 404, body: { error: 'AntreaProxy is not enabled on this agent' } };
        const ns = url.searchParams.get('namespace');
        const name = url.searchParams.get('name');
        return { status: 200, body: a.services().filter((s) => (!ns || s.namespace === ns) && (!name || s.name === name)) };
      },
      '/ovsflows': async (url) => {
        let flows = await a.installedFlows();
        const table = url.searchParams.get('table');
        if (table) {
          const id = /^\d+$/.test(table) ? Number(table) : a.tableId(table);
          if (id === undefined) return { status: 404, body: { error: `no table ${table}` } };
          flows = flows.filter((f) => f.table === id);
        }
        const pod = url.searchParams.get('pod');
        if (pod) {
          const [ns, name] = pod.includes('/') ? pod.split('/', 2) : ['default', pod];
          const iface = a.podInterfaces().find((p) => p.podNamespace === ns && p.podName === name);
          if (!iface) return { status: 404, body: { error: `no pod ${pod} on this node` } };
          flows = flows.filter((f) => flowConcernsPod(f, iface));
        }
        const np = url.searchParams.get('networkpolicy');
        if (np) {
          const ids = a.policyConjIds?.(np);
          if (ids === undefined) return { status: 404, body: { error: `no NetworkPolicy ${np} on this node` } };
          const set = new Set(ids);
          flows = flows.filter((f) => flowOfConjunctions(f, set));
        }
        return { status: 200, body: flows.map((f) => formatFlow(f, { tableName: (id) => a.tableName(id) })) };
      },
    };
    const handle = (req: IncomingMessage, res: ServerResponse): void => {
      const url = new URL(req.url ?? '/', 'http://agent');
      const route = req.method === 'GET' ? routes[url.pathname] : undefined;
      const send = (status: number, body: unknown): void => {
        if (body instanceof PromText) {
          res.writeHead(status, { 'content-type': body.contentType });
          res.end(body.text);
          return;
        }
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(`${JSON.stringify(body)}\n`);
      };
      const serve = (): void => {
        if (!route) return send(404, { error: `no route ${req.method ?? ''} ${url.pathname}` });
        route(url).then(
          (r) => send(r.status, r.body),
          (e: unknown) => {
            log.error({ err: e, path: url.pathname }, 'local API request failed');
            send(500, { error: e instanceof Error ? e.message : String(e) });
          },
        );
      };
      if (!auth || (ALWAYS_ALLOWED.has(url.pathname) && !url.searchParams.has('verbose'))) return serve();
      checkAccess(auth, req, url.pathname).then(
        (denied) => (denied ? send(denied.status, denied.body) : serve()),
        (e: unknown) => {
          // The API server could not be asked: fail closed.
          log.warn({ err: e, path: url.pathname }, 'agent API authentication/authorization failed');
          send(503, status(503, 'ServiceUnavailable', `cannot authenticate the request: ${e instanceof Error ? e.message : String(e)}`));
        },
      );
    };
    if (!tls) return createServer(handle);
    return createHttpsServer({ cert: tls.certPem, key: tls.keyPem, ...(tls.clientCaPem ? { ca: tls.clientCaPem, requestCert: true, rejectUnauthorized: false } : {}) }, handle);
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    if (this.socketPath !== undefined) rmSync(this.socketPath, { force: true });
  }
}
