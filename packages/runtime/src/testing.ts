/**
 * @switchyard/runtime/testing: {@link ManualClock}, the clock tests in every package drive by hand.
 * @packageDocumentation
 */
import type { Clock, TimerHandle } from './clock';

interface Timer {
  at: number;
  seq: number;
  fn: () => void;
}

/** Lets pending promise callbacks and I/O callbacks run: one turn of the event loop. */
const macrotask = (): Promise<void> => new Promise((resolve) => (typeof setImmediate === 'function' ? setImmediate(resolve) : setTimeout(resolve, 0)));

/**
 * A {@link Clock} whose time moves only when the test says so: `advance(ms)` fires the timers that
 * fall due, in order of due time (then of setting), each at its own instant, including timers set
 * while firing.
 */
export class ManualClock implements Clock {
  private current: number;
  private seq = 0;
  private readonly timers = new Map<number, Timer>();

  /** @param start milliseconds since the epoch (default 2026-01-01T00:00:00Z). */
  constructor(start = Date.UTC(2026, 0, 1)) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const seq = ++this.seq;
    this.timers.set(seq, { at: this.current + Math.max(0, ms), seq, fn });
    return { cancel: () => void this.timers.delete(seq) };
  }

  /** Number of timers waiting. */
  get pending(): number {
    return this.timers.size;
  }

  /** The waiting timers' delays from now, shortest first. */
  pendingDelays(): number[] {
    return [...this.timers.values()].map((t) => t.at - this.current).sort((a, b) => a - b);
  }

  /** Moves time forward by `ms`, firing every timer that falls due on the way. */
  advance(ms: number): void {
    const end = this.current + ms;
    for (let t = this.due(end); t; t = this.due(end)) this.fire(t);
    this.current = end;
  }

  /**
   * {@link advance} for code whose timers start asynchronous work: after each timer, and at the
   * end, waits for `settle` (default one event-loop turn, which lets promise callbacks and local
   * I/O run) so that work can set its next timer before time moves on.
   */
  async advanceAsync(ms: number, settle: () => Promise<void> = macrotask): Promise<void> {
    const end = this.current + ms;
    for (let t = this.due(end); t; t = this.due(end)) {
      this.fire(t);
      await settle();
    }
    this.current = end;
    await settle();
  }

  private due(end: number): Timer | undefined {
    let next: Timer | undefined;
    for (const t of this.timers.values()) if (t.at <= end && (!next || t.at < next.at || (t.at === next.at && t.seq < next.seq))) next = t;
    return next;
  }

  private fire(t: Timer): void {
    this.timers.delete(t.seq);
    this.current = t.at;
    t.fn();
  }
}
