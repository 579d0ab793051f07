/**
 * @switchyard/runtime: the logger, clock, timers and retry backoff that every Switchyard package
 * takes, one of each. Pure: no I/O, no dependencies. The test clock is in
 * `@switchyard/runtime/testing`.
 * @packageDocumentation
 */
export { childLogger, silentLogger, type LogBindings, type Logger } from './logger';
export { sleep, systemClock, type Clock, type SleepOptions, type TimerHandle } from './clock';
export { Backoff, BackoffPolicyError, backoffDelay, type BackoffOptions, type BackoffPolicy, type Jitter } from './backoff';
