import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processRef } from '@switchyard/testbed';
import { acquireUpLock, upLockFile } from '../src/up-lock';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'lab-up-lock-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('one up at a time: a second is refused naming the holder, until the first releases', () => {
  const release = acquireUpLock(dir);
  expect(JSON.parse(readFileSync(upLockFile(dir), 'utf8'))).toEqual(processRef(process.pid));
  expect(() => acquireUpLock(dir)).toThrow(expect.objectContaining({ code: 'ALREADY_RUNNING', message: expect.stringContaining(`pid ${process.pid}`) }));
  release();
  expect(existsSync(upLockFile(dir))).toBe(false);
  acquireUpLock(dir)();
});

it('a lock left by a process that is gone (same pid, another start time) or an unreadable one is taken over', () => {
  const me = processRef(process.pid)!;
  writeFileSync(upLockFile(dir), JSON.stringify({ pid: me.pid, start: `${me.start}0` }));
  const release = acquireUpLock(dir);
  expect(JSON.parse(readFileSync(upLockFile(dir), 'utf8'))).toEqual(me);
  release();
  writeFileSync(upLockFile(dir), '{"pid":');
  acquireUpLock(dir)();
});

it("a release leaves another up's lock alone", () => {
  const release = acquireUpLock(dir);
  const other = { pid: process.pid, start: 'another start' };
  writeFileSync(upLockFile(dir), JSON.stringify(other));
  release();
  expect(JSON.parse(readFileSync(upLockFile(dir), 'utf8'))).toEqual(other);
});
