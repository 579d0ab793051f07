// The replica against the reference client: after 1,000 random transactions (ovs-vsctl and a second
// connection) it equals `ovsdb-client dump`; conditional monitoring only holds matching rows.
import { run, type OvsInstance } from '@switchyard/testbed';
import { OvsdbClient, Replica, ops, namedUuid, unwrap, type Operation } from '../src/index';
import { ovsSuite, ovsdbClientDump, prng, stripUuids, until } from './helpers';

const DB = 'Open_vSwitch';
const TABLES = ['Open_vSwitch', 'Bridge', 'Port', 'Interface'];
let ovs: OvsInstance;
ovsSuite((s) => ({ ovs } = s));

/** A random workload over a few bridges/ports, tracked so each command is valid when it runs. */
class Workload {
  readonly bridges = new Set<string>();
  readonly ports = new Map<string, string>(); // port -> bridge
  constructor(private readonly rnd: () => number) {}
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.rnd() * xs.length)]!;
  }
  /** One ovs-vsctl transaction: a few `--`-chained commands. */
  vsctlCommands(): string[] {
    const out: string[] = [];
    const n = 1 + Math.floor(this.rnd() * 3);
    for (let i = 0; i < n; i++) {
      const r = this.rnd();
      const brs = [...this.bridges];
      const ports = [...this.ports.keys()];
      if (r < 0.15 || brs.length === 0) {
        const b = `br${Math.floor(this.rnd() * 6)}`;
        if (!this.bridges.has(b)) {
          out.push('--', 'add-br', b);
          this.bridges.add(b);
        }
      } else if (r < 0.2 && brs.length > 1) {
        const b = this.pick(brs);
        out.push('--', 'del-br', b);
        this.bridges.delete(b);
        for (const [p, pb] of this.ports) if (pb === b) this.ports.delete(p);
      } else if (r < 0.45) {
        const p = `p${Math.floor(this.rnd() * 40)}`;
        if (!this.ports.has(p)) {
          const b = this.pick(brs);
          const type = this.pick(['internal', 'geneve', 'vxlan', 'patch', 'system']);
          out.push(
            '--',
            'add-port',
            b,
            p,
            '--',
            'set',
            'Interface',
            p,
            `type=${type}`,
            `external_ids:tier=${this.pick(['a', 'b'])}`,
          );
          out.push('--', 'set', 'Port', p, `external_ids:tier=${this.pick(['a', 'b'])}`);
          this.ports.set(p, b);
        }
      } else if (r < 0.55 && ports.length > 0) {
        const p = this.pick(ports);
        out.push('--', 'del-port', p);
        this.ports.delete(p);
      } else if (r < 0.75 && ports.length > 0) {
        const p = this.pick(ports);
        out.push(
          '--',
          'set',
          'Port',
          p,
          `external_ids:tier=${this.pick(['a', 'b'])}`,
          `external_ids:k${Math.floor(this.rnd() * 3)}=${Math.floor(this.rnd() * 100)}`,
        );
      } else if (r < 0.85 && ports.length > 0) {
        const p = this.pick(ports);
        out.push(
          '--',
          'set',
          'Interface',
          p,
          `options:key=${Math.floor(this.rnd() * 1000)}`,
          `mtu_request=${1200 + Math.floor(this.rnd() * 300)}`,
        );
      } else if (r < 0.92) {
        out.push(
          '--',
          'set',
          'Bridge',
          this.pick(brs),
          `other_config:x=${Math.floor(this.rnd() * 10)}`,
          `fail_mode=${this.pick(['secure', 'standalone'])}`,
        );
      } else {
        out.push('--', 'set', 'Open_vSwitch', '.', `external_ids:w=${Math.floor(this.rnd() * 1000)}`);
      }
    }
    return out.length > 0 ? out : ['--', 'set', 'Open_vSwitch', '.', `external_ids:noop=${this.rnd()}`];
  }
  /** One transaction for the second connection of this client. */
  clientOps(): Operation[] {
    const ports = [...this.ports.keys()];
    const r = this.rnd();
    if (r < 0.5 && ports.length > 0) {
      const p = this.pick(ports);
      return [
        ops.mutate(
          'Port',
          [['name', '==', p]],
          [['external_ids', 'insert', { [`m${Math.floor(this.rnd() * 4)}`]: String(this.rnd()) }]],
        ),
      ];
    }
    if (r < 0.7 && ports.length > 0) {
      const p = this.pick(ports);
      return [ops.mutate('Port', [['name', '==', p]], [['external_ids', 'delete', ['m0', 'm1', 'k0']]])];
    }
    if (r < 0.85 && ports.length > 0) {
      const p = this.pick(ports);
      return [
        ops.update('Interface', [['name', '==', p]], {
          external_ids: { tier: this.pick(['a', 'b']), n: String(this.rnd()) },
        }),
      ];
    }
    if (r < 0.92 && this.bridges.size > 0) {
      // A whole port created by the client: interface + port + bridge mutation.
      const p = `q${Math.floor(this.rnd() * 20)}`;
      if (!this.ports.has(p)) {
        const b = this.pick([...this.bridges]);
        this.ports.set(p, b);
        return [
          ops.insert('Interface', { name: p, type: 'internal' }, { uuidName: 'i' }),
          ops.insert(
            'Port',
            { name: p, interfaces: [namedUuid('i')], external_ids: { tier: 'a' } },
            { uuidName: 'p' },
          ),
          ops.mutate('Bridge', [['name', '==', b]], [['ports', 'insert', [namedUuid('p')]]]),
        ];
      }
    }
    return [ops.mutate('Open_vSwitch', [], [['next_cfg', '+=', 1]])];
  }
}

test('replica equals ovsdb-client dump after 1,000 random transactions from ovs-vsctl and a second connection', async () => {
  const client = await OvsdbClient.connect(`unix:${ovs.dbSocket}`, { probeIntervalMs: 0 });
  const writer = await OvsdbClient.connect(`unix:${ovs.dbSocket}`, { probeIntervalMs: 0 });
  const replica = new Replica(client, { db: DB, tables: Object.fromEntries(TABLES.map((t) => [t, {}])) });
  const filtered = new Replica(client, {
    db: DB,
    tables: { Port: { where: [['external_ids', 'includes', { tier: 'a' }]] } },
  });
  const events = { insert: 0, update: 0, delete: 0 };
  replica.on('insert', () => events.insert++);
  replica.on('update', () => events.update++);
  replica.on('delete', () => events.delete++);
  await replica.start();
  await filtered.start();
  try {
    const w = new Workload(prng(20261123));
    const VSCTL_TXNS = 300;
    const CLIENT_TXNS = 700;
    // Interleave: each round runs a batch of ovs-vsctl processes, then client transactions.
    for (let round = 0; round < 10; round++) {
      for (let i = 0; i < VSCTL_TXNS / 10; i++) {
        await run(['ovs-vsctl', `--db=${ovs.dbRemote}`, '--no-wait', '--timeout=20', ...w.vsctlCommands()]);
      }
      for (let i = 0; i < CLIENT_TXNS / 10; i++) unwrap(await writer.transact(DB, w.clientOps()));
    }
    // A final marker: once the replica has it, it has seen everything before it.
    unwrap(
      await writer.transact(DB, [
        ops.mutate('Open_vSwitch', [], [['external_ids', 'insert', { marker: 'done' }]]),
      ]),
    );
    await until(
      replica,
      () =>
        replica.list('Open_vSwitch')[0]?.external_ids instanceof Map &&
        (replica.list('Open_vSwitch')[0]!.external_ids as Map<string, string>).get('marker') === 'done',
    );

    const dump = await ovsdbClientDump(ovs.dbSocket, TABLES);
    expect(stripUuids(replica.snapshot())).toEqual(dump);
    expect(Object.keys(dump.Port!).length).toBeGreaterThan(5);
    expect(events.insert).toBeGreaterThan(100);
    expect(events.update).toBeGreaterThan(300);
    expect(events.delete).toBeGreaterThan(10);

    // Conditional monitoring: exactly the dump's ports whose external_ids include tier=a.
    const expected = Object.entries(dump.Port!)
      .filter(([, row]) => (row.external_ids as Map<string, string>).get('tier') === 'a')
      .map(([u]) => u)
      .sort();
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(Object.keys(dump.Port!).length);
    await until(filtered, () => filtered.list('Port').length === expected.length);
    expect(
      filtered
        .list('Port')
        .map((r) => r._uuid)
        .sort(),
    ).toEqual(expected);
  } finally {
    await replica.stop();
    await filtered.stop();
    client.close();
    writer.close();
  }
});

test('changing a replica condition (monitor_cond_change) swaps the rows it holds', async () => {
  const client = await OvsdbClient.connect(`unix:${ovs.dbSocket}`, { probeIntervalMs: 0 });
  const replica = new Replica(client, {
    db: DB,
    tables: { Port: { where: [['external_ids', 'includes', { tier: 'a' }]] } },
  });
  await replica.start();
  try {
    const dump = await ovsdbClientDump(ovs.dbSocket, ['Port']);
    const tierB = Object.entries(dump.Port!)
      .filter(([, r]) => (r.external_ids as Map<string, string>).get('tier') === 'b')
      .map(([u]) => u)
      .sort();
    expect(tierB.length).toBeGreaterThan(0);
    await replica.setConditions('Port', [['external_ids', 'includes', { tier: 'b' }]]);
    await until(
      replica,
      () =>
        replica
          .list('Port')
          .map((r) => r._uuid)
          .sort()
          .join() === tierB.join(),
    );
    expect(
      replica.list('Port').every((r) => (r.external_ids as Map<string, string>).get('tier') === 'b'),
    ).toBe(true);
  } finally {
    await replica.stop();
    client.close();
  }
});

test('optimistic transaction retries after a concurrent writer changed a row it read', async () => {
  const client = await OvsdbClient.connect(`unix:${ovs.dbSocket}`, { probeIntervalMs: 0 });
  const other = await OvsdbClient.connect(`unix:${ovs.dbSocket}`, { probeIntervalMs: 0 });
  const replica = new Replica(client, { db: DB, tables: { Open_vSwitch: {} } });
  await replica.start();
  try {
    let calls = 0;
    const r = await replica.transaction(async (tx) => {
      calls++;
      const root = tx.find('Open_vSwitch')[0]!;
      const n = Number((root.external_ids as Map<string, string>).get('counter') ?? '0');
      if (calls === 1) {
        // Another client commits in between the read and this transaction's commit.
        unwrap(
          await other.transact(DB, [
            ops.mutate(
              'Open_vSwitch',
              [],
              [
                ['external_ids', 'delete', ['counter']],
                ['external_ids', 'insert', { counter: String(n + 10) }],
              ],
            ),
          ]),
        );
      }
      tx.add(
        ops.mutate(
          'Open_vSwitch',
          [],
          [
            ['external_ids', 'delete', ['counter']],
            ['external_ids', 'insert', { counter: String(n + 1) }],
          ],
        ),
      );
      return n + 1;
    });
    expect(r.result.ok).toBe(true);
    expect(r.attempts).toBe(2);
    expect(r.value).toBe(11);
    const dump = await ovsdbClientDump(ovs.dbSocket, ['Open_vSwitch']);
    expect(Object.values(dump.Open_vSwitch!)[0]!.external_ids).toEqual(expect.any(Map));
    expect((Object.values(dump.Open_vSwitch!)[0]!.external_ids as Map<string, string>).get('counter')).toBe(
      '11',
    );
  } finally {
    await replica.stop();
    client.close();
    other.close();
  }
});
