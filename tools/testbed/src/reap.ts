// Removes what dead testbed runs left behind: processes, namespaces, interfaces, directories.
// Only processes proven to be the run's own are signalled: a recorded pid whose start time still
// matches, a pidfile's pid whose process names that pidfile, or a process inside one of the run's
// network namespaces (checked by the namespace's inode just before the signal).
import { readdirSync, rmSync, statSync } from 'node:fs';
import { run } from './exec';
import { isAlive, pidfileProcess, processRef, readRecords, removeRecord, signalProcess, type RunRecord } from './registry';

/** Identity of a network namespace: its nsfs inode. */
function netnsId(path: string): string | undefined {
  try {
    const st = statSync(path);
    return `${st.dev}:${st.ino}`;
  } catch {
    return undefined;
  }
}

/** SIGKILLs every process whose network namespace is `ns` (one of the run's own). */
export function killNetnsProcesses(ns: string): number {
  const id = netnsId(`/run/netns/${ns}`);
  if (!id) return 0;
  let killed = 0;
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) continue;
    const ref = processRef(pid);
    if (!ref || netnsId(`/proc/${pid}/ns/net`) !== id) continue;
    if (signalProcess(ref, 'SIGKILL')) killed++;
  }
  return killed;
}

/** Deletes everything named in `rec` (idempotent; missing things are fine). */
export async function cleanupRecord(rec: RunRecord): Promise<void> {
  for (const file of rec.pidfiles) {
    const ref = pidfileProcess(file);
    if (ref) signalProcess(ref, 'SIGKILL');
  }
  for (const ref of rec.procs) signalProcess(ref, 'SIGKILL');
  // Interfaces in the default namespace first; deleting a netns removes everything inside it.
  for (const link of rec.links) await run(['ip', 'link', 'del', link], { allowFailure: true });
  for (const ns of rec.netns) {
    // Processes still inside a namespace keep it alive: kill them first.
    killNetnsProcesses(ns);
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
