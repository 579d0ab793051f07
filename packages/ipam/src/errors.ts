// Typed errors of the allocators (CIDR math has its own CidrError).

/** Stable codes of {@link IpamError}. */
export type IpamErrorCode =
  | 'INVALID_CONFIG'
  | 'OVERLAP'
  | 'OUTSIDE_POOL'
  | 'EXHAUSTED'
  | 'UNAVAILABLE'
  | 'DUPLICATE'
  | 'NOT_FOUND'
  | 'IN_USE'
  | 'TERMINATING'
  | 'SHRINK'
  | 'CONFLICT'
  | 'RETRIES_EXHAUSTED'
  | 'LOCK_FAILED'
  | 'STORE_CORRUPT';

/**
 * Raised by the node subnet, host-local and IPPool allocators. `value` is the offending input
 * (a CIDR, an address, a pool name) and `path` where it came from (`spec.podCIDRs[0]`,
 * `<dataDir>/<network>/10.0.0.5`, `spec.ipRanges[1]`).
 */
export class IpamError extends Error {
  override readonly name = 'IpamError';
  constructor(
    readonly code: IpamErrorCode,
    message: string,
    readonly value?: unknown,
    readonly path?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
