/**
 * @switchyard/agent: Switchyard node agent and switchyard-cni plugin
 * @packageDocumentation
 */
export {};
