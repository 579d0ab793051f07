// Benchmark: allocations/s and p99 of this store in-process vs the real host-local binary exec'd
// as a runtime would, and the cost of one allocation in a /16 that is 99% full.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HostLocalStore, formatIp } from '../src/index';
import { hostLocalAsync } from '../test-integration/fixtures/host-local-bin';

interface Row {
  name: string;
  ops: number;
  opsPerSec: number;
  p50us: number;
  p99us: number;
}

const network = 'bench';
const ranges = [[{ subnet: '10.128.0.0/16' }]];
const rows: Row[] = [];
// BENCH_DIR picks the file system: /var/lib/cni lives on the root disk on most nodes, tmpfs shows the allocator itself.
const benchDir = process.env['BENCH_DIR'] ?? os.tmpdir();
const root = fs.mkdtempSync(path.join(benchDir, 'ipam-bench-'));
const here = path.dirname(new URL(import.meta.url).pathname);
let runNo = 0;
const freshDir = () => path.join(root, `run-${runNo++}`);

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
function record(name: string, latNs: bigint[], wallNs: bigint): Row {
  const us = latNs.map((n) => Number(n) / 1000).sort((a, b) => a - b);
  const row = { name, ops: us.length, opsPerSec: Math.round((us.length * 1e9) / Number(wallNs)), p50us: Math.round(pct(us, 50)), p99us: Math.round(pct(us, 99)) };
  rows.push(row);
  console.error(`  ${name}: ${row.opsPerSec} ops/s, p99 ${row.p99us} µs`);
  return row;
}

/** Sequential ADDs, each awaited before the next (a runtime starting pods one by one). */
async function sequential(name: string, n: number, op: (i: number) => Promise<unknown>): Promise<Row> {
  const lat: bigint[] = [];
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const s = process.hrtime.bigint();
    await op(i);
    lat.push(process.hrtime.bigint() - s);
  }
  return record(name, lat, process.hrtime.bigint() - t0);
}

/** `concurrency` ADDs in flight at once (a busy agent's CNI server). */
async function concurrent(name: string, n: number, concurrency: number, op: (i: number) => Promise<unknown>): Promise<Row> {
  const lat: bigint[] = [];
  let next = 0;
  const t0 = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        const s = process.hrtime.bigint();
        await op(i);
        lat.push(process.hrtime.bigint() - s);
      }
    }),
  );
  return record(name, lat, process.hrtime.bigint() - t0);
}

/** Writes a /16 directory that is `fraction` full, with the free addresses scattered at random. */
function prefill(dataDir: string, fraction: number): number {
  const dir = path.join(dataDir, network);
  fs.mkdirSync(dir, { recursive: true });
  const base = 0x0a800000;
  let n = 0;
  let seed = 12345;
  const rand = () => ((seed = (seed * 48271) % 2147483647) / 2147483647);
  for (let off = 2; off <= 65534; off++) {
    if (rand() >= fraction) continue;
    fs.writeFileSync(path.join(dir, formatIp(4, BigInt(base + off))), `prefill-${off}\r\neth0`);
    n++;
  }
  return n;
}

async function main(): Promise<void> {
  const N_EXEC = Number(process.env['BENCH_EXEC_OPS'] ?? 300);
  const N_INPROC = Number(process.env['BENCH_OPS'] ?? 20000);
  console.error(`ipam bench (${os.cpus().length} cpus, node ${process.version}, data in ${benchDir})`);

  // 1. the real host-local, exec'd per ADD with env + stdin config, as kubelet/containerd would
  {
    const dataDir = freshDir();
    await sequential('host-local exec, sequential ADD', N_EXEC, (i) =>
      hostLocalAsync({ command: 'ADD', dataDir, network, ranges, containerId: `hl-${i}` }).then((r) => {
        if (!r.ok) throw new Error(r.error);
      }),
    );
  }
  // 2. this store in-process
  for (const mode of ['perl-helper', 'flock-command'] as const) {
    const store = await HostLocalStore.open({ dataDir: freshDir(), network, ranges, lock: mode });
    const n = mode === 'perl-helper' ? N_INPROC : Math.min(N_INPROC, 500);
    await sequential(`in-process (${mode} lock), sequential ADD`, n, (i) => store.add({ containerId: `seq-${i}`, ifname: 'eth0' }));
    await concurrent(`in-process (${mode} lock), 64 concurrent ADD`, n, 64, (i) => store.add({ containerId: `con-${i}`, ifname: 'eth0' }));
    await store.close();
  }
  {
    const store = await HostLocalStore.open({ dataDir: freshDir(), network, ranges, lockHoldMs: 2 });
    await sequential('in-process (perl-helper lock, lockHoldMs 2), sequential ADD', N_INPROC, (i) => store.add({ containerId: `lin-${i}`, ifname: 'eth0' }));
    await store.close();
  }
  {
    const store = await HostLocalStore.open({ dataDir: freshDir(), network, ranges });
    const lat: bigint[] = [];
    const t0 = process.hrtime.bigint();
    for (let b = 0; b < N_INPROC / 100; b++) {
      await store.batch((tx) => {
        for (let k = 0; k < 100; k++) {
          const s = process.hrtime.bigint();
          tx.add({ containerId: `b-${b}-${k}`, ifname: 'eth0' });
          lat.push(process.hrtime.bigint() - s);
        }
      });
    }
    record('in-process, batch of 100 ADD per lock', lat, process.hrtime.bigint() - t0);
    await store.close();
  }

  // 3. cost of one allocation (ADD then DEL, so fullness stays put) in a /16 at 1% and 99%
  const fullness: Record<string, unknown> = {};
  for (const fraction of [0.01, 0.99]) {
    const dataDir = freshDir();
    const files = prefill(dataDir, fraction);
    const t0 = process.hrtime.bigint();
    const store = await HostLocalStore.open({ dataDir, network, ranges });
    const openMs = Number(process.hrtime.bigint() - t0) / 1e6;
    const label = `${Math.round(fraction * 100)}% full /16`;
    const ours = await sequential(`in-process ADD+DEL, ${label}`, 5000, async (i) => {
      await store.add({ containerId: `f-${i}`, ifname: 'eth0' });
      await store.del({ containerId: `f-${i}`, ifname: 'eth0' });
    });
    await store.close();
    const hl = await sequential(`host-local exec ADD+DEL, ${label}`, fraction > 0.5 ? 20 : 100, async (i) => {
      const call = { dataDir, network, ranges, containerId: `h-${i}` };
      const r = await hostLocalAsync({ command: 'ADD', ...call });
      if (!r.ok) throw new Error(r.error);
      await hostLocalAsync({ command: 'DEL', ...call });
    });
    fullness[label] = { files, openMs: Math.round(openMs), oursP50us: ours.p50us, oursP99us: ours.p99us, hostLocalP50us: hl.p50us };
  }

  const hostLocalRate = rows[0]?.opsPerSec ?? 1;
  const ratio = (name: string) => Math.round(((rows.find((r) => r.name === name)?.opsPerSec ?? 0) / hostLocalRate) * 10) / 10;
  const summary = {
    hostLocalExecPerSec: hostLocalRate,
    sequentialRatio: ratio('in-process (perl-helper lock), sequential ADD'),
    concurrentRatio: ratio('in-process (perl-helper lock), 64 concurrent ADD'),
    lingerRatio: ratio('in-process (perl-helper lock, lockHoldMs 2), sequential ADD'),
    batchRatio: ratio('in-process, batch of 100 ADD per lock'),
    fullness,
  };
  console.log('| benchmark | ops | ops/s | p50 µs | p99 µs | × host-local exec |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const r of rows) console.log(`| ${r.name} | ${r.ops} | ${r.opsPerSec} | ${r.p50us} | ${r.p99us} | ${(r.opsPerSec / hostLocalRate).toFixed(1)} |`);
  console.log(JSON.stringify(summary, null, 2));
  fs.writeFileSync(
    path.join(here, process.env['BENCH_OUT'] ?? 'results.json'),
    `${JSON.stringify({ date: new Date().toISOString(), node: process.version, cpus: os.cpus().length, dir: benchDir, rows, summary }, null, 2)}\n`,
  );
  fs.rmSync(root, { recursive: true, force: true });
}

main().catch((e: unknown) => {
  console.error(e);
  fs.rmSync(root, { recursive: true, force: true });
  process.exit(1);
});
