// Value codec vectors reproduced from Open vSwitch's tests/ovsdb-data.at (parse-atoms / parse-data):
// input JSON -> canonical JSON as ovsdb prints it, or the constraint/syntax error it reports.
import { parseColumnType, decodeDatum, encodeDatum, SchemaValueError } from '../src/index';

const ctx = { table: 'T', column: 'c' };

/** parse-atoms / parse-data: decode with constraint checks, then print canonically. */
function parse(type: unknown, json: unknown): string {
  const t = parseColumnType(type);
  return JSON.stringify(encodeDatum(t, decodeDatum(t, json, ctx, { validate: true }), ctx));
}

function error(type: unknown, json: unknown): SchemaValueError {
  try {
    parse(type, json);
  } catch (e) {
    expect(e).toBeInstanceOf(SchemaValueError);
    return e as SchemaValueError;
  }
  throw new Error(`expected ${JSON.stringify(json)} to be rejected`);
}

describe('atoms without constraints', () => {
  test.each([
    [0, '0'],
    [-1, '-1'],
    [1e3, '1000'],
  ])('integer atom %p -> %s', (j, out) => expect(parse('integer', j)).toBe(out));

  test.each([
    [0, '0'],
    [0.0, '0'],
    [-0.0, '0'],
    [-1.25, '-1.25'],
    [1e3, '1000'],
    [1e37, '1e+37'],
    [0.00390625, '0.00390625'],
  ])('real atom %p -> %s', (j, out) => expect(parse('real', j)).toBe(out));

  test('boolean atoms', () => {
    expect(parse('boolean', true)).toBe('true');
    expect(parse('boolean', false)).toBe('false');
  });

  test('string atoms keep every escape', () => {
    expect(parse('string', '')).toBe('""');
    expect(parse('string', 'true')).toBe('"true"');
    expect(parse('string', '"\\/\b\f\n\r\t')).toBe(JSON.stringify('"\\/\b\f\n\r\t'));
  });

  test('uuid atom from JSON', () => {
    expect(parse('uuid', ['uuid', '550e8400-e29b-41d4-a716-446655440000'])).toBe(
      '["uuid","550e8400-e29b-41d4-a716-446655440000"]',
    );
  });

  test('integer atom sorting', () => {
    expect(parse({ key: 'integer', min: 0, max: 'unlimited' }, ['set', [55, 0, -1, 2, 1]])).toBe(
      '["set",[-1,0,1,2,55]]',
    );
  });

  test('real atom sorting', () => {
    expect(parse({ key: 'real', min: 0, max: 'unlimited' }, ['set', [1.25, 1.23, 0.0, -1e99]])).toBe(
      '["set",[-1e+99,0,1.23,1.25]]',
    );
  });

  test('boolean and string atom sorting', () => {
    expect(parse({ key: 'boolean', min: 0, max: 'unlimited' }, ['set', [true, false]])).toBe(
      '["set",[false,true]]',
    );
    expect(parse({ key: 'string', min: 0, max: 'unlimited' }, ['set', ['abd', 'abc', '\b', 'xxx']])).toBe(
      '["set",["\\b","abc","abd","xxx"]]',
    );
  });

  test('uuid atom sorting', () => {
    const uuids = [
      '00000000-0000-0000-0000-000000000001',
      '00000000-1000-0000-0000-000000000000',
      '00000000-0000-1000-0000-000000000000',
      '00010000-0000-0000-0000-000000000000',
      '00000000-0000-0000-0000-000000000100',
      '10000000-0000-0000-0000-000000000000',
      '00000000-0000-0000-0000-000000000000',
    ];
    const sorted = [...uuids].sort();
    expect(parse({ key: 'uuid', min: 0, max: 'unlimited' }, ['set', uuids.map((u) => ['uuid', u])])).toBe(
      JSON.stringify(['set', sorted.map((u) => ['uuid', u])]),
    );
  });

  test('real not acceptable integer JSON atom', () => {
    expect(error('integer', 0.5).message).toMatch(/expected integer/);
  });
  test('string "true" not acceptable boolean JSON atom', () => {
    expect(error('boolean', 'true').message).toMatch(/expected boolean/);
  });
  test('integer not acceptable string JSON atom', () => {
    expect(error('string', 1).message).toMatch(/expected string/);
  });
  test('uuid atom must be expressed as JSON array', () => {
    expect(error('uuid', '550e8400-e29b-41d4-a716-446655440000').message).toMatch(
      /expected \["uuid", <string>\]/,
    );
  });
  test('named-uuid requires symbol table', () => {
    expect(error('uuid', ['named-uuid', 'x']).message).toMatch(/expected \["uuid", <string>\]/);
  });
});

describe('atoms with enum constraints', () => {
  test('integer atom enum', () => {
    const t = { type: 'integer', enum: ['set', [1, 6, 8, 10]] };
    for (const ok of [1, 6, 8, 10]) expect(parse(t, ok)).toBe(String(ok));
    for (const bad of [0, 2, 3, 7, 9, 11])
      expect(error(t, bad).message).toMatch(`${bad} is not one of the allowed values`);
  });
  test('real atom enum', () => {
    const t = { type: 'real', enum: ['set', [-1.5, 1.5]] };
    expect(parse(t, -1.5)).toBe('-1.5');
    expect(parse(t, 1.5)).toBe('1.5');
    for (const bad of [-2, -1, 0, 1, 2])
      expect(error(t, bad).message).toMatch('is not one of the allowed values');
  });
  test('boolean atom enum', () => {
    const t = { type: 'boolean', enum: false };
    expect(parse(t, false)).toBe('false');
    expect(error(t, true).message).toMatch('true is not one of the allowed values');
  });
  test('string atom enum', () => {
    const t = { type: 'string', enum: ['set', ['abc', 'def']] };
    expect(parse(t, 'abc')).toBe('"abc"');
    expect(parse(t, 'def')).toBe('"def"');
    for (const bad of ['', 'ab', 'defg', 'DEF']) expect(() => parse(t, bad)).toThrow(SchemaValueError);
  });
  test('uuid atom enum', () => {
    const t = {
      type: 'uuid',
      enum: [
        'set',
        [
          ['uuid', '6d53a6dd-2da7-4924-9927-97f613812382'],
          ['uuid', '52cbc842-137a-4db5-804f-9f34106a0ba3'],
        ],
      ],
    };
    expect(parse(t, ['uuid', '6d53a6dd-2da7-4924-9927-97f613812382'])).toBe(
      '["uuid","6d53a6dd-2da7-4924-9927-97f613812382"]',
    );
    expect(parse(t, ['uuid', '52cbc842-137a-4db5-804f-9f34106a0ba3'])).toBe(
      '["uuid","52cbc842-137a-4db5-804f-9f34106a0ba3"]',
    );
    expect(error(t, ['uuid', 'dab2a6b2-6094-4f43-a7ef-4c0f0608f176']).message).toMatch(
      'is not one of the allowed values',
    );
  });
});

describe('atoms with other constraints', () => {
  test('integers >= 5', () => {
    const t = { type: 'integer', minInteger: 5 };
    for (const bad of [0, 4])
      expect(error(t, bad).message).toMatch(`${bad} is less than minimum allowed value 5`);
    for (const ok of [5, 6, 12345]) expect(parse(t, ok)).toBe(String(ok));
  });
  test('integers <= -1', () => {
    const t = { type: 'integer', maxInteger: -1 };
    expect(error(t, 0).message).toMatch('0 is greater than maximum allowed value -1');
    for (const ok of [-1, -2, -123]) expect(parse(t, ok)).toBe(String(ok));
  });
  test('integers in range -10 to 10', () => {
    const t = { type: 'integer', minInteger: -10, maxInteger: 10 };
    for (const bad of [-20, -11, 11, 123576]) expect(() => parse(t, bad)).toThrow(SchemaValueError);
    for (const ok of [-10, -9, 1, 9, 10]) expect(parse(t, ok)).toBe(String(ok));
  });
  test('reals >= 5, <= -1 and in range -10 to 10', () => {
    expect(() => parse({ type: 'real', minReal: 5 }, 4)).toThrow(SchemaValueError);
    expect(parse({ type: 'real', minReal: 5 }, 12345)).toBe('12345');
    expect(() => parse({ type: 'real', maxReal: -1 }, 0)).toThrow(SchemaValueError);
    expect(parse({ type: 'real', maxReal: -1 }, -123)).toBe('-123');
    expect(() => parse({ type: 'real', minReal: -10, maxReal: 10 }, 123576)).toThrow(SchemaValueError);
    expect(parse({ type: 'real', minReal: -10, maxReal: 10 }, -10)).toBe('-10');
  });
  test('strings at least 2 characters long (counted in code points)', () => {
    const t = { type: 'string', minLength: 2 };
    expect(error(t, '').message).toMatch('length 0 is less than minimum allowed length 2');
    expect(error(t, 'a').message).toMatch('length 1 is less than minimum allowed length 2');
    expect(parse(t, 'ab')).toBe('"ab"');
    expect(parse(t, 'abc')).toBe('"abc"');
    expect(error(t, '\ud834\udd1e').message).toMatch('length 1 is less than minimum allowed length 2');
  });
  test('strings no more than 2 characters long', () => {
    const t = { type: 'string', maxLength: 2 };
    for (const ok of ['', 'a', 'ab', 'de']) expect(parse(t, ok)).toBe(JSON.stringify(ok));
    expect(error(t, 'abc').message).toMatch('length 3 is greater than maximum allowed length 2');
  });
});

describe('simple data', () => {
  test('integer, real, boolean, string JSON datum (a one-element set is the bare atom)', () => {
    expect([0, ['set', [1]], -1].map((j) => parse('integer', j))).toEqual(['0', '1', '-1']);
    expect([0, ['set', [1.0]], -1.25].map((j) => parse('real', j))).toEqual(['0', '1', '-1.25']);
    expect([['set', [true]], false].map((j) => parse('boolean', j))).toEqual(['true', 'false']);
    expect([['set', ['']], 'true'].map((j) => parse('string', j))).toEqual(['""', '"true"']);
  });
});

describe('set data', () => {
  test('JSON optional boolean', () => {
    const t = { key: 'boolean', min: 0 };
    expect([true, ['set', [false]], ['set', []]].map((j) => parse(t, j))).toEqual([
      'true',
      'false',
      '["set",[]]',
    ]);
  });
  test('JSON set of 0 or more integers', () => {
    const t = { key: 'integer', min: 0, max: 'unlimited' };
    expect(parse(t, ['set', [0]])).toBe('0');
    expect(parse(t, 1)).toBe('1');
    expect(parse(t, ['set', [0, 1]])).toBe('["set",[0,1]]');
    expect(parse(t, ['set', [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]])).toBe('["set",[0,1,2,3,4,5,6,7,8,9,10]]');
  });
  test('JSON set of 1 to 3 uuids', () => {
    const t = { key: 'uuid', min: 1, max: 3 };
    expect(parse(t, ['set', [['uuid', '550e8400-e29b-41d4-a716-446655440000']]])).toBe(
      '["uuid","550e8400-e29b-41d4-a716-446655440000"]',
    );
    expect(parse(t, ['uuid', 'b5078be0-7664-4299-b836-8bcc03ef941f'])).toBe(
      '["uuid","b5078be0-7664-4299-b836-8bcc03ef941f"]',
    );
    expect(
      parse(t, [
        'set',
        [
          ['uuid', 'c5051240-30ff-43ed-b4b9-93cf3f050813'],
          ['uuid', '90558331-09af-4d2f-a572-509cad2e9088'],
          ['uuid', '550e8400-e29b-41d4-a716-446655440000'],
        ],
      ]),
    ).toBe(
      '["set",[["uuid","550e8400-e29b-41d4-a716-446655440000"],["uuid","90558331-09af-4d2f-a572-509cad2e9088"],["uuid","c5051240-30ff-43ed-b4b9-93cf3f050813"]]]',
    );
  });
  test('JSON set of 0 to 3 strings', () => {
    const t = { key: 'string', min: 0, max: 3 };
    expect(parse(t, ['set', []])).toBe('["set",[]]');
    expect(parse(t, 'a longer string')).toBe('"a longer string"');
    expect(parse(t, ['set', ['zzz', 'short string', 'a relatively long string']])).toBe(
      '["set",["a relatively long string","short string","zzz"]]',
    );
  });
  test.each([
    ['boolean', [true, true]],
    ['integer', [1, 2, 3, 1]],
    ['real', [0.0, -0.0]],
    ['string', ['asdf', 'ASDF', 'asdf']],
    [
      'uuid',
      [
        ['uuid', '7ef21525-0088-4a28-a418-5518413e43ea'],
        ['uuid', '355ad037-f1da-40aa-b47c-ff9c7e8c6a38'],
        ['uuid', '7ef21525-0088-4a28-a418-5518413e43ea'],
      ],
    ],
  ])('duplicate %s not allowed in JSON set', (key, elems) => {
    expect(error({ key, max: 5 }, ['set', elems]).message).toMatch('set contains duplicate');
  });
});

describe('map data', () => {
  test('JSON map of 1 integer to boolean', () => {
    expect(parse({ key: 'integer', value: 'boolean' }, ['map', [[1, true]]])).toBe('["map",[[1,true]]]');
  });
  test('JSON map of at least 1 integer to boolean is printed sorted by key', () => {
    const t = { key: 'integer', value: 'boolean', max: 'unlimited' };
    expect(
      parse(t, [
        'map',
        [
          [3, false],
          [0, true],
          [4, false],
        ],
      ]),
    ).toBe('["map",[[0,true],[3,false],[4,false]]]');
  });
  test('JSON map of 1 boolean to integer', () => {
    expect(parse({ key: 'boolean', value: 'integer' }, ['map', [[true, 1]]])).toBe('["map",[[true,1]]]');
  });
  test('JSON map of uuid to real', () => {
    const t = { key: 'uuid', value: 'real', min: 1, max: 5 };
    const m = [
      [['uuid', 'cad8542b-6ee1-486b-971b-7dcbf6e14979'], 1.0],
      [['uuid', '6b94b968-2702-4f64-9457-314a34d69b8c'], 2.0],
      [['uuid', 'd2c4a168-24de-47eb-a8a3-c1abfc814979'], 3.0],
      [['uuid', '25bfa475-d072-4f60-8be1-00f48643e9cb'], 4.0],
      [['uuid', '1c92b8ca-d5e4-4628-a85d-1dc2d099a99a'], 5.0],
    ];
    expect(parse(t, ['map', m])).toBe(
      '["map",[[["uuid","1c92b8ca-d5e4-4628-a85d-1dc2d099a99a"],5],[["uuid","25bfa475-d072-4f60-8be1-00f48643e9cb"],4],[["uuid","6b94b968-2702-4f64-9457-314a34d69b8c"],2],[["uuid","cad8542b-6ee1-486b-971b-7dcbf6e14979"],1],[["uuid","d2c4a168-24de-47eb-a8a3-c1abfc814979"],3]]]',
    );
  });
  test('JSON map of 10 string to string', () => {
    const pairs = [
      ['2 gills', '1 chopin'],
      ['2 chopins', '1 pint'],
      ['2 pints', '1 quart'],
      ['2 quarts', '1 pottle'],
      ['2 pottles', '1 gallon'],
      ['2 gallons', '1 peck'],
      ['2 pecks', '1 demibushel'],
      ['2 demibushel', '1 firkin'],
      ['2 firkins', '1 kilderkin'],
      ['2 kilderkins', '1 barrel'],
    ];
    expect(parse({ key: 'string', value: 'string', min: 1, max: 10 }, ['map', pairs])).toBe(
      '["map",[["2 chopins","1 pint"],["2 demibushel","1 firkin"],["2 firkins","1 kilderkin"],["2 gallons","1 peck"],["2 gills","1 chopin"],["2 kilderkins","1 barrel"],["2 pecks","1 demibushel"],["2 pints","1 quart"],["2 pottles","1 gallon"],["2 quarts","1 pottle"]]]',
    );
  });
  test('duplicate integer key not allowed in JSON map', () => {
    expect(
      error({ key: 'integer', value: 'boolean', max: 5 }, [
        'map',
        [
          [1, true],
          [2, false],
          [1, false],
        ],
      ]).message,
    ).toMatch('map contains duplicate key');
  });
});

describe('named-uuid on input', () => {
  test('a namedUuid in a uuid column encodes as ["named-uuid", name]', async () => {
    const { namedUuid } = await import('../src/index');
    const t = parseColumnType({ key: { type: 'uuid', refTable: 'Port' }, min: 0, max: 'unlimited' });
    expect(encodeDatum(t, [namedUuid('p1'), '550e8400-e29b-41d4-a716-446655440000'], ctx)).toEqual([
      'set',
      [
        ['uuid', '550e8400-e29b-41d4-a716-446655440000'],
        ['named-uuid', 'p1'],
      ],
    ]);
    expect(JSON.stringify(namedUuid('x'))).toBe('["named-uuid","x"]');
  });
  test('a plain string that is not a UUID is refused with table, column and expected type', () => {
    const t = parseColumnType({ key: 'uuid' });
    try {
      encodeDatum(t, 'not-a-uuid', { table: 'Bridge', column: 'ipfix' });
      throw new Error('accepted');
    } catch (e) {
      expect(e).toMatchObject({
        code: 'OVSDB_SCHEMA_VALUE',
        table: 'Bridge',
        column: 'ipfix',
        value: 'not-a-uuid',
        expected: 'uuid',
      });
    }
  });
});
