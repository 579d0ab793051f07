// Minimal pino-compatible logger interface; the library is silent unless given one.

/** Any logger with pino's level methods (pino itself fits). */
export interface Logger {
  debug(obj: unknown, msg?: string): void;
  info(obj: unknown, msg?: string): void;
  warn(obj: unknown, msg?: string): void;
  error(obj: unknown, msg?: string): void;
}

const noop = (): void => undefined;

/** The default logger: drops everything. */
export const silentLogger: Logger = { debug: noop, info: noop, warn: noop, error: noop };
