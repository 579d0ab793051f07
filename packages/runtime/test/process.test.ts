// Graceful shutdown on signals, driven by an injected emitter, exit and clock (no real signals).
import { EventEmitter } from 'node:events';
import { lineLogger, onShutdown, type ShutdownOptions } from '../src/process';
import { ManualClock } from '../src/testing';

/** A stop the test settles by hand. */
function deferred(): { promise: Promise<void>; resolve: () => void; reject: (e: Error) => void } {
  let resolve!: () => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Resolves the stop and lets every callback waiting on it run. */
async function settle(stop: ReturnType<typeof deferred>): Promise<void> {
  stop.resolve();
  await stop.promise;
  await new Promise((r) => setImmediate(r));
}

/** A process stand-in: signals to emit, the exit codes it was given, and the log lines. */
function harness(extra: Partial<ShutdownOptions> = {}) {
  const emitter = new EventEmitter();
  const codes: number[] = [];
  let exited: (code: number) => void = () => undefined;
  const nextExit = (): Promise<number> => new Promise((r) => (exited = r));
  const lines: string[] = [];
  const log = lineLogger((l) => lines.push(l.trimEnd()));
  const options: ShutdownOptions = {
    log,
    process: emitter,
    exit: (code) => {
      codes.push(code);
      exited(code);
    },
    ...extra,
  };
  return { emitter, codes, lines, options, nextExit };
}

describe('onShutdown', () => {
  it('runs the stop once on SIGTERM, logs the signal and exits 0 when the stop resolves', async () => {
    const h = harness();
    const stop = deferred();
    const calls: string[] = [];
    onShutdown((signal) => {
      calls.push(signal);
      return stop.promise;
    }, h.options);
    const exit = h.nextExit();
    h.emitter.emit('SIGTERM', 'SIGTERM');
    expect(calls).toEqual(['SIGTERM']);
    expect(h.codes).toEqual([]);
    stop.resolve();
    expect(await exit).toBe(0);
    expect(h.codes).toEqual([0]);
    expect(h.lines).toEqual(['info shutting down {"signal":"SIGTERM"}']);
  });

  it('exits 1 and logs the error when the stop throws, synchronously or by rejecting', async () => {
    const sync = harness();
    onShutdown(() => {
      throw new Error('bridge gone');
    }, sync.options);
    const exitSync = sync.nextExit();
    sync.emitter.emit('SIGINT', 'SIGINT');
    expect(await exitSync).toBe(1);
    expect(sync.lines).toEqual(['info shutting down {"signal":"SIGINT"}', 'error shutdown failed {"err":"bridge gone"}']);

    const async = harness();
    onShutdown(() => Promise.reject(new Error('socket closed')), async.options);
    const exitAsync = async.nextExit();
    async.emitter.emit('SIGTERM', 'SIGTERM');
    expect(await exitAsync).toBe(1);
    expect(async.codes).toEqual([1]);
    expect(async.lines.at(-1)).toBe('error shutdown failed {"err":"socket closed"}');
  });

  it('exits 1 at once on a second signal, without waiting for the stop, and only once', async () => {
    const h = harness();
    const stop = deferred();
    let calls = 0;
    onShutdown(() => {
      calls++;
      return stop.promise;
    }, h.options);
    h.emitter.emit('SIGTERM', 'SIGTERM');
    h.emitter.emit('SIGINT', 'SIGINT');
    expect(calls).toBe(1);
    expect(h.codes).toEqual([1]);
    expect(h.lines.at(-1)).toBe('warn second signal: exiting without waiting for the stop {"signal":"SIGINT"}');
    // The stop settling afterwards does not exit a second time.
    await settle(stop);
    expect(h.codes).toEqual([1]);
  });

  it('exits 1 when the stop outlives the timeout on the clock, and not again when it settles later', async () => {
    const clock = new ManualClock();
    const h = harness({ clock, timeoutMs: 5000 });
    const stop = deferred();
    onShutdown(() => stop.promise, h.options);
    h.emitter.emit('SIGTERM', 'SIGTERM');
    clock.advance(4999);
    expect(h.codes).toEqual([]);
    clock.advance(1);
    expect(h.codes).toEqual([1]);
    expect(h.lines.at(-1)).toBe('error shutdown timed out {"signal":"SIGTERM","timeoutMs":5000}');
    await settle(stop);
    expect(h.codes).toEqual([1]);
  });

  it('cancels the timeout when the stop resolves in time', async () => {
    const clock = new ManualClock();
    const h = harness({ clock, timeoutMs: 5000 });
    onShutdown(() => undefined, h.options);
    const exit = h.nextExit();
    h.emitter.emit('SIGINT', 'SIGINT');
    expect(await exit).toBe(0);
    expect(clock.pending).toBe(0);
  });

  it('listens only on the signals given, and not at all after the returned function is called', () => {
    const h = harness({ signals: ['SIGHUP'] });
    let calls = 0;
    const off = onShutdown(() => void calls++, h.options);
    expect(h.emitter.listenerCount('SIGTERM')).toBe(0);
    expect(h.emitter.listenerCount('SIGHUP')).toBe(1);
    off();
    expect(h.emitter.listenerCount('SIGHUP')).toBe(0);
    h.emitter.emit('SIGHUP', 'SIGHUP');
    expect(calls).toBe(0);
  });

  it('listens on SIGTERM and SIGINT of the global process by default', () => {
    const before = { term: process.listenerCount('SIGTERM'), int: process.listenerCount('SIGINT') };
    const off = onShutdown(() => undefined);
    expect(process.listenerCount('SIGTERM')).toBe(before.term + 1);
    expect(process.listenerCount('SIGINT')).toBe(before.int + 1);
    off();
    expect(process.listenerCount('SIGTERM')).toBe(before.term);
    expect(process.listenerCount('SIGINT')).toBe(before.int);
  });
});

describe('lineLogger', () => {
  it('writes one line per event with the level, the message and the fields, an Error as its message, and drops debug', () => {
    const lines: string[] = [];
    const log = lineLogger((l) => lines.push(l));
    log.info({ signal: 'SIGTERM' }, 'shutting down');
    log.error({ err: new Error('gone') }, 'shutdown failed');
    log.debug({ noisy: true }, 'dropped');
    expect(lines).toEqual(['info shutting down {"signal":"SIGTERM"}\n', 'error shutdown failed {"err":"gone"}\n']);
  });
});
