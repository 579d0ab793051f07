// Benchmark (not run in CI): the policy-compiler's first scale scenario (25k namespaces, 100k pods,
// 75k NetworkPolicies, 1,000 nodes) served over TLS to 1,000 in-process watch clients.
// Measures initial sync of all watchers, bytes per node, RSS, and pod-label-change latency
// (apply -> frame decoded by every affected watcher; 500 changes, each a real one, after 50
// warm-up). `BENCH_SCALE=0.1 npm run bench` scales it down.
import { writeFileSync } from 'node:fs';
import https from 'node:https';
import type { ClusterObject } from '@switchyard/policy-compiler';
import type { RequestAuth } from '@switchyard/kube';
import { ControlplaneHub } from '../src/hub';
import { createPki } from '../src/pki';
import { ControlplaneServer } from '../src/server';
import { ControlplaneWatchClient } from '../test-utils/watch-client';

const scale = Number(process.env.BENCH_SCALE ?? '1');
const NS = Math.round(25_000 * scale);
const NODES = Math.max(2, Math.round(1000 * Math.min(1, scale * 4)));
const ip = (i: number): string => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
const ns = (name: string): ClusterObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'kubernetes.io/metadata.name': name } } }) as ClusterObject;
const pod = (n: string, name: string, labels: Record<string, string>, node: string, addr: string): ClusterObject =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: n, labels }, spec: { nodeName: node, containers: [{ name: 'c' }] }, status: { podIP: addr, podIPs: [{ ip: addr }] } }) as ClusterObject;
const np = (n: string, name: string, sel: Record<string, string>, from: Record<string, string> | undefined): ClusterObject =>
  ({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name, namespace: n, uid: `${n}/${name}` }, spec: { podSelector: { matchLabels: sel }, policyTypes: ['Ingress'], ingress: from ? [{ from: [{ podSelector: { matchLabels: from } }] }] : [] } }) as ClusterObject;

const mb = (n: number): number => Math.round(n / 1e6);
const pct = (xs: number[], p: number): number => xs[Math.min(xs.length - 1, Math.floor(xs.length * p))] as number;

const auth: RequestAuth = {
  authenticate: async (req) => {
    const m = /^Bearer node:(.+)$/.exec(req.headers.authorization ?? '');
    return m ? { username: `system:node:${m[1]}`, groups: ['system:nodes'] } : undefined;
  },
  authorize: async () => true,
};

async function main(): Promise<void> {
  const rss0 = process.memoryUsage().rss;
  const hub = new ControlplaneHub({ bookmarkIntervalMs: 0 });
  const t0 = performance.now();
  let k = 0;
  for (let i = 0; i < NS; i++) {
    const n = `ns-${i}`;
    hub.apply({ type: 'ADDED', object: ns(n) });
    for (let j = 0; j < 4; j++, k++) hub.apply({ type: 'ADDED', object: pod(n, `p${j}`, { app: `a${j % 2}`, tier: `t${j}` }, `node-${k % NODES}`, ip(k)) });
    hub.apply({ type: 'ADDED', object: np(n, 'np0', { app: 'a0' }, { app: 'a1' }) });
    hub.apply({ type: 'ADDED', object: np(n, 'np1', { app: 'a1' }, { tier: 't0' }) });
    hub.apply({ type: 'ADDED', object: np(n, 'np2', { tier: 't3' }, undefined) });
  }
  hub.markSynced();
  const loadMs = performance.now() - t0;
  global.gc?.();
  const rssLoaded = process.memoryUsage().rss;
  console.log(`loaded ${NS} ns, ${k} pods, ${NS * 3} NPs on ${NODES} nodes in ${Math.round(loadMs)} ms, RSS ${mb(rssLoaded)} MB`);

  const pki = await createPki(['127.0.0.1']);
  const logger = { debug: () => undefined, info: () => undefined, warn: (o: unknown, m?: string) => console.error('WARN', m, o), error: (o: unknown, m?: string) => console.error('ERROR', m, o) };
  const server = new ControlplaneServer({ hub, auth, tls: { certPem: pki.certPem, keyPem: pki.keyPem }, host: '127.0.0.1', port: 0, maxWatcherBufferBytes: 64 << 20, logger });
  const port = await server.listen();
  const agent = new https.Agent({ keepAlive: false, maxSockets: Infinity, ca: pki.caPem });
  const clients = Array.from({ length: NODES }, (_, i) => new ControlplaneWatchClient({ url: `https://127.0.0.1:${port}`, caPem: pki.caPem, nodeName: `node-${i}`, token: `node:node-${i}`, agent }));
  const t1 = performance.now();
  // Connect in batches of 100 (as agents would not all arrive in the same millisecond either).
  for (let i = 0; i < clients.length; i += 100) await Promise.all(clients.slice(i, i + 100).map((c) => c.connect()));
  await Promise.all(clients.map((c) => c.waitFor(() => c.synced, 600000, 'sync')));
  const syncMs = performance.now() - t1;
  const bytes = clients.map((c) => c.bytesReceived).sort((a, b) => a - b);
  const policiesPerNode = clients.map((c) => c.policies.size).sort((a, b) => a - b);
  global.gc?.();
  const rssServing = process.memoryUsage().rss;
  console.log(`initial sync of ${NODES} watchers: ${Math.round(syncMs)} ms; bytes/node p50 ${pct(bytes, 0.5)} max ${bytes.at(-1)}; RSS ${mb(rssServing)} MB`);

  // Pod label change: p0 of a namespace flips between app=a0 (applied-to of np0) and app=a1 (a peer
  // of np0, applied-to of np1), so every change moves it between groups. Namespaces are visited
  // from the last one down, round robin at small scales; each visit flips the labels the pod has
  // now, so no sample re-applies labels it already has.
  const byNode = new Map(clients.map((c) => [c.o.nodeName, c] as const));
  const app = new Map<number, string>(); // namespace index -> current app label of its p0
  const lat: number[] = [];
  let noops = 0;
  const N = 500;
  const WARMUP = 50;
  for (let i = 0; i < N + WARMUP; i++) {
    const nsIndex = NS - 1 - (i % NS);
    const n = `ns-${nsIndex}`;
    const kk = nsIndex * 4;
    const next = (app.get(nsIndex) ?? 'a0') === 'a0' ? 'a1' : 'a0';
    app.set(nsIndex, next);
    const start = performance.now();
    const before = hub.resourceVersion;
    const delta = hub.apply({ type: 'MODIFIED', object: pod(n, 'p0', { app: next, tier: 't0' }, `node-${kk % NODES}`, ip(kk)) });
    const rv = hub.resourceVersion;
    if (rv === before) {
      noops++; // not a change: nothing to measure (the flip above should never get here)
      continue;
    }
    const affected = [...delta.nodes.keys()].map((x) => byNode.get(x)).filter((c): c is ControlplaneWatchClient => c !== undefined);
    await Promise.all(affected.map((c) => c.waitFor(() => c.resourceVersion === rv, 10000, 'event')));
    if (i >= WARMUP) lat.push(performance.now() - start);
  }
  lat.sort((a, b) => a - b);
  const rssEnd = process.memoryUsage().rss;
  console.log(`label change -> all affected watchers: ${lat.length} changes measured (${noops} no-ops skipped): p50 ${pct(lat, 0.5).toFixed(2)} ms, p99 ${pct(lat, 0.99).toFixed(2)} ms`);
  for (const c of clients) c.close();
  await server.close();

  const results = {
    scenario: `${NS} namespaces, ${k} pods, ${NS * 3} NetworkPolicies, ${NODES} nodes, ${NODES} TLS watchers in-process`,
    scale,
    node: process.version,
    loadMs: Math.round(loadMs),
    initialSyncAllWatchersMs: Math.round(syncMs),
    bytesPerNode: { p50: pct(bytes, 0.5), max: bytes.at(-1) },
    policiesPerNode: { p50: pct(policiesPerNode, 0.5), max: policiesPerNode.at(-1) },
    rssMB: { start: mb(rss0), loaded: mb(rssLoaded), serving: mb(rssServing), end: mb(rssEnd) },
    labelChangeLatencyMs: { p50: +pct(lat, 0.5).toFixed(2), p99: +pct(lat, 0.99).toFixed(2), samples: lat.length, noopsSkipped: noops },
    targets: { latencyP99Ms: 50, rssMB: 1500 },
  };
  const rows = [
    ['initial load into compiler', `${results.loadMs} ms`, '-'],
    [`initial sync, ${NODES} watchers`, `${results.initialSyncAllWatchersMs} ms`, '-'],
    ['bytes per node (p50 / max)', `${results.bytesPerNode.p50} / ${results.bytesPerNode.max}`, '-'],
    ['RSS loaded / serving (incl. clients)', `${results.rssMB.loaded} / ${results.rssMB.serving} MB`, '< 1500 MB'],
    [`label change latency p50 / p99 (${lat.length} changes)`, `${results.labelChangeLatencyMs.p50} / ${results.labelChangeLatencyMs.p99} ms`, 'p99 < 50 ms'],
  ];
  console.log(`\n| measure | value | target |\n|---|---|---|\n${rows.map((r) => `| ${r.join(' | ')} |`).join('\n')}`);
  writeFileSync(new URL('./results.json', import.meta.url), `${JSON.stringify(results, null, 2)}\n`);
  process.exit(0);
}

void main();
