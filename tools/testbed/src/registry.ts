// On-disk record of what each testbed run created, so a crashed run's leftovers can be reaped.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where run records live; overridable for tests of the reaper itself. */
export function registryDir(): string {
  return process.env.SWITCHYARD_TESTBED_REGISTRY ?? '/run/switchyard-testbed';
}

/**
 * A process as recorded: its pid and its start time (clock ticks since boot). PIDs are reused
 * (pid_max is 32768 on many machines and the lab starts thousands of short processes), so a pid
 * alone never identifies a process: it is signalled only while its start time still matches.
 */
export interface ProcessRef {
  pid: number;
  start: string;
}

/** Everything one run created. Order of cleanup: processes, netns, links, dirs. */
export interface RunRecord {
  prefix: string;
  ownerPid: number;
  /** The owner's start time (clock ticks since boot), to tell a dead owner from a reused pid. */
  ownerStart: string;
  /** Daemons' pidfiles; a pid read from one is signalled only if that process names the file (`--pidfile=<file>`). */
  pidfiles: string[];
  procs: ProcessRef[];
  netns: string[];
  links: string[];
  dirs: string[];
}

/**
 * The start time of the running process `pid`, or undefined when there is none. A zombie (state Z
 * or X: exited, not yet reaped) counts as none: it runs nothing, and its pid cannot be reused until
 * it is reaped. This matters where PID 1 reaps orphans late (a daemon started with `--detach` is
 * an orphan: in these sandboxes its zombie stays about 1.5 s), so a wait for a daemon to exit ends
 * when it has exited.
 */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces) start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] === 'Z' || fields[0] === 'X') return undefined;
    return fields[19];
  } catch {
    return undefined;
  }
}

export function isAlive(pid: number, start?: string): boolean {
  const actual = processStartTime(pid);
  if (actual === undefined) return false;
  return start === undefined || actual === start;
}

/** The running process `pid` as a {@link ProcessRef}, or undefined when there is none. */
export function processRef(pid: number): ProcessRef | undefined {
  const start = processStartTime(pid);
  return start === undefined ? undefined : { pid, start };
}

/**
 * Signals `ref` only if the process with that pid is still the one recorded (same start time);
 * returns whether it was signalled. Never signals a stranger that took over the pid.
 */
export function signalProcess(ref: ProcessRef, signal: NodeJS.Signals): boolean {
  if (!(ref.pid > 0) || processStartTime(ref.pid) !== ref.start) return false;
  try {
    process.kill(ref.pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** The argv of a running process (empty when it is gone). */
function cmdline(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return [];
  }
}

/**
 * The process a daemon's pidfile names, only when that process was started with
 * `--pidfile=<file>` (as the testbed starts ovsdb-server and ovs-vswitchd): a stale pidfile whose
 * pid now belongs to something else yields undefined.
 */
export function pidfileProcess(file: string): ProcessRef | undefined {
  let pid: number;
  try {
    pid = Number(readFileSync(file, 'utf8').trim());
  } catch {
    return undefined;
  }
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  const ref = processRef(pid);
  if (!ref || !cmdline(pid).includes(`--pidfile=${file}`)) return undefined;
  // Read the start time again after the argv check: the pid cannot have changed hands in between.
  return processStartTime(pid) === ref.start ? ref : undefined;
}

export function writeRecord(rec: RunRecord): void {
  const dir = registryDir();
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${rec.prefix}.json`);
  writeFileSync(`${file}.tmp`, JSON.stringify(rec));
  renameSync(`${file}.tmp`, file);
}

export function removeRecord(prefix: string): void {
  rmSync(join(registryDir(), `${prefix}.json`), { force: true });
}

export function readRecords(): RunRecord[] {
  const dir = registryDir();
  if (!existsSync(dir)) return [];
  const out: RunRecord[] = [];
  for (const f of readdirSync(dir)) {
    if (!f.endsWith('.json')) continue;
    try {
      const rec = JSON.parse(readFileSync(join(dir, f), 'utf8')) as RunRecord & { pids?: number[] };
      // Records of older versions list bare pids, which cannot be told from reused ones: dropped.
      out.push({ ...rec, procs: rec.procs ?? [] });
    } catch {
      rmSync(join(dir, f), { force: true });
    }
  }
  return out;
}
