// Removes what dead testbed runs left behind: processes, namespaces, interfaces, directories.
import { readFileSync, rmSync } from 'node:fs';
import { run } from './exec';
import { isAlive, readRecords, removeRecord, type RunRecord } from './registry';

function kill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    /* gone already */
  }
}

/** Deletes everything named in `rec` (idempotent; missing things are fine). */
export async function cleanupRecord(rec: RunRecord): Promise<void> {
  for (const file of rec.pidfiles) {
    try {
      const pid = Number(readFileSync(file, 'utf8').trim());
      if (pid > 0) kill(pid);
    } catch {
      /* no pidfile */
    }
  }
  for (const pid of rec.pids) kill(pid);
  // Interfaces in the default namespace first; deleting a netns removes everything inside it.
  for (const link of rec.links) await run(['ip', 'link', 'del', link], { allowFailure: true });
  for (const ns of rec.netns) {
    // Processes still inside a namespace keep it alive: kill them first.
    const pids = await run(['ip', 'netns', 'pids', ns], { allowFailure: true });
    for (const p of pids.stdout.split(/\s+/).filter(Boolean)) kill(Number(p));
    await run(['ip', 'netns', 'del', ns], { allowFailure: true });
  }
  for (const dir of rec.dirs) rmSync(dir, { recursive: true, force: true });
}

/** Cleans up after every recorded run whose owner process is gone; returns the prefixes reaped. */
export async function reapStale(): Promise<string[]> {
  const reaped: string[] = [];
  for (const rec of readRecords()) {
    if (isAlive(rec.ownerPid, rec.ownerStart || undefined)) continue;
    await cleanupRecord(rec);
    removeRecord(rec.prefix);
    reaped.push(rec.prefix);
  }
  return reaped;
}
