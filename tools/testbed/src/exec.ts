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

/**
 * Retries `fn` until it returns without throwing (an assertion that becomes true as watches
 * propagate), every `intervalMs`; after `timeoutMs` the last error is thrown. Returns `fn`'s value.
 */
export async function eventually<T>(fn: () => T | Promise<T>, { timeoutMs = 10_000, intervalMs = 25 } = {}): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await fn();
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  }
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
