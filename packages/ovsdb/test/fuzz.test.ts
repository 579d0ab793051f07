// Fuzzing what a server sends: replies of the wrong shape, JSON-RPC errors of any shape, bytes that are
// not JSON, replies to ids nobody asked, notifications with junk params, huge values. Every call
// settles with a value of its declared type or an OvsdbError; nothing throws anywhere else.
// Runs: FUZZ_RUNS (default 2,000); seed: FUZZ_SEED (fixed, see jest.fuzz-setup.cjs).
import fc from 'fast-check';
import type { Duplex } from 'node:stream';
import { OvsdbClient, OvsdbError, bundledVswitchSchema, ops } from '../src/index';
import { flush, onMessages, streamPair } from './helpers';

const runs = Number(process.env.FUZZ_RUNS ?? 2000);

/** Megabyte-sized values: a 1 MiB string, 5,000 rows with malformed UUIDs. */
const huge = ['x'.repeat(1 << 20), Array.from({ length: 5000 }, (_, i) => ({ _uuid: ['uuid', `bad-${i}`], name: i }))];

/** A value as a buggy or hostile server might send it. */
const junk = fc.oneof(
  { weight: 40, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
  { weight: 10, arbitrary: fc.constantFrom(null, [], {}, ['uuid'], ['set', 7], ['map', [[1]]], { rows: 'x' }, [{ count: -1 }, { rows: [{ _uuid: 3 }] }]) },
  { weight: 1, arbitrary: fc.constant(huge) },
);

type Answer =
  | { kind: 'result'; value: unknown }
  | { kind: 'error'; value: unknown }
  | { kind: 'bytes'; bytes: Uint8Array }
  | { kind: 'wrongId'; id: unknown; value: unknown }
  | { kind: 'notification'; method: string; params: unknown }
  | { kind: 'silent' };

const answer: fc.Arbitrary<Answer> = fc.oneof(
  junk.map((value) => ({ kind: 'result' as const, value })),
  junk.map((value) => ({ kind: 'error' as const, value })),
  fc.uint8Array({ minLength: 1, maxLength: 64 }).map((bytes) => ({ kind: 'bytes' as const, bytes })),
  fc.tuple(fc.jsonValue({ maxDepth: 1 }), junk).map(([id, value]) => ({ kind: 'wrongId' as const, id, value })),
  fc.tuple(fc.constantFrom('update', 'update2', 'update3', 'locked', 'stolen', 'monitor_canceled', 'echo', 'x'), junk).map(([method, params]) => ({ kind: 'notification' as const, method, params })),
  fc.constant({ kind: 'silent' as const }),
);

function reply(server: Duplex, id: unknown, a: Answer): void {
  const send = (m: unknown): void => {
    server.write(JSON.stringify(m));
  };
  switch (a.kind) {
    case 'result':
      return send({ id, result: a.value, error: null });
    case 'error':
      return send({ id, result: null, error: a.value });
    case 'bytes':
      server.write(Buffer.from(a.bytes));
      return;
    case 'wrongId':
      return send({ id: a.id, result: a.value, error: null });
    case 'notification':
      return send({ id: null, method: a.method, params: a.params });
    case 'silent':
      return;
  }
}

describe('OvsdbClient against a server that answers anything', () => {
  test('every call settles with its type or an OvsdbError', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(answer, { minLength: 5, maxLength: 5 }), async (answers) => {
        let server: Duplex | undefined;
        const client = new OvsdbClient('unix:/nonexistent', {
          probeIntervalMs: 0,
          reconnect: { initialDelayMs: 60_000 },
          openStream: async () => {
            const [c, s] = streamPair();
            server = s;
            let n = 0;
            onMessages(s, (m) => {
              if (m.method === 'echo') return s.write(JSON.stringify({ id: m.id, result: m.params, error: null }));
              reply(s, m.id, answers[n++ % answers.length]!);
            });
            return c;
          },
        });
        const stray: unknown[] = [];
        client.on('protocolError', (e) => {
          if (!(e instanceof OvsdbError)) stray.push(e);
        });
        await client.connection.connect();
        client.useSchema('Open_vSwitch', bundledVswitchSchema());
        const calls: Promise<unknown>[] = [
          client.listDbs().then((dbs) => expect(dbs.every((d) => typeof d === 'string')).toBe(true)),
          client.getSchema('Other'),
          client.transact('Open_vSwitch', [ops.select('Bridge', [['name', '==', 'br-int']], ['name', 'ports'])]),
          client.monitor('Open_vSwitch', 'm1', { Bridge: { columns: ['name'] } }),
          client.monitorCond('Open_vSwitch', 'm2', { Interface: { columns: ['name', 'ofport'] } }),
        ];
        const settled = Promise.allSettled(calls);
        await flush();
        await flush();
        server!.end();
        await flush();
        client.close();
        const outcomes = await settled;
        for (const o of outcomes) {
          if (o.status === 'rejected' && !(o.reason instanceof OvsdbError)) throw new Error(`not an OvsdbError: ${String((o.reason as Error).stack)}`);
        }
        expect(stray).toEqual([]);
      }),
      { numRuns: runs },
    );
  }, runs * 100 + 60_000);
});
