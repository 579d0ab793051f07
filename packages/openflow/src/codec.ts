/**
 * @switchyard/openflow/codec: the pure part of the library (Flow model, wire codec, ovs-ofctl
 * text). No sockets, files or processes are reachable from here, so pure packages may import it.
 * @packageDocumentation
 */
export * from './flow';
export * from './errors';
export { encodeMessage, decodeMessage, writeMessage, writeBundleAdd, bundleFlags, peekLength, OFP_VERSION, OFPT, NXT } from './messages';
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
} from './messages';
export { encodeActions, decodeActions } from './actions';
export { errorTypeName, errorCodeName } from './error-names';
export { toHex, fromHex, Writer } from './buf';
export { renderFlow, renderMatch, renderAction, renderActions, renderRef, parseFlow, parseMatch, parseActions, parseDumpFlows } from './text';
export type { ParseOptions } from './text';
export { normalizeFlow, normalizeMatch } from './normalize';
export { FIELDS } from './fields';
export type { FieldInfo, FieldKind } from './fields';
