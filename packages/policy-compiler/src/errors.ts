// Typed errors of the policy compiler: every one names the offending value and its field path.

/** Stable codes of {@link PolicyValidationError}. */
export type PolicyValidationErrorCode =
  | 'INVALID_LABEL_SELECTOR'
  | 'INVALID_CIDR'
  | 'EXCEPT_OUTSIDE_CIDR'
  /** An address or block of the other IP family than the field beside it (a v6 `except` of a v4 `cidr`). */
  | 'IP_FAMILY_MISMATCH'
  | 'INVALID_PORT'
  | 'END_PORT_WITHOUT_PORT'
  | 'END_PORT_BELOW_PORT'
  | 'NAMED_PORT_WITH_END_PORT'
  | 'UNKNOWN_TIER'
  | 'INVALID_TIER_PRIORITY'
  | 'DUPLICATE_TIER_PRIORITY'
  | 'PASS_IN_BASELINE'
  | 'DUPLICATE_RULE_NAME'
  | 'CYCLIC_GROUP'
  | 'INVALID_PEER'
  | 'INVALID_APPLIED_TO'
  | 'INVALID_PRIORITY'
  | 'INVALID_ACTION'
  | 'INVALID_NAME'
  | 'MISSING_FIELD'
  /** A field of another shape than its kind defines (a number where a list belongs, ...). */
  | 'MALFORMED';

/**
 * One semantic validation failure, as the Kubernetes API server reports it: a field path
 * (`spec.ingress[0].from[1].ipBlock.cidr`), the offending value and a message.
 */
export class PolicyValidationError extends Error {
  override readonly name = 'PolicyValidationError';
  constructor(
    readonly code: PolicyValidationErrorCode,
    /** Field path of the offending value, dotted with `[i]` indexes. */
    readonly path: string,
    /** The offending value. */
    readonly value: unknown,
    message: string,
  ) {
    super(`${path}: ${message}`);
  }
}

/** Stable codes of {@link PolicyCompilerError}. */
export type PolicyCompilerErrorCode = 'UNKNOWN_KIND' | 'MISSING_NAME' | 'INVALID_EVENT' | 'INVALID_ENDPOINT' | 'INVALID_QUERY';

/** Misuse of the compiler API (an object it cannot identify, an endpoint it cannot parse). */
export class PolicyCompilerError extends Error {
  override readonly name = 'PolicyCompilerError';
  constructor(
    readonly code: PolicyCompilerErrorCode,
    /** Where the bad value came from (`object.kind`, `query.src`). */
    readonly path: string,
    readonly value: unknown,
    message: string,
  ) {
    super(`${path}: ${message}`);
  }
}
