/**
 * @switchyard/openflow: OpenFlow 1.5 wire protocol with Nicira extensions, switch connection, bundles and ovs-ofctl text.
 * The pure part (Flow model, codec, text) is also available alone as `@switchyard/openflow/codec`.
 * @packageDocumentation
 */
export * from './codec';
export { SwitchConnection, OfSwitchError, OfConnectionError, systemClock } from './connection';
export type { ConnectionOptions, Target, Clock, Logger, PacketIn, SwitchConnectionEvents } from './connection';
