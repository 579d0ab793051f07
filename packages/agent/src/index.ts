/**
 * @switchyard/agent: Switchyard node agent and switchyard-cni plugin
 * @packageDocumentation
 */
// Not implemented yet: see the open issues (docs/status.md).
export {};
