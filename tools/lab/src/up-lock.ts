/**
 * One `switchyard-lab up` at a time per lab directory. The running lab's state file says a lab is
 * up only once it is written, about ten seconds into `up`; two `up`s started in that window both
 * found no lab, and started two labs over one directory, each tearing down the other's (seen when a
 * demo ran beside a lab test). `up` now holds `<labDir>/up.lock` (created exclusively, holding its
 * pid and start time) from its check until the state is written or the start failed.
 */
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { isAlive, processRef, type ProcessRef } from '@switchyard/testbed';
import { LabError } from './plan';

export const upLockFile = (labDir: string): string => join(labDir, 'up.lock');

function holderOf(file: string): ProcessRef | undefined {
  try {
    const v = JSON.parse(readFileSync(file, 'utf8')) as Partial<ProcessRef>;
    return typeof v.pid === 'number' && typeof v.start === 'string' ? { pid: v.pid, start: v.start } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Takes the lock for this process, or throws ALREADY_RUNNING naming the `up` that holds it. A lock
 * left by a process that is gone (same pid, other start time, or none) is taken over. Returns the
 * release, which removes the file only while it is still this process's.
 */
export function acquireUpLock(labDir: string, self: ProcessRef | undefined = processRef(process.pid)): () => void {
  if (!self) throw new LabError('START_FAILED', `cannot read this process's start time (pid ${process.pid})`);
  mkdirSync(labDir, { recursive: true });
  const file = upLockFile(labDir);
  for (let attempt = 0; attempt < 3; attempt++) {
    let fd: number;
    try {
      fd = openSync(file, 'wx', 0o644);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const holder = holderOf(file);
      if (holder && isAlive(holder.pid, holder.start)) {
        throw new LabError('ALREADY_RUNNING', `another switchyard-lab up (pid ${holder.pid}) is starting a lab in ${labDir}; wait for it, or run switchyard-lab down`, holder.pid);
      }
      // Left by an `up` that is gone (or half written by one that died at once): take it over.
      rmSync(file, { force: true });
      continue;
    }
    try {
      writeSync(fd, JSON.stringify(self));
    } finally {
      closeSync(fd);
    }
    return () => {
      const holder = holderOf(file);
      if (holder && holder.pid === self.pid && holder.start === self.start) rmSync(file, { force: true });
    };
  }
  throw new LabError('ALREADY_RUNNING', `could not take ${file}: other processes keep creating it`);
}
