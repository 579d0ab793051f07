// The system clock, sleep with a clock and a signal, and the manual test clock.
import { sleep, systemClock } from '../src/index';
import { ManualClock } from '../src/testing';

describe('systemClock', () => {
  it('reads the wall clock and fires and cancels real timers', async () => {
    const before = Date.now();
    expect(systemClock.now()).toBeGreaterThanOrEqual(before);
    const fired: string[] = [];
    systemClock.setTimeout(() => fired.push('kept'), 1);
    const cancelled = systemClock.setTimeout(() => fired.push('cancelled'), 1);
    cancelled.cancel();
    cancelled.cancel();
    await new Promise((r) => setTimeout(r, 20));
    expect(fired).toEqual(['kept']);
  });

  it('waits out a delay longer than one platform timer holds (Node fires those after 1 ms), and cancels it midway', () => {
    jest.useFakeTimers();
    try {
      const DAY = 24 * 60 * 60 * 1000;
      const fired: string[] = [];
      systemClock.setTimeout(() => fired.push('60 days'), 60 * DAY);
      const cancelled = systemClock.setTimeout(() => fired.push('cancelled'), 30 * DAY);
      jest.advanceTimersByTime(26 * DAY);
      cancelled.cancel();
      jest.advanceTimersByTime(33 * DAY);
      expect(fired).toEqual([]);
      jest.advanceTimersByTime(1 * DAY);
      expect(fired).toEqual(['60 days']);
    } finally {
      jest.useRealTimers();
    }
  });
});

describe('ManualClock', () => {
  it('fires due timers in order of due time, then of setting, each at its own instant', () => {
    const clock = new ManualClock(1000);
    const seen: [string, number][] = [];
    clock.setTimeout(() => seen.push(['b', clock.now()]), 20);
    clock.setTimeout(() => seen.push(['a', clock.now()]), 10);
    clock.setTimeout(() => seen.push(['c', clock.now()]), 20);
    const late = clock.setTimeout(() => seen.push(['late', clock.now()]), 31);
    expect(clock.pending).toBe(4);
    expect(clock.pendingDelays()).toEqual([10, 20, 20, 31]);
    clock.advance(30);
    expect(seen).toEqual([['a', 1010], ['b', 1020], ['c', 1020]]);
    expect(clock.now()).toBe(1030);
    late.cancel();
    clock.advance(100);
    expect(clock.pending).toBe(0);
    expect(seen).toHaveLength(3);
  });

  it('fires timers set while firing when they fall due within the same advance', () => {
    const clock = new ManualClock(0);
    const seen: number[] = [];
    const tick = (): void => {
      seen.push(clock.now());
      clock.setTimeout(tick, 100);
    };
    clock.setTimeout(tick, 100);
    clock.advance(350);
    expect(seen).toEqual([100, 200, 300]);
    expect(clock.pendingDelays()).toEqual([50]);
  });

  it('advanceAsync lets the work a timer starts set its next timer before time moves on', async () => {
    const clock = new ManualClock(0);
    const seen: number[] = [];
    const loop = async (): Promise<void> => {
      for (let i = 0; i < 3; i++) {
        await sleep(100, { clock });
        seen.push(clock.now());
      }
    };
    const done = loop();
    await clock.advanceAsync(300);
    await done;
    expect(seen).toEqual([100, 200, 300]);
  });

  it('defaults to 2026-01-01T00:00:00Z', () => {
    expect(new Date(new ManualClock().now()).toISOString()).toBe('2026-01-01T00:00:00.000Z');
  });
});

describe('sleep', () => {
  it('resolves after the delay on the given clock', async () => {
    const clock = new ManualClock(0);
    let done = false;
    const p = sleep(50, { clock }).then(() => (done = true));
    clock.advance(49);
    await Promise.resolve();
    expect(done).toBe(false);
    clock.advance(1);
    await p;
    expect(done).toBe(true);
  });

  it('wakes when the signal aborts and cancels its timer', async () => {
    const clock = new ManualClock(0);
    const stop = new AbortController();
    const p = sleep(1_000_000, { clock, signal: stop.signal });
    expect(clock.pending).toBe(1);
    stop.abort();
    await p;
    expect(clock.pending).toBe(0);
    await sleep(5, { clock, signal: stop.signal });
    expect(clock.pending).toBe(0);
  });
});
