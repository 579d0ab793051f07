// Unit-test helpers: an in-memory stream pair, a scripted fake OVSDB peer on a unix socket.
import { Duplex } from 'node:stream';
import { createServer, type Server, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JsonFramer } from '../src/index';

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
