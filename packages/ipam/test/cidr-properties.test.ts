// Property tests: except-difference and aggregation cover exactly the right addresses, with the fewest blocks.
import fc from 'fast-check';
import { Address4, Address6 } from 'ip-address';
import { Cidr, Ip, IpRange, IpSet, aggregate, cidrExcept, formatIp, parseCidr, parseIp, rangeToCidrs, type IpFamily } from '@switchyard/ipam/cidr';

/** A small universe (256 addresses) at a random place in a random family, so sets can be enumerated. */
const universe = fc
  .record({ family: fc.constantFrom<IpFamily>(4, 6), hi: fc.bigInt({ min: 0n, max: (1n << 120n) - 1n }) })
  .map(({ family, hi }) => {
    const bits = family === 4 ? 32 : 128;
    const base = (hi % (1n << BigInt(bits - 8))) << 8n;
    return new Cidr(family, base, bits - 8);
  });

const subBlock = (u: Cidr) =>
  fc.record({ off: fc.integer({ min: 0, max: 255 }), len: fc.integer({ min: 0, max: 8 }) }).map(({ off, len }) => new Cidr(u.family, u.base + BigInt(off), u.bits - len));

const item = (u: Cidr) =>
  fc.oneof(
    subBlock(u),
    fc.integer({ min: 0, max: 255 }).map((o) => new Ip(u.family, u.base + BigInt(o))),
    fc.tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 })).map(([a, b]) => new IpRange(new Ip(u.family, u.base + BigInt(Math.min(a, b))), new Ip(u.family, u.base + BigInt(Math.max(a, b))))),
  );

/** Enumerates which of the universe's 256 addresses a list of blocks/addresses/ranges covers. */
function covered(u: Cidr, xs: readonly (Cidr | Ip | IpRange)[]): boolean[] {
  const out = new Array<boolean>(256).fill(false);
  for (let i = 0; i < 256; i++) {
    const ip = new Ip(u.family, u.base + BigInt(i));
    out[i] = xs.some((x) => (x instanceof Ip ? x.equals(ip) : x.contains(ip)));
  }
  return out;
}

/** Independent minimal exact CIDR cover size: a block counts 1 when fully in, else recurse into halves. */
function minimalCount(u: Cidr, inSet: boolean[]): number {
  const rec = (lo: number, size: number): number => {
    let n = 0;
    for (let i = lo; i < lo + size; i++) if (inSet[i]) n++;
    if (n === 0) return 0;
    if (n === size) return 1;
    return rec(lo, size / 2) + rec(lo + size / 2, size / 2);
  };
  return rec(0, 256);
}

function assertDisjointSorted(cidrs: Cidr[]): void {
  for (let i = 1; i < cidrs.length; i++) {
    const a = cidrs[i - 1] as Cidr;
    const b = cidrs[i] as Cidr;
    expect(a.lastValue < b.base).toBe(true);
  }
}

describe('cidr set properties', () => {
  it('except-difference covers exactly the block minus the excepts, with the fewest blocks', () => {
    fc.assert(
      fc.property(
        universe.chain((u) => fc.tuple(fc.constant(u), subBlock(u), fc.array(subBlock(u), { maxLength: 6 }))),
        ([u, block, excepts]) => {
          const result = cidrExcept(block, excepts);
          const want = covered(u, [block]).map((inBlock, i) => inBlock && !covered(u, excepts)[i]);
          expect(covered(u, result)).toEqual(want);
          expect(result.every((c) => block.contains(c))).toBe(true);
          expect(result.length).toBe(minimalCount(u, want));
          assertDisjointSorted(result);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('aggregation of addresses, blocks and ranges covers exactly their union with the fewest blocks', () => {
    fc.assert(
      fc.property(
        universe.chain((u) => fc.tuple(fc.constant(u), fc.array(item(u), { maxLength: 12 }))),
        ([u, items]) => {
          const result = aggregate(items);
          const want = covered(u, items);
          expect(covered(u, result)).toEqual(want);
          expect(result.length).toBe(minimalCount(u, want));
          assertDisjointSorted(result);
          // round trip: aggregating the text form of the result gives the same blocks back
          expect(aggregate(result.map(String)).map(String)).toEqual(result.map(String));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a range converts to blocks whose union is exactly the range', () => {
    fc.assert(
      fc.property(
        universe.chain((u) => fc.tuple(fc.constant(u), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }))),
        ([u, a, b]) => {
          const r = new IpRange(u.nth(Math.min(a, b)), u.nth(Math.max(a, b)));
          const cidrs = rangeToCidrs(r.first, r.last);
          expect(covered(u, cidrs)).toEqual(covered(u, [r]));
          expect(cidrs.reduce((n, c) => n + c.size, 0n)).toBe(r.size);
        },
      ),
    );
  });

  it('set union, intersection and difference agree with enumeration', () => {
    fc.assert(
      fc.property(
        universe.chain((u) => fc.tuple(fc.constant(u), fc.array(item(u), { maxLength: 6 }), fc.array(item(u), { maxLength: 6 }))),
        ([u, xs, ys]) => {
          const a = IpSet.from(xs);
          const b = IpSet.from(ys);
          const ca = covered(u, xs);
          const cb = covered(u, ys);
          expect(covered(u, a.union(b).toRanges())).toEqual(ca.map((v, i) => v || cb[i]));
          expect(covered(u, a.intersect(b).toRanges())).toEqual(ca.map((v, i) => v && cb[i]));
          expect(covered(u, a.subtract(b).toRanges())).toEqual(ca.map((v, i) => v && !cb[i]));
          expect(a.size).toBe(BigInt(ca.filter(Boolean).length));
          for (let i = 0; i < 256; i += 17) expect(a.has(u.nth(i))).toBe(ca[i]);
        },
      ),
    );
  });

  it('split blocks are disjoint, in order, and cover the parent exactly', () => {
    fc.assert(
      fc.property(universe, fc.integer({ min: 0, max: 8 }), fc.integer({ min: 0, max: 8 }), (u, l1, l2) => {
        const parent = new Cidr(u.family, u.base, u.bits - Math.max(l1, l2));
        const parts = parent.split(u.bits - Math.min(l1, l2));
        assertDisjointSorted(parts);
        expect(parts.reduce((n, c) => n + c.size, 0n)).toBe(parent.size);
        expect(aggregate(parts).map(String)).toEqual([parent.toString()]);
        expect(parts.every((p) => parent.contains(p) && p.overlaps(parent))).toBe(true);
      }),
    );
  });

  it('formats and re-parses every address to the same value, in RFC 5952 form for IPv6', () => {
    fc.assert(
      fc.property(fc.constantFrom<IpFamily>(4, 6), fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }), fc.integer({ min: 0, max: 7 }), (family, raw, zeros) => {
        // clear a few groups so the zero-compression paths are exercised
        let v = family === 4 ? raw & 0xffffffffn : raw;
        if (family === 6) for (let g = 0; g < zeros; g++) v &= ~(0xffffn << BigInt(((g * 3) % 8) * 16));
        const text = formatIp(family, v);
        expect(parseIp(text).value).toBe(v);
        if (family === 6) expect(text).toBe(Address6.fromBigInt(v).correctForm());
        expect(parseCidr(`${text}/${family === 4 ? 32 : 128}`).first.value).toBe(v);
      }),
    );
  });

  it('reads dotted quads as ip-address does: octets up to 255, no leading zeros', () => {
    const octet = fc.oneof(fc.integer({ min: 0, max: 999 }).map(String), fc.stringMatching(/^[0-9]{1,3}$/));
    fc.assert(
      fc.property(fc.tuple(octet, octet, octet, octet), (parts) => {
        const text = parts.join('.');
        const valid = Address4.isValid(text) && parts.every((o) => o.length === 1 || !o.startsWith('0'));
        let got: bigint | undefined;
        try {
          got = parseIp(text).value;
        } catch {
          got = undefined;
        }
        expect(got).toBe(valid ? new Address4(text).bigInt() : undefined);
      }),
      { numRuns: 5000 },
    );
  });
});
