// Streaming JSON framer: splits a byte stream into top-level JSON values without re-scanning.
import { FramingError } from '../errors';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

function isSpace(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

/** Options of {@link JsonFramer}. */
export interface JsonFramerOptions {
  /** Largest accepted message in bytes (default 64 MiB). */
  maxMessageBytes?: number;
}

/**
 * Incremental scanner over a byte stream of concatenated JSON objects/arrays (the OVSDB wire format:
 * no length prefix, no delimiter). Each byte is looked at exactly once, whatever the chunking, and a
 * message's bytes are joined once when it completes, so a large reply costs O(size).
 *
 * After a {@link FramingError} the framer is reset; callers should drop the connection, as ovsdb-server does.
 */
export class JsonFramer {
  private readonly max: number;
  private parts: Buffer[] = [];
  private size = 0;
  private depth = 0;
  private inString = false;
  private escape = false;

  constructor(opts: JsonFramerOptions = {}) {
    this.max = opts.maxMessageBytes ?? 64 * 1024 * 1024;
  }

  /** Bytes buffered towards an incomplete message. */
  get pendingBytes(): number {
    return this.size;
  }

  /** Feeds bytes; returns the complete values they finish. Throws FramingError on bad input. */
  push(chunk: Buffer): unknown[] {
    const out: unknown[] = [];
    let start = 0; // start of the unconsumed part of `chunk`
    let i = 0;
    const n = chunk.length;
    while (i < n) {
      const b = chunk[i]!;
      if (this.depth === 0) {
        // Between messages: only whitespace or the start of an object/array may appear.
        if (isSpace(b)) {
          i++;
          start = i;
          continue;
        }
        if (b !== OPEN_BRACE && b !== OPEN_BRACKET) {
          this.reset();
          throw new FramingError(
            'OVSDB_INVALID_JSON',
            `invalid JSON-RPC input: unexpected byte 0x${b.toString(16)} outside a message`,
            chunk.subarray(i, i + 40).toString('utf8'),
          );
        }
        start = i;
        this.depth = 1;
        i++;
        continue;
      }
      if (this.inString) {
        if (this.escape) this.escape = false;
        else if (b === BACKSLASH) this.escape = true;
        else if (b === QUOTE) this.inString = false;
      } else if (b === QUOTE) this.inString = true;
      else if (b === OPEN_BRACE || b === OPEN_BRACKET) this.depth++;
      else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
        this.depth--;
        if (this.depth === 0) {
          const end = i + 1;
          this.checkSize(end - start);
          const piece = chunk.subarray(start, end);
          const bytes = this.parts.length === 0 ? piece : Buffer.concat([...this.parts, piece]);
          this.parts = [];
          this.size = 0;
          out.push(this.parse(bytes));
          i = end;
          start = end;
          continue;
        }
      }
      i++;
    }
    if (this.depth > 0 && start < n) {
      this.checkSize(n - start);
      this.parts.push(chunk.subarray(start));
      this.size += n - start;
    }
    return out;
  }

  /** Call at end of stream: throws when a message was cut off. */
  end(): void {
    if (this.depth > 0 || this.size > 0) {
      const excerpt = Buffer.concat(this.parts).subarray(0, 40).toString('utf8');
      this.reset();
      throw new FramingError(
        'OVSDB_TRUNCATED',
        'connection closed in the middle of a JSON-RPC message',
        excerpt,
      );
    }
  }

  /** Drops any partial message. */
  reset(): void {
    this.parts = [];
    this.size = 0;
    this.depth = 0;
    this.inString = false;
    this.escape = false;
  }

  private checkSize(add: number): void {
    if (this.size + add > this.max) {
      const excerpt = (this.parts[0] ?? Buffer.alloc(0)).subarray(0, 40).toString('utf8');
      this.reset();
      throw new FramingError(
        'OVSDB_MESSAGE_TOO_LARGE',
        `JSON-RPC message exceeds the limit of ${this.max} bytes`,
        excerpt,
      );
    }
  }

  private parse(bytes: Buffer): unknown {
    try {
      return JSON.parse(bytes.toString('utf8'));
    } catch (err) {
      this.reset();
      throw new FramingError(
        'OVSDB_INVALID_JSON',
        `invalid JSON in JSON-RPC message: ${(err as Error).message}`,
        bytes.subarray(0, 40).toString('utf8'),
      );
    }
  }
}
