// The run-length used-address index behaves like a plain Set, and finds the next free value.
import fc from 'fast-check';
import { UsedSet } from '../src/internal/used-set';

describe('UsedSet', () => {
  it('agrees with a plain Set under random adds and deletes', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 40 })), { maxLength: 200 }), fc.integer({ min: 0, max: 45 }), (ops, probe) => {
        const s = new UsedSet();
        const ref = new Set<number>();
        for (const [add, v] of ops) {
          if (add) expect(s.add(BigInt(v))).toBe(!ref.has(v) && Boolean(ref.add(v)));
          else expect(s.delete(BigInt(v))).toBe(ref.delete(v));
        }
        expect([...s.values()].map(Number)).toEqual([...ref].sort((a, b) => a - b));
        expect(s.size).toBe(ref.size);
        let want = probe;
        while (ref.has(want)) want++;
        expect(s.nextFree(BigInt(probe))).toBe(BigInt(want));
      }),
    );
  });
});
