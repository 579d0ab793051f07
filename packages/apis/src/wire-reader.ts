/**
 * Protobuf wire primitives for controlplane-reader.ts: varints, lengths, strings, skipping unknown
 * fields. It accepts and refuses exactly the bytes protobufjs' generated decoder (8.8) accepts and
 * refuses, with the same error texts, because decoding errors must not change when the reader
 * replaced that decoder (docs/apis.md, "Decoding without message objects"): a varint keeps its low
 * 32 bits (int64: 64), a length is below 2^31, strings are strict UTF-8, a known field with the wrong
 * wire type is skipped as unknown, groups are skipped up to the depth limit.
 */

/** Malformed wire bytes; the decoders report it as MALFORMED_MESSAGE with this text. */
export class WireError extends Error {}

const outOfRange = (pos: number, n: number, len: number): WireError => new WireError(`index out of range: ${pos} + ${n} > ${len}`);
/** protobufjs' recursion limit (protoc's default): nesting of groups inside unknown fields. */
const DEPTH_LIMIT = 100;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const f64 = new Float64Array(1);
const f64Bytes = new Uint8Array(f64.buffer);
const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

function decodeUtf8(buf: Uint8Array, start: number, end: number): string {
  try {
    return strictUtf8.decode(buf.subarray(start, end));
  } catch (e) {
    throw new WireError((e as Error).message);
  }
}

const fromCodes = String.fromCharCode;

/**
 * ASCII bytes as text, eight characters per call: adding one character at a time allocated a
 * string per character (about 30% slower for pod names and namespaces, Node 20).
 */
function ascii(b: Uint8Array, start: number, end: number): string {
  let s = '';
  let i = start;
  for (; i + 8 <= end; i += 8) s += fromCodes(b[i]!, b[i + 1]!, b[i + 2]!, b[i + 3]!, b[i + 4]!, b[i + 5]!, b[i + 6]!, b[i + 7]!);
  for (; i < end; i++) s += fromCodes(b[i]!);
  return s;
}

/** A cursor over one message's bytes; `len` is the end of the message being read. */
export class WireReader {
  buf: Uint8Array;
  pos = 0;
  len: number;

  constructor(buf: Uint8Array) {
    this.buf = buf;
    this.len = buf.length;
  }

  reset(buf: Uint8Array): void {
    this.buf = buf;
    this.pos = 0;
    this.len = buf.length;
  }

  /** A varint's low 32 bits, unsigned (a longer varint is read to its end, at most 10 bytes). */
  uint32(): number {
    const { buf, len } = this;
    let pos = this.pos;
    if (pos >= len) throw outOfRange(pos, 1, len);
    let b = buf[pos++] as number;
    if (b < 128) {
      this.pos = pos;
      return b;
    }
    if (len - this.pos < 5) return this.shortVarint();
    let v = b & 127;
    for (let shift = 7; shift < 28; shift += 7) {
      b = buf[pos++] as number;
      v |= (b & 127) << shift;
      if (b < 128) {
        this.pos = pos;
        return v >>> 0;
      }
    }
    b = buf[pos++] as number;
    v = (v | ((b & 15) << 28)) >>> 0;
    if (b < 128) {
      this.pos = pos;
      return v;
    }
    return this.varintTail(pos, v);
  }

  /** Bytes 6 to 10 of a varint whose value is already complete. */
  private varintTail(from: number, v: number): number {
    let pos = from;
    for (let i = 0; i < 5; i++) {
      if (pos >= this.len) {
        this.pos = pos;
        throw outOfRange(pos, 1, this.len);
      }
      if ((this.buf[pos++] as number) < 128) {
        this.pos = pos;
        return v;
      }
    }
    this.pos = pos;
    throw new WireError('invalid varint encoding');
  }

  /** Fewer than 5 bytes left: a varint of at most 4 bytes. */
  private shortVarint(): number {
    let v = 0;
    for (let i = 0; i < 4; i++) {
      if (this.pos >= this.len) throw outOfRange(this.pos, 1, this.len);
      const b = this.buf[this.pos++] as number;
      v = (v | ((b & 127) << (i * 7))) >>> 0;
      if (b < 128) return v;
    }
    throw outOfRange(this.pos, 1, this.len);
  }

  int32(): number {
    return this.uint32() | 0;
  }

  /** A field tag: at most 5 bytes, the fifth below 16. */
  tag(): number {
    return this.limited(15, 'invalid tag encoding');
  }

  /** A length: at most 5 bytes, below 2^31. */
  size(): number {
    return this.limited(7, 'invalid length encoding');
  }

  /** A varint of at most 5 bytes whose fifth byte is at most `top`. */
  private limited(top: number, message: string): number {
    const { buf, len } = this;
    let pos = this.pos;
    if (pos >= len) throw outOfRange(pos, 1, len);
    let b = buf[pos++] as number;
    if (b < 128) {
      this.pos = pos;
      return b;
    }
    if (len - this.pos < 5) return this.shortVarint();
    let v = b & 127;
    for (let shift = 7; shift < 28; shift += 7) {
      b = buf[pos++] as number;
      v |= (b & 127) << shift;
      if (b < 128) {
        this.pos = pos;
        return v >>> 0;
      }
    }
    b = buf[pos] as number;
    this.pos = pos + 1;
    if (b > top) throw new WireError(message);
    return (v | (b << 28)) >>> 0;
  }

  bool(): boolean {
    let v = false;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.len) throw outOfRange(this.pos, 1, this.len);
      const b = this.buf[this.pos++] as number;
      if (b & 127) v = true;
      if (b < 128) return v;
    }
    throw new WireError('invalid varint encoding');
  }

  /** A varint as a signed 64-bit value, as a number (rounded beyond 2^53, as Long.toNumber does). */
  int64(): number {
    let lo = 0;
    let b = 0;
    if (this.len - this.pos <= 4) {
      for (let i = 0; i < 4; i++) {
        if (this.pos >= this.len) throw outOfRange(this.pos, 1, this.len);
        b = this.buf[this.pos++] as number;
        lo = (lo | ((b & 127) << (i * 7))) >>> 0;
        if (b < 128) return lo;
      }
      throw outOfRange(this.pos, 1, this.len);
    }
    for (let i = 0; i < 4; i++) {
      b = this.buf[this.pos++] as number;
      lo = (lo | ((b & 127) << (i * 7))) >>> 0;
      if (b < 128) return lo;
    }
    b = this.buf[this.pos++] as number;
    lo = (lo | ((b & 127) << 28)) >>> 0;
    const hi = ((b & 127) >> 4) >>> 0;
    if (b < 128) return hi * 2 ** 32 + lo;
    return this.int64High(lo, hi);
  }

  /** Bytes 6 to 10 of an int64 varint. */
  private int64High(lo: number, low3: number): number {
    let hi = low3;
    const checked = this.len - this.pos <= 4;
    for (let i = 0; i < 5; i++) {
      if (checked && this.pos >= this.len) throw outOfRange(this.pos, 1, this.len);
      const b = this.buf[this.pos++] as number;
      hi = (hi | ((b & 127) << (i * 7 + 3))) >>> 0;
      if (b < 128) return (hi | 0) * 2 ** 32 + lo;
    }
    throw new WireError('invalid varint encoding');
  }

  double(): number {
    if (this.pos + 8 > this.len) throw outOfRange(this.pos, 4, this.len); // protobufjs says 4 here
    const { buf } = this;
    if (littleEndian) for (let k = 0; k < 8; k++) f64Bytes[k] = buf[this.pos + k] as number;
    else for (let k = 0; k < 8; k++) f64Bytes[7 - k] = buf[this.pos + k] as number;
    this.pos += 8;
    return f64[0] as number;
  }

  /** Skip a length-delimited value; returns where its bytes start (they end at `pos`). */
  bytesStart(): number {
    const n = this.size();
    const start = this.pos;
    if (start + n > this.len) throw outOfRange(start, n, this.len);
    this.pos = start + n;
    return start;
  }

  /** A string, strict UTF-8; short ASCII text without TextDecoder (most names and namespaces). */
  string(): string {
    const start = this.bytesStart();
    const end = this.pos;
    if (end - start >= 64) return decodeUtf8(this.buf, start, end);
    const { buf } = this;
    let high = 0;
    for (let i = start; i < end; i++) high |= buf[i] as number;
    return high < 128 ? ascii(buf, start, end) : decodeUtf8(buf, start, end);
  }

  /** Enter a nested message: returns its end; `len` becomes it (restore with {@link leave}). */
  enter(): number {
    const end = this.size() + this.pos;
    if (end > this.len) throw new WireError('index out of range');
    this.len = end;
    return end;
  }

  leave(end: number, outer: number): void {
    if (this.pos !== end) throw new WireError('index out of range');
    this.len = outer;
  }

  /** A packed run of varints appended to `into` (uint32, or int32 when `signed`). */
  packed(into: number[], signed: boolean): void {
    const n = this.size();
    const end = this.pos + n;
    const outer = this.len;
    if (end > outer) throw outOfRange(this.pos, n, outer);
    this.len = end;
    while (this.pos < end) into.push(signed ? this.int32() : this.uint32());
    this.leave(end, outer);
  }

  /** Skip an unknown field (or a known one with another wire type) of `field`. */
  skipType(wireType: number, depth: number, field: number): void {
    if (depth > DEPTH_LIMIT) throw new WireError('max depth exceeded');
    if (field === 0) throw new WireError('illegal tag: field number 0');
    if (wireType === 0) this.skipVarint();
    else if (wireType === 1) this.skip(8);
    else if (wireType === 2) this.skip(this.size());
    else if (wireType === 3) this.skipGroup(depth, field);
    else if (wireType === 5) this.skip(4);
    else throw new WireError(`invalid wire type ${wireType} at offset ${this.pos}`);
  }

  private skipVarint(): void {
    do {
      if (this.pos >= this.len) throw outOfRange(this.pos, 1, this.len);
    } while ((this.buf[this.pos++] as number) & 128);
  }

  private skip(n: number): void {
    if (this.pos + n > this.len) throw outOfRange(this.pos, n || 1, this.len);
    this.pos += n;
  }

  private skipGroup(depth: number, field: number): void {
    for (;;) {
      const tag = this.tag();
      const nested = tag >>> 3;
      if (nested === 0) throw new WireError('illegal tag: field number 0');
      if ((tag & 7) === 4) {
        if (nested !== field) throw new WireError('invalid end group tag');
        return;
      }
      this.skipType(tag & 7, depth + 1, nested);
    }
  }
}
