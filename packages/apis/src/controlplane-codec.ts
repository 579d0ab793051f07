/**
 * The controlplane model (controlplane.ts) to and from the generated messages, and the rules the
 * byte paths share. Bytes are read by controlplane-reader.ts and written by controlplane-writer.ts
 * straight from and into the TS value (these rules and converters, without message objects); the
 * conversion between the generated messages and the TS model is not written per
 * message but compiled once per message type from the generated descriptor
 * (gen/controlplane.json) and the few rules in {@link SHAPE}.
 *
 * Why a conversion at all: the TS model is what the policy-compiler, the pipeline and the agent
 * work with, and it differs from the wire on purpose (IPs and CIDRs as canonical text, enums as
 * Antrea's names, "absent" and "empty" lists kept apart, `Service.port` a number or a name, a
 * watch event discriminated by `kind`). Decoding validates everything the TS types promise, so
 * garbage input fails with a ControlplaneCodecError instead of yielding a half-filled object.
 */
import descriptor from './gen/controlplane.json';
import { switchyard } from './gen/controlplane';
import type * as cp from './controlplane';
import { ControlplaneCodecError, type ControlplaneCodecErrorCode } from './errors';
import { bytesToIp, ipToBytes } from './ip';

const pb = switchyard.controlplane.v1;
type Pb = typeof switchyard.controlplane.v1;

/**
 * Where the TS model is more than the message with camelCase field names. The rest follows from
 * the descriptor: `bytes` fields are IP addresses (text in TS); an `IPNet` is CIDR text; a bool
 * `hasX` marks the presence of list or map `x` (absent and empty stay apart); proto3 `optional`
 * fields and message fields not listed as required are optional keys; a oneof of scalars is one
 * key named after it (`Service.port`: number or name); a oneof of messages is `kind` (the message
 * name) plus the value under the oneof's name (`WatchEvent.object`); an enum value is its name
 * without the enum's prefix in PascalCase (`DIRECTION_IN` is `In`), and zero means unset.
 */
export const SHAPE = {
  /** Message fields the TS type requires: decoding without them fails with MISSING_FIELD. */
  required: new Set(['NetworkPolicy.sourceRef', 'NetworkPolicyRule.from', 'NetworkPolicyRule.to', 'IPBlock.cidr']),
  /** Enum fields that are optional in TS (zero = absent); every other enum field must be set. */
  optionalEnums: new Set(['NetworkPolicyRule.action', 'ServiceReference.scope']),
  /** Enums whose TS names keep the proto spelling without prefix (`TCP`, `ADDED`). */
  verbatimEnums: new Set(['Protocol', 'EventType']),
  /** Fields whose TS type allows fewer values than the proto type. */
  narrowed: new Map<string, ReadonlySet<string>>([
    ['NamedPort.protocol', new Set<cp.NamedPort['protocol']>(['TCP', 'UDP', 'SCTP'])],
    ['AgentCondition.type', new Set<cp.AgentCondition['type']>(['AgentHealthy', 'ControllerConnectionUp', 'OVSDBConnectionUp', 'OpenflowConnectionUp'])],
  ]),
  /** String fields carrying CIDR text (checked when encoding). */
  cidrText: new Set(['AgentInfo.nodeSubnets']),
  /** The message that is CIDR text in TS. */
  cidrMessage: 'IPNet',
};

// ---- the descriptor (pbjs -t json) ----------------------------------------------------------

export interface FieldJson {
  type: string;
  id: number;
  rule?: string;
  keyType?: string;
  options?: { proto3_optional?: boolean };
}
export interface TypeJson {
  fields: Record<string, FieldJson>;
  oneofs?: Record<string, { oneof: string[] }>;
}
export interface EnumJson {
  values: Record<string, number>;
}
export const defs = descriptor.nested.switchyard.nested.controlplane.nested.v1.nested as Record<string, TypeJson | EnumJson>;
export const isEnum = (d: TypeJson | EnumJson | undefined): d is EnumJson => d !== undefined && 'values' in d;

// ---- errors with lazily built paths ---------------------------------------------------------

/** A conversion failure; path segments are collected while unwinding (no path work on success). */
export class ShapeError {
  readonly segments: string[] = [];
  constructor(
    readonly code: ControlplaneCodecErrorCode,
    readonly message: string,
    readonly value: unknown,
  ) {}
  toCodecError(base: string): ControlplaneCodecError {
    let path = base;
    for (let i = this.segments.length - 1; i >= 0; i--) {
      const s = this.segments[i] as string;
      path = s.startsWith('[') || path === '' ? path + s : `${path}.${s}`;
    }
    return new ControlplaneCodecError(this.code, this.message, path, this.value);
  }
}
export const within = (e: unknown, segment: string): unknown => {
  if (e instanceof ShapeError && segment !== '') e.segments.push(segment);
  return e;
};
export const fail = (code: ControlplaneCodecErrorCode, message: string, value: unknown): never => {
  throw new ShapeError(code, message, value);
};
export function run<T>(base: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw e instanceof ShapeError ? e.toCodecError(base) : e;
  }
}

// ---- values ---------------------------------------------------------------------------------

type Obj = Record<string, unknown>;
/** Converts one value; throws ShapeError. */
export type Conv = (v: unknown) => unknown;

const INT_RANGES: Record<string, readonly [number, number]> = {
  int32: [-0x80000000, 0x7fffffff],
  sint32: [-0x80000000, 0x7fffffff],
  sfixed32: [-0x80000000, 0x7fffffff],
  uint32: [0, 0xffffffff],
  fixed32: [0, 0xffffffff],
  int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  sint64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  sfixed64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  uint64: [0, Number.MAX_SAFE_INTEGER],
  fixed64: [0, Number.MAX_SAFE_INTEGER],
};
const is64 = (t: string): boolean => t.endsWith('64') && t !== 'double';
const NUMERIC = new Set([...Object.keys(INT_RANGES), 'double', 'float']);

function intConv(type: string): Conv {
  const [min, max] = INT_RANGES[type] as readonly [number, number];
  return (v) => (Number.isInteger(v) && (v as number) >= min && (v as number) <= max ? v : fail('OUT_OF_RANGE', `expected an integer in [${min}, ${max}]`, v));
}
const finite: Conv = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : fail('OUT_OF_RANGE', 'must be a finite number', v));
/** int64 fields decode to Long (the `long` module is a dependency) or number. */
const fromInt64: Conv = (v) => {
  const n = typeof v === 'number' ? v : v != null && typeof (v as { toNumber?: unknown }).toNumber === 'function' ? (v as { toNumber(): number }).toNumber() : fail('MALFORMED_MESSAGE', 'expected an int64', v);
  return Number.isSafeInteger(n) ? n : fail('OUT_OF_RANGE', 'int64 outside the safe integer range', n);
};
const ipToPb: Conv = (v) => (typeof v === 'string' && ipToBytes(v)) || fail('INVALID_IP', 'not an IPv4 or IPv6 address', v);
const ipFromPb: Conv = (v) => (v instanceof Uint8Array && bytesToIp(v)) || fail('INVALID_IP', 'IP must be 4 or 16 bytes', v);

/** CIDR text to `{ ip, prefixLength }`. */
export function parseCidr(v: unknown): { ip: Uint8Array; prefixLength: number } {
  const text = typeof v === 'string' ? v : fail('INVALID_CIDR', 'not a CIDR', v);
  const slash = text.indexOf('/');
  const ip = ipToBytes(slash < 0 ? text : text.slice(0, slash)) ?? fail('INVALID_CIDR', 'not a CIDR', text);
  const bits = ip.length * 8;
  const len = slash < 0 ? String(bits) : text.slice(slash + 1);
  if (!/^(0|[1-9]\d{0,2})$/.test(len) || Number(len) > bits) fail('INVALID_CIDR', `prefix length must be 0..${bits}`, text);
  return { ip, prefixLength: Number(len) };
}
const cidrFromPb: Conv = (v) => {
  const net = v as { ip?: Uint8Array | null; prefixLength?: number | null };
  const ip = net.ip ? bytesToIp(net.ip) : undefined;
  if (ip === undefined) throw within(new ShapeError('INVALID_IP', 'IP must be 4 or 16 bytes', net.ip), 'ip');
  const bits = (net.ip?.length ?? 0) * 8;
  const len = net.prefixLength ?? 0;
  return len >= 0 && len <= bits ? `${ip}/${len}` : fail('INVALID_CIDR', `prefix length must be 0..${bits}`, len);
};

/** Two-way enum table: TS names from the value names (see SHAPE). */
function enumConvs(name: string, d: EnumJson): { toPb: Conv; fromPb: Conv; names: Map<string, number> } {
  const prefix = `${name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()}_`;
  const names = new Map<string, number>();
  const byNum = new Map<number, string>();
  for (const [valueName, n] of Object.entries(d.values)) {
    if (n === 0) continue;
    const bare = valueName.startsWith(prefix) ? valueName.slice(prefix.length) : valueName;
    const ts = SHAPE.verbatimEnums.has(name) ? bare : bare.toLowerCase().replace(/(^|_)([a-z0-9])/g, (_m, _u, c: string) => c.toUpperCase());
    names.set(ts, n);
    byNum.set(n, ts);
  }
  return {
    names,
    toPb: (v) => names.get(v as string) ?? fail('INVALID_ENUM', `not a ${name}`, v),
    fromPb: (v) => byNum.get(v as number) ?? fail('INVALID_ENUM', `unknown ${name} value`, v),
  };
}

/** Value converters of one (non-repeated) field type, both ways. */
export function valueConvs(owner: string, key: string, f: FieldJson): { toPb: Conv; fromPb: Conv } {
  const d = defs[f.type];
  if (isEnum(d)) return enumConvs(f.type, d);
  if (d) {
    if (f.type === SHAPE.cidrMessage) return { toPb: parseCidr, fromPb: cidrFromPb };
    const c = codec(f.type);
    return { toPb: (v) => c.toPb(v), fromPb: (v) => c.fromPb(v) };
  }
  if (f.type === 'bytes') return { toPb: ipToPb, fromPb: ipFromPb };
  const id = (v: unknown): unknown => v;
  if (f.type in INT_RANGES) return { toPb: intConv(f.type), fromPb: is64(f.type) ? fromInt64 : id };
  if (f.type === 'double' || f.type === 'float') return { toPb: finite, fromPb: id };
  if (SHAPE.cidrText.has(`${owner}.${key}`)) return { toPb: (v) => (parseCidr(v), v), fromPb: id };
  return { toPb: id, fromPb: id };
}

/** Wrap a converter with a check that the TS value is one of `allowed`. */
export function narrow(conv: { toPb: Conv; fromPb: Conv }, allowed: ReadonlySet<string> | undefined): { toPb: Conv; fromPb: Conv } {
  if (!allowed) return conv;
  const check = (v: unknown): unknown => (allowed.has(v as string) ? v : fail('INVALID_ENUM', `must be one of ${[...allowed].join(', ')}`, v));
  return { toPb: (v) => conv.toPb(check(v)), fromPb: (v) => check(conv.fromPb(v)) };
}

function listConvs(c: { toPb: Conv; fromPb: Conv }): { toPb: Conv; fromPb: Conv } {
  const map = (conv: Conv) => (v: unknown) => {
    const xs = (v ?? []) as readonly unknown[];
    const out = new Array<unknown>(xs.length);
    let i = 0;
    try {
      for (; i < xs.length; i++) out[i] = conv(xs[i]);
    } catch (e) {
      throw within(e, `[${i}]`);
    }
    return out;
  };
  return { toPb: map(c.toPb), fromPb: map(c.fromPb) };
}

function mapConvs(c: { toPb: Conv; fromPb: Conv }): { toPb: Conv; fromPb: Conv } {
  const map = (conv: Conv) => (v: unknown) => {
    const out: Obj = {};
    for (const [k, x] of Object.entries((v ?? {}) as Obj)) {
      try {
        out[k] = conv(x);
      } catch (e) {
        throw within(e, k);
      }
    }
    return out;
  };
  return { toPb: map(c.toPb), fromPb: map(c.fromPb) };
}

// ---- messages -------------------------------------------------------------------------------

/** Moves one TS key into a message (`enc`) and back (`dec`). */
interface FieldPlan {
  key: string;
  enc(v: Obj, out: Obj): void;
  dec(m: Obj, out: Obj): void;
}

interface MessageCodec {
  toPb(v: unknown): Obj;
  fromPb(m: unknown): Obj;
}

const codecs = new Map<string, MessageCodec>();

/** The compiled codec of a message type (built on first use, shared afterwards). */
function codec(type: string): MessageCodec {
  let c = codecs.get(type);
  if (c) return c;
  const plans: FieldPlan[] = [];
  c = {
    toPb(v) {
      const out: Obj = {};
      let i = 0;
      try {
        for (; i < plans.length; i++) (plans[i] as FieldPlan).enc(v as Obj, out);
      } catch (e) {
        throw within(e, (plans[i] as FieldPlan).key);
      }
      return out;
    },
    fromPb(m) {
      const out: Obj = {};
      let i = 0;
      try {
        for (; i < plans.length; i++) (plans[i] as FieldPlan).dec(m as Obj, out);
      } catch (e) {
        throw within(e, (plans[i] as FieldPlan).key);
      }
      return out;
    },
  };
  codecs.set(type, c);
  plans.push(...planFields(type));
  return c;
}

function planFields(type: string): FieldPlan[] {
  const d = defs[type];
  if (!d || isEnum(d)) throw new Error(`no message ${type} in the controlplane descriptor`);
  const plans: FieldPlan[] = [];
  const inOneof = new Set<string>();
  for (const [name, o] of Object.entries(d.oneofs ?? {})) {
    if (name.startsWith('_')) continue; // the synthetic oneof of a proto3 `optional` field
    for (const m of o.oneof) inOneof.add(m);
    plans.push(oneofPlan(type, name, o.oneof, d.fields));
  }
  for (const [key, f] of Object.entries(d.fields)) {
    if (inOneof.has(key)) continue;
    const flagged = key.startsWith('has') && d.fields[key[3]?.toLowerCase() + key.slice(4)] !== undefined && f.type === 'bool';
    if (flagged) continue; // handled with the field it marks
    const flag = d.fields[`has${key[0]?.toUpperCase()}${key.slice(1)}`] ? `has${key[0]?.toUpperCase()}${key.slice(1)}` : undefined;
    plans.push(fieldPlan(type, key, f, flag));
  }
  return plans;
}

function fieldPlan(owner: string, key: string, f: FieldJson, flag: string | undefined): FieldPlan {
  const qualified = `${owner}.${key}`;
  const one = narrow(valueConvs(owner, key, f), SHAPE.narrowed.get(qualified));
  if (f.rule === 'repeated' || f.keyType) {
    const many = f.keyType ? mapConvs(one) : listConvs(one);
    if (flag) {
      return {
        key,
        enc: (v, out) => {
          if (v[key] === undefined) return;
          out[key] = many.toPb(v[key]);
          out[flag] = true;
        },
        dec: (m, out) => {
          if (m[flag]) out[key] = many.fromPb(m[key]);
        },
      };
    }
    return { key, enc: (v, out) => void (out[key] = many.toPb(v[key])), dec: (m, out) => void (out[key] = many.fromPb(m[key])) };
  }
  const def = defs[f.type];
  const required = isEnum(def) ? !SHAPE.optionalEnums.has(qualified) : def ? SHAPE.required.has(qualified) : !f.options?.proto3_optional;
  if (isEnum(def) && !required) {
    return {
      key,
      enc: (v, out) => void (v[key] !== undefined && (out[key] = one.toPb(v[key]))),
      dec: (m, out) => void (m[key] && (out[key] = one.fromPb(m[key]))),
    };
  }
  if (required) {
    const missing = def && !isEnum(def);
    const zero = isEnum(def) ? 0 : f.type === 'string' ? '' : f.type === 'bool' ? false : NUMERIC.has(f.type) ? 0 : undefined;
    return {
      key,
      enc: (v, out) => void (v[key] !== undefined && (out[key] = one.toPb(v[key]))),
      dec: (m, out) => {
        const x = m[key] ?? zero;
        out[key] = x == null && missing ? fail('MISSING_FIELD', 'required field missing', x) : one.fromPb(x);
      },
    };
  }
  return {
    key,
    enc: (v, out) => void (v[key] !== undefined && (out[key] = one.toPb(v[key]))),
    dec: (m, out) => void (m[key] != null && (out[key] = one.fromPb(m[key]))),
  };
}

/** A oneof: of scalars, one TS key (the member is chosen by the value's type); of messages, `kind` + value. */
function oneofPlan(owner: string, name: string, members: readonly string[], fields: Record<string, FieldJson>): FieldPlan {
  const convs = new Map(members.map((m) => [m, valueConvs(owner, m, fields[m] as FieldJson)] as const));
  const byMessage = members.every((m) => defs[(fields[m] as FieldJson).type] !== undefined);
  const which = (m: Obj): string | undefined => (m[name] as string | undefined) ?? members.find((x) => m[x] != null);
  if (byMessage) {
    const memberOfKind = new Map(members.map((m) => [(fields[m] as FieldJson).type, m]));
    // Key '': `kind` and the value are siblings, so each error names its own key.
    return {
      key: '',
      enc: (v, out) => {
        const member = memberOfKind.get(v['kind'] as string);
        if (!member) throw within(new ShapeError('INVALID_ENUM', `unknown ${owner} ${name} kind`, v['kind']), 'kind');
        try {
          out[member] = (convs.get(member) as { toPb: Conv }).toPb(v[name]);
        } catch (e) {
          throw within(e, name);
        }
      },
      dec: (m, out) => {
        const member = which(m);
        if (member === undefined || m[member] == null) throw within(new ShapeError('MISSING_FIELD', `${owner} carries no ${name}`, member), name);
        out['kind'] = (fields[member] as FieldJson).type;
        try {
          out[name] = (convs.get(member) as { fromPb: Conv }).fromPb(m[member]);
        } catch (e) {
          throw within(e, name);
        }
      },
    };
  }
  const memberOfJsType = new Map(members.map((m) => [NUMERIC.has((fields[m] as FieldJson).type) ? 'number' : (fields[m] as FieldJson).type === 'bool' ? 'boolean' : 'string', m]));
  return {
    key: name,
    enc: (v, out) => {
      if (v[name] === undefined) return;
      const member = memberOfJsType.get(typeof v[name]) ?? fail('INVALID_ENUM', `unsupported ${name} value`, v[name]);
      out[member] = (convs.get(member) as { toPb: Conv }).toPb(v[name]);
    },
    dec: (m, out) => {
      const member = which(m);
      if (member !== undefined && m[member] != null) out[name] = (convs.get(member) as { fromPb: Conv }).fromPb(m[member]);
    },
  };
}

// ---- public conversions ---------------------------------------------------------------------

type Props<K extends keyof Pb> = Pb[K] extends abstract new (p?: infer I) => unknown ? NonNullable<I> : never;

/** TS NetworkPolicy to its generated message (plain properties). Throws ControlplaneCodecError on invalid values. */
export function networkPolicyToProto(p: cp.NetworkPolicy, path = ''): Props<'NetworkPolicy'> {
  return run(path, () => codec('NetworkPolicy').toPb(p)) as Props<'NetworkPolicy'>;
}

/** Generated NetworkPolicy message to the TS model; validates enums and IPs. */
export function networkPolicyFromProto(m: Props<'NetworkPolicy'>, path = ''): cp.NetworkPolicy {
  return run(path, () => codec('NetworkPolicy').fromPb(m)) as unknown as cp.NetworkPolicy;
}

/** TS WatchEvent to its generated message (plain properties). */
export function watchEventToProto(e: cp.WatchEvent): Props<'WatchEvent'> {
  return run('', () => codec('WatchEvent').toPb(e)) as Props<'WatchEvent'>;
}

/** Generated WatchEvent message to the TS model. */
export function watchEventFromProto(m: Props<'WatchEvent'>): cp.WatchEvent {
  return run('', () => codec('WatchEvent').fromPb(m)) as unknown as cp.WatchEvent;
}

// ---- bytes, the path before controlplane-reader.ts ----------------------------------------

interface Static {
  decode(b: Uint8Array): unknown;
}

/**
 * Decode with protobufjs' generated decoder, then convert the message objects: what every
 * `decode*` did before controlplane-reader.ts. Internal: the reader's tests and bench compare
 * against it (results and errors must stay the same).
 */
export function decodeWithMessages<T>(type: keyof Pb & string, bytes: Uint8Array): T {
  let m: unknown;
  try {
    m = (pb[type] as unknown as Static).decode(bytes);
  } catch (err) {
    throw new ControlplaneCodecError('MALFORMED_MESSAGE', `cannot decode ${type}: ${(err as Error).message}`, '', bytes.length);
  }
  return run('', () => codec(type).fromPb(m)) as T;
}

/** A message type's TS value as the generated message (plain properties); for tests comparing encoders. */
export function messageToProto(type: keyof Pb & string, v: unknown): unknown {
  return run('', () => codec(type).toPb(v));
}
