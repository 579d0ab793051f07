import fc from 'fast-check';
import {
  ControlplaneCodecError,
  decodeWatchEvent,
  decodeWatchEventStream,
  encodeFrame,
  encodeWatchEvent,
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

/** The frame encoder as it was written by hand before protobufjs wrote the varints (#30): the reference for the wire format. */
function previousEncodeFrame(payload: Uint8Array): Uint8Array {
  let n = payload.length;
  const head: number[] = [];
  while (n > 0x7f) {
    head.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  head.push(n);
  return concat([Uint8Array.from(head), payload]);
}

const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length));

/** An address group of `n` pods with long names (about 300 bytes each), one IPv4 and one IPv6 address each. */
function addressGroupEvent(n: number): cp.WatchEvent {
  const groupMembers = Array.from({ length: n }, (_, i) => ({ pod: { name: `pod-${i}-${'x'.repeat(250)}`, namespace: 'prod' }, ips: [`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, `fd00::${(i + 1).toString(16)}`] }));
  return { type: 'ADDED', kind: 'AddressGroup', object: { name: `group-${n}`, groupMembers }, resourceVersion: String(n) };
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

  test('frames are byte for byte what the hand-written encoder wrote, for lengths of one to four varint bytes', () => {
    for (const n of [0, 1, 127, 128, 300, 16_383, 16_384, 2_097_151, 2_097_152]) {
      const payload = Uint8Array.from({ length: n }, (_, i) => (i * 31) & 255);
      const frame = encodeFrame(payload);
      expect({ n, same: sameBytes(frame, previousEncodeFrame(payload)) }).toEqual({ n, same: true });
    }
  });

  test('watch event frames are byte for byte the hand-written ones and decode from any split', () => {
    const events = [addressGroupEvent(0), addressGroupEvent(1), addressGroupEvent(100), addressGroupEvent(8_000)];
    const payloads = events.map(encodeWatchEvent);
    const frames = events.map(encodeWatchEventFrame);
    frames.forEach((f, i) => expect(sameBytes(f, previousEncodeFrame(payloads[i]!))).toBe(true));
    expect(frames.map((f, i) => f.length - payloads[i]!.length)).toEqual([1, 2, 3, 4]);
    const stream = concat(payloads.map(previousEncodeFrame));
    // cut inside every multi-byte length (the last one byte by byte) and inside payloads
    const starts = frames.map((_, i) => frames.slice(0, i).reduce((n, f) => n + f.length, 0));
    const [, second, third, fourth] = starts as [number, number, number, number];
    const cuts = [1, second + 1, third + 1, third + 2, fourth - 5, fourth + 1, fourth + 2, fourth + 3, fourth + 4, stream.length - 1];
    const dec = new FrameDecoder();
    const got = split(stream, cuts).flatMap((c) => dec.push(c));
    dec.end();
    expect(got.map(decodeWatchEvent)).toEqual(events);
  });

  test('a five-byte length is read in full: past 32 bits it is too large, not wrapped', () => {
    const dec = new FrameDecoder();
    expect(() => dec.push(Uint8Array.of(0x80, 0x80, 0x80, 0x80, 0x10, 0))).toThrow(expect.objectContaining({ code: 'FRAME_TOO_LARGE', value: 2 ** 32 }));
    expect(new FrameDecoder().push(Uint8Array.of(0x83, 0x80, 0x80, 0x80, 0x00, 1, 2, 3))).toEqual([Uint8Array.of(1, 2, 3)]);
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

  test('frames stay as they were when the caller reuses its chunk or pushes more', () => {
    const chunk = Uint8Array.from(concat([encodeFrame(Uint8Array.of(1, 2, 3)), encodeFrame(Uint8Array.of(4))]));
    const dec = new FrameDecoder();
    const frames = dec.push(chunk.subarray(0, 6));
    chunk.fill(0xee);
    frames.push(...dec.push(Uint8Array.of(2, 5, 6)));
    expect(frames).toEqual([Uint8Array.of(1, 2, 3), Uint8Array.of(4), Uint8Array.of(5, 6)]);
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
