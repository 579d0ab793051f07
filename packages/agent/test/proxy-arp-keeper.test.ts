/**
 * The proxy-ARP keeper's script run by a real `sh` with a stand-in `ip` on PATH that records its
 * arguments: what it is told over its pipe, and what it removes when the pipe closes (the agent died).
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '@switchyard/runtime';
import { waitFor } from '@switchyard/testbed';
import { ProxyArpKeeper } from '../src/features/external-ip/keeper';

let dir: string;
let calls: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'keeper-'));
  calls = join(dir, 'calls');
  writeFileSync(join(dir, 'ip'), `#!/bin/sh\necho "$*" >> "${calls}"\n`);
  chmodSync(join(dir, 'ip'), 0o755);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const keeperWithFakeIp = (): ProxyArpKeeper =>
  new ProxyArpKeeper({
    dev: 'br-phy', nodeNetns: undefined, logger: silentLogger,
    spawnKeeper: (argv) => spawn(argv[0]!, argv.slice(1), { stdio: ['pipe', 'ignore', 'ignore'], env: { PATH: `${dir}:${process.env.PATH ?? ''}` } }),
  });
const recorded = (): string[] => (existsSync(calls) ? readFileSync(calls, 'utf8').trim().split('\n').sort() : []);

describe('the proxy-ARP keeper', () => {
  it('removes the proxy entry of every IP it still holds when its pipe closes, and only those', async () => {
    const k = keeperWithFakeIp();
    await k.hold('192.168.77.220');
    await k.hold('192.168.77.221');
    await k.hold('192.168.77.221');
    await k.hold('192.168.77.222');
    await k.drop('192.168.77.221');
    expect(k.holding).toEqual(['192.168.77.220', '192.168.77.222']);
    expect(recorded()).toEqual([]);
    await k.close();
    expect(recorded()).toEqual(['neigh del proxy 192.168.77.220 dev br-phy', 'neigh del proxy 192.168.77.222 dev br-phy']);
  });

  it('when the keeper is killed while the agent runs, a new one is started and told every IP held', async () => {
    const k = keeperWithFakeIp();
    await k.hold('10.0.0.9');
    const first = k.pid!;
    process.kill(first, 'SIGKILL');
    await waitFor('a new keeper', () => k.restarts === 1, { timeoutMs: 20_000, intervalMs: 20 });
    await k.hold('10.0.0.10');
    expect(k.pid).not.toBe(first);
    await k.close();
    expect(recorded()).toEqual(['neigh del proxy 10.0.0.10 dev br-phy', 'neigh del proxy 10.0.0.9 dev br-phy']);
  });

  it('holds IPv6 IPs as IPv4 ones and removes their proxy NDP entries when its pipe closes', async () => {
    const k = keeperWithFakeIp();
    await k.hold('fd00:77::c8');
    await k.hold('192.168.77.220');
    await k.hold('fd00:77::c9');
    await k.drop('fd00:77::c9');
    expect(k.holding).toEqual(['192.168.77.220', 'fd00:77::c8']);
    await k.close();
    expect(recorded()).toEqual(['neigh del proxy 192.168.77.220 dev br-phy', 'neigh del proxy fd00:77::c8 dev br-phy']);
  });

  it('refuses an IP that is not IPv4 or IPv6 in RFC 5952 form, naming it', async () => {
    const k = keeperWithFakeIp();
    await expect(k.hold('10.0.0.300')).rejects.toThrow(/10\.0\.0\.300/);
    await expect(k.hold('fd00:0077::c8')).rejects.toThrow('"fd00:0077::c8"');
    await expect(k.hold('fd00::1 *')).rejects.toThrow('"fd00::1 *"');
    expect(k.holding).toEqual([]);
    await k.close();
  });
});
