/**
 * @switchyard/controller: Switchyard controller: central NetworkPolicy computation and controlplane watch server
 * @packageDocumentation
 */
export {};
