import { decodeWatchEvent, encodeWatchEventFrame, FrameDecoder, type controlplane } from '@switchyard/apis';
import { SharedFrames } from '../src/frames';

const group = (name: string, ips: string[]): controlplane.AddressGroup => ({ name, groupMembers: ips.map((ip) => ({ ips: [ip] })) });
const added = (object: controlplane.AddressGroup): controlplane.WatchEvent => ({ type: 'ADDED', kind: 'AddressGroup', object });

describe('SharedFrames', () => {
  test('gives every watcher of one version the same bytes for the same object, equal to encoding it alone', () => {
    const frames = new SharedFrames();
    const g = group('g1', ['10.0.0.1', '10.0.0.2']);
    const first = frames.frameOf(added(g), 'e.1');
    const second = frames.frameOf(added(g), 'e.1');
    expect(second).toBe(first);
    expect(Buffer.from(first)).toEqual(Buffer.from(encodeWatchEventFrame(added(g))));
    expect(new FrameDecoder().push(first).map(decodeWatchEvent)).toEqual([added(g)]);
  });

  test('encodes again at another version, or for another event type of the same object', () => {
    const frames = new SharedFrames();
    const g = group('g1', ['10.0.0.1']);
    const a = frames.frameOf(added(g), 'e.1');
    expect(frames.frameOf(added(g), 'e.2')).not.toBe(a);
    expect(frames.size.frames).toBe(1);
    const modified: controlplane.WatchEvent = { type: 'MODIFIED', kind: 'AddressGroup', object: g, resourceVersion: 'e.2' };
    expect(Buffer.from(frames.frameOf(modified, 'e.2'))).toEqual(Buffer.from(encodeWatchEventFrame(modified)));
  });

  test('keeps no deletions, bookmarks or errors', () => {
    const frames = new SharedFrames();
    frames.frameOf({ type: 'DELETED', kind: 'AddressGroup', object: group('g1', []) }, 'e.1');
    frames.frameOf({ type: 'BOOKMARK', kind: 'Bookmark', object: { resourceVersion: 'e.1' }, resourceVersion: 'e.1' }, 'e.1');
    expect(frames.size.frames).toBe(0);
  });

  test('starts over once it holds more than its byte bound', () => {
    const frames = new SharedFrames({ maxBytes: 100 });
    const groups = Array.from({ length: 10 }, (_, i) => group(`g${i}`, ['10.0.0.1']));
    for (const g of groups) frames.frameOf(added(g), 'e.1');
    expect(frames.size.bytes).toBeLessThanOrEqual(100);
    expect(frames.size.frames).toBeLessThan(10);
  });

  test('holds small frames in its own chunks, not in slices of the shared Buffer pool', () => {
    const frames = new SharedFrames();
    const a = frames.frameOf(added(group('g1', ['10.0.0.1'])), 'e.1');
    const b = frames.frameOf(added(group('g2', ['10.0.0.2'])), 'e.1');
    expect(a.buffer).toBe(b.buffer);
    expect(a.buffer).not.toBe(Buffer.allocUnsafe(1).buffer);
  });
});
