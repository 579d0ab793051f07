/**
 * @switchyard/ovsdb: OVSDB client (RFC 7047 + Open vSwitch extensions) with a replica cache
 * @packageDocumentation
 */
export {};
