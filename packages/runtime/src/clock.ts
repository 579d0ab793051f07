// Time and timers behind one interface, so code that waits can be tested without waiting.

/** A pending timer of a {@link Clock}. */
export interface TimerHandle {
  /** Stops the timer if it has not fired; calling it again, or after it fired, does nothing. */
  cancel(): void;
}

/**
 * Where code reads the time and sets timers. {@link systemClock} is the real one; tests pass
 * `ManualClock` from `@switchyard/runtime/testing`, whose time moves only when told to.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Runs `fn` once after `ms` milliseconds. A pending timer does not keep a Node process alive. */
  setTimeout(fn: () => void, ms: number): TimerHandle;
}

/** The longest delay one platform timer takes (2^31 - 1 ms, about 24.8 days); Node fires a longer one after 1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The wall clock and the global timers (unref'd where the platform has unref, as Node does). A
 * delay longer than a platform timer can hold is waited out in several, so it is not cut short.
 */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    let t: unknown;
    const arm = (left: number): void => {
      const step = Math.min(left, MAX_TIMER_MS);
      t = globalThis.setTimeout(() => (left > step ? arm(left - step) : fn()), step);
      (t as { unref?: () => void }).unref?.();
    };
    arm(ms);
    return { cancel: () => globalThis.clearTimeout(t as Parameters<typeof clearTimeout>[0]) };
  },
};

/** Options of {@link sleep}. */
export interface SleepOptions {
  /** Default {@link systemClock}. */
  clock?: Clock;
  /** Ends the sleep early: an abort is a wake-up, not an error. */
  signal?: AbortSignal;
}

/**
 * Resolves after `ms` milliseconds on the clock, or as soon as `signal` aborts (at once when it
 * already has): a loop that sleeps between attempts wakes on stop and checks its own state.
 */
export function sleep(ms: number, options: SleepOptions = {}): Promise<void> {
  const { clock = systemClock, signal } = options;
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      timer.cancel();
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = clock.setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
