// The switch's own limit for the bench: pre-encoded OpenFlow bytes written to a plain unix socket,
// replies read as bare 8-byte headers (no library on the timed path).
import { createConnection, type Socket } from 'node:net';
import { Writer } from '../src/buf';
import { encodeMessage, OFP_VERSION, OFPT, writeMessage, type OfMessage } from '../src/messages';

/**
 * One bundle encoded before any clock starts: open, adds and a barrier in `bytes`, the commit in
 * `commit`. The same protocol as the library's: the commit goes out only after the barrier's reply,
 * when the switch has answered the open and reported any add it refused (OVS commits the rest of a
 * bundle whose add failed, so a commit pipelined behind the adds is not all-or-nothing).
 */
export interface EncodedBundle {
  readonly bytes: Uint8Array;
  readonly barrierXid: number;
  readonly commit: Uint8Array;
  readonly commitXid: number;
  readonly messages: number;
}

/** Encodes open + one add per message + barrier, then the commit; atomic and ordered (what the library sends). */
export function encodeBundle(messages: Iterable<OfMessage>, bundleId: number, firstXid: number): EncodedBundle {
  const flags = { atomic: true, ordered: true };
  const w = new Writer(1 << 20);
  let xid = firstXid;
  let n = 0;
  writeMessage(w, { type: 'bundleControl', bundleId, control: 'openRequest', flags }, xid++);
  for (const message of messages) {
    writeMessage(w, { type: 'bundleAdd', bundleId, flags, message }, xid++);
    n++;
  }
  const barrierXid = xid++;
  writeMessage(w, { type: 'barrierRequest' }, barrierXid);
  const commitXid = xid;
  const commit = encodeMessage({ type: 'bundleControl', bundleId, control: 'commitRequest', flags }, commitXid);
  return { bytes: w.finish(), barrierXid, commit, commitXid, messages: n };
}

/** flow_mod + barrier pairs, one per flow, for the single-add round trip. */
export function encodeAddWithBarrier(msg: OfMessage, xid: number): { bytes: Uint8Array; barrierXid: number } {
  const a = encodeMessage(msg, xid);
  const b = encodeMessage({ type: 'barrierRequest' }, xid + 1);
  const bytes = new Uint8Array(a.length + b.length);
  bytes.set(a, 0);
  bytes.set(b, a.length);
  return { bytes, barrierXid: xid + 1 };
}

/** A bare OpenFlow 1.5 session on the bridge's management socket. */
export class RawSwitch {
  private rx: Buffer = Buffer.alloc(0);
  private waiter: { done(type: number, xid: number): boolean; resolve(errors: number): void; reject(e: Error): void } | undefined;
  private errors = 0;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('close', () => this.waiter?.reject(new Error('switch closed the raw connection')));
  }

  /** Connects and exchanges hellos (OpenFlow 1.5 both ways). */
  static async connect(path: string): Promise<RawSwitch> {
    const socket = await new Promise<Socket>((resolve, reject) => {
      const s = createConnection({ path });
      s.once('connect', () => resolve(s));
      s.once('error', reject);
    });
    const raw = new RawSwitch(socket);
    const hello = encodeMessage({ type: 'hello', versions: [OFP_VERSION] }, 0xfffffff0);
    await raw.until(hello, (type) => type === OFPT.HELLO);
    return raw;
  }

  /**
   * Writes `bytes` at once (the socket feeds them to the switch as fast as it reads) and resolves,
   * with the number of OpenFlow errors seen meanwhile, when a message with `untilXid` arrives.
   */
  send(bytes: Uint8Array, untilXid: number): Promise<number> {
    return this.until(bytes, (_type, xid) => xid === untilXid);
  }

  /** Sends a bundle's adds, and its commit once the barrier after them is answered without errors; resolves with the errors seen. */
  async sendBundle(b: EncodedBundle): Promise<number> {
    const errors = await this.send(b.bytes, b.barrierXid);
    if (errors > 0) return errors;
    return this.send(b.commit, b.commitXid);
  }

  private until(bytes: Uint8Array, done: (type: number, xid: number) => boolean): Promise<number> {
    this.errors = 0;
    return new Promise<number>((resolve, reject) => {
      this.waiter = { done, resolve, reject };
      this.socket.write(bytes);
    });
  }

  private onData(chunk: Buffer): void {
    this.rx = this.rx.length === 0 ? chunk : Buffer.concat([this.rx, chunk]);
    let off = 0;
    while (this.rx.length - off >= 8) {
      const len = this.rx.readUInt16BE(off + 2);
      if (this.rx.length - off < len) break;
      const type = this.rx[off + 1]!;
      const xid = this.rx.readUInt32BE(off + 4);
      off += len;
      if (type === OFPT.ERROR) this.errors++;
      if (type === OFPT.ECHO_REQUEST) {
        // Keepalive from the switch: answer with the same xid (header only).
        const reply = Buffer.from([OFP_VERSION, OFPT.ECHO_REPLY, 0, 8, 0, 0, 0, 0]);
        reply.writeUInt32BE(xid, 4);
        this.socket.write(reply);
      }
      if (this.waiter?.done(type, xid)) {
        const w = this.waiter;
        this.waiter = undefined;
        w.resolve(this.errors);
      }
    }
    this.rx = off === this.rx.length ? Buffer.alloc(0) : this.rx.subarray(off);
  }

  close(): void {
    this.socket.destroy();
  }
}
