// Benchmark (not run in CI): Antrea controller perf scenarios; prints a table and writes bench/results.json.
// `npm run bench` runs everything; `npx tsx bench/run.ts 2 4` runs only scenarios 2 and 4 (for
// profiling: `node --cpu-prof --import tsx bench/run.ts 4`) and does not write results.json.
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { PolicyEngine, explain, queryEndpoint, type ClusterEvent, type ClusterObject } from '../src/index';

import { ip, np, ns, pod, podsOneNs, scenario1, scenario2, scenario3, scenario4 } from './scenarios';

const added = (objs: ClusterObject[]): ClusterEvent[] => objs.map((object) => ({ type: 'ADDED', object }));

interface Row { scenario: string; mode: string; ms: number; cpuMs: number; heapMB: number; target: string; antrea: string }
const rows: Row[] = [];
// The machine is shared: the load average beside the figures says how contended they were.
const loadAtStart = loadavg().map((x) => Math.round(x * 100) / 100);
const only = new Set(process.argv.slice(2).map(Number).filter((n) => n > 0));
const want = (n: number): boolean => only.size === 0 || only.has(n);

function measure<T>(scenario: string, mode: string, target: string, antrea: string, fn: () => T): T {
  global.gc?.();
  const h0 = process.memoryUsage().heapUsed;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const r = fn();
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  // CPU time of this process (all its threads, GC helpers included): on a shared machine it is
  // a steadier figure than wall-clock time, which includes waiting for a core.
  const cpuMs = (c.user + c.system) / 1000;
  global.gc?.();
  const heapMB = (process.memoryUsage().heapUsed - h0) / 1e6;
  rows.push({ scenario, mode, ms: Math.round(ms), cpuMs: Math.round(cpuMs), heapMB: Math.round(heapMB), target, antrea });
  console.log(`${scenario} [${mode}]: ${Math.round(ms)} ms wall, ${Math.round(cpuMs)} ms CPU, ${Math.round(heapMB)} MB`);
  return r;
}
/** Initial sync: `load` (one delta for the whole list), as a controller does after its informers' first list. */
function loaded(objs: ClusterObject[]): PolicyEngine {
  const e = new PolicyEngine();
  e.load(objs);
  return e;
}
/** Steady state: every object as its own event, each returning its per-node delta. */
function oneByOne(objs: ClusterObject[]): PolicyEngine {
  const e = new PolicyEngine();
  for (const ev of added(objs)) e.apply(ev);
  return e;
}
function both(n: number, scenario: string, target: string, antrea: string, objs: () => ClusterObject[]): PolicyEngine {
  const list = objs();
  const e = measure(scenario, 'load', target, antrea, () => loaded(list));
  if (process.env['BENCH_SKIP_EVENTS'] !== '1') measure(scenario, 'events', target, antrea, () => oneByOne(list));
  void n;
  return e;
}

interface Latency { p50: number; p99: number; cpuP50: number; cpuP99: number }
/** Wall-clock and CPU-time percentiles (ms) of `n` calls. */
const lat = (fn: (i: number) => void, n: number): Latency => {
  const xs: number[] = [];
  const cs: number[] = [];
  for (let i = 0; i < n; i++) {
    const c0 = process.cpuUsage();
    const t = performance.now();
    fn(i);
    xs.push(performance.now() - t);
    const c = process.cpuUsage(c0);
    cs.push((c.user + c.system) / 1000);
  }
  xs.sort((a, b) => a - b);
  cs.sort((a, b) => a - b);
  const at = (v: number[], q: number): number => v[Math.floor(n * q)] as number;
  return { p50: at(xs, 0.5), p99: at(xs, 0.99), cpuP50: at(cs, 0.5), cpuP99: at(cs, 0.99) };
};

// 1. 25k namespaces, 100k pods, 75k NPs (3 NPs + 4 pods per ns, 1,000 nodes), then incremental.
let incremental: { relabel: Latency; add: Latency; heapGrowthMBPer10kPods: number } | undefined;
if (want(1)) {
  const e1 = both(1, '25k ns / 100k pods / 75k NPs, 1,000 nodes', '<= 1.5 s CPU, <= 400 MB', '6.1 s, 1.6 GB', () => scenario1());
  // Incremental latency on the loaded engine (warm-up first, so JIT compilation is not measured).
  for (let i = 0; i < 200; i++) e1.apply({ type: 'MODIFIED', object: pod(`ns-${24_000 + i}`, 'p0', { app: 'a1', tier: 't0' }, `node-${((24_000 + i) * 4) % 1000}`, ip((24_000 + i) * 4)) });
  const relabel = lat((i) => {
    e1.apply({ type: 'MODIFIED', object: pod(`ns-${i}`, 'p0', { app: 'a1', tier: 't0' }, `node-${(i * 4) % 1000}`, ip(i * 4)) });
  }, 5000);
  const add = lat((i) => {
    e1.apply({ type: 'ADDED', object: pod(`ns-${i}`, 'new', { app: 'a0', tier: 't9' }, `node-${i % 1000}`, ip(200_000 + i)) });
  }, 5000);
  global.gc?.();
  const hBefore = process.memoryUsage().heapUsed;
  for (let i = 0; i < 10_000; i++) e1.apply({ type: 'ADDED', object: pod(`ns-${i % 25_000}`, `extra-${i}`, { app: 'a0' }, `node-${i % 1000}`, ip(300_000 + i)) });
  global.gc?.();
  const growth = (process.memoryUsage().heapUsed - hBefore) / 1e6;
  incremental = { relabel, add, heapGrowthMBPer10kPods: growth };
  console.log(`incremental: label change ${fmtLat(relabel)}; pod add ${fmtLat(add)}; heap +${growth.toFixed(1)} MB per 10k pods`);
}

// Latencies are shown as wall-clock. The per-call CPU figures kept in results.json are only
// indicative: process CPU time also counts JIT and GC helper threads, and at tens of
// microseconds the kernel's user/system accounting is too coarse for a percentile.
function fmtLat(l: Latency): string {
  return `p50 ${l.p50.toFixed(3)} ms, p99 ${l.p99.toFixed(3)} ms`;
}

// 2. 1 ns, 10k pods, 10k NPs each selecting every pod.
if (want(2)) {
  both(2, '1 ns / 10k pods / 10k NPs selecting every pod', '<= 2 s, <= 500 MB', '10.7 s, 1.16 GB', () => scenario2());
}
// 3. one NP per pod (also the input of scenario 6).
let e3: PolicyEngine | undefined;
if (want(3) || want(6)) {
  e3 = both(3, '1 ns / 10k pods / 10k NPs, one NP per pod', '<= 2 s', '300 s limit', () => scenario3());
}
// 4. 100 ns x (deny-all + 100 NPs, 1,000 pods)
if (want(4)) {
  both(4, '100 ns x (deny-all + 100 NPs, 1,000 pods)', '<= 3 s', '10 s limit', () => scenario4());
}
// 5. 1,000 endpoint queries over 10k NPs (each selecting every pod: each returns 10k policies)
if (want(5)) {
  const e5 = loaded([ns('big'), ...podsOneNs(10_000), ...Array.from({ length: 10_000 }, (_, i) => np('big', `np${i}`, {}, { app: 'web' }))]);
  let returned = 0;
  measure('1,000 endpoint queries over 10k NPs (10k policies each)', 'query', '<= 3 s', '13.9 s, 1.1 GB', () => {
    for (let i = 0; i < 1000; i++) returned += queryEndpoint(e5, `big/p${i}`).appliedPolicies.length;
  });
  console.log(`  (returned ${returned / 1000} policies per query)`);
}
// 6. 1,000 explain calls over 10k NPs (one NP per pod)
if (want(6) && e3) {
  const e = e3;
  measure('1,000 explain calls over 10k NPs', 'query', '<= 0.5 s', 'none', () => {
    for (let i = 0; i < 1000; i++) explain(e, { src: `big/p${i}`, dst: `big/p${(i * 7) % 10_000}`, protocol: 'TCP', port: 80 });
  });
}

const table = ['| scenario | path | wall | CPU | heap | target | Antrea reference |', '|---|---|---|---|---|---|---|', ...rows.map((r) => `| ${r.scenario} | ${r.mode} | ${(r.ms / 1000).toFixed(2)} s | ${(r.cpuMs / 1000).toFixed(2)} s | ${r.heapMB} MB | ${r.target} | ${r.antrea} |`)];
if (incremental) {
  const { relabel, add, heapGrowthMBPer10kPods: growth } = incremental;
  table.push(`| incremental pod label change (scenario 1) | event | ${fmtLat(relabel)} | | | p99 <= 1 ms | |`);
  table.push(`| incremental pod add (scenario 1) | event | ${fmtLat(add)} | | +${growth.toFixed(1)} MB / 10k pods | p99 <= 1 ms | |`);
}
const loadAtEnd = loadavg().map((x) => Math.round(x * 100) / 100);
console.log(table.join('\n'));
console.log(`load average (1, 5, 15 min): ${loadAtStart.join(', ')} at start, ${loadAtEnd.join(', ')} at end`);
if (only.size === 0) {
  writeFileSync(new URL('./results.json', import.meta.url), JSON.stringify({ date: new Date().toISOString(), node: process.version, loadAverage: { start: loadAtStart, end: loadAtEnd }, rows, incremental }, null, 2));
}
