// The client's own CPU for the bench's port cases, without ovsdb-server: requests go to a peer
// that answers each transact like ovsdb-server (replies serialized in advance), in memory or, with
// BENCH_SOCKET=1, in a child process on a unix socket (so socket writes and reads count), so a
// profile (`node --cpu-prof --import tsx bench/client-cpu.ts`) shows only the client's path.
// Prints per-pass CPU (min and median of PASSES) for pipelined one-port transactions and one
// batched transaction.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Duplex } from 'node:stream';
import { OvsdbClient, VSwitch, unwrap, bundledVswitchSchema } from '../src/index';

const N = Number(process.env['BENCH_PORTS'] ?? 1000);
const PASSES = Number(process.env['BENCH_PASSES'] ?? 30);
const ids = (i: number) => ({ 'pod-name': `pod-${i}`, 'pod-namespace': 'bench', 'ip-address': `10.1.${i >> 8}.${i & 255}` });
const UUID = '["uuid","6f0f5a9e-6f2a-4a5c-9a57-2f6b7e1c0a11"]';

/** The result array ovsdb-server sends for `ports` added in one transaction (wait, 2 inserts per port, mutate). */
function resultText(ports: number): string {
  const perPort = `{},{"uuid":${UUID}},{"uuid":${UUID}}`;
  return `[${Array.from({ length: ports }, () => perPort).join(',')},{"count":1}]`;
}

/**
 * A stream whose far end answers the n-th request (ids 1, 2, ...) with `replies(n)`; requests are
 * counted by their closing `"id":n}` (the client writes `id` last), not parsed.
 */
function fakeServer(reply: (id: number) => string): Duplex {
  let nextId = 1;
  const s: Duplex = new Duplex({
    decodeStrings: false,
    read() {},
    write(chunk: Buffer | string, _enc, cb) {
      const text = typeof chunk === 'string' ? chunk : chunk.toString('latin1');
      let out = '';
      for (let at = text.indexOf('"id":'); at >= 0; at = text.indexOf('"id":', at + 5)) out += reply(nextId++);
      if (out) setImmediate(() => s.push(Buffer.from(out)));
      cb();
    },
  });
  return s;
}

const replyText = (perPort: boolean): ((id: number) => string) => {
  const result = resultText(perPort ? 1 : N);
  return (id) => `{"id":${id},"result":${result},"error":null}`;
};

/** The child process: answers on a unix socket at `path`, one connection at a time, mode per connection. */
function serve(path: string): void {
  createServer((sock) => {
    let reply: ((id: number) => string) | undefined;
    let nextId = 1;
    // The last 4 characters of the previous chunk: a `"id":` cut by a chunk boundary still counts.
    let carry = '';
    sock.on('data', (chunk: Buffer) => {
      const text = carry + chunk.toString('latin1');
      carry = text.slice(-4);
      // The client's first message names the case: a batch names a second port's row "p1".
      reply ??= replyText(!text.includes('"uuid-name":"p1"'));
      let out = '';
      for (let at = text.indexOf('"id":'); at >= 0; at = text.indexOf('"id":', at + 5)) out += reply(nextId++);
      if (out) sock.write(out);
    });
  }).listen(path, () => process.stdout.write('ready\n'));
}

let socketPath: string | undefined;
async function startChild(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ovsdb-cpu-'));
  socketPath = join(dir, 's');
  const child = spawn(process.execPath, [...process.execArgv.filter((a) => !a.startsWith('--cpu-prof')), process.argv[1]!, 'serve', socketPath], { stdio: ['ignore', 'pipe', 'inherit'] });
  child.unref();
  await new Promise((r) => child.stdout!.once('data', r));
  process.on('exit', () => {
    child.kill();
    rmSync(dir, { recursive: true, force: true });
  });
}
const openSocket = (): Promise<Duplex> =>
  new Promise((resolve, reject) => {
    const s: Socket = connect({ path: socketPath! }, () => resolve(s));
    s.once('error', reject);
  });

async function pass(perPort: boolean): Promise<number> {
  const client = await OvsdbClient.connect('unix:/nonexistent', {
    reconnect: false,
    probeIntervalMs: 0,
    openStream: () => (socketPath ? openSocket() : Promise.resolve(fakeServer(replyText(perPort)))),
  });
  const vs = new VSwitch(client);
  client.useSchema(vs.db, bundledVswitchSchema());
  const specs = Array.from({ length: N }, (_v, i) => ({ name: `p${i}`, externalIds: ids(i) }));
  const c0 = process.cpuUsage();
  if (perPort) await Promise.all(specs.map((p) => vs.addPort('br-bench', p.name, p).then(unwrap)));
  else unwrap(await vs.addPorts('br-bench', specs));
  const c = process.cpuUsage(c0);
  client.close();
  return (c.user + c.system) / 1000;
}

async function main(): Promise<void> {
  if (process.env['BENCH_SOCKET'] === '1') await startChild();
  const which = process.env['BENCH_CASES']?.split(',');
  for (const [name, perPort] of [['perPortPipelined', true], ['batched', false]] as const) {
    if (which && !which.includes(name)) continue;
    const ms: number[] = [];
    for (let i = 0; i < PASSES; i++) ms.push(await pass(perPort));
    if (process.env['BENCH_VERBOSE']) console.log(ms.map((x) => x.toFixed(1)).join(' '));
    ms.sort((a, b) => a - b);
    console.log(`${name}: CPU ms per pass min ${ms[0]!.toFixed(1)}, median ${ms[ms.length >> 1]!.toFixed(1)} (${PASSES} passes, ${N} ports)`);
  }
}

if (process.argv[2] === 'serve') serve(process.argv[3]!);
else void main().then(() => process.exit(0));
