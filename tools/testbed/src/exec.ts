// Process execution helpers: run a command (optionally inside a network namespace) and collect output.
import { execFile, spawn, type ChildProcess } from 'node:child_process';

/** The result of a finished command. */
export interface RunResult {
  stdout: string;
  stderr: string;
  code: number;
}

/** A command that exited non-zero (or could not start); carries the argv and its output. */
export class CommandError extends Error {
  readonly code = 'ECOMMAND';
  constructor(
    readonly argv: readonly string[],
    readonly result: RunResult,
  ) {
    super(`command failed (exit ${result.code}): ${argv.join(' ')}\n${result.stderr.trim()}`);
    this.name = 'CommandError';
  }
}

export interface RunOptions {
  /** Network namespace name to run in (through `ip netns exec`). */
  netns?: string | undefined;
  /** Text written to stdin. */
  input?: string | undefined;
  env?: NodeJS.ProcessEnv | undefined;
  /** Do not throw on a non-zero exit; return the result instead. */
  allowFailure?: boolean | undefined;
  timeoutMs?: number | undefined;
}

/** argv prefixed so that it runs inside `netns` when one is given. */
export function inNetns(netns: string | undefined, argv: readonly string[]): string[] {
  return netns ? ['ip', 'netns', 'exec', netns, ...argv] : [...argv];
}

/** Runs argv to completion and returns its output; throws CommandError on a non-zero exit. */
export function run(argv: readonly string[], opts: RunOptions = {}): Promise<RunResult> {
  const full = inNetns(opts.netns, argv);
  const [cmd, ...args] = full;
  if (!cmd) throw new Error('run: empty argv');
  return new Promise((resolve, reject) => {
    const child = execFile(
      cmd,
      args,
      {
        env: opts.env ?? process.env,
        maxBuffer: 256 * 1024 * 1024,
        timeout: opts.timeoutMs ?? 60_000,
        encoding: 'utf8',
      },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 127) : 0;
        const result = { stdout, stderr: stderr || (err && code === 127 ? String(err.message) : ''), code };
        if (code !== 0 && !opts.allowFailure) reject(new CommandError(full, result));
        else resolve(result);
      },
    );
    // A child may exit before reading its input (a refused connection): not an error of ours.
    child.stdin?.on('error', () => undefined);
    if (opts.input !== undefined) child.stdin?.end(opts.input);
    else child.stdin?.end();
  });
}

/** Starts a long-running process (optionally in a netns); the caller owns it. */
export function start(argv: readonly string[], opts: { netns?: string; env?: NodeJS.ProcessEnv } = {}): ChildProcess {
  const [cmd, ...args] = inNetns(opts.netns, argv);
  if (!cmd) throw new Error('start: empty argv');
  return spawn(cmd, args, { env: opts.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
}

/** What a callback of {@link eventually} resolves to while its condition does not hold yet. */
export type NotYet = undefined | null | false;

/**
 * Rejects, at compile time, a callback that returns nothing (`void`, or `unknown`/`any`, which may
 * be nothing): {@link eventually} would wait on it until its deadline. Assertions go to
 * {@link eventuallyPasses}.
 */
type ReturnsValue<T> = [void] extends [T] ? { 'eventually: the callback must return what it waits for (use eventuallyPasses for an assertion)': never } : unknown;

/** The callback of {@link eventually}: returns what is waited for, or nothing ({@link NotYet}) yet. */
export type ValueCallback<T> = (() => T | Promise<T>) & ReturnsValue<T>;

/** Options of {@link eventually} and {@link eventuallyPasses}. */
export interface EventuallyOptions {
  /** Give up after this long (default 10 s); the last reason is thrown. */
  timeoutMs?: number | undefined;
  /** Pause between tries (default 25 ms). */
  intervalMs?: number | undefined;
  /** What is waited for, named in a {@link WaitTimeoutError}. */
  what?: string | undefined;
}

/** A wait reached its deadline while its callback still resolved to nothing; carries that value. */
export class WaitTimeoutError extends Error {
  readonly code = 'EWAITTIMEOUT';
  constructor(
    readonly what: string,
    readonly timeoutMs: number,
    readonly last: NotYet,
  ) {
    super(`timed out after ${timeoutMs} ms waiting for ${what}: the last try resolved to ${String(last)}`);
    this.name = 'WaitTimeoutError';
  }
}

/**
 * Retries `fn` every `intervalMs` until it returns a value, and returns that value: the thing
 * waited for (an object that appears as watches propagate, a status that gets set).
 *
 * A try counts as "not yet" when `fn` throws (an assertion that does not hold yet) **or resolves to
 * `undefined`, `null` or `false`** (a lookup that finds nothing yet, a condition still false), so a
 * wait cannot pass vacuously: `eventually(async () => (await kubectl.maybe(...))!)` waits for the
 * object instead of returning `undefined` at once. Other falsy values (`0`, `''`) are values. After
 * `timeoutMs` the last reason is thrown: `fn`'s last error, or a {@link WaitTimeoutError} naming
 * the empty value. A callback that returns nothing (an assertion) does not type-check here; use
 * {@link eventuallyPasses}.
 */
export async function eventually<T>(fn: ValueCallback<T>, opts: EventuallyOptions = {}): Promise<Exclude<T, NotYet>> {
  const { timeoutMs = 10_000, intervalMs = 25, what = 'a value' } = opts;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let reason: unknown;
    try {
      const v = await fn();
      if (v !== undefined && v !== null && v !== false) return v as Exclude<T, NotYet>;
      reason = new WaitTimeoutError(what, timeoutMs, v as NotYet);
    } catch (e) {
      reason = e;
    }
    if (Date.now() > deadline) throw reason;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/**
 * Retries `assertion` every `intervalMs` until it returns without throwing (expectations that
 * become true as watches propagate); after `timeoutMs` its last error is thrown. The assertion
 * returns nothing: a callback that returns a value (which may be `undefined`) does not type-check
 * here and belongs to {@link eventually}, which waits for the value.
 */
export async function eventuallyPasses(assertion: () => void | Promise<void>, opts: EventuallyOptions = {}): Promise<void> {
  await eventually(async () => {
    await assertion();
    return true as const;
  }, opts);
}

/** Waits until `probe` returns true, polling every `intervalMs`, failing after `timeoutMs`. */
export async function waitFor(
  what: string,
  probe: () => Promise<boolean> | boolean,
  { timeoutMs = 10_000, intervalMs = 20 } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await probe()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
