import fc from 'fast-check';
import {
  ControlplaneCodecError,
  decodeWatchEventStream,
  encodeFrame,
  encodeWatchEventFrame,
  FrameDecoder,
  FramingError,
} from '../src/index';
import type { controlplane as cp } from '../src/index';
import * as arb from './support/arbitraries';

/** Split `bytes` at the given cut points (sorted, deduplicated, in range). */
function split(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let prev = 0;
  for (const p of points) {
    out.push(bytes.subarray(prev, p));
    prev = p;
  }
  out.push(bytes.subarray(prev));
  return out;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

async function* chunks(parts: Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const p of parts) yield p;
}

async function collect(source: AsyncIterable<cp.WatchEvent>): Promise<cp.WatchEvent[]> {
  const out: cp.WatchEvent[] = [];
  for await (const e of source) out.push(e);
  return out;
}

describe('length-delimited framing', () => {
  test('a frame is a varint length followed by the payload', () => {
    expect(Array.from(encodeFrame(new Uint8Array([7, 8, 9])))).toEqual([3, 7, 8, 9]);
    const big = encodeFrame(new Uint8Array(300));
    expect(Array.from(big.subarray(0, 2))).toEqual([0xac, 0x02]);
    expect(big.length).toBe(302);
  });

  test('concatenated frames split at arbitrary points decode to the original payloads', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 300 }), { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 10 }), (payloads, cuts) => {
        const stream = concat(payloads.map(encodeFrame));
        const dec = new FrameDecoder();
        const got = split(stream, cuts).flatMap((c) => dec.push(c));
        dec.end();
        expect(got).toEqual(payloads);
        expect(dec.pendingBytes).toBe(0);
      }),
    );
  });

  test('a partial frame is held until the rest arrives, byte by byte', () => {
    const dec = new FrameDecoder();
    const frame = encodeFrame(new Uint8Array(200).fill(1));
    for (let i = 0; i < frame.length - 1; i++) expect(dec.push(frame.subarray(i, i + 1))).toEqual([]);
    expect(dec.pendingBytes).toBe(frame.length - 1);
    expect(dec.push(frame.subarray(frame.length - 1))).toEqual([new Uint8Array(200).fill(1)]);
  });

  test('ending the stream inside a frame throws TRUNCATED with the frame offset', () => {
    const dec = new FrameDecoder();
    dec.push(encodeFrame(new Uint8Array([1, 2])));
    dec.push(encodeFrame(new Uint8Array([1, 2, 3])).subarray(0, 2));
    expect(() => dec.end()).toThrow(expect.objectContaining({ code: 'TRUNCATED', offset: 3 }));
  });

  test('a frame longer than the limit is rejected before it is buffered', () => {
    const dec = new FrameDecoder({ maxFrameBytes: 1024 });
    const err = (() => {
      try {
        dec.push(encodeFrame(new Uint8Array(1025)).subarray(0, 2));
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(FramingError);
    expect(err).toMatchObject({ code: 'FRAME_TOO_LARGE', value: 1025, offset: 0 });
  });

  test('a length varint of more than 5 bytes is MALFORMED_LENGTH and poisons the decoder', () => {
    const dec = new FrameDecoder();
    expect(() => dec.push(new Uint8Array([0x80, 0x80, 0x80, 0x80, 0x80, 0x01]))).toThrow(expect.objectContaining({ code: 'MALFORMED_LENGTH' }));
    expect(() => dec.push(encodeFrame(new Uint8Array([1])))).toThrow(FramingError);
  });

  test('watch events streamed in random chunks arrive intact and in order', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(arb.watchEvent, { maxLength: 5 }), fc.array(fc.nat(), { maxLength: 8 }), async (events, cuts) => {
        const stream = concat(events.map(encodeWatchEventFrame));
        expect(await collect(decodeWatchEventStream(chunks(split(stream, cuts))))).toEqual(events);
      }),
      { numRuns: 100 },
    );
  });

  test('garbage bytes in a stream end in a typed error, never a crash or a hang', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 1, maxLength: 80 }), async (garbage) => {
        try {
          await collect(decodeWatchEventStream(chunks([garbage]), { maxFrameBytes: 4096 }));
        } catch (e) {
          expect(e instanceof FramingError || e instanceof ControlplaneCodecError).toBe(true);
        }
      }),
      { numRuns: 1000 },
    );
  });

  test('a stream cut mid-event rejects with TRUNCATED after yielding the complete events', async () => {
    const ev: cp.WatchEvent = { type: 'BOOKMARK', kind: 'Bookmark', object: { resourceVersion: '42' } };
    const one = encodeWatchEventFrame(ev);
    const stream = concat([one, one.subarray(0, one.length - 1)]);
    const seen: cp.WatchEvent[] = [];
    await expect(
      (async () => {
        for await (const e of decodeWatchEventStream(chunks([stream]))) seen.push(e);
      })(),
    ).rejects.toMatchObject({ code: 'TRUNCATED' });
    expect(seen).toEqual([ev]);
  });
});
