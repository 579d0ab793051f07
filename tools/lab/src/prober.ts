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

function tcp(r: ProbeRequest): Promise<ProbeAnswer> {
  return new Promise((resolve) => {
    let data = '';
    const done = (ok: boolean, error?: string): void => {
      clearTimeout(timer);
      sock.destroy();
      resolve({ id: r.id, ok, ...(error ? { error } : {}) });
    };
    const sock = connect({ host: r.ip, port: r.port, ...(r.sourcePort ? { localPort: r.sourcePort } : {}) });
    const timer = setTimeout(() => done(false, 'timeout'), r.timeoutMs);
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
    const sock = createSocket('udp4');
    let finished = false;
    const done = (ok: boolean, error?: string): void => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      sock.close();
      resolve({ id: r.id, ok, ...(error ? { error } : {}) });
    };
    const timer = setTimeout(() => done(false, 'timeout'), r.timeoutMs);
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
