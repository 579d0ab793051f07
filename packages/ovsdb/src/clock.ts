// Injectable time source and timers, so reconnect backoff and the inactivity probe can be tested without sleeping.

/** Timer handle as returned by {@link Clock.setTimeout}. */
export type TimerHandle = unknown;

/** Time and timers; the default uses the real ones. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/** The real clock (Date.now and global timers, unref'd so they never keep a process alive). */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};
