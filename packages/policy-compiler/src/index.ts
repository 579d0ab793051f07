/**
 * @switchyard/policy-compiler: Kubernetes, Antrea-native and AdminNetworkPolicy compiler to internal rules, with span, incremental engine and evaluator (pure)
 * @packageDocumentation
 */
export {};
