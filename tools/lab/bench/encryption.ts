// Encryption benchmark (not run by CI: `npm run bench:encryption`, as root). Inter-node pod TCP
// throughput (iperf3, pod on node1 -> pod on node2) in a 2-node lab with trafficEncryptionMode
// none (Geneve) and wireGuard (userspace wireguard-go), BENCH_IPERF_REPEATS runs of
// BENCH_IPERF_SECONDS each, labs alternated none / wireGuard / none / wireGuard so drift on a
// shared machine shows. Prints a table and writes bench/encryption-results.json with the ratio.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run, waitFor } from '@switchyard/testbed';
import { labClient, readState } from '../src/index';
import { NETNS_ANNOTATION } from '../src/kubelet';

const ROOT = process.cwd();
const BIN = join(ROOT, 'bin/switchyard-lab');
const IPERF_SECONDS = Number(process.env.BENCH_IPERF_SECONDS ?? '5');
const IPERF_REPEATS = Number(process.env.BENCH_IPERF_REPEATS ?? '3');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? '2');
type Mode = 'none' | 'wireGuard';

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? (s[(s.length - 1) / 2] ?? 0) : ((s[s.length / 2 - 1] ?? 0) + (s[s.length / 2] ?? 0)) / 2;
};

/** iperf3 TCP throughput from one netns to an address, bits/s (receiver side). */
async function iperf(clientNs: string, serverNs: string, serverIp: string): Promise<number> {
  const srv = run(['ip', 'netns', 'exec', serverNs, 'iperf3', '-s', '-1'], { allowFailure: true, timeoutMs: 120_000 });
  await waitFor('iperf3 server', async () => (await run(['ip', 'netns', 'exec', serverNs, 'ss', '-ltn'], { allowFailure: true })).stdout.includes(':5201'), { timeoutMs: 10_000, intervalMs: 100 });
  const r = await run(['ip', 'netns', 'exec', clientNs, 'iperf3', '-c', serverIp, '-t', String(IPERF_SECONDS), '-J'], { timeoutMs: 120_000 });
  await srv;
  return (JSON.parse(r.stdout) as { end: { sum_received: { bits_per_second: number } } }).end.sum_received.bits_per_second;
}

/** One lab in `mode`, IPERF_REPEATS iperf3 runs across nodes; the lab is brought down after. */
async function series(mode: Mode): Promise<number[]> {
  const labDir = mkdtempSync(join(tmpdir(), 'switchyard-lab-bench-enc-'));
  const lab = (...a: string[]): string => execFileSync(BIN, ['--lab-dir', labDir, ...a], { encoding: 'utf8', timeout: 600_000 });
  lab('up', '--nodes', '2', '--encryption', mode, '--no-controller');
  try {
    const kube = labClient(readState(labDir)!);
    for (const [name, node] of [['cli', 'node1'], ['srv', 'node2']] as const)
      await kube.request('POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { nodeName: node, containers: [{ name: 'c', image: 'iperf3' }] } });
    const pods = new Map<string, { ns: string; ip: string }>();
    await waitFor('pods', async () => {
      for (const name of ['cli', 'srv']) {
        const p = await kube.request<{ metadata: { annotations?: Record<string, string> }; status?: { podIP?: string } }>('GET', `/api/v1/namespaces/default/pods/${name}`);
        const ns = p.metadata.annotations?.[NETNS_ANNOTATION];
        if (ns && p.status?.podIP) pods.set(name, { ns, ip: p.status.podIP });
      }
      return pods.size === 2;
    }, { timeoutMs: 60_000, intervalMs: 200 });
    const cli = pods.get('cli')!;
    const srv = pods.get('srv')!;
    await waitFor('node1 pod -> node2 pod', async () => (await run(['ip', 'netns', 'exec', cli.ns, 'ping', '-c', '1', '-W', '1', srv.ip], { allowFailure: true })).code === 0, { timeoutMs: 30_000, intervalMs: 200 });
    const out: number[] = [];
    for (let i = 0; i < IPERF_REPEATS; i++) out.push(await iperf(cli.ns, srv.ns, srv.ip));
    process.stderr.write(`  ${mode}: ${out.map((b) => Math.round(b / 1e6)).join(', ')} Mbit/s\n`);
    return out;
  } finally {
    lab('down');
    rmSync(labDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  const runs: Record<Mode, number[]> = { none: [], wireGuard: [] };
  for (let r = 0; r < ROUNDS; r++) for (const mode of ['none', 'wireGuard'] as const) runs[mode].push(...(await series(mode)));
  const none = median(runs.none) / 1e6;
  const wg = median(runs.wireGuard) / 1e6;
  const rows = [
    { metric: 'iperf3 node1 pod -> node2 pod, encryption none (Geneve), median', value: Math.round(none * 10) / 10, unit: 'Mbit/s', runs: runs.none.map((b) => Math.round(b / 1e6)) },
    { metric: 'iperf3 node1 pod -> node2 pod, encryption wireGuard (wireguard-go), median', value: Math.round(wg * 10) / 10, unit: 'Mbit/s', runs: runs.wireGuard.map((b) => Math.round(b / 1e6)) },
    { metric: 'ratio wireGuard / none (medians)', value: Math.round((wg / none) * 100) / 100, unit: 'x', runs: [] },
  ];
  const w = Math.max(...rows.map((r) => r.metric.length));
  process.stdout.write(`\n${'metric'.padEnd(w)}  ${'value'.padStart(8)}  unit     runs\n`);
  for (const r of rows) process.stdout.write(`${r.metric.padEnd(w)}  ${String(r.value).padStart(8)}  ${r.unit.padEnd(7)}  ${r.runs.join(', ')}\n`);
  const setup = `${ROUNDS} labs per mode, alternated; ${IPERF_REPEATS} x ${IPERF_SECONDS} s iperf3 each; no controller; OVS userspace datapath`;
  writeFileSync(join(ROOT, 'bench/encryption-results.json'), `${JSON.stringify({ date: new Date().toISOString(), seconds: Math.round((Date.now() - started) / 1000), setup, rows }, null, 2)}\n`);
}

void main().catch((e: unknown) => {
  process.stderr.write(`bench failed: ${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
