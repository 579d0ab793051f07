// Benchmark (not run in CI): the policy-compiler's first scale scenario (25k namespaces, 100k pods,
// 75k NetworkPolicies, 1,000 nodes) served over TLS to 1,000 watch clients. The clients run in
// BENCH_WORKERS worker processes (default 4, as that many agents' processes would; BENCH_WORKERS=0
// runs them in this process, as earlier versions did), so the RSS and CPU measured are the
// controller's own. Measures initial sync of all watchers, bytes per node, RSS, CPU, and
// pod-label-change latency (apply -> frame decoded by every affected watcher, reported back over
// IPC; 500 changes, each a real one, after 50 warm-up). `BENCH_SCALE=0.1 npm run bench` scales it down.
import { fork, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import https from 'node:https';
import { Session } from 'node:inspector/promises';
import type { ClusterObject } from '@switchyard/policy-compiler';
import type { RequestAuth } from '@switchyard/kube';
import { ControlplaneHub } from '../src/hub';
import { createPki } from '../src/pki';
import { ControlplaneServer } from '../src/server';
import { ControlplaneClient } from '@switchyard/controlplane-client';

const scale = Number(process.env.BENCH_SCALE ?? '1');
const WORKERS = Number(process.env.BENCH_WORKERS ?? '4');
const NS = Math.round(25_000 * scale);
const NODES = Math.max(2, Math.round(1000 * Math.min(1, scale * 4)));
const ip = (i: number): string => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
const ns = (name: string): ClusterObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'kubernetes.io/metadata.name': name } } }) as ClusterObject;
const pod = (n: string, name: string, labels: Record<string, string>, node: string, addr: string): ClusterObject =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: n, labels }, spec: { nodeName: node, containers: [{ name: 'c' }] }, status: { podIP: addr, podIPs: [{ ip: addr }] } }) as ClusterObject;
const np = (n: string, name: string, sel: Record<string, string>, from: Record<string, string> | undefined): ClusterObject =>
  ({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name, namespace: n, uid: `${n}/${name}` }, spec: { podSelector: { matchLabels: sel }, policyTypes: ['Ingress'], ingress: from ? [{ from: [{ podSelector: { matchLabels: from } }] }] : [] } }) as ClusterObject;

const mb = (n: number): number => Math.round(n / 1e6);
/** Where the memory is: V8 heap used / total, external, array buffers (MB). */
const memory = (): string => {
  const m = process.memoryUsage();
  return `heap ${mb(m.heapUsed)}/${mb(m.heapTotal)} MB, external ${mb(m.external)} MB, array buffers ${mb(m.arrayBuffers)} MB`;
};
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
  console.log(`loaded ${NS} ns, ${k} pods, ${NS * 3} NPs on ${NODES} nodes in ${Math.round(loadMs)} ms, RSS ${mb(rssLoaded)} MB (${memory()})`);

  const pki = await createPki(['127.0.0.1']);
  const logger = { debug: () => undefined, info: () => undefined, warn: (o: unknown, m?: string) => console.error('WARN', m, o), error: (o: unknown, m?: string) => console.error('ERROR', m, o) };
  const server = new ControlplaneServer({ hub, auth, tls: { certPem: pki.certPem, keyPem: pki.keyPem }, host: '127.0.0.1', port: 0, maxWatcherBufferBytes: 64 << 20, logger });
  const port = await server.listen();
  const nodes = Array.from({ length: NODES }, (_, i) => `node-${i}`);
  // Worker processes start before the clock does: an agent's process start is not the controller's cost.
  const pool = WORKERS > 0 ? await startWorkers() : undefined;
  const profiler = process.env.BENCH_CPU_PROFILE ? await startProfile() : undefined;
  const cpu0 = process.cpuUsage();
  const t1 = performance.now();
  const watchers = pool ? await workerWatchers(pool, nodes, `https://127.0.0.1:${port}`, pki.caPem) : await inProcessWatchers(nodes, port, pki.caPem);
  const syncMs = performance.now() - t1;
  const cpu = process.cpuUsage(cpu0);
  if (profiler) await stopProfile(profiler, process.env.BENCH_CPU_PROFILE as string);
  const syncCpuMs = (cpu.user + cpu.system) / 1000;
  const load = loadavg().map((x) => +x.toFixed(2));
  const bytes = [...watchers.bytes].sort((a, b) => a - b);
  const policiesPerNode = [...watchers.policies].sort((a, b) => a - b);
  global.gc?.();
  const rssServing = process.memoryUsage().rss;
  const rssPeak = process.resourceUsage().maxRSS * 1024; // high-water mark so far (load and sync)
  const clientsCpu = watchers.clientsCpuMs === undefined ? '' : `, clients' CPU ${Math.round(watchers.clientsCpuMs)} ms`;
  console.log(`initial sync of ${NODES} watchers (${WORKERS > 0 ? `${WORKERS} worker processes` : 'in this process'}): ${Math.round(syncMs)} ms, controller CPU ${Math.round(syncCpuMs)} ms${clientsCpu} (load average ${load.join(' ')}); bytes/node p50 ${pct(bytes, 0.5)} max ${bytes.at(-1)}; controller RSS ${mb(rssServing)} MB, peak ${mb(rssPeak)} MB (${memory()})`);

  // Pod label change: p0 of a namespace flips between app=a0 (applied-to of np0) and app=a1 (a peer
  // of np0, applied-to of np1), so every change moves it between groups. Namespaces are visited
  // from the last one down, round robin at small scales; each visit flips the labels the pod has
  // now, so no sample re-applies labels it already has.
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
    await watchers.reached([...delta.nodes.keys()], rv);
    if (i >= WARMUP) lat.push(performance.now() - start);
  }
  lat.sort((a, b) => a - b);
  const rssEnd = process.memoryUsage().rss;
  console.log(`label change -> all affected watchers: ${lat.length} changes measured (${noops} no-ops skipped): p50 ${pct(lat, 0.5).toFixed(2)} ms, p99 ${pct(lat, 0.99).toFixed(2)} ms`);
  await watchers.close();
  await server.close();

  const results = {
    scenario: `${NS} namespaces, ${k} pods, ${NS * 3} NetworkPolicies, ${NODES} nodes, ${NODES} TLS watchers ${WORKERS > 0 ? `in ${WORKERS} worker processes` : 'in-process'}`,
    scale,
    node: process.version,
    loadMs: Math.round(loadMs),
    initialSyncAllWatchersMs: Math.round(syncMs),
    initialSyncControllerCpuMs: Math.round(syncCpuMs),
    /** CPU of the worker processes from their `open` to their `synced` (TLS, HTTP, decoding): the other share of the two cores. */
    ...(watchers.clientsCpuMs === undefined ? {} : { initialSyncClientsCpuMs: Math.round(watchers.clientsCpuMs) }),
    loadAverageAtSync: load,
    bytesPerNode: { p50: pct(bytes, 0.5), max: bytes.at(-1) },
    policiesPerNode: { p50: pct(policiesPerNode, 0.5), max: policiesPerNode.at(-1) },
    rssMB: { start: mb(rss0), loaded: mb(rssLoaded), serving: mb(rssServing), peakThroughSync: mb(rssPeak), end: mb(rssEnd) },
    labelChangeLatencyMs: { p50: +pct(lat, 0.5).toFixed(2), p99: +pct(lat, 0.99).toFixed(2), samples: lat.length, noopsSkipped: noops },
    targets: { latencyP99Ms: 50, rssMB: 600, initialSyncMs: 5000 },
  };
  const rows = [
    ['initial load into compiler', `${results.loadMs} ms`, '-'],
    [`initial sync, ${NODES} watchers`, `${results.initialSyncAllWatchersMs} ms`, '-'],
    ['bytes per node (p50 / max)', `${results.bytesPerNode.p50} / ${results.bytesPerNode.max}`, '-'],
    [`initial sync, controller CPU`, `${results.initialSyncControllerCpuMs} ms`, '-'],
    ...(watchers.clientsCpuMs === undefined ? [] : [[`initial sync, clients' CPU (${WORKERS} processes)`, `${Math.round(watchers.clientsCpuMs)} ms`, '-']]),
    [`RSS loaded / serving / peak through the sync (${WORKERS > 0 ? 'controller alone' : 'incl. clients'})`, `${results.rssMB.loaded} / ${results.rssMB.serving} / ${results.rssMB.peakThroughSync} MB`, '<= 600 MB'],
    [`label change latency p50 / p99 (${lat.length} changes)`, `${results.labelChangeLatencyMs.p50} / ${results.labelChangeLatencyMs.p99} ms`, 'p99 < 50 ms'],
  ];
  console.log(`\n| measure | value | target |\n|---|---|---|\n${rows.map((r) => `| ${r.join(' | ')} |`).join('\n')}`);
  writeFileSync(new URL('./results.json', import.meta.url), `${JSON.stringify(results, null, 2)}\n`);
  process.exit(0);
}

/** The watch clients, wherever they run: synced at creation; `reached` waits until the nodes' views are at rv. */
interface Watchers {
  bytes: number[];
  /** CPU of the worker processes through the sync (undefined in-process: it is in the controller's). */
  clientsCpuMs?: number;
  policies: number[];
  reached(nodes: string[], rv: string): Promise<void>;
  close(): Promise<void>;
}

/** One client per node in this process (the earlier benchmark: their TLS and decoding share this process). */
async function inProcessWatchers(nodes: string[], port: number, caPem: string): Promise<Watchers> {
  const agent = new https.Agent({ keepAlive: false, maxSockets: Infinity, ca: caPem, maxCachedSessions: 0 }); // full handshakes, as in watch-worker.ts
  const clients = nodes.map((n) => new ControlplaneClient({ url: `https://127.0.0.1:${port}`, caPem, nodeName: n, token: `node:${n}`, agent }));
  for (let i = 0; i < clients.length; i += 100) await Promise.all(clients.slice(i, i + 100).map((c) => c.open()));
  await Promise.all(clients.map((c) => c.waitFor(() => c.view.synced, 600000, 'sync')));
  const byNode = new Map(clients.map((c) => [c.nodeName, c] as const));
  return {
    bytes: clients.map((c) => c.bytesReceived),
    policies: clients.map((c) => c.view.counts.policies),
    reached: async (ns, rv) => {
      await Promise.all(ns.map((n) => byNode.get(n)).filter((c): c is ControlplaneClient => c !== undefined).map((c) => c.waitFor(() => c.view.resourceVersion === rv, 10000, 'event')));
    },
    close: async () => {
      for (const c of clients) c.close();
    },
  };
}

/** BENCH_CPU_PROFILE=<file>: a V8 CPU profile of the controller during the initial sync only. */
async function startProfile(): Promise<Session> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return session;
}

async function stopProfile(session: Session, file: string): Promise<void> {
  const { profile } = await session.post('Profiler.stop');
  writeFileSync(file, JSON.stringify(profile));
  session.disconnect();
}

/** The next message of `type` (and `id`) from a worker. */
const next = (p: ChildProcess, type: string, id?: number): Promise<Record<string, unknown>> =>
  new Promise((resolve, reject) => {
    const on = (m: Record<string, unknown>): void => {
      if (m.type === 'error') reject(new Error(String(m.message)));
      if (m.type !== type || (id !== undefined && m.id !== id)) return;
      p.off('message', on);
      resolve(m);
    };
    p.on('message', on);
  });

/** WORKERS forked processes running bench/watch-worker.ts, each ready for its clients. */
async function startWorkers(): Promise<ChildProcess[]> {
  const script = fileURLToPath(new URL('./watch-worker.ts', import.meta.url));
  const procs = Array.from({ length: WORKERS }, () => fork(script, [], { execArgv: ['--import', 'tsx', ...workerProfileArgs()], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
  await Promise.all(procs.map((p) => next(p, 'ready')));
  return procs;
}

/** BENCH_WORKER_CPU_PROFILE=<dir>: each worker writes a V8 CPU profile of its whole life there (node --cpu-prof). */
function workerProfileArgs(): string[] {
  const dir = process.env.BENCH_WORKER_CPU_PROFILE;
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : [];
}

/** The clients in the worker processes, nodes dealt round robin. */
async function workerWatchers(procs: ChildProcess[], nodes: string[], url: string, caPem: string): Promise<Watchers> {
  const share = procs.map((_, w) => nodes.filter((_, i) => i % WORKERS === w));
  const workerOf = new Map(nodes.map((n, i) => [n, i % WORKERS] as const));
  const synced = procs.map((p) => next(p, 'synced'));
  procs.forEach((p, w) => p.send({ type: 'open', url, caPem, nodes: share[w] }));
  const replies = await Promise.all(synced);
  let seq = 0;
  return {
    bytes: replies.flatMap((r) => r.bytes as number[]),
    clientsCpuMs: replies.reduce((sum, r) => sum + (r.cpuMs as number), 0),
    policies: replies.flatMap((r) => r.policies as number[]),
    reached: async (ns, rv) => {
      const id = ++seq;
      const per = new Map<number, string[]>();
      for (const n of ns) {
        const w = workerOf.get(n);
        if (w !== undefined) per.set(w, [...(per.get(w) ?? []), n]);
      }
      await Promise.all([...per].map(([w, list]) => {
        const reply = next(procs[w]!, 'reached', id);
        procs[w]!.send({ type: 'await', id, rv, nodes: list });
        return reply;
      }));
    },
    close: async () => {
      await Promise.all(procs.map((p) => {
        const done = new Promise<void>((resolve) => p.once('exit', () => resolve()));
        p.send({ type: 'close' });
        return done;
      }));
    },
  };
}

void main();
