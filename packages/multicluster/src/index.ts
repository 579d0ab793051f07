/**
 * @switchyard/multicluster: Multi-cluster leader and member reconcilers over injected Kubernetes clients
 * @packageDocumentation
 */
// Not implemented yet: see the open issues (docs/status.md).
export {};
