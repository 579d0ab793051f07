// Benchmark (not run in CI), issue #36: the scale scenarios of bench/run.ts with half the pods
// dual-stack against IPv4-only, in the same process: bulk load, one event per object, and the
// wire form of every group (what agents receive). Prints a table, writes bench/dual-stack.json.
// `npm run bench:dual-stack`; `npx tsx bench/dual-stack.ts 4` runs one scenario, writes nothing.
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { encodeWatchEvent } from '@switchyard/apis';
import { PolicyEngine, type ClusterObject } from '../src/index';
import { scenario1, scenario2, scenario3, scenario4, type DualStack } from './scenarios';

type Mode = 'IPv4-only' | 'half dual-stack';
interface Sample { ms: number; cpuMs: number; heapMB: number }
interface Row { scenario: string; path: string; mode: Mode; samples: Sample[] }

const rows: Row[] = [];
const loadAtStart = loadavg().map((x) => Math.round(x * 100) / 100);
const only = new Set(process.argv.slice(2).map(Number).filter((n) => n > 0));
const HALF: DualStack = (k) => k % 2 === 0;
const NONE: DualStack = () => false;

function measure<T>(fn: () => T): [T, Sample] {
  global.gc?.();
  const h0 = process.memoryUsage().heapUsed;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const r = fn();
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  global.gc?.();
  return [r, { ms, cpuMs: (c.user + c.system) / 1000, heapMB: (process.memoryUsage().heapUsed - h0) / 1e6 }];
}

function record(scenario: string, path: string, mode: Mode, s: Sample): void {
  let row = rows.find((r) => r.scenario === scenario && r.path === path && r.mode === mode);
  if (!row) rows.push((row = { scenario, path, mode, samples: [] }));
  row.samples.push(s);
  console.log(`${scenario} [${path}, ${mode}]: ${Math.round(s.ms)} ms wall, ${Math.round(s.cpuMs)} ms CPU, ${Math.round(s.heapMB)} MB`);
}

/** Encodes every group once as an ADDED watch event: the member addresses' wire form (4 or 16 bytes each). */
function encodeAll(e: PolicyEngine): number {
  const s = e.snapshot();
  let bytes = 0;
  for (const object of s.addressGroups) bytes += encodeWatchEvent({ type: 'ADDED', kind: 'AddressGroup', object }).length;
  for (const object of s.appliedToGroups) bytes += encodeWatchEvent({ type: 'ADDED', kind: 'AppliedToGroup', object }).length;
  return bytes;
}

function run(scenario: string, mode: Mode, objs: ClusterObject[]): void {
  const [e, load] = measure(() => {
    const engine = new PolicyEngine();
    engine.load(objs);
    return engine;
  });
  record(scenario, 'load', mode, load);
  const [bytes, wire] = measure(() => encodeAll(e));
  record(scenario, 'wire (all groups)', mode, wire);
  console.log(`  ${(bytes / 1e6).toFixed(1)} MB on the wire`);
  const [, events] = measure(() => {
    const engine = new PolicyEngine();
    for (const object of objs) engine.apply({ type: 'ADDED', object });
    return engine;
  });
  record(scenario, 'events', mode, events);
}

const scenarios: [number, string, (d: DualStack) => ClusterObject[]][] = [
  [1, '25k ns / 100k pods / 75k NPs, 1,000 nodes', scenario1],
  [2, '1 ns / 10k pods / 10k NPs selecting every pod', scenario2],
  [3, '1 ns / 10k pods / 10k NPs, one NP per pod', scenario3],
  [4, '100 ns x (deny-all + 100 NPs, 1,000 pods)', scenario4],
];
for (const [n, name, build] of scenarios) {
  if (only.size > 0 && !only.has(n)) continue;
  const v4 = build(NONE);
  const dual = build(HALF);
  // A B B A: each mode runs once early and once late, so JIT warm-up and a change in the
  // machine's load fall on both alike; the table shows the mean of the two.
  run(name, 'IPv4-only', v4);
  run(name, 'half dual-stack', dual);
  run(name, 'half dual-stack', dual);
  run(name, 'IPv4-only', v4);
}

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
const stat = (r: Row | undefined, k: keyof Sample): number => (r ? mean(r.samples.map((s) => s[k])) : NaN);
const pairs = [...new Set(rows.map((r) => `${r.scenario}\u0000${r.path}`))].map((key) => {
  const [scenario, path] = key.split('\u0000') as [string, string];
  const of = (mode: Mode): Row | undefined => rows.find((r) => r.scenario === scenario && r.path === path && r.mode === mode);
  const a = of('IPv4-only');
  const b = of('half dual-stack');
  return { scenario, path, v4: { ms: stat(a, 'ms'), cpuMs: stat(a, 'cpuMs'), heapMB: stat(a, 'heapMB') }, dual: { ms: stat(b, 'ms'), cpuMs: stat(b, 'cpuMs'), heapMB: stat(b, 'heapMB') } };
});
const s = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const table = [
  '| scenario | path | CPU IPv4-only | CPU half dual-stack | CPU ratio | wall IPv4-only | wall half dual-stack | heap IPv4-only | heap half dual-stack |',
  '|---|---|---|---|---|---|---|---|---|',
  ...pairs.map((p) => `| ${p.scenario} | ${p.path} | ${s(p.v4.cpuMs)} | ${s(p.dual.cpuMs)} | ${(p.dual.cpuMs / p.v4.cpuMs).toFixed(2)}x | ${s(p.v4.ms)} | ${s(p.dual.ms)} | ${Math.round(p.v4.heapMB)} MB | ${Math.round(p.dual.heapMB)} MB |`),
];
const loadAtEnd = loadavg().map((x) => Math.round(x * 100) / 100);
console.log(table.join('\n'));
console.log(`budget (issue #36): half dual-stack <= 2x IPv4-only. Load average (1, 5, 15 min): ${loadAtStart.join(', ')} at start, ${loadAtEnd.join(', ')} at end`);
if (only.size === 0) {
  writeFileSync(new URL('./dual-stack.json', import.meta.url), JSON.stringify({ date: new Date().toISOString(), node: process.version, loadAverage: { start: loadAtStart, end: loadAtEnd }, pairs, rows }, null, 2));
}
