// Benchmark: adding 1,000 ports with external_ids (this client per-port and batched vs ovs-vsctl per
// port and one chained ovs-vsctl call), and replica event latency under ~1,000 updates/s.
// Needs root (starts its own ovsdb-server instances via @switchyard/testbed). Writes bench/results.json.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { Testbed, type OvsInstance } from '@switchyard/testbed';
import {
  OvsdbClient,
  Replica,
  VSwitch,
  encodeOperation,
  namedUuid,
  ops,
  parseSchema,
  unwrap,
  vswitchSchemaJson,
  type Operation,
} from '../src/index';
import { checkTransactReply, RawOvsdb, serialize } from './raw-server';

const N = Number(process.env['BENCH_PORTS'] ?? 1000);
/** Repetitions of each measured case (medians are reported); ovs-vsctl per port runs once (~1 min). */
const REPS = Number(process.env['BENCH_REPS'] ?? 5);
/**
 * Untimed repetitions first, both sides: V8 needs ~8 passes over the client's encoding code before
 * it runs optimized (a 1,000-port transaction: ~140 ms of client CPU on the first pass, ~15 ms from
 * the eighth), and the raw side has next to no JavaScript on its path, so without them the client
 * was measured mostly before its code was compiled, which no long-lived agent is.
 */
const WARMUP = Number(process.env['BENCH_WARMUP'] ?? 5);
/** Updates pipelined through the monitor case. */
const UPDATES = Number(process.env['BENCH_UPDATES'] ?? 5000);
/**
 * BENCH_CASES=perPortPipelined,batched: only these raw/client cases, their table printed, no
 * ovs-vsctl-per-process run, no latency run, results.json left alone (for iterating on one path).
 */
const ONLY = process.env['BENCH_CASES']?.split(',').filter(Boolean);
const here = new URL('.', import.meta.url).pathname;
const ids = (i: number) => ({
  'pod-name': `pod-${i}`,
  'pod-namespace': 'bench',
  'ip-address': `10.1.${i >> 8}.${i & 255}`,
});
/**
 * The ports the client adds, built before its clock starts as the raw side's requests are: the
 * client's work starts at addPort/addPorts, not at making up the caller's input.
 */
const portSpecs = (prefix: string): Array<{ name: string; externalIds: Record<string, string> }> =>
  Array.from({ length: N }, (_v, i) => ({ name: `${prefix}${i}`, externalIds: ids(i) }));
/** ovs-vsctl arguments that add port `name` to br-bench with `externalIds`. */
const addPortArgs = (name: string, externalIds: Record<string, string>): string[] => [
  'add-port',
  'br-bench',
  name,
  '--',
  'set',
  'Port',
  name,
  ...Object.entries(externalIds).map(([k, v]) => `external_ids:${k}=${v}`),
];

interface Row {
  scenario: string;
  ports: number;
  seconds: number;
  portsPerSec: number;
}

/** One timed case: wall clock, CPU of the client process, CPU ovs-database-server spent meanwhile. */
interface Sample {
  wallSec: number;
  clientCpuSec: number;
  serverCpuSec: number;
}
const TICK = 100; // USER_HZ: /proc/<pid>/stat counts CPU time in 1/100 s
function procCpuSec(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / TICK;
}
const serverPid = (ovs: OvsInstance): number => Number(readFileSync(join(ovs.dir, 'ovsdb.pid'), 'utf8').trim());
async function measure(pid: number, fn: () => Promise<unknown>): Promise<Sample> {
  const s0 = procCpuSec(pid);
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  await fn();
  const wallSec = Number(process.hrtime.bigint() - t0) / 1e9;
  const c = process.cpuUsage(c0);
  return { wallSec, clientCpuSec: (c.user + c.system) / 1e6, serverCpuSec: procCpuSec(pid) - s0 };
}
/** CPU time of this process's waited-for children (an ovs-vsctl run by spawnSync counts once it exits). */
function childrenCpuSec(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[13]) + Number(f[14])) / TICK;
}
/** Runs one ovs-vsctl; its wall clock and CPU time. */
function timedVsctl(ovs: OvsInstance, args: string[]): { wallSec: number; cpuSec: number } {
  const c0 = childrenCpuSec();
  const t0 = process.hrtime.bigint();
  const r = spawnSync('ovs-vsctl', [`--db=${ovs.dbRemote}`, '--no-wait', ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const wallSec = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.status !== 0) throw new Error(`ovs-vsctl failed: ${r.stderr}`);
  return { wallSec, cpuSec: childrenCpuSec() - c0 };
}
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const medianSample = (xs: Sample[]): Sample => ({
  wallSec: median(xs.map((x) => x.wallSec)),
  clientCpuSec: median(xs.map((x) => x.clientCpuSec)),
  serverCpuSec: median(xs.map((x) => x.serverCpuSec)),
});

const schema = parseSchema(vswitchSchemaJson);
/**
 * The operations VSwitch.addPorts sends (same builders, same order): per port a `wait` that no port
 * of that name exists, the Interface and Port inserts; then one mutate of the bridge's ports.
 */
function addPortsOps(first: number, count: number, prefix: string): Operation[] {
  const body: Operation[] = [];
  for (let t = 0; t < count; t++) {
    const name = `${prefix}${first + t}`;
    const externalIds = new Map(Object.entries(ids(first + t)));
    body.push(
      ops.wait('Port', [['name', '==', name]], ['name'], '==', [], 0),
      ops.insert('Interface', { name, external_ids: externalIds }, { uuidName: `i${t}` }),
      ops.insert('Port', { name, interfaces: [namedUuid(`i${t}`)], external_ids: externalIds }, { uuidName: `p${t}` }),
    );
  }
  body.push(
    ops.mutate('Bridge', [['name', '==', 'br-bench']], [['ports', 'insert', Array.from({ length: count }, (_v, t) => namedUuid(`p${t}`))]]),
  );
  return body;
}
/** transact params for `operations`, as JSON (encoded with the schema, before any clock starts). */
const wire = (operations: Operation[]): unknown[] => ['Open_vSwitch', ...operations.map((o) => encodeOperation(schema, o))];

async function fresh(tb: Testbed): Promise<{ ovs: OvsInstance; client: OvsdbClient; vs: VSwitch }> {
  const ovs = await tb.startOvs({ vswitchd: false });
  const client = await OvsdbClient.connect(`unix:${ovs.dbSocket}`);
  const vs = new VSwitch(client);
  await vs.ensureBridge('br-bench', { datapathType: 'netdev' });
  return { ovs, client, vs };
}

async function countPorts(ovs: OvsInstance): Promise<number> {
  return (await ovs.vsctl('list-ports', 'br-bench')).trim().split('\n').filter(Boolean).length;
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;

type Case = 'perPortSequential' | 'perPortPipelined' | 'batched' | 'monitor';
type Tool = 'raw' | 'library' | 'ovsVsctl';
/** Each case and tool on a fresh ovsdb-server with one empty bridge; returns the measured sample. */
type Runner = (tb: Testbed) => Promise<Sample>;

/** Runs `body` against a fresh server and stops the server afterwards. */
async function onFreshServer(
  tb: Testbed,
  body: (x: { ovs: OvsInstance; client: OvsdbClient; vs: VSwitch; pid: number }) => Promise<Sample>,
  expectPorts?: number,
): Promise<Sample> {
  const { ovs, client, vs } = await fresh(tb);
  try {
    const sample = await body({ ovs, client, vs, pid: serverPid(ovs) });
    if (expectPorts !== undefined && (await countPorts(ovs)) !== expectPorts) throw new Error('ports lost');
    return sample;
  } finally {
    client.close();
    await ovs.stop();
  }
}

/** Pipelined updates of the bridge's external_ids (seq = i), pre-serialized. */
const updateBytes = (): Buffer =>
  serialize(
    'transact',
    Array.from({ length: UPDATES }, (_v, i) =>
      wire([ops.update('Bridge', [['name', '==', 'br-bench']], { external_ids: new Map([['seq', String(i)]]) })]),
    ),
    1,
  );
const MONITORED = { Bridge: { columns: ['name', 'external_ids'] } };

const cases: Record<Case, Partial<Record<Tool, Runner>>> = {
  perPortSequential: {
    raw: (tb) =>
      onFreshServer(tb, async ({ ovs, pid }) => {
        const msgs = Array.from({ length: N }, (_v, i) => serialize('transact', [wire(addPortsOps(i, 1, 'r'))], i + 1));
        const raw = await RawOvsdb.connect(ovs.dbSocket);
        const s = await measure(pid, async () => {
          for (const m of msgs) await raw.replies(m, 1, checkTransactReply);
        });
        raw.close();
        return s;
      }, N),
    library: (tb) =>
      onFreshServer(tb, ({ vs, pid }) => {
        const specs = portSpecs('a');
        return measure(pid, async () => {
          for (const p of specs) unwrap(await vs.addPort('br-bench', p.name, p));
        });
      }, N),
  },
  perPortPipelined: {
    raw: (tb) =>
      onFreshServer(tb, async ({ ovs, pid }) => {
        const bytes = serialize('transact', Array.from({ length: N }, (_v, i) => wire(addPortsOps(i, 1, 'r'))), 1);
        const raw = await RawOvsdb.connect(ovs.dbSocket);
        const s = await measure(pid, () => raw.replies(bytes, N, checkTransactReply));
        raw.close();
        return s;
      }, N),
    library: (tb) =>
      onFreshServer(tb, ({ vs, pid }) => {
        const specs = portSpecs('a');
        return measure(pid, () => Promise.all(specs.map((p) => vs.addPort('br-bench', p.name, p).then(unwrap))));
      }, N),
  },
  batched: {
    raw: (tb) =>
      onFreshServer(tb, async ({ ovs, pid }) => {
        const bytes = serialize('transact', [wire(addPortsOps(0, N, 'r'))], 1);
        const raw = await RawOvsdb.connect(ovs.dbSocket);
        const s = await measure(pid, () => raw.replies(bytes, 1, checkTransactReply));
        raw.close();
        return s;
      }, N),
    library: (tb) =>
      onFreshServer(tb, ({ vs, pid }) => {
        const specs = portSpecs('b');
        return measure(pid, async () => {
          unwrap(await vs.addPorts('br-bench', specs));
        });
      }, N),
    ovsVsctl: (tb) =>
      onFreshServer(tb, async ({ ovs, pid }) => {
        const args: string[] = [];
        for (let i = 0; i < N; i++) args.push('--', ...addPortArgs(`d${i}`, ids(i)));
        const s0 = procCpuSec(pid);
        const r = timedVsctl(ovs, args);
        return { wallSec: r.wallSec, clientCpuSec: r.cpuSec, serverCpuSec: procCpuSec(pid) - s0 };
      }, N),
  },
  // The monitor update path: a raw writer pipelines UPDATES pre-serialized updates of one Bridge row;
  // timed until the watcher has seen the last value. ovsdb-server merges updates while a watcher's
  // backlog is not empty, so what counts is the time to the final state, not the number of messages.
  monitor: {
    raw: (tb) =>
      onFreshServer(tb, async ({ ovs, pid }) => {
        const bytes = updateBytes();
        const writer = await RawOvsdb.connect(ovs.dbSocket);
        const watcher = await RawOvsdb.connect(ovs.dbSocket);
        const zero = '00000000-0000-0000-0000-000000000000';
        await watcher.replies(serialize('monitor_cond_since', [['Open_vSwitch', 'm', { Bridge: [{ columns: ['name', 'external_ids'] }] }, zero]], 1), 1, () => undefined);
        const marker = `["seq","${UPDATES - 1}"]`;
        const s = await measure(pid, async () => {
          const seen = watcher.until(undefined, (text) => text.includes(marker));
          await writer.replies(bytes, UPDATES, checkTransactReply);
          await seen;
        });
        writer.close();
        watcher.close();
        return s;
      }),
    library: (tb) =>
      onFreshServer(tb, async ({ ovs, pid }) => {
        const bytes = updateBytes();
        const writer = await RawOvsdb.connect(ovs.dbSocket);
        const watcher = await OvsdbClient.connect(`unix:${ovs.dbSocket}`);
        const replica = new Replica(watcher, { db: 'Open_vSwitch', tables: MONITORED });
        await replica.start();
        const last = String(UPDATES - 1);
        const s = await measure(pid, async () => {
          const seen = new Promise<void>((resolve) =>
            replica.on('update', (_t, row) => {
              if ((row.external_ids as Map<string, string>).get('seq') === last) resolve();
            }),
          );
          await writer.replies(bytes, UPDATES, checkTransactReply);
          await seen;
        });
        await replica.stop();
        writer.close();
        watcher.close();
        return s;
      }),
  },
};

/** The client / raw table of the cases BENCH_CASES selected. */
function printSelected(names: Case[], med: (c: Case, t: Tool) => Sample, loadBefore: number[], loadAfter: number[]): void {
  const f = (x: number): string => x.toFixed(3);
  const cell = (x: Sample): string => `${f(x.wallSec)} (${f(x.clientCpuSec)}, ${f(x.serverCpuSec)})`;
  console.log(`medians of ${REPS}: wall s (client CPU s, ovsdb-server CPU s)`);
  for (const c of names) {
    const raw = med(c, 'raw');
    const lib = med(c, 'library');
    console.log(`| ${c} | ${cell(raw)} | ${cell(lib)} | ${f(raw.wallSec / lib.wallSec)} |`);
  }
  const la = (l: number[]): string => l.map((x) => x.toFixed(2)).join(' ');
  console.log(`load average before ${la(loadBefore)}, after ${la(loadAfter)} (${os.cpus().length} CPUs)`);
}

async function main(): Promise<void> {
  const tb = await Testbed.create();
  try {
    const loadBefore = os.loadavg();
    const samples: Record<Case, Partial<Record<Tool, Sample[]>>> = { perPortSequential: {}, perPortPipelined: {}, batched: {}, monitor: {} };
    console.error(`${N} ports / ${UPDATES} updates, ${WARMUP} untimed + ${REPS} repetitions, each on a fresh ovsdb-server`);
    const selected = (Object.entries(cases) as Array<[Case, Partial<Record<Tool, Runner>>]>).filter(([c]) => !ONLY || ONLY.includes(c));
    const warmup: Record<Case, Partial<Record<Tool, Sample[]>>> = { perPortSequential: {}, perPortPipelined: {}, batched: {}, monitor: {} };
    for (let rep = -WARMUP; rep < REPS; rep++) {
      for (const [name, tools] of selected) {
        // ovs-vsctl is a separate process each time: nothing of it warms up in this one.
        const list = (Object.entries(tools) as Array<[Tool, Runner]>).filter(([t]) => t !== 'ovsVsctl' || (!ONLY && rep >= 0));
        // The machine is shared: the order of the tools rotates from repetition to repetition.
        for (let k = 0; k < list.length; k++) {
          const [tool, runner] = list[(rep + WARMUP + k) % list.length]!;
          ((rep < 0 ? warmup : samples)[name][tool] ??= []).push(await runner(tb));
        }
      }
      console.error(rep < 0 ? `  warm-up ${rep + WARMUP + 1}/${WARMUP} done` : `  repetition ${rep + 1}/${REPS} done`);
    }
    const loadAfter = os.loadavg();
    const med = (c: Case, t: Tool): Sample => medianSample(samples[c][t]!);
    if (ONLY) {
      for (const c of selected) for (const [t, xs] of Object.entries(samples[c[0]])) console.error(c[0], t, xs.map((x) => `${x.wallSec.toFixed(3)}/${x.clientCpuSec.toFixed(3)}`).join(' '));
      printSelected(selected.map(([c]) => c), med, loadBefore, loadAfter);
      return;
    }

    // ovs-vsctl, one process per port: once (about a minute), client CPU summed over the processes.
    console.error('ovs-vsctl, one process per port');
    const perProcess = await onFreshServer(tb, async ({ ovs, pid }) => {
      const s0 = procCpuSec(pid);
      let cpu = 0;
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < N; i++) cpu += timedVsctl(ovs, addPortArgs(`c${i}`, ids(i))).cpuSec;
      return { wallSec: Number(process.hrtime.bigint() - t0) / 1e9, clientCpuSec: cpu, serverCpuSec: procCpuSec(pid) - s0 };
    }, N);

    const row = (scenario: string, sec: number): Row => ({
      scenario,
      ports: N,
      seconds: Math.round(sec * 1000) / 1000,
      portsPerSec: Math.round(N / sec),
    });
    const rows: Row[] = [
      row('this client, one transaction per port', med('perPortSequential', 'library').wallSec),
      row('this client, one batched transaction', med('batched', 'library').wallSec),
      row('ovs-vsctl, one process per port', perProcess.wallSec),
      row('ovs-vsctl, one chained call (-- separated)', med('batched', 'ovsVsctl').wallSec),
    ];
    /** raw / library / CLI medians of one case; libraryOfRaw = library throughput / raw throughput. */
    const limit = (c: Case, cli?: Sample) => {
      const raw = med(c, 'raw');
      const library = med(c, 'library');
      return {
        raw,
        library,
        ...(cli ? { cli, cliOfRaw: raw.wallSec / cli.wallSec } : {}),
        libraryOfRaw: raw.wallSec / library.wallSec,
      };
    };
    const limits = {
      perPortSequential: limit('perPortSequential', perProcess),
      perPortPipelined: limit('perPortPipelined'),
      batched: limit('batched', med('batched', 'ovsVsctl')),
      monitor: limit('monitor'),
    };
    for (const r of rows) console.error(`  ${r.scenario}: ${r.portsPerSec} ports/s (${r.seconds} s)`);

    // Replica latency: a writer commits ~1,000 updates/s (pipelined), a replica on another connection
    // timestamps each update event; latency = event time - time the transaction was sent.
    console.error('replica event latency under ~1,000 updates/s');
    const { ovs, client } = await fresh(tb);
    const watcher = await OvsdbClient.connect(`unix:${ovs.dbSocket}`);
    const replica = new Replica(watcher, {
      db: 'Open_vSwitch',
      tables: { Bridge: { columns: ['name', 'external_ids'] } },
    });
    await replica.start();
    const RATE = 1000;
    const SECONDS = 5;
    const total = RATE * SECONDS;
    const sentAt = new Array<bigint>(total);
    const latenciesMs: number[] = [];
    const replyMs: number[] = [];
    replica.on('update', (_t, row) => {
      const seq = Number((row.external_ids as Map<string, string>).get('seq'));
      const s = sentAt[seq];
      if (s !== undefined) latenciesMs.push(Number(process.hrtime.bigint() - s) / 1e6);
    });
    const t0 = process.hrtime.bigint();
    const inflight: Promise<unknown>[] = [];
    let sent = 0;
    while (sent < total) {
      const due = Math.min(total, Math.floor((Number(process.hrtime.bigint() - t0) / 1e9) * RATE) + 1);
      for (; sent < due; sent++) {
        const seq = sent;
        sentAt[seq] = process.hrtime.bigint();
        inflight.push(
          client
            .transact('Open_vSwitch', [
              ops.update('Bridge', [['name', '==', 'br-bench']], { external_ids: { seq: String(seq) } }),
            ])
            .then((r) => {
              unwrap(r);
              replyMs.push(Number(process.hrtime.bigint() - sentAt[seq]!) / 1e6);
            }),
        );
      }
      await new Promise((r) => setTimeout(r, 1));
    }
    await Promise.all(inflight);
    await new Promise((r) => setTimeout(r, 200));
    const wall = Number(process.hrtime.bigint() - t0) / 1e9;
    latenciesMs.sort((a, b) => a - b);
    replyMs.sort((a, b) => a - b);
    const latency = {
      updates: total,
      achievedUpdatesPerSec: Math.round(total / wall),
      eventsSeen: latenciesMs.length,
      eventP50ms: Math.round(pct(latenciesMs, 50) * 100) / 100,
      eventP99ms: Math.round(pct(latenciesMs, 99) * 100) / 100,
      commitReplyP50ms: Math.round(pct(replyMs, 50) * 100) / 100,
      commitReplyP99ms: Math.round(pct(replyMs, 99) * 100) / 100,
    };
    await replica.stop();
    watcher.close();
    client.close();

    const rate = (s: string) => rows.find((r) => r.scenario.startsWith(s))!.portsPerSec;
    const ratios = {
      perPortVsVsctlPerPort:
        Math.round((rate('this client, one transaction') / rate('ovs-vsctl, one process')) * 10) / 10,
      batchedVsChainedVsctl:
        Math.round((rate('this client, one batched') / rate('ovs-vsctl, one chained')) * 100) / 100,
    };
    const table = [
      '| scenario | ports | seconds | ports/s |',
      '|---|---:|---:|---:|',
      ...rows.map((r) => `| ${r.scenario} | ${r.ports} | ${r.seconds} | ${r.portsPerSec} |`),
    ].join('\n');
    console.log(table);
    console.log(`\none-txn-per-port / ovs-vsctl-per-port = ${ratios.perPortVsVsctlPerPort}x (target >= 10x)`);
    console.log(
      `batched / chained ovs-vsctl = ${ratios.batchedVsChainedVsctl}x (target >= 0.67x, i.e. within 1.5x)`,
    );
    console.log(
      `\nreplica events: ${latency.eventsSeen}/${latency.updates} updates at ${latency.achievedUpdatesPerSec}/s, ` +
        `event latency p50 ${latency.eventP50ms} ms, p99 ${latency.eventP99ms} ms (commit reply p50 ${latency.commitReplyP50ms} ms, p99 ${latency.commitReplyP99ms} ms)`,
    );
    const f = (x: number): string => x.toFixed(3);
    const cell = (x: Sample): string => `${f(x.wallSec)} (${f(x.clientCpuSec)}, ${f(x.serverCpuSec)})`;
    console.log(`\nServer limit (pre-serialized JSON-RPC on a raw socket) vs this client vs ovs-vsctl, medians of ${REPS}: wall s (client CPU s, ovsdb-server CPU s)`);
    console.log('| case | raw socket | this client | ovs-vsctl | client / raw |');
    console.log('|---|---|---|---|---|');
    for (const [name, l] of Object.entries(limits)) {
      const cli = 'cli' in l && l.cli ? cell(l.cli) : '';
      console.log(`| ${name} | ${cell(l.raw)} | ${cell(l.library)} | ${cli} | ${f(l.libraryOfRaw)} |`);
    }
    console.log(`load average before ${loadBefore.map((x) => x.toFixed(2)).join(' ')}, after the repetitions ${loadAfter.map((x) => x.toFixed(2)).join(' ')}, at the end ${os.loadavg().map((x) => x.toFixed(2)).join(' ')} (${os.cpus().length} CPUs)`);
    const results = {
      date: new Date().toISOString(),
      node: process.version,
      ports: N,
      updates: UPDATES,
      repetitions: REPS,
      statistic: 'median',
      rows,
      ratios,
      latency,
      limits,
      samples,
      warmupSamples: warmup,
      loadAverage: { before: loadBefore, afterRepetitions: loadAfter, end: os.loadavg() },
      cpus: os.cpus().length,
    };
    writeFileSync(join(here, 'results.json'), JSON.stringify(results, null, 2) + '\n');
  } finally {
    await tb.cleanup();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
