// The reconcilers' write helpers: bounded parallel writes that try every item and then report the
// first failure, and converge's order (creates and patches before deletes).
import type { KubeClient, KubeObject } from '@switchyard/kube';
import { GATEWAYS } from '../src/resources';
import { ManualClock } from '@switchyard/runtime/testing';
import { Resync, WRITES_IN_FLIGHT, converge, writeAll } from '../src/sync';

const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 1));

describe('writeAll', () => {
  it(`keeps at most ${WRITES_IN_FLIGHT} writes in flight and writes every item`, async () => {
    let inFlight = 0;
    let most = 0;
    const done: number[] = [];
    await writeAll(Array.from({ length: 50 }, (_, i) => i), async (i) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await tick();
      inFlight--;
      done.push(i);
    });
    expect(most).toBe(WRITES_IN_FLIGHT);
    expect(done.sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i));
  });

  it('a failed write does not stop the others; the first failure is thrown once all are done', async () => {
    const done: number[] = [];
    await expect(writeAll([1, 2, 3, 4], async (i) => {
      await tick();
      if (i === 2) throw new Error('write 2 refused');
      if (i === 3) throw new Error('write 3 refused');
      done.push(i);
    })).rejects.toThrow('write 2 refused');
    expect(done.sort()).toEqual([1, 4]);
  });
});

describe('converge', () => {
  const gw = (name: string, gatewayIP: string): KubeObject => ({ apiVersion: 'multicluster.crd.antrea.io/v1alpha1', kind: 'Gateway', metadata: { name, namespace: 'kube-system' }, gatewayIP } as unknown as KubeObject);

  it('creates and patches before it deletes, so a replaced object is never missing; unchanged ones are not written', async () => {
    const calls: string[] = [];
    const client = {
      request: async (method: string, path: string) => {
        await tick();
        calls.push(`${method} ${path.split('/').slice(-1)[0]}`);
        return {};
      },
    } as unknown as KubeClient;
    const owned = (o: KubeObject): Record<string, unknown> => ({ gatewayIP: (o as unknown as { gatewayIP: string }).gatewayIP });
    const writes = await converge(client, GATEWAYS, [gw('node2', '10.0.0.2'), gw('node3', '10.0.0.3'), gw('node4', '10.0.0.4')], [gw('node1', '10.0.0.1'), gw('node3', '10.0.0.30'), gw('node4', '10.0.0.4')], owned);
    expect(writes).toBe(3);
    expect(calls).toHaveLength(3);
    expect(calls[2]).toBe('DELETE node1');
    expect(calls.slice(0, 2).sort()).toEqual(['PATCH node3', 'POST gateways']);
  });
});

describe('Resync', () => {
  it('retries a failing pass after delays doubling from initialBackoffMs to maxBackoffMs, and from the start again after a success', async () => {
    const clock = new ManualClock();
    let fail = true;
    const r = new Resync(async () => {
      if (fail) throw new Error('leader unreachable');
    }, { name: 'test', clock, initialBackoffMs: 100, maxBackoffMs: 700 });
    const delays: number[] = [];
    r.schedule();
    for (let i = 0; i < 6; i++) {
      await r.idle();
      await tick();
      delays.push(...clock.pendingDelays());
      await clock.advanceAsync(clock.pendingDelays()[0]!);
    }
    expect(delays).toEqual([100, 200, 400, 700, 700, 700]);
    fail = false;
    await r.idle();
    await tick();
    await clock.advanceAsync(clock.pendingDelays()[0]!);
    await r.idle();
    expect(r.stats).toEqual({ passes: 8, failures: 7 });
    expect(clock.pending).toBe(0);
    fail = true;
    r.schedule();
    await r.idle();
    await tick();
    expect(clock.pendingDelays()).toEqual([100]);
    await r.stop();
    expect(clock.pending).toBe(0);
  });
});
