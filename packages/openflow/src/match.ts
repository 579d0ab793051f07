/** OXM/NXM match encoding (OpenFlow 1.5 `ofp_match` of type OXM, and bare NXM/OXM entries). */
import type { Reader, Writer } from './buf';
import { OfEncodeError } from './errors';
import {
  CT_STATE_BITS,
  ctStateFromBits,
  ctStateToBits,
  FIELD_BY_HEADER,
  FIELDS,
  headerWord,
  NXM_IN_PORT,
  NXM_IP_TOS,
  NXM_VLAN_TCI,
  oxmPreferred,
  type FieldInfo,
} from './fields';
import type { CtState, Match, Masked } from './flow';
import { bytesToValue, ipv4ToUint32, isAllOnes, isBigOfWidth, isMasked, valueToBytes } from './values';

const OFPMT_OXM = 1;

/** Write one OXM/NXM entry (header, value, optional mask) using header `base`. */
export function writeEntry(w: Writer, f: FieldInfo, base: number, v: Masked<unknown>, path: string): void {
  if (f.kind === 'ctState') {
    const { value, mask } = ctStateToBits(v as CtState);
    if (mask === 0) return;
    w.u32(headerWord(base, 4, true)).u32(value).u32(mask);
    return;
  }
  if (f.kind === 'big') {
    // 64- and 128-bit fields written in place (ct_label: one per policy rule flow).
    if (!isMasked(v)) {
      if (isBigOfWidth(v, f.bytes)) {
        w.u32(headerWord(base, f.bytes, false)).big(v, f.bytes);
        return;
      }
    } else if (f.maskable && isBigOfWidth(v.value, f.bytes) && isBigOfWidth(v.mask, f.bytes)) {
      w.u32(headerWord(base, f.bytes, true)).big(v.value & v.mask, f.bytes).big(v.mask, f.bytes);
      return;
    }
    // Anything else takes the general path below, which reports the error.
  }
  if (isMasked(v)) {
    if (!f.maskable) throw new OfEncodeError('field cannot be masked', path, v);
    const value = valueToBytes(f, v.value, `${path}.value`);
    const mask = valueToBytes(f, v.mask, `${path}.mask`);
    for (let i = 0; i < value.length; i++) value[i]! &= mask[i]!;
    w.u32(headerWord(base, f.bytes, true)).bytes(value).bytes(mask);
  } else if (f.kind === 'uint' && typeof v === 'number' && Number.isInteger(v) && v >= 0 && v < 2 ** (f.bytes * 8)) {
    // Fast path for the common small integer fields.
    w.u32(headerWord(base, f.bytes, false));
    if (f.bytes === 1) w.u8(v);
    else if (f.bytes === 2) w.u16(v);
    else w.u32(v);
  } else if (f.kind === 'ipv4' && typeof v === 'string' && writeIpv4(w, headerWord(base, 4, false), v)) {
    // Written in place: no bytes allocated per address.
  } else {
    w.u32(headerWord(base, f.bytes, false)).bytes(valueToBytes(f, v, `${path}.${f.name}`));
  }
}

/** A dotted-quad IPv4 address written as an OXM entry with `header`; false (nothing written) if `s` is not one. */
function writeIpv4(w: Writer, header: number, s: string): boolean {
  const addr = ipv4ToUint32(s);
  if (addr < 0) return false;
  w.u32(header).u32(addr);
  return true;
}

/** Of each field: its position in the field table (entries are written in this order), its info and OXM/NXM header. */
interface FieldSlot {
  readonly order: number;
  readonly f: FieldInfo;
  readonly base: number;
}
const FIELD_SLOTS: ReadonlyMap<string, FieldSlot> = new Map(FIELDS.map((f, i) => [f.name, { order: i, f, base: oxmPreferred(f) }]));

/** Append the OXM entries of a match (no ofp_match framing), in field-table order. */
export function writeOxmFields(w: Writer, match: Match, path = 'match'): void {
  const m = match as Record<string, unknown>;
  // Matches have a handful of fields: the keys are insertion-sorted by table position into two
  // scratch arrays, with no array, comparator closure or Map lookup per comparison per flow (a CPU
  // profile of the bench's 100k-flow install named Object.keys + sort among the encoder's largest
  // items). writeEntry never comes back here, so the scratch arrays are not shared by two calls.
  const keys = scratchKeys;
  const slots = scratchSlots;
  let n = 0;
  for (const k in m) {
    // One map lookup per key: the field's position, info and header (an unknown key sorts first and throws below).
    const s = FIELD_SLOTS.get(k);
    const o = s === undefined ? 0 : s.order;
    let j = n - 1;
    for (; j >= 0 && (slots[j] === undefined ? 0 : slots[j]!.order) > o; j--) {
      keys[j + 1] = keys[j]!;
      slots[j + 1] = slots[j];
    }
    keys[j + 1] = k;
    slots[j + 1] = s;
    n++;
  }
  for (let i = 0; i < n; i++) {
    const k = keys[i]!;
    const s = slots[i];
    if (!s) throw new OfEncodeError('unknown match field', `${path}.${k}`, k);
    const v = m[k];
    if (v === undefined) continue;
    writeEntry(w, s.f, s.base, v as Masked<unknown>, path);
  }
}
const scratchKeys: string[] = [];
const scratchSlots: (FieldSlot | undefined)[] = [];

/** Write an OpenFlow 1.5 `ofp_match` (type OXM), padded to 8 bytes. */
export function writeMatch(w: Writer, match: Match, path = 'match'): void {
  const start = w.length;
  w.u16(OFPMT_OXM).u16(0);
  writeOxmFields(w, match, path);
  w.setU16(start + 2, w.length - start);
  w.pad(8, start);
}

function isFullMask(f: FieldInfo, mask: Uint8Array): boolean {
  if (isAllOnes(mask)) return true;
  if (f.kind === 'uint' && f.bits < f.bytes * 8) {
    return (bytesToValue(f, mask) as number) === 2 ** f.bits - 1;
  }
  return false;
}

/** Decode one OXM/NXM entry into `match`. */
export function readEntry(r: Reader, match: Match): void {
  const start = r.pos;
  const header = r.u32();
  const cls = header >>> 16;
  const hasMask = (header & 0x100) !== 0;
  let len = header & 0xff;
  if (cls === 0xffff) {
    // Experimenter OXM: 4-byte experimenter id follows the header and counts in the length.
    r.u32();
    len -= 4;
    r.fail(`unsupported experimenter OXM field ${((header >>> 9) & 0x7f).toString()}`, start);
  }
  const base = (header & 0xfffffe00) >>> 0;
  const payload = r.bytes(len);
  const valueLen = hasMask ? len / 2 : len;
  const m = match as Record<string, unknown>;
  if (base === NXM_IN_PORT || base === NXM_IP_TOS || base === NXM_VLAN_TCI) {
    if (valueLen !== 2 && valueLen !== 1) r.fail('bad NXM length', start);
    let v = 0;
    for (let i = 0; i < valueLen; i++) v = v * 256 + payload[i]!;
    let mk = valueLen === 2 ? 0xffff : 0xff;
    if (hasMask) {
      mk = 0;
      for (let i = 0; i < valueLen; i++) mk = mk * 256 + payload[valueLen + i]!;
    }
    if (base === NXM_IN_PORT) match.inPort = v >= 0xff00 ? 0xffff0000 + v : v; // 16-bit reserved ports map to 0xffffffxx
    else if (base === NXM_IP_TOS) match.ipDscp = v >> 2;
    else {
      const value = v & 0x1fff;
      const mask = mk & 0x1fff;
      match.vlanVid = mask === 0x1fff ? value : { value, mask };
    }
    return;
  }
  if (cls === 0x8001) {
    // OXM_OF_PKT_REG<n> (OFPXMC_PACKET_REGS): 64 bits = reg(2n) << 32 | reg(2n+1). OVS uses it in OF1.5 replies.
    const n = (header >>> 9) & 0x7f;
    if (valueLen !== 8 || n > 7) r.fail(`bad packet register field ${n}`, start);
    const dv = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
    for (let i = 0; i < 2; i++) {
      const v = dv.getUint32(i * 4);
      const mk = hasMask ? dv.getUint32(8 + i * 4) : 0xffffffff;
      if (mk === 0) continue;
      m[`reg${2 * n + i}`] = mk === 0xffffffff ? v : { value: v & mk, mask: mk };
    }
    return;
  }
  const f = FIELD_BY_HEADER.get(base);
  if (!f) r.fail(`unknown match field class 0x${cls.toString(16)} field ${(header >>> 9) & 0x7f}`, start);
  if (valueLen !== f.bytes || (hasMask && len % 2 !== 0)) r.fail(`bad length ${len} for ${f.name}`, start);
  const value = payload.subarray(0, valueLen);
  if (f.kind === 'ctState') {
    const v = bytesToValue(f, value) as number;
    const mk = hasMask ? (bytesToValue(f, payload.subarray(valueLen)) as number) : 0xffffffff;
    let known = 0;
    for (const b of Object.values(CT_STATE_BITS)) known |= b;
    match.ctState = ctStateFromBits(v, mk & known);
    return;
  }
  if (hasMask) {
    const mask = payload.subarray(valueLen);
    if (isFullMask(f, mask)) m[f.name] = bytesToValue(f, value);
    else m[f.name] = { value: bytesToValue(f, value), mask: bytesToValue(f, mask) };
  } else {
    m[f.name] = bytesToValue(f, value);
  }
}

/** Read an OpenFlow 1.5 `ofp_match` (with its padding). */
export function readMatch(r: Reader): Match {
  const start = r.pos;
  const type = r.u16();
  const length = r.u16();
  if (type !== OFPMT_OXM) r.fail(`unsupported match type ${type}`, start);
  if (length < 4) r.fail(`bad match length ${length}`, start);
  const sub = r.sub(length - 4, `${r.path}.match`);
  const match: Match = {};
  while (sub.remaining > 0) readEntry(sub, match);
  const padded = (length + 7) & ~7;
  r.skip(padded - length);
  return match;
}
