// Cleanup and the reaper signal only the run's own processes. PIDs are reused, so a pid a run
// recorded may belong to a stranger by the time the run is cleaned up: a record whose process
// exited and whose pid now belongs to someone else is simulated by recording the stranger's pid
// with another start time (the start-time check is what tells them apart), and a stale pidfile
// by writing the stranger's pid into it.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanupRecord, isAlive, killNetnsProcesses, processRef, reapStale, Testbed, waitFor, type ProcessRef, type RunRecord } from '../src/index';

const children: ChildProcess[] = [];
/** A process this test owns by its handle (stopped in afterAll through that handle). */
function stranger(argv: string[] = ['sleep', '300']): { child: ChildProcess; ref: ProcessRef } {
  const child = spawn(argv[0]!, argv.slice(1), { stdio: 'ignore' });
  children.push(child);
  const ref = processRef(child.pid!);
  if (!ref) throw new Error('stranger did not start');
  return { child, ref };
}
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

const scratch = mkdtempSync(join(tmpdir(), 'testbed-strangers-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function record(over: Partial<RunRecord>): RunRecord {
  return { prefix: 'syzzzz', ownerPid: process.pid, ownerStart: processRef(process.pid)!.start, pidfiles: [], procs: [], netns: [], links: [], dirs: [], ...over };
}

describe('never signals a stranger', () => {
  it('leaves a process alone whose pid was recorded for another (exited) process', async () => {
    const s = stranger();
    await cleanupRecord(record({ procs: [{ pid: s.ref.pid, start: `${Number(s.ref.start) - 1}` }] }));
    expect(isAlive(s.ref.pid, s.ref.start)).toBe(true);
  });

  it('leaves a process alone that a stale pidfile names but that was not started with that pidfile', async () => {
    const s = stranger();
    const pidfile = join(scratch, 'vswitchd.pid');
    writeFileSync(pidfile, `${s.ref.pid}\n`);
    await cleanupRecord(record({ pidfiles: [pidfile] }));
    expect(isAlive(s.ref.pid, s.ref.start)).toBe(true);
  });

  it('does kill the recorded process itself while it still runs (same pid, same start time)', async () => {
    const s = stranger();
    const exited = new Promise((r) => s.child.once('exit', r));
    await cleanupRecord(record({ procs: [s.ref] }));
    await exited;
    expect(s.child.signalCode).toBe('SIGKILL');
  });

  it('kills the daemon its pidfile names when that daemon was started with the pidfile', async () => {
    const pidfile = join(scratch, 'daemon.pid');
    // A stand-in daemon whose argv carries --pidfile=<file>, as ovsdb-server and ovs-vswitchd do
    // (after `--`: node itself rejects an unknown option and exits at once with code 9, which made
    // this test a race between that exit and the kill).
    const d = stranger([process.execPath, '-e', 'setInterval(() => {}, 1000)', '--', `--pidfile=${pidfile}`]);
    await waitFor('the stand-in daemon running its script', () => isAlive(d.ref.pid, d.ref.start) && d.child.exitCode === null);
    writeFileSync(pidfile, `${d.ref.pid}\n`);
    const exited = new Promise((r) => d.child.once('exit', r));
    await cleanupRecord(record({ pidfiles: [pidfile] }));
    await exited;
    expect(d.child.signalCode).toBe('SIGKILL');
  });

  it('kills the processes inside its network namespace and nothing outside it', async () => {
    const tb = await Testbed.create({ reap: false });
    try {
      const ns = await tb.createNetns();
      const inside = spawn('ip', ['netns', 'exec', ns.name, 'sleep', '300'], { stdio: 'ignore' });
      children.push(inside);
      const outside = stranger();
      // `ip netns exec` has entered the namespace once the pid's netns is the one made above.
      const nsIno = statSync(`/run/netns/${ns.name}`).ino;
      await waitFor('sleep inside the netns', () => statSync(`/proc/${inside.pid}/ns/net`).ino === nsIno);
      const exited = new Promise((r) => inside.once('exit', r));
      expect(killNetnsProcesses(ns.name)).toBe(1);
      await exited;
      expect(inside.signalCode).toBe('SIGKILL');
      expect(isAlive(outside.ref.pid, outside.ref.start)).toBe(true);
    } finally {
      await tb.cleanup();
    }
  });

  it('the reaper of a dead run leaves a stranger on a reused pid alone', async () => {
    const registry = mkdtempSync(join(tmpdir(), 'testbed-registry-'));
    const prev = process.env.SWITCHYARD_TESTBED_REGISTRY;
    process.env.SWITCHYARD_TESTBED_REGISTRY = registry;
    try {
      const s = stranger();
      // A run whose owner is gone (its start time no longer matches) and whose recorded process
      // exited long ago: its pid is now the stranger's.
      writeFileSync(
        join(registry, 'syzzzz.json'),
        JSON.stringify(record({ ownerStart: 'gone', procs: [{ pid: s.ref.pid, start: '1' }], pidfiles: [join(scratch, 'nope.pid')] })),
      );
      writeFileSync(join(scratch, 'nope.pid'), `${s.ref.pid}\n`);
      expect(await reapStale()).toEqual(['syzzzz']);
      expect(isAlive(s.ref.pid, s.ref.start)).toBe(true);
    } finally {
      if (prev === undefined) delete process.env.SWITCHYARD_TESTBED_REGISTRY;
      else process.env.SWITCHYARD_TESTBED_REGISTRY = prev;
      rmSync(registry, { recursive: true, force: true });
    }
  });
});
