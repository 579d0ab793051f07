// New connections and request/response through the pipeline (issue #32's TCP_CRR / UDP_RR rows):
// bench/rr.c, compiled here with the system's C compiler, runs as the server in one pod's network
// namespace and as the client in another. Medians of repeated runs, transactions per second.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { run } from '@switchyard/testbed';
import { REPO_ROOT } from '../src/lab';
import { median } from './iperf';

/** The port the rr server listens on (TCP and UDP). */
export const RR_PORT = 7777;
export const RR_SECONDS = Number(process.env.BENCH_RR_SECONDS ?? '3');
export const RR_REPEATS = Number(process.env.BENCH_RR_REPEATS ?? '3');
/** Client processes per run (netperf runs one stream). */
export const RR_PARALLEL = Number(process.env.BENCH_RR_PARALLEL ?? '1');

let binary: string | undefined;

/** bench/rr.c compiled once per bench process. */
export async function rrBinary(): Promise<string> {
  if (binary) return binary;
  const out = join(mkdtempSync(join(tmpdir(), 'sy-rr-')), 'rr');
  await run(['cc', '-O2', '-o', out, join(REPO_ROOT, 'tools/lab/bench/rr.c')], { timeoutMs: 60_000 });
  binary = out;
  return out;
}

/** An rr server in a network namespace; `stop()` ends it (its workers follow it). */
export interface RrServer {
  stop(): Promise<void>;
}

export async function startRrServer(netns: string): Promise<RrServer> {
  const bin = await rrBinary();
  // `ip netns exec` execs the program: the child is the server itself.
  const child: ChildProcess = spawn('ip', ['netns', 'exec', netns, bin, 'server', String(RR_PORT), '4'], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`rr server in ${netns} exited with ${String(code)}`)));
    createInterface({ input: child.stdout! }).once('line', () => resolve());
  });
  return {
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await gone;
    },
  };
}

/**
 * One run: transactions per second from `clientNs` to `ip` (on `port`: a Service's node port may
 * differ from the server's); errors make it fail (a blocked path is not a figure).
 */
export async function rrOnce(clientNs: string, ip: string, mode: 'tcp_crr' | 'udp_rr', port = RR_PORT): Promise<number> {
  const bin = await rrBinary();
  const r = await run(['ip', 'netns', 'exec', clientNs, bin, mode, ip, String(port), String(RR_SECONDS), String(RR_PARALLEL)], { timeoutMs: (RR_SECONDS + 30) * 1000 });
  const [done, secs, errors] = r.stdout.trim().split(/\s+/).map(Number) as [number, number, number];
  if (errors > done / 100) throw new Error(`${mode} ${clientNs} -> ${ip}:${port}: ${errors} failed transactions of ${done + errors}`);
  return done / secs;
}

/** RR_REPEATS runs of each mode, alternating; the medians and the runs. */
export async function rrSeries(clientNs: string, ip: string): Promise<Record<'tcp_crr' | 'udp_rr', { median: number; runs: number[] }>> {
  const runs: Record<'tcp_crr' | 'udp_rr', number[]> = { tcp_crr: [], udp_rr: [] };
  for (let i = 0; i < RR_REPEATS; i++) for (const m of ['tcp_crr', 'udp_rr'] as const) runs[m].push(await rrOnce(clientNs, ip, m));
  return {
    tcp_crr: { median: median(runs.tcp_crr), runs: runs.tcp_crr },
    udp_rr: { median: median(runs.udp_rr), runs: runs.udp_rr },
  };
}
