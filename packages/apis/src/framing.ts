/**
 * Length-delimited framing for controlplane streams: each frame is a protobuf varint (unsigned
 * LEB128) byte length followed by that many payload bytes, the same layout as protobuf's
 * writeDelimited, so any protobuf runtime can read the stream. protobufjs writes the varints;
 * this file reads them and adds what a stream needs on top: holding partial frames, the size limit
 * and typed errors.
 */
import protobuf from 'protobufjs/minimal.js';
import type { WatchEvent } from './controlplane';
import { decodeWatchEvent } from './controlplane-reader';
import { encodeWatchEvent } from './controlplane-writer';
import { FramingError } from './errors';

/** Default largest accepted frame: 16 MiB (a full NetworkPolicy set for a big node fits easily). */
export const DEFAULT_MAX_FRAME_BYTES = 16 * 1024 * 1024;

/** A varint length never needs more than 5 bytes for a 32-bit length. */
const MAX_VARINT_BYTES = 5;

/** Prefix `payload` with its varint length (protobuf's `bytes` field encoding, without the tag). */
export function encodeFrame(payload: Uint8Array): Uint8Array {
  return protobuf.Writer.create().bytes(payload).finish();
}

/** Encode a watch event as one frame. */
export function encodeWatchEventFrame(event: WatchEvent): Uint8Array {
  return encodeFrame(encodeWatchEvent(event));
}

/** Options of {@link FrameDecoder}. */
export interface FrameDecoderOptions {
  /** Frames longer than this are rejected with FRAME_TOO_LARGE before buffering them. */
  maxFrameBytes?: number;
}

/**
 * Incremental decoder: feed it chunks as they arrive (any split, any number of frames per
 * chunk) and it returns every complete frame. After an error the decoder is poisoned: the
 * stream position is lost, so the caller must drop the connection.
 */
export class FrameDecoder {
  private readonly maxFrameBytes: number;
  private buffer: Uint8Array = new Uint8Array(0);
  /** Stream offset of buffer[0], for error reports. */
  private offset = 0;
  private failure: FramingError | undefined;

  constructor(options: FrameDecoderOptions = {}) {
    this.maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
  }

  /** Bytes received but not yet part of a complete frame. */
  get pendingBytes(): number {
    return this.buffer.length;
  }

  /**
   * Append a chunk; returns the frames it completed (payloads, without length prefix). The frames
   * are views of the decoder's own copy of the chunk, never written again: copying each out cost
   * an allocation per frame (docs/apis.md, "Stream framing"); a frame kept holds that copy.
   */
  push(chunk: Uint8Array): Uint8Array[] {
    if (this.failure) throw this.failure;
    if (chunk.length > 0) {
      const merged = new Uint8Array(this.buffer.length + chunk.length);
      merged.set(this.buffer, 0);
      merged.set(chunk, this.buffer.length);
      this.buffer = merged;
    }
    const frames: Uint8Array[] = [];
    let pos = 0;
    for (;;) {
      const head = this.readLength(pos);
      if (!head) break;
      const start = pos + head.bytes;
      if (this.buffer.length - start < head.length) break;
      frames.push(this.buffer.subarray(start, start + head.length));
      pos = start + head.length;
    }
    this.buffer = this.buffer.slice(pos);
    this.offset += pos;
    return frames;
  }

  /** Declare end of stream: throws TRUNCATED if a partial frame is pending. */
  end(): void {
    if (this.failure) throw this.failure;
    if (this.buffer.length > 0) {
      this.fail(new FramingError('TRUNCATED', `stream ended inside a frame (${this.buffer.length} bytes pending)`, this.offset, this.buffer.length));
    }
  }

  /** Read the varint at `pos`; undefined if more bytes are needed. */
  private readLength(pos: number): { length: number; bytes: number } | undefined {
    // Read here, not by protobufjs' Reader: it cannot say "not arrived yet" (it reads on past the
    // end of a partial varint), and one Reader per frame was a third of the cost of framing a
    // small patch event (docs/apis.md, "Stream framing").
    const buf = this.buffer;
    let value = 0;
    for (let i = 0; i < MAX_VARINT_BYTES; i++) {
      if (pos + i >= buf.length) return undefined;
      const b = buf[pos + i] as number;
      // All 35 bits count: a fifth byte's upper bits make a length past any limit.
      value += (b & 0x7f) * 2 ** (7 * i);
      if (b < 0x80) {
        if (value > this.maxFrameBytes) {
          this.fail(new FramingError('FRAME_TOO_LARGE', `frame of ${value} bytes exceeds limit ${this.maxFrameBytes}`, this.offset + pos, value));
        }
        return { length: value, bytes: i + 1 };
      }
    }
    return this.fail(new FramingError('MALFORMED_LENGTH', `length varint longer than ${MAX_VARINT_BYTES} bytes`, this.offset + pos, buf.slice(pos, pos + MAX_VARINT_BYTES)));
  }

  private fail(err: FramingError): never {
    this.failure = err;
    throw err;
  }
}

/**
 * Decode a stream of watch-event frames from an async byte source (a socket, an HTTP body).
 * Throws FramingError on broken framing and ControlplaneCodecError on a malformed event.
 */
export async function* decodeWatchEventStream(
  source: AsyncIterable<Uint8Array>,
  options: FrameDecoderOptions = {},
): AsyncGenerator<WatchEvent> {
  const decoder = new FrameDecoder(options);
  for await (const chunk of source) {
    for (const frame of decoder.push(chunk)) yield decodeWatchEvent(frame);
  }
  decoder.end();
}
