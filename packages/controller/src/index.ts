/**
 * @switchyard/controller: Switchyard controller: central NetworkPolicy computation and controlplane watch server
 * @packageDocumentation
 */
// Not implemented yet: see the open issues (docs/status.md).
export {};
