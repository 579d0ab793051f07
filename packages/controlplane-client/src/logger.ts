/** The pino-compatible logger shape the client takes; silent by default. */
export interface Logger {
  debug(obj: unknown, msg?: string): void;
  info(obj: unknown, msg?: string): void;
  warn(obj: unknown, msg?: string): void;
  error(obj: unknown, msg?: string): void;
}

const noop = (): void => undefined;
/** A logger that drops everything. */
export const silentLogger: Logger = { debug: noop, info: noop, warn: noop, error: noop };
