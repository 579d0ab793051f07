// Multi-process stress: this store and the real host-local share one directory, workers are
// killed with -9 at random, then an audit proves no address was held twice and none leaked past GC.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HostLocalStore } from '../src/index';

const network = 'stressnet';
const ranges = [[{ subnet: '10.50.0.0/28' }], [{ subnet: 'fd00:50::/124' }]];
const worker = path.join(__dirname, 'fixtures', 'stress-worker.ts');
const OPS = 80;

interface Running {
  name: string;
  journal: string;
  child: ChildProcess;
  exited: Promise<void>;
  killed: boolean;
}

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ipam-stress-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function start(name: string, mode: 'ours' | 'hl', seed: number, ops = OPS): Running {
  const journal = path.join(tmp, `${name}.journal`);
  // detached: its own process group, so kill -9 takes its perl helper or host-local child too
  const child = spawn(process.execPath, ['--import', 'tsx', worker, mode, tmp, network, JSON.stringify(ranges), name, String(ops), journal, String(seed)], {
    cwd: path.join(__dirname, '..'),
    detached: true,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return { name, journal, child, exited, killed: false };
}

const journalLines = (r: Running): string[] => (fs.existsSync(r.journal) ? fs.readFileSync(r.journal, 'utf8').split('\n') : []);

/** Kills the worker's whole process group once its journal reaches `atLine` (mid-run, at a random step). */
async function killAt(r: Running, atLine: number): Promise<void> {
  let done = false;
  void r.exited.then(() => (done = true));
  while (!done) {
    const lines = journalLines(r);
    if (lines.includes('DONE')) return;
    if (lines.length >= atLine) return killGroup(r);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function killGroup(r: Running): void {
  r.killed = true;
  try {
    process.kill(-(r.child.pid as number), 'SIGKILL');
  } catch {
    /* already gone */
  }
}

/** Last known state of each container from the journals. */
function replay(runs: Running[]) {
  const held = new Map<string, { ips: string[]; worker: Running }>();
  const violations: string[] = [];
  const crashes: string[] = [];
  for (const r of runs) {
    const lines = fs.existsSync(r.journal) ? fs.readFileSync(r.journal, 'utf8').split('\n') : [];
    for (const line of lines) {
      const [kind, id, ips] = line.split(' ');
      if (kind === 'ADD') held.set(id as string, { ips: (ips as string).split(','), worker: r });
      // From BEGIN-DEL on, the addresses may be free (a worker killed mid-DEL): no longer held.
      if (kind === 'BEGIN-DEL' || kind === 'DEL') held.delete(id as string);
      if (kind === 'VIOLATION') violations.push(line);
      if (kind === 'CRASH') crashes.push(`${r.name}: ${line}`);
    }
    if (!r.killed && !lines.includes('DONE')) crashes.push(`${r.name} did not finish`);
  }
  return { held, violations, crashes };
}

it('never hands one address to two containers and leaks nothing past GC, with kill -9 at random', async () => {
  const seed = Number(process.env['STRESS_SEED'] ?? Date.now() % 100000);
  let s = seed;
  const rand = () => ((s = (s * 48271) % 2147483647) / 2147483647);
  // one of ours and one host-local worker run without end until killed at a random step
  const victimIds = [Math.floor(rand() * 3) * 2, Math.floor(rand() * 3) * 2 + 1];
  const phase1 = [0, 1, 2, 3, 4, 5].map((i) => start(`w${i}`, i % 2 === 0 ? 'ours' : 'hl', seed + i, victimIds.includes(i) ? 1_000_000 : OPS));
  const victims = victimIds.map((i) => phase1[i] as Running);
  await Promise.all(victims.map((v) => killAt(v, 10 + Math.floor(rand() * OPS))));
  await Promise.all(phase1.map((r) => r.exited));
  expect(victims.map((v) => v.killed)).toEqual([true, true]);
  // a second wave works on the directory the killed ones left behind
  const phase2 = [start('w6', 'ours', seed + 6), start('w7', 'hl', seed + 7)];
  await Promise.all(phase2.map((r) => r.exited));

  const runs = [...phase1, ...phase2];
  const { held, violations, crashes } = replay(runs);
  const context = `seed=${seed} killed=${victims.filter((v) => v.killed).map((v) => v.name).join(',')}`;
  expect({ context, crashes, violations }).toEqual({ context, crashes: [], violations: [] });

  // no address is held by two containers (killed workers' containers still count: nobody freed them)
  const owner = new Map<string, string>();
  for (const [id, { ips }] of held) {
    for (const ip of ips) {
      expect({ ip, first: owner.get(ip) ?? id, second: id, context }).toEqual({ ip, first: id, second: id, context });
      owner.set(ip, id);
    }
  }
  // every held address is on disk under its holder: nothing lost
  const dir = path.join(tmp, network);
  for (const [ip, id] of owner) expect([ip, fs.readFileSync(path.join(dir, ip), 'utf8')]).toEqual([ip, `${id}\r\neth0`]);

  // GC with the containers of the surviving workers as live: exactly their addresses remain
  const live = [...held].filter(([, h]) => !h.worker.killed).map(([containerId]) => ({ containerId, ifname: 'eth0' }));
  const store = await HostLocalStore.open({ dataDir: tmp, network, ranges });
  try {
    await store.gc(live);
    const left = (await store.list()).map((e) => `${e.containerId}=${e.ip.toString()}`).sort();
    const want = [...held].filter(([, h]) => !h.worker.killed).flatMap(([id, h]) => h.ips.map((ip) => `${id}=${ip}`)).sort();
    expect(left).toEqual(want);
    const files = fs.readdirSync(dir).filter((f) => f !== 'lock' && !f.startsWith('last_reserved_ip.'));
    expect(files.sort()).toEqual(want.map((w) => w.split('=')[1] as string).sort());
  } finally {
    await store.close();
  }
  // the run really mixed both allocators and really exhausted the range at times
  const adds = (mode: number) => runs.filter((_, i) => i % 2 === mode).flatMap(journalLines).filter((l) => l.startsWith('ADD ')).length;
  expect(adds(0)).toBeGreaterThan(5); // this store (w0, w2, w4, w6)
  expect(adds(1)).toBeGreaterThan(5); // host-local (w1, w3, w5, w7)
  // the only failure allowed is a full range
  const failures = new Set(runs.flatMap(journalLines).filter((l) => l.startsWith('FAIL ')).map((l) => l.replace(/^FAIL \S+ /, '').replace(/range set: .*/, 'range set')));
  expect([...failures].filter((f) => !f.includes('no IP addresses available'))).toEqual([]);
  expect(failures.size).toBeGreaterThan(0);
});

it('releases the lock when only the allocating process is killed -9 (its helper sees stdin close)', async () => {
  const r = start('solo', 'ours', 1, 1_000_000);
  // kill the Node process alone, mid-run: the perl helper is not signalled
  while (journalLines(r).length < 20) await new Promise((resolve) => setTimeout(resolve, 5));
  process.kill(r.child.pid as number, 'SIGKILL');
  await r.exited;
  const lockFile = path.join(tmp, network, 'lock');
  const got = spawnSync('flock', ['-w', '20', lockFile, 'true']);
  expect(got.status).toBe(0);
  // and the directory it left is usable: a new store opens, repairs and allocates
  const store = await HostLocalStore.open({ dataDir: tmp, network, ranges });
  try {
    await store.gc([]);
    expect((await store.add({ containerId: 'after', ifname: 'eth0' })).length).toBe(2);
  } finally {
    await store.close();
  }
});
