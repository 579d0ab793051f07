// The agent's local API (HTTP/JSON), reached on its unix socket (switchyard-agent --api-socket) or
// through the API server's node proxy to its TCP port. yardctl never talks to OVS itself: flows and
// interfaces come from the agent.
import { request } from 'node:http';
import { decodeJson, kubeError, parseStatus, type KubeHttp, type KubeResponse } from './client';
import { CliError } from './errors';

/** The agent API's TCP port when its AntreaAgentInfo does not name one (Antrea's default). */
export const DEFAULT_AGENT_API_PORT = 10350;

/** Where switchyard-agent listens by default (its `--api-socket` default). */
export const DEFAULT_AGENT_SOCKET = '/var/run/antrea/agent.sock';

/** How to reach one agent. */
export interface AgentConnectOptions {
  /** Unix socket of the agent's local API. */
  socketPath: string;
  /** Per-request limit in ms (0 = none). */
  timeoutMs: number;
  /** Called with one line per request (`-v`). */
  trace?: (line: string) => void;
}

/** A connection to an agent's local API. */
export interface AgentApi {
  /** GET `path` with the defined query parameters; resolves to the decoded JSON body. */
  get<T>(path: string, query?: Record<string, string | undefined>): Promise<T>;
}

/** Connect to an agent over its unix socket; errors are {@link CliError}s (exit 1). */
export function connectAgent(o: AgentConnectOptions): AgentApi {
  return {
    get<T>(path: string, query: Record<string, string | undefined> = {}): Promise<T> {
      const qs = new URLSearchParams();
      for (const [k, v] of Object.entries(query)) if (v !== undefined) qs.set(k, v);
      const full = `${path}${qs.size > 0 ? `?${qs.toString()}` : ''}`;
      o.trace?.(`GET unix:${o.socketPath}:${full}`);
      return new Promise<T>((resolve, reject) => {
        const req = request({ socketPath: o.socketPath, path: full, method: 'GET', headers: { accept: 'application/json' } }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (body += c));
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            let data: unknown;
            try {
              data = JSON.parse(body);
            } catch {
              return reject(new CliError('SERVER', `the agent answered ${path} with something that is not JSON`, body.slice(0, 200), path));
            }
            if (status === 200) return resolve(data as T);
            const msg = typeof data === 'object' && data !== null && typeof (data as { error?: unknown }).error === 'string' ? (data as { error: string }).error : body.trim();
            if (status === 404) return reject(new CliError('NOT_FOUND', `Error from agent (NotFound): ${msg}`, status, path));
            reject(new CliError('SERVER', `Error from agent (${status}): ${msg}`, status, path));
          });
        });
        if (o.timeoutMs > 0) {
          req.setTimeout(o.timeoutMs, () => req.destroy(new CliError('TIMEOUT', `request to the agent at ${o.socketPath} timed out after ${o.timeoutMs / 1000}s`, o.timeoutMs, '--timeout')));
        }
        req.on('error', (e: NodeJS.ErrnoException) => {
          if (e instanceof CliError) return reject(e);
          reject(new CliError('UNREACHABLE', `unable to connect to the agent at ${o.socketPath}: ${e.code ?? e.message} (is switchyard-agent running with --api-socket ${o.socketPath}?)`, o.socketPath, '--agent-socket'));
        });
        req.end();
      });
    },
  };
}

/** Path of the AntreaAgentInfo of a node (cluster-scoped, named after the node). */
export const AGENT_INFO_PATH = '/apis/crd.antrea.io/v1beta1/antreaagentinfos';

/** The agent's `{ error }` message, or the raw body. */
function agentMessage(body: string): string {
  try {
    const d = JSON.parse(body) as { error?: unknown };
    if (typeof d.error === 'string') return d.error;
  } catch {
    // not JSON
  }
  return body.trim();
}

/** How to reach one agent through the API server. */
export interface NodeAgentOptions {
  /** Node whose agent to ask. */
  node: string;
  /** Port of the agent API; else the AntreaAgentInfo's `apiPort`, else {@link DEFAULT_AGENT_API_PORT}. */
  port?: number;
}

/**
 * Reach the agent of a node as on a real cluster: its API port from the node's AntreaAgentInfo
 * (`apiPort`), then `GET /api/v1/nodes/https:<node>:<port>/proxy/<path>`. Errors of the API server
 * (no such node, no RBAC on `nodes/proxy`, agent unreachable) are told apart from the agent's own
 * answers (its `{ error }` bodies), which read as with the unix socket.
 */
export function connectAgentThroughNode(kube: KubeHttp, o: NodeAgentOptions): AgentApi {
  let port: Promise<number> | undefined;
  const apiPort = async (): Promise<number> => {
    if (o.port !== undefined) return o.port;
    const path = `${AGENT_INFO_PATH}/${encodeURIComponent(o.node)}`;
    const r = await kube.request(path);
    if (r.status === 200) {
      const p = decodeJson<{ apiPort?: unknown }>(r, path).apiPort;
      return typeof p === 'number' && Number.isInteger(p) && p > 0 ? p : DEFAULT_AGENT_API_PORT;
    }
    // No AntreaAgentInfo (agent not started yet, or the CRD is absent): try the default port; a
    // missing node is reported by the proxy request itself.
    if (r.status === 404) return DEFAULT_AGENT_API_PORT;
    throw kubeError(r.status, r.body, path, (msg) => `the API server could not read AntreaAgentInfo ${o.node}: ${msg}`);
  };
  return {
    async get<T>(path: string, query: Record<string, string | undefined> = {}): Promise<T> {
      port ??= apiPort();
      const p = await port;
      // The agent API is HTTPS (a self-signed certificate, which the node proxy does not verify).
      const proxied = `/api/v1/nodes/https:${encodeURIComponent(o.node)}:${p}/proxy${path}`;
      const r: KubeResponse = await kube.request(proxied, query);
      if (r.status === 200) return decodeJson<T>(r, path, 'the agent');
      // A Status body is the API server speaking (node unknown, forbidden, agent unreachable).
      if (parseStatus(r.body) !== undefined || r.status === 401 || r.status === 403) {
        throw kubeError(r.status, r.body, proxied, (msg) => `cannot reach the agent of node "${o.node}" on port ${p} through the API server node proxy: ${msg}`);
      }
      const msg = agentMessage(r.body);
      if (r.status === 404) throw new CliError('NOT_FOUND', `Error from agent (NotFound): ${msg}`, r.status, path);
      throw new CliError('SERVER', `Error from agent (${r.status}): ${msg}`, r.status, path);
    },
  };
}
