// Test helpers: a plain-HTTP server instance and a tiny JSON client over fetch.

import { startKubeApi, type KubeApiOptions, type KubeApiServer } from '../../src/index';

export interface Reply<T = Record<string, unknown>> {
  status: number;
  body: T;
  headers: Headers;
}

export class TestClient {
  constructor(
    readonly server: KubeApiServer,
    readonly token: string = server.adminToken,
  ) {}

  async req<T = Record<string, unknown>>(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<Reply<T>> {
    const init: RequestInit = { method, headers: { authorization: `Bearer ${this.token}`, 'content-type': contentType, accept: 'application/json' } };
    if (body !== undefined) init.body = typeof body === 'string' ? body : JSON.stringify(body);
    const r = await fetch(`${this.server.url}${path}`, init);
    const text = await r.text();
    return { status: r.status, body: (text === '' ? {} : JSON.parse(text)) as T, headers: r.headers };
  }

  get<T = Record<string, unknown>>(path: string): Promise<Reply<T>> {
    return this.req<T>('GET', path);
  }
  post<T = Record<string, unknown>>(path: string, body: unknown): Promise<Reply<T>> {
    return this.req<T>('POST', path, body);
  }
  put<T = Record<string, unknown>>(path: string, body: unknown): Promise<Reply<T>> {
    return this.req<T>('PUT', path, body);
  }
  patch<T = Record<string, unknown>>(path: string, body: unknown, type = 'application/merge-patch+json'): Promise<Reply<T>> {
    return this.req<T>('PATCH', path, body, type);
  }
  delete<T = Record<string, unknown>>(path: string, body?: unknown): Promise<Reply<T>> {
    return this.req<T>('DELETE', path, body);
  }

  /** Poll `fn` until it returns a truthy value (controllers run asynchronously). */
  async eventually<T>(fn: () => Promise<T | undefined | false>, what: string, tries = 100): Promise<T> {
    for (let i = 0; i < tries; i++) {
      const v = await fn();
      if (v) return v;
      await new Promise((r) => setImmediate(r));
      if (i > 20) await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`timed out waiting for ${what}`);
  }
}

export async function startTestServer(opts: KubeApiOptions = {}): Promise<{ server: KubeApiServer; client: TestClient }> {
  const server = await startKubeApi({ tls: false, ...opts });
  return { server, client: new TestClient(server) };
}

/** Read a watch stream (newline-delimited JSON) until `count` events arrived or it ends. */
export async function readWatch(url: string, token: string, count: number, signal?: AbortSignal): Promise<{ type: string; object: Record<string, unknown> }[]> {
  const init: RequestInit = { headers: { authorization: `Bearer ${token}` } };
  const ac = new AbortController();
  if (signal) signal.addEventListener('abort', () => ac.abort());
  init.signal = ac.signal;
  const r = await fetch(url, init);
  const reader = (r.body as ReadableStream<Uint8Array>).getReader();
  const events: { type: string; object: Record<string, unknown> }[] = [];
  let buf = '';
  const dec = new TextDecoder();
  try {
    while (events.length < count) {
      const { done, value } = await reader.read();
      if (done) break;
      buf += dec.decode(value, { stream: true });
      let i: number;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        if (line.trim() !== '') events.push(JSON.parse(line) as { type: string; object: Record<string, unknown> });
      }
    }
  } finally {
    ac.abort();
  }
  return events;
}
