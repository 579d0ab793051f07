// kill -9 of ovsdb-server mid-run: in-flight requests fail clearly, the client reconnects, the replica
// converges to `ovsdb-client dump`, and a retried ensurePort never duplicates a port.
import { pidfileProcess, run, signalProcess, type OvsInstance, type Testbed } from '@switchyard/testbed';
import { OvsdbClient, Replica, VSwitch, DisconnectedError, ops, unwrap } from '../src/index';
import { ovsSuite, ovsdbClientDump, startClusteredDb, stripUuids, until } from './helpers';

const DB = 'Open_vSwitch';
let tb: Testbed;
let ovs: OvsInstance;
ovsSuite((s) => ({ tb, ovs } = s));

function once(emitter: OvsdbClient | Replica, event: string): Promise<unknown[]> {
  return new Promise((resolve) =>
    (emitter as unknown as NodeJS.EventEmitter).once(event, (...a: unknown[]) => resolve(a)),
  );
}

test('kill -9 of ovsdb-server: pending requests fail, client reconnects, replica converges, ensurePort retry makes no duplicate', async () => {
  const client = await OvsdbClient.connect(`unix:${ovs.dbSocket}`, {
    probeIntervalMs: 1000,
    reconnect: { initialDelayMs: 20, maxDelayMs: 200 },
  });
  const vs = new VSwitch(client);
  const replica = new Replica(client, { db: DB, tables: { Bridge: {}, Port: {}, Interface: {} } });
  await replica.start();
  try {
    await vs.ensureBridge('br-crash', { datapathType: 'netdev', failMode: 'secure' });
    for (let i = 0; i < 20; i++)
      await vs.ensurePort('br-crash', `pc${i}`, { type: 'internal', externalIds: { i: String(i) } });

    // In flight when the server dies: a blocked wait, and an ensurePort whose outcome is unknown.
    const blocked = client.transact(DB, [
      ops.wait('Bridge', [['name', '==', 'never']], ['name'], '!=', [], 60_000),
    ]);
    await client.echo();
    const ensureInFlight = vs
      .ensurePort('br-crash', 'p-retry', { type: 'internal', externalIds: { pod: 'x' } })
      .then(
        () => 'ok' as const,
        (e: unknown) => e,
      );
    const disconnected = once(client, 'disconnected');
    await ovs.stopDb('SIGKILL');
    await disconnected;
    const err = await blocked.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DisconnectedError);
    expect((err as DisconnectedError).message).toMatch(
      /connection lost while waiting for the reply to transact/,
    );
    const first = await ensureInFlight;
    if (first !== 'ok') expect(first).toBeInstanceOf(DisconnectedError);

    // While the server is down, calls fail fast instead of hanging.
    await expect(client.listDbs()).rejects.toBeInstanceOf(DisconnectedError);

    const reconnected = once(client, 'connected');
    const synced = once(replica, 'synced');
    const up = client.whenConnected();
    await ovs.startDb();
    await up;
    expect(await reconnected).toEqual([{ reconnected: true }]);
    await synced;

    // Changes by the reference client after the restart reach the replica.
    await run([
      'ovs-vsctl',
      `--db=${ovs.dbRemote}`,
      '--no-wait',
      'add-port',
      'br-crash',
      'p-after',
      '--',
      'set',
      'Port',
      'p-after',
      'external_ids:late=1',
    ]);
    await vs.ensurePort('br-crash', 'p-retry', { type: 'internal', externalIds: { pod: 'x' } });
    await vs.ensurePort('br-crash', 'p-retry', { type: 'internal', externalIds: { pod: 'x' } });
    await until(
      replica,
      () => replica.find('Port', (r) => r.name === 'p-after' || r.name === 'p-retry').length === 2,
    );

    const dump = await ovsdbClientDump(ovs.dbSocket, ['Bridge', 'Port', 'Interface']);
    expect(stripUuids(replica.snapshot())).toEqual(dump);
    const named = Object.values(dump.Port!).filter((p) => p.name === 'p-retry');
    expect(named).toHaveLength(1);
    const bridge = Object.values(dump.Bridge!).find((b) => b.name === 'br-crash')!;
    expect((bridge.ports as string[]).length).toBe(20 + 1 + 2); // pc0..19, the bridge's own port, p-retry, p-after
    expect(await vs.findPortsByExternalIds({ pod: 'x' })).toHaveLength(1);
  } finally {
    await replica.stop();
    client.close();
  }
});

test('after a reconnect to a clustered server the replica resumes from its txn id without a full re-dump', async () => {
  const db = await startClusteredDb(tb);
  const client = await OvsdbClient.connect(`unix:${db.socket}`, {
    probeIntervalMs: 0,
    reconnect: { initialDelayMs: 10, maxDelayMs: 50 },
  });
  const writer = await OvsdbClient.connect(`unix:${db.socket}`, { probeIntervalMs: 0 });
  const vs = new VSwitch(writer);
  const replica = new Replica(client, { db: DB, tables: { Bridge: {}, Port: {}, Interface: {} } });
  try {
    await vs.ensureBridge('br-r', { datapathType: 'netdev' });
    // Bulk so ovsdb-server's transaction history (bounded by the database size) keeps recent transactions.
    for (let i = 0; i < 60; i++)
      await vs.ensurePort('br-r', `bulk${i}`, {
        externalIds: { a: 'x'.repeat(20), b: String(i), c: 'y', d: 'z' },
      });
    await replica.start();
    let inserts = 0;
    replica.on('insert', () => inserts++);
    const synced = once(replica, 'synced');
    client.connection.dropSession('test: simulated network drop');
    await vs.ensurePort('br-r', 'while-away', { type: 'internal' });
    const [info] = (await synced) as [{ resumed: boolean; reconnect: boolean }];
    expect(info).toEqual({ resumed: true, reconnect: true });
    await until(replica, () => replica.find('Port', (r) => r.name === 'while-away').length === 1);
    // Only the new port and interface were transferred, not the 60 existing ones again.
    expect(inserts).toBe(2);
    expect(stripUuids(replica.snapshot())).toEqual(
      await ovsdbClientDump(db.socket, ['Bridge', 'Port', 'Interface']),
    );
  } finally {
    await replica.stop();
    client.close();
    writer.close();
    await db.stop();
  }
});

test('the inactivity probe detects a server that stopped answering', async () => {
  const client = await OvsdbClient.connect(`unix:${ovs.dbSocket}`, {
    probeIntervalMs: 200,
    reconnect: false,
  });
  try {
    const server = pidfileProcess(`${ovs.dir}/ovsdb.pid`);
    if (!server) throw new Error(`no ovsdb-server behind ${ovs.dir}/ovsdb.pid`);
    const disconnected = once(client, 'disconnected');
    expect(signalProcess(server, 'SIGSTOP')).toBe(true); // alive but silent: the socket stays open
    try {
      const [cause] = (await disconnected) as [Error];
      expect(cause.message).toMatch(/inactivity probe/);
    } finally {
      signalProcess(server, 'SIGCONT');
    }
  } finally {
    client.close();
  }
  const again = await OvsdbClient.connect(`unix:${ovs.dbSocket}`, { probeIntervalMs: 0 });
  expect(unwrap(await again.transact(DB, [ops.comment('still alive')])).ok).toBe(true);
  again.close();
});
