/** Traceflow constants shared by the controller (which hands out tags) and the pipeline (which matches them). */

/**
 * The data-plane tags the controller hands out to concurrent Traceflows, as Antrea does: the DSCP
 * values of RFC 2474's pool 2 (`xxxx11`, experimental or local use), 7 to 59 in steps of 4. A
 * Traceflow beyond these waits (phase Pending) until one is released.
 */
export const TRACEFLOW_TAGS: readonly number[] = Array.from({ length: 14 }, (_, i) => 7 + 4 * i);

/** A Traceflow's timeout when `spec.timeout` is absent, in seconds (Antrea's default). */
export const TRACEFLOW_DEFAULT_TIMEOUT_S = 20;

/** The longest `spec.timeout` accepted, in seconds (Antrea's limit). */
export const TRACEFLOW_MAX_TIMEOUT_S = 300;
