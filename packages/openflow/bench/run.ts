// Benchmark: 100k conjunction-style flows into a real userspace switch, this library (bundles) vs
// `ovs-ofctl -O OpenFlow15 --bundle add-flows` in the same run; modify 10%, delete all; single-flow
// add latency (barrier acknowledged); dump-flows text parse rate.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import v8 from 'node:v8';
import vm from 'node:vm';
import path from 'node:path';
import { Testbed } from '@switchyard/testbed';
import { parseDumpFlows, renderFlow, type Flow } from '../src/index';
import type { OfMessage } from '../src/messages';
import { benchSwitch } from './bench-switch';
import { encodeAddWithBarrier, encodeBundle, RawSwitch, type EncodedBundle } from './raw-switch';

const N = Number(process.env['BENCH_FLOWS'] ?? 100_000);
const here = path.dirname(new URL(import.meta.url).pathname);

/** Antrea-style NetworkPolicy flows: address and port clauses of conjunctions, plus the conj_id flows. */
function conjunctionFlows(n: number): Flow[] {
  const flows: Flow[] = [];
  const rules = Math.max(1, Math.floor(n / 100));
  for (let i = 0; flows.length < n; i++) {
    const id = (i % rules) + 1;
    const kind = i % 10;
    if (kind < 7) {
      flows.push({
        table: 8,
        priority: 200,
        cookie: 0x0500000000000000n | BigInt(id),
        match: { ethType: 0x0800, ipv4Src: `10.${(i >> 16) & 0xff}.${(i >> 8) & 0xff}.${i & 0xff}` },
        actions: [{ type: 'conjunction', id, clause: 1, nClauses: 2 }],
      });
    } else if (kind < 9) {
      flows.push({
        table: 8,
        priority: 200,
        cookie: 0x0500000000000000n | BigInt(id),
        match: { ethType: 0x0800, ipProto: 6, reg1: i & 0xffffffff, tcpDst: 1 + (i % 60000) },
        actions: [{ type: 'conjunction', id, clause: 2, nClauses: 2 }],
      });
    } else {
      flows.push({
        table: 8,
        priority: 190,
        cookie: 0x0500000000000000n | BigInt(id),
        match: { conjId: i, ethType: 0x0800 },
        actions: [{ type: 'setField', field: 'reg3', value: id }, { type: 'gotoTable', table: 9 }],
      });
    }
  }
  return flows;
}

function ofctl(...args: string[]): void {
  const r = spawnSync('ovs-ofctl', args, { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`ovs-ofctl ${args.join(' ')}: ${r.stderr}`);
}
function ofctlOut(...args: string[]): string {
  const r = spawnSync('ovs-ofctl', args, { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`ovs-ofctl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}
const secs = (t0: bigint): number => Number(process.hrtime.bigint() - t0) / 1e9;

/** One timed step: wall clock, CPU of the client process, CPU ovs-vswitchd spent meanwhile. */
interface Sample {
  wallSec: number;
  clientCpuSec: number;
  switchCpuSec: number;
}
const TICK = 100; // USER_HZ: /proc/<pid>/stat counts CPU time in 1/100 s
/** utime + stime of `pid` in seconds. */
function procCpuSec(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / TICK;
}
/**
 * Waits until ovs-vswitchd has stopped using CPU (no tick counted over 50 ms, at most 3 s). After
 * a bundle is acknowledged the switch still frees the rules it replaced or deleted, on its RCU
 * thread: the step right after pays for that unless the switch is left to finish. Without this,
 * whichever side followed the raw round in the rotation (the library, in 3 rounds of 5) started
 * its install while the switch was still freeing 100k rules, and its whole round was slower.
 */
async function settle(switchPid: number): Promise<void> {
  const until = Date.now() + 3000;
  let last = procCpuSec(switchPid);
  let quiet = 0;
  while (quiet < 2 && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    const now = procCpuSec(switchPid);
    quiet = now === last ? quiet + 1 : 0;
    last = now;
  }
}
/** Runs `fn` in this process and measures it, once the switch is idle. */
async function measure(switchPid: number, fn: () => Promise<unknown>): Promise<Sample> {
  await settle(switchPid);
  const s0 = procCpuSec(switchPid);
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  await fn();
  const wallSec = secs(t0);
  const c = process.cpuUsage(c0);
  return { wallSec, clientCpuSec: (c.user + c.system) / 1e6, switchCpuSec: procCpuSec(switchPid) - s0 };
}
/** CPU time of this process's waited-for children (ovs-ofctl run by spawnSync counts once it exits). */
function childrenCpuSec(): number {
  const stat = fs.readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[13]) + Number(f[14])) / TICK;
}
/** Runs ovs-ofctl and measures it (its CPU time is the client's). */
async function timedOfctl(switchPid: number, ...args: string[]): Promise<Sample> {
  await settle(switchPid);
  const s0 = procCpuSec(switchPid);
  const c0 = childrenCpuSec();
  const t0 = process.hrtime.bigint();
  const r = spawnSync('ovs-ofctl', args, { encoding: 'utf8', maxBuffer: 1 << 30 });
  const wallSec = secs(t0);
  if (r.status !== 0) throw new Error(`ovs-ofctl ${args.join(' ')}: ${r.stderr}`);
  return { wallSec, clientCpuSec: childrenCpuSec() - c0, switchCpuSec: procCpuSec(switchPid) - s0 };
}
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
/** Each field's median over the samples. */
const medianSample = (xs: Sample[]): Sample => ({
  wallSec: median(xs.map((x) => x.wallSec)),
  clientCpuSec: median(xs.map((x) => x.clientCpuSec)),
  switchCpuSec: median(xs.map((x) => x.switchCpuSec)),
});
const pct = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;

async function main(): Promise<void> {
  const tb = await Testbed.create();
  try {
    const { ovs, sock, vswitchdPid, conn } = await benchSwitch(tb);
    const flows = conjunctionFlows(N);
    // 10% of the flows get new actions (another conjunction id / register value).
    const modified = flows
      .filter((_, i) => i % 10 === 0)
      .map((f) => ({
        ...f,
        actions: f.actions.map((a) => (a.type === 'conjunction' ? { ...a, id: a.id + 100_000 } : a.type === 'setField' ? { ...a, value: 7 } : a)) as Flow['actions'],
      }));
    const count = async (): Promise<number> => (await conn.aggregate()).flows;

    // Reference: ovs-ofctl from files (rendering the files is not timed).
    const addFile = path.join(ovs.dir, 'add.flows');
    const modFile = path.join(ovs.dir, 'mod.flows');
    fs.writeFileSync(addFile, flows.map(renderFlow).join('\n') + '\n');
    fs.writeFileSync(modFile, modified.map(renderFlow).join('\n') + '\n');
    const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 5);
    const mem = (): { rss: number; heap: number } => {
      const m = process.memoryUsage();
      return { rss: m.rss, heap: m.heapUsed + m.external + m.arrayBuffers };
    };
    // A full GC before each library install, so the peak growth is what the install itself holds.
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    let mem0 = mem();
    let rssGrowth = 0;
    let heapGrowth = 0;
    let dumpText = '';

    // The switch's own limit: the same bundles pre-encoded (before any clock starts) and written to
    // a plain unix socket; only reply headers are read. Each round gets fresh bundle ids and xids.
    const raw = await RawSwitch.connect(sock);
    const deleteAll: OfMessage = { type: 'flowMod', command: 'delete', flow: { table: 0xff, priority: 0, match: {}, actions: [] } };
    const encodeRound = (round: number): { add: EncodedBundle; mod: EncodedBundle; modStrict: EncodedBundle; del: EncodedBundle } => {
      const asMods = (list: Flow[], command: 'add' | 'modifyStrict'): OfMessage[] => list.map((flow) => ({ type: 'flowMod', command, flow }) as OfMessage);
      const base = 1 + round * 4 * (N + 8);
      const add = encodeBundle(asMods(flows, 'add'), 4 * round + 1, base);
      const mod = encodeBundle(asMods(modified, 'add'), 4 * round + 2, base + N + 4);
      const modStrict = encodeBundle(asMods(modified, 'modifyStrict'), 4 * round + 3, base + 2 * N + 8);
      const del = encodeBundle([deleteAll], 4 * round + 4, base + 3 * N + 12);
      return { add, mod, modStrict, del };
    };
    const rawSend = async (b: EncodedBundle): Promise<void> => {
      const errors = await raw.sendBundle(b);
      if (errors > 0) throw new Error(`raw bundle: ${errors} OpenFlow errors`);
    };

    type Tool = 'raw' | 'library' | 'ovsOfctl';
    type Step = 'install' | 'modify' | 'modifyStrict' | 'delete';
    const samples: Record<Tool, Partial<Record<Step, Sample[]>>> = { raw: {}, library: {}, ovsOfctl: {} };
    const record = (tool: Tool, step: Step, s: Sample): void => {
      (samples[tool][step] ??= []).push(s);
    };
    const rounds: Record<Tool, (round: number) => Promise<void>> = {
      raw: async (round) => {
        const b = encodeRound(round);
        record('raw', 'install', await measure(vswitchdPid, () => rawSend(b.add)));
        if ((await count()) !== N) throw new Error('raw bundle did not install all flows');
        record('raw', 'modify', await measure(vswitchdPid, () => rawSend(b.mod)));
        // The library's delete follows its modify_strict step: the raw side does the same work
        // before its delete (it timed its delete right after the modify, with 10k fewer rules
        // replaced and their old versions not yet freed by the switch).
        record('raw', 'modifyStrict', await measure(vswitchdPid, () => rawSend(b.modStrict)));
        record('raw', 'delete', await measure(vswitchdPid, () => rawSend(b.del)));
        if ((await count()) !== 0) throw new Error('raw bundle did not delete all flows');
      },
      library: async (round) => {
        gc();
        mem0 = mem();
        const sampler = setInterval(() => {
          const m = mem();
          rssGrowth = Math.max(rssGrowth, m.rss - mem0.rss);
          heapGrowth = Math.max(heapGrowth, m.heap - mem0.heap);
        }, 10);
        record('library', 'install', await measure(vswitchdPid, () => conn.installFlows(flows)));
        clearInterval(sampler);
        if ((await count()) !== N) throw new Error('library did not install all flows');
        record('library', 'modify', await measure(vswitchdPid, () => conn.installFlows(modified, 'add')));
        record('library', 'modifyStrict', await measure(vswitchdPid, () => conn.installFlows(modified, 'modifyStrict')));
        if (round === 0) {
          dumpText = ofctlOut('-O', 'OpenFlow15', '--no-names', 'dump-flows', sock);
          if (process.env['BENCH_SAVE_DUMP']) fs.writeFileSync(process.env['BENCH_SAVE_DUMP'], dumpText);
        }
        record('library', 'delete', await measure(vswitchdPid, () => conn.bundle([deleteAll])));
        if ((await count()) !== 0) throw new Error('library did not delete all flows');
      },
      ovsOfctl: async () => {
        record('ovsOfctl', 'install', await timedOfctl(vswitchdPid, '-O', 'OpenFlow15', '--bundle', 'add-flows', sock, addFile));
        if ((await count()) !== N) throw new Error('ovs-ofctl did not install all flows');
        // mod-flows takes one flow, not a file: a bundle of add-flows with the same match and priority
        // replaces those flows, which is how a file of changes is applied with ovs-ofctl.
        record('ovsOfctl', 'modify', await timedOfctl(vswitchdPid, '-O', 'OpenFlow15', '--bundle', 'add-flows', sock, modFile));
        record('ovsOfctl', 'delete', await timedOfctl(vswitchdPid, '-O', 'OpenFlow15', '--bundle', 'del-flows', sock));
        if ((await count()) !== 0) throw new Error('ovs-ofctl did not delete all flows');
      },
    };
    // The machine is shared: every round runs all three against the same switch, in an order that
    // rotates from round to round so that none always goes first; medians over the rounds.
    const order: Tool[] = ['raw', 'library', 'ovsOfctl'];
    const loadBefore = os.loadavg();
    for (let round = 0; round < ROUNDS; round++) {
      for (let k = 0; k < order.length; k++) await rounds[order[(round + k) % order.length]!](round);
      console.error(`  round ${round + 1}/${ROUNDS} done`);
    }
    const loadAfter = os.loadavg();
    const med = (tool: Tool, step: Step): Sample => medianSample(samples[tool][step] ?? []);
    const ourAdd = med('library', 'install').wallSec;
    const ourMod = med('library', 'modify').wallSec;
    const ourModStrict = med('library', 'modifyStrict').wallSec;
    const ourDel = med('library', 'delete').wallSec;
    const refAdd = med('ovsOfctl', 'install').wallSec;
    const refMod = med('ovsOfctl', 'modify').wallSec;
    const refDel = med('ovsOfctl', 'delete').wallSec;

    // Single-flow add latency, acknowledged by a barrier: the library and pre-encoded flow_mod +
    // barrier pairs on the raw socket take turns, one add each, so both see the switch in the same
    // state (right after the rounds' delete-all it is still freeing 100k rules). Both first do 500
    // untimed round trips of their own: the bundle rounds never ran the library's flow-mod + barrier
    // path (cold, its p50 was 4x the warm one in a separate run).
    const WARM = 500;
    const rawPair = (table: number, i: number, xid: number) =>
      encodeAddWithBarrier({ type: 'flowMod', command: 'add', flow: { table, priority: 100, match: { reg0: i }, actions: [{ type: 'output', port: 1 }] } }, xid);
    for (let i = 0; i < WARM; i++) {
      await conn.addFlow({ table: 23, priority: 100, match: { reg0: i }, actions: [{ type: 'output', port: 1 }] });
      const p = rawPair(24, i, 0x0f000000 + 2 * i);
      if ((await raw.send(p.bytes, p.barrierXid)) > 0) throw new Error('raw warm-up add failed');
    }
    const rawPairs = Array.from({ length: 2000 }, (_, i) => rawPair(22, i, 0x10000000 + 2 * i));
    const lat: number[] = [];
    const rawLat: number[] = [];
    for (let i = 0; i < 2000; i++) {
      let t = process.hrtime.bigint();
      await conn.addFlow({ table: 20, priority: 100, match: { reg0: i }, actions: [{ type: 'output', port: 1 }] });
      lat.push(Number(process.hrtime.bigint() - t) / 1e6);
      const p = rawPairs[i]!;
      t = process.hrtime.bigint();
      const errors = await raw.send(p.bytes, p.barrierXid);
      rawLat.push(Number(process.hrtime.bigint() - t) / 1e6);
      if (errors > 0) throw new Error('raw single add failed');
    }
    lat.sort((a, b) => a - b);
    rawLat.sort((a, b) => a - b);
    raw.close();
    const refLat: number[] = [];
    for (let i = 0; i < 50; i++) {
      const t = process.hrtime.bigint();
      ofctl('-O', 'OpenFlow15', 'add-flow', sock, `table=21,priority=100,reg0=${i},actions=output:1`);
      refLat.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
    refLat.sort((a, b) => a - b);

    // Parse rate of `ovs-ofctl dump-flows` text (the 100k flows after the modify step): the first
    // (cold, JIT warming up) parse, then the best of 3 warm ones, wall clock and CPU time.
    let t0 = process.hrtime.bigint();
    const parsed = parseDumpFlows(dumpText);
    const parseColdSecs = secs(t0);
    if (parsed.length !== N) throw new Error(`parsed ${parsed.length} flows of ${N}`);
    let parseSecs = Infinity;
    let parseCpuSecs = Infinity;
    for (let i = 0; i < 3; i++) {
      const c0 = process.cpuUsage();
      t0 = process.hrtime.bigint();
      parseDumpFlows(dumpText);
      parseSecs = Math.min(parseSecs, secs(t0));
      const c = process.cpuUsage(c0);
      parseCpuSecs = Math.min(parseCpuSecs, (c.user + c.system) / 1e6);
    }

    await conn.close();
    /** Raw socket, library, ovs-ofctl for one step; libraryOfRaw = library throughput / raw throughput. */
    const limitRow = (step: Step): { raw: Sample; library: Sample; ovsOfctl: Sample; libraryOfRaw: number; ovsOfctlOfRaw: number } => {
      const r = med('raw', step);
      const l = med('library', step);
      const o = med('ovsOfctl', step);
      return { raw: r, library: l, ovsOfctl: o, libraryOfRaw: r.wallSec / l.wallSec, ovsOfctlOfRaw: r.wallSec / o.wallSec };
    };
    const results = {
      flows: N,
      date: new Date().toISOString(),
      ovs: ofctlOut('--version').split('\n')[0],
      install: { librarySec: ourAdd, ovsOfctlSec: refAdd, ratio: refAdd / ourAdd },
      modify10pct: { librarySec: ourMod, ovsOfctlSec: refMod, ratio: refMod / ourMod, libraryModifyStrictSec: ourModStrict },
      rounds: ROUNDS,
      statistic: 'median',
      deleteAll: { librarySec: ourDel, ovsOfctlSec: refDel, ratio: refDel / ourDel },
      singleAddMs: { p50: pct(lat, 50), p99: pct(lat, 99), ovsOfctlP50: pct(refLat, 50), ovsOfctlP99: pct(refLat, 99) },
      parse: {
        flows: parsed.length,
        warmSec: parseSecs,
        flowsPerSec: parsed.length / parseSecs,
        flowsPerCpuSec: parsed.length / parseCpuSecs,
        coldSec: parseColdSecs,
        coldFlowsPerSec: parsed.length / parseColdSecs,
      },
      limits: {
        install: limitRow('install'),
        modify10pct: limitRow('modify'),
        deleteAll: limitRow('delete'),
        // ovs-ofctl has no modify_strict step in the rounds: raw and library only.
        modifyStrict10pct: { raw: med('raw', 'modifyStrict'), library: med('library', 'modifyStrict'), libraryOfRaw: med('raw', 'modifyStrict').wallSec / med('library', 'modifyStrict').wallSec },
        singleAddMs: { rawP50: pct(rawLat, 50), rawP99: pct(rawLat, 99), libraryP50: pct(lat, 50), libraryP99: pct(lat, 99), libraryOfRaw: pct(rawLat, 50) / pct(lat, 50) },
      },
      samples,
      loadAverage: os.loadavg(),
      loadAverageBefore: loadBefore,
      loadAverageAfterRounds: loadAfter,
      cpus: os.cpus().length,
      libraryRssGrowthMiB: rssGrowth / (1 << 20),
      libraryHeapGrowthMiB: heapGrowth / (1 << 20),
    };
    const f = (x: number): string => x.toFixed(3);
    console.log(`OpenFlow bench: ${N} conjunction-style flows, ${results.ovs}, median of ${ROUNDS} rotating rounds`);
    console.log('| step | this library | ovs-ofctl --bundle | ratio (ofctl/lib, >=1 is faster) |');
    console.log('|---|---|---|---|');
    console.log(`| install ${N} | ${f(ourAdd)} s | ${f(refAdd)} s | ${f(results.install.ratio)} |`);
    console.log(`| modify 10% (re-add with new actions) | ${f(ourMod)} s | ${f(refMod)} s | ${f(results.modify10pct.ratio)} |`);
    console.log(`| modify 10% as modify_strict (library only) | ${f(ourModStrict)} s | | |`);
    console.log(`| delete all | ${f(ourDel)} s | ${f(refDel)} s | ${f(results.deleteAll.ratio)} |`);
    console.log(`| single add p50 / p99 (barrier) | ${f(results.singleAddMs.p50)} / ${f(results.singleAddMs.p99)} ms | ${f(results.singleAddMs.ovsOfctlP50)} / ${f(results.singleAddMs.ovsOfctlP99)} ms (process per flow) | |`);
    console.log(`| dump-flows parse (warm, best of 3) | ${Math.round(results.parse.flowsPerSec)} flows/s (${Math.round(results.parse.flowsPerCpuSec)} per CPU-second) | | |`);
    console.log(`| dump-flows parse (first, cold JIT) | ${Math.round(results.parse.coldFlowsPerSec)} flows/s | | |`);
    console.log(`| load average during run | ${results.loadAverage.map((x) => x.toFixed(1)).join(' ')} on ${results.cpus} CPUs | | |`);
    console.log(`| library memory growth during install: heap+external peak / RSS peak | ${results.libraryHeapGrowthMiB.toFixed(1)} / ${results.libraryRssGrowthMiB.toFixed(1)} MiB | | |`);
    console.log('\nServer limit (pre-encoded bytes on a raw socket) vs library vs ovs-ofctl, medians: wall s (client CPU s, ovs-vswitchd CPU s)');
    console.log('| step | raw socket | library | ovs-ofctl | library / raw | ovs-ofctl / raw |');
    console.log('|---|---|---|---|---|---|');
    const cell = (x: Sample): string => `${f(x.wallSec)} (${f(x.clientCpuSec)}, ${f(x.switchCpuSec)})`;
    for (const [name, row] of [['install', results.limits.install], ['modify 10%', results.limits.modify10pct], ['delete all', results.limits.deleteAll]] as const) {
      console.log(`| ${name} | ${cell(row.raw)} | ${cell(row.library)} | ${cell(row.ovsOfctl)} | ${f(row.libraryOfRaw)} | ${f(row.ovsOfctlOfRaw)} |`);
    }
    const ms = results.limits.modifyStrict10pct;
    console.log(`| modify 10% as modify_strict | ${cell(ms.raw)} | ${cell(ms.library)} | | ${f(ms.libraryOfRaw)} | |`);
    const sa = results.limits.singleAddMs;
    console.log(`| single add + barrier p50 / p99 ms | ${f(sa.rawP50)} / ${f(sa.rawP99)} | ${f(sa.libraryP50)} / ${f(sa.libraryP99)} | | ${f(sa.libraryOfRaw)} | |`);
    console.log(`load average before rounds ${loadBefore.map((x) => x.toFixed(2)).join(' ')}, after ${loadAfter.map((x) => x.toFixed(2)).join(' ')}`);
    fs.writeFileSync(path.join(here, 'results.json'), JSON.stringify(results, null, 2) + '\n');
  } finally {
    await tb.cleanup();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
