// The error family of @switchyard/multicluster: a stable code, the offending field and value.

/** Stable codes of {@link MulticlusterError}. */
export type MulticlusterErrorCode = 'INVALID_CLUSTERSET' | 'INVALID_OPTION' | 'LEADER_ACCESS' | 'SERVICE_CIDR';

/** A bad ClusterSet, option or leader access: names the field and the value it had. */
export class MulticlusterError extends Error {
  override readonly name = 'MulticlusterError';
  constructor(
    readonly code: MulticlusterErrorCode,
    message: string,
    /** Where the value came from, e.g. `spec.leaders[0].server` or `--mode`. */
    readonly field: string,
    readonly value: unknown,
  ) {
    super(message);
  }
}
