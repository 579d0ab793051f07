/** OpenFlow 1.5 messages (and the Nicira ones the agent needs): types, encoder and decoder. */
import { readInstructions, writeActions, readActions, writeInstructions } from './actions';
import { Reader, Writer } from './buf';
import { OfDecodeError, OfEncodeError } from './errors';
import { errorCodeName, errorTypeName } from './error-names';
import type { Action, Flow, FlowFlag, Match, PacketInReason } from './flow';
import { OFPP } from './flow';
import { readMatch, writeMatch, readEntry } from './match';
import { formatMac } from './values';
import { NX_VENDOR_ID, REASONS } from './actions';

export const OFP_VERSION = 0x06;

/** OpenFlow 1.5 message type numbers. */
export const OFPT = {
  HELLO: 0,
  ERROR: 1,
  ECHO_REQUEST: 2,
  ECHO_REPLY: 3,
  EXPERIMENTER: 4,
  FEATURES_REQUEST: 5,
  FEATURES_REPLY: 6,
  GET_CONFIG_REQUEST: 7,
  GET_CONFIG_REPLY: 8,
  SET_CONFIG: 9,
  PACKET_IN: 10,
  FLOW_REMOVED: 11,
  PORT_STATUS: 12,
  PACKET_OUT: 13,
  FLOW_MOD: 14,
  GROUP_MOD: 15,
  MULTIPART_REQUEST: 18,
  MULTIPART_REPLY: 19,
  BARRIER_REQUEST: 20,
  BARRIER_REPLY: 21,
  ROLE_REQUEST: 24,
  ROLE_REPLY: 25,
  METER_MOD: 29,
  BUNDLE_CONTROL: 33,
  BUNDLE_ADD_MESSAGE: 34,
} as const;

/** Nicira experimenter message types. */
export const NXT = { SET_PACKET_IN_FORMAT: 16, SET_CONTROLLER_ID: 20, RESUME: 28, PACKET_IN2: 30 } as const;

const OFPMP = { DESC: 0, FLOW_DESC: 1, AGGREGATE: 2, TABLE_STATS: 3, PORT_STATS: 4, PORT_DESC: 13 } as const;

export type FlowModCommand = 'add' | 'modify' | 'modifyStrict' | 'delete' | 'deleteStrict';
const FLOW_MOD_COMMANDS: FlowModCommand[] = ['add', 'modify', 'modifyStrict', 'delete', 'deleteStrict'];
const FLOW_FLAGS: FlowFlag[] = ['send_flow_rem', 'check_overlap', 'reset_counts', 'no_packet_counts', 'no_byte_counts'];

/** A group bucket: actions plus, for select groups, a weight. */
export interface Bucket {
  bucketId?: number;
  weight?: number;
  actions: Action[];
}
export type GroupType = 'all' | 'select' | 'indirect' | 'ff';
const GROUP_TYPES: GroupType[] = ['all', 'select', 'indirect', 'ff'];
export type GroupCommand = 'add' | 'modify' | 'delete';
const GROUP_COMMANDS: GroupCommand[] = ['add', 'modify', 'delete'];

export interface MeterBand {
  type: 'drop' | 'dscpRemark';
  rate: number;
  burstSize: number;
  precLevel?: number;
}
export type MeterFlag = 'kbps' | 'pktps' | 'burst' | 'stats';
const METER_FLAGS: MeterFlag[] = ['kbps', 'pktps', 'burst', 'stats'];

export interface PortDesc {
  portNo: number;
  hwAddr: string;
  name: string;
  config: number;
  state: number;
  currSpeed?: number;
  maxSpeed?: number;
}
export interface PortStats {
  portNo: number;
  durationSec: number;
  rxPackets: bigint;
  txPackets: bigint;
  rxBytes: bigint;
  txBytes: bigint;
  rxDropped: bigint;
  txDropped: bigint;
  rxErrors: bigint;
  txErrors: bigint;
}
export interface TableStats {
  tableId: number;
  activeCount: number;
  lookupCount: bigint;
  matchedCount: bigint;
}

/** Selection of flows for flow stats / aggregate requests. */
export interface FlowFilter {
  table?: number;
  outPort?: number;
  outGroup?: number;
  cookie?: bigint;
  cookieMask?: bigint;
  match?: Match;
}

export type MultipartRequest =
  | { kind: 'desc' }
  | ({ kind: 'flow' } & FlowFilter)
  | ({ kind: 'aggregate' } & FlowFilter)
  | { kind: 'tableStats' }
  | { kind: 'portStats'; port?: number }
  | { kind: 'portDesc' };

export type MultipartReply =
  | { kind: 'desc'; mfr: string; hw: string; sw: string; serial: string; dp: string }
  | { kind: 'flow'; flows: Flow[] }
  | { kind: 'aggregate'; packets: bigint; bytes: bigint; flows: number }
  | { kind: 'tableStats'; tables: TableStats[] }
  | { kind: 'portStats'; ports: PortStats[] }
  | { kind: 'portDesc'; ports: PortDesc[] };

export type BundleControlType =
  | 'openRequest'
  | 'openReply'
  | 'closeRequest'
  | 'closeReply'
  | 'commitRequest'
  | 'commitReply'
  | 'discardRequest'
  | 'discardReply';
const BUNDLE_TYPES: BundleControlType[] = [
  'openRequest',
  'openReply',
  'closeRequest',
  'closeReply',
  'commitRequest',
  'commitReply',
  'discardRequest',
  'discardReply',
];
export interface BundleFlags {
  atomic?: boolean;
  ordered?: boolean;
}

export type ControllerRole = 'nochange' | 'equal' | 'master' | 'slave';
const ROLES: ControllerRole[] = ['nochange', 'equal', 'master', 'slave'];

/** Every message the codec knows. `xid` is optional when encoding (0 by default). */
export type OfMessage = { xid?: number } & (
  | { type: 'hello'; versions: number[] }
  | {
      type: 'error';
      errType: number;
      errCode: number;
      /** `OFPET_BAD_ACTION` style names, `NXBRC_...` for Nicira codes where known. */
      typeName: string;
      codeName: string;
      experimenter?: number;
      /** Usually the first bytes of the request that failed. */
      data: Uint8Array;
    }
  | { type: 'echoRequest'; data: Uint8Array }
  | { type: 'echoReply'; data: Uint8Array }
  | { type: 'featuresRequest' }
  | { type: 'featuresReply'; datapathId: bigint; nBuffers: number; nTables: number; auxiliaryId: number; capabilities: number }
  | { type: 'getConfigRequest' }
  | { type: 'getConfigReply'; flags: number; missSendLen: number }
  | { type: 'setConfig'; flags: number; missSendLen: number }
  | { type: 'barrierRequest' }
  | { type: 'barrierReply' }
  | { type: 'flowMod'; command: FlowModCommand; flow: Flow; outPort?: number; outGroup?: number; bufferId?: number }
  | { type: 'groupMod'; command: GroupCommand; groupType: GroupType; groupId: number; buckets: Bucket[] }
  | { type: 'meterMod'; command: GroupCommand; meterId: number; flags: MeterFlag[]; bands: MeterBand[] }
  | { type: 'multipartRequest'; request: MultipartRequest }
  | { type: 'multipartReply'; reply: MultipartReply; more: boolean }
  | { type: 'bundleControl'; bundleId: number; control: BundleControlType; flags: BundleFlags }
  | { type: 'bundleAdd'; bundleId: number; flags: BundleFlags; message: OfMessage }
  | {
      type: 'packetIn';
      bufferId: number;
      totalLen: number;
      reason: PacketInReason;
      tableId: number;
      cookie: bigint;
      match: Match;
      data: Uint8Array;
    }
  | {
      type: 'packetIn2';
      packet: Uint8Array;
      fullLen?: number;
      bufferId?: number;
      tableId?: number;
      cookie?: bigint;
      reason?: PacketInReason;
      metadata?: Match;
      userdata?: Uint8Array;
      /** Opaque switch state; send it back in a `resume` message to continue a paused pipeline. */
      continuation?: Uint8Array;
    }
  | { type: 'resume'; packet: Uint8Array; continuation: Uint8Array; metadata?: Match }
  | { type: 'packetOut'; inPort: number; actions: Action[]; data: Uint8Array; bufferId?: number }
  | { type: 'setPacketInFormat'; format: 'standard' | 'nxt' | 'nxt2' }
  | { type: 'setControllerId'; id: number }
  | { type: 'roleRequest'; role: ControllerRole; generationId: bigint }
  | { type: 'roleReply'; role: ControllerRole; generationId: bigint }
  | { type: 'unknown'; msgType: number; version: number; body: Uint8Array }
);

/** The `type` tags of {@link OfMessage}. */
export type OfMessageType = OfMessage['type'];

function header(w: Writer, type: number, xid: number): number {
  const start = w.length;
  w.u8(OFP_VERSION).u8(type).u16(0).u32(xid);
  return start;
}
function nxtHeader(w: Writer, subtype: number, xid: number): number {
  const start = header(w, OFPT.EXPERIMENTER, xid);
  w.u32(NX_VENDOR_ID).u32(subtype);
  return start;
}

/** Encode a message; `xid` overrides `msg.xid`. */
export function encodeMessage(msg: OfMessage, xid = msg.xid ?? 0): Uint8Array {
  const w = new Writer(msg.type === 'flowMod' ? 256 : 64);
  writeMessage(w, msg, xid);
  return w.finish();
}

/** Append an encoded message to `w` (lets a caller batch many messages into one buffer). */
export function writeMessage(w: Writer, msg: OfMessage, xid = msg.xid ?? 0): void {
  const start = w.length;
  writeBody(w, msg, xid);
  const len = w.length - start;
  if (len > 0xffff) throw new OfEncodeError(`message of ${len} bytes exceeds 65535`, msg.type, msg);
  w.setU16(start + 2, len);
}

/**
 * Appends a bundle-add whose inner message is a flow-mod of `flow`: the bytes writeMessage writes
 * for `{ type: 'bundleAdd', bundleId, flags, message: { type: 'flowMod', command, flow } }` with
 * `xid`, without those two objects per flow (a bundle of 100k flows is written this way).
 * `flagBits` is {@link bundleFlags} of the bundle's flags.
 */
export function writeBundleAddFlowMod(w: Writer, bundleId: number, flagBits: number, command: FlowModCommand, flow: Flow, xid: number): void {
  const start = header(w, OFPT.BUNDLE_ADD_MESSAGE, xid);
  w.u32(bundleId).zeros(2).u16(flagBits);
  const inner = header(w, OFPT.FLOW_MOD, xid);
  writeFlowModFields(w, command, flow, undefined, undefined, undefined);
  const len = w.length - start;
  if (len > 0xffff) throw new OfEncodeError(`message of ${len} bytes exceeds 65535`, 'bundleAdd', { type: 'flowMod', command, flow });
  w.setU16(inner + 2, w.length - inner);
  w.setU16(start + 2, len);
}

/**
 * Appends `message` as a bundle-add of a bundle with `flags` (`flagBits` = {@link bundleFlags} of
 * them): the bytes writeMessage writes for `{ type: 'bundleAdd', bundleId, flags, message }` with
 * `xid`. A flow-mod with no xid, buffer, out_port or out_group of its own (every flow-mod of a
 * policy's realization) goes through {@link writeBundleAddFlowMod}: no wrapper object and no
 * generic message dispatch per flow.
 */
export function writeBundleAdd(w: Writer, bundleId: number, flags: BundleFlags, flagBits: number, message: OfMessage, xid: number): void {
  if (message.type === 'flowMod' && message.xid === undefined && message.bufferId === undefined && message.outPort === undefined && message.outGroup === undefined) {
    writeBundleAddFlowMod(w, bundleId, flagBits, message.command, message.flow, xid);
  } else {
    writeMessage(w, { type: 'bundleAdd', bundleId, flags, message }, xid);
  }
}

function writeFlowMod(w: Writer, msg: Extract<OfMessage, { type: 'flowMod' }>): void {
  writeFlowModFields(w, msg.command, msg.flow, msg.bufferId, msg.outPort, msg.outGroup);
}

function writeFlowModFields(w: Writer, command: FlowModCommand, f: Flow, bufferId: number | undefined, outPort: number | undefined, outGroup: number | undefined): void {
  const cmd = FLOW_MOD_COMMANDS.indexOf(command);
  if (cmd < 0) throw new OfEncodeError('unknown flow-mod command', 'command', command);
  let flags = 0;
  if (f.flags !== undefined) {
    for (const fl of f.flags) {
      const i = FLOW_FLAGS.indexOf(fl);
      if (i < 0) throw new OfEncodeError('unknown flag', 'flow.flags', fl);
      flags |= 1 << i;
    }
  }
  const isDelete = command === 'delete' || command === 'deleteStrict';
  w.u64(f.cookie ?? 0n).u64(f.cookieMask ?? 0n);
  w.u8(f.table).u8(cmd).u16(f.idleTimeout ?? 0).u16(f.hardTimeout ?? 0).u16(f.priority);
  w.u32(bufferId ?? 0xffffffff).u32(outPort ?? OFPP.ANY).u32(outGroup ?? 0xffffffff);
  w.u16(flags).u16(f.importance ?? 0);
  writeMatch(w, f.match, 'flow.match');
  if (!isDelete) writeInstructions(w, f.actions, 'flow.actions');
}

function writeBuckets(w: Writer, buckets: readonly Bucket[], path: string): void {
  buckets.forEach((b, i) => {
    const s = w.length;
    w.u16(0).u16(0).u32(b.bucketId ?? i);
    const a = w.length;
    writeActions(w, b.actions, `${path}[${i}].actions`);
    w.setU16(s + 2, w.length - a);
    if (b.weight !== undefined) w.u16(0).u16(8).u16(b.weight).u16(0); // OFPGBPT15_WEIGHT
    w.setU16(s, w.length - s);
  });
}

function writeFilter(w: Writer, f: FlowFilter): void {
  w.u8(f.table ?? 0xff).zeros(3).u32(f.outPort ?? OFPP.ANY).u32(f.outGroup ?? 0xffffffff).zeros(4);
  w.u64(f.cookie ?? 0n).u64(f.cookieMask ?? 0n);
  writeMatch(w, f.match ?? {}, 'match');
}

function bundleFlagsFrom(bits: number): BundleFlags {
  const f: BundleFlags = {};
  if (bits & 1) f.atomic = true;
  if (bits & 2) f.ordered = true;
  return f;
}

/** The wire bits of bundle flags. */
export function bundleFlags(f: BundleFlags): number {
  return (f.atomic ? 1 : 0) | (f.ordered ? 2 : 0);
}

function prop(w: Writer, type: number, body: (x: Writer) => void): void {
  const p = w.length;
  w.u16(type).u16(0);
  body(w);
  w.setU16(p + 2, w.length - p);
  w.pad(8, p);
}

function writeBody(w: Writer, msg: OfMessage, xid: number): void {
  switch (msg.type) {
    case 'hello': {
      header(w, OFPT.HELLO, xid);
      let bitmap = 0;
      for (const v of msg.versions) bitmap |= 1 << v;
      w.u16(1).u16(8).u32(bitmap >>> 0);
      return;
    }
    case 'error':
      header(w, OFPT.ERROR, xid);
      if (msg.experimenter !== undefined) w.u16(0xffff).u16(msg.errCode).u32(msg.experimenter);
      else w.u16(msg.errType).u16(msg.errCode);
      w.bytes(msg.data);
      return;
    case 'echoRequest':
    case 'echoReply':
      header(w, msg.type === 'echoRequest' ? OFPT.ECHO_REQUEST : OFPT.ECHO_REPLY, xid);
      w.bytes(msg.data);
      return;
    case 'featuresRequest':
      header(w, OFPT.FEATURES_REQUEST, xid);
      return;
    case 'featuresReply':
      header(w, OFPT.FEATURES_REPLY, xid);
      w.u64(msg.datapathId).u32(msg.nBuffers).u8(msg.nTables).u8(msg.auxiliaryId).zeros(2).u32(msg.capabilities).zeros(4);
      return;
    case 'getConfigRequest':
      header(w, OFPT.GET_CONFIG_REQUEST, xid);
      return;
    case 'getConfigReply':
    case 'setConfig':
      header(w, msg.type === 'setConfig' ? OFPT.SET_CONFIG : OFPT.GET_CONFIG_REPLY, xid);
      w.u16(msg.flags).u16(msg.missSendLen);
      return;
    case 'barrierRequest':
      header(w, OFPT.BARRIER_REQUEST, xid);
      return;
    case 'barrierReply':
      header(w, OFPT.BARRIER_REPLY, xid);
      return;
    case 'flowMod':
      header(w, OFPT.FLOW_MOD, xid);
      writeFlowMod(w, msg);
      return;
    case 'groupMod': {
      header(w, OFPT.GROUP_MOD, xid);
      const cmd = GROUP_COMMANDS.indexOf(msg.command);
      const gt = GROUP_TYPES.indexOf(msg.groupType);
      if (cmd < 0 || gt < 0) throw new OfEncodeError('bad group command/type', 'groupMod', msg);
      const s = w.length;
      w.u16(cmd).u8(gt).u8(0).u32(msg.groupId).u16(0).zeros(2).u32(0xffffffff);
      const b = w.length;
      writeBuckets(w, msg.buckets, 'buckets');
      w.setU16(s + 8, w.length - b);
      return;
    }
    case 'meterMod': {
      header(w, OFPT.METER_MOD, xid);
      let flags = 0;
      for (const f of msg.flags) flags |= 1 << METER_FLAGS.indexOf(f);
      w.u16(GROUP_COMMANDS.indexOf(msg.command)).u16(flags).u32(msg.meterId);
      for (const band of msg.bands) {
        w.u16(band.type === 'drop' ? 1 : 2).u16(16).u32(band.rate).u32(band.burstSize);
        if (band.type === 'dscpRemark') w.u8(band.precLevel ?? 0).zeros(3);
        else w.zeros(4);
      }
      return;
    }
    case 'multipartRequest': {
      header(w, OFPT.MULTIPART_REQUEST, xid);
      const r = msg.request;
      const mpType = { desc: OFPMP.DESC, flow: OFPMP.FLOW_DESC, aggregate: OFPMP.AGGREGATE, tableStats: OFPMP.TABLE_STATS, portStats: OFPMP.PORT_STATS, portDesc: OFPMP.PORT_DESC }[r.kind];
      w.u16(mpType).u16(0).zeros(4);
      if (r.kind === 'flow' || r.kind === 'aggregate') writeFilter(w, r);
      else if (r.kind === 'portStats' || r.kind === 'portDesc') w.u32(r.kind === 'portStats' ? (r.port ?? OFPP.ANY) : OFPP.ANY).zeros(4);
      return;
    }
    case 'multipartReply':
      throw new OfEncodeError('encoding multipart replies is not supported (switch side)', 'multipartReply', msg.reply.kind);
    case 'bundleControl':
      header(w, OFPT.BUNDLE_CONTROL, xid);
      w.u32(msg.bundleId).u16(BUNDLE_TYPES.indexOf(msg.control)).u16(bundleFlags(msg.flags));
      return;
    case 'bundleAdd': {
      header(w, OFPT.BUNDLE_ADD_MESSAGE, xid);
      w.u32(msg.bundleId).zeros(2).u16(bundleFlags(msg.flags));
      // The inner message carries its own xid; OVS requires it to equal the bundle-add's xid.
      writeMessage(w, msg.message, msg.message.xid ?? xid);
      return;
    }
    case 'packetIn': {
      header(w, OFPT.PACKET_IN, xid);
      w.u32(msg.bufferId).u16(msg.totalLen).u8(REASONS.indexOf(msg.reason)).u8(msg.tableId).u64(msg.cookie);
      writeMatch(w, msg.match);
      w.zeros(2).bytes(msg.data);
      return;
    }
    case 'packetIn2':
    case 'resume': {
      nxtHeader(w, msg.type === 'resume' ? NXT.RESUME : NXT.PACKET_IN2, xid);
      prop(w, 0, (x) => x.bytes(msg.packet));
      if (msg.type === 'packetIn2') {
        if (msg.fullLen !== undefined) prop(w, 1, (x) => x.u32(msg.fullLen!));
        if (msg.bufferId !== undefined) prop(w, 2, (x) => x.u32(msg.bufferId!));
        if (msg.tableId !== undefined) prop(w, 3, (x) => x.u8(msg.tableId!));
        // 64-bit property values are preceded by 4 bytes of padding (ofpprop_put_be64).
        if (msg.cookie !== undefined) prop(w, 4, (x) => x.zeros(4).u64(msg.cookie!));
        if (msg.reason !== undefined) prop(w, 5, (x) => x.u8(REASONS.indexOf(msg.reason!)));
        if (msg.userdata !== undefined) prop(w, 7, (x) => x.bytes(msg.userdata!));
      }
      if (msg.metadata !== undefined) {
        const md = msg.metadata;
        prop(w, 6, (x) => {
          const tmp = new Writer();
          writeMatch(tmp, md);
          // NXPINT_METADATA holds bare OXM entries (no ofp_match header, no padding).
          const b = tmp.finish();
          const len = (b[2]! << 8) | b[3]!;
          x.bytes(b.subarray(4, len));
        });
      }
      if (msg.continuation !== undefined) prop(w, 8, (x) => x.bytes(msg.continuation!));
      return;
    }
    case 'packetOut': {
      header(w, OFPT.PACKET_OUT, xid);
      const s = w.length;
      w.u32(msg.bufferId ?? 0xffffffff).u16(0).zeros(2);
      writeMatch(w, { inPort: msg.inPort });
      const a = w.length;
      writeActions(w, msg.actions, 'actions');
      w.setU16(s + 4, w.length - a);
      w.bytes(msg.data);
      return;
    }
    case 'setPacketInFormat':
      nxtHeader(w, NXT.SET_PACKET_IN_FORMAT, xid);
      w.u32(['standard', 'nxt', 'nxt2'].indexOf(msg.format));
      return;
    case 'setControllerId':
      nxtHeader(w, NXT.SET_CONTROLLER_ID, xid);
      w.zeros(6).u16(msg.id);
      return;
    case 'roleRequest':
    case 'roleReply':
      header(w, msg.type === 'roleRequest' ? OFPT.ROLE_REQUEST : OFPT.ROLE_REPLY, xid);
      w.u32(ROLES.indexOf(msg.role)).zeros(4).u64(msg.generationId);
      return;
    case 'unknown':
      w.u8(msg.version).u8(msg.msgType).u16(0).u32(xid).bytes(msg.body);
      return;
  }
}

// ---------------------------------------------------------------- decode

/** Length of the message at the start of `buf`, or undefined if fewer than 8 bytes are there. */
export function peekLength(buf: Uint8Array, at = 0): number | undefined {
  if (buf.length - at < 8) return undefined;
  return (buf[at + 2]! << 8) | buf[at + 3]!;
}

/** Decode one complete message. Throws {@link OfDecodeError} on malformed input, never anything else. */
export function decodeMessage(bytes: Uint8Array): OfMessage & { xid: number } {
  try {
    return decodeUnsafe(bytes);
  } catch (e) {
    if (e instanceof OfDecodeError) throw e;
    // Any other exception here is a codec bug reached by malformed input: report it as a decode error.
    throw new OfDecodeError(`malformed message (${(e as Error).message})`, 0, 'message');
  }
}

function str(b: Uint8Array): string {
  let end = b.indexOf(0);
  if (end < 0) end = b.length;
  return new TextDecoder().decode(b.subarray(0, end));
}

function decodeUnsafe(bytes: Uint8Array): OfMessage & { xid: number } {
  // A barrier reply (what every single add, flow-mod batch and bundle waits for) is a bare header:
  // returned before any Reader (two DataViews and a path string) is made.
  if (bytes.length === 8 && bytes[0] === OFP_VERSION && bytes[1] === OFPT.BARRIER_REPLY && bytes[2] === 0 && bytes[3] === 8) {
    return { type: 'barrierReply', xid: ((bytes[4]! << 24) | (bytes[5]! << 16) | (bytes[6]! << 8) | bytes[7]!) >>> 0 };
  }
  const r0: Reader = new Reader(bytes, "message");
  const version = r0.u8();
  const type = r0.u8();
  const length = r0.u16();
  const xid = r0.u32();
  if (length < 8 || length > bytes.length) r0.fail(`bad message length ${length}`, 2);
  const r: Reader = new Reader(bytes, `message(type ${type})`, 8, length);
  if (version !== OFP_VERSION && type !== OFPT.HELLO && type !== OFPT.ERROR) {
    return { type: 'unknown', msgType: type, version, body: r.bytes(r.remaining).slice(), xid };
  }
  switch (type) {
    case OFPT.HELLO: {
      const versions: number[] = [];
      while (r.remaining >= 4) {
        const et = r.u16();
        const el = r.u16();
        if (el < 4) r.fail('bad hello element length');
        const body = r.sub(Math.min(el - 4, r.remaining));
        if (et === 1) {
          let word = 0;
          while (body.remaining >= 4) {
            const bm = body.u32();
            for (let i = 0; i < 32; i++) if (bm & (1 << i)) versions.push(word * 32 + i);
            word++;
          }
        }
        r.skip(Math.min(r.remaining, ((el + 7) & ~7) - el));
      }
      if (versions.length === 0) versions.push(version);
      return { type: 'hello', versions, xid };
    }
    case OFPT.ERROR: {
      const errType = r.u16();
      const errCode = r.u16();
      if (errType === 0xffff) {
        const experimenter = r.u32();
        return {
          type: 'error',
          errType,
          errCode,
          experimenter,
          typeName: 'OFPET_EXPERIMENTER',
          codeName: errorCodeName(errType, errCode, experimenter),
          data: r.bytes(r.remaining).slice(),
          xid,
        };
      }
      return {
        type: 'error',
        errType,
        errCode,
        typeName: errorTypeName(errType),
        codeName: errorCodeName(errType, errCode),
        data: r.bytes(r.remaining).slice(),
        xid,
      };
    }
    case OFPT.ECHO_REQUEST:
      return { type: 'echoRequest', data: r.bytes(r.remaining).slice(), xid };
    case OFPT.ECHO_REPLY:
      return { type: 'echoReply', data: r.bytes(r.remaining).slice(), xid };
    case OFPT.FEATURES_REQUEST:
      return { type: 'featuresRequest', xid };
    case OFPT.FEATURES_REPLY: {
      const datapathId = r.u64();
      const nBuffers = r.u32();
      const nTables = r.u8();
      const auxiliaryId = r.u8();
      r.skip(2);
      const capabilities = r.u32();
      return { type: 'featuresReply', datapathId, nBuffers, nTables, auxiliaryId, capabilities, xid };
    }
    case OFPT.GET_CONFIG_REQUEST:
      return { type: 'getConfigRequest', xid };
    case OFPT.GET_CONFIG_REPLY:
    case OFPT.SET_CONFIG: {
      const flags = r.u16();
      const missSendLen = r.u16();
      return { type: type === OFPT.SET_CONFIG ? 'setConfig' : 'getConfigReply', flags, missSendLen, xid };
    }
    case OFPT.BARRIER_REQUEST:
      return { type: 'barrierRequest', xid };
    case OFPT.BARRIER_REPLY:
      return { type: 'barrierReply', xid };
    case OFPT.FLOW_MOD:
      return { ...readFlowMod(r), xid };
    case OFPT.GROUP_MOD: {
      const cmd = r.u16();
      const gt = r.u8();
      r.skip(1);
      const groupId = r.u32();
      const bucketLen = r.u16();
      r.skip(6);
      const br = r.sub(bucketLen, 'groupMod.buckets');
      const buckets: Bucket[] = [];
      while (br.remaining > 0) {
        const bs = br.pos;
        const len = br.u16();
        const alen = br.u16();
        const bucketId = br.u32();
        if (len < 8) br.fail('bad bucket length', bs);
        br.pos = bs + 8;
        const body = br.sub(len - 8);
        const b: Bucket = { bucketId, actions: readActions(body.sub(alen)) };
        while (body.remaining >= 4) {
          const pt = body.u16();
          const pl = body.u16();
          const pb = body.sub(Math.max(0, Math.min(pl - 4, body.remaining)));
          if (pt === 0) b.weight = pb.u16();
          body.skip(Math.min(body.remaining, ((pl + 7) & ~7) - pl));
        }
        buckets.push(b);
      }
      const command = GROUP_COMMANDS[cmd];
      const groupType = GROUP_TYPES[gt];
      if (!command || !groupType) r.fail('bad group command or type');
      return { type: 'groupMod', command, groupType, groupId, buckets, xid };
    }
    case OFPT.METER_MOD: {
      const cmd = r.u16();
      const flagBits = r.u16();
      const meterId = r.u32();
      const bands: MeterBand[] = [];
      while (r.remaining > 0) {
        const bt = r.u16();
        const bl = r.u16();
        const rate = r.u32();
        const burstSize = r.u32();
        if (bl < 12) r.fail('bad meter band length');
        const rest = r.sub(bl - 12);
        if (bt === 2) bands.push({ type: 'dscpRemark', rate, burstSize, precLevel: rest.u8() });
        else bands.push({ type: 'drop', rate, burstSize });
      }
      const command = GROUP_COMMANDS[cmd];
      if (!command) r.fail('bad meter command');
      return { type: 'meterMod', command, meterId, flags: METER_FLAGS.filter((_, i) => flagBits & (1 << i)), bands, xid };
    }
    case OFPT.MULTIPART_REQUEST: {
      const mp = r.u16();
      r.skip(6);
      if (mp === OFPMP.FLOW_DESC || mp === OFPMP.AGGREGATE) {
        const table = r.u8();
        r.skip(3);
        const outPort = r.u32();
        const outGroup = r.u32();
        r.skip(4);
        const cookie = r.u64();
        const cookieMask = r.u64();
        const match = readMatch(r);
        // Defaults (all tables, any port/group, no cookie, empty match) are left out, as when encoding.
        const filter: FlowFilter = {};
        if (table !== 0xff) filter.table = table;
        if (outPort !== OFPP.ANY) filter.outPort = outPort;
        if (outGroup !== 0xffffffff) filter.outGroup = outGroup;
        if (cookie || cookieMask) {
          filter.cookie = cookie;
          filter.cookieMask = cookieMask;
        }
        if (Object.keys(match).length) filter.match = match;
        return { type: 'multipartRequest', request: { kind: mp === OFPMP.FLOW_DESC ? 'flow' : 'aggregate', ...filter }, xid };
      }
      if (mp === OFPMP.PORT_STATS) return { type: 'multipartRequest', request: { kind: 'portStats', port: r.u32() }, xid };
      const kind = ({ [OFPMP.DESC]: 'desc', [OFPMP.TABLE_STATS]: 'tableStats', [OFPMP.PORT_DESC]: 'portDesc' } as Record<number, 'desc' | 'tableStats' | 'portDesc'>)[mp];
      if (!kind) return { type: 'unknown', msgType: type, version, body: bytes.slice(8, length), xid };
      return { type: 'multipartRequest', request: { kind }, xid };
    }
    case OFPT.MULTIPART_REPLY: {
      const mp = r.u16();
      const flags = r.u16();
      r.skip(4);
      const more = (flags & 1) !== 0;
      const reply = readMultipartReply(r, mp);
      if (!reply) return { type: 'unknown', msgType: type, version, body: bytes.slice(8, length), xid };
      return { type: 'multipartReply', reply, more, xid };
    }
    case OFPT.BUNDLE_CONTROL: {
      const bundleId = r.u32();
      const ct = r.u16();
      const fl = r.u16();
      const control = BUNDLE_TYPES[ct];
      if (!control) r.fail(`bad bundle control type ${ct}`);
      return { type: 'bundleControl', bundleId, control, flags: bundleFlagsFrom(fl), xid };
    }
    case OFPT.BUNDLE_ADD_MESSAGE: {
      const bundleId = r.u32();
      r.skip(2);
      const fl = r.u16();
      const innerLen = peekLength(bytes, r.pos);
      if (innerLen === undefined || innerLen < 8 || innerLen > r.remaining) r.fail('bad inner message length');
      const message = decodeUnsafe(bytes.subarray(r.pos, r.pos + innerLen));
      return { type: 'bundleAdd', bundleId, flags: bundleFlagsFrom(fl), message, xid };
    }
    case OFPT.PACKET_IN: {
      const bufferId = r.u32();
      const totalLen = r.u16();
      const reason = REASONS[r.u8()] ?? r.fail('bad packet-in reason');
      const tableId = r.u8();
      const cookie = r.u64();
      const match = readMatch(r);
      r.skip(2);
      return { type: 'packetIn', bufferId, totalLen, reason, tableId, cookie, match, data: r.bytes(r.remaining).slice(), xid };
    }
    case OFPT.PACKET_OUT: {
      const bufferId = r.u32();
      const alen = r.u16();
      r.skip(2);
      const match = readMatch(r);
      const actions = readActions(r.sub(alen, 'packetOut.actions'));
      const msg: OfMessage & { xid: number } = { type: 'packetOut', inPort: match.inPort ?? OFPP.CONTROLLER, actions, data: r.bytes(r.remaining).slice(), xid };
      if (bufferId !== 0xffffffff) msg.bufferId = bufferId;
      return msg;
    }
    case OFPT.ROLE_REQUEST:
    case OFPT.ROLE_REPLY: {
      const role = ROLES[r.u32()] ?? r.fail('bad role');
      r.skip(4);
      const generationId = r.u64();
      return { type: type === OFPT.ROLE_REQUEST ? 'roleRequest' : 'roleReply', role, generationId, xid };
    }
    case OFPT.EXPERIMENTER: {
      const vendor = r.u32();
      const sub = r.u32();
      if (vendor === NX_VENDOR_ID) {
        if (sub === NXT.PACKET_IN2 || sub === NXT.RESUME) return { ...readPacketIn2(r, sub), xid };
        if (sub === NXT.SET_PACKET_IN_FORMAT) {
          const f = (['standard', 'nxt', 'nxt2'] as const)[r.u32()] ?? r.fail('bad packet-in format');
          return { type: 'setPacketInFormat', format: f, xid };
        }
        if (sub === NXT.SET_CONTROLLER_ID) {
          r.skip(6);
          return { type: 'setControllerId', id: r.u16(), xid };
        }
      }
      return { type: 'unknown', msgType: type, version, body: bytes.slice(8, length), xid };
    }
    default:
      return { type: 'unknown', msgType: type, version, body: bytes.slice(8, length), xid };
  }
}

/** The timeouts, importance and flags a flow-mod or a flow-stats entry carries, set on `flow` where not zero. */
function setFlowOptions(flow: Flow, idle: number, hard: number, importance: number, flags: number): void {
  if (idle) flow.idleTimeout = idle;
  if (hard) flow.hardTimeout = hard;
  if (importance) flow.importance = importance;
  const fl = FLOW_FLAGS.filter((_, i) => flags & (1 << i));
  if (fl.length) flow.flags = fl;
}

function readFlowMod(r: Reader): Extract<OfMessage, { type: 'flowMod' }> {
  const cookie = r.u64();
  const cookieMask = r.u64();
  const table = r.u8();
  const cmd = r.u8();
  const idle = r.u16();
  const hard = r.u16();
  const priority = r.u16();
  const bufferId = r.u32();
  const outPort = r.u32();
  const outGroup = r.u32();
  const flags = r.u16();
  const importance = r.u16();
  const match = readMatch(r);
  const actions = readInstructions(r);
  const command = FLOW_MOD_COMMANDS[cmd] ?? r.fail(`bad flow-mod command ${cmd}`);
  const flow: Flow = { table, priority, match, actions };
  if (cookie) flow.cookie = cookie;
  if (cookieMask) flow.cookieMask = cookieMask;
  setFlowOptions(flow, idle, hard, importance, flags);
  const msg: Extract<OfMessage, { type: 'flowMod' }> = { type: 'flowMod', command, flow };
  if (outPort !== OFPP.ANY) msg.outPort = outPort;
  if (outGroup !== 0xffffffff) msg.outGroup = outGroup;
  if (bufferId !== 0xffffffff) msg.bufferId = bufferId;
  return msg;
}

/** OXS stats (OpenFlow 1.5 `ofp_stats`). */
function readStats(r: Reader): { duration?: number; idle?: number; flows?: number; packets?: bigint; bytes?: bigint } {
  const start = r.pos;
  r.skip(2);
  const len = r.u16();
  if (len < 4) r.fail('bad ofp_stats length', start);
  const s = r.sub(len - 4, 'stats');
  r.skip(((len + 7) & ~7) - len);
  const out: { duration?: number; idle?: number; flows?: number; packets?: bigint; bytes?: bigint } = {};
  while (s.remaining >= 4) {
    const h = s.u32();
    const field = (h >>> 9) & 0x7f;
    const l = h & 0xff;
    const b = s.sub(l);
    if (h >>> 16 !== 0x8002) continue;
    if (field === 0 && l === 8) out.duration = b.u32() + b.u32() / 1e9;
    else if (field === 1 && l === 8) out.idle = b.u32() + b.u32() / 1e9;
    else if (field === 3 && l === 4) out.flows = b.u32();
    else if (field === 4 && l === 8) out.packets = b.u64();
    else if (field === 5 && l === 8) out.bytes = b.u64();
  }
  return out;
}

function readMultipartReply(r: Reader, mp: number): MultipartReply | undefined {
  switch (mp) {
    case OFPMP.DESC: {
      const s = (n: number): string => str(r.bytes(n));
      return { kind: 'desc', mfr: s(256), hw: s(256), sw: s(256), serial: s(32), dp: s(256) };
    }
    case OFPMP.FLOW_DESC: {
      const flows: Flow[] = [];
      while (r.remaining > 0) {
        const start = r.pos;
        const len = r.u16();
        if (len < 24) r.fail(`bad flow desc length ${len}`, start);
        r.pos = start;
        const e = r.sub(len, `flowDesc[${flows.length}]`);
        e.skip(4);
        const table = e.u8();
        e.skip(1);
        const priority = e.u16();
        const idle = e.u16();
        const hard = e.u16();
        const flags = e.u16();
        const importance = e.u16();
        const cookie = e.u64();
        const match = readMatch(e);
        const st = readStats(e);
        const actions = readInstructions(e);
        const flow: Flow = { table, priority, match, actions };
        if (cookie) flow.cookie = cookie;
        setFlowOptions(flow, idle, hard, importance, flags);
        flow.stats = { duration: st.duration ?? 0, packets: st.packets ?? 0n, bytes: st.bytes ?? 0n };
        if (st.idle !== undefined) flow.stats.idleAge = Math.floor(st.idle);
        flows.push(flow);
      }
      return { kind: 'flow', flows };
    }
    case OFPMP.AGGREGATE: {
      const st = readStats(r);
      return { kind: 'aggregate', packets: st.packets ?? 0n, bytes: st.bytes ?? 0n, flows: st.flows ?? 0 };
    }
    case OFPMP.TABLE_STATS: {
      const tables: TableStats[] = [];
      while (r.remaining >= 24) {
        const tableId = r.u8();
        r.skip(3);
        tables.push({ tableId, activeCount: r.u32(), lookupCount: r.u64(), matchedCount: r.u64() });
      }
      return { kind: 'tableStats', tables };
    }
    case OFPMP.PORT_STATS: {
      const ports: PortStats[] = [];
      while (r.remaining > 0) {
        const start = r.pos;
        const len = r.u16();
        if (len < 80) r.fail('bad port stats length', start);
        const e = r.sub(len - 2);
        e.skip(2);
        const portNo = e.u32();
        const durationSec = e.u32() + e.u32() / 1e9;
        ports.push({
          portNo,
          durationSec,
          rxPackets: e.u64(),
          txPackets: e.u64(),
          rxBytes: e.u64(),
          txBytes: e.u64(),
          rxDropped: e.u64(),
          txDropped: e.u64(),
          rxErrors: e.u64(),
          txErrors: e.u64(),
        });
      }
      return { kind: 'portStats', ports };
    }
    case OFPMP.PORT_DESC: {
      const ports: PortDesc[] = [];
      while (r.remaining > 0) {
        const start = r.pos;
        const portNo = r.u32();
        const len = r.u16();
        if (len < 40) r.fail('bad port desc length', start);
        const e = r.sub(len - 6);
        e.skip(2);
        const hwAddr = formatMac(e.bytes(6));
        e.skip(2);
        const name = str(e.bytes(16));
        const p: PortDesc = { portNo, hwAddr, name, config: e.u32(), state: e.u32() };
        while (e.remaining >= 4) {
          const pt = e.u16();
          const pl = e.u16();
          const pb = e.sub(Math.max(0, Math.min(pl - 4, e.remaining)));
          if (pt === 0 && pb.remaining >= 28) {
            pb.skip(4 + 16);
            p.currSpeed = pb.u32();
            p.maxSpeed = pb.u32();
          }
          e.skip(Math.min(e.remaining, ((pl + 7) & ~7) - pl));
        }
        ports.push(p);
      }
      return { kind: 'portDesc', ports };
    }
    default:
      return undefined;
  }
}

function readPacketIn2(r: Reader, sub: number): OfMessage {
  let packet: Uint8Array = new Uint8Array(0);
  const m: Extract<OfMessage, { type: 'packetIn2' }> = { type: 'packetIn2', packet };
  while (r.remaining >= 4) {
    const start = r.pos;
    const pt = r.u16();
    const pl = r.u16();
    if (pl < 4 || pl - 4 > r.remaining) r.fail('bad property length', start);
    const b = r.sub(pl - 4, `packetIn2.prop${pt}`);
    r.skip(Math.min(r.remaining, ((pl + 7) & ~7) - pl));
    switch (pt) {
      case 0:
        packet = b.bytes(b.remaining).slice();
        break;
      case 1:
        m.fullLen = b.u32();
        break;
      case 2:
        m.bufferId = b.u32();
        break;
      case 3:
        m.tableId = b.u8();
        break;
      case 4:
        if (b.remaining === 12) b.skip(4);
        m.cookie = b.u64();
        break;
      case 5:
        m.reason = REASONS[b.u8()] ?? b.fail('bad reason');
        break;
      case 6: {
        const md: Match = {};
        while (b.remaining > 0) readOptionalEntry(b, md);
        m.metadata = md;
        break;
      }
      case 7:
        m.userdata = b.bytes(b.remaining).slice();
        break;
      case 8:
        m.continuation = b.bytes(b.remaining).slice();
        break;
    }
  }
  m.packet = packet;
  if (sub === NXT.RESUME) {
    const res: OfMessage = { type: 'resume', packet, continuation: m.continuation ?? new Uint8Array(0) };
    if (m.metadata) res.metadata = m.metadata;
    return res;
  }
  return m;
}

/** Packet metadata may carry fields the model does not name (e.g. tun_flags): skip those. */
function readOptionalEntry(r: Reader, md: Match): void {
  const start = r.pos;
  try {
    readEntry(r, md);
  } catch (e) {
    if (!(e instanceof OfDecodeError)) throw e;
    // Skip the unknown entry by its header's length (experimenter id included in it).
    r.pos = start;
    const h = r.u32();
    r.skip(h & 0xff);
  }
}
