/**
 * @switchyard/runtime/testing: {@link ManualClock}, the clock tests in every package drive by hand,
 * and {@link checkPartContract}, the compliance kit for a {@link Part} written outside the repo.
 * @packageDocumentation
 */
import type { Clock, TimerHandle } from './clock';
import type { Part, PartHealth } from './parts';

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

/** Options of {@link checkPartContract}. */
export interface PartContractOptions {
  /** Also run `sync` between `start` and `stop` (default true). */
  sync?: boolean;
}

/** What {@link checkPartContract} saw, for the caller's own assertions. */
export interface PartContractReport {
  name: string;
  /** Health before start, after start (and sync), after stop. */
  health: { before: PartHealth; running: PartHealth; stopped: PartHealth };
}

const checkHealth = (name: string, when: string, h: unknown): PartHealth => {
  const v = h as Partial<PartHealth> | undefined;
  if (typeof v?.ok !== 'boolean' || typeof v.detail !== 'string') throw new Error(`part ${name}: health() ${when} returned ${JSON.stringify(h)}, not { ok: boolean, detail: string }`);
  if (typeof (h as { then?: unknown }).then === 'function') throw new Error(`part ${name}: health() ${when} returned a promise; it must be synchronous`);
  return v as PartHealth;
};

/**
 * The contract every {@link Part} keeps, checked against parts made by `make` (called once per
 * check, so each check gets a fresh part): a non-empty name that does not change; `health()`
 * synchronous and well-formed before start, while running and after stop; `stop()` on a part
 * that was never started resolves (a process stops parts whose start it never reached); start,
 * sync and stop resolve in that order; a second `stop()` resolves. Throws an Error naming the
 * part and the broken rule; resolves with what it saw.
 */
export async function checkPartContract(make: () => Part | Promise<Part>, opts: PartContractOptions = {}): Promise<PartContractReport> {
  const unstarted = await make();
  const name = unstarted.name;
  if (typeof name !== 'string' || name === '') throw new Error(`a part's name must be a non-empty string, got ${JSON.stringify(name)}`);
  const before = checkHealth(name, 'before start', unstarted.health());
  try {
    await unstarted.stop();
  } catch (e) {
    throw new Error(`part ${name}: stop() before start threw: ${e instanceof Error ? e.message : String(e)}`);
  }
  const part = await make();
  if (part.name !== name) throw new Error(`part ${name}: a second part from the same maker is named ${part.name}`);
  await part.start();
  if (opts.sync ?? true) await part.sync?.();
  if (part.name !== name) throw new Error(`part ${name}: its name changed to ${part.name} while running`);
  const running = checkHealth(name, 'while running', part.health());
  await part.stop();
  const stopped = checkHealth(name, 'after stop', part.health());
  try {
    await part.stop();
  } catch (e) {
    throw new Error(`part ${name}: a second stop() threw: ${e instanceof Error ? e.message : String(e)}`);
  }
  return { name, health: { before, running, stopped } };
}
