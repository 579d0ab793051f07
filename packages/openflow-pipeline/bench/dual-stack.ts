/**
 * Dual-stack policy computation (issue #36): the rules of bench/run.ts (one ingress rule per
 * policy, 100 members per group from a 20k pool) on an IPv4-only node, then on a dual-stack node
 * with half the members dual-stack (an IPv6 address too). CPU ms, best of the runs; the issue's
 * bound is 2x the IPv4-only figure. `tsx bench/dual-stack.ts` runs it alone and writes
 * bench/dual-stack.json; `npm run bench` includes it in results.json.
 */
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Pipeline, networkPolicyFlows, networkPolicyTables, type NetworkPolicy, type NodeConfig } from '../src/index';

function cpuMs(reps: number, fn: () => unknown): number {
  let best = Infinity;
  for (let i = 0; i < reps; i++) {
    const c0 = process.cpuUsage();
    fn();
    const c = process.cpuUsage(c0);
    best = Math.min(best, (c.user + c.system) / 1000);
  }
  return Math.round(best);
}

function input(n: number, dual: boolean) {
  let seed = 42;
  const rnd = (k: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % k);
  const pool = Array.from({ length: 20000 }, (_, i) => `10.${100 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}`);
  const addressGroups = Array.from({ length: n }, (_, i) => ({
    name: `g${i}`,
    groupMembers: Array.from({ length: 100 }, (_, k) => {
      const j = rnd(pool.length);
      return { ips: dual && k % 2 === 1 ? [pool[j]!, `fd00:100::${j.toString(16)}`] : [pool[j]!] };
    }),
  }));
  const policies: NetworkPolicy[] = Array.from({ length: n }, (_, i) => ({
    uid: `p${i}`, name: `p${i}`, namespace: 'ns', generation: 1, appliedToGroups: ['web'], sourceRef: { type: 'K8sNetworkPolicy', namespace: 'ns', name: `p${i}`, uid: `p${i}` },
    rules: [{ direction: 'In', from: { addressGroups: [`g${i}`], ipBlocks: [] }, to: { addressGroups: [], ipBlocks: [] }, services: [{ protocol: 'TCP', port: 1000 + (i % 50) }], priority: 0, enableLogging: false }],
  }));
  const ips = dual ? ['10.0.0.10', 'fd00::a'] : ['10.0.0.10'];
  return {
    policies, addressGroups, appliedToGroups: [{ name: 'web', groupMembers: [{ ips }] }],
    pods: [{ name: 'web', namespace: 'ns', ofport: 10, ips, mac: '02:00:00:00:00:0a' }], conjIds: new Map(policies.map((x, i) => [`${x.uid}/0`, i + 1])),
  };
}

/** One row per rule count: IPv4-only and dual-stack CPU ms, flows, and the ratio. */
export function runDualStackBench(counts: readonly number[] = [1000, 10000]): Record<string, unknown>[] {
  const v4: NodeConfig = { round: 1, trafficMode: 'encap', gateway: { ofport: 2, ip: '10.0.0.1', mac: '02:00:00:00:00:01' }, podCIDR: '10.0.0.0/16', nodeIP: '192.168.0.1', enableAntreaPolicy: true };
  const dual: NodeConfig = { ...v4, podCIDRv6: 'fd00::/64', gateway: { ...v4.gateway, ipv6: 'fd00::1' } };
  const tables = (cfg: NodeConfig) => Pipeline.build(['Classifier', 'ConntrackCommit', 'Output', 'L3Forwarding', ...networkPolicyTables(cfg)]);
  const rows: Record<string, unknown>[] = [];
  for (const n of counts) {
    const reps = n >= 10000 ? 3 : 5;
    const in4 = input(n, false);
    const in6 = input(n, true);
    const p4 = tables(v4);
    const p6 = tables(dual);
    const ipv4CpuMs = cpuMs(reps, () => networkPolicyFlows(p4, v4, in4));
    const dualCpuMs = cpuMs(reps, () => networkPolicyFlows(p6, dual, in6));
    rows.push({
      rules: n, ipv4Flows: networkPolicyFlows(p4, v4, in4).flows.length, ipv4CpuMs,
      dualFlows: networkPolicyFlows(p6, dual, in6).flows.length, dualCpuMs, ratio: Number((dualCpuMs / ipv4CpuMs).toFixed(2)),
    });
  }
  return rows;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rows = runDualStackBench();
  const load = loadavg().map((x) => Number(x.toFixed(1)));
  console.table(rows);
  console.log(`load average during the run: ${load.join(' ')} (2 cores shared)`);
  writeFileSync(new URL('./dual-stack.json', import.meta.url), `${JSON.stringify({ node: process.version, loadAverage: load, rows }, null, 2)}\n`);
}
