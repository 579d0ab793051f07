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
import { IPERF_REPEATS, IPERF_SECONDS, iperf, iperfPods, median } from './iperf';

const ROOT = process.cwd();
const BIN = join(ROOT, 'bin/switchyard-lab');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? '2');
type Mode = 'none' | 'wireGuard';

/** One lab in `mode`, IPERF_REPEATS iperf3 runs across nodes; the lab is brought down after. */
async function series(mode: Mode): Promise<number[]> {
  const labDir = mkdtempSync(join(tmpdir(), 'switchyard-lab-bench-enc-'));
  const lab = (...a: string[]): string => execFileSync(BIN, ['--lab-dir', labDir, ...a], { encoding: 'utf8', timeout: 600_000 });
  lab('up', '--nodes', '2', '--encryption', mode, '--no-controller');
  try {
    const kube = labClient(readState(labDir)!);
    const { cli, srv } = await iperfPods(kube);
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
