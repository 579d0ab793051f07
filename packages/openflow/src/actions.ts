/** Actions and instructions: OpenFlow 1.5 actions plus the Nicira (NXAST_*) extensions, both directions. */
import { Reader, Writer } from './buf';
import { OfEncodeError } from './errors';
import { FIELD_BY_HEADER, FIELD_BY_NAME, headerBits, NXM_IN_PORT, nxmPreferred, oxmPreferred, type FieldInfo } from './fields';
import type {
  Action,
  ControllerAction,
  CtAction,
  FieldRef,
  LearnAction,
  LearnSpec,
  NatSpec,
  OutputAction,
  PacketInReason,
  ReservedPort,
  SetFieldAction,
  ValueFieldName,
} from './flow';
import { OFPP } from './flow';
import { readEntry, writeEntry } from './match';
import { bigToBytes, bytesToBig, bytesToValue, parseIpv4, parseIpv6, formatIpv4, formatIpv6, valueToBytes } from './values';

/** OpenFlow 1.5 action types. */
export const OFPAT = {
  OUTPUT: 0,
  PUSH_VLAN: 17,
  POP_VLAN: 18,
  GROUP: 22,
  DEC_NW_TTL: 24,
  SET_FIELD: 25,
  COPY_FIELD: 28,
  METER: 29,
  EXPERIMENTER: 0xffff,
} as const;

/** OpenFlow 1.5 instruction types. */
export const OFPIT = { GOTO_TABLE: 1, WRITE_METADATA: 2, WRITE_ACTIONS: 3, APPLY_ACTIONS: 4, CLEAR_ACTIONS: 5, METER: 6 } as const;

export const NX_VENDOR_ID = 0x00002320;

/** Nicira action subtypes (nicira-ext.h / ofp-actions.c). */
export const NXAST = {
  RESUBMIT: 1,
  REG_MOVE: 6,
  REG_LOAD: 7,
  NOTE: 8,
  RESUBMIT_TABLE: 14,
  OUTPUT_REG: 15,
  LEARN: 16,
  CONTROLLER: 20,
  OUTPUT_REG2: 32,
  REG_LOAD2: 33,
  CONJUNCTION: 34,
  CT: 35,
  NAT: 36,
  CONTROLLER2: 37,
  CT_CLEAR: 43,
  RESUBMIT_TABLE_CT: 44,
} as const;

const RESERVED_PORTS: Record<ReservedPort, number> = {
  IN_PORT: OFPP.IN_PORT,
  TABLE: OFPP.TABLE,
  NORMAL: OFPP.NORMAL,
  FLOOD: OFPP.FLOOD,
  ALL: OFPP.ALL,
  CONTROLLER: OFPP.CONTROLLER,
  LOCAL: OFPP.LOCAL,
};
const PORT_NAMES = new Map<number, ReservedPort>(Object.entries(RESERVED_PORTS).map(([k, v]) => [v, k as ReservedPort]));

/** Port number of a port or reserved-port name. */
export function portNumber(p: number | ReservedPort): number {
  return typeof p === 'number' ? p : RESERVED_PORTS[p];
}
/** Reserved-port name of a number, or the number. */
export function portFromNumber(n: number): number | ReservedPort {
  return PORT_NAMES.get(n) ?? n;
}

export const REASONS: PacketInReason[] = ['no_match', 'action', 'invalid_ttl', 'action_set', 'group', 'packet_out'];

/** Field facts of a field name, or an encode error naming the path. */
export function fieldInfo(name: string, path: string): FieldInfo {
  const f = FIELD_BY_NAME.get(name as ValueFieldName);
  if (!f) throw new OfEncodeError(`unknown field ${name}`, path, name);
  return f;
}

/** Resolve a field ref's inclusive range against a header width. */
export function refRange(ref: FieldRef, width: number, path: string): { ofs: number; nBits: number } {
  const start = ref.start ?? 0;
  const end = ref.end ?? width - 1;
  if (!Number.isInteger(start) || !Number.isInteger(end) || start < 0 || end < start || end >= width) {
    throw new OfEncodeError(`bad bit range [${start}..${end}] of a ${width}-bit field`, path, ref);
  }
  return { ofs: start, nBits: end - start + 1 };
}

/** The model ref for a decoded (header, ofs, nBits): start/end omitted for the whole field. */
function makeRef(r: Reader, header: number, ofs: number, nBits: number): FieldRef {
  const f = FIELD_BY_HEADER.get((header & 0xfffffe00) >>> 0) ?? (header >>> 9 === NXM_IN_PORT >>> 9 ? FIELD_BY_NAME.get('inPort') : undefined);
  if (!f) r.fail(`unknown field header 0x${header.toString(16)}`);
  const width = headerBits(f, (header & 0xfffffe00) >>> 0);
  if (ofs + nBits > width) r.fail(`bit range ${ofs}+${nBits} beyond ${f.name}`);
  if (ofs === 0 && nBits === width) return { field: f.name as ValueFieldName };
  return { field: f.name as ValueFieldName, start: ofs, end: ofs + nBits - 1 };
}

function nxHeader(w: Writer, subtype: number): number {
  const start = w.length;
  w.u16(OFPAT.EXPERIMENTER).u16(0).u32(NX_VENDOR_ID).u16(subtype);
  return start;
}
function finishAction(w: Writer, start: number): void {
  w.pad(8, start);
  w.setU16(start + 2, w.length - start);
}

// ---------------------------------------------------------------- encode

/** Encode an action list (no instructions) into `w`. */
export function writeActions(w: Writer, actions: readonly Action[], path: string): void {
  for (let i = 0; i < actions.length; i++) writeAction(w, actions[i]!, itemPath(path, i));
}

/** Error paths of a flow's first actions, made once: a string per action per flow-mod adds up. */
const FLOW_ACTION_PATHS = Array.from({ length: 16 }, (_v, i) => `flow.actions[${i}]`);
const itemPath = (path: string, i: number): string => (path === 'flow.actions' && i < FLOW_ACTION_PATHS.length ? FLOW_ACTION_PATHS[i]! : `${path}[${i}]`);

function writeNxRef(w: Writer, ref: FieldRef, path: string): { header: number; ofs: number; nBits: number } {
  const f = fieldInfo(ref.field, `${path}.field`);
  const header = nxmPreferred(f);
  const { ofs, nBits } = refRange(ref, headerBits(f, header), path);
  return { header: (header | (f.name === 'inPort' ? 2 : f.bytes)) >>> 0, ofs, nBits };
}

function writeOutput(w: Writer, a: OutputAction, path: string): void {
  if (typeof a.port === 'object') {
    const { header, ofs, nBits } = writeNxRef(w, a.port, `${path}.port`);
    const start = nxHeader(w, NXAST.OUTPUT_REG);
    w.u16((ofs << 6) | (nBits - 1)).u32(header).u16(a.maxLen ?? 0xffff).zeros(6);
    finishAction(w, start);
    return;
  }
  const port = portNumber(a.port);
  if (!Number.isInteger(port) || port < 0 || port > 0xffffffff) throw new OfEncodeError('bad port', `${path}.port`, a.port);
  w.u16(OFPAT.OUTPUT).u16(16).u32(port).u16(a.maxLen ?? (port === OFPP.CONTROLLER ? 0xffff : 0)).zeros(6);
}

/** A field's facts with `maskable` set, made once per field (not one object per set_field). */
const SETTABLE = new Map<FieldInfo, FieldInfo>();
function settable(f: FieldInfo): FieldInfo {
  let s = SETTABLE.get(f);
  if (!s) SETTABLE.set(f, (s = { ...f, maskable: true }));
  return s;
}

function writeSetField(w: Writer, a: SetFieldAction, path: string): void {
  const f = fieldInfo(a.field, `${path}.field`);
  const start = w.length;
  w.u16(OFPAT.SET_FIELD).u16(0);
  // OVS lets any field be partially written in OF1.5 (masked OXM), even if not maskable in a match.
  writeEntry(w, settable(f), oxmPreferred(f), a.value, `${path}.value`);
  finishAction(w, start);
}

function writeCopyField(w: Writer, src: FieldRef, dst: FieldRef, path: string): void {
  const sf = fieldInfo(src.field, `${path}.src.field`);
  const df = fieldInfo(dst.field, `${path}.dst.field`);
  const sh = oxmPreferred(sf);
  const dh = oxmPreferred(df);
  const s = refRange(src, headerBits(sf, sh), `${path}.src`);
  const d = refRange(dst, headerBits(df, dh), `${path}.dst`);
  if (s.nBits !== d.nBits) throw new OfEncodeError(`source has ${s.nBits} bits, destination ${d.nBits}`, path, { src, dst });
  const start = w.length;
  w.u16(OFPAT.COPY_FIELD).u16(0).u16(d.nBits).u16(s.ofs).u16(d.ofs).u16(0);
  w.u32((sh | sf.bytes) >>> 0).u32((dh | df.bytes) >>> 0);
  finishAction(w, start);
}

function writeImmediate(w: Writer, f: FieldInfo, value: number | bigint | string, ofs: number, nBits: number, path: string): void {
  // Learn immediates: the field value shifted down by ofs, in ceil(nBits/16)*2 bytes.
  const full = bytesToBig(valueToBytes(f, value, path));
  const v = (full >> BigInt(ofs)) & ((1n << BigInt(nBits)) - 1n);
  w.bytes(bigToBytes(v, Math.ceil(nBits / 16) * 2));
}

function writeLearn(w: Writer, a: LearnAction, path: string): void {
  const start = nxHeader(w, NXAST.LEARN);
  let flags = 0;
  if (a.deleteLearned) flags |= 2;
  w.u16(a.idleTimeout ?? 0).u16(a.hardTimeout ?? 0).u16(a.priority ?? 0x8000).u64(a.cookie ?? 0n);
  w.u16(flags).u8(a.table).u8(0).u16(a.finIdleTimeout ?? 0).u16(a.finHardTimeout ?? 0);
  a.specs.forEach((spec, i) => writeLearnSpec(w, spec, `${path}.specs[${i}]`));
  w.u16(0); // end of specs
  finishAction(w, start);
}

function writeLearnSpec(w: Writer, spec: LearnSpec, path: string): void {
  if (spec.kind === 'output') {
    const s = writeNxRef(w, spec.src, `${path}.src`);
    w.u16((2 << 11) | s.nBits).u32(s.header).u16(s.ofs);
    return;
  }
  const d = writeNxRef(w, spec.dst, `${path}.dst`);
  const dstType = spec.kind === 'match' ? 0 : 1 << 11;
  if ('field' in spec.src) {
    const s = writeNxRef(w, spec.src, `${path}.src`);
    if (s.nBits !== d.nBits) throw new OfEncodeError('source and destination widths differ', path, spec);
    w.u16(dstType | d.nBits).u32(s.header).u16(s.ofs);
  } else {
    w.u16((1 << 13) | dstType | d.nBits);
    writeImmediate(w, fieldInfo(spec.dst.field, `${path}.dst.field`), spec.src.value, d.ofs, d.nBits, `${path}.src.value`);
  }
  w.u32(d.header).u16(d.ofs);
}

function writeController(w: Writer, a: ControllerAction, path: string): void {
  const reason = REASONS.indexOf(a.reason ?? 'action');
  if (reason < 0) throw new OfEncodeError('unknown reason', `${path}.reason`, a.reason);
  const maxLen = a.maxLen ?? 0xffff;
  const id = a.id ?? 0;
  if (a.userdata === undefined && !a.pause && a.meterId === undefined) {
    const start = nxHeader(w, NXAST.CONTROLLER);
    w.u16(maxLen).u16(id).u8(reason).u8(0);
    finishAction(w, start);
    return;
  }
  const start = nxHeader(w, NXAST.CONTROLLER2);
  w.zeros(6);
  const prop = (type: number, body: (x: Writer) => void): void => {
    const p = w.length;
    w.u16(type).u16(0);
    body(w);
    w.setU16(p + 2, w.length - p);
    w.pad(8, p);
  };
  if (maxLen !== 0xffff) prop(0, (x) => x.u16(maxLen).u16(0));
  if (id !== 0) prop(1, (x) => x.u16(id).u16(0));
  if (reason !== 1) prop(2, (x) => x.u8(reason));
  if (a.userdata !== undefined && a.userdata.length > 0) prop(3, (x) => x.bytes(a.userdata!));
  if (a.pause) prop(4, () => undefined);
  if (a.meterId !== undefined) prop(5, (x) => x.u32(a.meterId!));
  finishAction(w, start);
}

function writeNat(w: Writer, nat: NatSpec, path: string): void {
  const start = nxHeader(w, NXAST.NAT);
  let flags = 0;
  if (nat.kind === 'src') flags |= 1;
  if (nat.kind === 'dst') flags |= 2;
  if (nat.persistent) flags |= 4;
  if (nat.hash) flags |= 8;
  if (nat.random) flags |= 16;
  let present = 0;
  const body = new Writer(64);
  if (nat.ipMin !== undefined) {
    const v4 = parseIpv4(nat.ipMin);
    const v6 = v4 ? undefined : parseIpv6(nat.ipMin);
    if (!v4 && !v6) throw new OfEncodeError('bad NAT address', `${path}.ipMin`, nat.ipMin);
    const max = nat.ipMax === undefined ? undefined : v4 ? parseIpv4(nat.ipMax) : parseIpv6(nat.ipMax);
    if (nat.ipMax !== undefined && !max) throw new OfEncodeError('bad NAT address', `${path}.ipMax`, nat.ipMax);
    if (v4) {
      present |= 1;
      body.bytes(v4);
      if (max) {
        present |= 2;
        body.bytes(max);
      }
    } else {
      present |= 4;
      body.bytes(v6!);
      if (max) {
        present |= 8;
        body.bytes(max);
      }
    }
  } else if (nat.ipMax !== undefined) throw new OfEncodeError('ipMax without ipMin', `${path}.ipMax`, nat.ipMax);
  if (nat.portMin !== undefined) {
    present |= 16;
    body.u16(nat.portMin);
    if (nat.portMax !== undefined) {
      present |= 32;
      body.u16(nat.portMax);
    }
  }
  w.zeros(2).u16(flags).u16(present).bytes(body.finish());
  finishAction(w, start);
}

function writeCt(w: Writer, a: CtAction, path: string): void {
  const start = nxHeader(w, NXAST.CT);
  let flags = 0;
  if (a.commit) flags |= 1;
  if (a.force) flags |= 2;
  w.u16(flags);
  if (typeof a.zone === 'object') {
    const z = writeNxRef(w, a.zone, `${path}.zone`);
    w.u32(z.header).u16((z.ofs << 6) | (z.nBits - 1));
  } else {
    w.u32(0).u16(a.zone ?? 0);
  }
  const alg = a.alg === 'ftp' ? 21 : a.alg === 'tftp' ? 69 : (a.alg ?? 0);
  w.u8(a.table ?? 0xff).zeros(3).u16(alg);
  if (a.nat) writeNat(w, a.nat, `${path}.nat`);
  if (a.exec) writeActions(w, a.exec, `${path}.exec`);
  finishAction(w, start);
}

/** Encode one action (instructions are handled by {@link writeInstructions}). */
export function writeAction(w: Writer, a: Action, path: string): void {
  switch (a.type) {
    case 'output':
      return writeOutput(w, a, path);
    case 'setField':
      return writeSetField(w, a, path);
    case 'copyField':
      return writeCopyField(w, a.src, a.dst, path);
    case 'resubmit': {
      const port = a.port === undefined ? OFPP.IN_PORT : portNumber(a.port);
      const port16 = port >= 0xffffff00 ? port - 0xffff0000 : port;
      if (port16 > 0xffff) throw new OfEncodeError('resubmit port must fit 16 bits', `${path}.port`, a.port);
      if (a.table === undefined && !a.ct) {
        const start = nxHeader(w, NXAST.RESUBMIT);
        w.u16(port16).zeros(4);
        return finishAction(w, start);
      }
      const start = nxHeader(w, a.ct ? NXAST.RESUBMIT_TABLE_CT : NXAST.RESUBMIT_TABLE);
      w.u16(port16).u8(a.table ?? 0xff).zeros(3);
      return finishAction(w, start);
    }
    case 'conjunction': {
      if (a.nClauses < 2 || a.nClauses > 64 || a.clause < 1 || a.clause > a.nClauses) {
        throw new OfEncodeError('clause must be 1..nClauses, nClauses 2..64', path, a);
      }
      const start = nxHeader(w, NXAST.CONJUNCTION);
      w.u8(a.clause - 1).u8(a.nClauses).u32(a.id);
      return finishAction(w, start);
    }
    case 'ct':
      return writeCt(w, a, path);
    case 'ctClear': {
      const start = nxHeader(w, NXAST.CT_CLEAR);
      return finishAction(w, start);
    }
    case 'learn':
      return writeLearn(w, a, path);
    case 'controller':
      return writeController(w, a, path);
    case 'note': {
      const start = nxHeader(w, NXAST.NOTE);
      w.bytes(a.data);
      // The note is at least 6 bytes (the struct's own pad) and zero-filled to 8.
      if (w.length - start < 16) w.zeros(16 - (w.length - start));
      return finishAction(w, start);
    }
    case 'decTtl':
      w.u16(OFPAT.DEC_NW_TTL).u16(8).zeros(4);
      return;
    case 'group':
      w.u16(OFPAT.GROUP).u16(8).u32(a.id);
      return;
    case 'meter':
      w.u16(OFPAT.METER).u16(8).u32(a.id);
      return;
    case 'pushVlan':
      w.u16(OFPAT.PUSH_VLAN).u16(8).u16(a.ethType ?? 0x8100).zeros(2);
      return;
    case 'popVlan':
      w.u16(OFPAT.POP_VLAN).u16(8).zeros(4);
      return;
    case 'gotoTable':
    case 'writeActions':
    case 'clearActions':
      throw new OfEncodeError(`${a.type} is an instruction, not valid inside an action list`, path, a);
  }
}

/** Encode a flow's action list as OpenFlow 1.5 instructions (apply, clear, write, goto). */
export function writeInstructions(w: Writer, actions: readonly Action[], path = 'actions'): void {
  // The apply actions are the prefix before the first instruction-like entry: written from the
  // list itself, with no array or closure per flow.
  let nApply = 0;
  let clear = false;
  let write: Action[] | undefined;
  let gotoTable: number | undefined;
  for (let i = 0; i < actions.length; i++) {
    const a = actions[i]!;
    if (a.type === 'gotoTable') gotoTable = a.table;
    else if (a.type === 'clearActions') clear = true;
    else if (a.type === 'writeActions') write = a.actions;
    else if (gotoTable !== undefined || write !== undefined || clear) {
      throw new OfEncodeError('apply actions must come before clearActions/writeActions/gotoTable', `${path}[${i}]`, a);
    } else nApply++;
  }
  if (nApply > 0) {
    const s = w.length;
    w.u16(OFPIT.APPLY_ACTIONS).u16(0).zeros(4);
    for (let i = 0; i < nApply; i++) writeAction(w, actions[i]!, itemPath(path, i));
    w.setU16(s + 2, w.length - s);
  }
  if (clear) w.u16(OFPIT.CLEAR_ACTIONS).u16(8).zeros(4);
  if (write !== undefined) {
    const s = w.length;
    w.u16(OFPIT.WRITE_ACTIONS).u16(0).zeros(4);
    writeActions(w, write, `${path}.writeActions`);
    w.setU16(s + 2, w.length - s);
  }
  if (gotoTable !== undefined) w.u16(OFPIT.GOTO_TABLE).u16(8).u8(gotoTable).zeros(3);
}

/** Encode just an action list to bytes (useful for golden tests and packet-out). */
export function encodeActions(actions: readonly Action[]): Uint8Array {
  const w = new Writer(64);
  writeActions(w, actions, 'actions');
  return w.finish();
}

// ---------------------------------------------------------------- decode

/** Decode an action list occupying all of `r`. */
export function readActions(r: Reader): Action[] {
  const out: Action[] = [];
  while (r.remaining > 0) {
    const start = r.pos;
    const type = r.u16();
    const len = r.u16();
    if (len < 8 || len % 8 !== 0) r.fail(`bad action length ${len}`, start);
    r.pos = start;
    const a = r.sub(len, `${r.path}[${out.length}]`);
    a.skip(4);
    const act = readAction(a, type);
    if (act) out.push(act);
  }
  return out;
}

function readAction(r: Reader, type: number): Action | undefined {
  switch (type) {
    case OFPAT.OUTPUT: {
      const port = r.u32();
      const maxLen = r.u16();
      const p = portFromNumber(port);
      return p === 'CONTROLLER' ? { type: 'output', port: p, maxLen } : { type: 'output', port: p };
    }
    case OFPAT.GROUP:
      return { type: 'group', id: r.u32() };
    case OFPAT.METER:
      return { type: 'meter', id: r.u32() };
    case OFPAT.DEC_NW_TTL:
      return { type: 'decTtl' };
    case OFPAT.PUSH_VLAN: {
      const ethType = r.u16();
      return { type: 'pushVlan', ethType };
    }
    case OFPAT.POP_VLAN:
      return { type: 'popVlan' };
    case OFPAT.SET_FIELD:
      return readSetFieldEntry(r);
    case OFPAT.COPY_FIELD: {
      const nBits = r.u16();
      const srcOfs = r.u16();
      const dstOfs = r.u16();
      r.skip(2);
      const sh = r.u32();
      const dh = r.u32();
      return { type: 'copyField', src: makeRef(r, sh, srcOfs, nBits), dst: makeRef(r, dh, dstOfs, nBits) };
    }
    case OFPAT.EXPERIMENTER: {
      const vendor = r.u32();
      if (vendor !== NX_VENDOR_ID) r.fail(`unknown experimenter 0x${vendor.toString(16)}`);
      return readNx(r, r.u16());
    }
    default:
      return r.fail(`unsupported action type ${type}`);
  }
}

/** set_field (or reg_load2) body: one OXM entry, masked or not. */
function readSetFieldEntry(r: Reader): Action {
  const tmp: Record<string, unknown> = {};
  const headerAt = r.pos;
  readEntry(r, tmp);
  const keys = Object.keys(tmp);
  if (keys.length !== 1) r.fail('set_field without a field', headerAt);
  const field = keys[0] as ValueFieldName;
  if (field === ('ctState' as string)) r.fail('ct_state cannot be set', headerAt);
  // A masked set_field whose mask is "full" was canonicalised to a plain value by readEntry.
  return { type: 'setField', field, value: tmp[field] } as SetFieldAction;
}

function loadToSetField(r: Reader, header: number, ofs: number, nBits: number, value: bigint): Action {
  const f = FIELD_BY_HEADER.get((header & 0xfffffe00) >>> 0);
  if (!f || f.kind === 'ctState') return r.fail(`reg_load to unsupported field 0x${header.toString(16)}`);
  if (ofs + nBits > f.bytes * 8) r.fail('reg_load beyond field');
  const mask = ((1n << BigInt(nBits)) - 1n) << BigInt(ofs);
  const v = (value << BigInt(ofs)) & mask;
  const full = mask === (1n << BigInt(f.bits)) - 1n;
  const val = bytesToValue(f, bigToBytes(v, f.bytes));
  if (full) return { type: 'setField', field: f.name, value: val } as SetFieldAction;
  return { type: 'setField', field: f.name, value: { value: val, mask: bytesToValue(f, bigToBytes(mask, f.bytes)) } } as SetFieldAction;
}

function readNx(r: Reader, subtype: number): Action | undefined {
  switch (subtype) {
    case NXAST.RESUBMIT: {
      const port = r.u16();
      return { type: 'resubmit', port: port16ToModel(port) };
    }
    case NXAST.RESUBMIT_TABLE:
    case NXAST.RESUBMIT_TABLE_CT: {
      const port = r.u16();
      const table = r.u8();
      const a: Action = { type: 'resubmit' };
      if (port !== 0xfff8) a.port = port16ToModel(port);
      if (table !== 0xff) a.table = table;
      if (subtype === NXAST.RESUBMIT_TABLE_CT) a.ct = true;
      return a;
    }
    case NXAST.REG_MOVE: {
      const nBits = r.u16();
      const srcOfs = r.u16();
      const dstOfs = r.u16();
      const sh = r.u32();
      const dh = r.u32();
      return { type: 'copyField', src: makeRef(r, sh, srcOfs, nBits), dst: makeRef(r, dh, dstOfs, nBits) };
    }
    case NXAST.REG_LOAD: {
      const ofsNbits = r.u16();
      const dst = r.u32();
      const value = r.u64();
      return loadToSetField(r, dst, ofsNbits >> 6, (ofsNbits & 0x3f) + 1, value);
    }
    case NXAST.REG_LOAD2:
      r.skip(6);
      return readSetFieldEntry(r);
    case NXAST.NOTE:
      return { type: 'note', data: r.bytes(r.remaining).slice() };
    case NXAST.OUTPUT_REG:
    case NXAST.OUTPUT_REG2: {
      const ofsNbits = r.u16();
      let header: number;
      let maxLen: number;
      if (subtype === NXAST.OUTPUT_REG) {
        header = r.u32();
        maxLen = r.u16();
      } else {
        maxLen = r.u16();
        header = r.u32();
      }
      const a: OutputAction = { type: 'output', port: makeRef(r, header, ofsNbits >> 6, (ofsNbits & 0x3f) + 1) };
      if (maxLen !== 0xffff) a.maxLen = maxLen;
      return a;
    }
    case NXAST.CONJUNCTION: {
      const clause = r.u8();
      const nClauses = r.u8();
      const id = r.u32();
      return { type: 'conjunction', id, clause: clause + 1, nClauses };
    }
    case NXAST.CT_CLEAR:
      return { type: 'ctClear' };
    case NXAST.CT:
      return readCt(r);
    case NXAST.NAT:
      return r.fail('nat outside ct');
    case NXAST.CONTROLLER: {
      const maxLen = r.u16();
      const id = r.u16();
      const reason = r.u8();
      return controllerModel(r, maxLen, id, reason, undefined, false, undefined);
    }
    case NXAST.CONTROLLER2: {
      r.skip(6);
      let maxLen = 0xffff;
      let id = 0;
      let reason = 1;
      let userdata: Uint8Array | undefined;
      let pause = false;
      let meterId: number | undefined;
      while (r.remaining >= 4) {
        const pStart = r.pos;
        const ptype = r.u16();
        const plen = r.u16();
        if (plen < 4) r.fail('bad property length', pStart);
        const body = r.sub(plen - 4);
        r.skip(Math.min(r.remaining, ((plen + 7) & ~7) - plen));
        if (ptype === 0) maxLen = body.u16();
        else if (ptype === 1) id = body.u16();
        else if (ptype === 2) reason = body.u8();
        else if (ptype === 3) userdata = body.bytes(body.remaining).slice();
        else if (ptype === 4) pause = true;
        else if (ptype === 5) meterId = body.u32();
      }
      return controllerModel(r, maxLen, id, reason, userdata, pause, meterId);
    }
    case NXAST.LEARN:
      return readLearn(r);
    default:
      return r.fail(`unsupported Nicira action subtype ${subtype}`);
  }
}

function port16ToModel(port: number): number | 'IN_PORT' {
  if (port === 0xfff8) return 'IN_PORT';
  return port >= 0xff00 ? 0xffff0000 + port : port;
}

function controllerModel(
  r: Reader,
  maxLen: number,
  id: number,
  reason: number,
  userdata: Uint8Array | undefined,
  pause: boolean,
  meterId: number | undefined,
): ControllerAction {
  const a: ControllerAction = { type: 'controller' };
  const reasonName = REASONS[reason];
  if (reasonName === undefined) r.fail(`unknown packet-in reason ${reason}`);
  if (reasonName !== 'action') a.reason = reasonName;
  if (id !== 0) a.id = id;
  if (maxLen !== 0xffff) a.maxLen = maxLen;
  if (userdata !== undefined) a.userdata = userdata;
  if (pause) a.pause = true;
  if (meterId !== undefined) a.meterId = meterId;
  return a;
}

function readCt(r: Reader): CtAction {
  const flags = r.u16();
  const zoneSrc = r.u32();
  const zoneVal = r.u16();
  const table = r.u8();
  r.skip(3);
  const alg = r.u16();
  const a: CtAction = { type: 'ct' };
  if (flags & 1) a.commit = true;
  if (flags & 2) a.force = true;
  if (zoneSrc !== 0) a.zone = makeRef(r, zoneSrc, zoneVal >> 6, (zoneVal & 0x3f) + 1);
  else if (zoneVal !== 0) a.zone = zoneVal;
  if (table !== 0xff) a.table = table;
  if (alg === 21) a.alg = 'ftp';
  else if (alg === 69) a.alg = 'tftp';
  else if (alg !== 0) a.alg = alg;
  const exec: Action[] = [];
  while (r.remaining > 0) {
    const start = r.pos;
    const type = r.u16();
    const len = r.u16();
    if (len < 8 || len % 8 !== 0) r.fail(`bad action length ${len}`, start);
    r.pos = start;
    const sub = r.sub(len, `${r.path}.exec`);
    sub.skip(4);
    if (type === OFPAT.EXPERIMENTER) {
      const vendor = sub.u32();
      const st = sub.u16();
      if (vendor === NX_VENDOR_ID && st === NXAST.NAT) {
        a.nat = readNat(sub);
        continue;
      }
      sub.pos = start + 4;
    }
    const act = readAction(sub, type);
    if (act) exec.push(act);
  }
  if (exec.length > 0) a.exec = exec;
  return a;
}

function readNat(r: Reader): NatSpec {
  r.skip(2);
  const flags = r.u16();
  const present = r.u16();
  const nat: NatSpec = {};
  if (flags & 1) nat.kind = 'src';
  if (flags & 2) nat.kind = 'dst';
  if (flags & 4) nat.persistent = true;
  if (flags & 8) nat.hash = true;
  if (flags & 16) nat.random = true;
  if (present & 1) nat.ipMin = formatIpv4(r.bytes(4));
  if (present & 2) nat.ipMax = formatIpv4(r.bytes(4));
  if (present & 4) nat.ipMin = formatIpv6(r.bytes(16));
  if (present & 8) nat.ipMax = formatIpv6(r.bytes(16));
  if (present & 16) nat.portMin = r.u16();
  if (present & 32) nat.portMax = r.u16();
  return nat;
}

function readLearn(r: Reader): LearnAction {
  const idle = r.u16();
  const hard = r.u16();
  const priority = r.u16();
  const cookie = r.u64();
  const flags = r.u16();
  const table = r.u8();
  r.skip(1);
  const finIdle = r.u16();
  const finHard = r.u16();
  const a: LearnAction = { type: 'learn', table, specs: [] };
  if (idle) a.idleTimeout = idle;
  if (hard) a.hardTimeout = hard;
  if (priority !== 0x8000) a.priority = priority;
  if (cookie) a.cookie = cookie;
  if (flags & 2) a.deleteLearned = true;
  if (finIdle) a.finIdleTimeout = finIdle;
  if (finHard) a.finHardTimeout = finHard;
  while (r.remaining >= 2) {
    const h = r.u16();
    if (h === 0) break;
    const nBits = h & 0x7ff;
    const srcImm = (h >> 13) & 1;
    const dstType = (h >> 11) & 3;
    let src: FieldRef | { value: number | bigint | string } | undefined;
    let immBytes: Uint8Array | undefined;
    if (srcImm) immBytes = r.bytes(Math.ceil(nBits / 16) * 2);
    else {
      const sh = r.u32();
      src = makeRef(r, sh, r.u16(), nBits);
    }
    if (dstType === 2) {
      if (!src || !('field' in src)) r.fail('learn output needs a field source');
      a.specs.push({ kind: 'output', src });
      continue;
    }
    const dh = r.u32();
    const dst = makeRef(r, dh, r.u16(), nBits);
    if (immBytes) {
      const f = FIELD_BY_NAME.get(dst.field)!;
      const shifted = bytesToBig(immBytes) << BigInt(dst.start ?? 0);
      src = { value: bytesToValue(f, bigToBytes(shifted, f.bytes)) };
    }
    a.specs.push(dstType === 0 ? { kind: 'match', dst, src: src! } : { kind: 'load', dst, src: src! });
  }
  return a;
}

/** Decode OpenFlow 1.5 instructions into the flat action list of the Flow model. */
export function readInstructions(r: Reader): Action[] {
  const apply: Action[] = [];
  const tail: Action[] = [];
  let gotoTable: Action | undefined;
  while (r.remaining > 0) {
    const start = r.pos;
    const type = r.u16();
    const len = r.u16();
    if (len < 8 || len % 8 !== 0) r.fail(`bad instruction length ${len}`, start);
    const body = r.sub(len - 4, `${r.path}.instruction`);
    switch (type) {
      case OFPIT.APPLY_ACTIONS:
        body.skip(4);
        apply.push(...readActions(body));
        break;
      case OFPIT.WRITE_ACTIONS:
        body.skip(4);
        tail.push({ type: 'writeActions', actions: readActions(body) });
        break;
      case OFPIT.CLEAR_ACTIONS:
        tail.unshift({ type: 'clearActions' });
        break;
      case OFPIT.GOTO_TABLE:
        gotoTable = { type: 'gotoTable', table: body.u8() };
        break;
      case OFPIT.METER:
        apply.unshift({ type: 'meter', id: body.u32() });
        break;
      default:
        r.fail(`unsupported instruction type ${type}`, start);
    }
  }
  return gotoTable ? [...apply, ...tail, gotoTable] : [...apply, ...tail];
}

/** Decode a bare action list from bytes. */
export function decodeActions(bytes: Uint8Array): Action[] {
  return readActions(new Reader(bytes, 'actions'));
}
