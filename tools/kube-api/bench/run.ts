// Benchmark: request throughput and watch delivery over HTTP. No kube-apiserver exists on these
// machines, so the reference in the same run is a bare node:http server answering a fixed JSON
// body through the same client: the ratio shows what the API semantics cost on top of HTTP.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startKubeApi } from '../src/index';

interface Row {
  case: string;
  ops: number;
  ms: number;
  perSecond: number;
  vsBareHttp?: string;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

function request(url: string, token: string, method = 'GET', body?: unknown, contentType = 'application/json'): Promise<string> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(url, { method, agent, headers: { authorization: `Bearer ${token}`, 'content-type': contentType } }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve(text));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

async function time(rows: Row[], name: string, ops: number, fn: (i: number) => Promise<unknown>, concurrency = 16): Promise<Row> {
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < ops) await fn(next++);
    }),
  );
  const ms = performance.now() - t0;
  const row = { case: name, ops, ms: Math.round(ms), perSecond: Math.round((ops / ms) * 1000) };
  rows.push(row);
  return row;
}

async function main(): Promise<void> {
  const rows: Row[] = [];
  const bare = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"x"}}');
  });
  await new Promise<void>((r) => bare.listen(0, '127.0.0.1', () => r()));
  const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/`;
  const reference = await time(rows, 'reference: bare node:http GET', 4000, () => request(bareUrl, 'x'));

  const server = await startKubeApi({ tls: false });
  const t = server.adminToken;
  const base = `${server.url}/api/v1/namespaces/default/configmaps`;
  const n = 4000;
  const rel = (r: Row): void => {
    r.vsBareHttp = `${(r.perSecond / reference.perSecond).toFixed(2)}x`;
  };
  rel(await time(rows, 'create configmap', n, (i) => request(base, t, 'POST', { metadata: { name: `cm-${i}`, labels: { i: String(i % 10) } }, data: { k: 'v' } })));
  rel(await time(rows, 'get configmap', n, (i) => request(`${base}/cm-${i}`, t)));
  rel(await time(rows, 'merge-patch configmap', n, (i) => request(`${base}/cm-${i}`, t, 'PATCH', { data: { k: String(i) } }, 'application/merge-patch+json')));
  await time(rows, `list ${n} configmaps`, 40, () => request(base, t), 1);
  await time(rows, 'list with labelSelector (1/10)', 200, () => request(`${base}?labelSelector=i%3D3`, t), 4);

  // Watch delivery: 20 watchers, 500 writes; time until every watcher saw every event.
  const watchers = 20;
  const writes = 500;
  const rv = (JSON.parse(await request(`${base}?limit=1`, t)) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
  const done = Array.from(
    { length: watchers },
    () =>
      new Promise<void>((resolve, reject) => {
        const req = http.get(`${base}?watch=true&resourceVersion=${rv}`, { headers: { authorization: `Bearer ${t}` } }, (res) => {
          let seen = 0;
          res.on('data', (d: Buffer) => {
            seen += (d.toString().match(/\n/g) ?? []).length;
            if (seen >= writes) {
              req.destroy();
              resolve();
            }
          });
        });
        req.on('error', (e) => (e.message === 'socket hang up' ? resolve() : reject(e)));
      }),
  );
  await new Promise((r) => setTimeout(r, 200));
  const t0 = performance.now();
  for (let i = 0; i < writes; i++) await request(`${base}/cm-${i}`, t, 'PATCH', { data: { w: String(i) } }, 'application/merge-patch+json');
  await Promise.all(done);
  const ms = performance.now() - t0;
  rows.push({ case: `watch fan-out (${watchers} watchers x ${writes} writes)`, ops: watchers * writes, ms: Math.round(ms), perSecond: Math.round(((watchers * writes) / ms) * 1000) });
  await server.stop();
  bare.close();
  agent.destroy();

  console.table(rows);
  writeFileSync(
    join(dirname(fileURLToPath(import.meta.url)), 'results.json'),
    `${JSON.stringify({ node: process.version, date: new Date().toISOString(), reference: 'bare node:http server, same client (no kube-apiserver available)', rows }, null, 2)}\n`,
  );
}

void main();
