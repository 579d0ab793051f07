// A small JSON REST client for the Kubernetes API over any KubeConfig-shaped source (such as
// @kubernetes/client-node's KubeConfig, which resolves kubeconfig files, in-cluster config, CA,
// client certs and tokens).
import http from 'node:http';
import https from 'node:https';
import { KubeRequestError } from './errors';

/**
 * What {@link KubeConfigClient} needs from a cluster configuration: the API server's URL and a way
 * to put the credentials (CA, client certificate, token) on HTTPS request options.
 *
 * `KubeConfig` of `@kubernetes/client-node` has exactly this shape, so pass one as it is. The type
 * is declared here instead of imported so that this package does not depend on client-node (57 MB
 * installed, whose types need `@types/ws` under `skipLibCheck: false`) just for a type.
 */
export interface KubeConfigSource {
  /** The cluster of the current context, or null when there is none. */
  getCurrentCluster(): { readonly server: string } | null;
  /** Adds CA, client certificate/key and authorization to `opts` (may refresh a token). */
  applyToHTTPSOptions(opts: https.RequestOptions): Promise<void>;
}

/** One line-delimited JSON watch stream. */
export interface WatchStream {
  /** Parsed watch events, in order; ends when the server closes the stream. */
  events: AsyncIterable<{ type: string; object: Record<string, unknown> }>;
  /** Close the stream. */
  abort(): void;
}

/** The Kubernetes calls the controller makes. A fake can implement this in unit tests. */
export interface KubeClient {
  /** JSON request; resolves with the parsed body, rejects with {@link KubeRequestError} on status >= 400. */
  request<T = Record<string, unknown>>(method: string, path: string, body?: unknown, contentType?: string): Promise<T>;
  /** Open a watch (`path` must include `watch=1` and query parameters). Rejects on a non-200 answer. */
  watch(path: string): Promise<WatchStream>;
}

/**
 * {@link KubeClient} backed by a {@link KubeConfigSource}, e.g. a client-node `KubeConfig`.
 *
 * Connections are kept alive and reused. client-node's `applyToHTTPSOptions` puts a new
 * `https.Agent` on every request's options, so each request opened its own TLS connection and
 * parsed the CA again (in the lab's conformance suite a third of the test process's CPU, and as much
 * again in the API server and the controller): a plain `http.Agent`/`https.Agent` it sets is
 * replaced by this client's keep-alive agent. Node's agent keeps one pool per TLS identity (CA,
 * client certificate, key, server name are part of the pool's key), so rotated credentials get new
 * connections. An agent of another kind (a proxy agent) is kept as it is.
 */
export class KubeConfigClient implements KubeClient {
  private readonly server: URL;
  // `timeout` makes Node's agent honour a server's `Keep-Alive: timeout=N` (an idle connection is
  // closed a second before the server would close it; Node ignores the hint without a timeout of
  // its own) and closes other idle connections after 30 s. It applies to idle connections only.
  private readonly agents = { http: new http.Agent({ keepAlive: true, timeout: 30_000 }), https: new https.Agent({ keepAlive: true, timeout: 30_000 }) };

  constructor(private readonly kc: KubeConfigSource) {
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new KubeRequestError('GET', '', 0, 'kubeconfig has no current cluster');
    this.server = new URL(cluster.server);
  }

  private async options(method: string, path: string, headers: Record<string, string>): Promise<https.RequestOptions> {
    const base = this.server.pathname.replace(/\/$/, '');
    const opts: https.RequestOptions = {
      method,
      protocol: this.server.protocol,
      hostname: this.server.hostname.replace(/^\[|\]$/g, ''),
      port: this.server.port,
      path: base + path,
      headers: { accept: 'application/json', ...headers },
    };
    await this.kc.applyToHTTPSOptions(opts);
    const agent = opts.agent;
    if (agent === undefined || agent === null || (agent as object).constructor === https.Agent || (agent as object).constructor === http.Agent) {
      opts.agent = opts.protocol === 'http:' ? this.agents.http : this.agents.https;
    }
    return opts;
  }

  /** Closes every connection of this client, open watches and requests in flight included (it stays usable: a later request connects again). */
  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  private send(opts: https.RequestOptions, body?: string, again = false): Promise<http.IncomingMessage> {
    const mod = opts.protocol === 'http:' ? http : https;
    return new Promise((resolve, reject) => {
      let responded = false;
      const req = mod.request(opts, (res) => {
        responded = true;
        resolve(res);
      });
      req.on('error', (e: NodeJS.ErrnoException) => {
        // A kept-alive connection the server closed as this request went out (a reset, or a write
        // into the closed connection): the request never reached it; sent once more, on a new
        // connection. A request whose response had begun is not sent again.
        if (!again && req.reusedSocket && (e.code === 'ECONNRESET' || e.code === 'EPIPE') && !responded) resolve(this.send(opts, body, true));
        else reject(e);
      });
      req.end(body);
    });
  }

  async request<T>(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<T> {
    const text = body === undefined ? undefined : JSON.stringify(body);
    // An explicit length: Node sends no chunked encoding for DELETE, so a DeleteOptions body needs it.
    const headers: Record<string, string> = text === undefined ? {} : { 'content-type': contentType, 'content-length': String(Buffer.byteLength(text)) };
    const res = await this.send(await this.options(method, path, headers), text);
    const chunks: Buffer[] = [];
    for await (const c of res) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let parsed: unknown = raw;
    try {
      parsed = raw === '' ? {} : JSON.parse(raw);
    } catch {
      // keep the raw text for the error
    }
    if ((res.statusCode ?? 0) >= 400) throw new KubeRequestError(method, path, res.statusCode ?? 0, parsed);
    return parsed as T;
  }

  async watch(path: string): Promise<WatchStream> {
    const opts = await this.options('GET', path, {});
    const res = await this.send(opts);
    if (res.statusCode !== 200) {
      const chunks: Buffer[] = [];
      for await (const c of res) chunks.push(c as Buffer);
      let body: unknown = Buffer.concat(chunks).toString('utf8');
      try {
        body = JSON.parse(body as string);
      } catch {
        // raw
      }
      throw new KubeRequestError('GET', path, res.statusCode ?? 0, body);
    }
    async function* lines(): AsyncGenerator<{ type: string; object: Record<string, unknown> }> {
      let pending = '';
      try {
        for await (const chunk of res) {
          pending += (chunk as Buffer).toString('utf8');
          let nl: number;
          while ((nl = pending.indexOf('\n')) >= 0) {
            const line = pending.slice(0, nl).trim();
            pending = pending.slice(nl + 1);
            if (line !== '') yield JSON.parse(line) as { type: string; object: Record<string, unknown> };
          }
        }
      } catch (e) {
        // A destroyed response (abort) ends the stream quietly.
        if ((e as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE' && !res.destroyed) throw e;
      }
    }
    return { events: lines(), abort: () => res.destroy() };
  }
}

/** Path of a collection: `/api/v1/pods`, `/apis/crd.antrea.io/v1beta1/namespaces/x/tiers`. */
export function collectionPath(group: string, version: string, plural: string, namespace?: string): string {
  const gv = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
  return namespace ? `${gv}/namespaces/${namespace}/${plural}` : `${gv}/${plural}`;
}
