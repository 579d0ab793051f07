/** A connection to one switch (unix `<bridge>.mgmt` or TCP): handshake, keepalive, xid correlation, bundles, reconnect. */
import { EventEmitter } from 'node:events';
import { createConnection, type Socket } from 'node:net';
import { Backoff, silentLogger, systemClock, type Clock, type Logger, type TimerHandle } from '@switchyard/runtime';
import { Writer } from './buf';
import { OfDecodeError, OpenFlowError } from './errors';
import type { Action, Flow } from './flow';
import { OFPP } from './flow';
import {
  bundleFlags,
  decodeMessage,
  encodeMessage,
  OFP_VERSION,
  peekLength,
  writeBundleAdd,
  writeBundleAddFlowMod,
  writeMessage,
  type BundleFlags,
  type ControllerRole,
  type FlowFilter,
  type FlowModCommand,
  type MultipartReply,
  type MultipartRequest,
  type OfMessage,
  type PortDesc,
  type PortStats,
  type TableStats,
} from './messages';

/** The switch answered a request with an OpenFlow error. */
export class OfSwitchError extends OpenFlowError {
  constructor(
    readonly typeName: string,
    readonly codeName: string,
    /** The request that failed (for bundles: the inner message). */
    readonly request: OfMessage | undefined,
    /** For flow-mods: the flow the switch rejected, and its index in the batch/bundle. */
    readonly flow?: Flow,
    readonly index?: number,
    readonly causes: OfSwitchError[] = [],
  ) {
    super(
      'OF_SWITCH_ERROR',
      `switch rejected ${request?.type ?? 'request'}${index !== undefined ? ` #${index}` : ''}: ${typeName}/${codeName}${flow ? ` (flow table=${flow.table} priority=${flow.priority})` : ''}${causes.length ? `; ${causes.map((c) => c.message).join('; ')}` : ''}`,
    );
  }
}

/** Transport-level failures: not connected, closed, timed out, version mismatch. */
export class OfConnectionError extends OpenFlowError {
  constructor(
    code: 'OF_NOT_CONNECTED' | 'OF_CLOSED' | 'OF_TIMEOUT' | 'OF_VERSION' | 'OF_DEAD',
    message: string,
    readonly target: string,
  ) {
    super(code, `${target}: ${message}`);
  }
}

/** Where to connect: a unix socket path, or a TCP host and port. */
export type Target = { path: string } | { host: string; port: number };

export interface ConnectionOptions {
  target: Target;
  logger?: Logger;
  clock?: Clock;
  /** Send an echo request after this long without traffic (ms). Default 5000. */
  echoInterval?: number;
  /** Declare the switch dead after this long without any traffic (ms). Default 3 x echoInterval. */
  deadAfter?: number;
  /** Default timeout of requests expecting a reply (ms). Default 30000. */
  requestTimeout?: number;
  /** Reconnect after a lost connection. Default true, with backoff 100 ms .. 5 s. */
  reconnect?: boolean | { minDelay?: number; maxDelay?: number };
  /** Called after each successful reconnect, before `reconnected` is emitted: replay flows here. */
  onReconnect?: (conn: SwitchConnection) => Promise<void> | void;
  /** Packet-in format to request (default nxt2: carries controller() userdata and continuations). */
  packetInFormat?: 'standard' | 'nxt2';
  controllerId?: number;
  /** Packet-ins buffered for `packetIns()` iterators before the oldest are dropped. Default 4096. */
  packetInQueue?: number;
  /** Bytes buffered in the socket before senders wait for 'drain'. Default 1 MiB. */
  highWaterMark?: number;
}

/** A packet-in, from either OFPT_PACKET_IN or NXT_PACKET_IN2. */
export type PacketIn = Extract<OfMessage, { type: 'packetIn' | 'packetIn2' }>;

interface Pending {
  resolve(m: OfMessage & { xid: number }): void;
  reject(e: Error): void;
  /** When the request times out (clock ms), and the timeout it was given. */
  deadline: number;
  timeoutMs: number;
  request: OfMessage;
  /** Multipart replies accumulate here until the last one. */
  parts?: MultipartReply[];
  /**
   * For the barrier behind one checked message ({@link SwitchConnection.sendChecked}): that
   * message, sent with the xid just before the barrier's. An error for it is collected here, and
   * the barrier's reply settles the caller with it.
   */
  checks: Checked | undefined;
}
interface Checked extends Batch {
  request: OfMessage;
}

/** Something sent without a reply of its own, kept until the next barrier so errors can name it. */
interface Tracked {
  request: OfMessage;
  index: number;
  batch: Batch;
}
interface Batch {
  errors: OfSwitchError[];
}
/**
 * The adds of one bundle whose xids ran consecutively: `items[i]` went out with xid `first + i`.
 * One array per run instead of one map entry per message: in a CPU profile of the bench's 100k-flow
 * install, the per-message map entries were the largest item of the library's own code.
 */
interface XidRun {
  first: number;
  /** Index of items[0] in the bundle. */
  offset: number;
  /** What was added (messages, or flows of an installFlows), made a message only for an error. */
  items: unknown[];
  toMessage: (item: unknown) => OfMessage;
  batch: Batch;
}

export interface SwitchConnectionEvents {
  packetIn: [PacketIn];
  message: [OfMessage & { xid: number }];
  disconnected: [Error];
  reconnected: [];
  dead: [];
  error: [Error];
}

/**
 * What a flow installer needs of a switch: atomic bundles, plain flow-mods and a flow dump.
 * {@link SwitchConnection} is one; a test passes a recording one.
 */
export interface FlowTransport {
  /** Sends the messages in one bundle (atomic and ordered by default); see {@link SwitchConnection.bundle}. */
  bundle(messages: Iterable<OfMessage> | AsyncIterable<OfMessage>, flags?: BundleFlags): Promise<void>;
  /** Sends flow-mods outside a bundle, then a barrier. */
  flowMods(mods: Iterable<{ command: FlowModCommand; flow: Flow }>): Promise<void>;
  /** The flows in the switch matching `filter` (all by default). */
  dumpFlows(filter?: FlowFilter): Promise<Flow[]>;
}

/**
 * What a packet-in handler needs of a switch: the packet-in events, resuming a paused pipeline
 * and sending a packet. {@link SwitchConnection} is one; a test passes a scripted one.
 */
export interface PacketInChannel {
  on(event: 'packetIn', listener: (p: PacketIn) => void): unknown;
  off(event: 'packetIn', listener: (p: PacketIn) => void): unknown;
  /** Resumes the pipeline of a paused packet (NXT_RESUME from a packet-in2 continuation). */
  resume(p: Extract<OfMessage, { type: 'packetIn2' }>): Promise<void>;
  /** Sends `data` through `actions` as if it had arrived on `inPort`. */
  packetOut(data: Uint8Array, actions: Action[], inPort?: number): Promise<void>;
}

/**
 * A connection to a switch. Create with {@link SwitchConnection.connect}.
 *
 * Events: `packetIn`, `message` (unsolicited messages), `disconnected`, `dead` (no traffic within
 * `deadAfter`), `reconnected` (after `onReconnect` ran), `error` (only if a listener exists).
 */
export class SwitchConnection extends EventEmitter<SwitchConnectionEvents> implements FlowTransport, PacketInChannel {
  private socket: Socket | undefined;
  private readonly log: Logger;
  private readonly clock: Clock;
  private nextXid = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly tracked = new Map<number, Tracked>();
  /** Bundle adds awaiting their commit (see {@link XidRun}). */
  private readonly trackedRuns = new Set<XidRun>();
  private rx: Buffer = Buffer.alloc(0);
  private lastRx = 0;
  private keepaliveTimer: TimerHandle | undefined;
  private closed = false;
  private readonly reconnectBackoff: Backoff;
  private nextBundleId = 1;
  private readonly packetQueue: PacketIn[] = [];
  /** Packet-ins dropped because iterators did not keep up. */
  droppedPacketIns = 0;
  private readonly packetWaiters: Array<(p: IteratorResult<PacketIn>) => void> = [];
  /** datapath id from the features reply. */
  datapathId = 0n;
  readonly targetName: string;

  private constructor(readonly options: ConnectionOptions) {
    super();
    this.log = options.logger ?? silentLogger;
    this.clock = options.clock ?? systemClock;
    const r = this.reconnectOpts();
    // Doubling from minDelay to maxDelay, no jitter (one controller per switch: nothing to spread).
    this.reconnectBackoff = new Backoff({ initialMs: r.minDelay, maxMs: r.maxDelay });
    this.targetName = 'path' in options.target ? `unix:${options.target.path}` : `tcp:${options.target.host}:${options.target.port}`;
  }

  /** Connect, negotiate OpenFlow 1.5, read features and set the packet-in format. */
  static async connect(options: ConnectionOptions): Promise<SwitchConnection> {
    const c = new SwitchConnection(options);
    await c.open();
    return c;
  }

  private reconnectOpts(): { enabled: boolean; minDelay: number; maxDelay: number } {
    const r = this.options.reconnect ?? true;
    if (r === false) return { enabled: false, minDelay: 100, maxDelay: 5000 };
    const o = r === true ? {} : r;
    return { enabled: true, minDelay: o.minDelay ?? 100, maxDelay: o.maxDelay ?? 5000 };
  }

  /** True while a socket is up and the handshake completed. */
  get connected(): boolean {
    return this.socket !== undefined && !this.socket.destroyed;
  }

  private async open(): Promise<void> {
    const socket = await new Promise<Socket>((resolve, reject) => {
      const t = this.options.target;
      const s = 'path' in t ? createConnection({ path: t.path }) : createConnection({ host: t.host, port: t.port });
      s.once('connect', () => {
        s.off('error', reject);
        resolve(s);
      });
      s.once('error', reject);
    });
    socket.setNoDelay?.(true);
    this.socket = socket;
    this.rx = Buffer.alloc(0);
    this.lastRx = this.clock.now();
    const hello = new Promise<OfMessage>((resolve, reject) => {
      this.helloWaiter = { resolve, reject };
    });
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('close', () => this.onClose(socket));
    socket.on('error', (e) => this.log.debug({ err: e, target: this.targetName }, 'openflow socket error'));
    socket.write(encodeMessage({ type: 'hello', versions: [OFP_VERSION] }, this.xid()));
    const peer = await this.withTimeout(hello, this.options.requestTimeout ?? 30000, 'hello');
    if (peer.type !== 'hello' || !peer.versions.includes(OFP_VERSION)) {
      socket.destroy();
      throw new OfConnectionError('OF_VERSION', `switch does not speak OpenFlow 1.5 (offers ${peer.type === 'hello' ? peer.versions.join(',') : peer.type})`, this.targetName);
    }
    const features = await this.request({ type: 'featuresRequest' });
    if (features.type === 'featuresReply') this.datapathId = features.datapathId;
    // Service connections (the bridge's mgmt socket) get packet-ins only with a nonzero miss_send_len.
    this.send({ type: 'setConfig', flags: 0, missSendLen: 0xffff });
    if (this.options.controllerId !== undefined) this.send({ type: 'setControllerId', id: this.options.controllerId });
    if ((this.options.packetInFormat ?? 'nxt2') === 'nxt2') this.send({ type: 'setPacketInFormat', format: 'nxt2' });
    await this.barrier();
    this.scheduleKeepalive();
    this.log.info({ target: this.targetName, datapathId: this.datapathId.toString(16) }, 'openflow connected');
  }

  private helloWaiter: { resolve(m: OfMessage): void; reject(e: Error): void } | undefined;

  private withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const t = this.clock.setTimeout(() => reject(new OfConnectionError('OF_TIMEOUT', `${what} timed out after ${ms} ms`, this.targetName)), ms);
      p.then(
        (v) => {
          t.cancel();
          resolve(v);
        },
        (e: unknown) => {
          t.cancel();
          reject(e as Error);
        },
      );
    });
  }

  private xid(): number {
    const x = this.nextXid;
    this.nextXid = nextXid(x);
    return x;
  }

  // ------------------------------------------------------------ receive

  private onData(chunk: Buffer): void {
    this.lastRx = this.clock.now();
    const rx = this.rx.length === 0 ? chunk : Buffer.concat([this.rx, chunk]);
    this.rx = rx;
    let off = 0;
    while (true) {
      const len = peekLength(rx, off);
      if (len === undefined || rx.length - off < len) break;
      if (len < 8) {
        this.log.error({ target: this.targetName }, 'openflow framing error, closing');
        this.socket?.destroy();
        return;
      }
      // A chunk of one message (a single add's barrier reply) is decoded as it is, without a view.
      const bytes = off === 0 && len === rx.length ? rx : rx.subarray(off, off + len);
      off += len;
      try {
        this.dispatch(decodeMessage(bytes));
      } catch (e) {
        if (!(e instanceof OfDecodeError)) throw e;
        this.log.warn({ err: e, target: this.targetName }, 'undecodable message from switch');
        // A request waiting for this reply fails with the decode error instead of timing out.
        const xid = bytes.readUInt32BE(4);
        const p = this.pending.get(xid);
        if (p) {
          this.pending.delete(xid);
          p.reject(e);
        }
      }
    }
    this.rx = off === rx.length ? EMPTY : rx.subarray(off);
  }

  private dispatch(m: OfMessage & { xid: number }): void {
    if (m.type === 'hello' && this.helloWaiter) {
      this.helloWaiter.resolve(m);
      this.helloWaiter = undefined;
      return;
    }
    if (m.type === 'echoRequest') {
      this.send({ type: 'echoReply', data: m.data }, m.xid);
      return;
    }
    if (m.type === 'packetIn' || m.type === 'packetIn2') {
      this.emit('packetIn', m);
      const w = this.packetWaiters.shift();
      if (w) w({ value: m, done: false });
      else if (this.packetIterators > 0) {
        // A slow consumer must not grow memory without bound: drop the oldest and say so.
        if (this.packetQueue.length >= (this.options.packetInQueue ?? 4096)) {
          this.packetQueue.shift();
          this.droppedPacketIns++;
          this.log.warn({ target: this.targetName, dropped: this.droppedPacketIns }, 'packet-in queue full, dropping the oldest');
        }
        this.packetQueue.push(m);
      }
      return;
    }
    if (m.type === 'error') {
      const checked = this.pending.get(nextXid(m.xid))?.checks;
      if (checked) {
        checked.errors.push(new OfSwitchError(m.typeName, m.codeName, checked.request, checked.request.type === 'flowMod' ? checked.request.flow : undefined, 0));
        return;
      }
      const t = this.tracked.get(m.xid) ?? this.takeFromRuns(m.xid);
      if (t) {
        // For bundle adds `request` is the inner message: that is what the caller passed.
        const flow = t.request.type === 'flowMod' ? t.request.flow : undefined;
        t.batch.errors.push(new OfSwitchError(m.typeName, m.codeName, t.request, flow, t.index));
        this.tracked.delete(m.xid);
        return;
      }
      if (m.type === 'error' && this.helloWaiter) {
        this.helloWaiter.reject(new OfConnectionError('OF_VERSION', `switch refused hello: ${m.codeName}`, this.targetName));
        this.helloWaiter = undefined;
        return;
      }
    }
    const p = this.pending.get(m.xid);
    if (!p) {
      this.emit('message', m);
      return;
    }
    if (m.type === 'error') {
      this.pending.delete(m.xid);
      p.reject(new OfSwitchError(m.typeName, m.codeName, p.request));
      return;
    }
    if (m.type === 'multipartReply' && m.more) {
      (p.parts ??= []).push(m.reply);
      return;
    }
    this.pending.delete(m.xid);
    if (p.checks) {
      // The checked message's error, if any, arrived before this reply (the switch answers in order).
      const e = batchError(p.checks);
      if (e) p.reject(e);
      else p.resolve(m);
    } else if (m.type === 'multipartReply' && p.parts) {
      p.parts.push(m.reply);
      p.resolve({ ...m, reply: mergeParts(p.parts) });
    } else p.resolve(m);
  }

  /** The bundle add sent with `xid`, if a bundle in flight sent one. */
  private takeFromRuns(xid: number): Tracked | undefined {
    for (const run of this.trackedRuns) {
      const i = xid - run.first;
      if (i >= 0 && i < run.items.length) return { request: run.toMessage(run.items[i]), index: run.offset + i, batch: run.batch };
    }
    return undefined;
  }

  private onClose(socket: Socket): void {
    if (this.socket !== socket) return;
    this.socket = undefined;
    this.keepaliveTimer?.cancel();
    const err = new OfConnectionError('OF_CLOSED', 'connection closed', this.targetName);
    this.requestTimer?.cancel();
    this.requestTimer = undefined;
    this.requestTimerAt = Infinity;
    for (const [, p] of this.pending) p.reject(err);
    this.pending.clear();
    this.tracked.clear();
    this.trackedRuns.clear();
    this.helloWaiter?.reject(err);
    this.helloWaiter = undefined;
    for (const d of this.drainWaiters.splice(0)) d();
    if (this.closed) return;
    this.log.warn({ target: this.targetName }, 'openflow connection lost');
    this.emit('disconnected', err);
    if (this.reconnectOpts().enabled) this.scheduleReconnect();
  }

  /**
   * True from a scheduled reconnect until its attempt settled: a refused attempt is reported
   * twice (its socket's close, and the failed handshake), and must still make one retry, not two.
   */
  private reconnecting = false;

  private scheduleReconnect(): void {
    if (this.reconnecting) return;
    this.reconnecting = true;
    const delay = this.reconnectBackoff.next();
    this.clock.setTimeout(() => {
      if (this.closed) {
        this.reconnecting = false;
        return;
      }
      this.open().then(
        async () => {
          this.reconnecting = false;
          this.reconnectBackoff.reset();
          try {
            await this.options.onReconnect?.(this);
          } catch (e) {
            this.log.error({ err: e, target: this.targetName }, 'onReconnect hook failed');
            if (this.listenerCount('error') > 0) this.emit('error', e as Error);
          }
          this.emit('reconnected');
        },
        (e: unknown) => {
          this.log.debug({ err: e, target: this.targetName }, 'openflow reconnect failed');
          this.socket?.destroy();
          this.socket = undefined;
          this.reconnecting = false;
          this.scheduleReconnect();
        },
      );
    }, delay);
  }

  private scheduleKeepalive(): void {
    const interval = this.options.echoInterval ?? 5000;
    const deadAfter = this.options.deadAfter ?? interval * 3;
    this.keepaliveTimer?.cancel();
    this.keepaliveTimer = this.clock.setTimeout(() => {
      if (!this.socket) return;
      const idle = this.clock.now() - this.lastRx;
      if (idle >= deadAfter) {
        this.log.warn({ target: this.targetName, idleMs: idle }, 'switch is not answering echo requests: closing');
        this.emit('dead');
        this.socket.destroy();
        return;
      }
      if (idle >= interval) this.send({ type: 'echoRequest', data: new Uint8Array(0) });
      this.scheduleKeepalive();
    }, interval);
  }

  // ------------------------------------------------------------ send

  private drainWaiters: Array<() => void> = [];
  /**
   * Encodes single requests (with their barrier) for one socket write each; always empty between
   * calls, since a request is encoded and sent without an await in between.
   */
  private readonly scratch = new Writer(512);

  /**
   * Write raw bytes; resolves after 'drain' when the socket buffer is over the high-water mark, else
   * after one turn of the event loop when bytes are still queued. Callers that encode between writes
   * (bundles, flow-mod batches) would otherwise keep the loop busy until the high-water mark, and
   * the kernel buffer (~200 KB on a unix socket, ~2,000 flow-mods) would run dry while the switch
   * waits: in the bench's 100k-flow install, ovs-vswitchd then sat idle between chunks.
   */
  private async write(bytes: Uint8Array): Promise<void> {
    const s = this.socket;
    if (!s) throw new OfConnectionError('OF_NOT_CONNECTED', 'not connected', this.targetName);
    s.write(bytes);
    if (s.writableLength > (this.options.highWaterMark ?? 1 << 20)) {
      await new Promise<void>((resolve) => {
        this.drainWaiters.push(resolve);
        s.once('drain', () => {
          for (const d of this.drainWaiters.splice(0)) d();
        });
      });
    } else if (s.writableLength > 0) {
      // The poll phase runs before setImmediate callbacks: libuv refills the kernel buffer first.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  /** Send a message that expects no reply. Returns the xid used. */
  send(msg: OfMessage, xid = this.xid()): number {
    if (!this.socket) throw new OfConnectionError('OF_NOT_CONNECTED', 'not connected', this.targetName);
    this.writeScratch(msg, xid);
    this.sendScratch();
    return xid;
  }

  /** Send a request and wait for the reply with the same xid (multipart replies are merged). */
  request(msg: OfMessage, timeoutMs = this.options.requestTimeout ?? 30000): Promise<OfMessage & { xid: number }> {
    const reply = this.expectReply(this.scratch, msg, timeoutMs);
    this.sendScratch();
    return reply;
  }

  /**
   * Registers a request and appends it to `w` without sending it: the caller writes `w` to the
   * socket, so a request travels in the same write as the messages before it (a flow-mod and its
   * barrier, a bundle's open and its adds) and the switch wakes once for all of them.
   */
  private expectReply(w: Writer, msg: OfMessage, timeoutMs = this.options.requestTimeout ?? 30000): Promise<OfMessage & { xid: number }> {
    if (!this.socket) return Promise.reject(new OfConnectionError('OF_NOT_CONNECTED', 'not connected', this.targetName));
    return new Promise((resolve, reject) => this.register(w, msg, timeoutMs, resolve, reject, undefined));
  }

  /** Takes an xid for `msg`, appends it to `w` and waits for its reply in {@link pending}. */
  private register(w: Writer, msg: OfMessage, timeoutMs: number, resolve: Pending['resolve'], reject: Pending['reject'], checks: Checked | undefined): void {
    const xid = this.xid();
    const deadline = this.clock.now() + timeoutMs;
    this.pending.set(xid, { resolve, reject, deadline, timeoutMs, request: msg, checks });
    this.armRequestTimer(deadline);
    writeMessage(w, msg, xid);
  }

  /**
   * One timer serves every pending request's timeout, armed for the earliest deadline: a timer per
   * request (set, then cancelled by its reply) was part of the single add's per-call cost, and with
   * the same timeout for all requests a new one almost never moves the earliest deadline.
   */
  private requestTimer: TimerHandle | undefined;
  private requestTimerAt = Infinity;

  private armRequestTimer(deadline: number): void {
    if (deadline >= this.requestTimerAt) return;
    this.requestTimer?.cancel();
    this.requestTimerAt = deadline;
    this.requestTimer = this.clock.setTimeout(() => this.expireRequests(), Math.max(0, deadline - this.clock.now()));
  }

  /** Rejects the requests whose deadline passed, and re-arms for the earliest one left. */
  private expireRequests(): void {
    this.requestTimer = undefined;
    this.requestTimerAt = Infinity;
    const now = this.clock.now();
    let next = Infinity;
    for (const [xid, p] of this.pending) {
      if (p.deadline <= now) {
        this.pending.delete(xid);
        p.reject(new OfConnectionError('OF_TIMEOUT', `${p.request.type} (xid ${xid}) timed out after ${p.timeoutMs} ms`, this.targetName));
      } else if (p.deadline < next) next = p.deadline;
    }
    if (next < Infinity) this.armRequestTimer(next);
  }

  /**
   * Writes what {@link scratch} holds as one socket write. The bytes are copied out into a small
   * Buffer (from Node's pool) so the scratch writer keeps its buffer: a single add + barrier
   * otherwise allocated two fresh ArrayBuffers per call (the writer's and take()'s replacement).
   */
  private sendScratch(): void {
    const w = this.scratch;
    const out = Buffer.allocUnsafe(w.length);
    out.set(w.written());
    w.reset();
    this.socket?.write(out);
  }

  /** Barrier: resolves when the switch has processed everything sent before it. */
  async barrier(): Promise<void> {
    await this.request(BARRIER);
  }

  /** A barrier sent in one write after the messages in `w` (the writer is emptied). */
  private barrierAfter(w: Writer): Promise<OfMessage & { xid: number }> {
    const reply = this.expectReply(w, BARRIER);
    if (w.length > 0) this.socket?.write(w.take());
    return reply;
  }

  /** Appends `msg` to the scratch writer; on an encoding error the writer is left empty. */
  private writeScratch(msg: OfMessage, xid: number): void {
    try {
      writeMessage(this.scratch, msg, xid);
    } catch (e) {
      this.scratch.reset();
      throw e;
    }
  }

  /** Echo round trip (ms). */
  async echo(): Promise<number> {
    const t0 = this.clock.now();
    await this.request({ type: 'echoRequest', data: new Uint8Array(0) });
    return this.clock.now() - t0;
  }

  /**
   * Send flow-mods and wait for a barrier. Rejects with an {@link OfSwitchError} naming the first
   * rejected flow (all rejections in `causes`). Messages are streamed with backpressure.
   */
  async flowMods(mods: Iterable<{ command: FlowModCommand; flow: Flow }>): Promise<void> {
    const batch: Batch = { errors: [] };
    const w = new Writer(256);
    let index = 0;
    const xids: number[] = [];
    try {
      for (const { command, flow } of mods) {
        const xid = this.xid();
        const msg: OfMessage = { type: 'flowMod', command, flow };
        this.tracked.set(xid, { request: msg, index, batch });
        xids.push(xid);
        writeMessage(w, msg, xid);
        index++;
        if (w.length >= CHUNK) await this.write(w.take());
      }
      await this.barrierAfter(w);
    } finally {
      for (const x of xids) this.tracked.delete(x);
    }
    throwBatch(batch);
  }

  /** Add one flow and wait for the barrier. */
  addFlow(flow: Flow): Promise<void> {
    return this.sendChecked({ type: 'flowMod', command: 'add', flow });
  }

  /** Delete flows matching `filter` (non-strict: table 255 = all tables). */
  async deleteFlows(filter: FlowFilter = {}): Promise<void> {
    const flow: Flow = { table: filter.table ?? 0xff, priority: 0, match: filter.match ?? {}, actions: [] };
    if (filter.cookie !== undefined) flow.cookie = filter.cookie;
    if (filter.cookieMask !== undefined) flow.cookieMask = filter.cookieMask;
    await this.sendChecked({ type: 'flowMod', command: 'delete', flow });
  }

  /**
   * Install messages in one bundle (atomic and ordered by default): open, add all, commit. The
   * messages are streamed with backpressure, so the iterable may be lazy and huge. On any error the
   * bundle is discarded (or the failed commit already dropped it) and the switch is unchanged; the
   * thrown {@link OfSwitchError} names the offending flow and its index.
   */
  bundle(
    messages: Iterable<OfMessage> | AsyncIterable<OfMessage>,
    flags: BundleFlags = { atomic: true, ordered: true },
  ): Promise<void> {
    const bits = bundleFlags(flags);
    return this.bundleOf(messages, flags, asMessage, (w, message, bundleId, xid) => writeBundleAdd(w, bundleId, flags, bits, message, xid));
  }

  /** Install flows in one atomic bundle (see {@link bundle}). */
  installFlows(flows: Iterable<Flow>, command: FlowModCommand = 'add'): Promise<void> {
    const flags: BundleFlags = { atomic: true, ordered: true };
    const bits = bundleFlags(flags);
    // Each flow is written as it is, and becomes a flow-mod message only if the switch rejects it.
    return this.bundleOf(
      flows,
      flags,
      (flow) => ({ type: 'flowMod', command, flow }),
      (w, flow, bundleId, xid) => writeBundleAddFlowMod(w, bundleId, bits, command, flow, xid),
    );
  }

  /**
   * One bundle of `items`, each written by `writeAdd` as one bundle-add; `toMessage` gives the
   * message an error names. The open request goes out in the same write as the first adds (the
   * switch handles a connection's messages in order), and a barrier in the same write as the last
   * ones; the commit is sent only after the barrier's reply, when the open's reply and the error of
   * any refused add have arrived. OVS keeps a bundle open when one of its adds fails and commits
   * the others: a commit sent before those errors were read (right behind the adds, or after only
   * the open's reply, as this did before) applied a bundle without the flow the switch refused.
   */
  private async bundleOf<T>(
    items: Iterable<T> | AsyncIterable<T>,
    flags: BundleFlags,
    toMessage: (item: T) => OfMessage,
    writeAdd: (w: Writer, item: T, bundleId: number, xid: number) => void,
  ): Promise<void> {
    const bundleId = this.nextBundleId++;
    const w = new Writer(CHUNK + 4096);
    const open = this.expectReply(w, { type: 'bundleControl', bundleId, control: 'openRequest', flags }).then(
      (reply) => (reply.type === 'bundleControl' && reply.control === 'openReply' ? undefined : new OfConnectionError('OF_CLOSED', 'unexpected reply to bundle open', this.targetName)),
      (e: unknown) => e as Error,
    );
    const batch: Batch = { errors: [] };
    const runs: XidRun[] = [];
    let run: XidRun | undefined;
    let index = 0;
    /** Appends one bundle-add; true when the buffer should be flushed. */
    const add = (item: T): boolean => {
      const xid = this.xid();
      // Another request may take xids while this bundle waits for 'drain', and xids wrap: a new run then.
      if (run === undefined || xid !== run.first + run.items.length) {
        run = { first: xid, offset: index, items: [], toMessage: toMessage as (item: unknown) => OfMessage, batch };
        runs.push(run);
        this.trackedRuns.add(run);
      }
      run.items.push(item);
      writeAdd(w, item, bundleId, xid);
      index++;
      return w.length >= CHUNK;
    };
    // Written in CHUNK-sized pieces; write() waits for 'drain' above the high-water mark, so a lazy
    // iterable of any size is encoded only as fast as the switch reads.
    const flush = async (): Promise<void> => {
      await this.write(w.take());
    };
    try {
      // A sync iterable is walked without an await per element (100k microtasks add up).
      if (Array.isArray(items)) {
        // An array (a delta's messages) by index: for-of allocates an iterator result per element
        // until V8 optimizes the loop, and a first realization is thousands of them.
        const list = items as readonly T[];
        for (let i = 0; i < list.length; i++) if (add(list[i]!)) await flush();
      } else if (Symbol.iterator in items) {
        for (const item of items) if (add(item)) await flush();
      } else {
        for await (const item of items) if (add(item)) await flush();
      }
      await this.barrierAfter(w);
      const openFailed = await open;
      if (openFailed) throw openFailed;
      if (batch.errors.length === 0) {
        try {
          await this.request({ type: 'bundleControl', bundleId, control: 'commitRequest', flags });
        } catch (e) {
          // The per-message error (naming the flow) precedes the commit failure: wait for it.
          await this.barrier().catch(() => undefined);
          if (batch.errors.length === 0) throw e;
        }
      } else {
        await this.request({ type: 'bundleControl', bundleId, control: 'discardRequest', flags }).catch(() => undefined);
      }
    } catch (e) {
      const openFailed = await open;
      if (openFailed !== undefined || (batch.errors.length === 0 && this.socket)) {
        if (this.socket) await this.request({ type: 'bundleControl', bundleId, control: 'discardRequest', flags }).catch(() => undefined);
      }
      // A failed open explains the errors of every add after it: it is the error to report.
      if (openFailed !== undefined) throw openFailed;
      if (batch.errors.length === 0) throw e;
    } finally {
      for (const r of runs) this.trackedRuns.delete(r);
    }
    throwBatch(batch);
  }

  /** Multipart request helper. */
  async multipart(request: MultipartRequest): Promise<MultipartReply> {
    const r = await this.request({ type: 'multipartRequest', request });
    if (r.type !== 'multipartReply') throw new OfConnectionError('OF_CLOSED', `unexpected ${r.type} to multipart`, this.targetName);
    return r.reply;
  }

  /** Dump flows (with stats) via multipart flow-desc. */
  async dumpFlows(filter: FlowFilter = {}): Promise<Flow[]> {
    const r = await this.multipart({ kind: 'flow', ...filter });
    return r.kind === 'flow' ? r.flows : [];
  }
  async aggregate(filter: FlowFilter = {}): Promise<{ packets: bigint; bytes: bigint; flows: number }> {
    const r = await this.multipart({ kind: 'aggregate', ...filter });
    return r.kind === 'aggregate' ? { packets: r.packets, bytes: r.bytes, flows: r.flows } : { packets: 0n, bytes: 0n, flows: 0 };
  }
  async tableStats(): Promise<TableStats[]> {
    const r = await this.multipart({ kind: 'tableStats' });
    return r.kind === 'tableStats' ? r.tables : [];
  }
  async portStats(port?: number): Promise<PortStats[]> {
    const r = await this.multipart(port === undefined ? { kind: 'portStats' } : { kind: 'portStats', port });
    return r.kind === 'portStats' ? r.ports : [];
  }
  async portDesc(): Promise<PortDesc[]> {
    const r = await this.multipart({ kind: 'portDesc' });
    return r.kind === 'portDesc' ? r.ports : [];
  }

  /** Send a packet into the switch as if it arrived on `inPort` (default CONTROLLER). */
  async packetOut(data: Uint8Array, actions: Action[], inPort: number = OFPP.CONTROLLER): Promise<void> {
    await this.sendChecked({ type: 'packetOut', inPort, actions, data });
  }

  /** Resume a paused pipeline from an NXT_PACKET_IN2 that carried a continuation. */
  async resume(p: Extract<OfMessage, { type: 'packetIn2' }>): Promise<void> {
    if (!p.continuation) throw new OpenFlowError('OF_NO_CONTINUATION', 'packet-in has no continuation');
    const msg: OfMessage = { type: 'resume', packet: p.packet, continuation: p.continuation };
    if (p.metadata) msg.metadata = p.metadata;
    await this.sendChecked(msg);
  }

  /** Send any message without a reply of its own (group/meter mods...), then a barrier; rejects on error. */
  flowLike(msg: OfMessage): Promise<void> {
    return this.sendChecked(msg);
  }

  /**
   * Sends one message whose errors should reject, and a barrier after it in the same write; settles
   * when the barrier's reply arrives (an error for the message comes before it). Not an async
   * function, and no writer of its own: this is the single-add path, where each await, promise
   * and buffer showed up in the per-call cost against a raw socket. The barrier's pending entry
   * settles the caller's promise itself (no `then` behind it: one promise and one microtask less).
   */
  private sendChecked(msg: OfMessage): Promise<void> {
    if (!this.socket) return Promise.reject(new OfConnectionError('OF_NOT_CONNECTED', 'not connected', this.targetName));
    try {
      this.writeScratch(msg, this.xid());
    } catch (e) {
      return Promise.reject(e as Error);
    }
    // The barrier takes the next xid: an error for the message is found through the barrier's
    // entry (nextXid), with no map entry of its own to add and delete per call.
    return new Promise<void>((resolve, reject) => {
      this.register(this.scratch, BARRIER, this.options.requestTimeout ?? 30000, () => resolve(), reject, { request: msg, errors: [] });
      this.sendScratch();
    });
  }

  /** Role request (equal/master/slave). */
  async setRole(role: ControllerRole, generationId = 0n): Promise<ControllerRole> {
    const r = await this.request({ type: 'roleRequest', role, generationId });
    return r.type === 'roleReply' ? r.role : role;
  }

  private packetIterators = 0;

  /** Packet-ins as an async iterator (buffered while at least one iterator is open). */
  packetIns(): AsyncIterableIterator<PacketIn> {
    this.packetIterators++;
    let done = false;
    const it: AsyncIterableIterator<PacketIn> = {
      next: () => {
        if (done) return Promise.resolve({ value: undefined, done: true });
        const q = this.packetQueue.shift();
        if (q) return Promise.resolve({ value: q, done: false });
        return new Promise((resolve) => this.packetWaiters.push(resolve));
      },
      return: () => {
        if (!done) {
          done = true;
          this.packetIterators--;
        }
        return Promise.resolve({ value: undefined, done: true });
      },
      [Symbol.asyncIterator]: () => it,
    };
    return it;
  }

  /** Close for good (no reconnect). */
  async close(): Promise<void> {
    this.closed = true;
    this.keepaliveTimer?.cancel();
    for (const w of this.packetWaiters.splice(0)) w({ value: undefined, done: true });
    const s = this.socket;
    if (!s) return;
    await new Promise<void>((resolve) => {
      s.once('close', () => resolve());
      s.end();
      s.destroy();
    });
  }
}

/**
 * Bytes encoded between two socket writes of a bundle or flow-mod batch: about 600 flow-mods, or
 * half a millisecond of encoding, so the socket is refilled long before the switch has read it dry.
 */
const CHUNK = 1 << 16;

const asMessage = (m: OfMessage): OfMessage => m;

/** The xid taken after `xid` (1 .. 0xfffffffe, then 1 again). */
function nextXid(xid: number): number {
  return xid >= 0xfffffffe ? 1 : xid + 1;
}

/** What `rx` holds when no partial message is buffered. */
const EMPTY: Buffer = Buffer.alloc(0);

/** The barrier request (no body: one object serves every call). */
const BARRIER: OfMessage = { type: 'barrierRequest' };

/** The error naming a batch's first rejected message (the others in `causes`), if any was rejected. */
function batchError(batch: Batch): OfSwitchError | undefined {
  if (batch.errors.length === 0) return undefined;
  const first = batch.errors.sort((a, b) => (a.index ?? 0) - (b.index ?? 0))[0]!;
  return new OfSwitchError(first.typeName, first.codeName, first.request, first.flow, first.index, batch.errors.length > 1 ? batch.errors.slice(1) : []);
}

function throwBatch(batch: Batch): void {
  const e = batchError(batch);
  if (e) throw e;
}

function mergeParts(parts: MultipartReply[]): MultipartReply {
  const first = parts[0]!;
  if (first.kind === 'flow') return { kind: 'flow', flows: parts.flatMap((p) => (p.kind === 'flow' ? p.flows : [])) };
  if (first.kind === 'tableStats') return { kind: 'tableStats', tables: parts.flatMap((p) => (p.kind === 'tableStats' ? p.tables : [])) };
  if (first.kind === 'portStats') return { kind: 'portStats', ports: parts.flatMap((p) => (p.kind === 'portStats' ? p.ports : [])) };
  if (first.kind === 'portDesc') return { kind: 'portDesc', ports: parts.flatMap((p) => (p.kind === 'portDesc' ? p.ports : [])) };
  return parts[parts.length - 1]!;
}

