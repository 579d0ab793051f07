/**
 * @switchyard/runtime/process: a binary's graceful shutdown on SIGTERM/SIGINT, written once for
 * every Switchyard binary. The only part of the package that touches the process (its signals and
 * its exit), so it is a subpath of its own and the main entry stays pure.
 * @packageDocumentation
 */
import { systemClock, type Clock, type TimerHandle } from './clock';
import { silentLogger, type Logger } from './logger';

/**
 * A logger for a binary without pino: one line per event, `<level> <msg> <fields as JSON>` (an
 * Error as its message), to `write` (default the process's stderr).
 */
export function lineLogger(write: (line: string) => unknown = (line) => globalThis.process.stderr.write(line)): Logger {
  const level =
    (name: string) =>
    (obj: unknown, msg?: string): void =>
      void write(`${name} ${msg ?? ''} ${JSON.stringify(obj, (_k, v: unknown) => (v instanceof Error ? v.message : v))}\n`);
  return { debug: () => undefined, info: level('info'), warn: level('warn'), error: level('error') };
}

/** What {@link onShutdown} listens on: Node's `process` fits as it is. */
export interface SignalEmitter {
  on(signal: string, listener: (signal: string) => void): unknown;
  removeListener(signal: string, listener: (signal: string) => void): unknown;
}

/** Options of {@link onShutdown}. */
export interface ShutdownOptions {
  /** Logs the signal, and why a stop failed (default silent). */
  log?: Logger;
  /** Signals that start the stop (default {@link SHUTDOWN_SIGNALS}). */
  signals?: readonly string[];
  /** Exit 1 when the stop has not settled after this long (default: wait as long as it takes). */
  timeoutMs?: number;
  /** Clock of the timeout (default `systemClock`, whose timer does not keep the process alive). */
  clock?: Clock;
  /** Where the signals come from (default the global `process`). */
  process?: SignalEmitter;
  /** Ends the process with a code (default `process.exit`). */
  exit?: (code: number) => void;
}

/** The signals a binary stops on by default: a supervisor's (kubelet, systemd) and a terminal's. */
export const SHUTDOWN_SIGNALS: readonly string[] = ['SIGTERM', 'SIGINT'];

/**
 * A stop timeout for a binary run in a pod: below the kubelet's default grace period (30 s), so a
 * stop that hangs is logged and exits 1 before the kubelet's SIGKILL.
 */
export const POD_SHUTDOWN_TIMEOUT_MS = 25_000;

/**
 * Stops the process gracefully on the first of `signals`: runs `stop` once, then exits 0 when it
 * resolves and 1 when it throws or outlives `timeoutMs`. A second signal exits 1 at once, without
 * waiting for the stop (an operator pressing Ctrl-C again means it). Returns a function that
 * removes the listeners.
 */
export function onShutdown(stop: (signal: string) => unknown, options: ShutdownOptions = {}): () => void {
  const { log = silentLogger, signals = SHUTDOWN_SIGNALS, timeoutMs, clock = systemClock } = options;
  // Node's `process.on` is typed per event name; any signal name is a valid event.
  const source = options.process ?? (globalThis.process as unknown as SignalEmitter);
  const exit = options.exit ?? ((code: number): void => globalThis.process.exit(code));
  let stopping = false;
  let exited = false;
  let timer: TimerHandle | undefined;
  // Once: an injected exit returns, and a stop that settles after the timeout must not exit again.
  const finish = (code: number): void => {
    if (exited) return;
    exited = true;
    timer?.cancel();
    exit(code);
  };
  const onSignal = (signal: string): void => {
    if (stopping) {
      log.warn({ signal }, 'second signal: exiting without waiting for the stop');
      return finish(1);
    }
    stopping = true;
    log.info({ signal }, 'shutting down');
    if (timeoutMs !== undefined) {
      timer = clock.setTimeout(() => {
        log.error({ signal, timeoutMs }, 'shutdown timed out');
        finish(1);
      }, timeoutMs);
    }
    new Promise((resolve) => resolve(stop(signal))).then(
      () => finish(0),
      (e: unknown) => {
        log.error({ err: e }, 'shutdown failed');
        finish(1);
      },
    );
  };
  for (const s of signals) source.on(s, onSignal);
  return () => {
    for (const s of signals) source.removeListener(s, onSignal);
  };
}
