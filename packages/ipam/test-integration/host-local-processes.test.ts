// The host-local compatible store and other processes on the same directory: util-linux flock
// writing under the same lock (the default perl helper holds it here). External tools, so an
// integration test; the store's own logic is unit-tested with an in-process lock.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { att, hostLocalFixture, v4 } from '../test/host-local-fixture';

const { open, dir } = hostLocalFixture();

describe('HostLocalStore', () => {
  it('notices changes made by another process between its own operations', async () => {
    const s = await open(v4);
    await s.add(att('a'));
    const scans = s.rescans;
    for (const id of ['b', 'c']) await s.add(att(id));
    expect(s.rescans).toBe(scans);
    // another process takes .5 and frees .2, under the same flock
    await new Promise<void>((resolve, reject) =>
      spawn('flock', [path.join(dir(), 'lock'), 'sh', '-c', "printf 'other\\r\\neth0' > 10.1.0.5 && rm 10.1.0.2"], { cwd: dir(), stdio: 'inherit' })
        .on('error', reject)
        .on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`flock writer exited ${code}`)))),
    );
    expect(fs.readFileSync(path.join(dir(), '10.1.0.5'), 'utf8')).toBe('other\r\neth0');
    expect(String((await s.add(att('d')))[0]?.ip)).toBe('10.1.0.6');
    expect(s.rescans).toBe(scans + 1);
    expect(String((await s.add(att('e')))[0]?.ip)).toBe('10.1.0.2');
    expect((await s.get(att('other'))).map((e) => e.ip.toString())).toEqual(['10.1.0.5']);
  });
});
