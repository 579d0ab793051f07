// The host-local compatible store on a temp directory: order, format, idempotency, GC, repair.
// An in-process lock stands in for flock(2); other processes: test-integration/host-local-processes.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import { IpamError, type DirLock, type HostLocalStoreOptions } from '@switchyard/ipam';
import { att, hostLocalFixture, v4 } from './host-local-fixture';
import { InProcessLock } from './in-process-lock';

const { open, dir } = hostLocalFixture(() => new InProcessLock());

describe('HostLocalStore', () => {
  it('writes the address file, last_reserved_ip and lock exactly as host-local does', async () => {
    const s = await open(v4);
    const [a] = await s.add(att('c1'));
    expect(a?.ip.toString()).toBe('10.1.0.2');
    expect(a?.gateway?.toString()).toBe('10.1.0.1');
    expect(a?.subnet.toString()).toBe('10.1.0.0/29');
    expect(fs.readFileSync(path.join(dir(), '10.1.0.2'), 'utf8')).toBe('c1\r\neth0');
    expect(fs.readFileSync(path.join(dir(), 'last_reserved_ip.0'), 'utf8')).toBe('10.1.0.2');
    expect(fs.readdirSync(dir()).sort()).toEqual(['10.1.0.2', 'last_reserved_ip.0', 'lock']);
  });

  it('syncs each new address file and its directory to disk before the allocation returns (durable: false skips it)', async () => {
    const spy = jest.spyOn(fs, 'fsyncSync');
    try {
      const s = await open(v4);
      spy.mockClear();
      await s.add(att('c1'));
      expect(spy).toHaveBeenCalledTimes(2);
      await s.close();
      const fast = await open(v4, { durable: false });
      spy.mockClear();
      await fast.add(att('c2'));
      expect(spy).not.toHaveBeenCalled();
      expect(fs.readdirSync(dir()).sort()).toEqual(['10.1.0.2', '10.1.0.3', 'last_reserved_ip.0', 'lock']);
    } finally {
      spy.mockRestore();
    }
  });

  it('allocates round-robin after the last reserved address, skipping the gateway, and wraps', async () => {
    const s = await open(v4);
    const got: string[] = [];
    for (const id of ['a', 'b', 'c']) got.push(String((await s.add(att(id)))[0]?.ip));
    await s.del(att('a'));
    for (const id of ['d', 'e', 'f']) got.push(String((await s.add(att(id)))[0]?.ip));
    // .2 was freed, but round-robin continues after .4 (the last reserved) and wraps to .2
    expect(got).toEqual(['10.1.0.2', '10.1.0.3', '10.1.0.4', '10.1.0.5', '10.1.0.6', '10.1.0.2']);
    await expect(s.add(att('g'))).rejects.toMatchObject({ code: 'EXHAUSTED' });
  });

  it('returns the same addresses for a repeated ADD and frees nothing twice on DEL', async () => {
    const s = await open([[{ subnet: '10.1.0.0/24' }], [{ subnet: 'fd00::/120' }]]);
    const first = (await s.add(att('c1'))).map((a) => a.ip.toString());
    expect(first).toEqual(['10.1.0.2', 'fd00::2']);
    expect((await s.add(att('c1'))).map((a) => a.ip.toString())).toEqual(first);
    expect((await s.add(att('c1', 'eth1'))).map((a) => a.ip.toString())).toEqual(['10.1.0.3', 'fd00::3']);
    expect((await s.del(att('c1'))).map(String).sort()).toEqual(['10.1.0.2', 'fd00::2']);
    expect(await s.del(att('c1'))).toEqual([]);
    expect((await s.list()).map((e) => e.ip.toString()).sort()).toEqual(['10.1.0.3', 'fd00::3']);
  });

  it('honours a requested address and refuses the gateway or a taken one', async () => {
    const s = await open([[{ subnet: '10.1.0.0/24', rangeStart: '10.1.0.10', rangeEnd: '10.1.0.20' }]]);
    expect(String((await s.add(att('a'), ['10.1.0.15']))[0]?.ip)).toBe('10.1.0.15');
    await expect(s.add(att('b'), ['10.1.0.15'])).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    await expect(s.add(att('b'), ['10.1.0.30'])).rejects.toMatchObject({ code: 'OUTSIDE_POOL' });
    expect(String((await s.add(att('b')))[0]?.ip)).toBe('10.1.0.16');
  });

  it('gives back the first family when the second is exhausted', async () => {
    const s = await open([[{ subnet: '10.1.0.0/24' }], [{ subnet: 'fd00::/126' }]]);
    await s.add(att('a'));
    await s.add(att('b'));
    await expect(s.add(att('c'))).rejects.toBeInstanceOf(IpamError);
    expect((await s.list()).filter((e) => e.containerId === 'c')).toEqual([]);
  });

  it('frees on GC every address whose attachment is not live', async () => {
    const s = await open(v4);
    for (const id of ['a', 'b', 'c']) await s.add(att(id));
    fs.writeFileSync(path.join(dir(), '10.1.0.6'), 'legacy-id');
    const freed = await s.gc([att('b'), att('legacy-id', 'eth3')]);
    expect(freed.map(String).sort()).toEqual(['10.1.0.2', '10.1.0.4']);
    expect((await s.list()).map((e) => [e.ip.toString(), e.containerId, e.legacy])).toEqual(
      expect.arrayContaining([
        ['10.1.0.3', 'b', false],
        ['10.1.0.6', 'legacy-id', true],
      ]),
    );
  });

  it('takes over an existing directory and repairs files a crashed writer left empty', async () => {
    fs.mkdirSync(dir(), { recursive: true });
    fs.writeFileSync(path.join(dir(), '10.1.0.3'), 'old\r\neth0');
    fs.writeFileSync(path.join(dir(), '10.1.0.4'), '');
    fs.writeFileSync(path.join(dir(), '10.1.0.5'), 'legacy\n');
    fs.writeFileSync(path.join(dir(), 'last_reserved_ip.0'), '10.1.0.2');
    const s = await open(v4);
    expect(fs.existsSync(path.join(dir(), '10.1.0.4'))).toBe(false);
    expect(String((await s.add(att('new')))[0]?.ip)).toBe('10.1.0.4');
    expect(String((await s.add(att('old')))[0]?.ip)).toBe('10.1.0.3');
    expect((await s.del(att('legacy', 'eth9'))).map(String)).toEqual(['10.1.0.5']);
  });

  it('runs concurrent requests in one lock acquisition without handing an address out twice', async () => {
    const s = await open([[{ subnet: '10.2.0.0/24' }]]);
    const all = await Promise.all(Array.from({ length: 100 }, (_, i) => s.add(att(`c${i}`))));
    const ips = all.map((a) => String(a[0]?.ip));
    expect(new Set(ips).size).toBe(100);
    const batch = await s.batch((tx) => [tx.add(att('x'))[0]?.ip.toString(), tx.del(att('c0')).map(String)]);
    expect(batch).toEqual(['10.2.0.102', ['10.2.0.2']]);
  });

  it('refuses host-local configurations host-local refuses, naming the field', async () => {
    for (const [ranges, p] of [
      [[[{ subnet: '10.1.0.0/31' }]], 'ranges[0][0].subnet'],
      [[[{ subnet: '10.1.0.1/24' }]], 'ranges[0][0].subnet'],
      [[[{ subnet: '10.1.0.0/24', rangeStart: '10.2.0.1' }]], 'ranges[0][0].rangeStart'],
      [[[{ subnet: '10.1.0.0/24' }, { subnet: 'fd00::/64' }]], 'ranges[0]'],
      [[[{ subnet: '10.1.0.0/24' }], [{ subnet: '10.1.0.0/25' }]], 'ranges[1][0]'],
    ] as const) {
      await expect(open(ranges as unknown as HostLocalStoreOptions['ranges'])).rejects.toMatchObject({ code: 'INVALID_CONFIG', path: p });
    }
  });

  it('shares one lock acquisition among sequential calls only when asked to linger', async () => {
    const counted = (inner: DirLock) => {
      let n = 0;
      return { lock: { acquire: () => (n++, inner.acquire()), release: () => inner.release(), close: () => inner.close() }, count: () => n };
    };
    const plain = counted(new InProcessLock());
    const a = await open(v4, { network: 'a', lock: plain.lock });
    for (const id of ['a', 'b', 'c']) await a.add(att(id));
    expect(plain.count()).toBe(4);
    const lingering = counted(new InProcessLock());
    const b = await open(v4, { network: 'b', lock: lingering.lock, lockHoldMs: 10_000 });
    for (const id of ['a', 'b', 'c']) await b.add(att(id));
    expect(lingering.count()).toBeLessThan(4);
    expect((await b.list()).length).toBe(3);
  });
});
