/**
 * @switchyard/testbed: Isolated OVS instances, network namespaces and veth helpers for integration tests and the lab
 * @packageDocumentation
 */
export {};
