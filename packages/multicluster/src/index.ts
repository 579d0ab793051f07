/**
 * @switchyard/multicluster: Multi-cluster leader and member reconcilers over injected Kubernetes clients
 * @packageDocumentation
 */
export {};
