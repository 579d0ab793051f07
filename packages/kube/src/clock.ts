// Injectable time source: every timer in the controller goes through one so tests drive time.

/** A cancellable timer handle. */
export interface TimerHandle {
  cancel(): void;
}

/** Time source and timers. {@link systemClock} is the real one; tests pass a manual clock. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Run `fn` after `ms` milliseconds (unref'd: a pending timer does not keep the process up). */
  setTimeout(fn: () => void, ms: number): TimerHandle;
}

/** The wall clock with Node timers. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return { cancel: () => clearTimeout(t) };
  },
};

/** A clock that only moves when told to: `advance(ms)` fires due timers in order. */
export class ManualClock implements Clock {
  private current: number;
  private seq = 0;
  private readonly timers = new Map<number, { at: number; fn: () => void }>();

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = ++this.seq;
    this.timers.set(id, { at: this.current + Math.max(0, ms), fn });
    return { cancel: () => this.timers.delete(id) };
  }

  /** Number of timers waiting. */
  get pending(): number {
    return this.timers.size;
  }

  /** Move time forward, firing every timer that falls due (timers set while firing included). */
  advance(ms: number): void {
    const end = this.current + ms;
    for (;;) {
      let next: [number, { at: number; fn: () => void }] | undefined;
      for (const e of this.timers) if (e[1].at <= end && (!next || e[1].at < next[1].at)) next = e;
      if (!next) break;
      this.timers.delete(next[0]);
      this.current = next[1].at;
      next[1].fn();
    }
    this.current = end;
  }
}
