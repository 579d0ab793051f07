// The single add + barrier alone: the library and pre-encoded bytes on a raw socket take turns
// against one fresh ovs-vswitchd, for profiling and A/B runs of the per-call path (run.ts has the
// same row after its bundle rounds). Env: SINGLE_N (timed pairs, default 2000), SINGLE_WARM
// (untimed each, default 500), SINGLE_GAP_US (idle wait before each timed call, both sides; default 0),
// SINGLE_RAW_FIRST=1 (the raw add first in each pair), SINGLE_SPLIT=1, SINGLE_RAW2=1 and
// SINGLE_RAW_CONFIG=1 (below). `npx tsx bench/single-add.ts`; prints one JSON line.
import fs from 'node:fs';
import os from 'node:os';
import type { Socket } from 'node:net';
import { Testbed } from '@switchyard/testbed';
import { encodeMessage } from '../src/messages';
import { benchSwitch } from './bench-switch';
import { encodeAddWithBarrier, RawSwitch } from './raw-switch';

const N = Number(process.env['SINGLE_N'] ?? 2000);
const WARM = Number(process.env['SINGLE_WARM'] ?? 500);
const GAP_US = Number(process.env['SINGLE_GAP_US'] ?? 0);
const SPLIT = process.env['SINGLE_SPLIT'] === '1';
const RAW_CONFIG = process.env['SINGLE_RAW_CONFIG'] === '1';
const RAW2 = process.env['SINGLE_RAW2'] === '1';
const RAW_FIRST = process.env['SINGLE_RAW_FIRST'] === '1';

const pct = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
const TICK = 100;
function procCpuSec(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / TICK;
}
/** Busy-waits `us` microseconds (a timer would add its own wake-up to the next call). */
function spin(us: number): void {
  if (us <= 0) return;
  const until = process.hrtime.bigint() + BigInt(us * 1000);
  while (process.hrtime.bigint() < until);
}

async function main(): Promise<void> {
  const tb = await Testbed.create();
  try {
    const { sock, vswitchdPid, conn } = await benchSwitch(tb);
    // SINGLE_RAW2=1: the library's turns go to a second raw connection instead (opened before the
    // first, configured like the library's when SINGLE_RAW_CONFIG=1): the switch's own difference
    // between two connections, with no library code on either.
    const raw2 = RAW2 ? await RawSwitch.connect(sock) : undefined;
    const raw = await RawSwitch.connect(sock);
    if (RAW_CONFIG) for (const r of raw2 ? [raw2] : [raw]) {
      // The library's session setup on the raw connection too: set-config miss_send_len, nxt2 packet-ins.
      const setup = [encodeMessage({ type: 'setConfig', flags: 0, missSendLen: 0xffff }, 0x0e000001), encodeMessage({ type: 'setPacketInFormat', format: 'nxt2' }, 0x0e000002), encodeMessage({ type: 'barrierRequest' }, 0x0e000003)];
      const bytes = new Uint8Array(setup.reduce((n, b) => n + b.length, 0));
      setup.reduce((at, b) => (bytes.set(b, at), at + b.length), 0);
      if ((await r.send(bytes, 0x0e000003)) > 0) throw new Error('raw session setup failed');
    }
    const rawPair = (table: number, i: number, xid: number) =>
      encodeAddWithBarrier({ type: 'flowMod', command: 'add', flow: { table, priority: 100, match: { reg0: i }, actions: [{ type: 'output', port: 1 }] } }, xid);
    for (let i = 0; i < WARM; i++) {
      if (raw2) {
        const p2 = rawPair(23, i, 0x0d000000 + 2 * i);
        if ((await raw2.send(p2.bytes, p2.barrierXid)) > 0) throw new Error('raw2 warm-up add failed');
      } else await conn.addFlow({ table: 23, priority: 100, match: { reg0: i }, actions: [{ type: 'output', port: 1 }] });
      const p = rawPair(24, i, 0x0f000000 + 2 * i);
      if ((await raw.send(p.bytes, p.barrierXid)) > 0) throw new Error('raw warm-up add failed');
    }
    const raw2Pairs = Array.from({ length: raw2 ? N : 0 }, (_, i) => rawPair(20, i, 0x20000000 + 2 * i));
    const rawPairs = Array.from({ length: N }, (_, i) => rawPair(22, i, 0x10000000 + 2 * i));
    const lat: number[] = [];
    const rawLat: number[] = [];
    const c0 = process.cpuUsage();
    const load0 = os.loadavg();
    const s0 = procCpuSec(vswitchdPid);
    const t0 = process.hrtime.bigint();
    // SINGLE_SPLIT=1: each call split at its socket write and at its reply's arrival ('data'),
    // to tell client work from the switch's round trip (wraps the sockets; diagnosis only).
    const split = { lib: { send: [] as number[], wire: [] as number[], recv: [] as number[] }, raw: { send: [] as number[], wire: [] as number[], recv: [] as number[] } };
    let tw = 0n;
    let td = 0n;
    if (SPLIT) {
      for (const s of [((raw2 ?? conn) as unknown as { socket: Socket }).socket, (raw as unknown as { socket: Socket }).socket]) {
        const write = s.write.bind(s) as (b: Uint8Array) => boolean;
        (s as unknown as { write: (b: Uint8Array) => boolean }).write = (b) => {
          const r = write(b);
          tw = process.hrtime.bigint();
          return r;
        };
        s.prependListener('data', () => {
          td = process.hrtime.bigint();
        });
      }
    }
    const record = (side: 'lib' | 'raw', t: bigint, end: bigint): void => {
      if (!SPLIT) return;
      split[side].send.push(Number(tw - t) / 1e3);
      split[side].wire.push(Number(td - tw) / 1e3);
      split[side].recv.push(Number(end - td) / 1e3);
    };
    const lib = async (i: number): Promise<void> => {
      spin(GAP_US);
      const t = process.hrtime.bigint();
      if (raw2) {
        const p = raw2Pairs[i]!;
        if ((await raw2.send(p.bytes, p.barrierXid)) > 0) throw new Error('raw2 single add failed');
      } else await conn.addFlow({ table: 20, priority: 100, match: { reg0: i }, actions: [{ type: 'output', port: 1 }] });
      const end = process.hrtime.bigint();
      lat.push(Number(end - t) / 1e6);
      record('lib', t, end);
    };
    const bare = async (i: number): Promise<void> => {
      spin(GAP_US);
      const p = rawPairs[i]!;
      const t = process.hrtime.bigint();
      const errors = await raw.send(p.bytes, p.barrierXid);
      const end = process.hrtime.bigint();
      rawLat.push(Number(end - t) / 1e6);
      record('raw', t, end);
      if (errors > 0) throw new Error('raw single add failed');
    };
    for (let i = 0; i < N; i++) {
      if (RAW_FIRST) {
        await bare(i);
        await lib(i);
      } else {
        await lib(i);
        await bare(i);
      }
    }
    const wall = Number(process.hrtime.bigint() - t0) / 1e9;
    const switchCpu = procCpuSec(vswitchdPid) - s0;
    lat.sort((a, b) => a - b);
    rawLat.sort((a, b) => a - b);
    raw.close();
    raw2?.close();
    await conn.close();
    const r = {
      n: N,
      gapUs: GAP_US,
      rawP50: pct(rawLat, 50),
      libraryP50: pct(lat, 50),
      rawP99: pct(rawLat, 99),
      libraryP99: pct(lat, 99),
      libraryOfRaw: pct(rawLat, 50) / pct(lat, 50),
      clientCpuUsPerPair: (() => {
        const c = process.cpuUsage(c0);
        return (c.user + c.system) / N;
      })(),
      rawFirst: RAW_FIRST,
      rawConfig: RAW_CONFIG,
      raw2: RAW2,
      ...(SPLIT
        ? {
            splitUsP50: Object.fromEntries(
              Object.entries(split).map(([side, parts]) => [side, Object.fromEntries(Object.entries(parts).map(([k, xs]) => [k, pct(xs.sort((a, b) => a - b), 50)]))]),
            ),
          }
        : {}),
      switchCpuSec: switchCpu,
      wallSec: wall,
      load: [load0, os.loadavg()],
    };
    console.log(JSON.stringify(r));
  } finally {
    await tb.cleanup();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
