// Reconnect backoff with jitter, the inactivity probe and pending-request failure, driven by a manual clock.
import { Connection, backoffDelay, DisconnectedError, type OvsdbError } from '../src/index';
import { ManualClock } from '@switchyard/runtime/testing';
import { flush, onMessages, streamPair } from './helpers';
import type { Duplex } from 'node:stream';

describe('backoffDelay', () => {
  test('doubles from the initial delay up to the maximum', () => {
    const d = [0, 1, 2, 3, 4, 5, 6].map((n) =>
      backoffDelay(n, { initialDelayMs: 100, maxDelayMs: 2000, jitter: 0 }, 0.7),
    );
    expect(d).toEqual([100, 200, 400, 800, 1600, 2000, 2000]);
  });
  test('jitter scales the delay down by up to the jitter fraction', () => {
    expect(backoffDelay(3, { initialDelayMs: 100, jitter: 0.5 }, 0)).toBe(800);
    expect(backoffDelay(3, { initialDelayMs: 100, jitter: 0.5 }, 1)).toBe(400);
    expect(backoffDelay(3, { initialDelayMs: 100, jitter: 0.5 }, 0.5)).toBe(600);
  });
});

function harness(opts: { failFirst?: number; probeIntervalMs?: number; random?: () => number } = {}) {
  const clock = new ManualClock(0);
  const servers: Duplex[] = [];
  let attempts = 0;
  const conn = new Connection('unix:/nonexistent', {
    clock,
    random: opts.random ?? (() => 0),
    probeIntervalMs: opts.probeIntervalMs ?? 0,
    reconnect: { initialDelayMs: 100, maxDelayMs: 1000, jitter: 0.5 },
    openStream: async () => {
      attempts++;
      if (attempts <= (opts.failFirst ?? 0)) throw new Error(`refused #${attempts}`);
      const [client, server] = streamPair();
      servers.push(server);
      return client;
    },
  });
  return { clock, conn, servers, attempts: () => attempts };
}

describe('Connection', () => {
  test('retries a refused connection with exponential backoff until it succeeds', async () => {
    const h = harness({ failFirst: 3 });
    const delays: number[] = [];
    h.conn.on('backoff', (b) => delays.push(b.delayMs));
    const connected = h.conn.connect();
    await flush();
    expect(h.clock.pendingDelays()).toEqual([100]);
    await h.clock.advanceAsync(100, flush);
    expect(h.clock.pendingDelays()).toEqual([200]);
    await h.clock.advanceAsync(200, flush);
    await h.clock.advanceAsync(400, flush);
    await connected;
    expect(delays).toEqual([100, 200, 400]);
    expect(h.attempts()).toBe(4);
    expect(h.conn.isConnected).toBe(true);
    h.conn.close();
  });

  test('the jitter source shortens the delays', async () => {
    const h = harness({ failFirst: 2, random: () => 1 });
    const delays: number[] = [];
    h.conn.on('backoff', (b) => delays.push(b.delayMs));
    const connected = h.conn.connect();
    await flush();
    await h.clock.advanceAsync(50, flush);
    await h.clock.advanceAsync(100, flush);
    await connected;
    expect(delays).toEqual([50, 100]);
    h.conn.close();
  });

  test('pending requests fail with DisconnectedError when the session drops, then it reconnects', async () => {
    const h = harness();
    await h.conn.connect();
    const p = h.conn.request('transact', ['Open_vSwitch']);
    const events: string[] = [];
    h.conn.on('disconnected', () => events.push('disconnected'));
    h.conn.on('connected', (i) => events.push(`connected:${i.reconnected}`));
    h.servers[0]!.end(); // the server closes its end
    await expect(p).rejects.toBeInstanceOf(DisconnectedError);
    await expect(p).rejects.toThrow(/connection lost while waiting for the reply to transact/);
    await expect(h.conn.request('echo', [])).rejects.toThrow(/not connected/);
    await h.clock.advanceAsync(100, flush);
    expect(events).toEqual(['disconnected', 'connected:true']);
    h.conn.close();
  });

  test('the inactivity probe sends echo after an idle interval and drops a silent server after another', async () => {
    const h = harness({ probeIntervalMs: 1000 });
    await h.conn.connect();
    const seen: unknown[] = [];
    onMessages(h.servers[0]!, (m) => seen.push(m.method));
    let cause: Error | undefined;
    h.conn.on('disconnected', (c) => (cause = c));
    await h.clock.advanceAsync(999, flush);
    expect(seen).toEqual([]);
    await h.clock.advanceAsync(1, flush);
    expect(seen).toEqual(['echo']);
    await h.clock.advanceAsync(999, flush);
    expect(cause).toBeUndefined();
    await h.clock.advanceAsync(1, flush);
    expect(cause?.message).toMatch(/no reply to inactivity probe within 1000 ms/);
    h.conn.close();
  });

  test('a server that answers the probe keeps the session', async () => {
    const h = harness({ probeIntervalMs: 1000 });
    await h.conn.connect();
    const server = h.servers[0]!;
    onMessages(server, (m) => {
      if (m.method === 'echo') server.write(JSON.stringify({ result: m.params, error: null, id: m.id }));
    });
    let dropped = false;
    h.conn.on('disconnected', () => (dropped = true));
    for (let i = 0; i < 10; i++) await h.clock.advanceAsync(1000, flush);
    expect(dropped).toBe(false);
    h.conn.close();
  });

  test('with reconnect off, a failed first connect rejects', async () => {
    const clock = new ManualClock(0);
    const conn = new Connection('unix:/x', {
      clock,
      reconnect: false,
      openStream: async () => Promise.reject(new Error('refused')),
    });
    await expect(conn.connect()).rejects.toThrow('refused');
  });

  test('close fails pending requests and stops reconnecting', async () => {
    const h = harness();
    await h.conn.connect();
    const p = h.conn.request('transact', []);
    h.conn.close();
    await expect(p).rejects.toMatchObject({ code: 'OVSDB_DISCONNECTED' });
    await h.clock.advanceAsync(10_000, flush);
    expect(h.attempts()).toBe(1);
    await expect(h.conn.request('echo', [])).rejects.toMatchObject({
      code: 'OVSDB_CLOSED',
    } as Partial<OvsdbError>);
  });

  test('bad remotes are refused with a typed error', () => {
    expect(() => new Connection('http://x')).toThrow(expect.objectContaining({ code: 'OVSDB_BAD_REMOTE' }));
  });
});
