// The Kubernetes API server as yardctl reaches it: one authenticated GET helper (kubeconfig through
// @kubernetes/client-node), and over it the controller's read API (APIService aggregation).
import http from 'node:http';
import https from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeConfigClient, KubeRequestError, type KubeClient } from '@switchyard/kube';
import { CliError } from './errors';

/** APIService group/version the controller serves its read API under. */
export const READ_API_BASE = '/apis/controlplane.switchyard.io/v1beta2';

/** GET against the controller's read API. */
export interface ReadApi {
  /** `path` is relative to {@link READ_API_BASE}. */
  get<T>(path: string, query?: Record<string, string | undefined>): Promise<T>;
}

/** A raw answer of the API server (or of what it proxies to). */
export interface KubeResponse {
  status: number;
  body: string;
  contentType: string;
}

/** Authenticated GETs against the API server. */
export interface KubeHttp {
  /** Scheme, host and port of the server (for messages). */
  readonly origin: string;
  /**
   * GET an absolute API path (`/api/v1/...`, `/apis/...`) with the defined query parameters.
   * Resolves with any HTTP status; rejects only when no answer came (UNREACHABLE, TIMEOUT).
   */
  request(path: string, query?: Record<string, string | undefined>): Promise<KubeResponse>;
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

/** The kubeconfig of the global flags (`-k`, else KUBECONFIG / ~/.kube/config / in-cluster); `-s` is applied by the callers. */
export function loadKubeConfig(o: ConnectOptions): KubeConfig {
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

/** A Kubernetes `Status` body, if that is what `body` is. */
export function parseStatus(body: string): { message: string; reason?: string; code?: number } | undefined {
  try {
    const s = JSON.parse(body) as { kind?: unknown; message?: unknown; reason?: unknown; code?: unknown };
    if (s.kind === 'Status' && typeof s.message === 'string') {
      return { message: s.message, ...(typeof s.reason === 'string' ? { reason: s.reason } : {}), ...(typeof s.code === 'number' ? { code: s.code } : {}) };
    }
  } catch {
    // not JSON
  }
  return undefined;
}

/** Kubernetes `Status` message of an error body, or the raw body. */
function statusMessage(body: string): string {
  const s = parseStatus(body);
  if (s) return s.message;
  try {
    const j = JSON.parse(body) as { message?: unknown };
    if (typeof j.message === 'string') return j.message;
  } catch {
    // not JSON: the raw text is the message
  }
  return body.trim();
}

/**
 * The error kubectl would print for a non-2xx answer of the API server. `unavailable` words the
 * 502/503 case, whose meaning depends on what was behind the server (an APIService, a node proxy).
 */
export function kubeError(status: number, body: string, path: string, unavailable: (msg: string) => string): CliError {
  const msg = statusMessage(body);
  if (status === 401) return new CliError('UNAUTHORIZED', `error: You must be logged in to the server (Unauthorized): ${msg}`, status, path);
  if (status === 403) return new CliError('FORBIDDEN', `Error from server (Forbidden): ${msg}`, status, path);
  if (status === 404) return new CliError('NOT_FOUND', `Error from server (NotFound): ${msg}`, status, path);
  if (status === 502 || status === 503) return new CliError('UNREACHABLE', unavailable(msg), status, path);
  return new CliError('SERVER', `Error from server (${status}): ${msg}`, status, path);
}

/** Decode a 2xx JSON body, or fail naming the path. */
export function decodeJson<T>(r: KubeResponse, path: string, who = 'the server'): T {
  try {
    return JSON.parse(r.body) as T;
  } catch {
    throw new CliError('SERVER', `${who} answered ${path} with something that is not JSON`, r.body.slice(0, 200), path);
  }
}

/**
 * Connect to the API server with a kubeconfig (client certificates, bearer tokens and CA handled
 * by @kubernetes/client-node). Only configuration errors are thrown here; network errors surface
 * on the first request.
 */
export function connectKube(o: ConnectOptions): KubeHttp {
  const kc = loadKubeConfig(o);
  const base = serverUrl(kc, o);
  return {
    origin: base.origin,
    async request(path: string, query: Record<string, string | undefined> = {}): Promise<KubeResponse> {
      const url = new URL(base.toString());
      url.pathname = `${base.pathname.replace(/\/$/, '')}${path}`;
      for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, v);
      const opts: https.RequestOptions = { method: 'GET', headers: { accept: 'application/json' } };
      try {
        await kc.applyToHTTPSOptions(opts);
      } catch (e) {
        throw new CliError('CONFIG', `kubeconfig credentials: ${(e as Error).message}`, o.kubeconfig, '--kubeconfig');
      }
      const started = Date.now();
      const r = await new Promise<KubeResponse>((resolve, reject) => {
        const mod = url.protocol === 'http:' ? http : https;
        const req = mod.request(url, opts, (res) => {
          let data = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (data += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data, contentType: res.headers['content-type'] ?? '' }));
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
      o.trace?.(`GET ${url.toString()} ${r.status} in ${Date.now() - started} ms`);
      return r;
    },
  };
}

/** The controller's read API over an API server connection. */
export function readApiOver(kube: KubeHttp): ReadApi {
  return {
    async get<T>(path: string, query: Record<string, string | undefined> = {}): Promise<T> {
      const full = `${READ_API_BASE}/${path}`;
      const r = await kube.request(full, query);
      if (r.status >= 200 && r.status < 300) return decodeJson<T>(r, full);
      throw kubeError(r.status, r.body, full, (msg) => `the controller is unreachable through the API server (APIService v1beta2.controlplane.switchyard.io): ${msg}`);
    },
  };
}

/** Connect to the controller's read API through the API server (see {@link connectKube}). */
export function connectReadApi(o: ConnectOptions): ReadApi {
  return readApiOver(connectKube(o));
}

/** A read-write client of the API server (the multi-cluster commands create and delete objects). */
export interface KubeWriter {
  /** Scheme, host and port of the server: a join config's `leaderAPIServer`. */
  readonly server: string;
  /** JSON request; resolves with the body, rejects with a {@link CliError} worded as kubectl would. */
  request<T = Record<string, unknown>>(method: string, path: string, body?: unknown, contentType?: string): Promise<T>;
}

/** Connect a {@link KubeWriter} with a kubeconfig (and `-s`), over `@switchyard/kube`'s client. */
export function connectKubeWriter(o: ConnectOptions): KubeWriter {
  const kc = loadKubeConfig(o);
  const base = serverUrl(kc, o);
  const server = base.toString().replace(/\/$/, '');
  const client: KubeClient = new KubeConfigClient({ getCurrentCluster: () => ({ server }), applyToHTTPSOptions: (opts) => kc.applyToHTTPSOptions(opts) });
  return {
    server,
    async request<T>(method: string, path: string, body?: unknown, contentType?: string): Promise<T> {
      const started = Date.now();
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        if (o.timeoutMs > 0) timer = setTimeout(() => reject(new CliError('TIMEOUT', `request to ${base.origin} timed out after ${o.timeoutMs / 1000}s`, o.timeoutMs, '--timeout')), o.timeoutMs);
      });
      try {
        const r = await Promise.race([client.request<T>(method, path, body, contentType), timeout]);
        o.trace?.(`${method} ${server}${path} OK in ${Date.now() - started} ms`);
        return r;
      } catch (e) {
        if (e instanceof CliError) throw e;
        if (e instanceof KubeRequestError) {
          o.trace?.(`${method} ${server}${path} ${e.status} in ${Date.now() - started} ms`);
          throw kubeError(e.status, typeof e.body === 'string' ? e.body : JSON.stringify(e.body), path, (msg) => `Error from server (ServiceUnavailable): ${msg}`);
        }
        throw new CliError('UNREACHABLE', `unable to connect to the server at ${base.origin}: ${(e as Error).message}`, base.origin, o.server !== undefined ? '--server' : 'kubeconfig cluster.server');
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
