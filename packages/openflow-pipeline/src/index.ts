/**
 * @switchyard/openflow-pipeline: Antrea-compatible OpenFlow pipeline builder and flow diff (pure)
 * @packageDocumentation
 */
export {};
