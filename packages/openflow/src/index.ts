/**
 * @switchyard/openflow: OpenFlow 1.5 wire protocol with Nicira extensions, switch connection, bundles and ovs-ofctl text
 * @packageDocumentation
 */
export * from './codec.js';
