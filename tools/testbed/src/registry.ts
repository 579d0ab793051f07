// On-disk record of what each testbed run created, so a crashed run's leftovers can be reaped.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where run records live; overridable for tests of the reaper itself. */
export function registryDir(): string {
  return process.env.SWITCHYARD_TESTBED_REGISTRY ?? '/run/switchyard-testbed';
}

/** Everything one run created. Order of cleanup: processes, netns, links, dirs. */
export interface RunRecord {
  prefix: string;
  ownerPid: number;
  /** The owner's start time (clock ticks since boot), to tell a dead owner from a reused pid. */
  ownerStart: string;
  pidfiles: string[];
  pids: number[];
  netns: string[];
  links: string[];
  dirs: string[];
}

export function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces) start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
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
      out.push(JSON.parse(readFileSync(join(dir, f), 'utf8')) as RunRecord);
    } catch {
      rmSync(join(dir, f), { force: true });
    }
  }
  return out;
}
