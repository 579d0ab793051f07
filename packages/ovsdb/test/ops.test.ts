// Operation encoding (schema-checked) and transact reply decoding: a failure is never reported as success.
import {
  ops,
  namedUuid,
  encodeOperation,
  decodeTransactResult,
  unwrap,
  bundledVswitchSchema,
  SchemaValueError,
  SchemaError,
  TransactionError,
} from '../src/index';

const schema = bundledVswitchSchema();

describe('encoding operations', () => {
  test('insert with uuid-name, maps from objects, named-uuid references', () => {
    expect(
      encodeOperation(
        schema,
        ops.insert(
          'Port',
          { name: 'p', interfaces: [namedUuid('i')], external_ids: { b: '2', a: '1' } },
          { uuidName: 'p' },
        ),
      ),
    ).toEqual({
      op: 'insert',
      table: 'Port',
      row: {
        name: 'p',
        interfaces: ['named-uuid', 'i'],
        external_ids: [
          'map',
          [
            ['a', '1'],
            ['b', '2'],
          ],
        ],
      },
      'uuid-name': 'p',
    });
  });

  test('conditions: atoms against scalar columns, partial maps for includes, uuids tagged', () => {
    const op = encodeOperation(
      schema,
      ops.select('Port', [
        ['name', '==', 'p'],
        ['external_ids', 'includes', { k: 'v' }],
        ['_uuid', '!=', '550e8400-e29b-41d4-a716-446655440000'],
      ]),
    );
    expect(op.where).toEqual([
      ['name', '==', 'p'],
      ['external_ids', 'includes', ['map', [['k', 'v']]]],
      ['_uuid', '!=', ['uuid', '550e8400-e29b-41d4-a716-446655440000']],
    ]);
  });

  test('mutations: arithmetic takes an atom, map delete takes a set of keys or a map', () => {
    const op = encodeOperation(
      schema,
      ops.mutate(
        'Interface',
        [],
        [
          ['mtu_request', '+=', 10],
          ['external_ids', 'delete', ['a', 'b']],
          ['options', 'delete', { k: 'v' }],
          ['external_ids', 'insert', { c: '3' }],
        ],
      ),
    );
    expect(op.mutations).toEqual([
      ['mtu_request', '+=', 10],
      ['external_ids', 'delete', ['set', ['a', 'b']]],
      ['options', 'delete', ['map', [['k', 'v']]]],
      ['external_ids', 'insert', ['map', [['c', '3']]]],
    ]);
  });

  test('wait, commit, abort, comment, assert', () => {
    expect(
      encodeOperation(schema, ops.wait('Bridge', [['name', '==', 'b']], ['name'], '==', [{ name: 'b' }], 0)),
    ).toEqual({
      op: 'wait',
      table: 'Bridge',
      where: [['name', '==', 'b']],
      columns: ['name'],
      until: '==',
      rows: [{ name: 'b' }],
      timeout: 0,
    });
    expect(encodeOperation(schema, ops.commit(true))).toEqual({ op: 'commit', durable: true });
    expect(encodeOperation(schema, ops.abort())).toEqual({ op: 'abort' });
    expect(encodeOperation(schema, ops.comment('hi'))).toEqual({ op: 'comment', comment: 'hi' });
    expect(encodeOperation(schema, ops.assert('lk'))).toEqual({ op: 'assert', lock: 'lk' });
  });

  test('schema violations name table, column, value and expected type', () => {
    expect(() => encodeOperation(schema, ops.update('Bridge', [], { protocols: ['OpenFlow16'] }))).toThrow(
      /Bridge\.protocols: value "OpenFlow16" does not match set of 0\.\.unlimited string one of/,
    );
    expect(() => encodeOperation(schema, ops.insert('Interface', { name: 'x', ofport_request: 0 }))).toThrow(
      SchemaValueError,
    );
    expect(() => encodeOperation(schema, ops.insert('Bridge', { flood_vlans: [5000] }))).toThrow(
      /Bridge\.flood_vlans/,
    );
    expect(() => encodeOperation(schema, ops.insert('NoTable', {}))).toThrow(SchemaError);
    expect(() => encodeOperation(schema, ops.insert('Bridge', { nope: 1 }))).toThrow(
      /table Bridge has no column nope/,
    );
  });
});

describe('decoding transact replies', () => {
  const operations = [
    ops.insert('Bridge', { name: 'b' }, { uuidName: 'b' }),
    ops.select('Bridge', [], ['name']),
    ops.delete('Bridge', []),
  ];

  test('success maps uuid-names and decodes rows and counts', () => {
    const r = unwrap(
      decodeTransactResult(schema, operations, [
        { uuid: ['uuid', '550e8400-e29b-41d4-a716-446655440000'] },
        { rows: [{ name: 'b' }] },
        { count: 1 },
      ]),
    );
    expect(r.uuids).toEqual({ b: '550e8400-e29b-41d4-a716-446655440000' });
    expect(r.results).toEqual([
      { op: 'insert', uuid: '550e8400-e29b-41d4-a716-446655440000' },
      { op: 'select', rows: [{ name: 'b' }] },
      { op: 'delete', count: 1 },
    ]);
  });

  test('an operation error fails the transaction at that index', () => {
    const r = decodeTransactResult(schema, operations, [
      { uuid: ['uuid', '550e8400-e29b-41d4-a716-446655440000'] },
      { error: 'syntax error', details: 'bad' },
      null,
    ]);
    expect(r).toMatchObject({ ok: false, error: 'syntax error', details: 'bad', index: 1 });
    expect(() => unwrap(r)).toThrow(TransactionError);
  });

  test('a commit error (one element past the operations) fails with no index', () => {
    const r = decodeTransactResult(schema, operations, [
      { uuid: ['uuid', '550e8400-e29b-41d4-a716-446655440000'] },
      { rows: [] },
      { count: 0 },
      { error: 'referential integrity violation' },
    ]);
    expect(r).toMatchObject({ ok: false, error: 'referential integrity violation', index: undefined });
  });

  test('a short or malformed reply is a failure, never a success', () => {
    expect(
      decodeTransactResult(schema, operations, [{ uuid: ['uuid', '550e8400-e29b-41d4-a716-446655440000'] }]),
    ).toMatchObject({ ok: false, error: 'invalid reply' });
    expect(decodeTransactResult(schema, operations, { not: 'an array' })).toMatchObject({
      ok: false,
      error: 'invalid reply',
    });
    expect(decodeTransactResult(schema, operations, [null, null, null])).toMatchObject({ ok: false });
  });
});
