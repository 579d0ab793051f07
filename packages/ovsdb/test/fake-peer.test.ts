// Malformed input from a peer we control (a real unix socket): every case is a typed error, never a crash or hang.
import type { Socket } from 'node:net';
import {
  OvsdbClient,
  DisconnectedError,
  ProtocolError,
  FramingError,
  ops,
  type OvsdbError,
} from '../src/index';
import { FakePeer } from './helpers';

type Script = (m: Record<string, unknown>, sock: Socket) => void;
const reply = (sock: Socket, id: unknown, result: unknown) =>
  sock.write(JSON.stringify({ result, error: null, id }));
const MINI_SCHEMA = {
  name: 'Mini',
  version: '1.0.0',
  tables: { T: { columns: { name: { type: 'string' }, n: { type: { key: 'integer', min: 0, max: 1 } } } } },
};

async function withPeer(
  script: Script,
  fn: (client: OvsdbClient, errors: OvsdbError[], peer: FakePeer) => Promise<void>,
  maxMessageBytes?: number,
): Promise<void> {
  const peer = new FakePeer((m, sock) => {
    if (m.method === 'get_schema') return reply(sock, m.id, MINI_SCHEMA);
    script(m, sock);
  });
  const remote = await peer.start();
  const client = await OvsdbClient.connect(remote, {
    reconnect: false,
    probeIntervalMs: 0,
    ...(maxMessageBytes !== undefined ? { maxMessageBytes } : {}),
  });
  const errors: OvsdbError[] = [];
  client.on('protocolError', (e) => errors.push(e));
  try {
    await fn(client, errors, peer);
  } finally {
    client.close();
    await peer.stop();
  }
}

test('invalid JSON closes the session: the pending request fails with the framing error as cause', async () => {
  await withPeer(
    (m, sock) => sock.write(`{"id": ${JSON.stringify(m.id)}, "result": [nope]}`),
    async (client, errors) => {
      const err = await client.listDbs().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DisconnectedError);
      expect((err as Error).cause).toBeInstanceOf(FramingError);
      expect(errors.map((e) => e.code)).toContain('OVSDB_INVALID_JSON');
      expect(client.isConnected).toBe(false);
    },
  );
});

test('a truncated frame followed by close fails the request as OVSDB_TRUNCATED', async () => {
  await withPeer(
    (m, sock) => {
      sock.write(`{"id": ${JSON.stringify(m.id)}, "result": ["Open_v`);
      sock.end();
    },
    async (client) => {
      const err = await client.listDbs().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DisconnectedError);
      expect((err as Error).cause).toMatchObject({ code: 'OVSDB_TRUNCATED' });
    },
  );
});

test('a reply with an unknown id is reported and ignored; the session keeps working', async () => {
  await withPeer(
    (m, sock) => {
      sock.write(JSON.stringify({ result: ['x'], error: null, id: 999999 }));
      reply(sock, m.id, ['Open_vSwitch']);
    },
    async (client, errors) => {
      expect(await client.listDbs()).toEqual(['Open_vSwitch']);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toBeInstanceOf(ProtocolError);
      expect(errors[0]!.code).toBe('OVSDB_UNKNOWN_ID');
      expect(client.isConnected).toBe(true);
    },
  );
});

test('an oversized message is refused with OVSDB_MESSAGE_TOO_LARGE before it is buffered whole', async () => {
  await withPeer(
    (m, sock) => {
      sock.write(`{"id": ${JSON.stringify(m.id)}, "result": ["`);
      sock.write('x'.repeat(64 * 1024));
    },
    async (client, errors) => {
      const err = await client.listDbs().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DisconnectedError);
      expect(errors.map((e) => e.code)).toContain('OVSDB_MESSAGE_TOO_LARGE');
    },
    4096,
  );
});

test('wrong types: bad result shapes reject the call with a ProtocolError, bad messages are reported', async () => {
  await withPeer(
    (m, sock) => {
      if (m.method === 'list_dbs') return reply(sock, m.id, 5);
      if (m.method === 'monitor_cond_since') return reply(sock, m.id, { found: 'yes' });
      if (m.method === 'transact') return reply(sock, m.id, 'not an array');
      if (m.method === 'echo') {
        sock.write('[1,2,3]');
        sock.write('{"method": 5, "params": [], "id": 3}');
        sock.write('{"method": "update2", "params": ["nobody", {}], "id": null}');
        sock.write('{"method": "locked", "params": [42], "id": null}');
        sock.write('{"hello": "world"}');
        return reply(sock, m.id, m.params);
      }
    },
    async (client, errors) => {
      await expect(client.listDbs()).rejects.toMatchObject({ code: 'OVSDB_BAD_REPLY' });
      await expect(client.monitorCondSince('Mini', 'm', { T: {} }, undefined)).rejects.toBeInstanceOf(
        ProtocolError,
      );
      const r = await client.transact('Mini', [ops.select('T', [])]);
      expect(r).toMatchObject({ ok: false, error: 'invalid reply' });
      expect(await client.echo('ping')).toEqual(['ping']);
      expect(errors.map((e) => e.code)).toEqual([
        'OVSDB_BAD_MESSAGE',
        'OVSDB_BAD_MESSAGE',
        'OVSDB_BAD_MESSAGE',
        'OVSDB_BAD_MESSAGE',
        'OVSDB_BAD_MESSAGE',
      ]);
      expect(client.isConnected).toBe(true);
    },
  );
});

test('requests from the server are answered: echo with its params, unknown methods with an error', async () => {
  const answers: unknown[] = [];
  await withPeer(
    (m, sock) => {
      if ('result' in m || 'error' in m) answers.push(m);
      if (m.method === 'list_dbs') {
        sock.write(JSON.stringify({ method: 'echo', params: ['x', 1], id: 'e1' }));
        sock.write(JSON.stringify({ method: 'frobnicate', params: [], id: 'f1' }));
        setTimeout(() => reply(sock, m.id, []), 20);
      }
    },
    async (client) => {
      await client.listDbs();
      expect(answers).toEqual([
        { result: ['x', 1], error: null, id: 'e1' },
        { result: null, error: { error: 'unknown method', details: 'frobnicate' }, id: 'f1' },
      ]);
    },
  );
});

test('a server that never answers does not hang a request with a timeout', async () => {
  await withPeer(
    () => undefined,
    async (client) => {
      const c2 = client.connection;
      await expect(c2.request('list_dbs', [], { timeoutMs: 50 })).rejects.toMatchObject({
        code: 'OVSDB_TIMEOUT',
      });
    },
  );
});

test('a value the schema refuses is never sent', async () => {
  const seen: string[] = [];
  await withPeer(
    (m) => seen.push(String(m.method)),
    async (client) => {
      await expect(client.transact('Mini', [ops.insert('T', { name: 5 })])).rejects.toMatchObject({
        code: 'OVSDB_SCHEMA_VALUE',
        table: 'T',
        column: 'name',
        value: 5,
      });
      expect(seen).toEqual([]);
    },
  );
});
