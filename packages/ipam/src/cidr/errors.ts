// Typed errors for CIDR and address math: every one names the input it refused.

/** Stable codes of {@link CidrError}. */
export type CidrErrorCode =
  | 'INVALID_IP'
  | 'INVALID_CIDR'
  | 'INVALID_PREFIX'
  | 'INVALID_RANGE'
  | 'HOST_BITS_SET'
  | 'FAMILY_MISMATCH'
  | 'OUT_OF_RANGE'
  | 'TOO_MANY';

/**
 * Raised by every function of `@switchyard/ipam/cidr` on bad input.
 * `input` is the offending value and `path` (when the caller passed one) where it came from,
 * e.g. `spec.ipRanges[1].cidr`.
 */
export class CidrError extends Error {
  override readonly name = 'CidrError';
  constructor(
    readonly code: CidrErrorCode,
    message: string,
    readonly input: unknown,
    readonly path?: string,
  ) {
    super(path === undefined ? message : `${path}: ${message}`);
  }
}
