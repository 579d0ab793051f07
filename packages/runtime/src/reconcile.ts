/**
 * The coalesce-and-retry loop of a level-triggered reconciler: changes mark the desired state
 * dirty, one apply runs at a time and applies the latest state (a burst of changes costs one
 * apply after the running one), and a failed apply is retried after a backoff on the injected
 * clock until one succeeds or a newer change applies first.
 */
import { Backoff, type BackoffPolicy } from './backoff';
import { systemClock, type Clock, type TimerHandle } from './clock';

/** Options of {@link Reconciler}. */
export interface ReconcilerOptions {
  /** Delays between retries of a failed apply (default 500 ms doubling to 10 s, 20% jitter below). */
  retry?: BackoffPolicy;
  clock?: Clock;
  /** Told of every failed apply with the delay before the retry (to log it); undefined delay: stopped, no retry. */
  onError?(error: unknown, retryInMs: number | undefined): void;
  /** Told of every apply that succeeded. */
  onApplied?(): void;
}

/** The default retry policy of {@link Reconciler}. */
export const RECONCILE_RETRY: BackoffPolicy = { initialMs: 500, maxMs: 10_000, jitter: { below: 0.2 } };

/**
 * Runs `apply` whenever {@link schedule} is called, coalescing bursts and retrying failures. The
 * first apply of a burst starts after the current synchronous run: events handed over in one loop
 * (an informer's initial list) are all seen by one apply, never the first of them alone.
 */
export class Reconciler {
  private running: Promise<void> | undefined;
  private dirty = false;
  private stopped = false;
  private failure: { error: unknown } | undefined;
  private readonly backoff: Backoff;
  private readonly clock: Clock;
  private retryTimer: TimerHandle | undefined;

  constructor(
    private readonly apply: () => Promise<void>,
    private readonly o: ReconcilerOptions = {},
  ) {
    this.clock = o.clock ?? systemClock;
    this.backoff = new Backoff(o.retry ?? RECONCILE_RETRY, { clock: this.clock });
  }

  /** The failure of the last apply, until one succeeds. */
  get lastError(): unknown {
    return this.failure?.error;
  }

  /** True when the last apply failed (a retry is pending unless stopped). */
  get failing(): boolean {
    return this.failure !== undefined;
  }

  /** Asks for an apply of the current state; returns at once. Ignored after {@link stop}. */
  schedule(): void {
    if (this.stopped) return;
    this.dirty = true;
    this.running ??= this.loop().finally(() => (this.running = undefined));
  }

  /** Resolves when every change scheduled so far has been applied or has failed. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** No apply starts after this; cancels a pending retry and waits for a running apply. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.dirty = false;
    this.retryTimer?.cancel();
    this.retryTimer = undefined;
    await this.idle();
  }

  private async loop(): Promise<void> {
    // Let the rest of a synchronous burst of schedule() calls land first.
    await Promise.resolve();
    while (this.dirty && !this.stopped) {
      this.dirty = false;
      try {
        await this.apply();
        this.failure = undefined;
        this.backoff.reset();
        this.retryTimer?.cancel();
        this.retryTimer = undefined;
        this.o.onApplied?.();
      } catch (e) {
        this.failure = { error: e };
        this.retryLater(e);
      }
    }
  }

  private retryLater(e: unknown): void {
    this.retryTimer?.cancel();
    this.retryTimer = undefined;
    if (this.stopped) {
      this.o.onError?.(e, undefined);
      return;
    }
    const delay = this.backoff.next();
    this.o.onError?.(e, delay);
    this.retryTimer = this.clock.setTimeout(() => {
      this.retryTimer = undefined;
      if (this.failure !== undefined) this.schedule();
    }, delay);
  }
}
