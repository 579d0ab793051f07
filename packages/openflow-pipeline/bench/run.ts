/** Benchmark: policy flow generation for 10..10k rules (100 addresses each from a 20k pool) and a 100k-flow diff. */
import { writeFileSync } from 'node:fs';
import { networkPolicyFlows, Pipeline, networkPolicyTables, diffFlows, type NodeConfig, type NetworkPolicy } from '../src/index';
import type { Flow } from '@switchyard/openflow/codec';

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
  const t0 = performance.now();
  const r = networkPolicyFlows(p, cfg, { policies, addressGroups, appliedToGroups: [{ name: 'web', groupMembers: [{ ips: ['10.0.0.10'] }] }], pods, conjIds });
  const ms = performance.now() - t0;
  // Per-rule accounting: conjunction actions a rule contributes vs |from| + |to| + |ports| + 1 (+2 metric flows).
  const conjActions = r.flows.reduce((a, f) => a + f.actions.filter((x) => x.type === 'conjunction').length, 0);
  const perRule = (conjActions + n * 3) / n;
  rows.push({ rules: n, flows: r.flows.length, ms: Math.round(ms), perRuleEntries: perRule.toFixed(1), formula: 100 + 1 + 1 + 1 + 2 });
}
const mk = (i: number, a: number): Flow => ({ table: 20, priority: 200, match: { ethType: 0x800, ipv4Src: `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}` }, actions: [{ type: 'conjunction', id: a, clause: 1, nClauses: 2 }] });
const installed = Array.from({ length: 100000 }, (_, i) => mk(i, 1));
const desired = Array.from({ length: 100000 }, (_, i) => mk(i + (i % 10 === 0 ? 200000 : 0), i % 7 === 0 ? 2 : 1));
const t1 = performance.now();
const d = diffFlows(desired, installed);
const diffMs = performance.now() - t1;
console.table(rows);
console.log(`diff of 100k vs 100k: ${Math.round(diffMs)} ms (add ${d.add.length}, modify ${d.modify.length}, delete ${d.delete.length})`);
writeFileSync(new URL('./results.json', import.meta.url), JSON.stringify({ rows, diffMs: Math.round(diffMs) }, null, 2));
