// The server's own limit for the bench: JSON-RPC text serialized before any clock starts, written
// to a plain unix socket; replies split with a bare bracket counter (no library on the timed path).
import { createConnection, type Socket } from 'node:net';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** A bare JSON-RPC session on ovsdb-server's unix socket. */
export class RawOvsdb {
  private parts: Buffer[] = [];
  private depth = 0;
  private inString = false;
  private escape = false;
  private waiter: { onMessage(text: string): boolean; resolve(): void; reject(e: Error): void } | undefined;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('close', () => this.waiter?.reject(new Error('ovsdb-server closed the raw connection')));
  }

  static async connect(path: string): Promise<RawOvsdb> {
    const socket = await new Promise<Socket>((resolve, reject) => {
      const s = createConnection({ path });
      s.once('connect', () => resolve(s));
      s.once('error', reject);
    });
    return new RawOvsdb(socket);
  }

  /**
   * Starts waiting: `onMessage` sees each complete message's text and returns true when the wait is
   * over. Then writes `bytes` (if any) at once; the socket feeds them as fast as the server reads.
   */
  until(bytes: Buffer | undefined, onMessage: (text: string) => boolean): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiter = { onMessage, resolve, reject };
      if (bytes) this.socket.write(bytes);
    });
  }

  /** Sends pre-serialized requests and resolves when `replies` replies arrived, each checked by `check`. */
  replies(bytes: Buffer, replies: number, check: (text: string) => void): Promise<void> {
    let seen = 0;
    return this.until(bytes, (text) => {
      check(text);
      return ++seen === replies;
    });
  }

  private onData(chunk: Buffer): void {
    let start = 0;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (this.inString) {
        if (this.escape) this.escape = false;
        else if (b === BACKSLASH) this.escape = true;
        else if (b === QUOTE) this.inString = false;
      } else if (b === QUOTE) this.inString = true;
      else if (b === 0x7b || b === 0x5b) this.depth++;
      else if (b === 0x7d || b === 0x5d) {
        if (--this.depth === 0) {
          this.parts.push(chunk.subarray(start, i + 1));
          const text = Buffer.concat(this.parts).toString('utf8').trim();
          this.parts = [];
          start = i + 1;
          this.deliver(text);
        }
      }
    }
    if (start < chunk.length) this.parts.push(chunk.subarray(start));
  }

  private deliver(text: string): void {
    const w = this.waiter;
    if (!w) return;
    try {
      if (w.onMessage(text)) {
        this.waiter = undefined;
        w.resolve();
      }
    } catch (e) {
      this.waiter = undefined;
      w.reject(e as Error);
    }
  }

  close(): void {
    this.socket.destroy();
  }
}

/** Throws unless `text` is a successful transact reply: error null, no operation error. */
export function checkTransactReply(text: string): void {
  const m = JSON.parse(text) as { error: unknown; result: Array<{ error?: unknown }> | null };
  if (m.error !== null || !Array.isArray(m.result) || m.result.some((r) => r !== null && r.error !== undefined)) {
    throw new Error(`transaction failed: ${text.slice(0, 300)}`);
  }
}

/** JSON-RPC requests serialized into one buffer, ids from `firstId`. */
export function serialize(method: string, paramsList: readonly unknown[][], firstId: number): Buffer {
  return Buffer.from(paramsList.map((params, i) => JSON.stringify({ method, params, id: firstId + i })).join(''));
}
