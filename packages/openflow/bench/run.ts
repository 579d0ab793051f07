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
import { parseDumpFlows, renderFlow, SwitchConnection, type Flow } from '../src/index';

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
const pct = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;

async function main(): Promise<void> {
  const tb = await Testbed.create();
  try {
    const ovs = await tb.startOvs();
    await ovs.addBridge('br-bench', { failSecure: true });
    const sock = ovs.mgmtSocket('br-bench');
    const conn = await SwitchConnection.connect({ target: { path: sock } });
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
    const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
    const best = { refAdd: Infinity, refMod: Infinity, refDel: Infinity, ourAdd: Infinity, ourMod: Infinity, ourModStrict: Infinity, ourDel: Infinity };
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
    let t0: bigint;
    // The machine is shared: rounds alternate the two tools so both see the same load; best of N.
    for (let round = 0; round < ROUNDS; round++) {
      // Reference: ovs-ofctl from files (writing the files is not timed).
      t0 = process.hrtime.bigint();
      ofctl('-O', 'OpenFlow15', '--bundle', 'add-flows', sock, addFile);
      best.refAdd = Math.min(best.refAdd, secs(t0));
      if ((await count()) !== N) throw new Error('ovs-ofctl did not install all flows');
      // mod-flows takes one flow, not a file: a bundle of add-flows with the same match and priority
      // replaces those flows, which is how a file of changes is applied with ovs-ofctl.
      t0 = process.hrtime.bigint();
      ofctl('-O', 'OpenFlow15', '--bundle', 'add-flows', sock, modFile);
      best.refMod = Math.min(best.refMod, secs(t0));
      t0 = process.hrtime.bigint();
      ofctl('-O', 'OpenFlow15', '--bundle', 'del-flows', sock);
      best.refDel = Math.min(best.refDel, secs(t0));
      if ((await count()) !== 0) throw new Error('ovs-ofctl did not delete all flows');

      // This library: one bundle per step.
      gc();
      mem0 = mem();
      const sampler = setInterval(() => {
        const m = mem();
        rssGrowth = Math.max(rssGrowth, m.rss - mem0.rss);
        heapGrowth = Math.max(heapGrowth, m.heap - mem0.heap);
      }, 10);
      t0 = process.hrtime.bigint();
      await conn.installFlows(flows);
      best.ourAdd = Math.min(best.ourAdd, secs(t0));
      clearInterval(sampler);
      if ((await count()) !== N) throw new Error('library did not install all flows');
      t0 = process.hrtime.bigint();
      await conn.installFlows(modified, 'add');
      best.ourMod = Math.min(best.ourMod, secs(t0));
      t0 = process.hrtime.bigint();
      await conn.installFlows(modified, 'modifyStrict');
      best.ourModStrict = Math.min(best.ourModStrict, secs(t0));
      if (round === 0) {
        dumpText = ofctlOut('-O', 'OpenFlow15', '--no-names', 'dump-flows', sock);
        if (process.env['BENCH_SAVE_DUMP']) fs.writeFileSync(process.env['BENCH_SAVE_DUMP'], dumpText);
      }
      t0 = process.hrtime.bigint();
      await conn.bundle([{ type: 'flowMod', command: 'delete', flow: { table: 0xff, priority: 0, match: {}, actions: [] } }]);
      best.ourDel = Math.min(best.ourDel, secs(t0));
      if ((await count()) !== 0) throw new Error('library did not delete all flows');
    }
    const { refAdd, refMod, refDel, ourAdd, ourMod, ourModStrict, ourDel } = best;

    // Single-flow add latency, acknowledged by a barrier.
    const lat: number[] = [];
    for (let i = 0; i < 2000; i++) {
      const t = process.hrtime.bigint();
      await conn.addFlow({ table: 20, priority: 100, match: { reg0: i }, actions: [{ type: 'output', port: 1 }] });
      lat.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
    lat.sort((a, b) => a - b);
    const refLat: number[] = [];
    for (let i = 0; i < 50; i++) {
      const t = process.hrtime.bigint();
      ofctl('-O', 'OpenFlow15', 'add-flow', sock, `table=21,priority=100,reg0=${i},actions=output:1`);
      refLat.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
    refLat.sort((a, b) => a - b);

    // Parse rate of `ovs-ofctl dump-flows` text (the 100k flows after the modify step): the first
    // (cold, JIT warming up) parse, then the best of 3 warm ones, wall clock and CPU time.
    t0 = process.hrtime.bigint();
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
    const results = {
      flows: N,
      date: new Date().toISOString(),
      ovs: ofctlOut('--version').split('\n')[0],
      install: { librarySec: ourAdd, ovsOfctlSec: refAdd, ratio: refAdd / ourAdd },
      modify10pct: { librarySec: ourMod, ovsOfctlSec: refMod, ratio: refMod / ourMod, libraryModifyStrictSec: ourModStrict },
      rounds: ROUNDS,
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
      loadAverage: os.loadavg(),
      cpus: os.cpus().length,
      libraryRssGrowthMiB: rssGrowth / (1 << 20),
      libraryHeapGrowthMiB: heapGrowth / (1 << 20),
    };
    const f = (x: number): string => x.toFixed(3);
    console.log(`OpenFlow bench: ${N} conjunction-style flows, ${results.ovs}, best of ${ROUNDS} alternating rounds`);
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
    fs.writeFileSync(path.join(here, 'results.json'), JSON.stringify(results, null, 2) + '\n');
  } finally {
    await tb.cleanup();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
