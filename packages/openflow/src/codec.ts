/**
 * @switchyard/openflow/codec: the pure part of the library (Flow model, wire codec, ovs-ofctl
 * text). No sockets, files or processes are reachable from here, so pure packages may import it.
 * @packageDocumentation
 */
export * from './flow.js';
export * from './errors.js';
export { encodeMessage, decodeMessage, writeMessage, peekLength, OFP_VERSION, OFPT, NXT } from './messages.js';
export type {
  OfMessage,
  OfMessageType,
  FlowModCommand,
  Bucket,
  GroupType,
  GroupCommand,
  MeterBand,
  MeterFlag,
  PortDesc,
  PortStats,
  TableStats,
  FlowFilter,
  MultipartRequest,
  MultipartReply,
  BundleControlType,
  BundleFlags,
  ControllerRole,
} from './messages.js';
export { encodeActions, decodeActions } from './actions.js';
export { errorTypeName, errorCodeName } from './error-names.js';
export { toHex, fromHex, Writer } from './buf.js';
export { renderFlow, renderMatch, renderAction, renderActions, renderRef, parseFlow, parseMatch, parseActions, parseDumpFlows } from './text.js';
export type { ParseOptions } from './text.js';
export { normalizeFlow, normalizeMatch } from './normalize.js';
export { FIELDS } from './fields.js';
export type { FieldInfo, FieldKind } from './fields.js';
