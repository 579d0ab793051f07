/**
 * Benchmark: policy flow generation for 10..10k rules (100 addresses each from a 20k pool) and a
 * 100k-flow diff, against `ovs-ofctl diff-flows` on the same flows as the reference tool.
 * Wall and CPU time are both reported: the lab machine's 2 cores are shared, so wall time
 * depends on the load (printed with the results).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDumpFlows, renderFlow, type Flow } from '@switchyard/openflow/codec';
import { networkPolicyFlows, Pipeline, networkPolicyTables, diffFlows, type NodeConfig, type NetworkPolicy } from '../src/index';
import { runChangeBench } from './changes';
import { runDualStackBench } from './dual-stack';

/** Runs fn `reps` times and keeps the fastest run (wall ms, cpu ms). */
function measure<T>(reps: number, fn: () => T): { result: T; wallMs: number; cpuMs: number } {
  let best = { wallMs: Infinity, cpuMs: Infinity };
  let result: T | undefined;
  for (let i = 0; i < reps; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    result = fn();
    const wallMs = performance.now() - t0;
    const c = process.cpuUsage(c0);
    if (wallMs < best.wallMs) best = { wallMs, cpuMs: (c.user + c.system) / 1000 };
  }
  return { result: result!, wallMs: Math.round(best.wallMs), cpuMs: Math.round(best.cpuMs) };
}

const cfg: NodeConfig = { round: 1, trafficMode: 'encap', gateway: { ofport: 2, ip: '10.0.0.1', mac: '02:00:00:00:00:01' }, podCIDR: '10.0.0.0/16', nodeIP: '192.168.0.1', enableAntreaPolicy: true };
const p = Pipeline.build(['Classifier', 'ConntrackCommit', 'Output', 'L3Forwarding', ...networkPolicyTables(cfg)]);
let seed = 42;
const rnd = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
const pool = Array.from({ length: 20000 }, (_, i) => `10.${100 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}`);
const pods = [{ name: 'web', namespace: 'ns', ofport: 10, ips: ['10.0.0.10'], mac: '02:00:00:00:00:0a' }];
const rows: Record<string, unknown>[] = [];
for (const n of [10, 100, 1000, 10000]) {
  const addressGroups = Array.from({ length: n }, (_, i) => ({ name: `g${i}`, groupMembers: Array.from({ length: 100 }, () => ({ ips: [pool[rnd(pool.length)]!] })) }));
  const policies: NetworkPolicy[] = Array.from({ length: n }, (_, i) => ({
    uid: `p${i}`, name: `p${i}`, namespace: 'ns', generation: 1, appliedToGroups: ['web'], sourceRef: { type: 'K8sNetworkPolicy', namespace: 'ns', name: `p${i}`, uid: `p${i}` },
    rules: [{ direction: 'In', from: { addressGroups: [`g${i}`], ipBlocks: [] }, to: { addressGroups: [], ipBlocks: [] }, services: [{ protocol: 'TCP', port: 1000 + (i % 50) }], priority: 0, enableLogging: false }],
  }));
  const conjIds = new Map(policies.map((x, i) => [`${x.uid}/0`, i + 1]));
  const input = { policies, addressGroups, appliedToGroups: [{ name: 'web', groupMembers: [{ ips: ['10.0.0.10'] }] }], pods, conjIds };
  const m = measure(n >= 10000 ? 3 : 5, () => networkPolicyFlows(p, cfg, input));
  // Per-rule accounting: conjunction actions a rule contributes vs |from| + |to| + |ports| + 1 (+2 metric flows).
  const conjActions = m.result.flows.reduce((a, f) => a + f.actions.filter((x) => x.type === 'conjunction').length, 0);
  const perRule = (conjActions + n * 3) / n;
  rows.push({ rules: n, flows: m.result.flows.length, wallMs: m.wallMs, cpuMs: m.cpuMs, perRuleEntries: Number(perRule.toFixed(1)), formula: 100 + 1 + 1 + 1 + 2 });
}

// Diff: 100k installed vs 100k desired (10% replaced, 1 in 7 with other actions).
const mk = (i: number, a: number): Flow => ({ table: 20, priority: 200, match: { ethType: 0x800, ipv4Src: `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}` }, actions: [{ type: 'conjunction', id: a, clause: 1, nClauses: 2 }] });
const installed = Array.from({ length: 100000 }, (_, i) => mk(i, 1));
const desired = Array.from({ length: 100000 }, (_, i) => mk(i + (i % 10 === 0 ? 200000 : 0), i % 7 === 0 ? 2 : 1));
const diff = measure(5, () => diffFlows(desired, installed));
const d = diff.result;

// Reference: ovs-ofctl diff-flows on the same flows as text files (it parses both, then diffs);
// ours with the same work: codec parse of both texts, then diffFlows.
const dir = mkdtempSync(join(tmpdir(), 'ofp-bench-'));
let reference: { wallMs: number; lines: number } | { error: string };
let oursFromText: { wallMs: number; cpuMs: number } | undefined;
try {
  const a = join(dir, 'installed.txt');
  const b = join(dir, 'desired.txt');
  const aText = installed.map(renderFlow).join('\n');
  const bText = desired.map(renderFlow).join('\n');
  writeFileSync(a, `${aText}\n`);
  writeFileSync(b, `${bText}\n`);
  let best = Infinity;
  let lines = 0;
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    let out = '';
    try {
      out = execFileSync('ovs-ofctl', ['diff-flows', a, b], { maxBuffer: 1 << 28, encoding: 'utf8' });
    } catch (e) {
      // diff-flows exits 2 when the files differ; its output is still the diff.
      const err = e as { status?: number; stdout?: string };
      if (err.status !== 2 || err.stdout === undefined) throw e;
      out = err.stdout;
    }
    best = Math.min(best, performance.now() - t0);
    lines = out.split('\n').filter((l) => l.startsWith('+') || l.startsWith('-')).length;
  }
  reference = { wallMs: Math.round(best), lines };
  const m = measure(3, () => diffFlows(parseDumpFlows(bText), parseDumpFlows(aText)));
  oursFromText = { wallMs: m.wallMs, cpuMs: m.cpuMs };
} catch (e) {
  reference = { error: (e as Error).message.split('\n')[0]! };
} finally {
  rmSync(dir, { recursive: true, force: true });
}

// One change at 1,000 rules: full computation + diff against the incremental pipeline (bench/changes.ts).
const changes = runChangeBench();
// The same policies with half the members dual-stack, on a dual-stack node (bench/dual-stack.ts).
const dualStack = runDualStackBench();

const load = loadavg().map((x) => Number(x.toFixed(1)));
console.table(rows);
console.table(changes);
console.table(dualStack);
console.log(`diff of 100k vs 100k: ${diff.wallMs} ms wall, ${diff.cpuMs} ms cpu (add ${d.add.length}, modify ${d.modify.length}, delete ${d.delete.length})`);
if ('wallMs' in reference && oursFromText) {
  console.log(`from text (parse both + diff): ours ${oursFromText.wallMs} ms wall; ovs-ofctl diff-flows ${reference.wallMs} ms wall (${reference.lines} +/- lines); ratio ours/reference ${(oursFromText.wallMs / reference.wallMs).toFixed(2)}`);
} else console.log(`reference ovs-ofctl diff-flows unavailable: ${'error' in reference ? reference.error : ''}`);
console.log(`load average during the run: ${load.join(' ')} (2 cores shared)`);
writeFileSync(
  new URL('./results.json', import.meta.url),
  `${JSON.stringify({ node: process.version, loadAverage: load, rows, diff: { wallMs: diff.wallMs, cpuMs: diff.cpuMs, add: d.add.length, modify: d.modify.length, delete: d.delete.length }, diffFromText: { ours: oursFromText ?? null, ovsOfctlDiffFlows: reference }, changes, dualStack }, null, 2)}\n`,
);
