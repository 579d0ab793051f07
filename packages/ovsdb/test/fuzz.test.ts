// Fuzzing what a server sends to every request the client makes: well-formed and corrupted replies,
// JSON-RPC errors of any shape, bytes that are not JSON, replies to ids nobody asked, notifications,
// silence. Each reply is decoded independently here (a small strict decoder of the wire format) and
// the client must resolve to exactly that value or reject with a typed OvsdbError; no call hangs,
// and the next good request on the client resolves.
// Runs: FUZZ_RUNS (default 2,000); seed: FUZZ_SEED (fixed, see jest.fuzz-setup.cjs).
import fc from 'fast-check';
import type { Duplex } from 'node:stream';
import { OvsdbClient, OvsdbError, bundledVswitchSchema, ops, type ColumnType, type Operation } from '../src/index';
import { onMessages, streamPair } from './helpers';

const runs = Number(process.env.FUZZ_RUNS ?? 2000);
const schema = bundledVswitchSchema();
const DB = 'Open_vSwitch';
/** A monitor every step may change (monitor_cond_change needs one the client knows). */
const M0 = 'fuzz-monitor-\u2603';

// ---------------------------------------------------------------------------------------------
// The oracle: what a reply decodes to, written apart from the client's codec.

/** The client must reject this reply with a typed error. */
class Rejected extends Error {}
const reject = (why: string): never => {
  throw new Rejected(why);
};
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
type A = number | boolean | string;

function atomOf(type: string, j: unknown): A {
  switch (type) {
    case 'integer':
      return Number.isInteger(j) ? (j as number) : reject('not an integer');
    case 'real':
      return typeof j === 'number' ? j : reject('not a real');
    case 'boolean':
      return typeof j === 'boolean' ? j : reject('not a boolean');
    case 'string':
      return typeof j === 'string' ? j : reject('not a string');
    default:
      return Array.isArray(j) && j.length === 2 && j[0] === 'uuid' && typeof j[1] === 'string' && UUID_RE.test(j[1]) ? j[1].toLowerCase() : reject('not a uuid');
  }
}
const atomId = (a: A): string => `${typeof a}:${String(a)}`;
const byAtom = (x: A, y: A): number => (x < y ? -1 : x > y ? 1 : 0);

function datumOf(t: ColumnType, j: unknown): unknown {
  const fits = (n: number): void => void (n < t.min || n > t.max ? reject('size') : undefined);
  if (t.value) {
    if (!Array.isArray(j) || j.length !== 2 || j[0] !== 'map' || !Array.isArray(j[1])) return reject('not a map');
    const m = new Map<A, A>();
    for (const p of j[1] as unknown[]) {
      if (!Array.isArray(p) || p.length !== 2) return reject('not a pair');
      const k = atomOf(t.key.type, p[0]);
      if (m.has(k)) reject('duplicate key');
      m.set(k, atomOf(t.value.type, p[1]));
    }
    fits(m.size);
    return m;
  }
  const elems = Array.isArray(j) && j.length === 2 && j[0] === 'set' && Array.isArray(j[1]) ? (j[1] as unknown[]) : [j];
  const atoms = elems.map((e) => atomOf(t.key.type, e));
  if (new Set(atoms.map(atomId)).size !== atoms.length) reject('duplicate');
  fits(atoms.length);
  if (t.min === 1 && t.max === 1) return atoms[0];
  if (t.min === 0 && t.max === 1) return atoms[0] ?? null;
  return atoms.sort(byAtom);
}

function rowOf(table: string, j: unknown): Record<string, unknown> {
  const columns = schema.tables[table]?.columns ?? reject('unknown table');
  if (!isObject(j)) return reject('row is not an object');
  return Object.fromEntries(Object.entries(j).map(([c, v]) => [c, datumOf((columns[c] ?? reject('unknown column')).type, v)]));
}

const tablesOf = (j: unknown, each: (table: string, u: Record<string, unknown>) => unknown): Record<string, Record<string, unknown>> => {
  if (!isObject(j)) return reject('table-updates is not an object');
  return Object.fromEntries(
    Object.entries(j).map(([table, rows]) => {
      if (!isObject(rows)) return reject('table-update is not an object');
      return [table, Object.fromEntries(Object.entries(rows).map(([uuid, u]) => [uuid, isObject(u) ? each(table, u) : reject('row-update is not an object')]))];
    }),
  );
};

/** `update` (monitor v1) table-updates; null stands for none. */
const updates1 = (j: unknown): unknown =>
  tablesOf(j ?? {}, (table, u) => ({ ...('old' in u ? { old: rowOf(table, u.old) } : {}), ...('new' in u ? { new: rowOf(table, u.new) } : {}) }));

/** `update2` table-updates: modify diffs stay in wire form. */
const updates2 = (j: unknown): unknown =>
  tablesOf(j, (table, u) => {
    if ('initial' in u) return { kind: 'initial', row: rowOf(table, u.initial) };
    if ('insert' in u) return { kind: 'insert', row: rowOf(table, u.insert) };
    if ('modify' in u) return { kind: 'modify', diff: u.modify };
    if ('delete' in u) return { kind: 'delete', row: u.delete ? rowOf(table, u.delete) : undefined };
    return reject('row-update2 has no known member');
  });

const failed = (error: string, details: string | undefined, index: number | undefined, operation: Operation | undefined, results: unknown[]): unknown => ({
  ok: false,
  error,
  ...(details !== undefined ? { details } : {}),
  index,
  operation,
  results,
});

/** A transact reply as a TransactionResult (RFC 7047 4.1.3: one result per operation, an error ends it). */
function transactionOf(operations: readonly Operation[], reply: unknown): unknown {
  if (!Array.isArray(reply)) return failed('invalid reply', 'transact reply is not an array', undefined, undefined, []);
  const results: unknown[] = [];
  const uuids: Record<string, string> = {};
  for (const [i, r] of reply.entries()) {
    if (isObject(r) && typeof r.error === 'string') return failed(r.error, typeof r.details === 'string' ? r.details : undefined, i < operations.length ? i : undefined, operations[i], results);
    const op = operations[i];
    if (!op) continue;
    if (r === null) {
      results.push(null);
      continue;
    }
    const malformed = (): unknown => failed('invalid reply', expect.any(String) as string, i, op, results);
    if (!isObject(r)) return malformed();
    switch (op.op) {
      case 'insert': {
        const u = r.uuid;
        if (!Array.isArray(u) || u.length !== 2 || u[0] !== 'uuid' || typeof u[1] !== 'string' || !UUID_RE.test(u[1])) return malformed();
        const uuid = u[1].toLowerCase();
        if (op.uuidName !== undefined) uuids[op.uuidName] = uuid;
        results.push({ op: 'insert', uuid });
        break;
      }
      case 'select':
        if (!Array.isArray(r.rows)) return malformed();
        results.push({ op: 'select', rows: r.rows.map((row) => rowOf(op.table, row)) });
        break;
      case 'update':
      case 'mutate':
      case 'delete':
        if (!Number.isInteger(r.count) || (r.count as number) < 0) return malformed();
        results.push({ op: op.op, count: r.count });
        break;
      default:
        results.push({ op: op.op });
    }
  }
  if (results.length < operations.length || results.includes(null)) return failed('invalid reply', `expected ${operations.length} results, got ${reply.length}`, undefined, undefined, results);
  return { ok: true, results, uuids };
}

/** A transact answered with a JSON-RPC error is a failed transaction carrying the server's error. */
function transactionOfRpcError(e: unknown): unknown {
  const error = typeof e === 'string' ? e : isObject(e) && typeof e.error === 'string' ? e.error : JSON.stringify(e);
  return failed(error, isObject(e) && typeof e.details === 'string' ? e.details : undefined, undefined, undefined, []);
}

// ---------------------------------------------------------------------------------------------
// Replies: well-formed ones for each request, the same with one thing wrong, and junk.

const uuid = fc.uuid().map((u) => u.toLowerCase());
const wireUuid = uuid.map((u) => ['uuid', u]);
/** Megabyte-sized values: a 1 MiB string, 5,000 rows with malformed UUIDs. */
const huge = ['x'.repeat(1 << 20), Array.from({ length: 5000 }, (_, i) => ({ _uuid: ['uuid', `bad-${i}`], name: i }))];
const junk = fc.oneof(
  { weight: 40, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
  { weight: 10, arbitrary: fc.constantFrom(null, [], {}, ['uuid'], ['set', 7], ['map', [[1]]], { rows: 'x' }, [{ count: -1 }, { rows: [{ _uuid: 3 }] }]) },
  { weight: 1, arbitrary: fc.constant(huge) },
);

const bridgeRow = fc.record(
  {
    _uuid: wireUuid,
    name: fc.string(),
    stp_enable: fc.boolean(),
    ports: fc.oneof(wireUuid, fc.uniqueArray(uuid, { maxLength: 4 }).map((us) => ['set', us.map((u) => ['uuid', u])])),
    external_ids: fc.uniqueArray(fc.tuple(fc.string(), fc.string()), { selector: (p) => p[0], maxLength: 3 }).map((ps) => ['map', ps]),
  },
  { requiredKeys: [] },
);
const interfaceRow = fc.record({ name: fc.string(), ofport: fc.oneof(fc.integer(), fc.constant(['set', []])) }, { requiredKeys: [] });
/** A row with one column wrong: unknown, of the wrong type, a duplicate, a bad uuid. */
const badRow = fc.oneof(
  junk,
  fc.constantFrom({ nope: 1 }, { name: 5 }, { ports: ['set', [['uuid', 'x']]] }, { ofport: ['set', [1, 1]] }, { external_ids: ['map', [[1, 'a']]] }, { stp_enable: 'yes' }, { name: ['set', []] }),
);
const rowFor = (table: string): fc.Arbitrary<unknown> => fc.oneof({ weight: 8, arbitrary: table === 'Bridge' ? bridgeRow : interfaceRow }, { weight: 1, arbitrary: badRow });

/** table -> uuid -> row-update, mostly for the tables the rows fit. */
const tableUpdates = (rowUpdate: (table: string) => fc.Arbitrary<unknown>): fc.Arbitrary<unknown> =>
  fc
    .uniqueArray(
      fc.constantFrom('Bridge', 'Interface', 'Bridge', 'Interface', 'Nope').chain((t) => fc.tuple(fc.constant(t), fc.dictionary(uuid, rowUpdate(t === 'Nope' ? 'Bridge' : t), { maxKeys: 3 }))),
      { selector: (e) => e[0], maxLength: 2 },
    )
    .map((es) => Object.fromEntries(es));
const update1 = (t: string): fc.Arbitrary<unknown> => fc.record({ old: rowFor(t), new: rowFor(t) }, { requiredKeys: [] });
const update2 = (t: string): fc.Arbitrary<unknown> =>
  fc.oneof(
    rowFor(t).map((initial) => ({ initial })),
    rowFor(t).map((insert) => ({ insert })),
    fc.jsonValue({ maxDepth: 2 }).map((modify) => ({ modify })),
    fc.oneof(fc.constantFrom(null, 0, false, ''), rowFor(t)).map((d) => ({ delete: d })),
    fc.constant({ nothing: 1 }),
  );

const someOf = (good: fc.Arbitrary<unknown>, bad?: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> =>
  fc.oneof({ weight: 6, arbitrary: good }, { weight: 2, arbitrary: junk }, ...(bad ? [{ weight: 1, arbitrary: bad }] : []));

// ---------------------------------------------------------------------------------------------
// Requests: each one the client sends, the replies to fuzz it with, and what each reply decodes to.

/** The operations a transaction draws from: every operation kind. */
const OPS: readonly Operation[] = [
  ops.insert('Bridge', { name: 'br-x' }, { uuidName: 'new_bridge' }),
  ops.select('Bridge', [['name', '==', 'br-int']], ['name', 'ports', 'external_ids', 'stp_enable']),
  ops.update('Bridge', [['name', '==', 'br-int']], { external_ids: { a: 'b' } }),
  ops.mutate('Bridge', [['name', '==', 'br-int']], [['external_ids', 'insert', { k: 'v' }]]),
  ops.delete('Interface', [['name', '==', 'p1']]),
  ops.wait('Bridge', [], ['name'], '==', [{ name: 'br-int' }], 0),
  ops.commit(true),
  ops.abort(),
  ops.comment('fuzz'),
  ops.assert('lock-a'),
];
const opResult = (op: Operation): fc.Arbitrary<unknown> => {
  switch (op.op) {
    case 'insert':
      return someOf(wireUuid.map((u) => ({ uuid: u })), fc.constantFrom({ uuid: 'abc' }, { uuid: ['uuid', 'x'] }, {}));
    case 'select':
      return someOf(fc.array(rowFor('Bridge'), { maxLength: 3 }).map((rows) => ({ rows })), fc.constantFrom({ rows: 'x' }, {}, { rows: [null] }));
    case 'update':
    case 'mutate':
    case 'delete':
      return someOf(fc.nat().map((count) => ({ count })), fc.constantFrom({ count: '1' }, { count: -1 }, { count: 1.5 }, {}));
    default:
      return someOf(fc.constant({}), fc.constantFrom(5, 'ok', []));
  }
};
/** A transaction reply: one result per operation, maybe an operation error, a commit error, nulls, too few. */
const transactReply = (operations: readonly Operation[]): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 8, arbitrary: fc.tuple(...operations.map(opResult)) },
    {
      weight: 4,
      arbitrary: fc
        .tuple(fc.tuple(...operations.map(opResult)), fc.nat(operations.length), fc.oneof(fc.record({ error: fc.string(), details: fc.oneof(fc.string(), junk) }, { requiredKeys: ['error'] }), fc.constant(null)))
        .map(([rs, i, e]) => [...rs.slice(0, i), e, ...rs.slice(i + 1)]),
    },
    { weight: 2, arbitrary: fc.tuple(fc.tuple(...operations.map(opResult)), fc.nat(operations.length)).map(([rs, n]) => rs.slice(0, n)) },
    { weight: 1, arbitrary: junk },
  );

type Outcome = { resolves: unknown } | { rejects: true };
interface Request {
  readonly name: string;
  /** Draws the call and the reply value to fuzz it with. */
  readonly arb: fc.Arbitrary<{ call: (c: OvsdbClient, n: number) => Promise<unknown>; result: unknown; expected: (result: unknown) => unknown; rpcError?: (e: unknown) => unknown }>;
}
const plain = (name: string, call: (c: OvsdbClient, n: number) => Promise<unknown>, reply: fc.Arbitrary<unknown>, expected: (r: unknown) => unknown): Request => ({
  name,
  arb: reply.map((result) => ({ call, result, expected })),
});
const monitorRequests = { Bridge: { columns: ['name', 'ports', 'external_ids', 'stp_enable'] }, Interface: { columns: ['name', 'ofport'] } };
const tinySchema = fc.record({ name: fc.string(), version: fc.string(), type: fc.constantFrom('integer', 'string', 'boolean', 'real', 'uuid') });

const REQUESTS: readonly Request[] = [
  plain('list_dbs', (c) => c.listDbs(), someOf(fc.array(fc.string()), fc.constantFrom(['a', 1], 'Open_vSwitch')), (r) => (Array.isArray(r) && r.every((x) => typeof x === 'string') ? r : reject('not strings'))),
  {
    name: 'get_schema',
    arb: fc.oneof(
      tinySchema.map((s) => ({
        call: (c: OvsdbClient, n: number) => c.getSchema(`db${n}`),
        result: { name: s.name, version: s.version, tables: { T: { columns: { c: { type: s.type } } } } },
        // A null result (an error member of null) is no schema.
        expected: (r: unknown) => {
          if (!isObject(r)) return reject('not a schema');
          const id = { key: { type: 'uuid' }, min: 1, max: 1 };
          const columns = { _uuid: { name: '_uuid', type: id, ephemeral: false, mutable: false }, _version: { name: '_version', type: id, ephemeral: false, mutable: false }, c: { name: 'c', type: { key: { type: s.type }, min: 1, max: 1 }, ephemeral: false, mutable: true } };
          return { name: s.name, version: s.version, tables: { T: { name: 'T', columns, isRoot: false, indexes: [] } } };
        },
      })),
      junk
        .filter((j: unknown) => !(isObject(j) && typeof j.name === 'string' && isObject(j.tables)))
        .map((result) => ({ call: (c: OvsdbClient, n: number) => c.getSchema(`db${n}`), result, expected: () => reject('not a schema') })),
    ),
  },
  plain('get_schema (raw)', (c) => c.getSchemaJson(DB), junk, (r) => r),
  {
    name: 'transact',
    arb: fc.shuffledSubarray([...OPS], { minLength: 1 }).chain((operations) =>
      transactReply(operations).map((result) => ({
        call: (c: OvsdbClient) => c.transact(DB, operations),
        result,
        expected: (r: unknown) => transactionOf(operations, r),
        rpcError: transactionOfRpcError,
      })),
    ),
  },
  plain('transact (raw)', (c) => c.transactRaw(DB, [{ op: 'comment', comment: 'x' }]), junk, (r) => r),
  plain('echo', (c) => c.echo('ping', 1), someOf(fc.constant(['ping', 1]), fc.constantFrom('ping', { a: 1 })), (r) => (Array.isArray(r) ? r : reject('not an array'))),
  plain('monitor', (c) => c.monitor(DB, 'm1', monitorRequests), someOf(tableUpdates(update1)), updates1),
  plain('monitor_cond', (c) => c.monitorCond(DB, 'm2', monitorRequests), someOf(tableUpdates(update2)), updates2),
  plain(
    'monitor_cond_since',
    (c) => c.monitorCondSince(DB, 'm3', monitorRequests, undefined),
    someOf(fc.tuple(fc.boolean(), fc.oneof(uuid, fc.string()), tableUpdates(update2)), fc.constantFrom([true, 'x'], ['yes', 'x', {}], [true, 7, {}], [false, 'x', {}, 1])),
    (r) => (Array.isArray(r) && r.length === 3 && typeof r[0] === 'boolean' && typeof r[1] === 'string' ? { found: r[0], lastTxnId: r[1], updates: updates2(r[2]) } : reject('not [found, id, updates]')),
  ),
  plain('monitor_cond_change', (c) => c.monitorCondChange(M0, M0, { Bridge: { columns: ['name'], where: [['name', '==', 'br-int']] } }), someOf(fc.constant({})), () => undefined),
  plain('monitor_cancel', (c) => c.monitorCancel('m9'), someOf(fc.constant({})), () => undefined),
  // lock/steal: a reply without `locked: true` means "not yet" (a `locked` notification follows).
  plain('lock', (c) => c.lock('lock-a'), someOf(fc.boolean().map((locked) => ({ locked }))), (r) => ({ locked: isObject(r) && r.locked === true })),
  plain('steal', (c) => c.steal('lock-a'), someOf(fc.constant({ locked: true })), (r) => ({ locked: isObject(r) && r.locked === true })),
  plain('unlock', (c) => c.unlock('lock-a'), someOf(fc.constant({})), () => undefined),
  plain('set_db_change_aware', (c) => c.setDbChangeAware(true), someOf(fc.constant({})), () => undefined),
];

// ---------------------------------------------------------------------------------------------
// The server side of one step: how the request is answered.

type Answer =
  | { kind: 'result'; value: unknown }
  | { kind: 'error'; value: unknown }
  | { kind: 'bytes'; bytes: Uint8Array }
  | { kind: 'wrongId'; id: unknown; value: unknown }
  | { kind: 'notification'; method: string; params: unknown }
  | { kind: 'silent' };

/** Ids the client never uses (it counts 1, 2, ...), so a wrong-id reply cannot answer another request. */
const foreignId = fc.oneof(fc.string(), fc.integer({ min: -1000, max: 0 }), fc.constant(null), fc.constant(1e9));
const step = fc.constantFrom(...REQUESTS).chain((req) =>
  fc.tuple(
    fc.constant(req.name),
    req.arb,
    fc.oneof(
      { weight: 12, arbitrary: fc.constant({ kind: 'result' as const }) },
      { weight: 2, arbitrary: fc.oneof(fc.string(), fc.record({ error: fc.string(), details: fc.string() }, { requiredKeys: ['error'] }), junk).map((value) => ({ kind: 'error' as const, value })) },
      { weight: 1, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 64 }).map((bytes) => ({ kind: 'bytes' as const, bytes })) },
      { weight: 1, arbitrary: fc.tuple(foreignId, junk).map(([id, value]) => ({ kind: 'wrongId' as const, id, value })) },
      { weight: 1, arbitrary: fc.tuple(fc.constantFrom('update', 'update2', 'update3', 'locked', 'stolen', 'monitor_canceled', 'x'), junk).map(([method, params]) => ({ kind: 'notification' as const, method, params })) },
      { weight: 1, arbitrary: fc.constant({ kind: 'silent' as const }) },
    ),
  ),
);

/** Answers one request; anything but a reply to it ends the session (else the call would wait forever). */
function answer(server: Duplex, id: unknown, a: Answer): void {
  const send = (m: unknown): void => void server.write(JSON.stringify(m));
  if (a.kind === 'result') return send({ id, result: a.value, error: null });
  if (a.kind === 'error') return send({ id, result: null, error: a.value });
  if (a.kind === 'bytes') server.write(Buffer.from(a.bytes));
  else if (a.kind === 'wrongId') send({ id: a.id, result: a.value, error: null });
  else if (a.kind === 'notification') send({ id: null, method: a.method, params: a.params });
  server.end();
}

/** Settles `p` or fails the property: no call may hang. */
async function settle(p: Promise<unknown>, what: string): Promise<PromiseSettledResult<unknown>> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, rej) => (timer = setTimeout(() => rej(new Error(`${what} did not settle within 5 s`)), 5000)));
  try {
    return await Promise.race([Promise.allSettled([p]).then((r) => r[0]!), hang]);
  } finally {
    clearTimeout(timer);
  }
}

describe('OvsdbClient against a server that answers anything', () => {
  test('every request resolves to the reply decoded here or rejects with an OvsdbError; the next good request resolves', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 3 }), async (steps) => {
        let planned: Answer | undefined;
        let sessions = 0;
        const client = new OvsdbClient('unix:/nonexistent', {
          probeIntervalMs: 0,
          reconnect: { initialDelayMs: 1, maxDelayMs: 1 },
          openStream: async () => {
            const [c, s] = streamPair();
            sessions++;
            onMessages(s, (m) => {
              if (m.id === null || m.id === undefined) return; // cancel and other notifications
              const a = planned ?? { kind: 'silent' };
              planned = undefined;
              answer(s, m.id, a);
            });
            return c;
          },
        });
        const stray: unknown[] = [];
        client.on('protocolError', (e) => {
          if (!(e instanceof OvsdbError)) stray.push(e);
        });
        let m0 = false;
        client.on('disconnected', () => (m0 = false));
        try {
          await client.connection.connect();
          client.useSchema(DB, schema);
          for (const [n, [name, drawn, how]] of steps.entries()) {
            await client.whenConnected();
            if (!m0) {
              planned = { kind: 'result', value: {} };
              await client.monitorCond(DB, M0, { Bridge: { columns: ['name'] } });
              m0 = true;
            }
            const a: Answer = how.kind === 'result' ? { kind: 'result', value: drawn.result } : (how as Answer);
            planned = a;
            const got = await settle(drawn.call(client, n), name);
            planned = undefined;
            let want: Outcome;
            if (a.kind === 'result' || (a.kind === 'error' && a.value === null)) {
              try {
                want = { resolves: drawn.expected(a.kind === 'result' ? a.value : null) };
              } catch (e) {
                if (!(e instanceof Rejected)) throw e;
                want = { rejects: true };
              }
            } else if (a.kind === 'error' && drawn.rpcError) want = { resolves: drawn.rpcError(a.value) };
            else want = { rejects: true };
            if ('resolves' in want) {
              if (got.status === 'rejected') throw new Error(`${name} rejected (${String((got.reason as Error).stack)}), expected ${JSON.stringify(want.resolves)?.slice(0, 300)}`);
              expect(got.value).toEqual(want.resolves);
            } else {
              if (got.status === 'fulfilled') throw new Error(`${name} resolved ${JSON.stringify(got.value)?.slice(0, 300)}, expected a rejection`);
              if (!(got.reason instanceof OvsdbError)) throw new Error(`${name}: not an OvsdbError: ${String((got.reason as Error).stack)}`);
            }
          }
          // Still usable: a good request resolves (on a new session if the last step ended one).
          await client.whenConnected();
          planned = { kind: 'result', value: [DB] };
          const after = await settle(client.listDbs(), 'list_dbs after the fuzzed steps');
          expect(after).toEqual({ status: 'fulfilled', value: [DB] });
          expect(sessions).toBeGreaterThan(0);
          expect(stray).toEqual([]);
        } finally {
          client.close();
        }
      }),
      { numRuns: runs },
    );
  }, runs * 100 + 60_000);
});
