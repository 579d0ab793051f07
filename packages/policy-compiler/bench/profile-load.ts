// Profiling aid (not part of the bench table): builds scenario 1's objects and bulk-loads them once.
// node --cpu-prof --import tsx bench/profile-load.ts   (or --heap-prof: the engine is kept alive to the end)
import { PolicyEngine, type ClusterObject } from '../src/index';

const ip = (i: number): string => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
const objs: ClusterObject[] = [];
let k = 0;
for (let i = 0; i < 25_000; i++) {
  const n = `ns-${i}`;
  objs.push({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: n } });
  for (let j = 0; j < 4; j++, k++) objs.push({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `p${j}`, namespace: n, labels: { app: `a${j % 2}`, tier: `t${j}` } }, spec: { nodeName: `node-${k % 1000}`, containers: [{ name: 'c' }] }, status: { podIP: ip(k), podIPs: [{ ip: ip(k) }] } });
  for (const [name, sel, from] of [['np0', { app: 'a0' }, { app: 'a1' }], ['np1', { app: 'a1' }, { tier: 't0' }], ['np2', { tier: 't3' }, undefined]] as const) {
    objs.push({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name, namespace: n }, spec: { podSelector: { matchLabels: sel }, policyTypes: ['Ingress'], ingress: from ? [{ from: [{ podSelector: { matchLabels: from } }] }] : [] } });
  }
}
(globalThis as { gc?: () => void }).gc?.();
const c0 = process.cpuUsage();
const t0 = performance.now();
const e = new PolicyEngine();
e.load(objs);
const c = process.cpuUsage(c0);
console.log(`load: ${Math.round(performance.now() - t0)} ms wall, ${Math.round((c.user + c.system) / 1000)} ms CPU, ${e.policies.size} policies, ${e.groups.size} groups`);
// Keep the engine reachable so a --heap-prof profile written at exit shows what it retains.
(globalThis as { keep?: unknown }).keep = [e, objs];
