import { Reconciler } from '@switchyard/runtime';
import { ManualClock } from '@switchyard/runtime/testing';

/** An apply whose calls the test finishes one by one. */
function gatedApply() {
  const calls: { resolve: () => void; reject: (e: Error) => void }[] = [];
  const apply = () => new Promise<void>((resolve, reject) => void calls.push({ resolve, reject }));
  return { apply, calls };
}
const turn = () => new Promise((r) => setImmediate(r));

describe('Reconciler', () => {
  it('coalesces a synchronous burst into one apply, and a burst behind the running apply into one more', async () => {
    const { apply, calls } = gatedApply();
    const r = new Reconciler(apply, { clock: new ManualClock() });
    r.schedule();
    // The burst's first apply has not started yet: it sees every change of the burst (an informer's list).
    expect(calls).toHaveLength(0);
    r.schedule();
    r.schedule();
    await turn();
    expect(calls).toHaveLength(1);
    r.schedule();
    r.schedule();
    calls[0]!.resolve();
    await turn();
    expect(calls).toHaveLength(2); // the two later changes: one apply
    calls[1]!.resolve();
    await r.idle();
    expect(calls).toHaveLength(2);
    expect(r.failing).toBe(false);
  });

  it('retries a failed apply after the backoff on its clock until one succeeds', async () => {
    const clock = new ManualClock();
    const errors: (number | undefined)[] = [];
    let fail = 2;
    let applied = 0;
    const r = new Reconciler(async () => {
      if (fail-- > 0) throw new Error('device not there yet');
      applied++;
    }, { clock, retry: { initialMs: 100, maxMs: 1000, jitter: 'none' }, onError: (_e, ms) => errors.push(ms) });
    r.schedule();
    await r.idle();
    expect(r.lastError).toEqual(new Error('device not there yet'));
    expect(clock.pendingDelays()).toEqual([100]);
    await clock.advanceAsync(100);
    await r.idle();
    expect(clock.pendingDelays()).toEqual([200]);
    await clock.advanceAsync(200);
    await r.idle();
    expect(applied).toBe(1);
    expect(errors).toEqual([100, 200]);
    expect(r.failing).toBe(false);
    expect(clock.pending).toBe(0);
  });

  it('a success cancels the pending retry and resets the backoff', async () => {
    const clock = new ManualClock();
    let fail = true;
    const r = new Reconciler(async () => {
      if (fail) throw new Error('no');
    }, { clock, retry: { initialMs: 100, maxMs: 1000, jitter: 'none' } });
    r.schedule();
    await r.idle();
    expect(clock.pending).toBe(1);
    fail = false;
    r.schedule(); // a new change arrives before the retry
    await r.idle();
    expect(clock.pending).toBe(0);
    fail = true;
    r.schedule();
    await r.idle();
    expect(clock.pendingDelays()).toEqual([100]);
  });

  it('after stop nothing is applied and no retry is left', async () => {
    const clock = new ManualClock();
    let applied = 0;
    const errors: (number | undefined)[] = [];
    const r = new Reconciler(async () => {
      applied++;
      throw new Error('always');
    }, { clock, onError: (_e, ms) => errors.push(ms) });
    r.schedule();
    await r.idle();
    await r.stop();
    expect(clock.pending).toBe(0);
    r.schedule();
    await clock.advanceAsync(60_000);
    await r.idle();
    expect(applied).toBe(1);
    expect(errors).toHaveLength(1);
  });
});
