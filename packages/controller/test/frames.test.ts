import { decodeWatchEvent, encodeWatchEvent, encodeWatchEventFrame, FrameDecoder, type controlplane } from '@switchyard/apis';
import { delimited, SharedEncodings } from '../src/frames';

const group = (name: string, ips: string[]): controlplane.AddressGroup => ({ name, groupMembers: ips.map((ip) => ({ ips: [ip] })) });
const added = (object: controlplane.AddressGroup): controlplane.WatchEvent => ({ type: 'ADDED', kind: 'AddressGroup', object });

describe('SharedEncodings', () => {
  test('gives every watcher of one version the same bytes for the same object, equal to encoding it alone', () => {
    const frames = new SharedEncodings();
    const g = group('g1', ['10.0.0.1', '10.0.0.2']);
    const first = frames.of(added(g), 'e.1');
    const second = frames.of(added(g), 'e.1');
    expect(second).toBe(first);
    expect(Buffer.from(first)).toEqual(Buffer.from(encodeWatchEventFrame(added(g))));
    expect(new FrameDecoder().push(first).map(decodeWatchEvent)).toEqual([added(g)]);
  });

  test('encodes again at another version, or for another event type of the same object', () => {
    const frames = new SharedEncodings();
    const g = group('g1', ['10.0.0.1']);
    const a = frames.of(added(g), 'e.1');
    expect(frames.of(added(g), 'e.2')).not.toBe(a);
    expect(frames.size.encodings).toBe(1);
    const modified: controlplane.WatchEvent = { type: 'MODIFIED', kind: 'AddressGroup', object: g, resourceVersion: 'e.2' };
    expect(Buffer.from(frames.of(modified, 'e.2'))).toEqual(Buffer.from(encodeWatchEventFrame(modified)));
  });

  test('keeps no deletions, bookmarks, errors or applied-to groups (made per node)', () => {
    const frames = new SharedEncodings();
    frames.of({ type: 'DELETED', kind: 'AddressGroup', object: group('g1', []) }, 'e.1');
    frames.of({ type: 'BOOKMARK', kind: 'Bookmark', object: { resourceVersion: 'e.1' }, resourceVersion: 'e.1' }, 'e.1');
    frames.of({ type: 'ADDED', kind: 'AppliedToGroup', object: group('g2', ['10.0.0.1']) }, 'e.1');
    expect(frames.size.encodings).toBe(0);
  });

  test('starts over once it holds more than its byte bound', () => {
    const frames = new SharedEncodings({ maxBytes: 100 });
    for (let i = 0; i < 10; i++) frames.of(added(group(`g${i}`, ['10.0.0.1'])), 'e.1');
    expect(frames.size.bytes).toBeLessThanOrEqual(100);
    expect(frames.size.encodings).toBeLessThan(10);
  });

  test('holds small encodings in its own chunks, not in slices of the shared Buffer pool', () => {
    const frames = new SharedEncodings({ framed: false });
    const a = frames.of(added(group('g1', ['10.0.0.1'])), 'e.1');
    const b = frames.of(added(group('g2', ['10.0.0.2'])), 'e.1');
    expect(a.buffer).toBe(b.buffer);
    expect(a.buffer).not.toBe(Buffer.allocUnsafe(1).buffer);
    expect(Buffer.from(a)).toEqual(Buffer.from(encodeWatchEvent(added(group('g1', ['10.0.0.1'])))));
  });
});

describe('delimited', () => {
  test('lays messages out as apis frames do, for lengths of one to three varint bytes', () => {
    const sizes = [0, 1, 127, 128, 300, 16383, 16384, 70000];
    const messages = sizes.map((n) => Uint8Array.from({ length: n }, (_, i) => i % 251));
    const events = sizes.map((n, i): controlplane.WatchEvent => added(group(`g${i}`, Array.from({ length: Math.ceil(n / 8) }, (_, j) => `10.${i}.${j >> 8}.${j & 255}`))));
    const encoded = events.map(encodeWatchEvent);
    expect(delimited(encoded)).toEqual(Buffer.concat(events.map(encodeWatchEventFrame)));
    const frames = new FrameDecoder().push(delimited(messages));
    expect(frames.map((f) => f.length)).toEqual(sizes);
    expect(frames.map((f) => Buffer.from(f))).toEqual(messages.map((m) => Buffer.from(m)));
  });
});

test('a new version reuses the chunk being filled instead of allocating another', () => {
  const frames = new SharedEncodings({ framed: false });
  const first = frames.of(added(group('g1', ['10.0.0.1'])), 'e.1');
  const next = frames.of(added(group('g1', ['10.0.0.1'])), 'e.2');
  expect(next.buffer).toBe(first.buffer);
  expect(next.byteOffset).toBeGreaterThan(first.byteOffset);
});

test('an encoding already handed out stays intact while later ones are written, and a large one gets memory of its own', () => {
  const frames = new SharedEncodings();
  const first = frames.of(added(group('g1', ['10.0.0.1'])), 'e.1');
  const copy = Buffer.from(first);
  for (let i = 0; i < 3000; i++) frames.of({ type: 'ADDED', kind: 'AppliedToGroup', object: group(`a${i}`, [`10.1.${i >> 8}.${i & 255}`]) }, 'e.1');
  expect(Buffer.from(first)).toEqual(copy);
  const big = group('big', Array.from({ length: 5000 }, (_, j) => `10.2.${j >> 8}.${j & 255}`));
  const bytes = frames.of(added(big), 'e.1');
  expect(bytes.byteOffset).toBe(0);
  expect(bytes.buffer.byteLength).toBe(bytes.length);
  expect(Buffer.from(bytes)).toEqual(Buffer.from(encodeWatchEventFrame(added(big))));
});
