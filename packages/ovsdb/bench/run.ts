// Benchmark: adding 1,000 ports with external_ids (this client per-port and batched vs ovs-vsctl per
// port and one chained ovs-vsctl call), and replica event latency under ~1,000 updates/s.
// Needs root (starts its own ovsdb-server instances via @switchyard/testbed). Writes bench/results.json.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run, Testbed, type OvsInstance } from '@switchyard/testbed';
import { OvsdbClient, Replica, VSwitch, ops, unwrap } from '../src/index';

const N = Number(process.env['BENCH_PORTS'] ?? 1000);
const here = new URL('.', import.meta.url).pathname;
const ids = (i: number) => ({
  'pod-name': `pod-${i}`,
  'pod-namespace': 'bench',
  'ip-address': `10.1.${i >> 8}.${i & 255}`,
});
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
const rows: Row[] = [];

async function fresh(tb: Testbed): Promise<{ ovs: OvsInstance; client: OvsdbClient; vs: VSwitch }> {
  const ovs = await tb.startOvs({ vswitchd: false });
  const client = await OvsdbClient.connect(`unix:${ovs.dbSocket}`);
  const vs = new VSwitch(client);
  await vs.ensureBridge('br-bench', { datapathType: 'netdev' });
  return { ovs, client, vs };
}

async function timed(scenario: string, fn: () => Promise<void>): Promise<Row> {
  const t0 = process.hrtime.bigint();
  await fn();
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const row = {
    scenario,
    ports: N,
    seconds: Math.round(seconds * 1000) / 1000,
    portsPerSec: Math.round(N / seconds),
  };
  rows.push(row);
  console.error(`  ${scenario}: ${row.portsPerSec} ports/s (${row.seconds} s)`);
  return row;
}

async function countPorts(ovs: OvsInstance): Promise<number> {
  return (await ovs.vsctl('list-ports', 'br-bench')).trim().split('\n').filter(Boolean).length;
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;

async function main(): Promise<void> {
  const tb = await Testbed.create();
  try {
    console.error(`adding ${N} ports with external_ids (ovsdb-server only, ovs-vsctl --no-wait)`);
    {
      const { ovs, client, vs } = await fresh(tb);
      await timed('this client, one transaction per port', async () => {
        for (let i = 0; i < N; i++) unwrap(await vs.addPort('br-bench', `a${i}`, { externalIds: ids(i) }));
      });
      if ((await countPorts(ovs)) !== N) throw new Error('per-port run lost ports');
      client.close();
    }
    {
      const { ovs, client, vs } = await fresh(tb);
      await timed('this client, one batched transaction', async () => {
        unwrap(
          await vs.addPorts(
            'br-bench',
            Array.from({ length: N }, (_v, i) => ({ name: `b${i}`, externalIds: ids(i) })),
          ),
        );
      });
      if ((await countPorts(ovs)) !== N) throw new Error('batched run lost ports');
      client.close();
    }
    {
      const { ovs, client } = await fresh(tb);
      await timed('ovs-vsctl, one process per port', async () => {
        for (let i = 0; i < N; i++) {
          const x = ids(i);
          await run(['ovs-vsctl', `--db=${ovs.dbRemote}`, '--no-wait', ...addPortArgs(`c${i}`, x)]);
        }
      });
      if ((await countPorts(ovs)) !== N) throw new Error('ovs-vsctl per-port run lost ports');
      client.close();
    }
    {
      const { ovs, client } = await fresh(tb);
      await timed('ovs-vsctl, one chained call (-- separated)', async () => {
        const args: string[] = [];
        for (let i = 0; i < N; i++) {
          args.push('--', ...addPortArgs(`d${i}`, ids(i)));
        }
        await run(['ovs-vsctl', `--db=${ovs.dbRemote}`, '--no-wait', ...args]);
      });
      if ((await countPorts(ovs)) !== N) throw new Error('chained ovs-vsctl run lost ports');
      client.close();
    }

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
    const results = {
      date: new Date().toISOString(),
      node: process.version,
      ports: N,
      rows,
      ratios,
      latency,
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
