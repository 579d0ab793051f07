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
    // The same bytes, not a copy: a view of the same memory.
    expect(second.buffer).toBe(first.buffer);
    expect(second.byteOffset).toBe(first.byteOffset);
    expect(frames.size.encodings).toBe(1);
    expect(Buffer.from(first)).toEqual(Buffer.from(encodeWatchEventFrame(added(g))));
    expect(new FrameDecoder().push(first).map(decodeWatchEvent)).toEqual([added(g)]);
  });

  test('encodes again at another version, or for another event type of the same object', () => {
    const frames = new SharedEncodings();
    const g = group('g1', ['10.0.0.1']);
    const a = frames.of(added(g), 'e.1');
    expect(frames.of(added(g), 'e.2').byteOffset).not.toBe(a.byteOffset);
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

describe('SharedEncodings.concat', () => {
  const policy = (uid: string): controlplane.NetworkPolicy => ({ uid, name: uid, namespace: 'ns', sourceRef: { type: 'K8sNetworkPolicy', namespace: 'ns', name: uid, uid }, rules: [], appliedToGroups: ['a'], generation: 1 });
  const state = (g: controlplane.AddressGroup, p: controlplane.NetworkPolicy, rv: string): controlplane.WatchEvent[] => [
    added(g),
    { type: 'ADDED', kind: 'AppliedToGroup', object: group('a', ['10.0.0.9']) },
    { type: 'ADDED', kind: 'NetworkPolicy', object: p },
    { type: 'BOOKMARK', kind: 'Bookmark', object: { resourceVersion: rv }, resourceVersion: rv },
  ];

  test('is the initial state as a stream of frames, the same for shared objects met again and after a version change', () => {
    const frames = new SharedEncodings();
    const g = group('g1', ['10.0.0.1', '10.0.0.2']);
    const p = policy('p1');
    const expected = (rv: string): Buffer => Buffer.concat(state(g, p, rv).map(encodeWatchEventFrame));
    expect(frames.concat(state(g, p, 'e.1'), 'e.1')).toEqual(expected('e.1'));
    expect(frames.size.encodings).toBe(2); // the address group and the policy
    expect(frames.concat(state(g, p, 'e.1'), 'e.1')).toEqual(expected('e.1'));
    expect(frames.size.encodings).toBe(2);
    expect(frames.concat(state(g, p, 'e.2'), 'e.2')).toEqual(expected('e.2'));
    expect(new FrameDecoder().push(frames.concat(state(g, p, 'e.2'), 'e.2')).map(decodeWatchEvent)).toEqual(state(g, p, 'e.2'));
  });

  test('with recycle, what is held is written over in place when the bound is reached, and of() is refused', () => {
    const frames = new SharedEncodings({ maxBytes: 200, recycle: true });
    const groups = Array.from({ length: 20 }, (_, i) => group(`g${i}`, [`10.0.0.${i}`]));
    const events = groups.map(added);
    const expected = Buffer.concat(events.map(encodeWatchEventFrame));
    for (let round = 0; round < 3; round++) expect(frames.concat(events, 'e.1')).toEqual(expected);
    expect(frames.size.bytes).toBeLessThanOrEqual(200);
    expect(frames.concat(events.slice(0, 2), 'e.2')).toEqual(Buffer.concat(events.slice(0, 2).map(encodeWatchEventFrame)));
    expect(() => frames.of(added(groups[0] as controlplane.AddressGroup), 'e.2')).toThrow(/recycling/);
  });

  test('an object sent as ADDED and as MODIFIED at one version gets each encoding', () => {
    const frames = new SharedEncodings();
    const p = policy('p1');
    const add: controlplane.WatchEvent = { type: 'ADDED', kind: 'NetworkPolicy', object: p };
    const mod: controlplane.WatchEvent = { type: 'MODIFIED', kind: 'NetworkPolicy', object: p };
    expect(frames.concat([add, mod, add], 'e.1')).toEqual(Buffer.concat([add, mod, add].map(encodeWatchEventFrame)));
    expect(Buffer.from(frames.of(mod, 'e.1'))).toEqual(Buffer.from(encodeWatchEventFrame(mod)));
  });

  test.each([false, true])('many events across chunks, a bound that starts over mid-state, and one large encoding stay byte for byte (recycle: %s)', (recycle) => {
    const frames = new SharedEncodings({ maxBytes: 64 * 1024, recycle });
    const events: controlplane.WatchEvent[] = [];
    for (let i = 0; i < 6000; i++) events.push(added(group(`g${i}`, [`10.3.${i >> 8}.${i & 255}`])));
    events.push(added(group('big', Array.from({ length: 5000 }, (_, j) => `10.2.${j >> 8}.${j & 255}`))));
    for (let i = 0; i < 6000; i += 7) events.push(events[i] as controlplane.WatchEvent);
    const expected = Buffer.concat(events.map(encodeWatchEventFrame));
    expect(frames.concat(events, 'e.1')).toEqual(expected);
    expect(frames.concat(events, 'e.1')).toEqual(expected);
    expect(frames.size.bytes).toBeLessThanOrEqual(64 * 1024);
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
