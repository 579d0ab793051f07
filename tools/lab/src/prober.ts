/**
 * The in-pod prober: a long-lived process started inside a pod's network namespace
 * (`ip netns exec <netns> node prober.ts`), so a probe costs one connection, not one process.
 * Reads JSON lines `{id, ip, port, protocol, sourcePort?, timeoutMs}` on stdin and writes
 * `{id, ok, error?}` lines: ok when the pod server at ip:port answered `pong` in time.
 */
import { connect } from 'node:net';
import { createSocket } from 'node:dgram';
import { createInterface } from 'node:readline';

/** A probe request. */
export interface ProbeRequest {
  id: number;
  ip: string;
  port: number;
  protocol: 'TCP' | 'UDP';
  sourcePort?: number;
  timeoutMs: number;
}

/** A probe answer. */
export interface ProbeAnswer {
  id: number;
  ok: boolean;
  error?: string;
}

/**
 * A probe's time limit. When it expires, the verdict waits for one more pass of the event loop's
 * poll phase: after a stall of this process (a loaded machine), timers run before the I/O that
 * arrived meanwhile, and an answer already in the socket must win over the expired timer.
 */
/** A TCP probe's error when it connected but did not read the answer in time. */
export const NO_ANSWER = 'connected, no answer';

function deadline(ms: number, expire: () => void): { clear(): void } {
  let immediate: NodeJS.Immediate | undefined;
  const timer = setTimeout(() => (immediate = setImmediate(expire)), ms);
  return {
    clear: () => {
      clearTimeout(timer);
      if (immediate) clearImmediate(immediate);
    },
  };
}

function tcp(r: ProbeRequest): Promise<ProbeAnswer> {
  return new Promise((resolve) => {
    let data = '';
    let finished = false;
    let connected = false;
    const done = (ok: boolean, error?: string): void => {
      if (finished) return;
      finished = true;
      timer.clear();
      sock.destroy();
      resolve({ id: r.id, ok, ...(error ? { error } : {}) });
    };
    const sock = connect({ host: r.ip, port: r.port, ...(r.sourcePort ? { localPort: r.sourcePort } : {}) });
    // Connected by the deadline (the path is open) but the answer not read yet: once more the window
    // for the pod server's answer, which the socket may already hold.
    let timer = deadline(r.timeoutMs, () => {
      if (!connected) return done(false, 'timeout');
      timer = deadline(r.timeoutMs, () => done(false, NO_ANSWER));
    });
    sock.once('connect', () => (connected = true));
    sock.setEncoding('utf8');
    sock.on('data', (c: string) => {
      data += c;
      if (data.includes('pong')) done(true);
    });
    sock.on('error', (e: NodeJS.ErrnoException) => done(false, e.code ?? e.message));
    sock.on('end', () => done(data.includes('pong'), data.includes('pong') ? undefined : 'closed without answer'));
  });
}

function udp(r: ProbeRequest): Promise<ProbeAnswer> {
  return new Promise((resolve) => {
    const sock = createSocket(r.ip.includes(':') ? 'udp6' : 'udp4');
    let finished = false;
    const done = (ok: boolean, error?: string): void => {
      if (finished) return;
      finished = true;
      timer.clear();
      sock.close();
      resolve({ id: r.id, ok, ...(error ? { error } : {}) });
    };
    const timer = deadline(r.timeoutMs, () => done(false, 'timeout'));
    sock.on('message', (m) => {
      if (m.toString('utf8').includes('pong')) done(true);
    });
    // Connected: an ICMP port/admin unreachable (Reject) surfaces as an error at once.
    sock.on('error', (e: NodeJS.ErrnoException) => done(false, e.code ?? e.message));
    sock.bind(r.sourcePort ?? 0, () => {
      sock.connect(r.port, r.ip, () => sock.send('ping\n'));
    });
  });
}

/** One probe. */
export function probeOnce(r: ProbeRequest): Promise<ProbeAnswer> {
  return r.protocol === 'UDP' ? udp(r) : tcp(r);
}

function main(): void {
  const rl = createInterface({ input: process.stdin });
  rl.on('line', (line) => {
    if (line.trim() === '') return;
    const r = JSON.parse(line) as ProbeRequest;
    void probeOnce(r).then((a) => process.stdout.write(`${JSON.stringify(a)}\n`));
  });
  rl.on('close', () => process.exit(0));
  process.stdout.write(`${JSON.stringify({ id: 0, ok: true })}\n`); // ready
}

if (process.argv[1]?.endsWith('prober.ts') || process.argv[1]?.endsWith('prober.js')) main();
