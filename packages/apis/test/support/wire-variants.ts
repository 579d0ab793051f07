/**
 * Other valid encodings of the same controlplane message, for comparing decoders: the writer always
 * packs repeated numbers, writes each field once and no unknown fields; other producers may not.
 * `variant` re-encodes a message (walking it with the descriptor) with unknown fields and groups
 * inserted, packed numbers unpacked or split, singular messages split into occurrences that merge,
 * scalars preceded by a stale value that the last one replaces, and known field numbers with a
 * wire type the schema does not expect (skipped as unknown).
 */
import protobuf from 'protobufjs/minimal.js';
import { defs, isEnum, type FieldJson, type TypeJson } from '../../src/controlplane-codec';

/** A small deterministic generator (the seed comes from fast-check, so failures replay). */
export function rng(seed: number): (n: number) => number {
  let s = seed >>> 0 || 1;
  return (n) => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) % n;
  };
}

type Rand = (n: number) => number;
const w = (): protobuf.Writer => protobuf.Writer.create();
const isMessage = (f: FieldJson): boolean => defs[f.type] !== undefined && !isEnum(defs[f.type]);
const packable = (f: FieldJson): boolean => f.rule === 'repeated' && !isMessage(f) && f.type !== 'string' && f.type !== 'bytes';

/** An unknown field (numbers above any the schema uses), sometimes a group with fields inside. */
function unknownField(rand: Rand): Uint8Array {
  const id = 1000 + rand(5000);
  const out = w();
  switch (rand(5)) {
    case 0:
      return out.uint32(id * 8).uint64(rand(2) ? 2 ** 40 + rand(1000) : rand(300)).finish();
    case 1:
      return out.uint32(id * 8 + 1).fixed64(rand(1 << 30)).finish();
    case 2:
      return out.uint32(id * 8 + 2).bytes(Uint8Array.from({ length: rand(6) }, () => rand(256))).finish();
    case 3:
      return out.uint32(id * 8 + 5).fixed32(rand(1 << 30)).finish();
    default:
      return out.uint32(id * 8 + 3).uint32(7 * 8).uint32(rand(100)).uint32(id * 8 + 4).finish();
  }
}

/** A stale earlier value of a scalar field (the later one wins) or the field under a wrong wire type (skipped). */
function decoy(f: FieldJson, rand: Rand): Uint8Array | undefined {
  if (f.rule === 'repeated' || f.keyType || isMessage(f)) return undefined;
  if (rand(2)) return w().uint32(f.id * 8 + 5).fixed32(rand(1000)).finish(); // no field here is fixed32
  if (f.type === 'string') return w().uint32(f.id * 8 + 2).string(`stale-${rand(10)}`).finish();
  if (f.type === 'bytes') return w().uint32(f.id * 8 + 2).bytes(new Uint8Array(rand(3) * 5)).finish();
  if (f.type === 'double') return w().uint32(f.id * 8 + 1).double(rand(100) / 3).finish();
  return w().uint32(f.id * 8).uint32(rand(50)).finish(); // enums too: a stale unknown value does not count
}

interface WireField {
  id: number;
  wire: number;
  /** The field's whole encoding (tag included). */
  bytes: Uint8Array;
  /** For length-delimited fields: the payload. */
  payload?: Uint8Array;
}

function fieldsOf(bytes: Uint8Array): WireField[] {
  const r = protobuf.Reader.create(bytes);
  const out: WireField[] = [];
  while (r.pos < r.len) {
    const start = r.pos;
    const tag = r.uint32();
    const wire = tag & 7;
    let payload: Uint8Array | undefined;
    if (wire === 2) payload = r.bytes();
    else r.skipType(wire);
    out.push({ id: tag >>> 3, wire, bytes: bytes.subarray(start, r.pos), ...(payload ? { payload } : {}) });
  }
  return out;
}

const lengthDelimited = (id: number, payload: Uint8Array): Uint8Array => w().uint32(id * 8 + 2).bytes(payload).finish();

/** Re-encode one known field (already with variants inside, if a message). */
function rewriteField(f: FieldJson, field: WireField, rand: Rand): Uint8Array[] {
  if (isMessage(f) && field.payload && !f.keyType) {
    const inner = variantOf(f.type, field.payload, rand);
    const parts = fieldsOf(inner);
    if (f.rule !== 'repeated' && parts.length > 1 && rand(3) === 0) {
      // One singular message as two occurrences: decoders merge them back.
      const cut = 1 + rand(parts.length - 1);
      return [lengthDelimited(f.id, concat(parts.slice(0, cut).map((p) => p.bytes))), lengthDelimited(f.id, concat(parts.slice(cut).map((p) => p.bytes)))];
    }
    return [lengthDelimited(f.id, inner)];
  }
  if (packable(f) && field.payload && rand(2)) {
    const r = protobuf.Reader.create(field.payload);
    const values: number[] = [];
    while (r.pos < r.len) values.push(f.type === 'uint32' ? r.uint32() : r.int32());
    // Unpacked, one field per value (negative int32 as ten bytes, as protobufjs writes them).
    return values.map((v) => (f.type === 'uint32' ? w().uint32(f.id * 8).uint32(v) : w().uint32(f.id * 8).int32(v)).finish());
  }
  return [field.bytes];
}

/** Another valid encoding of the `type` message in `bytes` (see the file header). */
export function variantOf(type: string, bytes: Uint8Array, rand: Rand): Uint8Array {
  const d = defs[type] as TypeJson;
  const byId = new Map(Object.values(d.fields).map((f) => [f.id, f]));
  const out: Uint8Array[] = [];
  for (const field of fieldsOf(bytes)) {
    if (rand(4) === 0) out.push(unknownField(rand));
    const f = byId.get(field.id);
    if (!f) {
      out.push(field.bytes);
      continue;
    }
    const stale = rand(4) === 0 ? decoy(f, rand) : undefined;
    if (stale) out.push(stale);
    out.push(...rewriteField(f, field, rand));
  }
  if (rand(4) === 0) out.push(unknownField(rand));
  return concat(out);
}

export function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
