// Lab benchmark (not run by CI: `npm run bench`, as root). Prints a table and writes
// bench/results.json:
//  - time from `switchyard-lab up` to ready (state written, every agent answering) for 2 and 4 nodes;
//  - time from applying 1 / 100 / 1,000 K8s NetworkPolicies to realized on every node;
//  - iperf3 pod-to-pod TCP across nodes (Geneve) with 0 and 1,000 policy rules on the server pod,
//    and the reference: two ports on a bare OVS netdev bridge with one NORMAL flow.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Testbed, waitFor } from '@switchyard/testbed';
import type { KubeConfigClient } from '@switchyard/controller';
import { labClient, readState, type LabState } from '../src/index';
import { agentGet } from '../src/probe';
import { ScenarioRunner } from '../src/probe-run';
import { IPERF_REPEATS, IPERF_SECONDS, iperf, iperfPods, median } from './iperf';

const ROOT = join(process.cwd());
const BIN = join(ROOT, 'bin/switchyard-lab');
const rows: { metric: string; value: number; unit: string; note?: string }[] = [];
const row = (metric: string, value: number, unit: string, note?: string): void => {
  rows.push({ metric, value: Math.round(value * 100) / 100, unit, ...(note ? { note } : {}) });
  process.stderr.write(`  ${metric}: ${value.toFixed(2)} ${unit}${note ? ` (${note})` : ''}\n`);
};

function labCmd(labDir: string, ...args: string[]): string {
  return execFileSync(BIN, ['--lab-dir', labDir, ...args], { encoding: 'utf8', timeout: 600_000 });
}

/** `up` until every agent answers /agentinfo, in ms. */
async function upTime(nodes: number): Promise<number> {
  const labDir = mkdtempSync(join(tmpdir(), 'switchyard-lab-bench-'));
  const t0 = performance.now();
  labCmd(labDir, 'up', '--nodes', String(nodes));
  const st = readState(labDir)!;
  await waitFor('agents', async () => (await Promise.all(st.nodes.map((n) => agentGet(n.apiSocket, '/agentinfo').then(() => true, () => false)))).every(Boolean), { timeoutMs: 60_000, intervalMs: 50 });
  const ms = performance.now() - t0;
  labCmd(labDir, 'down');
  return ms;
}

/** Policy i selects the server pod; policy 0 admits the client on iperf3's port, the others on 10000+i. */
function policy(i: number): Record<string, unknown> {
  return {
    apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: `bench-${i}`, namespace: 'default' },
    spec: { podSelector: { matchLabels: { app: 'srv' } }, policyTypes: ['Ingress'], ingress: [{ from: [{ podSelector: { matchLabels: { app: 'cli' } } }], ports: [{ protocol: 'TCP', port: i === 0 ? 5201 : 10000 + i }] }] },
  };
}

async function pool(n: number, tasks: (() => Promise<unknown>)[]): Promise<void> {
  let i = 0;
  await Promise.all(Array.from({ length: n }, async () => {
    while (i < tasks.length) await tasks[i++]!();
  }));
}

async function controllerPolicyCount(kube: KubeConfigClient): Promise<number> {
  return (await kube.request<{ items: unknown[] }>('GET', '/apis/controlplane.switchyard.io/v1beta2/networkpolicies')).items.length;
}

/** Applies n policies; ms from the first POST until realized everywhere (and the POSTs alone). */
async function applyAndRealize(kube: KubeConfigClient, runner: ScenarioRunner, n: number): Promise<{ applyMs: number; realizedMs: number }> {
  const t0 = performance.now();
  await pool(16, Array.from({ length: n }, (_, i) => () => kube.request('POST', '/apis/networking.k8s.io/v1/namespaces/default/networkpolicies', policy(i))));
  const applyMs = performance.now() - t0;
  await waitFor('the controller to hold every policy', async () => (await controllerPolicyCount(kube)) === n, { timeoutMs: 300_000, intervalMs: 50 });
  await runner.waitRealized();
  return { applyMs, realizedMs: performance.now() - t0 };
}

async function deleteAll(kube: KubeConfigClient, runner: ScenarioRunner, n: number): Promise<void> {
  await pool(16, Array.from({ length: n }, (_, i) => () => kube.request('DELETE', `/apis/networking.k8s.io/v1/namespaces/default/networkpolicies/bench-${i}`)));
  await waitFor('the controller to drop every policy', async () => (await controllerPolicyCount(kube)) === 0, { timeoutMs: 300_000, intervalMs: 100 });
  await runner.waitRealized();
}

/** iperf3 TCP throughput from one netns to an address, bits/s (receiver side). */

async function labBench(): Promise<void> {
  const labDir = mkdtempSync(join(tmpdir(), 'switchyard-lab-bench-'));
  labCmd(labDir, 'up', '--nodes', '2');
  const st: LabState = readState(labDir)!;
  const kube = labClient(st);
  const runner = new ScenarioRunner({ kube, state: st, readyTimeoutMs: 300_000 });
  try {
    const { cli, srv } = await iperfPods(kube, { labelled: true });
    // Throughput is noisy on a shared machine: IPERF_REPEATS runs each, 0 policies measured both
    // before and after the 1,000 (drift shows as a gap between the two), medians compared.
    const series = async (): Promise<number[]> => {
      const out: number[] = [];
      for (let i = 0; i < IPERF_REPEATS; i++) out.push(await iperf(cli.ns, srv.ns, srv.ip));
      return out;
    };
    const before = await series();
    row('iperf3 node1 -> node2, 0 policies (before), median', median(before) / 1e6, 'Mbit/s', `Geneve, ${IPERF_REPEATS} x ${IPERF_SECONDS} s: ${before.map((b) => Math.round(b / 1e6)).join(', ')}`);
    let with1k: number[] = [];
    for (const n of [1, 100, 1000]) {
      const r = await applyAndRealize(kube, runner, n);
      row(`${n} policies: apply -> realized on both nodes`, r.realizedMs, 'ms', `POSTs ${Math.round(r.applyMs)} ms; includes the 300 ms flows-unchanged check`);
      if (n === 1000) {
        with1k = await series();
        row('iperf3 node1 -> node2, 1,000 policies on the server pod, median', median(with1k) / 1e6, 'Mbit/s', with1k.map((b) => Math.round(b / 1e6)).join(', '));
      }
      await deleteAll(kube, runner, n);
    }
    const after = await series();
    row('iperf3 node1 -> node2, 0 policies (after), median', median(after) / 1e6, 'Mbit/s', after.map((b) => Math.round(b / 1e6)).join(', '));
    row('ratio 1,000 policies / 0 (medians; 0 = before and after together)', median(with1k) / median([...before, ...after]), 'x', 'target >= 0.9');
  } finally {
    runner.close();
    labCmd(labDir, 'down');
  }
}

/** Reference: two ports on a bare netdev bridge with one NORMAL flow (same OVS, no pipeline, no tunnel). */
async function bareBridge(): Promise<number> {
  const tb = await Testbed.create();
  try {
    const ovs = await tb.startOvs();
    await ovs.addBridge('br0');
    await ovs.ofctl('-O', 'OpenFlow15', 'del-flows', ovs.mgmtSocket('br0'));
    await ovs.ofctl('-O', 'OpenFlow15', 'add-flow', ovs.mgmtSocket('br0'), 'priority=0,actions=NORMAL');
    const a = await tb.addPod(ovs, { bridge: 'br0', ipCidr: '10.99.0.2/24' });
    const b = await tb.addPod(ovs, { bridge: 'br0', ipCidr: '10.99.0.3/24' });
    return await iperf(a.netns.name, b.netns.name, '10.99.0.3');
  } finally {
    await tb.cleanup();
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  for (const n of [2, 4]) row(`up -> ready, ${n} nodes`, await upTime(n), 'ms');
  await labBench();
  const bare = await bareBridge();
  row('iperf3 bare OVS netdev bridge, one NORMAL flow (reference)', bare / 1e6, 'Mbit/s', 'two ports on one bridge, no tunnel');
  const w = Math.max(...rows.map((r) => r.metric.length));
  process.stdout.write(`\n${'metric'.padEnd(w)}  ${'value'.padStart(10)}  unit\n`);
  for (const r of rows) process.stdout.write(`${r.metric.padEnd(w)}  ${String(r.value).padStart(10)}  ${r.unit}${r.note ? `  (${r.note})` : ''}\n`);
  writeFileSync(join(ROOT, 'bench/results.json'), `${JSON.stringify({ date: new Date().toISOString(), seconds: Math.round((Date.now() - started) / 1000), rows }, null, 2)}\n`);
}

void main().catch((e: unknown) => {
  process.stderr.write(`bench failed: ${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
