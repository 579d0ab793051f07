/**
 * @switchyard/runtime: the logger, clock, timers, retry backoff and part lifecycle that every
 * Switchyard package takes, one of each. Pure: no I/O, no dependencies. The test clock is in
 * `@switchyard/runtime/testing`.
 * @packageDocumentation
 */
export { childLogger, silentLogger, type LogBindings, type Logger } from './logger';
export { sleep, systemClock, type Clock, type SleepOptions, type TimerHandle } from './clock';
export {
  composeParts, healthOf, partOrder, PartError, PartSet, startParts, stopParts,
  type Part, type PartEntry, type PartHealth, type PartsHealth,
} from './parts';
export { Reconciler, RECONCILE_RETRY, type ReconcilerOptions } from './reconcile';
export { Backoff, BackoffPolicyError, backoffDelay, type BackoffOptions, type BackoffPolicy, type Jitter } from './backoff';
