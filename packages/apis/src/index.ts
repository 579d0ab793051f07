/**
 * @switchyard/apis: Shared types, CRD schemas and the controlplane protobuf API of Switchyard
 * @packageDocumentation
 */
export {};
