// JSON-RPC 1.0 peer over a byte stream: id correlation, notifications, echo in both directions.
import type { Duplex } from 'node:stream';
import {
  DisconnectedError,
  OvsdbError,
  ProtocolError,
  RpcError,
  TimeoutError,
  type FramingError,
} from '../errors';
import { silentLogger, type Logger } from '@switchyard/runtime';
import { JsonFramer } from './framer';
import { Utf8Writer } from './utf8-writer';

/** Handler of a request or notification from the peer. */
export type NotificationHandler = (method: string, params: unknown[]) => void;

/** Options of {@link JsonRpcPeer}. */
export interface JsonRpcPeerOptions {
  maxMessageBytes?: number;
  logger?: Logger;
  /** Called for notifications (requests with id null). */
  onNotification?: NotificationHandler;
  /** Called for non-fatal protocol problems (unknown reply id, malformed message). */
  onProtocolError?: (err: OvsdbError) => void;
  /** Called once when the stream is gone; `cause` is the fatal error, if any. */
  onClose?: (cause: Error | undefined) => void;
  /** Called whenever any message arrives (the inactivity probe watches this). */
  onActivity?: () => void;
}

/**
 * Messages written in one turn of the event loop after the first go out in one socket write, at the
 * end of the turn or once this many bytes wait. 1,000 pipelined transactions
 * were 1,000 writes (a syscall and the stream bookkeeping each: ~30% of the client's CPU in the
 * ovsdb bench); the cap keeps the server fed while the rest of a long burst is still being encoded.
 */
const COALESCE_BYTES = 32 * 1024;
/** Size of the buffers outgoing messages are written into (many turns' messages share one). */
const OUT_CHUNK_BYTES = 64 * 1024;

/**
 * A request's whole params array as JSON text already encoded to UTF-8, `[...]` included: written as
 * it is. `transact` writes its operations' text straight into bytes (see wire-text.ts), so a 1,000-port
 * transaction is never 3,001 strings or one 500 KB string to join and convert for the socket.
 */
export class JsonParams {
  constructor(readonly bytes: Buffer) {}
}

interface Pending {
  method: string;
  resolve(v: unknown): void;
  reject(e: Error): void;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/**
 * One JSON-RPC 1.0 session on one stream. Answers `echo` requests itself; fails every pending request
 * with a {@link DisconnectedError} when the stream closes, so no caller is left waiting.
 */
export class JsonRpcPeer {
  private readonly framer: JsonFramer;
  private readonly pending = new Map<string, Pending>();
  private nextId = 1;
  /** Ids of requests given up locally (cancel): a late reply to them is not a protocol error. */
  private readonly abandoned = new Set<string>();
  private closed = false;
  private closeCause: Error | undefined;
  private readonly log: Logger;
  /** Messages waiting for the end-of-turn flush, as bytes. */
  private readonly queued = new Utf8Writer(OUT_CHUNK_BYTES);
  /** A flush is scheduled: the first message of this turn has gone out already. */
  private flushScheduled = false;
  private readonly flushQueued = (): void => {
    this.flushScheduled = false;
    this.writeQueued();
  };

  constructor(
    private readonly stream: Duplex,
    private readonly opts: JsonRpcPeerOptions = {},
  ) {
    this.framer = new JsonFramer(
      opts.maxMessageBytes === undefined ? {} : { maxMessageBytes: opts.maxMessageBytes },
    );
    this.log = opts.logger ?? silentLogger;
    stream.on('data', (chunk: Buffer) => this.onData(chunk));
    stream.on('end', () => {
      try {
        this.framer.end();
        this.shutdown(undefined);
      } catch (err) {
        this.shutdown(err as Error);
      }
    });
    stream.on('error', (err) => this.shutdown(err));
    stream.on('close', () => this.shutdown(this.closeCause));
  }

  /** True once the stream is gone. */
  get isClosed(): boolean {
    return this.closed;
  }

  /** Number of requests waiting for a reply. */
  get pendingCount(): number {
    return this.pending.size;
  }

  /** Sends a request and resolves with its `result`; rejects with RpcError if `error` is non-null. */
  request<T = unknown>(
    method: string,
    params: unknown[] | JsonParams,
    opts: { timeoutMs?: number; id?: unknown } = {},
  ): Promise<T> {
    if (this.closed) {
      return Promise.reject(
        new DisconnectedError(`cannot send ${method}: connection is closed`, method, {
          cause: this.closeCause,
        }),
      );
    }
    const id = opts.id ?? this.nextId++;
    const key = JSON.stringify(id);
    return new Promise<T>((resolve, reject) => {
      const entry: Pending = {
        method,
        resolve: resolve as (v: unknown) => void,
        reject,
        timer: undefined,
      };
      if (opts.timeoutMs !== undefined) {
        const ms = opts.timeoutMs;
        entry.timer = setTimeout(() => {
          this.pending.delete(key);
          reject(new TimeoutError(method, ms));
        }, ms);
      }
      this.pending.set(key, entry);
      this.sendRequest(method, params, id);
    });
  }

  /** The id the next request will get (used to `cancel` a request). */
  peekNextId(): number {
    return this.nextId;
  }

  /**
   * Stops waiting for the reply to request `id`: its promise rejects with `err` at once, and a reply
   * that still arrives later is dropped silently.
   */
  abandon(id: unknown, err: Error): boolean {
    const key = JSON.stringify(id);
    const p = this.pending.get(key);
    if (!p) return false;
    this.pending.delete(key);
    if (p.timer) clearTimeout(p.timer);
    this.abandoned.add(key);
    if (this.abandoned.size > 1024) this.abandoned.delete(this.abandoned.values().next().value as string);
    p.reject(err);
    return true;
  }

  /** Sends a notification (id null). */
  notify(method: string, params: unknown[]): void {
    if (this.closed) throw new DisconnectedError(`cannot send ${method}: connection is closed`, method);
    this.write({ method, params, id: null });
  }

  /** Closes the stream; pending requests fail with DisconnectedError. */
  close(cause?: Error): void {
    if (!this.closed) {
      this.closeCause = cause;
      this.stream.destroy();
      this.shutdown(cause);
    }
  }

  private write(msg: unknown): void {
    this.enqueue(JSON.stringify(msg));
    this.endMessage();
  }

  /** Writes a request as JSON.stringify({ method, params, id }) would; JsonParams as they are. */
  private sendRequest(method: string, params: readonly unknown[] | JsonParams, id: unknown): void {
    if (!(params instanceof JsonParams)) {
      this.enqueue(JSON.stringify({ method, params, id }));
    } else if (params.bytes.length < COALESCE_BYTES) {
      this.queued.json(`{"method":${JSON.stringify(method)},"params":`);
      this.queued.writeBytes(params.bytes);
      this.enqueue(`,"id":${JSON.stringify(id)}}`);
    } else {
      // A long request goes out at once, after what was queued, in one vectored write (no copy).
      this.queued.json(`{"method":${JSON.stringify(method)},"params":`);
      const head = this.queued.take();
      this.queued.json(`,"id":${JSON.stringify(id)}}`);
      const tail = this.queued.take();
      if (!this.stream.destroyed) {
        this.stream.cork();
        this.stream.write(head);
        this.stream.write(params.bytes);
        this.stream.write(tail);
        this.stream.uncork();
      }
    }
    this.endMessage();
  }

  /** Queues a piece of a message's text; a long burst goes out in writes of about COALESCE_BYTES. */
  private enqueue(piece: string): void {
    this.queued.json(piece);
    if (this.queued.length >= COALESCE_BYTES) this.writeQueued();
  }

  /**
   * Ends a message. The first message of a turn is written at once (an awaited request waits for
   * nothing); the ones after it in the same turn are queued and go out together (see COALESCE_CHARS).
   */
  private endMessage(): void {
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      process.nextTick(this.flushQueued);
      this.writeQueued();
    }
  }

  private writeQueued(): void {
    if (this.queued.length === 0) return;
    const bytes = this.queued.take();
    if (!this.stream.destroyed) this.stream.write(bytes);
  }

  private onData(chunk: Buffer): void {
    let messages: unknown[];
    try {
      messages = this.framer.push(chunk);
    } catch (err) {
      // Framing errors are fatal for the session (the stream position is lost), never for the process.
      this.log.warn({ err }, 'ovsdb: framing error, closing connection');
      this.opts.onProtocolError?.(err as FramingError);
      this.close(err as Error);
      return;
    }
    for (const m of messages) {
      if (this.closed) return;
      this.opts.onActivity?.();
      try {
        this.dispatch(m);
      } catch (err) {
        // A throwing user handler must not take down the read loop.
        this.log.error({ err }, 'ovsdb: handler threw');
        this.opts.onProtocolError?.(
          err instanceof OvsdbError
            ? err
            : new ProtocolError('OVSDB_BAD_MESSAGE', `handler failed: ${String(err)}`, m),
        );
      }
    }
  }

  private dispatch(m: unknown): void {
    if (typeof m !== 'object' || m === null || Array.isArray(m)) {
      this.protocolError(new ProtocolError('OVSDB_BAD_MESSAGE', 'JSON-RPC message is not an object', m));
      return;
    }
    const msg = m as Record<string, unknown>;
    if ('method' in msg) {
      const { method, params, id } = msg;
      if (typeof method !== 'string' || !Array.isArray(params)) {
        this.protocolError(
          new ProtocolError('OVSDB_BAD_MESSAGE', 'request needs a string method and array params', m),
        );
        if (id !== undefined && id !== null) this.write({ result: null, error: 'invalid request', id });
        return;
      }
      if (id === undefined || id === null) {
        this.opts.onNotification?.(method, params);
        return;
      }
      if (method === 'echo') {
        this.write({ result: params, error: null, id });
        return;
      }
      this.write({ result: null, error: { error: 'unknown method', details: method }, id });
      return;
    }
    if ('result' in msg || 'error' in msg) {
      const key = JSON.stringify(msg.id ?? null);
      const p = this.pending.get(key);
      if (!p) {
        if (this.abandoned.delete(key)) return;
        this.protocolError(new ProtocolError('OVSDB_UNKNOWN_ID', `reply to unknown request id ${key}`, m));
        return;
      }
      this.pending.delete(key);
      if (p.timer) clearTimeout(p.timer);
      if (msg.error !== undefined && msg.error !== null) p.reject(new RpcError(p.method, msg.error));
      else if (!('result' in msg))
        p.reject(new ProtocolError('OVSDB_BAD_REPLY', `reply to ${p.method} has no result`, m));
      else p.resolve(msg.result);
      return;
    }
    this.protocolError(new ProtocolError('OVSDB_BAD_MESSAGE', 'message is neither request nor reply', m));
  }

  private protocolError(err: ProtocolError): void {
    this.log.warn({ err }, 'ovsdb: protocol error');
    this.opts.onProtocolError?.(err);
  }

  private shutdown(cause: Error | undefined): void {
    if (this.closed && this.pending.size === 0) return;
    const first = !this.closed;
    this.closed = true;
    this.closeCause ??= cause;
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const p of pending) {
      if (p.timer) clearTimeout(p.timer);
      p.reject(
        new DisconnectedError(
          `connection lost while waiting for the reply to ${p.method}${this.closeCause ? `: ${this.closeCause.message}` : ''}`,
          p.method,
          { cause: this.closeCause },
        ),
      );
    }
    if (first) {
      if (!this.stream.destroyed) this.stream.destroy();
      this.opts.onClose?.(this.closeCause);
    }
  }
}
