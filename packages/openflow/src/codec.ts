/**
 * @switchyard/openflow/codec: the pure part of the library (Flow model, wire codec, ovs-ofctl
 * text). No sockets, files or processes are reachable from here, so pure packages may import it.
 * @packageDocumentation
 */
export * from './flow.js';
