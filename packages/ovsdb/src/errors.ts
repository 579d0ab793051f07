// Typed error families of the OVSDB client; every error carries a stable `code` and its context.

/** Base class of every error thrown or reported by @switchyard/ovsdb. */
export class OvsdbError extends Error {
  /** Stable machine-readable code. */
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}

/** The byte stream from the peer is not valid JSON-RPC framing (bad JSON, oversized, truncated). */
export class FramingError extends OvsdbError {
  /** A short excerpt of the offending input. */
  readonly excerpt: string;
  constructor(
    code: 'OVSDB_INVALID_JSON' | 'OVSDB_MESSAGE_TOO_LARGE' | 'OVSDB_TRUNCATED',
    message: string,
    excerpt = '',
  ) {
    super(code, message);
    this.excerpt = excerpt;
  }
}

/** A well-formed JSON message that is not a valid JSON-RPC 1.0 message, or answers nothing we asked. */
export class ProtocolError extends OvsdbError {
  /** The offending message. */
  readonly value: unknown;
  constructor(
    code: 'OVSDB_BAD_MESSAGE' | 'OVSDB_UNKNOWN_ID' | 'OVSDB_BAD_REPLY',
    message: string,
    value: unknown,
  ) {
    super(code, message);
    this.value = value;
  }
}

/** The server answered a request with a JSON-RPC error (not a transaction failure: see TransactionResult). */
export class RpcError extends OvsdbError {
  readonly method: string;
  /** The `error` member of the reply as sent by the server. */
  readonly error: unknown;
  constructor(method: string, error: unknown) {
    const text = typeof error === 'string' ? error : JSON.stringify(error);
    // The message quotes at most 200 characters: a server's error can be megabytes (all of it is in `error`).
    super('OVSDB_RPC_ERROR', `${method} failed: ${text.length > 200 ? `${text.slice(0, 200)}... (${text.length} characters)` : text}`);
    this.method = method;
    this.error = error;
  }
}

/** The connection went away (or was never up) while a request was pending or being sent. */
export class DisconnectedError extends OvsdbError {
  /** The method of the request that was failed. */
  readonly method: string | undefined;
  constructor(message: string, method?: string, options?: { cause?: unknown }) {
    super('OVSDB_DISCONNECTED', message, options);
    this.method = method;
  }
}

/** The client was closed by its owner; further calls fail with this. */
export class ClosedError extends OvsdbError {
  constructor(what = 'client') {
    super('OVSDB_CLOSED', `${what} is closed`);
  }
}

/** A request did not get an answer in time. */
export class TimeoutError extends OvsdbError {
  readonly method: string;
  readonly timeoutMs: number;
  constructor(method: string, timeoutMs: number) {
    super('OVSDB_TIMEOUT', `${method} got no reply within ${timeoutMs} ms`);
    this.method = method;
    this.timeoutMs = timeoutMs;
  }
}

/** A value does not fit the schema; raised before anything is sent to the server. */
export class SchemaValueError extends OvsdbError {
  readonly table: string;
  readonly column: string;
  readonly value: unknown;
  /** Human-readable expected type, e.g. `string, one of [internal, patch]`. */
  readonly expected: string;
  constructor(table: string, column: string, value: unknown, expected: string, detail?: string) {
    let shown: string;
    try {
      shown =
        JSON.stringify(value, (_k, v: unknown) => (v instanceof Map ? Object.fromEntries(v) : v)) ??
        String(value);
    } catch {
      shown = String(value);
    }
    super(
      'OVSDB_SCHEMA_VALUE',
      `${table}.${column}: value ${shown} does not match ${expected}${detail ? ` (${detail})` : ''}`,
    );
    this.table = table;
    this.column = column;
    this.value = value;
    this.expected = expected;
  }
}

/** The schema itself (or a table/column name used against it) is invalid. */
export class SchemaError extends OvsdbError {
  readonly table: string | undefined;
  readonly column: string | undefined;
  constructor(message: string, table?: string, column?: string) {
    super('OVSDB_SCHEMA', message);
    this.table = table;
    this.column = column;
  }
}

/** A transaction the caller required to succeed did not (thrown by `TransactionResult.unwrap()`). */
export class TransactionError extends OvsdbError {
  /** Index of the failed operation, or `undefined` when the commit as a whole failed. */
  readonly index: number | undefined;
  /** The OVSDB error string, e.g. `constraint violation`, `timed out`, `referential integrity violation`. */
  readonly error: string;
  readonly details: string | undefined;
  /** The operation (as sent) that failed, when known. */
  readonly operation: unknown;
  constructor(error: string, details: string | undefined, index: number | undefined, operation: unknown) {
    super(
      'OVSDB_TRANSACTION_FAILED',
      `transaction failed${index === undefined ? '' : ` at operation ${index}`}: ${error}${details ? `: ${details}` : ''}`,
    );
    this.error = error;
    this.details = details;
    this.index = index;
    this.operation = operation;
  }
}

/** The replica's optimistic transaction kept conflicting with concurrent writers. */
export class ConflictError extends OvsdbError {
  readonly attempts: number;
  constructor(attempts: number) {
    super('OVSDB_CONFLICT', `optimistic transaction still conflicting after ${attempts} attempts`);
    this.attempts = attempts;
  }
}

/** The caller canceled a request (the server may never answer a canceled transaction). */
export class CanceledError extends OvsdbError {
  readonly method: string;
  constructor(method: string) {
    super('OVSDB_CANCELED', `${method} canceled by the client`);
    this.method = method;
  }
}
