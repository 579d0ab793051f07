/** Error families of the library, each with a stable `code`. */

/** Base class: every error thrown by this library is an OpenFlowError. */
export class OpenFlowError extends Error {
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Bytes that do not decode as OpenFlow. `offset` is where in the input the problem was found. */
export class OfDecodeError extends OpenFlowError {
  constructor(
    message: string,
    readonly offset: number,
    readonly path: string,
  ) {
    super('OF_DECODE', `${path}: ${message} (at byte ${offset})`);
  }
}

/** A model value that cannot be encoded (out of range, wrong type, unknown field). */
export class OfEncodeError extends OpenFlowError {
  constructor(
    message: string,
    readonly path: string,
    readonly value: unknown,
  ) {
    super('OF_ENCODE', `${path}: ${message}`);
  }
}

/** ovs-ofctl text that does not parse. `column` is the character offset in `text`. */
export class OfTextError extends OpenFlowError {
  constructor(
    message: string,
    readonly text: string,
    readonly column: number,
  ) {
    super('OF_TEXT', `${message} at column ${column}: ${text.length > 200 ? text.slice(0, 200) + '...' : text}`);
  }
}
