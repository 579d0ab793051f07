// Exponential backoff with jitter: the delay before each retry of a reconnect or conflict loop.
import { sleep, systemClock, type Clock } from './clock';

/**
 * How a delay is randomized around its exponential base (`random` is uniform in [0, 1)):
 * - `'none'`: the base itself;
 * - `'full'`: uniform in [0, base), `floor(random * base)` (AWS's "full jitter": spreads many
 *   clients retrying together the most);
 * - `{ below: r }`: `base * (1 - r * random)`, rounded: up to the share `r` earlier, never later
 *   than the base;
 * - `{ above: r }`: `base * (1 + r * random)`, rounded: up to the share `r` later, never earlier
 *   (client-go's `wait.Jitter`).
 */
export type Jitter = 'none' | 'full' | { readonly below: number } | { readonly above: number };

/** The delays of a {@link Backoff}: attempt n waits about `min(maxMs, initialMs * factor^n)`. */
export interface BackoffPolicy {
  /** Delay before the first retry (attempt 0), before jitter. */
  initialMs: number;
  /** Largest base delay; `{ above }` jitter may add to it. */
  maxMs: number;
  /** Growth per attempt. Default 2. */
  factor?: number;
  /** Default `'none'`. */
  jitter?: Jitter;
}

/** Thrown for a policy that cannot produce delays (negative, not finite, a share outside 0..1). */
export class BackoffPolicyError extends RangeError {
  override readonly name = 'BackoffPolicyError';
  readonly code = 'INVALID_BACKOFF';
  constructor(
    message: string,
    readonly value: unknown,
    readonly path: string,
  ) {
    super(message);
  }
}

function checkPolicy(p: BackoffPolicy): void {
  const nonNegative = (v: number, path: string): void => {
    if (!(v >= 0) || !Number.isFinite(v)) throw new BackoffPolicyError(`${path} must be a finite number >= 0, got ${v}`, v, path);
  };
  nonNegative(p.initialMs, 'initialMs');
  nonNegative(p.maxMs, 'maxMs');
  if (p.factor !== undefined && (!(p.factor >= 1) || !Number.isFinite(p.factor))) throw new BackoffPolicyError(`factor must be a finite number >= 1, got ${p.factor}`, p.factor, 'factor');
  const j = p.jitter;
  if (j === undefined || j === 'none' || j === 'full') return;
  const [key, share] = 'below' in j ? ['below', j.below] : ['above', j.above];
  if (!(share >= 0 && share <= 1)) throw new BackoffPolicyError(`jitter.${key} must be a share in 0..1, got ${share}`, share, `jitter.${key}`);
}

/**
 * The delay before retry `attempt` (0-based) of `policy`, jittered with `random` in [0, 1).
 * Whole milliseconds. Pure.
 * @throws BackoffPolicyError for a policy that cannot produce delays.
 */
export function backoffDelay(policy: BackoffPolicy, attempt: number, random: number): number {
  checkPolicy(policy);
  const grown = policy.initialMs * (policy.factor ?? 2) ** Math.max(0, attempt);
  // initialMs 0 stays 0 however far the attempts go (0 * Infinity would be NaN).
  const base = policy.initialMs === 0 ? 0 : Math.min(policy.maxMs, grown);
  const j = policy.jitter ?? 'none';
  if (j === 'none') return Math.round(base);
  if (j === 'full') return Math.floor(random * base);
  if ('below' in j) return Math.round(base * (1 - j.below * random));
  return Math.round(base * (1 + j.above * random));
}

/** Options of {@link Backoff}. */
export interface BackoffOptions {
  /** Uniform in [0, 1); default Math.random. Tests pin it. */
  random?: () => number;
  /** Where {@link Backoff.wait} sleeps; default {@link systemClock}. */
  clock?: Clock;
}

/**
 * The retry delays of one loop: each {@link next} is the delay of the following attempt, and
 * {@link reset} starts over after a success.
 */
export class Backoff {
  private attempts = 0;
  private readonly random: () => number;
  private readonly clock: Clock;

  /** @throws BackoffPolicyError for a policy that cannot produce delays. */
  constructor(
    readonly policy: BackoffPolicy,
    options: BackoffOptions = {},
  ) {
    checkPolicy(policy);
    this.random = options.random ?? Math.random;
    this.clock = options.clock ?? systemClock;
  }

  /** Retries since the last reset: the 0-based number of the attempt {@link next} is for. */
  get attempt(): number {
    return this.attempts;
  }

  /** The delay before the next attempt; counts the attempt. */
  next(): number {
    return backoffDelay(this.policy, this.attempts++, this.random());
  }

  /** Back to the first delay (after a success). */
  reset(): void {
    this.attempts = 0;
  }

  /**
   * Sleeps the {@link next} delay on the clock and resolves with it; resolves early when `signal`
   * aborts (a stop is a wake-up, not an error).
   */
  async wait(signal?: AbortSignal): Promise<number> {
    const ms = this.next();
    await sleep(ms, { clock: this.clock, ...(signal ? { signal } : {}) });
    return ms;
  }
}
