// Differential and interop tests against the real CNI host-local binary on real directories.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import type { HostLocalRange } from '../src/index';
import { hostLocalFixture } from '../test/host-local-fixture';
import { hostLocalSync } from './fixtures/host-local-bin';

const network = 'diffnet';
const fixture = hostLocalFixture(undefined, network);
const open = (dataDir: string, ranges: HostLocalRange[][]) => fixture.open(ranges, { dataDir });

/** Range layouts that exercise gateway skipping, several ranges per set and dual-stack. */
const layouts: HostLocalRange[][][] = [
  [[{ subnet: '10.10.0.0/28' }]],
  [[{ subnet: '10.10.0.0/29' }, { subnet: '10.10.1.0/29', rangeStart: '10.10.1.3', gateway: '10.10.1.4' }], [{ subnet: 'fd00:10::/125' }]],
  [[{ subnet: 'fd00:20::/124', rangeStart: 'fd00:20::8' }]],
];

type Op = { kind: 'add'; id: number } | { kind: 'del'; id: number };
const ops = fc.array(fc.record({ kind: fc.constantFrom<'add' | 'del'>('add', 'add', 'del'), id: fc.integer({ min: 0, max: 24 }) }), { minLength: 5, maxLength: 30 });

describe('host-local differential', () => {
  it('hands out the same addresses as host-local for the same ADD/DEL sequence', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...layouts.keys()), ops, async (layoutIndex, seq: Op[]) => {
        const ranges = layouts[layoutIndex] as HostLocalRange[][];
        const run = fs.mkdtempSync(path.join(fixture.root(), 'run-'));
        const ours = await open(path.join(run, 'ours'), ranges);
        const held = new Set<number>();
        for (const op of seq) {
          const containerId = `ctr-${op.id}`;
          // host-local refuses a second ADD of a holder; ours returns the same addresses (tested in unit tests)
          if (op.kind === 'add' && held.has(op.id)) continue;
          const ref = hostLocalSync({ command: op.kind === 'add' ? 'ADD' : 'DEL', dataDir: path.join(run, 'ref'), network, ranges, containerId });
          if (op.kind === 'add') {
            const got = await ours.add({ containerId, ifname: 'eth0' }).then(
              (a) => ({ ok: true, ips: a.map((x) => x.ip.toString()) }),
              () => ({ ok: false, ips: [] as string[] }),
            );
            expect({ op, ...got }).toEqual({ op, ok: ref.ok, ips: ref.ips });
            if (got.ok) held.add(op.id);
          } else {
            await ours.del({ containerId, ifname: 'eth0' });
            expect(ref.ok).toBe(true);
            held.delete(op.id);
          }
        }
        // and the two directories end up byte-identical
        const snapshot = (d: string) =>
          Object.fromEntries(fs.readdirSync(path.join(run, d, network)).sort().map((f) => [f, fs.readFileSync(path.join(run, d, network, f), 'utf8')]));
        expect(snapshot('ours')).toEqual(snapshot('ref'));
      }),
      { numRuns: 40 },
    );
  });

  it('continues a directory written by host-local, and host-local continues ours', async () => {
    const ranges = [[{ subnet: '10.20.0.0/28' }], [{ subnet: 'fd00:30::/124' }]];
    const call = (command: 'ADD' | 'DEL', containerId: string) => hostLocalSync({ command, dataDir: fixture.root(), network, ranges, containerId });
    expect(call('ADD', 'h1').ips).toEqual(['10.20.0.2', 'fd00:30::2']);
    expect(call('ADD', 'h2').ips).toEqual(['10.20.0.3', 'fd00:30::3']);
    const ours = await open(fixture.root(), ranges);
    expect((await ours.get({ containerId: 'h1', ifname: 'eth0' })).map((e) => e.ip.toString())).toEqual(['10.20.0.2', 'fd00:30::2']);
    expect((await ours.add({ containerId: 'o1', ifname: 'eth0' })).map((a) => a.ip.toString())).toEqual(['10.20.0.4', 'fd00:30::4']);
    // the store stays open (its lock helper alive) while host-local works on the same directory
    expect(call('ADD', 'h3').ips).toEqual(['10.20.0.5', 'fd00:30::5']);
    expect(call('DEL', 'o1').ok).toBe(true);
    expect((await ours.del({ containerId: 'h2', ifname: 'eth0' })).map(String).sort()).toEqual(['10.20.0.3', 'fd00:30::3']);
    expect((await ours.add({ containerId: 'o2', ifname: 'eth0' })).map((a) => a.ip.toString())).toEqual(['10.20.0.6', 'fd00:30::6']);
    expect(call('ADD', 'h4').ips).toEqual(['10.20.0.7', 'fd00:30::7']);
    expect((await ours.list()).map((e) => `${e.containerId}=${e.ip.toString()}`).sort()).toEqual(
      ['h1=10.20.0.2', 'h1=fd00:30::2', 'h3=10.20.0.5', 'h3=fd00:30::5', 'h4=10.20.0.7', 'h4=fd00:30::7', 'o2=10.20.0.6', 'o2=fd00:30::6'].sort(),
    );
    // host-local refuses a second ADD of a container we allocated: it reads our files as its own
    expect(call('ADD', 'o2').error).toContain('duplicate allocation is not allowed');
  });

  it('holds the same flock(2) on <dir>/lock that host-local and util-linux flock take', async () => {
    const ranges = [[{ subnet: '10.30.0.0/28' }]];
    const ours = await open(fixture.root(), ranges);
    const lockFile = path.join(ours.dir, 'lock');
    const probe = () => spawnSync('flock', ['-n', lockFile, 'true']).status;
    // The lock helper unlocks asynchronously (a message over its pipe), so "free" is polled for.
    const eventuallyFree = async (): Promise<number | null> => {
      let status = probe();
      for (let i = 0; i < 100 && status !== 0; i++) {
        await new Promise((r) => setTimeout(r, 20));
        status = probe();
      }
      return status;
    };
    expect(await eventuallyFree()).toBe(0);
    // inside a batch the lock is held: a non-blocking flock on the same file must fail
    const during = await ours.batch(() => probe());
    expect(during).toBe(1);
    expect(await eventuallyFree()).toBe(0);
  });
});
