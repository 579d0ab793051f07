/**
 * @switchyard/cli: yardctl, the Switchyard operator CLI
 * @packageDocumentation
 */
// Not implemented yet: see the open issues (docs/status.md).
export {};
