/**
 * @switchyard/ipam: CIDR math, node subnets, host-local compatible crash-safe allocator and IPPools
 * @packageDocumentation
 */
export {};
