// A growing byte buffer that outgoing JSON text is written into as UTF-8, ready for the socket.

/**
 * JSON text goes in as UTF-8 as it is written: ASCII by a loop over its characters (no string is
 * made, joined or converted for it), anything else through Buffer's UTF-8 encoder. {@link take}
 * hands out what was written since the last take without copying: the writer goes on after it and
 * never writes over bytes it handed out, so a stream may hold them until they are sent. A write that
 * does not fit moves the untaken bytes to a new buffer of at least `chunkBytes`.
 */
export class Utf8Writer {
  private buf: Buffer;
  /** First byte not yet taken. */
  private start = 0;
  /** Where the next byte goes. */
  private end = 0;

  constructor(private readonly chunkBytes: number) {
    this.buf = Buffer.allocUnsafe(chunkBytes);
  }

  /** Bytes written and not yet taken. */
  get length(): number {
    return this.end - this.start;
  }

  /** Appends `text` as UTF-8 (a lone surrogate as U+FFFD, as Buffer.from and socket writes do). */
  write(text: string): void {
    if (text.length === 0) return;
    // One UTF-16 code unit is at most 3 bytes of UTF-8.
    if (this.end + text.length * 3 > this.buf.length) this.reserve(text.length * 3);
    this.end += this.buf.write(text, this.end, 'utf8');
  }

  /** Appends JSON text (or any text) as UTF-8; short ASCII text without a call into Buffer's encoder. */
  json(text: string): void {
    const n = text.length;
    if (n > 64) return this.write(text);
    if (this.end + n > this.buf.length) this.reserve(n);
    const buf = this.buf;
    let p = this.end;
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c >= 0x80) return this.write(text); // from this.end again: the bytes so far are overwritten
      buf[p++] = c;
    }
    this.end = p;
  }

  /** Appends `s` as a JSON string, the bytes of Buffer.from(JSON.stringify(s)). */
  string(s: string): void {
    const n = s.length;
    if (this.end + n + 2 > this.buf.length) this.reserve(n + 2);
    const buf = this.buf;
    let p = this.end;
    buf[p++] = 0x22;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      // Control characters, quote, backslash and non-ASCII: JSON.stringify's escapes and Buffer's UTF-8.
      if (c < 0x20 || c >= 0x80 || c === 0x22 || c === 0x5c) return this.write(JSON.stringify(s));
      buf[p++] = c;
    }
    buf[p++] = 0x22;
    this.end = p;
  }

  /** Appends bytes as they are. */
  writeBytes(bytes: Uint8Array): void {
    if (this.end + bytes.length > this.buf.length) this.reserve(bytes.length);
    this.buf.set(bytes, this.end);
    this.end += bytes.length;
  }

  /** Makes room for `bytes` more, so that writing them moves nothing. */
  reserve(bytes: number): void {
    if (this.end + bytes <= this.buf.length) return;
    const kept = this.end - this.start;
    const next = Buffer.allocUnsafe(Math.max(this.chunkBytes, 2 * (kept + bytes)));
    this.buf.copy(next, 0, this.start, this.end);
    this.buf = next;
    this.start = 0;
    this.end = kept;
  }

  /** The bytes written since the last take (a view, not a copy). */
  take(): Buffer {
    const out = this.buf.subarray(this.start, this.end);
    this.start = this.end;
    return out;
  }

  /** Drops the bytes written since the last take. */
  discard(): void {
    this.end = this.start;
  }

  /** Drops the bytes written after the first `length` not yet taken (see {@link length}). */
  rewindTo(length: number): void {
    this.end = this.start + length;
  }
}
