/** Byte writer/reader used by the codec (big-endian, bounds-checked). */
import { OfDecodeError } from './errors';
import { putBig } from './values';

const U64_MAX = (1n << 64n) - 1n;

/** Growable big-endian byte writer. */
export class Writer {
  private buf: Uint8Array;
  private view: DataView;
  length = 0;

  constructor(initial = 256) {
    this.buf = new Uint8Array(initial);
    this.view = new DataView(this.buf.buffer);
  }

  private ensure(n: number): void {
    const need = this.length + n;
    if (need <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < need) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  u8(v: number): this {
    this.ensure(1);
    this.buf[this.length++] = v & 0xff;
    return this;
  }
  u16(v: number): this {
    this.ensure(2);
    this.view.setUint16(this.length, v & 0xffff);
    this.length += 2;
    return this;
  }
  u32(v: number): this {
    this.ensure(4);
    this.view.setUint32(this.length, v >>> 0);
    this.length += 4;
    return this;
  }
  u64(v: bigint): this {
    this.ensure(8);
    // BigInt.asUintN allocates a new bigint: only negative or wide values need it (a flow's cookie
    // and cookie mask are written per flow-mod).
    this.view.setBigUint64(this.length, v >= 0n && v <= U64_MAX ? v : BigInt.asUintN(64, v));
    this.length += 8;
    return this;
  }
  bytes(b: Uint8Array): this {
    this.ensure(b.length);
    this.buf.set(b, this.length);
    this.length += b.length;
    return this;
  }
  /** `v` as `n` big-endian bytes (the low n bytes of its two's complement), by 32-bit limbs. */
  big(v: bigint, n: number): this {
    this.ensure(n);
    this.buf.fill(0, this.length, this.length + n);
    putBig(this.buf, this.length, v, n);
    this.length += n;
    return this;
  }
  zeros(n: number): this {
    this.ensure(n);
    this.buf.fill(0, this.length, this.length + n);
    this.length += n;
    return this;
  }
  /** Pad with zeros to a multiple of `align` bytes counted from `from`. */
  pad(align: number, from = 0): this {
    const rem = (this.length - from) % align;
    return rem === 0 ? this : this.zeros(align - rem);
  }
  setU16(at: number, v: number): void {
    this.view.setUint16(at, v & 0xffff);
  }
  setU32(at: number, v: number): void {
    this.view.setUint32(at, v >>> 0);
  }
  finish(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
  /** The bytes written so far, without a copy: valid until the next write or {@link reset}. */
  written(): Uint8Array {
    return this.buf.subarray(0, this.length);
  }
  /** Starts over on the same buffer (for a caller that copied the bytes out). */
  reset(): void {
    this.length = 0;
  }
  /**
   * The bytes written so far, without a copy; the writer starts over on a fresh buffer of the same
   * size (for a caller that hands each chunk to a socket and keeps writing).
   */
  take(): Uint8Array {
    const out = this.buf.subarray(0, this.length);
    this.buf = new Uint8Array(this.buf.length);
    this.view = new DataView(this.buf.buffer);
    this.length = 0;
    return out;
  }
}

/** Bounds-checked big-endian reader over a byte range; errors name the decoding path. */
export class Reader {
  readonly view: DataView;
  pos: number;
  constructor(
    readonly buf: Uint8Array,
    readonly path: string,
    start = 0,
    readonly end = buf.length,
  ) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    this.pos = start;
  }
  get remaining(): number {
    return this.end - this.pos;
  }
  need(n: number, what = 'data'): void {
    if (n < 0 || this.pos + n > this.end) {
      throw new OfDecodeError(`truncated ${what}: need ${n} bytes, have ${this.end - this.pos}`, this.pos, this.path);
    }
  }
  u8(): number {
    this.need(1);
    return this.buf[this.pos++]!;
  }
  u16(): number {
    this.need(2);
    const v = this.view.getUint16(this.pos);
    this.pos += 2;
    return v;
  }
  u32(): number {
    this.need(4);
    const v = this.view.getUint32(this.pos);
    this.pos += 4;
    return v;
  }
  u64(): bigint {
    this.need(8);
    const v = this.view.getBigUint64(this.pos);
    this.pos += 8;
    return v;
  }
  bytes(n: number): Uint8Array {
    this.need(n);
    const b = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return b;
  }
  skip(n: number): void {
    this.need(n);
    this.pos += n;
  }
  /** A sub-reader over the next `n` bytes; advances this reader past them. */
  sub(n: number, path = this.path): Reader {
    this.need(n);
    const r = new Reader(this.buf, path, this.pos, this.pos + n);
    this.pos += n;
    return r;
  }
  fail(message: string, at = this.pos): never {
    throw new OfDecodeError(message, at, this.path);
  }
}

/** Hex string (no separators) of bytes. */
export function toHex(b: Uint8Array): string {
  let s = '';
  for (const x of b) s += HEX[x]!;
  return s;
}
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** Bytes from a hex string; whitespace, `.` and `:` separators are ignored. */
export function fromHex(hex: string): Uint8Array {
  const clean = hex.replace(/[\s.:]/g, '');
  if (clean.length % 2 !== 0 || /[^0-9a-fA-F]/.test(clean)) throw new RangeError(`not a hex string: ${hex}`);
  const out = new Uint8Array(clean.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(clean.slice(i * 2, i * 2 + 2), 16);
  return out;
}
