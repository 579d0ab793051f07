// Streaming JSON framer: any chunking of concatenated messages yields the same values; bad input is a typed error.
import fc from 'fast-check';
import { JsonFramer, FramingError } from '../src/index';

const feed = (f: JsonFramer, chunks: Buffer[]): unknown[] => chunks.flatMap((c) => f.push(c));

describe('JsonFramer', () => {
  test('splits concatenated messages, including strings with braces, quotes and escapes', () => {
    const msgs = [{ a: '}{][' }, ['x\\"}', { b: [1, 2, { c: '\\' }] }], { id: 1, s: 'é😀"' }];
    const bytes = Buffer.from(msgs.map((m) => JSON.stringify(m)).join('\n '));
    expect(feed(new JsonFramer(), [bytes])).toEqual(msgs);
  });

  test('gives the same values whatever the chunk boundaries (every byte split)', () => {
    const msgs = [
      { method: 'update', params: ['m', { T: { u: { new: { s: 'a}b' } } } }], id: null },
      { result: [], error: null, id: 7 },
    ];
    const bytes = Buffer.from(msgs.map((m) => JSON.stringify(m)).join(''));
    const f = new JsonFramer();
    const out: unknown[] = [];
    for (let i = 0; i < bytes.length; i++) out.push(...f.push(bytes.subarray(i, i + 1)));
    expect(out).toEqual(msgs);
    expect(f.pendingBytes).toBe(0);
  });

  test('property: random JSON objects, concatenated and cut anywhere, come back intact', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.dictionary(fc.string(), fc.jsonValue()), fc.array(fc.jsonValue())), {
          minLength: 1,
          maxLength: 5,
        }),
        fc.array(fc.nat(), { maxLength: 10 }),
        (values, cuts) => {
          const bytes = Buffer.from(values.map((v) => JSON.stringify(v)).join(' '));
          const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
          const chunks: Buffer[] = [];
          let prev = 0;
          for (const p of [...points, bytes.length]) {
            chunks.push(bytes.subarray(prev, p));
            prev = p;
          }
          expect(feed(new JsonFramer(), chunks)).toEqual(JSON.parse(JSON.stringify(values)));
        },
      ),
    );
  });

  test('a large reply arriving in small chunks is framed in linear time', () => {
    const big = {
      result: Array.from({ length: 200_000 }, (_v, i) => ({ n: i, s: `row-${i}-{}` })),
      error: null,
      id: 1,
    };
    const bytes = Buffer.from(JSON.stringify(big));
    expect(bytes.length).toBeGreaterThan(5_000_000);
    const f = new JsonFramer();
    const start = process.hrtime.bigint();
    const out: unknown[] = [];
    for (let i = 0; i < bytes.length; i += 1024) out.push(...f.push(bytes.subarray(i, i + 1024)));
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    expect(out).toHaveLength(1);
    expect((out[0] as typeof big).result[199_999]).toEqual({ n: 199_999, s: 'row-199999-{}' });
    // Re-scanning the buffer per chunk would be ~5,000 passes over megabytes: seconds to minutes.
    expect(ms).toBeLessThan(3000);
  });

  test('invalid JSON inside a frame is an OVSDB_INVALID_JSON error', () => {
    const f = new JsonFramer();
    expect(() => f.push(Buffer.from('{"a": tru}'))).toThrow(FramingError);
    // The framer is reset and usable again.
    expect(f.push(Buffer.from('{"ok":1}'))).toEqual([{ ok: 1 }]);
  });

  test('garbage between messages is rejected with the offending excerpt', () => {
    const f = new JsonFramer();
    try {
      f.push(Buffer.from('hello'));
      throw new Error('no error');
    } catch (e) {
      expect(e).toBeInstanceOf(FramingError);
      expect(e).toMatchObject({ code: 'OVSDB_INVALID_JSON', excerpt: 'hello' });
    }
  });

  test('a message over the size limit is OVSDB_MESSAGE_TOO_LARGE, even before it completes', () => {
    const f = new JsonFramer({ maxMessageBytes: 100 });
    f.push(Buffer.from('{"a":"'));
    expect(() => f.push(Buffer.from('x'.repeat(200)))).toThrow(
      expect.objectContaining({ code: 'OVSDB_MESSAGE_TOO_LARGE' }),
    );
    expect(f.pendingBytes).toBe(0);
  });

  test('end of stream inside a message is OVSDB_TRUNCATED', () => {
    const f = new JsonFramer();
    f.push(Buffer.from('{"id":1,"result":[1,2'));
    expect(() => f.end()).toThrow(expect.objectContaining({ code: 'OVSDB_TRUNCATED' }));
    expect(() => new JsonFramer().end()).not.toThrow();
  });
});
