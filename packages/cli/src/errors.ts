// Typed errors of yardctl; each family maps to a process exit code (1 runtime error, 2 usage).

/** Stable error codes of the cli. */
export type CliErrorCode =
  | 'USAGE'
  | 'UNKNOWN_RESOURCE'
  | 'CONFIG'
  | 'UNREACHABLE'
  | 'TIMEOUT'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'SERVER';

/** Exit code of a usage error (bad flag, missing argument), as kubectl and POSIX tools use. */
export const EXIT_USAGE = 2;
/** Exit code of any other failure. */
export const EXIT_ERROR = 1;

/** An error yardctl reports on stderr before exiting non-zero. */
export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    readonly code: CliErrorCode,
    message: string,
    /** The offending value (flag value, resource name, URL). */
    readonly value?: unknown,
    /** Where the value came from (flag name, argument, API path). */
    readonly field?: string,
  ) {
    super(message);
  }

  /** Process exit code for this error. */
  get exitCode(): number {
    return this.code === 'USAGE' ? EXIT_USAGE : EXIT_ERROR;
  }
}
