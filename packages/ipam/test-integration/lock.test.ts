// The flock helper: excludes util-linux flock, survives its helper being killed, releases on close.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FlockCommandLock, HostLocalStore, PerlHelperLock } from '@switchyard/ipam';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ipam-lock-'));
  fs.writeFileSync(path.join(dir, 'lock'), '');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const othersCanLock = (file: string) => spawnSync('flock', ['-n', file, 'true']).status === 0;

describe.each([
  ['perl helper', (f: string) => new PerlHelperLock(f)],
  ['flock command', (f: string) => new FlockCommandLock(f)],
])('%s lock', (_name, make) => {
  it('holds flock(2) on the file between acquire and release', async () => {
    const file = path.join(dir, 'lock');
    const lock = make(file);
    await lock.acquire();
    expect(othersCanLock(file)).toBe(false);
    lock.release();
    await lock.close();
    expect(othersCanLock(file)).toBe(true);
  });
});

it('starts a new helper when the old one was killed between operations', async () => {
  const lock = new PerlHelperLock(path.join(dir, 'lock'));
  const store = await HostLocalStore.open({ dataDir: dir, network: 'n', ranges: [[{ subnet: '10.9.0.0/24' }]], lock });
  await store.add({ containerId: 'a', ifname: 'eth0' });
  const pid = lock.helperPid as number;
  process.kill(pid, 'SIGKILL');
  await new Promise<void>((resolve) => {
    const wait = () => (lock.helperPid === undefined ? resolve() : setImmediate(wait));
    wait();
  });
  expect(String((await store.add({ containerId: 'b', ifname: 'eth0' }))[0]?.ip)).toBe('10.9.0.3');
  expect(lock.helperPid).not.toBe(pid);
  await store.close();
});
