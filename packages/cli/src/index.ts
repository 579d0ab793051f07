/**
 * @switchyard/cli: yardctl, the Switchyard operator CLI
 * @packageDocumentation
 */
export {};
