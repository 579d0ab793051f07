// Liveness by /proc: a process that has exited but is not yet reaped (a zombie) is not running.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { isAlive, processRef, processStartTime } from '../src/registry';

const state = (pid: number): string | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
};

describe('processStartTime', () => {
  it('gives a running process its start time, and a zombie none', async () => {
    // The shell starts a child that lives 3 s, prints its pid and becomes `sleep`, which never
    // waits for it: once the child exits it stays a zombie for as long as the sleep runs.
    const parent = spawn('sh', ['-c', 'sleep 3 & echo $!; exec sleep 60'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const line = await new Promise<string>((resolve) => parent.stdout.once('data', (d: Buffer) => resolve(d.toString())));
      const child = Number(line.trim());
      expect(processStartTime(child)).toMatch(/^\d+$/);
      for (let i = 0; i < 1000 && state(child) !== 'Z'; i++) await new Promise((r) => setTimeout(r, 20));
      expect(state(child)).toBe('Z');
      expect(processStartTime(child)).toBeUndefined();
      expect(isAlive(child)).toBe(false);
      expect(processRef(child)).toBeUndefined();
      expect(processStartTime(parent.pid!)).toMatch(/^\d+$/);
      expect(isAlive(parent.pid!, processStartTime(parent.pid!))).toBe(true);
    } finally {
      parent.kill('SIGKILL');
    }
  }, 30_000);
});
