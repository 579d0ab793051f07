// A self-healing OVSDB session: reconnect with backoff + jitter, inactivity probe, typed failure of pending requests.
import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import { Backoff, backoffDelay as delayOf, silentLogger, systemClock, type BackoffPolicy, type Clock, type Logger, type TimerHandle } from '@switchyard/runtime';
import { ClosedError, DisconnectedError, type OvsdbError } from './errors';
import { JsonRpcPeer, type JsonParams } from './jsonrpc/peer';
import {
  describeEndpoint,
  openStream,
  parseRemote,
  type Endpoint,
  type Remote,
  type TlsOptions,
} from './transport';

/** Reconnect policy: delay = min(maxDelayMs, initialDelayMs * 2^attempt), scaled by a random factor in [1-jitter, 1]. */
export interface BackoffOptions {
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** 0..1, fraction of the delay that is randomized (default 0.5). */
  jitter?: number;
}

/** Options of {@link Connection}. */
export interface ConnectionOptions {
  /** Reconnect after losing the server (default true); `false` makes a lost connection final. */
  reconnect?: boolean | BackoffOptions;
  /**
   * Send an `echo` after this long without traffic and drop the connection when another interval passes
   * without any message (default 5000 ms, 0 disables), like OVS's inactivity probe.
   */
  probeIntervalMs?: number;
  /** Largest accepted message (default 64 MiB). */
  maxMessageBytes?: number;
  connectTimeoutMs?: number;
  tls?: TlsOptions;
  clock?: Clock;
  /** Random source in [0,1) for jitter (injectable for tests). */
  random?: () => number;
  logger?: Logger;
  /** Stream factory (defaults to unix/tcp/tls sockets); tests inject in-memory streams. */
  openStream?: (endpoint: Endpoint) => Promise<Duplex>;
}

/** Events of {@link Connection}. */
export interface ConnectionEvents {
  /** A session is up; `reconnected` is false for the first one. */
  connected: [info: { reconnected: boolean }];
  disconnected: [cause: Error | undefined];
  notification: [method: string, params: unknown[]];
  protocolError: [err: OvsdbError];
  /** A reconnect attempt is scheduled after `delayMs`. */
  backoff: [info: { attempt: number; delayMs: number; error: Error }];
}

/** The reconnect policy in @switchyard/runtime's terms: jitter takes up to its share off the delay. */
function reconnectPolicy(opts: BackoffOptions): BackoffPolicy {
  return {
    initialMs: opts.initialDelayMs ?? 100,
    maxMs: opts.maxDelayMs ?? 8000,
    jitter: { below: Math.min(1, Math.max(0, opts.jitter ?? 0.5)) },
  };
}

/** Computes the delay before reconnect attempt `attempt` (0-based). Pure; exported for tests. */
export function backoffDelay(attempt: number, opts: BackoffOptions, random: number): number {
  return delayOf(reconnectPolicy(opts), attempt, random);
}

/**
 * Keeps one JSON-RPC session to an OVSDB server alive. Requests are sent only on a live session;
 * when it drops, every pending request fails with {@link DisconnectedError} and, unless reconnect is
 * off, a new session is attempted with exponential backoff and jitter.
 */
export class Connection extends EventEmitter<ConnectionEvents> {
  readonly endpoint: Endpoint;
  private readonly opts: ConnectionOptions;
  private readonly clock: Clock;
  private readonly log: Logger;
  private peer: JsonRpcPeer | undefined;
  private closed = false;
  private everConnected = false;
  private readonly backoff: Backoff;
  private retryTimer: TimerHandle | undefined;
  private probeTimer: TimerHandle | undefined;
  private lastActivity = 0;
  private probing = false;
  private firstConnect: { resolve(): void; reject(e: Error): void } | undefined;

  constructor(remote: Remote, opts: ConnectionOptions = {}) {
    super();
    this.endpoint = parseRemote(remote, opts.tls);
    this.opts = opts;
    this.clock = opts.clock ?? systemClock;
    this.log = opts.logger ?? silentLogger;
    this.backoff = new Backoff(reconnectPolicy(typeof opts.reconnect === 'object' ? opts.reconnect : {}), { random: opts.random ?? Math.random });
  }

  /** True while a session is up. */
  get isConnected(): boolean {
    return this.peer !== undefined && !this.peer.isClosed;
  }

  private get reconnecting(): boolean {
    return this.opts.reconnect !== false;
  }

  /**
   * Opens the first session. With reconnect on, keeps retrying (with backoff) until it succeeds or
   * close() is called; with reconnect off, rejects on the first failure.
   */
  connect(): Promise<void> {
    if (this.closed) return Promise.reject(new ClosedError('connection'));
    if (this.isConnected) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.firstConnect = { resolve, reject };
      void this.tryConnect();
    });
  }

  private async tryConnect(): Promise<void> {
    this.retryTimer = undefined;
    if (this.closed) return;
    let stream: Duplex;
    try {
      stream = await (this.opts.openStream ?? ((e) => openStream(e, this.opts.connectTimeoutMs)))(
        this.endpoint,
      );
    } catch (err) {
      this.onConnectFailure(err as Error);
      return;
    }
    if (this.closed) {
      stream.destroy();
      return;
    }
    this.backoff.reset();
    const peer = new JsonRpcPeer(stream, {
      logger: this.log,
      ...(this.opts.maxMessageBytes !== undefined ? { maxMessageBytes: this.opts.maxMessageBytes } : {}),
      onNotification: (m, p) => this.emit('notification', m, p),
      onProtocolError: (e) => this.emit('protocolError', e),
      onActivity: () => {
        this.lastActivity = this.clock.now();
        this.probing = false;
      },
      onClose: (cause) => this.onSessionClosed(peer, cause),
    });
    this.peer = peer;
    this.lastActivity = this.clock.now();
    this.probing = false;
    this.scheduleProbe();
    const reconnected = this.everConnected;
    this.everConnected = true;
    this.log.info({ remote: describeEndpoint(this.endpoint), reconnected }, 'ovsdb: connected');
    const first = this.firstConnect;
    this.firstConnect = undefined;
    first?.resolve();
    this.emit('connected', { reconnected });
  }

  private onConnectFailure(err: Error): void {
    if (this.closed) return;
    if (!this.reconnecting) {
      const first = this.firstConnect;
      this.firstConnect = undefined;
      first?.reject(err);
      return;
    }
    this.scheduleReconnect(err);
  }

  private scheduleReconnect(err: Error): void {
    const attempt = this.backoff.attempt;
    const delayMs = this.backoff.next();
    this.emit('backoff', { attempt, delayMs, error: err });
    this.log.debug({ attempt, delayMs, err: err.message }, 'ovsdb: reconnect scheduled');
    this.retryTimer = this.clock.setTimeout(() => void this.tryConnect(), delayMs);
  }

  private onSessionClosed(peer: JsonRpcPeer, cause: Error | undefined): void {
    if (this.peer !== peer) return;
    this.peer = undefined;
    this.probeTimer?.cancel();
    this.probeTimer = undefined;
    this.log.warn({ err: cause?.message }, 'ovsdb: disconnected');
    this.emit('disconnected', cause);
    if (!this.closed && this.reconnecting) {
      this.scheduleReconnect(cause ?? new DisconnectedError('connection closed by peer'));
    }
  }

  private scheduleProbe(): void {
    const interval = this.opts.probeIntervalMs ?? 5000;
    if (interval <= 0 || !this.peer) return;
    const peer = this.peer;
    const due = (this.probing ? this.lastProbeAt : this.lastActivity) + interval;
    this.probeTimer = this.clock.setTimeout(
      () => this.onProbeTimer(peer, interval),
      Math.max(0, due - this.clock.now()),
    );
  }

  private lastProbeAt = 0;

  private onProbeTimer(peer: JsonRpcPeer, interval: number): void {
    this.probeTimer = undefined;
    if (this.peer !== peer || peer.isClosed) return;
    const now = this.clock.now();
    if (this.probing) {
      if (now - this.lastProbeAt >= interval) {
        this.log.warn({ interval }, 'ovsdb: inactivity probe timed out');
        peer.close(new DisconnectedError(`no reply to inactivity probe within ${interval} ms`));
        return;
      }
    } else if (now - this.lastActivity >= interval) {
      this.probing = true;
      this.lastProbeAt = now;
      peer.request('echo', []).catch(() => undefined);
    }
    this.scheduleProbe();
  }

  /** Sends a request on the live session; fails fast with DisconnectedError when there is none. */
  request<T = unknown>(
    method: string,
    params: unknown[] | JsonParams,
    opts: { timeoutMs?: number; id?: unknown } = {},
  ): Promise<T> {
    if (this.closed) return Promise.reject(new ClosedError('connection'));
    const peer = this.peer;
    if (!peer || peer.isClosed) {
      return Promise.reject(
        new DisconnectedError(
          `cannot send ${method}: not connected to ${describeEndpoint(this.endpoint)}`,
          method,
        ),
      );
    }
    return peer.request<T>(method, params, opts);
  }

  /** The id the next request on the current session will carry, if connected. */
  nextRequestId(): number | undefined {
    return this.peer?.peekNextId();
  }

  /** Gives up waiting for request `id` on the current session (see JsonRpcPeer.abandon). */
  abandon(id: unknown, err: Error): boolean {
    return this.peer?.abandon(id, err) ?? false;
  }

  /** Sends a notification on the live session. */
  notify(method: string, params: unknown[]): void {
    if (this.closed) throw new ClosedError('connection');
    const peer = this.peer;
    if (!peer || peer.isClosed) throw new DisconnectedError(`cannot send ${method}: not connected`, method);
    peer.notify(method, params);
  }

  /** Drops the current session (as if the server went away); reconnects if enabled. For tests and admin use. */
  dropSession(reason = 'session dropped by client'): void {
    this.peer?.close(new DisconnectedError(reason));
  }

  /** Closes for good: stops reconnecting, fails pending requests, releases timers. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.retryTimer?.cancel();
    this.probeTimer?.cancel();
    this.retryTimer = undefined;
    this.probeTimer = undefined;
    const first = this.firstConnect;
    this.firstConnect = undefined;
    first?.reject(new ClosedError('connection'));
    const peer = this.peer;
    this.peer = undefined;
    peer?.close(new ClosedError('connection'));
    this.emit('disconnected', new ClosedError('connection'));
  }
}
