/**
 * Protobuf bytes straight to the controlplane model (controlplane.ts), without protobufjs message
 * objects: the mirror of controlplane-writer.ts. Each message type's reader is generated once from
 * the compiled-in descriptor; it reads the fields into locals and builds the TS value at the end,
 * with the conversion rules of controlplane-codec.ts (whose converters it calls, so the errors are
 * the same). The result, and the error for bad input, are those of protobufjs' generated decoder
 * followed by the conversion; the tests compare both on random and broken input. Why it exists:
 * docs/apis.md, "Decoding without message objects".
 */
import type * as cp from './controlplane';
import { defs, fail, isEnum, narrow, SHAPE, ShapeError, valueConvs, within, type Conv, type FieldJson, type TypeJson } from './controlplane-codec';
import { ControlplaneCodecError } from './errors';
import { bytesToIp, dotted } from './ip';
import { WireError, WireReader } from './wire-reader';

/** Reads one message of `r` up to `end` into its TS value; throws WireError, or ShapeError after reading to `end`. */
type Read = (r: WireReader, end: number, depth: number) => unknown;

const EMPTY = new Uint8Array(0);
/** protobufjs' default of an absent `bytes` field (an empty Buffer): the value an error reports. */
const EMPTY_BYTES = Buffer.alloc(0);

/** IP text of the bytes at [start, end), or undefined unless 4 or 16 bytes (bytesToIp's rules, IPv4 in place). */
function ipText(buf: Uint8Array, start: number, end: number): string | undefined {
  if (end - start === 4) return dotted(buf, start);
  return end - start === 16 ? bytesToIp(buf.subarray(start, end)) : undefined;
}

/** The ShapeError `conv` throws for `value` (the converter words every error), placed at `[index]`. */
function errorOf(conv: Conv, value: unknown, index: number): unknown {
  try {
    conv(value);
  } catch (e) {
    return within(e, `[${index}]`);
  }
  return within(new ShapeError('MALFORMED_MESSAGE', 'the reader refused a value its converter accepts', value), `[${index}]`);
}

/**
 * A singular message field seen more than once merges (protobuf's rule, and protobufjs decodes into
 * the same object): reading the concatenation of its occurrences gives the merged value.
 */
function merged(read: Read, buf: Uint8Array, ranges: readonly number[], depth: number): { v: unknown; x: unknown } {
  let n = 0;
  for (let i = 0; i < ranges.length; i += 2) n += (ranges[i + 1] as number) - (ranges[i] as number);
  const joined = Buffer.isBuffer(buf) ? Buffer.allocUnsafe(n) : new Uint8Array(n);
  let at = 0;
  for (let i = 0; i < ranges.length; i += 2) {
    joined.set(buf.subarray(ranges[i] as number, ranges[i + 1] as number), at);
    at += (ranges[i + 1] as number) - (ranges[i] as number);
  }
  try {
    return { v: read(new WireReader(joined), n, depth), x: undefined };
  } catch (e) {
    if (e instanceof ShapeError) return { v: undefined, x: e };
    throw e;
  }
}

/** An IPNet is CIDR text in TS: read in place, and converted by the codec's converter only to word an error. */
function ipNetReader(): Read {
  const cidr = valueConvs('IPBlock', 'cidr', { type: SHAPE.cidrMessage, id: 1 }).fromPb;
  return (r, end, depth) => {
    let start = 0;
    let stop = 0;
    let prefixLength = 0;
    while (r.pos < end) {
      const tag = r.tag();
      if (tag === 10) {
        start = r.bytesStart();
        stop = r.pos;
      } else if (tag === 16) prefixLength = r.int32();
      else r.skipType(tag & 7, depth, tag >>> 3);
    }
    const ip = ipText(r.buf, start, stop);
    if (ip !== undefined && prefixLength >= 0 && prefixLength <= (stop - start) * 8) return `${ip}/${prefixLength}`;
    return cidr({ ip: stop > start ? r.buf.subarray(start, stop) : EMPTY_BYTES, prefixLength });
  };
}

// ---- code generation ------------------------------------------------------------------------

/** One TS key (or two: a oneof of messages gives `kind` and the value) built after the fields are read. */
interface PlanCode {
  key: string;
  /** Statements before the value (checks that throw). */
  pre: string;
  /** When set, the key is present only if this holds. */
  cond?: string;
  entries: [string, string][];
}

/** The generated source of one message reader and the values it is given. */
class Source {
  readonly names: string[] = [];
  readonly values: unknown[] = [];
  readonly locals: string[] = [];
  readonly cases: string[] = [];
  readonly plans: PlanCode[] = [];

  ref(value: unknown): string {
    this.names.push(`$${this.values.length}`);
    this.values.push(value);
    return this.names[this.names.length - 1] as string;
  }
}

const WIRE_VARINT = 0;
const WIRE_DOUBLE = 1;
const WIRE_LEN = 2;
const tagOf = (id: number, wire: number): number => id * 8 + wire;
const isMessage = (f: FieldJson): boolean => defs[f.type] !== undefined && !isEnum(defs[f.type]);
const wireOf = (f: FieldJson): number => (f.type === 'double' ? WIRE_DOUBLE : f.type === 'string' || f.type === 'bytes' || isMessage(f) ? WIRE_LEN : WIRE_VARINT);

/** The expression reading one scalar value of `f` (not bytes, not a message). */
function readExpr(f: FieldJson): string {
  const d = defs[f.type];
  if (isEnum(d)) return 'r.int32()';
  const reads: Record<string, string> = { string: 'r.string()', bool: 'r.bool()', int32: 'r.int32()', uint32: 'r.uint32()', int64: 'r.int64()', double: 'r.double()' };
  const read = reads[f.type];
  if (read === undefined) throw new Error(`controlplane-reader: no reader for ${f.type}`);
  return read;
}

/** The codec's decode converter of a scalar field, or undefined where it is the identity. */
function scalarConv(owner: string, key: string, f: FieldJson): Conv | undefined {
  const allowed = SHAPE.narrowed.get(`${owner}.${key}`);
  const converted = isEnum(defs[f.type]) || f.type === 'bytes' || f.type === 'int64' || allowed !== undefined;
  return converted ? narrow(valueConvs(owner, key, f), allowed).fromPb : undefined;
}

/** Code that reads a nested message into `into` (or records its ShapeError via `onError`). */
function nestedRead(src: Source, f: FieldJson, value: string, onError: string): string {
  const read = src.ref(f.type === SHAPE.cidrMessage ? ipNetReader() : readerOf(f.type));
  return `const outer = r.len; const stop = r.enter(); const from = r.pos; let t, te;
      try { t = ${read}(r, stop, depth + 1); } catch (e) { if (!(e instanceof ShapeError)) throw e; te = e; }
      r.leave(stop, outer); ${value} ${onError}`;
}

function scalarPlan(src: Source, owner: string, key: string, f: FieldJson, j: number): void {
  const optional = f.options?.proto3_optional === true;
  const optionalEnum = isEnum(defs[f.type]) && SHAPE.optionalEnums.has(`${owner}.${key}`);
  const conv = scalarConv(owner, key, f);
  const zero = f.type === 'string' ? "''" : f.type === 'bool' ? 'false' : '0';
  src.locals.push(f.type === 'bytes' ? `let s${j} = 0, e${j} = 0, p${j} = false;` : `let v${j} = ${zero}, p${j} = false;`);
  const tag = tagOf(f.id, wireOf(f));
  const read = f.type === 'bytes' ? `s${j} = r.bytesStart(); e${j} = r.pos;` : `v${j} = ${readExpr(f)};`;
  src.cases.push(`case ${tag}: ${read} p${j} = true; break;`);
  const raw = f.type === 'bytes' ? `r.buf.subarray(s${j}, e${j})` : `v${j}`;
  const expr = conv ? `${src.ref(conv)}(${raw})` : raw;
  const cond = optional ? `p${j}` : optionalEnum ? `v${j} !== 0` : undefined;
  src.plans.push({ key, pre: '', ...(cond === undefined ? {} : { cond }), entries: [[key, expr]] });
}

function messagePlan(src: Source, owner: string, key: string, f: FieldJson, j: number): void {
  src.locals.push(`let v${j}, x${j}, n${j} = 0, b${j} = 0, c${j} = 0, a${j};`);
  const keep = `if (n${j}++ === 0) { v${j} = t; x${j} = te; b${j} = from; c${j} = stop; } else (a${j} ??= [b${j}, c${j}]).push(from, stop);`;
  src.cases.push(`case ${tagOf(f.id, WIRE_LEN)}: { ${nestedRead(src, f, keep, '')} break; }`);
  const read = src.ref(f.type === SHAPE.cidrMessage ? ipNetReader() : readerOf(f.type));
  const pre = `if (a${j} !== undefined) { const m = ${src.ref(merged)}(${read}, r.buf, a${j}, depth + 1); v${j} = m.v; x${j} = m.x; }
    if (x${j} !== undefined) throw x${j};`;
  if (SHAPE.required.has(`${owner}.${key}`)) {
    const missing = `if (n${j} === 0) ${src.ref(fail)}('MISSING_FIELD', 'required field missing', undefined);`;
    src.plans.push({ key, pre: `${pre}\n    ${missing}`, entries: [[key, `v${j}`]] });
  } else src.plans.push({ key, pre, cond: `n${j} !== 0`, entries: [[key, `v${j}`]] });
}

/** Where a list element's ShapeError goes: the first of the list's (the one the conversion meets first). */
const recordAt = (j: number, error: string): string => `if ((errs ??= [])[${j}] === undefined) errs[${j}] = ${error};`;

function listCases(src: Source, owner: string, key: string, f: FieldJson, j: number): void {
  const v = `v${j}`;
  if (isMessage(f)) {
    const onError = `if (te !== undefined) { ${recordAt(j, `within(te, '[' + ${v}.length + ']')`)} }`;
    src.cases.push(`case ${tagOf(f.id, WIRE_LEN)}: { ${v} ??= []; ${nestedRead(src, f, '', onError)} ${v}.push(t); break; }`);
  } else if (f.type === 'bytes') {
    const conv = src.ref(scalarConv(owner, key, f));
    const bad = recordAt(j, `${src.ref(errorOf)}(${conv}, r.buf.subarray(s, r.pos), ${v}.length)`);
    src.cases.push(`case ${tagOf(f.id, WIRE_LEN)}: { ${v} ??= []; const s = r.bytesStart(); const t = ${src.ref(ipText)}(r.buf, s, r.pos); if (t === undefined) { ${bad} } ${v}.push(t); break; }`);
  } else if (f.type === 'string') {
    src.cases.push(`case ${tagOf(f.id, WIRE_LEN)}: (${v} ??= []).push(r.string()); break;`);
  } else listNumberCases(src, owner, key, f, j);
}

/** Varints, packed or not; enums are converted as they come (their first bad value is the error). */
function listNumberCases(src: Source, owner: string, key: string, f: FieldJson, j: number): void {
  const v = `v${j}`;
  const signed = f.type !== 'uint32';
  const conv = scalarConv(owner, key, f);
  if (conv === undefined) {
    src.cases.push(`case ${tagOf(f.id, WIRE_VARINT)}: (${v} ??= []).push(${readExpr(f)}); break;`);
    src.cases.push(`case ${tagOf(f.id, WIRE_LEN)}: r.packed(${v} ??= [], ${signed}); break;`);
    return;
  }
  const names = new Map<number, unknown>();
  for (const n of Object.values((defs[f.type] as { values: Record<string, number> }).values)) {
    try {
      names.set(n, conv(n));
    } catch {
      // not a value of the TS type: left out, so reading it records the converter's error
    }
  }
  const table = src.ref(names);
  const convert = `const n = ${v}[q]; const t = ${table}.get(n); if (t === undefined) { ${recordAt(j, `${src.ref(errorOf)}(${src.ref(conv)}, n, q)`)} } ${v}[q] = t;`;
  const each = `for (let q = from; q < ${v}.length; q++) { ${convert} }`;
  src.cases.push(`case ${tagOf(f.id, WIRE_VARINT)}: { ${v} ??= []; const from = ${v}.length; ${v}.push(${readExpr(f)}); ${each} break; }`);
  src.cases.push(`case ${tagOf(f.id, WIRE_LEN)}: { ${v} ??= []; const from = ${v}.length; r.packed(${v}, ${signed}); ${each} break; }`);
}

function listPlan(src: Source, owner: string, key: string, f: FieldJson, j: number, flag: FieldJson | undefined): void {
  src.locals.push(`let v${j}, f${j} = false;`);
  if (flag) src.cases.push(`case ${tagOf(flag.id, WIRE_VARINT)}: f${j} = r.bool(); break;`);
  if (f.keyType) mapCase(src, f, j);
  else listCases(src, owner, key, f, j);
  const pre = f.keyType ? '' : `if (errs !== undefined && errs[${j}] !== undefined) throw errs[${j}];`;
  const value = f.keyType ? `v${j} ?? {}` : `v${j} ?? []`;
  src.plans.push({ key, pre, ...(flag ? { cond: `f${j}` } : {}), entries: [[key, value]] });
}

/** A map entry: key 1, value 2; entries with a key seen before replace its value. */
function mapCase(src: Source, f: FieldJson, j: number): void {
  const value = { type: f.type, id: 2 };
  if (f.keyType !== 'string' || isMessage(value) || isEnum(defs[f.type])) throw new Error(`controlplane-reader: unsupported map ${f.keyType} -> ${f.type}`);
  src.cases.push(`case ${tagOf(f.id, WIRE_LEN)}: { v${j} ??= {}; const outer = r.len; const stop = r.enter(); let k = '', x = ${f.type === 'string' ? "''" : '0'};
      while (r.pos < stop) { const t2 = r.tag(); if (t2 === 10) k = r.string(); else if (t2 === ${tagOf(2, wireOf(value))}) x = ${readExpr(value)}; else r.skipType(t2 & 7, depth, t2 >>> 3); }
      r.leave(stop, outer); v${j}[k] = x; break; }`);
}

/** A oneof of scalars: one TS key, the last member read wins. */
function oneofScalarPlan(src: Source, owner: string, name: string, members: readonly string[], fields: Record<string, FieldJson>, j: number): void {
  src.locals.push(`let v${j}, m${j} = 0;`);
  const choices: string[] = [];
  members.forEach((member, k) => {
    const f = fields[member] as FieldJson;
    src.cases.push(`case ${tagOf(f.id, wireOf(f))}: v${j} = ${readExpr(f)}; m${j} = ${k + 1}; break;`);
    const conv = scalarConv(owner, member, f);
    choices.push(`m${j} === ${k + 1} ? ${conv ? `${src.ref(conv)}(v${j})` : `v${j}`}`);
  });
  src.plans.push({ key: name, pre: '', cond: `m${j} !== 0`, entries: [[name, `${choices.join(' : ')} : undefined`]] });
}

/** A oneof of messages: `kind` (the message name) and the value; the last member read wins, a repeated one merges. */
function oneofMessagePlan(src: Source, owner: string, name: string, members: readonly string[], fields: Record<string, FieldJson>, j: number): void {
  src.locals.push(`let v${j}, x${j}, m${j} = -1, b${j} = 0, c${j} = 0, a${j};`);
  const types = members.map((m) => (fields[m] as FieldJson).type);
  members.forEach((member, k) => {
    const f = fields[member] as FieldJson;
    const keep = `if (m${j} === ${k}) (a${j} ??= [b${j}, c${j}]).push(from, stop); else { m${j} = ${k}; v${j} = t; x${j} = te; b${j} = from; c${j} = stop; a${j} = undefined; }`;
    src.cases.push(`case ${tagOf(f.id, WIRE_LEN)}: { ${nestedRead(src, f, keep, '')} break; }`);
  });
  const missing = `new ShapeError('MISSING_FIELD', ${JSON.stringify(`${owner} carries no ${name}`)}, undefined)`;
  const reads = src.ref(types.map((t) => readerOf(t)));
  const pre = `if (m${j} === -1) throw within(${missing}, ${JSON.stringify(name)});
    if (a${j} !== undefined) { const m = ${src.ref(merged)}(${reads}[m${j}], r.buf, a${j}, depth + 1); v${j} = m.v; x${j} = m.x; }
    if (x${j} !== undefined) throw within(x${j}, ${JSON.stringify(name)});`;
  src.plans.push({ key: '', pre, entries: [['kind', `${src.ref(types)}[m${j}]`], [name, `v${j}`]] });
}

/** The TS keys of a message in the codec's order (oneofs, then fields; `hasX` flags go with `x`). */
function planMessage(src: Source, type: string): void {
  const d = defs[type] as TypeJson | undefined;
  if (!d || isEnum(d)) throw new Error(`no message ${type} in the controlplane descriptor`);
  const inOneof = new Set<string>();
  for (const [name, o] of Object.entries(d.oneofs ?? {})) {
    if (name.startsWith('_')) continue; // the synthetic oneof of a proto3 `optional` field
    for (const m of o.oneof) inOneof.add(m);
    const byMessage = o.oneof.every((m) => defs[(d.fields[m] as FieldJson).type] !== undefined);
    (byMessage ? oneofMessagePlan : oneofScalarPlan)(src, type, name, o.oneof, d.fields, src.plans.length);
  }
  for (const [key, f] of Object.entries(d.fields)) {
    if (inOneof.has(key)) continue;
    const marks = key.startsWith('has') && f.type === 'bool' && d.fields[`${key[3]?.toLowerCase()}${key.slice(4)}`] !== undefined;
    if (marks) continue; // read with the field it marks
    const flag = d.fields[`has${key[0]?.toUpperCase()}${key.slice(1)}`];
    const j = src.plans.length;
    if (f.rule === 'repeated' || f.keyType) listPlan(src, type, key, f, j, flag);
    else if (isMessage(f)) messagePlan(src, type, key, f, j);
    else scalarPlan(src, type, key, f, j);
  }
}

/** Build the object: the keys before the first optional one in a literal, the rest assigned in order. */
function assembly(plans: readonly PlanCode[]): string {
  const lines: string[] = [];
  let literal = 0;
  while (literal < plans.length && (plans[literal] as PlanCode).cond === undefined) literal++;
  const temps: string[] = [];
  plans.slice(0, literal).forEach((p, j) => {
    lines.push(`i = ${j}; ${p.pre}`);
    p.entries.forEach(([key, expr], k) => {
      lines.push(`const t${j}_${k} = ${expr};`);
      temps.push(`${JSON.stringify(key)}: t${j}_${k}`);
    });
  });
  lines.push(`const o = { ${temps.join(', ')} };`);
  plans.slice(literal).forEach((p, k) => {
    const body = `${p.pre} ${p.entries.map(([key, expr]) => `o[${JSON.stringify(key)}] = ${expr};`).join(' ')}`;
    lines.push(`i = ${literal + k}; ${p.cond === undefined ? body : `if (${p.cond}) { ${body} }`}`);
  });
  return lines.join('\n    ');
}

/**
 * A message's reader as code of its own (fields in locals, a switch on the tag, the object built
 * at the end), as the writer's: no per-field closures or keyed loads on the hot path.
 */
function generatedReader(type: string): Read {
  const src = new Source();
  planMessage(src, type);
  const source = `return function read${type.replace(/\W/g, '_')}(r, end, depth) {
  let errs;
  ${src.locals.join('\n  ')}
  while (r.pos < end) {
    const tag = r.tag();
    switch (tag) {
      ${src.cases.join('\n      ')}
      default: r.skipType(tag & 7, depth, tag >>> 3);
    }
  }
  let i = 0;
  try {
    ${assembly(src.plans)}
    return o;
  } catch (e) {
    throw within(e, keys[i]);
  }
};`;
  // Generated from the compiled-in descriptor only, as the writer and protobufjs' own codegen are.
  const make = new Function('within', 'ShapeError', 'keys', ...src.names, source) as (...args: unknown[]) => Read;
  return make(within, ShapeError, src.plans.map((p) => p.key), ...src.values);
}

const readers = new Map<string, Read>();

/** The generated reader of a message type (built on first use). */
function readerOf(type: string): Read {
  const known = readers.get(type);
  if (known) return known;
  // A type nested in itself finds this forwarder while its fields are planned.
  const slot: { read?: Read } = {};
  readers.set(type, (r, end, depth) => (slot.read as Read)(r, end, depth));
  const read = generatedReader(type);
  slot.read = read;
  readers.set(type, read);
  return read;
}

// ---- public ---------------------------------------------------------------------------------

/** A message type's decoder: bytes to the TS value. Throws ControlplaneCodecError (MALFORMED_MESSAGE for broken bytes). */
function messageDecoder<T>(type: string): (bytes: Uint8Array) => T {
  const reader = new WireReader(EMPTY);
  return (bytes) => {
    const buf = Array.isArray(bytes) ? new Uint8Array(bytes) : bytes;
    if (!(buf instanceof Uint8Array)) throw new ControlplaneCodecError('MALFORMED_MESSAGE', `cannot decode ${type}: illegal buffer`, '', undefined);
    reader.reset(buf);
    try {
      return readerOf(type)(reader, buf.length, 0) as T;
    } catch (e) {
      if (e instanceof ShapeError) throw e.toCodecError('');
      if (e instanceof WireError) throw new ControlplaneCodecError('MALFORMED_MESSAGE', `cannot decode ${type}: ${e.message}`, '', buf.length);
      throw e;
    } finally {
      reader.reset(EMPTY); // hold no frame after the call
    }
  };
}

/** Parse a watch event (no framing). Throws ControlplaneCodecError on malformed or invalid input. */
export const decodeWatchEvent = messageDecoder<cp.WatchEvent>('WatchEvent');
/** Parse a NetworkPolicy. */
export const decodeNetworkPolicy = messageDecoder<cp.NetworkPolicy>('NetworkPolicy');
/** Parse an AddressGroup. */
export const decodeAddressGroup = messageDecoder<cp.AddressGroup>('AddressGroup');
/** Parse an AppliedToGroup. */
export const decodeAppliedToGroup = messageDecoder<cp.AppliedToGroup>('AppliedToGroup');
/** Parse a NetworkPolicyStatus. */
export const decodeNetworkPolicyStatus = messageDecoder<cp.NetworkPolicyStatus>('NetworkPolicyStatus');
/** Parse an AgentInfo. */
export const decodeAgentInfo = messageDecoder<cp.AgentInfo>('AgentInfo');
