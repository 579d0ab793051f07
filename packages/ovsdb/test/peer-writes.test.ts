// The peer's write path: messages sent in one turn after the first share one stream write, in order.
import { Duplex } from 'node:stream';
import { JsonFramer } from '../src/index';
import { JsonParams, JsonRpcPeer } from '../src/jsonrpc/peer';
import { flush } from './helpers';

/** A stream that records each write as one chunk (bytes as latin1, so they can be compared exactly) and never answers. */
function recorder(): { stream: Duplex; chunks: string[] } {
  const chunks: string[] = [];
  const stream = new Duplex({
    read() {},
    write(chunk: Buffer, _enc, cb) {
      chunks.push(chunk.toString('latin1'));
      cb();
    },
  });
  return { stream, chunks };
}
const bytes = (chunks: string[]): Buffer[] => chunks.map((c) => Buffer.from(c, 'latin1'));

const messagesOf = (chunk: string): unknown[] => new JsonFramer().push(Buffer.from(chunk, 'latin1'));

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

  test('JsonParams are written as they are: the same bytes Buffer.from(JSON.stringify(request)) makes', () => {
    const { stream, chunks } = recorder();
    const peer = new JsonRpcPeer(stream);
    const ops = [{ op: 'insert', table: 'Port', row: { name: 'p "1"', external_ids: ['map', [['k', '\u00e9\u{1f600}\ud800']]] } }, { op: 'commit', durable: false }];
    const params = ['Open_vSwitch', ...ops, null];
    void peer.request('transact', new JsonParams(Buffer.from(JSON.stringify(params)))).catch(() => undefined);
    expect(Buffer.concat(bytes(chunks))).toEqual(Buffer.from(JSON.stringify({ method: 'transact', params, id: 1 })));
    peer.close();
  });

  test('one long request goes out in several writes that join to its bytes, with the messages around it in order', async () => {
    const { stream, chunks } = recorder();
    const peer = new JsonRpcPeer(stream);
    const ops = Array.from({ length: 3000 }, (_v, i) => ({ op: 'insert', table: 'Interface', row: { name: `port-${i}` }, 'uuid-name': `i${i}` }));
    void peer.request('echo', ['before']).catch(() => undefined);
    void peer.request('echo', ['queued']).catch(() => undefined);
    void peer.request('transact', new JsonParams(Buffer.from(JSON.stringify(['Open_vSwitch', ...ops])))).catch(() => undefined);
    void peer.request('echo', ['after']).catch(() => undefined);
    await flush();
    expect(chunks.length).toBeGreaterThan(2);
    expect(Buffer.concat(bytes(chunks)).toString()).toBe(
      [
        { method: 'echo', params: ['before'], id: 1 },
        { method: 'echo', params: ['queued'], id: 2 },
        { method: 'transact', params: ['Open_vSwitch', ...ops], id: 3 },
        { method: 'echo', params: ['after'], id: 4 },
      ]
        .map((m) => JSON.stringify(m))
        .join(''),
    );
    peer.close();
  });
});
