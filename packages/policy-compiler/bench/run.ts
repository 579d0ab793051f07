// Benchmark (not run in CI): Antrea controller perf scenarios; prints a table and writes bench/results.json.
import { writeFileSync } from 'node:fs';
import { PolicyEngine, explain, queryEndpoint, type ClusterObject } from '../src/index';

const ns = (name: string): ClusterObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
const pod = (n: string, name: string, labels: Record<string, string>, node: string, ip: string): ClusterObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: n, labels }, spec: { nodeName: node, containers: [{ name: 'c' }] }, status: { podIP: ip, podIPs: [{ ip }] } });
const np = (n: string, name: string, sel: Record<string, string>, from: Record<string, string> | undefined): ClusterObject => ({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name, namespace: n }, spec: { podSelector: { matchLabels: sel }, policyTypes: ['Ingress'], ingress: from ? [{ from: [{ podSelector: { matchLabels: from } }] }] : [] } });
const ip = (i: number): string => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

interface Row { scenario: string; ms: number; heapMB: number; target: string; antrea: string }
const rows: Row[] = [];
function measure(scenario: string, target: string, antrea: string, fn: () => unknown): unknown {
  global.gc?.();
  const h0 = process.memoryUsage().heapUsed;
  const t0 = performance.now();
  const r = fn();
  const ms = performance.now() - t0;
  global.gc?.();
  const heapMB = (process.memoryUsage().heapUsed - h0) / 1e6;
  rows.push({ scenario, ms: Math.round(ms), heapMB: Math.round(heapMB), target, antrea });
  console.log(`${scenario}: ${Math.round(ms)} ms, ${Math.round(heapMB)} MB`);
  return r;
}
function feed(e: PolicyEngine, objs: ClusterObject[]): void {
  for (const o of objs) e.apply({ type: 'ADDED', object: o });
}

// 1. 25k namespaces, 100k pods, 75k NPs (3 NPs + 4 pods per ns, 1,000 nodes).
const s1: ClusterObject[] = [];
let k = 0;
for (let i = 0; i < 25_000; i++) {
  const n = `ns-${i}`;
  s1.push(ns(n));
  for (let j = 0; j < 4; j++, k++) s1.push(pod(n, `p${j}`, { app: `a${j % 2}`, tier: `t${j}` }, `node-${k % 1000}`, ip(k)));
  s1.push(np(n, 'np0', { app: 'a0' }, { app: 'a1' }), np(n, 'np1', { app: 'a1' }, { tier: 't0' }), np(n, 'np2', { tier: 't3' }, undefined));
}
const e1 = measure('25k ns / 100k pods / 75k NPs, 1,000 nodes', '<= 2 s, <= 600 MB', '6.1 s, 1.6 GB', () => {
  const e = new PolicyEngine();
  feed(e, s1);
  return e;
}) as PolicyEngine;
// incremental at that scale
const lat = (fn: (i: number) => void, n: number): { p50: number; p99: number } => {
  const xs: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    fn(i);
    xs.push(performance.now() - t);
  }
  xs.sort((a, b) => a - b);
  return { p50: xs[Math.floor(n * 0.5)] as number, p99: xs[Math.floor(n * 0.99)] as number };
};
const relabel = lat((i) => {
  e1.apply({ type: 'MODIFIED', object: pod(`ns-${i}`, 'p0', { app: 'a1', tier: 't0' }, `node-${(i * 4) % 1000}`, ip(i * 4)) });
}, 1000);
const add = lat((i) => {
  e1.apply({ type: 'ADDED', object: pod(`ns-${i}`, 'new', { app: 'a0', tier: 't9' }, `node-${i % 1000}`, ip(200_000 + i)) });
}, 1000);
global.gc?.();
const hBefore = process.memoryUsage().heapUsed;
for (let i = 0; i < 10_000; i++) e1.apply({ type: 'ADDED', object: pod(`ns-${i % 25_000}`, `extra-${i}`, { app: 'a0' }, `node-${i % 1000}`, ip(300_000 + i)) });
global.gc?.();
const growth = (process.memoryUsage().heapUsed - hBefore) / 1e6;
console.log(`incremental: label change p50 ${relabel.p50.toFixed(3)} ms p99 ${relabel.p99.toFixed(3)} ms; pod add p50 ${add.p50.toFixed(3)} p99 ${add.p99.toFixed(3)} ms; heap +${growth.toFixed(1)} MB per 10k pods`);

// 2. 1 ns, 10k pods, 10k NPs each selecting every pod.
const podsOneNs = (n: number): ClusterObject[] => Array.from({ length: n }, (_, i) => pod('big', `p${i}`, { app: 'web', id: `i${i}` }, `node-${i % 100}`, ip(i)));
measure('1 ns / 10k pods / 10k NPs selecting every pod', '<= 2 s, <= 500 MB', '10.7 s, 1.16 GB', () => {
  const e = new PolicyEngine();
  feed(e, [ns('big'), ...podsOneNs(10_000)]);
  for (let i = 0; i < 10_000; i++) e.apply({ type: 'ADDED', object: np('big', `np${i}`, {}, undefined) });
  return e;
});
// 3. one NP per pod
const e3 = measure('1 ns / 10k pods / 10k NPs, one NP per pod', '<= 2 s', '300 s limit', () => {
  const e = new PolicyEngine();
  feed(e, [ns('big'), ...podsOneNs(10_000)]);
  for (let i = 0; i < 10_000; i++) e.apply({ type: 'ADDED', object: np('big', `np${i}`, { id: `i${i}` }, { app: 'web' }) });
  return e;
}) as PolicyEngine;
// 4. 100 ns x (deny-all + 100 NPs, 1,000 pods)
measure('100 ns x (deny-all + 100 NPs, 1,000 pods)', '<= 3 s', '10 s limit', () => {
  const e = new PolicyEngine();
  let c = 0;
  for (let i = 0; i < 100; i++) {
    const n = `n${i}`;
    e.apply({ type: 'ADDED', object: ns(n) });
    for (let j = 0; j < 1000; j++, c++) e.apply({ type: 'ADDED', object: pod(n, `p${j}`, { app: `a${j % 100}` }, `node-${c % 100}`, ip(c)) });
    e.apply({ type: 'ADDED', object: { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'deny-all', namespace: n }, spec: { podSelector: {}, policyTypes: ['Ingress'] } } });
    for (let j = 0; j < 100; j++) e.apply({ type: 'ADDED', object: np(n, `np${j}`, { app: `a${j}` }, { app: `a${(j + 1) % 100}` }) });
  }
  return e;
});
// 5. 1,000 endpoint queries over 10k NPs (each selecting every pod: each returns 10k policies)
const e5 = new PolicyEngine();
feed(e5, [ns('big'), ...podsOneNs(10_000)]);
for (let i = 0; i < 10_000; i++) e5.apply({ type: 'ADDED', object: np('big', `np${i}`, {}, { app: 'web' }) });
let returned = 0;
measure('1,000 endpoint queries over 10k NPs (10k policies each)', '<= 3 s', '13.9 s, 1.1 GB', () => {
  for (let i = 0; i < 1000; i++) returned += queryEndpoint(e5, `big/p${i}`).appliedPolicies.length;
});
console.log(`  (returned ${returned / 1000} policies per query)`);
// 6. 1,000 explain calls over 10k NPs (one NP per pod)
measure('1,000 explain calls over 10k NPs', '<= 0.5 s', 'none', () => {
  for (let i = 0; i < 1000; i++) explain(e3, { src: `big/p${i}`, dst: `big/p${(i * 7) % 10_000}`, protocol: 'TCP', port: 80 });
});

const table = ['| scenario | measured | heap | target | Antrea reference |', '|---|---|---|---|---|', ...rows.map((r) => `| ${r.scenario} | ${(r.ms / 1000).toFixed(2)} s | ${r.heapMB} MB | ${r.target} | ${r.antrea} |`)];
table.push(`| incremental pod label change (scenario 1) | p50 ${relabel.p50.toFixed(3)} ms, p99 ${relabel.p99.toFixed(3)} ms | | p99 <= 1 ms | |`);
table.push(`| incremental pod add (scenario 1) | p50 ${add.p50.toFixed(3)} ms, p99 ${add.p99.toFixed(3)} ms | +${growth.toFixed(1)} MB / 10k pods | p99 <= 1 ms | |`);
console.log(table.join('\n'));
writeFileSync(new URL('./results.json', import.meta.url), JSON.stringify({ date: new Date().toISOString(), node: process.version, rows, incremental: { relabel, add, heapGrowthMBPer10kPods: growth } }, null, 2));
