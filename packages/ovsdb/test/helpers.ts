// Unit-test helpers: a manual clock, an in-memory stream pair, a scripted fake OVSDB peer on a unix socket.
import { Duplex } from 'node:stream';
import { createServer, type Server, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JsonFramer, type Clock } from '../src/index';

/** A clock whose time only moves when the test says so. */
export class ManualClock implements Clock {
  private t = 0;
  private seq = 0;
  private timers = new Map<number, { at: number; fn: () => void }>();
  now = (): number => this.t;
  setTimeout = (fn: () => void, ms: number): unknown => {
    const id = ++this.seq;
    this.timers.set(id, { at: this.t + ms, fn });
    return id;
  };
  clearTimeout = (h: unknown): void => {
    this.timers.delete(h as number);
  };
  /** Pending timer delays from now. */
  pending(): number[] {
    return [...this.timers.values()].map((x) => x.at - this.t).sort((a, b) => a - b);
  }
  /** Moves time forward, firing due timers in order (letting promises settle between them). */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    for (;;) {
      const due = [...this.timers.entries()]
        .filter(([, x]) => x.at <= end)
        .sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.timers.delete(due[0]);
      this.t = due[1].at;
      due[1].fn();
      await flush();
    }
    this.t = end;
    await flush();
  }
}

/** Lets pending promise callbacks and I/O callbacks run. */
export const flush = (): Promise<void> => new Promise((r) => setImmediate(r));

/** Two connected in-memory duplex streams. */
export function streamPair(): [Duplex, Duplex] {
  const ends: Duplex[] = [];
  const make = (other: () => Duplex): Duplex =>
    new Duplex({
      read() {},
      write(chunk: Buffer, _enc, cb) {
        other().push(chunk);
        cb();
      },
      final(cb) {
        other().push(null);
        cb();
      },
    });
  ends.push(
    make(() => ends[1]!),
    make(() => ends[0]!),
  );
  return [ends[0]!, ends[1]!];
}

/** Reads JSON messages from a stream. */
export function onMessages(s: Duplex, fn: (m: Record<string, unknown>) => void): void {
  const f = new JsonFramer();
  s.on('data', (c: Buffer) => {
    for (const m of f.push(c)) fn(m as Record<string, unknown>);
  });
}

/** A fake OVSDB server on a unix socket whose replies the test scripts. */
export class FakePeer {
  readonly dir = mkdtempSync(join(tmpdir(), 'ovsdb-fake-'));
  readonly path = join(this.dir, 'db.sock');
  readonly sockets: Socket[] = [];
  private server: Server | undefined;
  constructor(private readonly handler: (m: Record<string, unknown>, sock: Socket) => void) {}
  async start(): Promise<string> {
    this.server = createServer((sock) => {
      this.sockets.push(sock);
      sock.on('error', () => undefined);
      const f = new JsonFramer();
      sock.on('data', (c) => {
        for (const m of f.push(c)) this.handler(m as Record<string, unknown>, sock);
      });
    });
    await new Promise<void>((r) => this.server!.listen(this.path, r));
    return `unix:${this.path}`;
  }
  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((r) => this.server?.close(() => r()) ?? r());
    rmSync(this.dir, { recursive: true, force: true });
  }
}
