// update2 "modify" diffs: applying a diff, producing one, and the two being inverse (RFC 7047 + ovsdb-server(7) monitor_cond).
import fc from 'fast-check';
import { applyDiff, diffDatum, parseColumnType, decodeDatum, type Datum } from '../src/index';

const ctx = { table: 'T', column: 'c' };
const strMap = parseColumnType({ key: 'string', value: 'string', min: 0, max: 'unlimited' });
const intSet = parseColumnType({ key: 'integer', min: 0, max: 'unlimited' });
const optional = parseColumnType({ key: 'integer', min: 0, max: 1 });
const scalar = parseColumnType('string');

describe('applying update2 diffs', () => {
  test('a set diff is the symmetric difference: listed elements present are removed, absent ones added', () => {
    expect(applyDiff(intSet, [1, 2, 3], ['set', [2, 4]], ctx)).toEqual([1, 3, 4]);
    expect(applyDiff(intSet, [1], 1, ctx)).toEqual([]);
  });

  test('a map diff adds new keys, removes keys sent with their current value, replaces changed values', () => {
    const old = new Map([
      ['a', '1'],
      ['b', '2'],
    ]);
    const next = applyDiff(
      strMap,
      old,
      [
        'map',
        [
          ['a', '1'],
          ['b', '9'],
          ['c', '3'],
        ],
      ],
      ctx,
    );
    expect(next).toEqual(
      new Map([
        ['b', '9'],
        ['c', '3'],
      ]),
    );
  });

  test('an optional column diff toggles between empty and a value, or swaps values', () => {
    expect(applyDiff(optional, null, 5, ctx)).toBe(5);
    expect(applyDiff(optional, 5, 5, ctx)).toBeNull();
    expect(applyDiff(optional, 5, ['set', [5, 6]], ctx)).toBe(6);
  });

  test('a scalar diff is the new value', () => {
    expect(applyDiff(scalar, 'old', 'new', ctx)).toBe('new');
  });
});

describe('producing diffs', () => {
  test('map diff for a changed, a removed and an added key', () => {
    const d = diffDatum(
      strMap,
      new Map([
        ['a', '1'],
        ['b', '2'],
      ]),
      new Map([
        ['b', '3'],
        ['c', '4'],
      ]),
      ctx,
    );
    expect(d).toEqual([
      'map',
      [
        ['a', '1'],
        ['b', '3'],
        ['c', '4'],
      ],
    ]);
  });

  test('property: applyDiff(old, diffDatum(old, new)) == new for sets and maps', () => {
    const set = fc
      .uniqueArray(fc.integer({ min: -50, max: 50 }), { maxLength: 8 })
      .map((xs) => [...xs].sort((a, b) => a - b));
    const map = fc
      .dictionary(fc.string({ maxLength: 3 }), fc.string({ maxLength: 3 }), { maxKeys: 6 })
      .map((o) => new Map(Object.entries(o)));
    fc.assert(
      fc.property(set, set, (a, b) => {
        expect(applyDiff(intSet, a, diffDatum(intSet, a, b, ctx), ctx)).toEqual(b);
      }),
    );
    fc.assert(
      fc.property(map, map, (a, b) => {
        expect(applyDiff(strMap, a, diffDatum(strMap, a, b, ctx), ctx)).toEqual(b);
      }),
    );
    fc.assert(
      fc.property(fc.option(fc.nat(5), { nil: null }), fc.option(fc.nat(5), { nil: null }), (a, b) => {
        expect(applyDiff(optional, a as Datum, diffDatum(optional, a as Datum, b as Datum, ctx), ctx)).toBe(
          b,
        );
      }),
    );
  });

  test('decoded rows and diffs use the same canonical order', () => {
    expect(decodeDatum(intSet, ['set', [3, 1, 2]], ctx)).toEqual([1, 2, 3]);
  });
});
