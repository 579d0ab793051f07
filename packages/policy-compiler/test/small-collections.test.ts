// The inline Map and Set behave as the native ones: same answers, same iteration order.
import fc from 'fast-check';
import { SmallMap, SmallSet, SoloMap } from '../src/small-collections';

const key = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g');
const op = fc.oneof(
  { arbitrary: fc.tuple(fc.constant('set' as const), key, fc.integer()), weight: 6 },
  { arbitrary: fc.tuple(fc.constant('delete' as const), key, fc.constant(0)), weight: 3 },
  { arbitrary: fc.tuple(fc.constant('clear' as const), key, fc.constant(0)), weight: 1 },
);

describe('SmallMap, SoloMap and SmallSet', () => {
  it('answer every sequence of writes as a Map and a Set do, in insertion order', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const m = new Map<string, number>();
        const s = new SmallMap<string, number>();
        const ns = new Set<string>();
        const ss = new SmallSet<string>();
        const solo = new SoloMap<string, number>();
        for (const [what, k, v] of ops) {
          if (what === 'set') {
            m.set(k, v);
            s.set(k, v);
            solo.set(k, v);
            ns.add(k);
            ss.add(k);
          } else if (what === 'delete') {
            expect(solo.delete(k)).toBe(m.has(k));
            expect(s.delete(k)).toBe(m.delete(k));
            expect(ss.delete(k)).toBe(ns.delete(k));
          } else {
            m.clear();
            s.clear();
            solo.clear();
            ns.clear();
            ss.clear();
          }
          expect(s.size).toBe(m.size);
          expect(solo.size).toBe(m.size);
          expect([...solo]).toEqual([...m]);
          expect([...solo.keys()]).toEqual([...m.keys()]);
          expect([...solo.values()]).toEqual([...m.values()]);
          expect([...s]).toEqual([...m]);
          expect([...s.keys()]).toEqual([...m.keys()]);
          expect([...s.values()]).toEqual([...m.values()]);
          expect(ss.size).toBe(ns.size);
          expect([...ss]).toEqual([...ns]);
          for (const probe of ['a', 'c', 'g']) {
            expect(s.get(probe)).toBe(m.get(probe));
            expect(solo.get(probe)).toBe(m.get(probe));
            expect(solo.has(probe)).toBe(m.has(probe));
            expect(s.has(probe)).toBe(m.has(probe));
            expect(ss.has(probe)).toBe(ns.has(probe));
          }
        }
      }),
    );
  });

  it('hands forEach the entries as a Map does', () => {
    const s = new SmallMap<string, number>();
    s.set('x', 1).set('y', 2);
    const seen: [string, number][] = [];
    s.forEach((v, k) => seen.push([k, v]));
    expect(seen).toEqual([['x', 1], ['y', 2]]);
    expect(new SmallSet(['p', 'q', 'p']).size).toBe(2);
  });
});
