/**
 * The controlplane model (controlplane.ts) straight to protobuf bytes, without building protobufjs
 * message objects first: one walk of the TS value validates it (the same rules and errors as the
 * conversion in controlplane-codec.ts), converts scalars and sizes every nested message onto a
 * flat tape; a second loop writes the tape into memory the caller sizes exactly. The writer of
 * each message type is compiled once from the generated descriptor; the bytes are those of
 * protobufjs' static encoder for the converted message (fields by number, proto3 presence rules),
 * which the tests compare byte for byte. Why it exists: docs/apis.md, "Encoding without message
 * objects" (the conversion to message objects and protobufjs' writer were a third of the
 * controller's initial sync).
 */
import type * as cp from './controlplane';
import { defs, fail, isEnum, narrow, parseCidr, run, SHAPE, ShapeError, valueConvs, within, type Conv, type FieldJson, type TypeJson } from './controlplane-codec';
import { ipToBytes } from './ip';

type Obj = Record<string, unknown>;

// ---- the tape ---------------------------------------------------------------------------------

/** Tape operations: what the write loop does with `nums[i]` / `refs[i]`. */
const VARINT = 0; // a non-negative integer below 2^53
const NEGATIVE = 1; // a negative integer: ten bytes of two's complement
const STRING = 2; // refs: the string, nums: its UTF-8 length
const BYTES = 3; // refs: a Uint8Array
const DOUBLE = 4; // nums: the value, 8 bytes little-endian
const LENGTH = 5; // a nested message's length (filled in when the message ends)
const IPV4 = 6; // nums: an IPv4 address as a 32-bit number (length byte + 4 bytes)

const varintSize = (n: number): number =>
  n < 0x80 ? 1 : n < 0x4000 ? 2 : n < 0x200000 ? 3 : n < 0x10000000 ? 4 : n < 2 ** 35 ? 5 : n < 2 ** 42 ? 6 : n < 2 ** 49 ? 7 : 8;

function utf8Length(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if ((c & 0xfc00) === 0xd800 && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 2; // a surrogate pair: 4 bytes for 2 UTF-16 units
      i++;
    } else n += 2;
  }
  return n;
}

/** IPv4 text as a 32-bit number, or -1 (the rules of ip.ts: four decimal octets, no leading zeros). */
function ipv4Number(text: string): number {
  let value = 0;
  let parts = 0;
  let octet = 0;
  let digits = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = i === text.length ? 46 : text.charCodeAt(i);
    if (c === 46) {
      if (digits === 0 || octet > 255 || parts > 3) return -1;
      value = value * 256 + octet;
      parts++;
      octet = 0;
      digits = 0;
    } else if (c >= 48 && c <= 57 && digits < 3 && !(digits === 1 && octet === 0)) {
      octet = octet * 10 + (c - 48);
      digits++;
    } else return -1;
  }
  return parts === 4 ? value : -1;
}

const f64 = new Float64Array(1);
const f64Bytes = new Uint8Array(f64.buffer);
const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** One message being encoded: the tape and its running size. */
class Tape {
  ops: number[] = [];
  nums: number[] = [];
  refs: unknown[] = [];
  n = 0;
  size = 0;

  reset(): void {
    this.n = 0;
    this.size = 0;
  }

  varint(v: number): void {
    const i = this.n++;
    this.ops[i] = VARINT;
    this.nums[i] = v;
    this.size += varintSize(v);
  }

  /** An int32/int64 value (negative ones take ten bytes, as in protobufjs). */
  int(v: number): void {
    if (v >= 0) return this.varint(v);
    const i = this.n++;
    this.ops[i] = NEGATIVE;
    this.nums[i] = v;
    this.size += 10;
  }

  string(s: string): void {
    const len = utf8Length(s);
    this.varint(len);
    const i = this.n++;
    this.ops[i] = STRING;
    this.nums[i] = len;
    this.refs[i] = s;
    this.size += len;
  }

  bytes(b: Uint8Array): void {
    this.varint(b.length);
    const i = this.n++;
    this.ops[i] = BYTES;
    this.refs[i] = b;
    this.size += b.length;
  }

  double(v: number): void {
    const i = this.n++;
    this.ops[i] = DOUBLE;
    this.nums[i] = v;
    this.size += 8;
  }

  ipv4(v: number): void {
    const i = this.n++;
    this.ops[i] = IPV4;
    this.nums[i] = v;
    this.size += 5;
  }

  /** Start a nested message: returns what {@link Tape.end} needs. */
  begin(): number {
    const i = this.n++;
    this.ops[i] = LENGTH;
    this.nums[i] = this.size;
    return i;
  }

  end(at: number): void {
    const len = this.size - (this.nums[at] as number);
    this.nums[at] = len;
    this.size += varintSize(len);
  }

  /** Write the tape at `offset`; returns the offset after it. */
  write(out: Uint8Array, offset: number): number {
    let pos = offset;
    const { ops, nums, refs } = this;
    for (let i = 0; i < this.n; i++) {
      const op = ops[i];
      let v = nums[i] as number;
      if (op === VARINT || op === LENGTH) {
        while (v > 0x7fffffff) {
          out[pos++] = (v % 128) | 0x80;
          v = Math.floor(v / 128);
        }
        while (v >= 0x80) {
          out[pos++] = (v & 0x7f) | 0x80;
          v >>>= 7;
        }
        out[pos++] = v;
      } else if (op === STRING) {
        const s = refs[i] as string;
        refs[i] = undefined;
        if (v === s.length) for (let k = 0; k < s.length; k++) out[pos++] = s.charCodeAt(k);
        else pos = writeUtf8(s, out, pos);
      } else if (op === BYTES) {
        const b = refs[i] as Uint8Array;
        refs[i] = undefined;
        out.set(b, pos);
        pos += b.length;
      } else if (op === IPV4) {
        out[pos] = 4;
        out[pos + 1] = v >>> 24;
        out[pos + 2] = (v >>> 16) & 255;
        out[pos + 3] = (v >>> 8) & 255;
        out[pos + 4] = v & 255;
        pos += 5;
      } else if (op === NEGATIVE) {
        // Two's complement over 64 bits: low 32 bits, then the high 32 (all ones for int32 values).
        let lo = v >>> 0;
        let hi = Math.floor(v / 2 ** 32) >>> 0;
        for (let k = 0; k < 9; k++) {
          out[pos++] = (lo & 0x7f) | 0x80;
          lo = ((lo >>> 7) | (hi << 25)) >>> 0;
          hi >>>= 7;
        }
        out[pos++] = lo & 1;
      } else {
        f64[0] = v;
        if (littleEndian) for (let k = 0; k < 8; k++) out[pos++] = f64Bytes[k] as number;
        else for (let k = 7; k >= 0; k--) out[pos++] = f64Bytes[k] as number;
      }
    }
    return pos;
  }
}

function writeUtf8(s: string, out: Uint8Array, start: number): number {
  let pos = start;
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c < 0x80) out[pos++] = c;
    else if (c < 0x800) {
      out[pos++] = (c >> 6) | 0xc0;
      out[pos++] = (c & 63) | 0x80;
    } else {
      const next = s.charCodeAt(i + 1);
      if ((c & 0xfc00) === 0xd800 && (next & 0xfc00) === 0xdc00) {
        c = 0x10000 + ((c & 0x03ff) << 10) + (next & 0x03ff);
        i++;
        out[pos++] = (c >> 18) | 0xf0;
        out[pos++] = ((c >> 12) & 63) | 0x80;
      } else out[pos++] = (c >> 12) | 0xe0;
      out[pos++] = ((c >> 6) & 63) | 0x80;
      out[pos++] = (c & 63) | 0x80;
    }
  }
  return pos;
}

// ---- compiled writers -----------------------------------------------------------------------

/**
 * Puts one TS key's wire fields on the tape; throws ShapeError (the message adds the key to its
 * path). `x` is the value of the message's property `read`, read by the message's writer.
 */
interface Step {
  key: string;
  read: string;
  put(x: unknown, v: Obj, t: Tape): void;
}
type MessageWriter = (v: Obj, t: Tape) => void;

const writers = new Map<string, MessageWriter>();

/** The compiled writer of a message type (built on first use). */
function writerOf(type: string): MessageWriter {
  const known = writers.get(type);
  if (known) return known;
  // A type nested in itself finds this forwarder while its steps are planned.
  const slot: { w?: MessageWriter } = {};
  writers.set(type, (v, t) => (slot.w as MessageWriter)(v, t));
  const w = generatedWriter(type, planSteps(type));
  slot.w = w;
  writers.set(type, w);
  return w;
}

/**
 * A message's writer as code of its own, reading each field by its name written out (`v["uid"]`):
 * one shared loop reading `v[step.key]` was a megamorphic keyed load for every field of every
 * message (a quarter of the controller's initial sync). The steps stay closures.
 */
function generatedWriter(type: string, steps: readonly Step[]): MessageWriter {
  const calls = steps.map((s, i) => `i = ${i}; s${i}(v[${JSON.stringify(s.read)}], v, t);`).join('\n      ');
  const params = steps.map((_, i) => `s${i}`);
  const source = `return function write${type.replace(/\W/g, '_')}(v, t) {
    let i = 0;
    try {
      ${calls}
    } catch (e) {
      throw within(e, keys[i]);
    }
  };`;
  // Generated from the compiled-in descriptor only, as protobufjs' own codegen does.
  const make = new Function('within', 'keys', ...params, source) as (...args: unknown[]) => MessageWriter;
  return make(within, steps.map((s) => s.key), ...steps.map((s) => s.put));
}

const WIRE_VARINT = 0;
const WIRE_DOUBLE = 1;
const WIRE_LEN = 2;
const tagOf = (id: number, wire: number): number => id * 8 + wire;

/** How one value of a field type goes on the tape, after its converter has checked it. */
type Put = (x: unknown, t: Tape) => void;

function valuePut(f: FieldJson, tag: number): Put {
  const d = defs[f.type];
  if (f.type === SHAPE.cidrMessage) {
    return (x, t) => {
      const { ip, prefixLength } = x as { ip: Uint8Array; prefixLength: number };
      t.varint(tag);
      const at = t.begin();
      if (ip.length > 0) {
        t.varint(tagOf(1, WIRE_LEN));
        t.bytes(ip);
      }
      if (prefixLength !== 0) {
        t.varint(tagOf(2, WIRE_VARINT));
        t.int(prefixLength);
      }
      t.end(at);
    };
  }
  if (d && !isEnum(d)) {
    const nested = writerOf(f.type);
    return (x, t) => {
      t.varint(tag);
      const at = t.begin();
      nested(x as Obj, t);
      t.end(at);
    };
  }
  if (f.type === 'string') return (x, t) => (t.varint(tag), t.string(x as string));
  if (f.type === 'bytes') return (x, t) => (t.varint(tag), t.bytes(x as Uint8Array));
  if (f.type === 'bool') return (x, t) => (t.varint(tag), t.varint(x ? 1 : 0));
  if (f.type === 'double') return (x, t) => (t.varint(tag), t.double(x as number));
  return (x, t) => (t.varint(tag), t.int(x as number)); // enums and integers
}

/** Converter of one value (validation and TS -> wire value); messages are walked, not converted. */
function valueConv(owner: string, key: string, f: FieldJson): Conv {
  const d = defs[f.type];
  if (f.type === SHAPE.cidrMessage) return parseCidr;
  if (d && !isEnum(d)) return (x) => x;
  if (f.type === 'bytes') return (x) => x; // IPs: checked by ipPut as they go on the tape
  return narrow(valueConvs(owner, key, f), SHAPE.narrowed.get(`${owner}.${key}`)).toPb;
}

/** A bytes field (an IP address as text in TS): IPv4 stays a number (no 4-byte array per address). */
function ipPut(tag: number): Put {
  return (x, t) => {
    const v4 = typeof x === 'string' ? ipv4Number(x) : -1;
    if (v4 >= 0) {
      t.varint(tag);
      t.ipv4(v4);
      return;
    }
    const bytes = (typeof x === 'string' && ipToBytes(x)) || fail('INVALID_IP', 'not an IPv4 or IPv6 address', x);
    t.varint(tag);
    t.bytes(bytes);
  };
}

/** proto3 implicit presence: a scalar at its zero value is not written. */
const isDefault = (f: FieldJson, x: unknown): boolean => (f.type === 'string' ? x === '' : f.type === 'bool' ? x === false : x === 0);

function planSteps(type: string): Step[] {
  const d = defs[type] as TypeJson | undefined;
  if (!d || isEnum(d)) throw new Error(`no message ${type} in the controlplane descriptor`);
  const byId = Object.entries(d.fields).sort((a, b) => a[1].id - b[1].id);
  const oneofOf = new Map<string, string>();
  for (const [name, o] of Object.entries(d.oneofs ?? {})) if (!name.startsWith('_')) for (const m of o.oneof) oneofOf.set(m, name);
  const steps: Step[] = [];
  const doneOneofs = new Set<string>();
  for (const [key, f] of byId) {
    const oneof = oneofOf.get(key);
    if (oneof !== undefined) {
      if (!doneOneofs.has(oneof)) steps.push(oneofStep(type, oneof, (d.oneofs?.[oneof] as { oneof: string[] }).oneof, d.fields));
      doneOneofs.add(oneof);
      continue;
    }
    const marked = key.startsWith('has') && f.type === 'bool' ? `${key[3]?.toLowerCase()}${key.slice(4)}` : undefined;
    if (marked !== undefined && d.fields[marked] !== undefined) {
      const tag = tagOf(f.id, WIRE_VARINT);
      steps.push({ key: marked, read: marked, put: (x, _v, t) => void (x !== undefined && (t.varint(tag), t.varint(1))) });
      continue;
    }
    steps.push(fieldStep(type, key, f, d.fields[`has${key[0]?.toUpperCase()}${key.slice(1)}`] !== undefined));
  }
  return steps;
}

function fieldStep(owner: string, key: string, f: FieldJson, flagged: boolean): Step {
  const conv = valueConv(owner, key, f);
  const isMessage = defs[f.type] !== undefined && !isEnum(defs[f.type]);
  if (f.keyType) {
    const valueConv = valueConvs(owner, key, { type: f.type, id: 2 }).toPb;
    const tag = tagOf(f.id, WIRE_LEN);
    return {
      key,
      read: key,
      put: (m, _v, t) => {
        if (m === undefined && flagged) return;
        for (const [k, x] of Object.entries((m ?? {}) as Obj)) {
          let n: number;
          try {
            n = valueConv(x) as number;
          } catch (e) {
            throw within(e, k);
          }
          t.varint(tag);
          const at = t.begin();
          t.varint(tagOf(1, WIRE_LEN));
          t.string(k);
          t.varint(tagOf(2, WIRE_VARINT));
          t.int(n);
          t.end(at);
        }
      },
    };
  }
  if (f.rule === 'repeated') {
    const isBytes = f.type === 'bytes';
    const packed = !isMessage && f.type !== 'string' && !isBytes;
    const put = f.type === 'bytes' ? ipPut(tagOf(f.id, WIRE_LEN)) : valuePut(f, tagOf(f.id, WIRE_LEN));
    const tag = tagOf(f.id, WIRE_LEN);
    return {
      key,
      read: key,
      put: (value, _v, t) => {
        const xs = value as readonly unknown[] | undefined;
        if (xs === undefined) return;
        if (xs.length === 0) return;
        let at = 0;
        if (packed) {
          t.varint(tag);
          at = t.begin();
        }
        let i = 0;
        try {
          for (; i < xs.length; i++) {
            const x = conv(xs[i]);
            if (packed) t.int(x as number);
            else put(isBytes ? xs[i] : x, t); // an IP goes on the tape from its text
          }
        } catch (e) {
          throw within(e, `[${i}]`);
        }
        if (packed) t.end(at);
      },
    };
  }
  const def = defs[f.type];
  const implicit = !isMessage && !f.options?.proto3_optional;
  const wire = f.type === 'double' ? WIRE_DOUBLE : isMessage || f.type === 'string' || f.type === 'bytes' ? WIRE_LEN : WIRE_VARINT;
  const put = f.type === 'bytes' ? ipPut(tagOf(f.id, wire)) : valuePut(f, tagOf(f.id, wire));
  const enumField = isEnum(def);
  const isBytes = f.type === 'bytes';
  return {
    key,
    read: key,
    put: (x, _v, t) => {
      if (x === undefined) return;
      const y = conv(x);
      // An IP is never empty bytes, and an enum's converted value is never zero.
      if (implicit && !enumField && !isBytes && isDefault(f, y)) return;
      put(isBytes ? x : y, t);
    },
  };
}

/** A oneof: of scalars, the member follows the TS value's type; of messages, `kind` names it. */
function oneofStep(owner: string, name: string, members: readonly string[], fields: Record<string, FieldJson>): Step {
  const field = (m: string): FieldJson => fields[m] as FieldJson;
  const byMessage = members.every((m) => defs[field(m).type] !== undefined);
  if (byMessage) {
    const byKind = new Map(members.map((m) => [field(m).type, valuePut(field(m), tagOf(field(m).id, WIRE_LEN))] as const));
    return {
      key: '',
      read: name,
      put: (x, v, t) => {
        const put = byKind.get(v['kind'] as string);
        if (!put) throw within(new ShapeError('INVALID_ENUM', `unknown ${owner} ${name} kind`, v['kind']), 'kind');
        try {
          put(x, t);
        } catch (e) {
          throw within(e, name);
        }
      },
    };
  }
  const jsType = (m: string): string => (field(m).type === 'string' ? 'string' : field(m).type === 'bool' ? 'boolean' : 'number');
  const byJsType = new Map(
    members.map((m) => {
      const f = field(m);
      const wire = f.type === 'string' || f.type === 'bytes' ? WIRE_LEN : f.type === 'double' ? WIRE_DOUBLE : WIRE_VARINT;
      return [jsType(m), { conv: valueConv(owner, m, f), put: valuePut(f, tagOf(f.id, wire)) }] as const;
    }),
  );
  return {
    key: name,
    read: name,
    put: (x, _v, t) => {
      if (x === undefined) return;
      const member = byJsType.get(typeof x) ?? fail('INVALID_ENUM', `unsupported ${name} value`, x);
      member.put(member.conv(x), t);
    },
  };
}

// ---- public -----------------------------------------------------------------------------------

/** A message type's encoder: TS value to exactly sized bytes. Throws ControlplaneCodecError. */
function messageEncoder<T>(type: string): (v: T) => Uint8Array {
  const tape = new Tape();
  return (v) => {
    tape.reset();
    run('', () => writerOf(type)(v as Obj, tape));
    const out = Buffer.allocUnsafe(tape.size);
    tape.write(out, 0);
    return out;
  };
}

/**
 * Encodes watch events into memory the caller provides, so a server can place many events (or
 * frames) in one buffer of its own with no allocation per event: {@link WatchEventEncoder.prepare}
 * validates an event and returns its size, {@link WatchEventEncoder.writeTo} writes it. The bytes
 * are those of `encodeWatchEvent` (or `encodeWatchEventFrame` when prepared `framed`).
 */
export class WatchEventEncoder {
  private readonly tape = new Tape();
  private framed = false;
  private prepared = false;

  /** Validate and size `event` (with its varint length prefix when `framed`); throws ControlplaneCodecError. */
  prepare(event: cp.WatchEvent, framed = false): number {
    this.tape.reset();
    this.prepared = false;
    run('', () => writerOf('WatchEvent')(event as unknown as Obj, this.tape));
    this.framed = framed;
    this.prepared = true;
    return framed ? varintSize(this.tape.size) + this.tape.size : this.tape.size;
  }

  /** Write the prepared event at `offset` of `target` (which must have room); returns the offset after it. */
  writeTo(target: Uint8Array, offset: number): number {
    if (!this.prepared) throw new Error('WatchEventEncoder.writeTo without a prepared event');
    this.prepared = false;
    let pos = offset;
    if (this.framed) {
      let n = this.tape.size;
      while (n >= 0x80) {
        target[pos++] = (n & 0x7f) | 0x80;
        n >>>= 7;
      }
      target[pos++] = n;
    }
    return this.tape.write(target, pos);
  }
}

/** Serialize a watch event (no framing). Throws ControlplaneCodecError on invalid values, with the field path. */
export const encodeWatchEvent = messageEncoder<cp.WatchEvent>('WatchEvent');
/** Serialize a NetworkPolicy. */
export const encodeNetworkPolicy = messageEncoder<cp.NetworkPolicy>('NetworkPolicy');
/** Serialize an AddressGroup. */
export const encodeAddressGroup = messageEncoder<cp.AddressGroup>('AddressGroup');
/** Serialize an AppliedToGroup. */
export const encodeAppliedToGroup = messageEncoder<cp.AppliedToGroup>('AppliedToGroup');
/** Serialize a NetworkPolicyStatus (agent -> controller). */
export const encodeNetworkPolicyStatus = messageEncoder<cp.NetworkPolicyStatus>('NetworkPolicyStatus');
/** Serialize an AgentInfo. */
export const encodeAgentInfo = messageEncoder<cp.AgentInfo>('AgentInfo');
