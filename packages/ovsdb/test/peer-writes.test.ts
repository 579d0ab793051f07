// The peer's write path: messages sent in one turn after the first share one stream write, in order.
import { Duplex } from 'node:stream';
import { JsonFramer } from '../src/index';
import { JsonRpcPeer, JsonText } from '../src/jsonrpc/peer';
import { flush } from './helpers';

/** A stream that records each write as one chunk and never answers. */
function recorder(): { stream: Duplex; chunks: string[] } {
  const chunks: string[] = [];
  const stream = new Duplex({
    decodeStrings: false,
    read() {},
    write(chunk: string | Buffer, _enc, cb) {
      chunks.push(chunk.toString());
      cb();
    },
  });
  return { stream, chunks };
}

const messagesOf = (chunk: string): unknown[] => new JsonFramer().push(Buffer.from(chunk));

describe('JsonRpcPeer writes', () => {
  test('the first request of a turn is written at once, the rest of the turn together after it', async () => {
    const { stream, chunks } = recorder();
    const peer = new JsonRpcPeer(stream);
    for (let i = 0; i < 5; i++) void peer.request('echo', [i]).catch(() => undefined);
    expect(chunks.map(messagesOf)).toEqual([[{ method: 'echo', params: [0], id: 1 }]]);
    await flush();
    expect(chunks.map(messagesOf)).toEqual([
      [{ method: 'echo', params: [0], id: 1 }],
      [1, 2, 3, 4].map((i) => ({ method: 'echo', params: [i], id: i + 1 })),
    ]);
    peer.close();
  });

  test('a request in a later turn is written at once again', async () => {
    const { stream, chunks } = recorder();
    const peer = new JsonRpcPeer(stream);
    void peer.request('echo', ['a']).catch(() => undefined);
    await flush();
    void peer.request('echo', ['b']).catch(() => undefined);
    expect(chunks.map(messagesOf)).toEqual([[{ method: 'echo', params: ['a'], id: 1 }], [{ method: 'echo', params: ['b'], id: 2 }]]);
    peer.close();
  });

  test('a long burst goes out in writes of bounded size before the turn ends, all messages in order', async () => {
    const { stream, chunks } = recorder();
    const peer = new JsonRpcPeer(stream);
    const big = 'x'.repeat(1000);
    for (let i = 0; i < 200; i++) void peer.request('echo', [big]).catch(() => undefined);
    const beforeTurnEnds = chunks.length;
    await flush();
    expect(beforeTurnEnds).toBeGreaterThan(2);
    expect(chunks.length).toBeLessThan(20);
    const ids = chunks.flatMap(messagesOf).map((m) => (m as { id: number }).id);
    expect(ids).toEqual(Array.from({ length: 200 }, (_v, i) => i + 1));
    peer.close();
  });

  test('queued messages of a peer closed in the same turn are not written', async () => {
    const { stream, chunks } = recorder();
    const peer = new JsonRpcPeer(stream);
    const replies = Promise.allSettled([peer.request('echo', [1]), peer.request('echo', [2])]);
    peer.close();
    await flush();
    expect(chunks).toHaveLength(1);
    expect((await replies).map((r) => r.status)).toEqual(['rejected', 'rejected']);
  });

  test('JsonText params are written as they are: the same text JSON.stringify makes of the request', () => {
    const { stream, chunks } = recorder();
    const peer = new JsonRpcPeer(stream);
    const ops = [{ op: 'insert', table: 'Port', row: { name: 'p "1"', external_ids: ['map', [['k', 'é']]] } }, { op: 'commit', durable: false }];
    void peer.request('transact', ['Open_vSwitch', ...ops.map((o) => new JsonText(JSON.stringify(o))), undefined]).catch(() => undefined);
    expect(chunks).toEqual([JSON.stringify({ method: 'transact', params: ['Open_vSwitch', ...ops, undefined], id: 1 })]);
    peer.close();
  });

  test('one long request goes out in several writes that join to its text', () => {
    const { stream, chunks } = recorder();
    const peer = new JsonRpcPeer(stream);
    const ops = Array.from({ length: 3000 }, (_v, i) => ({ op: 'insert', table: 'Interface', row: { name: `port-${i}` }, 'uuid-name': `i${i}` }));
    void peer.request('transact', ['Open_vSwitch', ...ops.map((o) => new JsonText(JSON.stringify(o)))]).catch(() => undefined);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.join('')).toBe(JSON.stringify({ method: 'transact', params: ['Open_vSwitch', ...ops], id: 1 }));
    peer.close();
  });
});
