/** Typed errors of the pipeline builder: one class, a stable `code`, and where the bad value came from. */

export type PipelineErrorCode =
  | 'TABLE_NOT_ENABLED'
  | 'UNKNOWN_TABLE'
  | 'FIELD_RANGE'
  | 'VALUE_OUT_OF_RANGE'
  | 'PRIORITY_EXHAUSTED'
  | 'INVALID_INPUT'
  | 'UNKNOWN_GROUP'
  | 'DUPLICATE_FLOW'
  /** A feature list that cannot work: two features of one name, a kind declared twice differently, an undeclared kind read. */
  | 'INVALID_FEATURE';

/** Raised for invalid pipeline input or a request the enabled features cannot serve. */
export class PipelineError extends Error {
  override readonly name = 'PipelineError';
  constructor(
    readonly code: PipelineErrorCode,
    message: string,
    /** The offending value. */
    readonly value?: unknown,
    /** Where it came from: a field path (`policies[2].rules[0].services[1].port`) or a table name. */
    readonly path?: string,
  ) {
    super(path ? `${message} (at ${path})` : message);
  }
}
