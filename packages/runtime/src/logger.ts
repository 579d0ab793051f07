// The logger shape every Switchyard package takes: pino's level methods, so pino itself fits.

/** Fields added to every line of a child logger (pino's bindings). */
export type LogBindings = Record<string, unknown>;

/**
 * A pino-compatible logger: the four level methods the packages call, each taking a merging
 * object (or a message) and an optional message. pino's `Logger` fits as it is.
 */
export interface Logger {
  debug(obj: unknown, msg?: string): void;
  info(obj: unknown, msg?: string): void;
  warn(obj: unknown, msg?: string): void;
  error(obj: unknown, msg?: string): void;
  /**
   * A logger that adds `bindings` to every line (pino's `child`). Optional, so that any object
   * with the four level methods is a logger; call {@link childLogger} rather than this.
   */
  child?(bindings: LogBindings): Logger;
}

const noop = (): void => undefined;

/** The logger every library defaults to: drops everything. */
export const silentLogger: Logger = {
  debug: noop,
  info: noop,
  warn: noop,
  error: noop,
  child: () => silentLogger,
};

/**
 * A logger that adds `bindings` to every line: the logger's own `child` where it has one (pino),
 * otherwise a wrapper that merges the bindings into each line's object (a string first argument
 * becomes the message).
 */
export function childLogger(logger: Logger, bindings: LogBindings): Logger {
  if (logger === silentLogger) return logger;
  if (typeof logger.child === 'function') return logger.child(bindings);
  const merge = (obj: unknown): unknown => (typeof obj === 'object' && obj !== null && !Array.isArray(obj) ? { ...bindings, ...obj } : bindings);
  const level =
    (write: (obj: unknown, msg?: string) => void) =>
    (obj: unknown, msg?: string): void => {
      if (typeof obj === 'string' && msg === undefined) write.call(logger, bindings, obj);
      else if (msg === undefined) write.call(logger, merge(obj));
      else write.call(logger, merge(obj), msg);
    };
  return {
    debug: level(logger.debug),
    info: level(logger.info),
    warn: level(logger.warn),
    error: level(logger.error),
    child: (more) => childLogger(logger, { ...bindings, ...more }),
  };
}
