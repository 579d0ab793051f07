/** Connection logic against a scripted fake switch on a unix socket, with a manual clock. */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeMessage, encodeMessage, peekLength, type OfMessage } from '../src/codec';
import { ManualClock } from '@switchyard/runtime/testing';
import { OfConnectionError, OfSwitchError, SwitchConnection } from '../src/index';

/** A fake switch: answers the handshake and barriers; `answerEcho` decides about echo requests. */
class FakeSwitch {
  server: Server;
  received: OfMessage[] = [];
  /** Every byte received, in order (to compare what the library wrote with the codec's output). */
  bytes: Buffer = Buffer.alloc(0);
  sockets: Socket[] = [];
  answerEcho = true;
  /** Refuse flow-mods into this table with OFPFMFC_BAD_TABLE_ID (before the barrier behind them). */
  refuseTable: number | undefined;
  /** Leave barrier requests unanswered. */
  answerBarrier = true;
  /** Accept and close at once, before any answer (a switch that is starting or going away). */
  slam = false;
  slammed = 0;
  constructor(readonly path: string) {
    this.server = createServer((s) => {
      if (this.slam) {
        this.slammed++;
        s.destroy();
        return;
      }
      this.sockets.push(s);
      let buf = Buffer.alloc(0);
      s.on('data', (d: Buffer) => {
        this.bytes = Buffer.concat([this.bytes, d]);
        buf = Buffer.concat([buf, d]);
        for (;;) {
          const len = peekLength(buf);
          if (len === undefined || buf.length < len) break;
          const m = decodeMessage(buf.subarray(0, len));
          buf = buf.subarray(len);
          this.received.push(m);
          this.reply(s, m);
        }
      });
    });
  }
  private reply(s: Socket, m: OfMessage & { xid: number }): void {
    const send = (r: OfMessage): void => void s.write(encodeMessage(r, m.xid));
    if (m.type === 'hello') send({ type: 'hello', versions: [1, 4, 6] });
    else if (m.type === 'featuresRequest') send({ type: 'featuresReply', datapathId: 0x1234n, nBuffers: 0, nTables: 254, auxiliaryId: 0, capabilities: 0 });
    else if (m.type === 'flowMod' && m.flow.table === this.refuseTable) {
      send({ type: 'error', errType: 5, errCode: 2, typeName: 'OFPET_FLOW_MOD_FAILED', codeName: 'OFPFMFC_BAD_TABLE_ID', data: encodeMessage(m, m.xid).subarray(0, 64) });
    } else if (m.type === 'barrierRequest' && this.answerBarrier) send({ type: 'barrierReply' });
    else if (m.type === 'echoRequest' && this.answerEcho) send({ type: 'echoReply', data: m.data });
    else if (m.type === 'bundleControl' && m.control === 'openRequest') send({ ...m, control: 'openReply' });
    else if (m.type === 'bundleControl' && m.control === 'commitRequest') send({ ...m, control: 'commitReply' });
  }
  listen(): Promise<void> {
    return new Promise((r) => this.server.listen(this.path, r));
  }
  close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    return new Promise((r) => this.server.close(() => r()));
  }
}

let dir: string;
let sw: FakeSwitch;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'of-conn-'));
  sw = new FakeSwitch(join(dir, 'br.mgmt'));
  await sw.listen();
});
afterEach(async () => {
  await sw.close();
  rmSync(dir, { recursive: true, force: true });
});

const until = async (cond: () => boolean): Promise<void> => {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setImmediate(r));
  expect(cond()).toBe(true);
};

it('negotiates OpenFlow 1.5, reads the datapath id and asks for NXT_PACKET_IN2 with a miss_send_len', async () => {
  const clock = new ManualClock(0);
  const c = await SwitchConnection.connect({ target: { path: sw.path }, clock, reconnect: false });
  expect(c.datapathId).toBe(0x1234n);
  expect(sw.received.map((m) => m.type)).toEqual(['hello', 'featuresRequest', 'setConfig', 'setPacketInFormat', 'barrierRequest']);
  await c.close();
});

it('connects over TCP as well as a unix socket', async () => {
  const tcp = new FakeSwitch('');
  await new Promise<void>((r) => tcp.server.listen(0, '127.0.0.1', r));
  const port = (tcp.server.address() as { port: number }).port;
  try {
    const c = await SwitchConnection.connect({ target: { host: '127.0.0.1', port }, clock: new ManualClock(0), reconnect: false });
    expect(c.targetName).toBe(`tcp:127.0.0.1:${port}`);
    expect(c.datapathId).toBe(0x1234n);
    await c.barrier();
    await c.close();
  } finally {
    await tcp.close();
  }
});

it('sends echo requests when idle and declares a silent switch dead', async () => {
  const clock = new ManualClock(0);
  const c = await SwitchConnection.connect({ target: { path: sw.path }, clock, echoInterval: 1000, deadAfter: 3000, reconnect: false });
  const events: string[] = [];
  c.on('dead', () => events.push('dead'));
  c.on('disconnected', () => events.push('disconnected'));
  sw.answerEcho = false;
  clock.advance(1000);
  await until(() => sw.received.some((m) => m.type === 'echoRequest'));
  clock.advance(1000);
  clock.advance(1000);
  await until(() => events.includes('disconnected'));
  expect(events).toEqual(['dead', 'disconnected']);
  await c.close();
});

it('stays up while the switch answers echo requests', async () => {
  const clock = new ManualClock(0);
  const c = await SwitchConnection.connect({ target: { path: sw.path }, clock, echoInterval: 1000, deadAfter: 3000, reconnect: false });
  const dead = jest.fn();
  c.on('dead', dead);
  for (let i = 0; i < 10; i++) {
    const n = sw.received.filter((m) => m.type === 'echoRequest').length;
    clock.advance(1000);
    await until(() => sw.received.filter((m) => m.type === 'echoRequest').length > n);
    await new Promise((r) => setTimeout(r, 5)); // let the echo reply arrive
  }
  expect(dead).not.toHaveBeenCalled();
  expect(c.connected).toBe(true);
  await c.close();
});

it('times out a request whose reply never comes, by xid', async () => {
  const clock = new ManualClock(0);
  const c = await SwitchConnection.connect({ target: { path: sw.path }, clock, reconnect: false });
  const p = c.request({ type: 'getConfigRequest' }, 500);
  await until(() => sw.received.some((m) => m.type === 'getConfigRequest'));
  clock.advance(500);
  await expect(p).rejects.toMatchObject({ code: 'OF_TIMEOUT' });
  await expect(p).rejects.toBeInstanceOf(OfConnectionError);
  await c.close();
});

it('times out each request after its own timeout, the shorter first, with one timer for all', async () => {
  const clock = new ManualClock(0);
  const c = await SwitchConnection.connect({ target: { path: sw.path }, clock, reconnect: false });
  const long = c.request({ type: 'getConfigRequest' }, 5000);
  const short = c.request({ type: 'getConfigRequest' }, 500);
  let longSettled = false;
  long.catch(() => undefined).finally(() => (longSettled = true));
  await until(() => sw.received.filter((m) => m.type === 'getConfigRequest').length === 2);
  clock.advance(500);
  await expect(short).rejects.toMatchObject({ code: 'OF_TIMEOUT' });
  await new Promise((r) => setImmediate(r));
  expect(longSettled).toBe(false);
  // Answered requests in between do not disturb the pending one's deadline.
  await c.barrier();
  clock.advance(4500);
  await expect(long).rejects.toMatchObject({ code: 'OF_TIMEOUT', message: expect.stringContaining('timed out after 5000 ms') });
  await c.close();
});

it('writes a single add and its barrier as the codec encodes them, in one write', async () => {
  const c = await SwitchConnection.connect({ target: { path: sw.path }, clock: new ManualClock(0), reconnect: false });
  const flow = { table: 20, priority: 100, match: { reg0: 7 }, actions: [{ type: 'output' as const, port: 1 }] };
  for (const [call, msg] of [
    [() => c.addFlow(flow), { type: 'flowMod', command: 'add', flow }],
    [() => c.deleteFlows({ table: 20 }), { type: 'flowMod', command: 'delete', flow: { table: 20, priority: 0, match: {}, actions: [] } }],
    [() => c.flowLike({ type: 'groupMod', command: 'add', groupType: 'all', groupId: 3, buckets: [] }), { type: 'groupMod', command: 'add', groupType: 'all', groupId: 3, buckets: [] }],
  ] as Array<[() => Promise<void>, OfMessage]>) {
    const mark = sw.bytes.length;
    const received = sw.received.length;
    await call();
    const [sent, barrier] = sw.received.slice(received) as Array<OfMessage & { xid: number }>;
    expect(barrier).toMatchObject({ type: 'barrierRequest', xid: sent!.xid + 1 });
    const expected = Buffer.concat([encodeMessage(msg, sent!.xid), encodeMessage({ type: 'barrierRequest' }, sent!.xid + 1)]);
    expect(sw.bytes.subarray(mark).toString('hex')).toBe(expected.toString('hex'));
  }
  await c.close();
});

it('a single add the switch refuses rejects with its error naming the flow; the adds around it succeed', async () => {
  const c = await SwitchConnection.connect({ target: { path: sw.path }, clock: new ManualClock(0), reconnect: false });
  sw.refuseTable = 9;
  const ok = { table: 1, priority: 1, match: { reg0: 1 }, actions: [] };
  const bad = { table: 9, priority: 5, match: { reg0: 2 }, actions: [] };
  // Sent back to back: each call is settled by its own barrier, the error lands on the refused add only.
  const [a, b, d] = await Promise.allSettled([c.addFlow(ok), c.addFlow(bad), c.addFlow(ok)]);
  expect(a.status).toBe('fulfilled');
  expect(d.status).toBe('fulfilled');
  expect(b).toMatchObject({ status: 'rejected', reason: { code: 'OF_SWITCH_ERROR', codeName: 'OFPFMFC_BAD_TABLE_ID', flow: bad, index: 0 } });
  expect((b as PromiseRejectedResult).reason).toBeInstanceOf(OfSwitchError);
  await expect(c.addFlow(ok)).resolves.toBeUndefined();
  await c.close();
});

it('a single add whose barrier is never answered times out on the injected clock, and a late error for it is not misattributed', async () => {
  const clock = new ManualClock(0);
  const c = await SwitchConnection.connect({ target: { path: sw.path }, clock, reconnect: false, requestTimeout: 800 });
  sw.answerBarrier = false;
  const flow = { table: 1, priority: 1, match: {}, actions: [] };
  const p = c.addFlow(flow);
  let settled = false;
  p.catch(() => undefined).finally(() => (settled = true));
  await until(() => sw.received.filter((m) => m.type === 'barrierRequest').length === 2);
  clock.advance(799);
  await new Promise((r) => setImmediate(r));
  expect(settled).toBe(false);
  clock.advance(1);
  await expect(p).rejects.toMatchObject({ code: 'OF_TIMEOUT', message: expect.stringContaining('barrierRequest') });
  // The timed-out add is forgotten: an error with its xid now reaches 'message' listeners.
  const unsolicited: string[] = [];
  c.on('message', (m) => unsolicited.push(m.type));
  const sent = sw.received.filter((m) => m.type === 'flowMod').at(-1) as OfMessage & { xid: number };
  sw.sockets[0]!.write(encodeMessage({ type: 'error', errType: 5, errCode: 2, typeName: 'OFPET_FLOW_MOD_FAILED', codeName: 'OFPFMFC_BAD_TABLE_ID', data: new Uint8Array(0) }, sent.xid));
  await until(() => unsolicited.length === 1);
  expect(unsolicited).toEqual(['error']);
  await c.close();
});

it('a single add in flight when the connection closes rejects with OF_CLOSED', async () => {
  const c = await SwitchConnection.connect({ target: { path: sw.path }, clock: new ManualClock(0), reconnect: false });
  sw.answerBarrier = false;
  const p = c.addFlow({ table: 1, priority: 1, match: {}, actions: [] });
  await until(() => sw.received.filter((m) => m.type === 'barrierRequest').length === 2);
  for (const s of sw.sockets) s.destroy();
  await expect(p).rejects.toMatchObject({ code: 'OF_CLOSED' });
  await c.close();
});

it('commits a bundle only after a barrier behind its adds is answered', async () => {
  const c = await SwitchConnection.connect({ target: { path: sw.path }, clock: new ManualClock(0), reconnect: false });
  const received = sw.received.length;
  await c.installFlows([
    { table: 1, priority: 1, match: {}, actions: [] },
    { table: 1, priority: 2, match: {}, actions: [] },
  ]);
  const seen = sw.received.slice(received).map((m) => (m.type === 'bundleControl' ? m.control : m.type));
  expect(seen).toEqual(['openRequest', 'bundleAdd', 'bundleAdd', 'barrierRequest', 'commitRequest']);
  await c.close();
});

it('reconnects after the switch drops the connection and runs the replay hook', async () => {
  const clock = new ManualClock(0);
  const replays: number[] = [];
  const c = await SwitchConnection.connect({ target: { path: sw.path }, clock, reconnect: { minDelay: 100, maxDelay: 100 }, onReconnect: () => void replays.push(clock.now()) });
  const back = new Promise<void>((r) => c.once('reconnected', () => r()));
  const lost = new Promise<void>((r) => c.once('disconnected', () => r()));
  for (const s of sw.sockets) s.destroy();
  await lost;
  expect(c.connected).toBe(false);
  clock.advance(100);
  await back;
  expect(replays.length).toBe(1);
  expect(c.connected).toBe(true);
  await c.close();
});

it('a switch that accepts and closes at once gets one reconnect attempt per backoff step, not a doubling of them', async () => {
  const clock = new ManualClock(0);
  const c = await SwitchConnection.connect({ target: { path: sw.path }, clock, reconnect: { minDelay: 100, maxDelay: 100 } });
  const lost = new Promise<void>((r) => c.once('disconnected', () => r()));
  sw.slam = true;
  for (const s of sw.sockets.splice(0)) s.destroy();
  await lost;
  const seen: number[] = [];
  for (let step = 1; step <= 4; step++) {
    clock.advance(100);
    await until(() => sw.slammed >= step);
    // Both ends of a refused attempt (the socket's close and the failed handshake) have run.
    await new Promise((r) => setTimeout(r, 20));
    seen.push(sw.slammed);
  }
  expect(seen).toEqual([1, 2, 3, 4]);
  // The switch is back: one attempt, one connection, the hook and the event once.
  sw.slam = false;
  const back = new Promise<void>((r) => c.once('reconnected', () => r()));
  clock.advance(100);
  await back;
  await new Promise((r) => setTimeout(r, 20));
  clock.advance(100);
  await new Promise((r) => setTimeout(r, 20));
  expect(sw.sockets.filter((s) => !s.destroyed)).toHaveLength(1);
  expect(c.connected).toBe(true);
  await c.close();
});

it('delivers packet-ins to the emitter and iterators, dropping the oldest when an iterator falls behind', async () => {
  const c = await SwitchConnection.connect({ target: { path: sw.path }, clock: new ManualClock(0), reconnect: false, packetInQueue: 2 });
  const seen: number[] = [];
  c.on('packetIn', (p) => seen.push(p.type === 'packetIn2' ? (p.userdata?.[0] ?? -1) : -1));
  const it = c.packetIns();
  for (let i = 1; i <= 3; i++) {
    sw.sockets[0]!.write(encodeMessage({ type: 'packetIn2', packet: new Uint8Array(14), reason: 'action', userdata: new Uint8Array([i]) }, 0));
  }
  await until(() => seen.length === 3);
  expect(seen).toEqual([1, 2, 3]);
  expect(c.droppedPacketIns).toBe(1);
  const got: number[] = [];
  for (let i = 0; i < 2; i++) {
    const r = await it.next();
    if (!r.done && r.value.type === 'packetIn2') got.push(r.value.userdata![0]!);
  }
  expect(got).toEqual([2, 3]);
  await it.return?.();
  await c.close();
});
