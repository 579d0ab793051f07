// The agent's local API (HTTP/JSON on a unix socket, served by switchyard-agent --api-socket).
// yardctl never talks to OVS itself: flows and interfaces come from the agent.
import { request } from 'node:http';
import { CliError } from './errors';

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
