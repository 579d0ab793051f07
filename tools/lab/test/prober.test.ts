// The in-pod prober's verdicts against real sockets on loopback, including the case that made the
// conformance suite flaky on a loaded machine: the answer is already in the socket when the prober
// process gets the CPU back after its deadline (timers run before that I/O is read).
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { createSocket, type Socket } from 'node:dgram';
import { createServer, type Server } from 'node:net';
import { once } from 'node:events';
import { probeOnce } from '../src/prober';

/**
 * A pod-like server in another process (so it answers while this one is stalled): TCP `pong` at
 * once; UDP: prints `got` when a datagram arrives and answers `pong` only when told `go` on stdin.
 */
async function startServer(): Promise<{ child: ChildProcess; port: number }> {
  const src = [
    "const net = require('node:net'); const dgram = require('node:dgram'); const rl = require('node:readline');",
    "const t = net.createServer((c) => c.end('pong\\n'));",
    "const held = [];",
    "rl.createInterface({ input: process.stdin }).on('line', () => { for (const f of held.splice(0)) u.send('pong\\n', f.port, f.address); });",
    "const u = dgram.createSocket('udp4'); u.on('message', (_m, f) => { held.push(f); process.stdout.write('got\\n'); });",
    "t.listen(0, '127.0.0.1', () => { const port = t.address().port;",
    "  u.bind(port, '127.0.0.1', () => process.stdout.write(port + '\\n')); });",
  ].join('\n');
  const child = spawn(process.execPath, ['-e', src], { stdio: ['pipe', 'pipe', 'inherit'] });
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  return { child, port: Number(line.toString().trim()) };
}

/**
 * Blocks this process (no event loop) until `ss` shows the answer queued on our socket to `port`
 * and at least `minMs` passed: a stall past the probe's deadline with the answer already there.
 */
function stallUntilQueued(proto: 'tcp' | 'udp', port: number, minMs: number): void {
  const t0 = Date.now();
  const limit = t0 + 20_000;
  for (;;) {
    const lines = execFileSync('ss', [proto === 'tcp' ? '-tnH' : '-unH', `( dport = :${port} )`], { encoding: 'utf8' }).trim().split('\n').filter(Boolean);
    const queued = lines.some((l) => Number(l.trim().split(/\s+/).find((w) => /^\d+$/.test(w))) > 0);
    if (queued && Date.now() - t0 >= minMs) return;
    if (Date.now() > limit) throw new Error(`no answer queued for :${port} within 20 s: ${lines.join(' | ')}`);
  }
}

describe('probeOnce', () => {
  let server: { child: ChildProcess; port: number };
  let silent: Server;
  let silentPort: number;
  let silentUdp: Socket;
  beforeAll(async () => {
    server = await startServer();
    silent = createServer(() => undefined).listen(0, '127.0.0.1');
    await once(silent, 'listening');
    silentPort = (silent.address() as { port: number }).port;
    silentUdp = createSocket('udp4').bind(0, '127.0.0.1');
    await once(silentUdp, 'listening');
  });
  afterAll(() => {
    server.child.kill();
    silent.close();
    silentUdp.close();
  });

  it('TCP: ok when the server answers pong, ECONNREFUSED on a closed port', async () => {
    expect(await probeOnce({ id: 1, ip: '127.0.0.1', port: server.port, protocol: 'TCP', timeoutMs: 5000 })).toEqual({ id: 1, ok: true });
    const closed = createServer().listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as { port: number }).port;
    await new Promise((r) => closed.close(r));
    expect(await probeOnce({ id: 2, ip: '127.0.0.1', port, protocol: 'TCP', timeoutMs: 5000 })).toEqual({ id: 2, ok: false, error: 'ECONNREFUSED' });
  });

  it('TCP: a connection that never answers fails, naming that it connected', async () => {
    expect(await probeOnce({ id: 3, ip: '127.0.0.1', port: silentPort, protocol: 'TCP', timeoutMs: 50 })).toEqual({ id: 3, ok: false, error: 'connected, no answer' });
  });

  it('TCP: an answer that arrived while the prober was stalled past its deadline still counts', async () => {
    const p = probeOnce({ id: 4, ip: '127.0.0.1', port: server.port, protocol: 'TCP', timeoutMs: 30 });
    // net.connect() issues the connect on the next tick.
    await new Promise((r) => setImmediate(r));
    stallUntilQueued('tcp', server.port, 100);
    expect(await p).toEqual({ id: 4, ok: true });
  });

  it('UDP: an answer queued during a stall past the deadline still counts', async () => {
    const p = probeOnce({ id: 6, ip: '127.0.0.1', port: server.port, protocol: 'UDP', timeoutMs: 1000 });
    const t0 = Date.now();
    await once(server.child.stdout!, 'data'); // the server holds our datagram
    server.child.stdin!.write('go\n');
    stallUntilQueued('udp', server.port, 1000 - (Date.now() - t0) + 50);
    expect(await p).toEqual({ id: 6, ok: true });
  });

  it('UDP: silence is a timeout', async () => {
    expect(await probeOnce({ id: 7, ip: '127.0.0.1', port: silentUdp.address().port, protocol: 'UDP', timeoutMs: 50 })).toEqual({ id: 7, ok: false, error: 'timeout' });
  });
});
