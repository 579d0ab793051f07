/**
 * @switchyard/controlplane-client: the agent side of the controller's per-node controlplane watch
 * (docs/controller.md). `ControlplaneClient` keeps a `PolicyView` (policies by uid, address and
 * applied-to groups by name) in step with the controller over HTTPS: initial state swapped in at
 * its BOOKMARK, resume from the last resourceVersion, full resync after `410 Expired`, bearer
 * token (static or re-read per connection), the controller's CA, capped exponential backoff.
 * The agent runs on it; so do the controller's tests and benchmark, and any tool that wants a
 * node's view.
 * @packageDocumentation
 */
export { ControlplaneClient, CONTROLPLANE_BASE } from './client';
export type { ControlplaneClientOptions, WatchOpening, WatchResource } from './client';
export { PolicyView, memberKey } from './view';
export type { PolicyViewData, ApplyOutcome } from './view';
export { silentLogger } from '@switchyard/runtime';
export type { Logger } from '@switchyard/runtime';
