// The shared logger: silent by default, children add their bindings, pino fits the type.
import pino from 'pino';
import { Writable } from 'node:stream';
import { childLogger, silentLogger, type Logger } from '../src/index';

/** A logger that records what it is given. */
function recording(): { log: Logger; lines: unknown[][] } {
  const lines: unknown[][] = [];
  const at =
    (level: string) =>
    (...args: unknown[]): void =>
      void lines.push([level, ...args]);
  return { log: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }, lines };
}

describe('Logger', () => {
  it('silentLogger drops every line and its children are silent too', () => {
    expect(() => silentLogger.info({ a: 1 }, 'x')).not.toThrow();
    expect(childLogger(silentLogger, { component: 'x' })).toBe(silentLogger);
    expect(silentLogger.child?.({})).toBe(silentLogger);
  });

  it('a child of a logger without child() merges its bindings into every line', () => {
    const { log, lines } = recording();
    const c = childLogger(log, { component: 'informer' });
    c.info({ resource: 'pods' }, 'listed');
    c.warn('plain message');
    c.error({ component: 'own wins' });
    childLogger(c, { node: 'n1' }).debug({}, 'nested');
    expect(lines).toEqual([
      ['info', { component: 'informer', resource: 'pods' }, 'listed'],
      ['warn', { component: 'informer' }, 'plain message'],
      ['error', { component: 'own wins' }],
      ['debug', { component: 'informer', node: 'n1' }, 'nested'],
    ]);
  });

  it('pino is a Logger, and childLogger uses its own child()', () => {
    const out: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        out.push(chunk.toString());
        cb();
      },
    });
    const log: Logger = pino({ level: 'debug', base: null, timestamp: false }, sink);
    childLogger(log, { component: 'ovsdb' }).info({ attempt: 2 }, 'reconnecting');
    expect(out.map((l) => JSON.parse(l) as unknown)).toEqual([{ level: 30, component: 'ovsdb', attempt: 2, msg: 'reconnecting' }]);
  });
});
