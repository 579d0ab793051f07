/** Conversions between model values (numbers, bigints, address strings) and field bytes. */
import { formatIpv6 } from '@switchyard/apis/types';
import { OfEncodeError } from './errors';
import type { FieldInfo } from './fields';
import type { Masked } from './flow';

/** True if a field value is the `{ value, mask }` form. */
export function isMasked<T>(v: Masked<T>): v is { value: T; mask: T } {
  return typeof v === 'object' && v !== null && 'mask' in v && 'value' in v;
}

/** A dotted-quad IPv4 address as an unsigned 32-bit number, or -1 if `s` is not one (no allocation). */
export function ipv4ToUint32(s: string): number {
  let addr = 0;
  let part = 0;
  let n = 0;
  let digits = 0;
  for (let i = 0; i <= s.length; i++) {
    const c = i === s.length ? 46 : s.charCodeAt(i);
    if (c === 46 /* . */) {
      if (digits === 0 || n > 255 || part > 3) return -1;
      addr = addr * 256 + n;
      part++;
      n = 0;
      digits = 0;
    } else if (c >= 48 && c <= 57 && digits < 3) {
      n = n * 10 + (c - 48);
      digits++;
    } else return -1;
  }
  return part === 4 ? addr : -1;
}

export function parseIpv4(s: string): Uint8Array | undefined {
  const addr = ipv4ToUint32(s);
  if (addr < 0) return undefined;
  return new Uint8Array([addr >>> 24, (addr >>> 16) & 0xff, (addr >>> 8) & 0xff, addr & 0xff]);
}

/** RFC 5952 IPv6 text, as every package writes it (apis). */
export { formatIpv6 };

export function formatIpv4(b: Uint8Array, at = 0): string {
  return `${b[at]}.${b[at + 1]}.${b[at + 2]}.${b[at + 3]}`;
}

export function parseMac(s: string): Uint8Array | undefined {
  const m = /^([0-9a-fA-F]{1,2})[:-]([0-9a-fA-F]{1,2})[:-]([0-9a-fA-F]{1,2})[:-]([0-9a-fA-F]{1,2})[:-]([0-9a-fA-F]{1,2})[:-]([0-9a-fA-F]{1,2})$/.exec(s);
  if (!m) return undefined;
  const out = new Uint8Array(6);
  for (let i = 0; i < 6; i++) out[i] = parseInt(m[i + 1]!, 16);
  return out;
}

export function formatMac(b: Uint8Array, at = 0): string {
  const parts: string[] = [];
  for (let i = 0; i < 6; i++) parts.push(b[at + i]!.toString(16).padStart(2, '0'));
  return parts.join(':');
}

export function parseIpv6(s: string): Uint8Array | undefined {
  let str = s;
  if (str.startsWith('[') && str.endsWith(']')) str = str.slice(1, -1);
  if (!/^[0-9a-fA-F:.]+$/.test(str)) return undefined;
  const words: number[] = [];
  const halves = str.split('::');
  if (halves.length > 2) return undefined;
  const parseHalf = (h: string): number[] | undefined => {
    if (h === '') return [];
    const out: number[] = [];
    const parts = h.split(':');
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i]!;
      if (i === parts.length - 1 && p.includes('.')) {
        const v4 = parseIpv4(p);
        if (!v4) return undefined;
        out.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
      } else {
        if (!/^[0-9a-fA-F]{1,4}$/.test(p)) return undefined;
        out.push(parseInt(p, 16));
      }
    }
    return out;
  };
  const a = parseHalf(halves[0]!);
  const b = halves.length === 2 ? parseHalf(halves[1]!) : [];
  if (!a || !b) return undefined;
  if (halves.length === 2) {
    const fill = 8 - a.length - b.length;
    if (fill < 1) return undefined;
    words.push(...a, ...new Array<number>(fill).fill(0), ...b);
  } else {
    if (a.length !== 8) return undefined;
    words.push(...a);
  }
  const out = new Uint8Array(16);
  words.forEach((w, i) => {
    out[i * 2] = w >> 8;
    out[i * 2 + 1] = w & 0xff;
  });
  return out;
}

/** Encode one (unmasked) value of a field to its wire bytes. */
export function valueToBytes(f: FieldInfo, v: unknown, path: string): Uint8Array {
  switch (f.kind) {
    case 'uint': {
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v >= 2 ** (f.bytes * 8)) {
        throw new OfEncodeError(`expected an integer of ${f.bits} bits`, path, v);
      }
      const out = new Uint8Array(f.bytes);
      let x = v;
      for (let i = f.bytes - 1; i >= 0; i--) {
        out[i] = x & 0xff;
        x = Math.floor(x / 256);
      }
      return out;
    }
    case 'big': {
      if (!isBigOfWidth(v, f.bytes)) throw new OfEncodeError(`expected a bigint of ${f.bits} bits`, path, v);
      const out = new Uint8Array(f.bytes);
      putBig(out, 0, v, f.bytes);
      return out;
    }
    case 'mac': {
      const b = typeof v === 'string' ? parseMac(v) : undefined;
      if (!b) throw new OfEncodeError('expected a MAC address', path, v);
      return b;
    }
    case 'ipv4': {
      const b = typeof v === 'string' ? parseIpv4(v) : undefined;
      if (!b) throw new OfEncodeError('expected an IPv4 address', path, v);
      return b;
    }
    case 'ipv6': {
      const b = typeof v === 'string' ? parseIpv6(v) : undefined;
      if (!b) throw new OfEncodeError('expected an IPv6 address', path, v);
      return b;
    }
    case 'ctState':
      throw new OfEncodeError('ct_state is encoded from flags', path, v);
  }
}

/** Decode wire bytes of a field to the model value. */
export function bytesToValue(f: FieldInfo, b: Uint8Array): number | bigint | string {
  switch (f.kind) {
    case 'uint':
    case 'ctState': {
      let x = 0;
      for (const byte of b) x = x * 256 + byte;
      return x;
    }
    case 'big':
      return bytesToBig(b);
    case 'mac':
      return formatMac(b);
    case 'ipv4':
      return formatIpv4(b);
    case 'ipv6':
      return formatIpv6(b);
  }
}

// 128-bit fields (ct_label, xxreg) and 64-bit ones (metadata, tun_id) are bigints in the model.
// Shifting a bigint allocates a new one, so a byte at a time cost 32 BigInt operations per
// 16-byte field; these convert by 32-bit limbs, and values below 2^53 (most ct_label values: a
// rule id in one 32-bit half) by plain number arithmetic with no BigInt operation at all.
const TWO32 = 0x1_0000_0000;
const SAFE_MAX = BigInt(Number.MAX_SAFE_INTEGER);
/** 2^(8n) for the widths a field can have, computed once. */
const BIG_LIMIT: readonly bigint[] = Array.from({ length: 17 }, (_, n) => 1n << BigInt(8 * n));

/** True if `v` is a bigint that fits in `bytes` bytes unsigned. */
export function isBigOfWidth(v: unknown, bytes: number): v is bigint {
  return typeof v === 'bigint' && v >= 0n && v < (BIG_LIMIT[bytes] ?? 1n << BigInt(8 * bytes));
}

/** Write a 32-bit limb's low `n` (1-4) bytes big-endian ending before `end`. */
function putLimb(out: Uint8Array, end: number, limb: number, n: number): void {
  let x = limb;
  for (let i = 1; i <= n; i++) {
    out[end - i] = x & 0xff;
    x >>>= 8;
  }
}

/**
 * Write `v` as `n` big-endian bytes at `at` (the low n bytes of its two's complement, as
 * `bigToBytes` always did). The bytes past the value's limbs are left as they are: a fresh or
 * zeroed range is expected.
 */
export function putBig(out: Uint8Array, at: number, v: bigint, n: number): void {
  let end = at + n;
  if (v >= 0n && v <= SAFE_MAX) {
    const x = Number(v);
    const lo = x % TWO32;
    putLimb(out, end, lo, Math.min(4, n));
    if (n > 4) putLimb(out, end - 4, (x - lo) / TWO32, Math.min(4, n - 4));
    return;
  }
  let x = v;
  for (let left = n; left > 0; left -= 4) {
    putLimb(out, end, Number(BigInt.asUintN(32, x)), Math.min(4, left));
    end -= 4;
    x >>= 32n;
  }
}

/** Big-endian bytes to bigint (any width). */
export function bytesToBig(b: Uint8Array): bigint {
  const n = b.length;
  let i = 0;
  while (i < n && b[i] === 0) i++;
  if (n - i <= 6) {
    let x = 0;
    for (; i < n; i++) x = x * 256 + b[i]!;
    return BigInt(x);
  }
  // Leading partial limb as a number, then whole 32-bit limbs.
  let head = 0;
  const first = i + ((n - i) % 4);
  for (; i < first; i++) head = head * 256 + b[i]!;
  let x = BigInt(head);
  for (; i < n; i += 4) {
    const limb = ((b[i]! << 24) | (b[i + 1]! << 16) | (b[i + 2]! << 8) | b[i + 3]!) >>> 0;
    x = (x << 32n) | BigInt(limb);
  }
  return x;
}

/** bigint to big-endian bytes of width n. */
export function bigToBytes(v: bigint, n: number): Uint8Array {
  const out = new Uint8Array(n);
  putBig(out, 0, v, n);
  return out;
}

export function isAllOnes(b: Uint8Array): boolean {
  for (const x of b) if (x !== 0xff) return false;
  return true;
}
