// Operations written straight to JSON text: the same text, the same checks and the same errors as encodeOperation.
import fc from 'fast-check';
import {
  bundledVswitchSchema,
  encodeOperation,
  namedUuid,
  ops,
  SchemaValueError,
  type Operation,
} from '../src/index';
import { encodeOperationText, encodeTransactParams } from '../src/wire-text';

const schema = bundledVswitchSchema();

/** What encodeOperation makes of `op`: its JSON text, or the error it throws. */
function viaObjects(op: Operation): { text: string } | { error: unknown } {
  try {
    return { text: JSON.stringify(encodeOperation(schema, op)) };
  } catch (error) {
    return { error };
  }
}

function viaText(op: Operation): { text: string } | { error: unknown } {
  try {
    return { text: encodeOperationText(schema, op) };
  } catch (error) {
    return { error };
  }
}

/** Same text, or the same error class with the same message, code, table, column and value. */
function expectSameOutcome(a: { text: string } | { error: unknown }, b: { text: string } | { error: unknown }): void {
  if ('text' in a) {
    expect(b).toEqual(a);
    return;
  }
  expect('error' in b).toBe(true);
  const ea = a.error as Record<string, unknown> & Error;
  const eb = (b as { error: unknown }).error as Record<string, unknown> & Error;
  expect(eb.constructor).toBe(ea.constructor);
  expect({ message: eb.message, code: eb.code, table: eb.table, column: eb.column, value: eb.value }).toEqual({
    message: ea.message,
    code: ea.code,
    table: ea.table,
    column: ea.column,
    value: ea.value,
  });
}

function expectSame(op: Operation): void {
  expectSameOutcome(viaObjects(op), viaText(op));
}

/**
 * A transaction's params as the client sends them (bytes, compared as latin1 text so that every byte
 * counts): the bytes of Buffer.from(JSON.stringify([db, ...encodeOperation of each])), or the error
 * of the first operation encodeOperation refuses.
 */
function expectSameParams(operations: readonly Operation[]): void {
  let a: { text: string } | { error: unknown };
  let b: { text: string } | { error: unknown };
  try {
    a = { text: Buffer.from(JSON.stringify(['Open_vSwitch', ...operations.map((o) => encodeOperation(schema, o))])).toString('latin1') };
  } catch (error) {
    a = { error };
  }
  try {
    b = { text: encodeTransactParams(schema, 'Open_vSwitch', operations).toString('latin1') };
  } catch (error) {
    b = { error };
  }
  expectSameOutcome(a, b);
}

const ids = { 'pod-name': 'pod-1', 'pod-namespace': 'ns', 'ip-address': '10.1.0.1' };
const U = '550E8400-E29B-41D4-A716-446655440000';

describe('operations written as JSON text', () => {
  test('write the text JSON.stringify makes of encodeOperation, for every operation and column shape', () => {
    const cases: Operation[] = [
      // What VSwitch.addPorts sends per port, and the closing mutate (one and many named uuids).
      ops.wait('Port', [['name', '==', 'p0']], ['name'], '==', [], 0),
      ops.insert('Interface', { name: 'p0', external_ids: new Map(Object.entries(ids)) }, { uuidName: 'i0' }),
      ops.insert('Port', { name: 'p0', interfaces: [namedUuid('i0')], external_ids: ids }, { uuidName: 'p0' }),
      ops.mutate('Bridge', [['name', '==', 'br']], [['ports', 'insert', [namedUuid('p0')]]]),
      ops.mutate('Bridge', [['name', '==', 'br']], [['ports', 'insert', [namedUuid('p2'), namedUuid('p10'), namedUuid('p1')]]]),
      // Scalars, optionals, sets, maps; integer ranges, enums, uuids in any case, escapes.
      ops.insert('Interface', { name: 'a"b\\c\n\u00e9\u{1f600}', type: 'internal', ofport_request: 7, mtu_request: 1500 }),
      ops.insert('Bridge', { name: 'b', fail_mode: 'secure', protocols: ['OpenFlow15', 'OpenFlow13'], datapath_type: 'netdev' }),
      ops.insert('Bridge', { name: 'b', fail_mode: null, flood_vlans: [], ports: [], other_config: {} }),
      ops.insert('Bridge', { name: 'b', flood_vlans: new Set([3, 1, 2]), ports: [U, namedUuid('p')] }),
      ops.insert('Port', { name: 'p', tag: 5, trunks: [1], interfaces: [U] }, { uuid: U.toLowerCase() }),
      ops.insert('Port', { name: 'p', interfaces: U, external_ids: [['b', '1'], ['a', '2']], other_config: new Map() }),
      ops.insert('Interface', { name: 'x', options: new Map([['z', '1'], ['remote_ip', '10.0.0.1'], ['key', 'flow']]) }),
      ops.insert('Interface', { name: 'x', external_ids: undefined, mac: undefined }),
      ops.insert('Open_vSwitch', { cur_cfg: 3, other_config: Object.create(null) as Record<string, string> }),
      // Conditions: scalars strict, sets and maps partial; _uuid.
      ops.select('Port', [['name', '==', 'p'], ['external_ids', 'includes', { k: 'v' }], ['_uuid', '!=', U]], ['name', '_uuid']),
      ops.select('Bridge', [['ports', 'includes', [U]], ['flood_vlans', 'excludes', []], ['fail_mode', '==', []]]),
      ops.select('Bridge'),
      ops.update('Port', [['_uuid', '==', U]], { external_ids: ids, tag: 9 }),
      ops.update('Interface', [], { options: { b: '2', a: '1' }, ofport_request: [] }),
      ops.delete('Bridge', [['name', '!=', 'x']]),
      ops.delete('Bridge', []),
      // Mutations: set insert/delete, map insert, map delete by keys, arithmetic (an atom operand).
      ops.mutate('Bridge', [], [['flood_vlans', 'insert', [1, 2]], ['flood_vlans', 'delete', 3]]),
      ops.mutate('Bridge', [], [['external_ids', 'insert', { k: 'v' }], ['external_ids', 'delete', ['k']]]),
      ops.mutate('Bridge', [], [['external_ids', 'delete', new Map([['k', 'v']])]]),
      ops.mutate('Interface', [], [['ofport_request', '+=', 1]]),
      // wait with rows, timeout and until; without timeout.
      ops.wait('Bridge', [['name', '==', 'b']], ['name', 'ports'], '!=', [{ name: 'b', ports: [] }, { name: 'c' }], 100),
      ops.wait('Bridge', [], ['name'], '==', []),
      // Not written directly: the object encoder's text.
      ops.commit(true),
      ops.abort(),
      ops.comment('hi "there"'),
      ops.assert('lk'),
    ];
    for (const op of cases) expectSame(op);
    expectSameParams(cases);
    expectSameParams([]);
  });

  test('transact params: the bytes of the JSON text, in UTF-8, for a large transaction and for text outside ASCII', () => {
    const body: Operation[] = [];
    for (let i = 0; i < 1500; i++) {
      const ext = new Map(Object.entries({ 'pod-name': `pod-${i}-\u00e9\u{1f600}`, 'pod-namespace': 'n\ud800s', 'ip-address': `10.1.${i >> 8}.${i & 255}` }));
      body.push(ops.wait('Port', [['name', '==', `p${i}`]], ['name'], '==', [], 0));
      body.push(ops.insert('Interface', { name: `p${i}`, external_ids: ext }, { uuidName: `i${i}` }));
      body.push(ops.insert('Port', { name: `p${i}`, interfaces: [namedUuid(`i${i}`)], external_ids: ext }, { uuidName: `p${i}` }));
    }
    body.push(ops.mutate('Bridge', [['name', '==', 'br']], [['ports', 'insert', body.map((_o, i) => namedUuid(`p${i}`)).slice(0, 1500)]]));
    expectSameParams(body);
    expectSameParams([ops.comment('\udc00 lone, \u0000 nul, \u2028 separator'), ops.insert('Bridge', { name: '\u{10ffff}' })]);
  });

  test('transact params: a refused value anywhere throws, whatever was written before it', () => {
    const good = ops.insert('Interface', { name: 'x', external_ids: { k: 'v' } });
    const bad = ops.insert('Interface', { name: 'x', external_ids: { k: 5 } as never });
    const many = Array.from({ length: 3000 }, () => good);
    expectSameParams([...many, bad]);
    expectSameParams([bad, ...many]);
    expect(() => encodeTransactParams(schema, 'Open_vSwitch', [...many, bad])).toThrow(SchemaValueError);
    // A later transaction is written whole: nothing of the refused one is left in the shared pieces.
    expectSameParams([good, good]);
  });

  test('refuse what encodeOperation refuses, with the same error before anything else', () => {
    const refused: Operation[] = [
      ops.insert('Interface', { name: 5 } as never),
      ops.insert('Interface', { name: 'x', ofport_request: 0 }),
      ops.insert('Interface', { name: 'x', ofport_request: 1.5 }),
      ops.insert('Interface', { name: 'x', external_ids: { k: 5 } as never }),
      ops.insert('Interface', { name: 'x', external_ids: new Map([[5, 'v']]) as never }),
      ops.insert('Interface', { name: 'x', external_ids: 'k=v' as never }),
      ops.insert('Port', { name: 'p', interfaces: [] }),
      ops.insert('Port', { name: 'p', interfaces: ['not-a-uuid'] }),
      ops.insert('Port', { name: 'p', tag: 5000 }),
      ops.insert('Bridge', { name: 'b', fail_mode: 'open' as never }),
      ops.insert('Bridge', { name: 'b', protocols: ['OpenFlow16'] as never }),
      ops.insert('Bridge', { name: 'b', flood_vlans: [1, 1] }),
      ops.insert('Bridge', { name: namedUuid('x') } as never),
      ops.insert('Bridge', { _uuid: U } as never),
      ops.update('Bridge', [['name', '==', 'b']], { _version: U } as never),
      ops.insert('Bridge', { nope: 1 } as never),
      ops.insert('NoTable' as never, {}),
      ops.select('Bridge', [['nope' as never, '==', 1]]),
      ops.select('Bridge', [], ['nope' as never]),
      ops.select('Bridge', [['name', '==', 7]]),
      ops.wait('Bridge', [], ['name'], '==', [{ name: 7 } as never]),
      ops.wait('Bridge', [['name', '==', 7]], ['nope' as never], '==', []),
      ops.mutate('Bridge', [['name', '==', 7]], [['flood_vlans', 'insert', ['x']]]),
      ops.mutate('Bridge', [], [['nope' as never, 'insert', [1]]]),
      ops.update('Bridge', [['name', '==', 5]], { name: 6 } as never),
    ];
    for (const op of refused) {
      expect(viaObjects(op)).toHaveProperty('error');
      expectSame(op);
    }
    // The error names table, column and value.
    expect(() => encodeOperationText(schema, ops.insert('Interface', { name: 'x', external_ids: { k: 5 } as never }))).toThrow(
      expect.objectContaining({ constructor: SchemaValueError, table: 'Interface', column: 'external_ids', value: 5 }) as Error,
    );
  });

  test('random values in random columns: the same text or the same error (property)', () => {
    const tables = Object.keys(schema.tables);
    const atom = fc.oneof(
      fc.string(),
      fc.string({ unit: 'binary', maxLength: 4 }),
      fc.constantFrom('internal', 'secure', 'OpenFlow13', 'OpenFlow15', U, U.toLowerCase(), ''),
      fc.integer({ min: -5, max: 70000 }),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      fc.constant(undefined),
      fc.string({ maxLength: 3 }).map((s) => namedUuid(s)),
    );
    const value = fc.oneof(
      atom,
      fc.array(atom, { maxLength: 4 }),
      fc.array(atom, { maxLength: 3 }).map((a) => new Set(a)),
      fc.dictionary(fc.string({ maxLength: 4 }), atom, { maxKeys: 4 }),
      fc.array(fc.tuple(fc.string({ maxLength: 3 }), atom), { maxLength: 3 }).map((e) => new Map(e)),
      fc.array(fc.tuple(atom, atom), { maxLength: 3 }),
    );
    const op = fc
      .record({
        table: fc.constantFrom(...tables, 'NoTable'),
        kind: fc.constantFrom('insert', 'update', 'wait', 'select', 'mutate', 'delete'),
        cols: fc.array(fc.tuple(fc.nat(), value), { maxLength: 4 }),
        fn: fc.constantFrom('==', 'includes', 'insert', 'delete', '+='),
      })
      .map(({ table, kind, cols, fn }): Operation => {
        const names = Object.keys(schema.tables[table]?.columns ?? { name: 1 });
        const pairs = cols.map(([i, v]) => [names[i % (names.length + 1)] ?? 'nope', v] as const);
        const row = Object.fromEntries(pairs);
        const where = pairs.map(([c, v]) => [c, fn, v] as const);
        switch (kind) {
          case 'insert':
            return ops.insert(table, row as never, { uuidName: 'n' });
          case 'update':
            return ops.update(table, where as never, row as never);
          case 'wait':
            return ops.wait(table, where as never, pairs.map(([c]) => c) as never, '==', [row as never], 0);
          case 'select':
            return ops.select(table, where as never, pairs.map(([c]) => c) as never);
          case 'mutate':
            return ops.mutate(table, [], where as never);
          default:
            return ops.delete(table, where as never);
        }
      });
    fc.assert(
      fc.property(op, (o) => {
        expectSame(o);
      }),
      { numRuns: 2000 },
    );
    // Whole transactions: the same bytes, or the error of the first refused operation.
    fc.assert(
      fc.property(fc.array(op, { maxLength: 6 }), (list) => {
        expectSameParams(list);
      }),
      { numRuns: 500 },
    );
  });
});
