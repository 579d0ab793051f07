import { Writer } from '../src/buf';
import { FIELD_BY_NAME, headerWord, oxmPreferred, type FieldInfo } from '../src/fields';
import { writeEntry } from '../src/match';
import { bigToBytes, bytesToBig, bytesToValue, valueToBytes } from '../src/values';

// The byte-at-a-time conversions these replaced, kept as the reference.
function oldBigToBytes(v: bigint, n: number): Uint8Array {
  const out = new Uint8Array(n);
  let x = v;
  for (let i = n - 1; i >= 0; i--) {
    out[i] = Number(x & 0xffn);
    x >>= 8n;
  }
  return out;
}
function oldBytesToBig(b: Uint8Array): bigint {
  let x = 0n;
  for (const byte of b) x = (x << 8n) | BigInt(byte);
  return x;
}

/** Deterministic PRNG (mulberry32) so a failure names a reproducible value. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = rng(32);
function randomBig(bytes: number): bigint {
  // Random width too, so small, mid and full-width values all occur.
  const width = Math.floor(rand() * (bytes + 1));
  let x = 0n;
  for (let i = 0; i < width; i++) x = (x << 8n) | BigInt(Math.floor(rand() * 256));
  return x;
}
/** 0, max, and 2^(8k)-1, 2^(8k), 2^(8k)+1 at each byte boundary, plus 2^53 +- 1. */
function edgeValues(bytes: number): bigint[] {
  const max = (1n << BigInt(bytes * 8)) - 1n;
  const out = [0n, 1n, max, max - 1n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 1n];
  for (let k = 1; k < bytes; k++) {
    const p = 1n << BigInt(8 * k);
    out.push(p - 1n, p, p + 1n);
  }
  return out.filter((v) => v >= 0n && v <= max);
}

const bigFields = (['ctLabel', 'metadata', 'tunId'] as const).map((n) => FIELD_BY_NAME.get(n)!);

describe.each(bigFields.map((f) => [f.name, f] as const))('%s bytes', (_name, f: FieldInfo) => {
  const values = [...edgeValues(f.bytes), ...Array.from({ length: 2000 }, () => randomBig(f.bytes))];

  it('are the bytes the byte-at-a-time conversion gave, and decode back to the value', () => {
    for (const v of values) {
      const b = valueToBytes(f, v, 'v');
      expect({ v, b: [...b] }).toEqual({ v, b: [...oldBigToBytes(v, f.bytes)] });
      expect(bytesToValue(f, b)).toBe(v);
    }
  });

  it('written in place by the match encoder are the general path bytes, masked and not', () => {
    const base = oxmPreferred(f);
    for (let i = 0; i + 1 < values.length; i += 2) {
      const value = values[i]!;
      const mask = values[i + 1]!;
      const w = new Writer(8);
      writeEntry(w, f, base, { value, mask }, 'm');
      writeEntry(w, f, base, value, 'm');
      const ref = new Writer(8);
      ref.u32(headerWord(base, f.bytes, true)).bytes(oldBigToBytes(value & mask, f.bytes)).bytes(oldBigToBytes(mask, f.bytes));
      ref.u32(headerWord(base, f.bytes, false)).bytes(oldBigToBytes(value, f.bytes));
      expect({ value, mask, b: [...w.finish()] }).toEqual({ value, mask, b: [...ref.finish()] });
    }
  });

  it('out of range values are still refused with the field path', () => {
    const over = 1n << BigInt(f.bytes * 8);
    for (const bad of [-1n, over, 5]) {
      expect(() => valueToBytes(f, bad, 'match.x')).toThrow(/expected a bigint/);
      expect(() => writeEntry(new Writer(), f, oxmPreferred(f), bad, 'match')).toThrow(/expected a bigint/);
      expect(() => writeEntry(new Writer(), f, oxmPreferred(f), { value: 1n, mask: bad }, 'match')).toThrow(/expected a bigint/);
    }
  });
});

describe('bigToBytes and bytesToBig at every width', () => {
  it('truncate wide and negative values to the low bytes as before', () => {
    for (let n = 0; n <= 17; n++) {
      const values = [...edgeValues(17), -1n, -(2n ** 70n) - 3n, ...Array.from({ length: 300 }, () => randomBig(20))];
      for (const v of values) expect({ v, n, b: [...bigToBytes(v, n)] }).toEqual({ v, n, b: [...oldBigToBytes(v, n)] });
    }
  });

  it('read any byte string as the byte-at-a-time conversion did', () => {
    for (let n = 0; n <= 17; n++) {
      for (let k = 0; k < 300; k++) {
        const b = new Uint8Array(n);
        const zeros = Math.floor(rand() * (n + 1)); // leading zero bytes, then random ones
        for (let i = zeros; i < n; i++) b[i] = k % 7 === 0 ? 0xff : Math.floor(rand() * 256);
        expect({ b: [...b], v: bytesToBig(b) }).toEqual({ b: [...b], v: oldBytesToBig(b) });
      }
    }
  });

  it('reads a byte string that starts inside a larger buffer', () => {
    const whole = new Uint8Array([9, 9, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]);
    const sub = whole.subarray(2);
    expect(bytesToBig(sub)).toBe(oldBytesToBig(sub));
  });
});
