// Exponential backoff: growth, cap, the four jitter shapes, reset, waiting on a clock.
import fc from 'fast-check';
import { Backoff, BackoffPolicyError, backoffDelay, type BackoffPolicy } from '../src/index';
import { ManualClock } from '../src/testing';

describe('backoffDelay', () => {
  it('doubles from initialMs up to maxMs without jitter', () => {
    const p: BackoffPolicy = { initialMs: 100, maxMs: 2000 };
    expect([0, 1, 2, 3, 4, 5, 60, 5000].map((a) => backoffDelay(p, a, 0.7))).toEqual([100, 200, 400, 800, 1600, 2000, 2000, 2000]);
    expect(backoffDelay({ ...p, factor: 3 }, 2, 0)).toBe(900);
    expect(backoffDelay({ initialMs: 0, maxMs: 10 }, 5000, 0.5)).toBe(0);
  });

  it('full jitter is uniform below the base, whole milliseconds', () => {
    const p: BackoffPolicy = { initialMs: 10, maxMs: 15, jitter: 'full' };
    expect([0, 1, 2].map((a) => backoffDelay(p, a, 0.999))).toEqual([9, 14, 14]);
    expect(backoffDelay(p, 3, 0)).toBe(0);
  });

  it('{ below } takes up to the share off the base, { above } adds up to it', () => {
    expect([0, 1, 0.5].map((r) => backoffDelay({ initialMs: 100, maxMs: 8000, jitter: { below: 0.5 } }, 3, r))).toEqual([800, 400, 600]);
    expect([0, 1, 2, 3, 4, 10].map((a) => backoffDelay({ initialMs: 100, maxMs: 1000, jitter: { above: 0.2 } }, a, 0.5))).toEqual([110, 220, 440, 880, 1100, 1100]);
  });

  it('stays within [base * (1 - below), base] and [base, base * (1 + above)] for any random', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 0, max: 100_000 }), fc.integer({ min: 0, max: 40 }), fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (initialMs, maxMs, attempt, share, random) => {
        const base = backoffDelay({ initialMs, maxMs }, attempt, random);
        expect(base).toBeLessThanOrEqual(Math.max(maxMs, 0) + 0.5);
        const below = backoffDelay({ initialMs, maxMs, jitter: { below: share } }, attempt, random);
        expect(below).toBeGreaterThanOrEqual(Math.floor(base * (1 - share)));
        expect(below).toBeLessThanOrEqual(base);
        const above = backoffDelay({ initialMs, maxMs, jitter: { above: share } }, attempt, random);
        expect(above).toBeGreaterThanOrEqual(base);
        expect(above).toBeLessThanOrEqual(Math.ceil(base * (1 + share)));
        const full = backoffDelay({ initialMs, maxMs, jitter: 'full' }, attempt, random);
        expect(full).toBeGreaterThanOrEqual(0);
        expect(full).toBeLessThanOrEqual(Math.max(0, base));
      }),
    );
  });

  it('refuses a policy that cannot produce delays, naming the field', () => {
    expect(() => backoffDelay({ initialMs: -1, maxMs: 10 }, 0, 0)).toThrow(expect.objectContaining({ code: 'INVALID_BACKOFF', path: 'initialMs', value: -1 }));
    expect(() => new Backoff({ initialMs: 1, maxMs: Number.NaN })).toThrow(BackoffPolicyError);
    expect(() => new Backoff({ initialMs: 1, maxMs: 10, factor: 0.5 })).toThrow(expect.objectContaining({ path: 'factor' }));
    expect(() => new Backoff({ initialMs: 1, maxMs: 10, jitter: { above: 2 } })).toThrow(expect.objectContaining({ path: 'jitter.above' }));
  });
});

describe('Backoff', () => {
  it('counts attempts, grows, and starts over on reset', () => {
    const b = new Backoff({ initialMs: 100, maxMs: 5000 });
    expect([b.next(), b.next(), b.next()]).toEqual([100, 200, 400]);
    expect(b.attempt).toBe(3);
    b.reset();
    expect(b.attempt).toBe(0);
    expect(b.next()).toBe(100);
  });

  it('draws one random number per delay from the injected source', () => {
    const draws = [0, 0.5, 0.999];
    const b = new Backoff({ initialMs: 1000, maxMs: 1000, jitter: 'full' }, { random: () => draws.shift() ?? 0 });
    expect([b.next(), b.next(), b.next()]).toEqual([0, 500, 999]);
  });

  it('waits each delay on the clock, and a stop signal ends the wait early', async () => {
    const clock = new ManualClock(0);
    const b = new Backoff({ initialMs: 100, maxMs: 1000 }, { clock });
    const first = b.wait();
    expect(clock.pendingDelays()).toEqual([100]);
    clock.advance(100);
    await expect(first).resolves.toBe(100);
    const stop = new AbortController();
    const second = b.wait(stop.signal);
    expect(clock.pendingDelays()).toEqual([200]);
    stop.abort();
    await expect(second).resolves.toBe(200);
    expect(clock.pending).toBe(0);
  });
});
