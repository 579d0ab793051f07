/** KubeConfigClient's connections: kept alive across requests, whatever agent the kubeconfig source puts on them. */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { KubeConfigClient, type KubeConfigSource } from '../src/index';

/** A plain-HTTP API stand-in that counts the connections it accepts; `onRequest` may answer differently. */
async function server(onRequest?: (req: http.IncomingMessage, res: http.ServerResponse, n: number) => void) {
  const sockets: Socket[] = [];
  let requests = 0;
  const srv = http.createServer((req, res) => {
    requests++;
    if (onRequest) return onRequest(req, res, requests);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ path: req.url }));
  });
  srv.on('connection', (s: Socket) => sockets.push(s));
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
  return { url, sockets, close: () => new Promise<void>((r) => { srv.closeAllConnections(); srv.close(() => r()); }) };
}

/** What client-node's KubeConfig does: a new agent of the given kind on every request's options. */
function source(url: string, agent: () => http.Agent): KubeConfigSource & { applied: number } {
  const s = {
    applied: 0,
    getCurrentCluster: () => ({ server: url }),
    applyToHTTPSOptions: async (opts: http.RequestOptions): Promise<void> => {
      s.applied++;
      opts.agent = agent();
    },
  };
  return s;
}

describe('KubeConfigClient connections', () => {
  it('reuses one connection for requests one after another, replacing the per-request agent the source sets', async () => {
    const srv = await server();
    const kc = source(srv.url, () => new http.Agent());
    const client = new KubeConfigClient(kc);
    for (let i = 0; i < 5; i++) expect(await client.request('GET', `/api/v1/pods?i=${i}`)).toEqual({ path: `/api/v1/pods?i=${i}` });
    expect(kc.applied).toBe(5);
    expect(srv.sockets).toHaveLength(1);
    client.close();
    await srv.close();
  });

  it('keeps an agent of another kind (a proxy agent) that the source sets', async () => {
    const srv = await server();
    class ProxyAgent extends http.Agent {
      used = 0;
      addRequest(...args: unknown[]): void {
        this.used++;
        (http.Agent.prototype as unknown as { addRequest(...a: unknown[]): void }).addRequest.apply(this, args);
      }
    }
    const proxy = new ProxyAgent();
    const client = new KubeConfigClient(source(srv.url, () => proxy));
    await client.request('GET', '/api/v1/namespaces');
    await client.request('GET', '/api/v1/namespaces');
    expect(proxy.used).toBe(2);
    proxy.destroy();
    client.close();
    await srv.close();
  });

  it('sends a request again on a new connection when the server closed the kept-alive one as it went out', async () => {
    // The second request arrives on the first connection, which the server then drops unanswered.
    const srv = await server((req, res, n) => {
      if (n === 2) return req.socket.destroy();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ n }));
    });
    const client = new KubeConfigClient(source(srv.url, () => new http.Agent()));
    expect(await client.request('GET', '/a')).toEqual({ n: 1 });
    expect(await client.request('GET', '/b')).toEqual({ n: 3 });
    expect(srv.sockets).toHaveLength(2);
    client.close();
    await srv.close();
  });

  it('fails a request whose fresh connection is dropped, without sending it again', async () => {
    const srv = await server((req) => req.socket.destroy());
    const client = new KubeConfigClient(source(srv.url, () => new http.Agent()));
    await expect(client.request('POST', '/api/v1/namespaces', { kind: 'Namespace' })).rejects.toThrow(/socket hang up|ECONNRESET/);
    expect(srv.sockets).toHaveLength(1);
    client.close();
    await srv.close();
  });
});
