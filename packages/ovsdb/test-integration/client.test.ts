// Every RFC 7047 method, every transact operation and the OVS extensions against a real ovsdb-server.
import type { OvsInstance, Testbed } from '@switchyard/testbed';
import {
  OvsdbClient,
  ops,
  namedUuid,
  unwrap,
  SchemaValueError,
  DisconnectedError,
  type TableUpdates,
  type TableUpdates2,
} from '../src/index';
import { ovsClientSuite, startClusteredDb } from './helpers';

const DB = 'Open_vSwitch';
let tb: Testbed;
let ovs: OvsInstance;
let client: OvsdbClient;
ovsClientSuite((s) => ({ tb, ovs, client } = s));

function nextEvent<T extends unknown[]>(
  emitter: OvsdbClient,
  event: 'update' | 'update2' | 'update3' | 'locked' | 'stolen',
): Promise<T> {
  return new Promise((resolve) => emitter.once(event, (...args: unknown[]) => resolve(args as T)));
}

describe('RFC 7047 methods', () => {
  test('list_dbs names the Open_vSwitch database', async () => {
    expect(await client.listDbs()).toContain(DB);
  });

  test('get_schema returns the vswitch schema with its tables', async () => {
    const schema = await client.getSchema(DB);
    expect(schema.name).toBe(DB);
    expect(Object.keys(schema.tables)).toEqual(
      expect.arrayContaining(['Bridge', 'Port', 'Interface', 'Open_vSwitch']),
    );
  });

  test('echo is answered with the same parameters', async () => {
    expect(await client.echo('a', 1, { b: true })).toEqual(['a', 1, { b: true }]);
  });

  test('a request for an unknown database fails as a typed transaction failure', async () => {
    const raw = client.transactRaw('NoSuchDb', []);
    await expect(raw).rejects.toMatchObject({ code: 'OVSDB_RPC_ERROR' });
  });
});

describe('transact operations', () => {
  test('insert with uuid-name, select, update, mutate, delete round-trip through the server', async () => {
    const ins = unwrap(
      await client.transact(DB, [
        ops.insert(
          'Interface',
          { name: 'ti0', type: 'internal', external_ids: { a: '1' } },
          { uuidName: 'i' },
        ),
        ops.insert('Port', { name: 'ti0', interfaces: [namedUuid('i')] }, { uuidName: 'p' }),
        ops.insert('Bridge', { name: 'tbr0', ports: [namedUuid('p')] }, { uuidName: 'b' }),
        ops.mutate('Open_vSwitch', [], [['bridges', 'insert', [namedUuid('b')]]]),
        ops.comment('switchyard test insert'),
      ]),
    );
    expect(ins.uuids.b).toMatch(/^[0-9a-f-]{36}$/);
    expect(ins.results[3]).toEqual({ op: 'mutate', count: 1 });

    const sel = unwrap(
      await client.transact(DB, [
        ops.select('Interface', [['name', '==', 'ti0']], ['name', 'type', 'external_ids']),
      ]),
    );
    expect(sel.results[0]).toEqual({
      op: 'select',
      rows: [{ name: 'ti0', type: 'internal', external_ids: new Map([['a', '1']]) }],
    });

    const upd = unwrap(
      await client.transact(DB, [ops.update('Interface', [['name', '==', 'ti0']], { mtu_request: 1400 })]),
    );
    expect(upd.results[0]).toEqual({ op: 'update', count: 1 });

    const mut = unwrap(
      await client.transact(DB, [
        ops.mutate(
          'Interface',
          [['name', '==', 'ti0']],
          [
            ['mtu_request', '+=', 50],
            ['external_ids', 'insert', { b: '2' }],
            ['external_ids', 'delete', ['a']],
          ],
        ),
        ops.select('Interface', [['name', '==', 'ti0']], ['mtu_request', 'external_ids']),
      ]),
    );
    expect(mut.results[1]).toEqual({
      op: 'select',
      rows: [{ mtu_request: 1450, external_ids: new Map([['b', '2']]) }],
    });

    unwrap(
      await client.transact(DB, [ops.mutate('Open_vSwitch', [], [['bridges', 'delete', [ins.uuids.b]]])]),
    );
    // Unreferenced rows of non-root tables are garbage-collected at commit, so look in a new transaction.
    const del = unwrap(
      await client.transact(DB, [
        ops.comment('after delete'),
        ops.select('Bridge', [['name', '==', 'tbr0']]),
        ops.select('Interface', [['name', '==', 'ti0']]),
      ]),
    );
    expect(del.results[1]).toEqual({ op: 'select', rows: [] });
    expect(del.results[2]).toEqual({ op: 'select', rows: [] });
  });

  test('delete removes a root-table row and reports the count', async () => {
    // Flow_Sample_Collector_Set is a root table, so rows can be inserted and deleted directly.
    unwrap(
      await client.transact(DB, [
        ops.insert('Bridge', { name: 'tbr-del' }, { uuidName: 'b' }),
        ops.insert('Flow_Sample_Collector_Set', { id: 7, bridge: namedUuid('b') }),
        ops.mutate('Open_vSwitch', [], [['bridges', 'insert', [namedUuid('b')]]]),
      ]),
    );
    const r = unwrap(await client.transact(DB, [ops.delete('Flow_Sample_Collector_Set', [['id', '==', 7]])]));
    expect(r.results[0]).toEqual({ op: 'delete', count: 1 });
  });

  test('wait succeeds when rows match and fails with "timed out" when they do not', async () => {
    const ok = await client.transact(DB, [
      ops.wait('Bridge', [['name', '==', 'nope']], ['name'], '==', [], 0),
    ]);
    expect(ok.ok).toBe(true);
    const bad = await client.transact(DB, [
      ops.wait('Bridge', [['name', '==', 'nope']], ['name'], '!=', [], 0),
    ]);
    expect(bad).toMatchObject({ ok: false, error: 'timed out', index: 0 });
  });

  test('abort fails the transaction and nothing it did is committed', async () => {
    const r = await client.transact(DB, [
      ops.insert('Bridge', { name: 'aborted' }, { uuidName: 'b' }),
      ops.mutate('Open_vSwitch', [], [['bridges', 'insert', [namedUuid('b')]]]),
      ops.abort(),
    ]);
    expect(r).toMatchObject({ ok: false, error: 'aborted', index: 2 });
    const sel = unwrap(await client.transact(DB, [ops.select('Bridge', [['name', '==', 'aborted']])]));
    expect(sel.results[0]).toEqual({ op: 'select', rows: [] });
  });

  test('commit durable is accepted', async () => {
    const r = await client.transact(DB, [ops.comment('durable commit'), ops.commit(true)]);
    expect(r.ok).toBe(true);
  });

  test('a commit-time constraint violation is a failure with no operation index', async () => {
    const r = await client.transact(DB, [
      ops.insert('Bridge', { name: 'dup' }, { uuidName: 'a' }),
      ops.insert('Bridge', { name: 'dup' }, { uuidName: 'b' }),
      ops.mutate('Open_vSwitch', [], [['bridges', 'insert', [namedUuid('a'), namedUuid('b')]]]),
    ]);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error).toBe('constraint violation');
      expect(r.index).toBeUndefined();
    }
    expect(() => unwrap(r)).toThrow(/constraint violation/);
  });

  test('assert fails without the lock and succeeds while holding it', async () => {
    const before = await client.transact(DB, [ops.assert('lk_assert')]);
    expect(before).toMatchObject({ ok: false, error: 'not owner' });
    expect(await client.lock('lk_assert')).toEqual({ locked: true });
    expect((await client.transact(DB, [ops.assert('lk_assert')])).ok).toBe(true);
    await client.unlock('lk_assert');
  });

  test('a value that violates the schema is rejected before sending, naming table, column and type', async () => {
    const p = client.transact(DB, [ops.insert('Interface', { name: 'x', ofport_request: 70000 })]);
    await expect(p).rejects.toBeInstanceOf(SchemaValueError);
    await expect(p).rejects.toMatchObject({ table: 'Interface', column: 'ofport_request', value: 70000 });
    await expect(p).rejects.toThrow(/Interface\.ofport_request.*integer in \[1, 65279\]/);
    await expect(client.transact(DB, [ops.update('Bridge', [], { fail_mode: 'open' })])).rejects.toThrow(
      /Bridge\.fail_mode.*one of \[secure, standalone\]/,
    );
  });

  test('cancel abandons a transaction blocked in a wait', async () => {
    const ac = new AbortController();
    const p = client.transact(
      DB,
      [ops.wait('Bridge', [['name', '==', 'never']], ['name'], '!=', [], 60_000)],
      { signal: ac.signal },
    );
    await client.echo(); // make sure the transaction reached the server
    ac.abort();
    const r = await p;
    expect(r).toMatchObject({ ok: false, error: 'canceled' });
  });
});

describe('monitors', () => {
  test('monitor reports initial rows and update notifications with old and new', async () => {
    const initial = await client.monitor(DB, 'm1', { Bridge: { columns: ['name', 'external_ids'] } });
    expect(Object.values(initial.Bridge ?? {}).map((u) => u.new?.name)).toEqual(
      expect.arrayContaining(['tbr-del']),
    );
    const ev = nextEvent<[unknown, TableUpdates]>(client, 'update');
    unwrap(
      await client.transact(DB, [
        ops.update('Bridge', [['name', '==', 'tbr-del']], { external_ids: { k: 'v' } }),
      ]),
    );
    const [id, u] = await ev;
    expect(id).toBe('m1');
    const change = Object.values(u.Bridge ?? {})[0]!;
    expect(change.new?.external_ids).toEqual(new Map([['k', 'v']]));
    expect(change.old?.external_ids).toEqual(new Map());
    await client.monitorCancel('m1');
  });

  test('monitor_cond delivers only matching rows and monitor_cond_change moves the window', async () => {
    unwrap(
      await client.transact(DB, [
        ops.insert('Bridge', { name: 'c1' }, { uuidName: 'a' }),
        ops.insert('Bridge', { name: 'c2' }, { uuidName: 'b' }),
        ops.mutate('Open_vSwitch', [], [['bridges', 'insert', [namedUuid('a'), namedUuid('b')]]]),
      ]),
    );
    const initial = await client.monitorCond(DB, 'mc', {
      Bridge: { columns: ['name'], where: [['name', '==', 'c1']] },
    });
    expect(
      Object.values(initial.Bridge ?? {}).map((u) => (u.kind === 'initial' ? u.row.name : undefined)),
    ).toEqual(['c1']);

    const ev = nextEvent<[unknown, TableUpdates2]>(client, 'update2');
    await client.monitorCondChange('mc', 'mc2', { Bridge: { where: [['name', '==', 'c2']] } });
    const [id, u] = await ev;
    expect(id).toBe('mc2');
    const kinds = Object.values(u.Bridge ?? {})
      .map((x) => x.kind)
      .sort();
    expect(kinds).toEqual(['delete', 'insert']);
    await client.monitorCancel('mc2');
  });

  test('monitor_cond_since on a standalone database reports found=false (no transaction history)', async () => {
    const first = await client.monitorCondSince(DB, 'ms0', { Bridge: { columns: ['name'] } }, undefined);
    const again = await client.monitorCondSince(
      DB,
      'ms1',
      { Bridge: { columns: ['name'] } },
      first.lastTxnId,
    );
    expect(again.found).toBe(false);
    expect(Object.keys(again.updates.Bridge ?? {}).length).toBeGreaterThan(0);
    await client.monitorCancel('ms0');
    await client.monitorCancel('ms1');
  });

  test('monitor_cond_since resumes from a txn id with only the changes, update3 carries txn ids (clustered db)', async () => {
    const db = await startClusteredDb(tb);
    const client = await OvsdbClient.connect(`unix:${db.socket}`, { probeIntervalMs: 0 });
    try {
      // ovsdb-server keeps transaction history only while it holds fewer atoms than the database:
      // give the database some bulk so that the small transactions below stay in the history.
      await preload(client, 'bulk', 200);
      const first = await client.monitorCondSince(DB, 'ms', { Bridge: { columns: ['name'] } }, undefined);
      expect(first.found).toBe(false);
      const ev = nextEvent<[unknown, string, TableUpdates2]>(client, 'update3');
      const c1 = unwrap(
        await client.transact(DB, [
          ops.insert('Bridge', { name: 'c1' }, { uuidName: 'a' }),
          ops.mutate('Open_vSwitch', [], [['bridges', 'insert', [namedUuid('a')]]]),
        ]),
      );
      await ev;
      const ev2 = nextEvent<[unknown, string, TableUpdates2]>(client, 'update3');
      const renamed = unwrap(
        await client.transact(DB, [
          ops.insert('Bridge', { name: 'c3' }, { uuidName: 'a' }),
          ops.mutate('Open_vSwitch', [], [['bridges', 'insert', [namedUuid('a')]]]),
        ]),
      );
      const [, txn, u] = await ev2;
      expect(txn).not.toBe(first.lastTxnId);
      expect(u.Bridge?.[renamed.uuids.a!]).toMatchObject({ kind: 'insert', row: { name: 'c3' } });
      await client.monitorCancel('ms');

      const again = await client.monitorCondSince(
        DB,
        'ms2',
        { Bridge: { columns: ['name'] } },
        first.lastTxnId,
      );
      expect(again.found).toBe(true);
      // Only the two bridges added since `first`, not the 200 preloaded ones.
      expect(Object.keys(again.updates.Bridge ?? {}).sort()).toEqual([c1.uuids.a, renamed.uuids.a].sort());
      await client.monitorCancel('ms2');
    } finally {
      client.close();
      await db.stop();
    }
  });

  test('set_db_change_aware is accepted', async () => {
    await expect(client.setDbChangeAware(true)).resolves.toBeUndefined();
  });
});

async function preload(c: OvsdbClient, prefix: string, n: number): Promise<void> {
  for (let batch = 0; batch < 2; batch++) {
    const list = Array.from({ length: n / 2 }, (_v, i) => `${prefix}${batch}-${i}`);
    unwrap(
      await c.transact(DB, [
        ...list.map((name, i) =>
          ops.insert(
            'Bridge',
            { name, external_ids: { a: name, b: name, c: name, d: name } },
            { uuidName: `b${i}` },
          ),
        ),
        ops.mutate('Open_vSwitch', [], [['bridges', 'insert', list.map((_x, i) => namedUuid(`b${i}`))]]),
      ]),
    );
  }
}

describe('locks across two clients', () => {
  test('lock, queued lock granted with a locked notification, steal with a stolen notification, unlock', async () => {
    const other = await OvsdbClient.connect(`unix:${ovs.dbSocket}`, { probeIntervalMs: 0 });
    try {
      expect(await client.lock('L')).toEqual({ locked: true });
      expect(await other.lock('L')).toEqual({ locked: false });
      const granted = nextEvent<[string]>(other, 'locked');
      await client.unlock('L');
      expect(await granted).toEqual(['L']);

      const stolen = nextEvent<[string]>(other, 'stolen');
      expect(await client.steal('L')).toEqual({ locked: true });
      expect(await stolen).toEqual(['L']);
      expect((await other.transact(DB, [ops.assert('L')])).ok).toBe(false);
      expect((await client.transact(DB, [ops.assert('L')])).ok).toBe(true);
      await client.unlock('L');
    } finally {
      other.close();
    }
  });
});

describe('connection lifecycle', () => {
  test('requests after close fail with a typed error', async () => {
    const c = await OvsdbClient.connect(`unix:${ovs.dbSocket}`, { probeIntervalMs: 0, reconnect: false });
    c.close();
    await expect(c.listDbs()).rejects.toMatchObject({ code: 'OVSDB_CLOSED' });
  });

  test('a request pending when the session drops fails with DisconnectedError', async () => {
    const c = await OvsdbClient.connect(`unix:${ovs.dbSocket}`, { probeIntervalMs: 0, reconnect: false });
    const p = c.transact(DB, [ops.wait('Bridge', [['name', '==', 'never']], ['name'], '!=', [], 60_000)]);
    await c.echo();
    c.connection.dropSession();
    await expect(p).rejects.toBeInstanceOf(DisconnectedError);
    c.close();
  });
});
