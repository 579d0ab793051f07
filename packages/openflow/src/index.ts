/**
 * @switchyard/openflow: OpenFlow 1.5 wire protocol with Nicira extensions, switch connection, bundles and ovs-ofctl text.
 * The pure part (Flow model, codec, text) is also available alone as `@switchyard/openflow/codec`.
 * @packageDocumentation
 */
export * from './codec';
export { SwitchConnection, OfSwitchError, OfConnectionError } from './connection';
export type { ConnectionOptions, FlowTransport, PacketIn, PacketInChannel, Target, SwitchConnectionEvents } from './connection';
// The logger and clock every Switchyard package shares, re-exported under openflow's names.
export { systemClock } from '@switchyard/runtime';
export type { Clock, Logger } from '@switchyard/runtime';
