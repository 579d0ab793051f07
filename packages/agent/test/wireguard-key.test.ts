// The key keeper both WireGuard devices share: load or make, the three rotation triggers (file
// removed, file replaced, age on the clock), a refused file, and a failed install kept on disk.
import { mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '@switchyard/runtime';
import { ManualClock } from '@switchyard/runtime/testing';
import { WireGuardKey } from '../src/features/wireguard/key';
import { generatePrivateKey, publicKeyOf } from '../src/features/wireguard/wireguard';

const HOUR = 60 * 60 * 1000;
let dir: string;
let clock: ManualClock;
let due: number;
let installed: [string, string][];
const install = async (priv: string, pub: string): Promise<void> => void installed.push([priv, pub]);

function keeper(periodMs?: number): WireGuardKey {
  return new WireGuardKey({ file: join(dir, 'private.key'), clock, log: silentLogger, label: 'test', onCheckDue: () => due++, ...(periodMs !== undefined ? { periodMs } : {}) });
}

async function until(what: string, probe: () => boolean): Promise<void> {
  for (const t0 = Date.now(); !probe(); await new Promise((r) => setTimeout(r, 10))) {
    if (Date.now() - t0 > 5000) throw new Error(`not reached: ${what}`);
  }
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sy-wgkey-'));
  clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
  due = 0;
  installed = [];
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('makes a key the first time and loads the same one afterwards', () => {
  const a = keeper();
  expect(a.load()).toEqual({ created: true });
  expect(a.publicKey).toBe(publicKeyOf(a.privateKey));
  expect(readFileSync(join(dir, 'private.key'), 'utf8').trim()).toBe(a.privateKey);
  const b = keeper();
  expect(b.load()).toEqual({ created: false });
  expect(b.privateKey).toBe(a.privateKey);
});

it('rotates when the key comes of age on the clock, and arms the next check one period later', async () => {
  const k = keeper(24 * HOUR);
  k.load();
  const first = k.publicKey;
  expect(await k.rotateIfDue(install)).toBe(false);
  expect(installed).toEqual([]);
  clock.advance(24 * HOUR - 1);
  expect(due).toBe(0);
  clock.advance(1);
  expect(due).toBe(1);
  expect(await k.rotateIfDue(install)).toBe(true);
  expect(k.rotations).toBe(1);
  expect(k.publicKey).not.toBe(first);
  expect(installed).toEqual([[k.privateKey, k.publicKey]]);
  expect(readFileSync(join(dir, 'private.key'), 'utf8').trim()).toBe(k.privateKey);
  clock.advance(24 * HOUR);
  expect(due).toBe(2);
});

it('a removed key file asks for a check at once and brings a new key; a file holding another key is used as is', async () => {
  const k = keeper();
  k.load();
  k.watch();
  expect(due).toBe(1);
  const first = k.privateKey;
  unlinkSync(join(dir, 'private.key'));
  await until('a check asked for after the removal', () => due >= 2);
  expect(await k.rotateIfDue(install)).toBe(true);
  expect(k.privateKey).not.toBe(first);
  const operators = generatePrivateKey();
  const before = due;
  writeFileSync(join(dir, 'private.key'), `${operators}\n`);
  await until('a check asked for after the replacement', () => due > before);
  expect(await k.rotateIfDue(install)).toBe(true);
  expect(k.privateKey).toBe(operators);
  expect(k.rotations).toBe(2);
  k.stop();
});

it('a file holding no key is refused (the key stays, the problem is named) until it is right again', async () => {
  const k = keeper();
  k.load();
  const kept = k.privateKey;
  writeFileSync(join(dir, 'private.key'), 'not a key\n');
  expect(await k.rotateIfDue(install)).toBe(false);
  expect(k.privateKey).toBe(kept);
  expect(k.problem).toMatch(/does not hold a base64 32-byte WireGuard private key/);
  writeFileSync(join(dir, 'private.key'), `${kept}\n`);
  expect(await k.rotateIfDue(install)).toBe(false);
  expect(k.problem).toBeUndefined();
});

it('a failed install leaves the new key on disk and the old one current; the next check installs it', async () => {
  const k = keeper();
  k.load();
  const old = k.privateKey;
  unlinkSync(join(dir, 'private.key'));
  await expect(k.rotateIfDue(async () => Promise.reject(new Error('device gone')))).rejects.toThrow('device gone');
  expect(k.privateKey).toBe(old);
  const onDisk = readFileSync(join(dir, 'private.key'), 'utf8').trim();
  expect(onDisk).not.toBe(old);
  expect(await k.rotateIfDue(install)).toBe(true);
  expect(k.privateKey).toBe(onDisk);
});
