// The controller's read API, reached through the Kubernetes API server (APIService aggregation).
import http from 'node:http';
import https from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import { CliError } from './errors';

/** APIService group/version the controller serves its read API under. */
export const READ_API_BASE = '/apis/controlplane.switchyard.io/v1beta2';

/** GET against the controller's read API. */
export interface ReadApi {
  /** `path` is relative to {@link READ_API_BASE}. */
  get<T>(path: string, query?: Record<string, string | undefined>): Promise<T>;
}

/** How to reach the API server. */
export interface ConnectOptions {
  /** Kubeconfig file (`-k`); else KUBECONFIG / ~/.kube/config / in-cluster. */
  kubeconfig?: string;
  /** API server URL that replaces the kubeconfig's (`-s`). */
  server?: string;
  /** Per-request time limit in ms; 0 = none. */
  timeoutMs: number;
  /** Called with one line per request when `-v` is given. */
  trace?: (line: string) => void;
}

function loadKubeConfig(o: ConnectOptions): KubeConfig {
  const kc = new KubeConfig();
  try {
    if (o.kubeconfig !== undefined) kc.loadFromFile(o.kubeconfig);
    else kc.loadFromDefault();
  } catch (e) {
    throw new CliError('CONFIG', `invalid kubeconfig ${o.kubeconfig ?? process.env.KUBECONFIG ?? '(default)'}: ${(e as Error).message}`, o.kubeconfig, '--kubeconfig');
  }
  if (!kc.getCurrentCluster() && o.server === undefined) {
    throw new CliError('CONFIG', `kubeconfig ${o.kubeconfig ?? process.env.KUBECONFIG ?? '(default)'} has no current cluster; pass --kubeconfig or --server`, o.kubeconfig, '--kubeconfig');
  }
  return kc;
}

function serverUrl(kc: KubeConfig, o: ConnectOptions): URL {
  const raw = o.server ?? kc.getCurrentCluster()?.server ?? '';
  try {
    return new URL(/^[a-z]+:\/\//i.test(raw) ? raw : `https://${raw}`);
  } catch {
    throw new CliError('CONFIG', `invalid server address "${raw}"`, raw, o.server !== undefined ? '--server' : 'kubeconfig cluster.server');
  }
}

/** Kubernetes `Status` message of an error body, or the raw body. */
function statusMessage(body: string): string {
  try {
    const s = JSON.parse(body) as { message?: string };
    if (typeof s.message === 'string') return s.message;
  } catch {
    // not JSON: the raw text is the message
  }
  return body.trim();
}

/**
 * Connect to the read API with a kubeconfig (client certificates, bearer tokens and CA handled by
 * @kubernetes/client-node). Only configuration errors are thrown here; network errors surface on
 * the first request.
 */
export function connectReadApi(o: ConnectOptions): ReadApi {
  const kc = loadKubeConfig(o);
  const base = serverUrl(kc, o);
  return {
    async get<T>(path: string, query: Record<string, string | undefined> = {}): Promise<T> {
      const url = new URL(base.toString());
      url.pathname = `${base.pathname.replace(/\/$/, '')}${READ_API_BASE}/${path}`;
      for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, v);
      const opts: https.RequestOptions = { method: 'GET', headers: { accept: 'application/json' } };
      try {
        await kc.applyToHTTPSOptions(opts);
      } catch (e) {
        throw new CliError('CONFIG', `kubeconfig credentials: ${(e as Error).message}`, o.kubeconfig, '--kubeconfig');
      }
      const started = Date.now();
      const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const mod = url.protocol === 'http:' ? http : https;
        const req = mod.request(url, opts, (res) => {
          let data = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (data += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data }));
          res.on('error', reject);
        });
        if (o.timeoutMs > 0) {
          req.setTimeout(o.timeoutMs, () => req.destroy(new CliError('TIMEOUT', `request to ${url.origin} timed out after ${o.timeoutMs / 1000}s`, o.timeoutMs, '--timeout')));
        }
        req.on('error', (e: NodeJS.ErrnoException) => {
          if (e instanceof CliError) return reject(e);
          reject(new CliError('UNREACHABLE', `unable to connect to the server at ${url.origin}: ${e.message}`, url.origin, o.server !== undefined ? '--server' : 'kubeconfig cluster.server'));
        });
        req.end();
      });
      o.trace?.(`GET ${url.toString()} ${status} in ${Date.now() - started} ms`);
      if (status >= 200 && status < 300) {
        try {
          return JSON.parse(body) as T;
        } catch {
          throw new CliError('SERVER', `the server answered ${url.pathname} with something that is not JSON`, body.slice(0, 200), url.pathname);
        }
      }
      const msg = statusMessage(body);
      if (status === 401) throw new CliError('UNAUTHORIZED', `error: You must be logged in to the server (Unauthorized): ${msg}`, status, url.pathname);
      if (status === 403) throw new CliError('FORBIDDEN', `Error from server (Forbidden): ${msg}`, status, url.pathname);
      if (status === 404) throw new CliError('NOT_FOUND', `Error from server (NotFound): ${msg}`, status, url.pathname);
      if (status === 502 || status === 503) {
        throw new CliError('UNREACHABLE', `the controller is unreachable through the API server (APIService v1beta2.controlplane.switchyard.io): ${msg}`, status, url.pathname);
      }
      throw new CliError('SERVER', `Error from server (${status}): ${msg}`, status, url.pathname);
    },
  };
}
