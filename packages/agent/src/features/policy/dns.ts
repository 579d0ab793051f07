/**
 * DNS wire format (RFC 1035) as far as FQDN policy needs it: decode a response carried in an
 * Ethernet/IPv4-or-IPv6/UDP-or-TCP frame, and follow CNAME chains from each question to the addresses it
 * resolves to, with the TTL that bounds how long each address may be trusted. Names and record
 * data are decoded by dns-packet. Pure and total: every malformed input ends in a
 * {@link DnsParseError}, never in an out-of-bounds read.
 */
import * as dnsPacket from 'dns-packet';

/** Stable codes of {@link DnsParseError}. */
export type DnsParseErrorCode = 'TRUNCATED' | 'BAD_NAME' | 'NAME_LOOP' | 'NOT_DNS' | 'BAD_RDATA';

/** A frame or DNS message that cannot be decoded; `offset` and `path` say which field. */
export class DnsParseError extends Error {
  constructor(
    readonly code: DnsParseErrorCode,
    message: string,
    /** Byte offset within the DNS message (or the frame, for NOT_DNS) of the field that failed (a name's first byte). */
    readonly offset: number,
    /** The field being decoded, e.g. `answers[2].rdata`. */
    readonly path: string,
  ) {
    super(`${message} at ${path} (offset ${offset})`);
    this.name = 'DnsParseError';
  }
}

/** Resource record types this module decodes; others are kept as raw bytes. */
export const RR_TYPE = { A: 1, CNAME: 5, AAAA: 28 } as const;
const CLASS_IN = 1;

/** One decoded resource record. */
export type DnsRecord = { name: string; type: number; class: number; ttl: number } & (
  | { kind: 'A'; address: string }
  | { kind: 'AAAA'; address: string }
  | { kind: 'CNAME'; target: string }
  | { kind: 'other'; data: Uint8Array }
);

/** A decoded message: header fields, questions and the answer section. */
export interface DnsMessage {
  id: number;
  /** True for a response. */
  qr: boolean;
  opcode: number;
  /** Set when the answer was truncated (the client retries over TCP). */
  tc: boolean;
  rcode: number;
  questions: { name: string; type: number; class: number }[];
  answers: DnsRecord[];
}

/**
 * The record codecs of dns-packet this module uses. The package exports them (`name`, `a`,
 * `aaaa`, `cname`), but its type definitions only describe whole-message encode/decode. Each
 * decode reads at `offset` (for record data: the RDLENGTH field) and leaves the bytes it
 * consumed in `decode.bytes`.
 */
interface Codec {
  decode: ((buf: Buffer, offset: number) => string) & { bytes: number };
}
const codec = dnsPacket as unknown as { name: Codec; a: Codec; aaaa: Codec; cname: Codec };

const HEADER_FIELDS = ['id', 'flags', 'qdcount', 'ancount', 'nscount', 'arcount'] as const;
/** Offsets of TYPE, CLASS, TTL and RDLENGTH after a record's owner name. */
const RR_FIELDS = [['type', 0, 2], ['class', 2, 2], ['ttl', 4, 4], ['rdlength', 8, 2]] as const;

/** What dns-packet's name decoder says, as a {@link DnsParseError} at the name's first byte. */
function nameError(e: unknown, at: number, path: string): DnsParseError {
  const why = e instanceof Error ? e.message : String(e);
  const code: DnsParseErrorCode = /overflow|out of range/i.test(why) ? 'TRUNCATED' : /pointer/.test(why) ? 'NAME_LOOP' : 'BAD_NAME';
  return new DnsParseError(code, `${why.replace(/^Cannot decode name \((.*)\)$/, 'name: $1')}`, at, path);
}

/** A possibly compressed name at `at`, lower-cased, without the trailing dot (root = ''), and its length on the wire. */
function readName(buf: Buffer, at: number, path: string): { name: string; bytes: number } {
  let name: string;
  try {
    name = codec.name.decode(buf, at);
  } catch (e) {
    throw nameError(e, at, path);
  }
  return { name: name === '.' ? '' : name.toLowerCase(), bytes: codec.name.decode.bytes };
}

/** Throws TRUNCATED naming the first of `fields` (name, offset, size) that does not fit before `end`. */
function needFields(fields: readonly (readonly [string, number, number])[], base: number, end: number, path: string): void {
  for (const [field, off, size] of fields) {
    if (base + off + size > end) throw new DnsParseError('TRUNCATED', `needs ${size} more bytes`, base + off, `${path}.${field}`);
  }
}

/**
 * Decodes a DNS message (the UDP payload, or a TCP message without its length prefix). Names and
 * record data are decoded by dns-packet; this walks the sections itself because dns-packet does not
 * check RDLENGTH against the record it decodes, and stops at the answer section (authority and
 * additional records are not needed, and are not parsed).
 */
export function decodeDnsMessage(bytes: Uint8Array): DnsMessage {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  needFields(HEADER_FIELDS.map((f, i) => [f, i * 2, 2] as const), 0, buf.length, 'header');
  const flags = buf.readUInt16BE(2);
  const qd = buf.readUInt16BE(4);
  const an = buf.readUInt16BE(6);
  let at = 12;
  const questions: DnsMessage['questions'] = [];
  for (let i = 0; i < qd; i++) {
    const p = `questions[${i}]`;
    const { name, bytes: n } = readName(buf, at, `${p}.name`);
    at += n;
    needFields([['type', 0, 2], ['class', 2, 2]], at, buf.length, p);
    questions.push({ name, type: buf.readUInt16BE(at), class: buf.readUInt16BE(at + 2) });
    at += 4;
  }
  const answers: DnsRecord[] = [];
  for (let i = 0; i < an; i++) {
    const p = `answers[${i}]`;
    const { name, bytes: n } = readName(buf, at, `${p}.name`);
    at += n;
    needFields(RR_FIELDS, at, buf.length, p);
    const type = buf.readUInt16BE(at);
    const cls = buf.readUInt16BE(at + 2);
    // TTLs are unsigned 31-bit (RFC 2181 8): a set top bit means zero.
    const rawTtl = buf.readUInt32BE(at + 4);
    const rdlen = buf.readUInt16BE(at + 8);
    const start = at + 10;
    if (start + rdlen > buf.length) throw new DnsParseError('TRUNCATED', `needs ${rdlen} more bytes`, start, `${p}.rdata`);
    const ttl = rawTtl > 0x7fffffff ? 0 : rawTtl;
    // Records are written out as literals: `{ ...base, kind }` costs microseconds on Node 20's V8.
    if (type === RR_TYPE.A && cls === CLASS_IN) {
      if (rdlen !== 4) throw new DnsParseError('BAD_RDATA', `A record of ${rdlen} bytes`, start, `${p}.rdata`);
      answers.push({ name, type, class: cls, ttl, kind: 'A', address: codec.a.decode(buf, at + 8) });
    } else if (type === RR_TYPE.AAAA && cls === CLASS_IN) {
      if (rdlen !== 16) throw new DnsParseError('BAD_RDATA', `AAAA record of ${rdlen} bytes`, start, `${p}.rdata`);
      answers.push({ name, type, class: cls, ttl, kind: 'AAAA', address: codec.aaaa.decode(buf, at + 8) });
    } else if (type === RR_TYPE.CNAME) {
      let target: string;
      try {
        target = codec.cname.decode(buf, at + 8);
      } catch (e) {
        throw nameError(e, start, `${p}.rdata`);
      }
      if (codec.cname.decode.bytes !== rdlen + 2) throw new DnsParseError('BAD_RDATA', 'CNAME target does not fill its rdata', start, `${p}.rdata`);
      answers.push({ name, type, class: cls, ttl, kind: 'CNAME', target: target === '.' ? '' : target.toLowerCase() });
    } else {
      answers.push({ name, type, class: cls, ttl, kind: 'other', data: bytes.slice(start, start + rdlen) });
    }
    at = start + rdlen;
  }
  return { id: buf.readUInt16BE(0), qr: (flags & 0x8000) !== 0, opcode: (flags >> 11) & 0xf, tc: (flags & 0x0200) !== 0, rcode: flags & 0xf, questions, answers };
}

/** An address an answer resolved to, with the seconds it may be trusted. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
  ttl: number;
}

/** What one question resolved to: every name along its CNAME chain, and the final addresses. */
export interface Resolution {
  /** The question name first, then each CNAME target in order. */
  names: string[];
  addresses: ResolvedAddress[];
}

/** Longest CNAME chain followed; real resolvers give up far earlier. */
const MAX_CHAIN = 16;

/**
 * Follows each question through the answer section: CNAME records from the question name on,
 * then the A/AAAA records of the last name. An address's TTL is the smallest TTL along its chain,
 * since the alias may change as soon as any link expires. Records not reachable from a question
 * (stray or poisoned additions) are ignored.
 */
export function resolveAnswers(msg: DnsMessage): Resolution[] {
  const out: Resolution[] = [];
  for (const q of msg.questions) {
    const names = [q.name];
    let ttl = Number.POSITIVE_INFINITY;
    let current = q.name;
    for (let hop = 0; hop < MAX_CHAIN; hop++) {
      const c = msg.answers.find((a): a is Extract<DnsRecord, { kind: 'CNAME' }> => a.kind === 'CNAME' && a.name === current);
      if (!c || names.includes(c.target)) break;
      ttl = Math.min(ttl, c.ttl);
      current = c.target;
      names.push(current);
    }
    const addresses: ResolvedAddress[] = [];
    for (const a of msg.answers) {
      if ((a.kind === 'A' || a.kind === 'AAAA') && a.name === current) {
        addresses.push({ address: a.address, family: a.kind === 'A' ? 4 : 6, ttl: Math.min(ttl, a.ttl) });
      }
    }
    out.push({ names, addresses });
  }
  return out;
}

const ETH_HLEN = 14;
const ETHERTYPE_VLAN = 0x8100;
const ETHERTYPE_IPV4 = 0x0800;
const ETHERTYPE_IPV6 = 0x86dd;
const PROTO_TCP = 6;
const PROTO_UDP = 17;

/** Where the DNS message sits in a frame, and over which transport. */
export interface DnsPayload {
  transport: 'udp' | 'tcp';
  /** The DNS message bytes (for TCP: without the 2-byte length prefix). */
  message: Uint8Array;
}

/** IPv6 extension headers a datagram may carry before its UDP or TCP header (RFC 8200 section 4). */
const IPV6_EXTENSIONS = new Set([0 /* hop-by-hop */, 43 /* routing */, 60 /* destination options */]);
const IPV6_FRAGMENT = 44;
const IPV6_HLEN = 40;

/**
 * Finds the DNS message in an Ethernet frame (IPv4 or IPv6, optional 802.1Q tag, UDP or TCP from
 * port 53). Returns undefined for TCP segments without a complete message (handshake, ACKs, a
 * message split across segments: those cannot be decoded alone and are passed on as they are).
 * Throws {@link DnsParseError} `NOT_DNS` for frames that are not DNS responses at all, fragments
 * included (a fragment alone cannot be decoded).
 */
export function dnsPayloadOfFrame(frame: Uint8Array): DnsPayload | undefined {
  const v = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
  const notDns = (why: string, at: number): DnsParseError => new DnsParseError('NOT_DNS', why, at, 'frame');
  if (frame.length < ETH_HLEN) throw notDns('shorter than an Ethernet header', 0);
  let ip = ETH_HLEN;
  let type = v.getUint16(12);
  if (type === ETHERTYPE_VLAN) {
    if (frame.length < ETH_HLEN + 4) throw notDns('VLAN tag cut short', 12);
    type = v.getUint16(16);
    ip += 4;
  }
  let proto: number;
  /** Offset of the field that holds `proto` (for the error naming it). */
  let protoAt: number;
  let l4: number;
  let end: number;
  if (type === ETHERTYPE_IPV4) {
    if (frame.length < ip + 20) throw notDns('IPv4 header cut short', ip);
    const ihl = (v.getUint8(ip) & 0x0f) * 4;
    const total = v.getUint16(ip + 2);
    protoAt = ip + 9;
    proto = v.getUint8(protoAt);
    if (ihl < 20 || total < ihl) throw notDns('bad IPv4 header length', ip);
    // The frame may carry Ethernet padding after the IP datagram; the datagram may not be cut short.
    end = ip + total;
    if (end > frame.length) throw notDns('IPv4 datagram longer than the frame', ip);
    if ((v.getUint16(ip + 6) & 0x1fff) !== 0 || (v.getUint16(ip + 6) & 0x2000) !== 0) throw notDns('IPv4 fragment', ip + 6);
    l4 = ip + ihl;
  } else if (type === ETHERTYPE_IPV6) {
    if (frame.length < ip + IPV6_HLEN) throw notDns('IPv6 header cut short', ip);
    end = ip + IPV6_HLEN + v.getUint16(ip + 4);
    if (end > frame.length) throw notDns('IPv6 payload longer than the frame', ip + 4);
    protoAt = ip + 6;
    proto = v.getUint8(protoAt);
    l4 = ip + IPV6_HLEN;
    // Walk the extension headers (each: next header, length in 8-byte units beyond the first 8).
    while (IPV6_EXTENSIONS.has(proto)) {
      if (l4 + 8 > end) throw notDns('IPv6 extension header cut short', l4);
      protoAt = l4;
      proto = v.getUint8(l4);
      l4 += 8 + v.getUint8(l4 + 1) * 8;
    }
    if (proto === IPV6_FRAGMENT) throw notDns('IPv6 fragment', protoAt);
  } else {
    throw notDns(`ethertype 0x${type.toString(16)} is neither IPv4 nor IPv6`, 12);
  }
  if (proto === PROTO_UDP) {
    if (end < l4 + 8) throw notDns('UDP header cut short', l4);
    if (v.getUint16(l4) !== 53) throw notDns('UDP source port is not 53', l4);
    return { transport: 'udp', message: frame.subarray(l4 + 8, end) };
  }
  if (proto === PROTO_TCP) {
    if (end < l4 + 20) throw notDns('TCP header cut short', l4);
    if (v.getUint16(l4) !== 53) throw notDns('TCP source port is not 53', l4);
    const data = l4 + (v.getUint8(l4 + 12) >> 4) * 4;
    if (data > end) throw notDns('TCP header longer than the segment', l4 + 12);
    if (end - data < 2) return undefined;
    const len = v.getUint16(data);
    if (data + 2 + len > end) return undefined;
    return { transport: 'tcp', message: frame.subarray(data + 2, data + 2 + len) };
  }
  throw notDns(`IP protocol ${proto} is neither UDP nor TCP`, protoAt);
}

/** A record to encode with {@link encodeDnsResponse}. */
export type DnsAnswerSpec =
  | { name: string; ttl: number; kind: 'A' | 'AAAA'; address: string }
  | { name: string; ttl: number; kind: 'CNAME'; target: string };

/**
 * Encodes a response to one IN question with dns-packet (no name compression), for tests and
 * tools; the agent itself never writes DNS.
 */
export function encodeDnsResponse(m: { id: number; question: string; qtype?: 'A' | 'AAAA' | 'CNAME'; rcode?: number; answers: DnsAnswerSpec[] }): Uint8Array {
  const answers: dnsPacket.Answer[] = m.answers.map((a) => ({ name: a.name, type: a.kind, class: 'IN', ttl: a.ttl, data: a.kind === 'CNAME' ? a.target : a.address }));
  const packet = dnsPacket.encode({
    id: m.id,
    type: 'response',
    flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | (m.rcode ?? 0),
    questions: [{ name: m.question, type: m.qtype ?? 'A', class: 'IN' }],
    answers,
  });
  return new Uint8Array(packet.buffer, packet.byteOffset, packet.byteLength);
}
