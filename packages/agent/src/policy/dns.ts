/**
 * DNS wire format (RFC 1035) as far as FQDN policy needs it: decode a response carried in an
 * Ethernet/IPv4/UDP-or-TCP frame, and follow CNAME chains from each question to the addresses it
 * resolves to, with the TTL that bounds how long each address may be trusted. Pure and total:
 * every malformed input ends in a {@link DnsParseError}, never in an out-of-bounds read.
 */

/** Stable codes of {@link DnsParseError}. */
export type DnsParseErrorCode = 'TRUNCATED' | 'BAD_NAME' | 'NAME_LOOP' | 'NOT_DNS' | 'BAD_RDATA';

/** A frame or DNS message that cannot be decoded; `offset` is where in the input it went wrong. */
export class DnsParseError extends Error {
  constructor(
    readonly code: DnsParseErrorCode,
    message: string,
    /** Byte offset within the DNS message (or the frame, for NOT_DNS) where decoding stopped. */
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

/** Longest name on the wire (RFC 1035 2.3.4); also bounds how many pointers a name may follow. */
const MAX_NAME = 255;

class Reader {
  constructor(
    readonly b: Uint8Array,
    public at = 0,
  ) {}
  need(n: number, path: string): void {
    if (this.at + n > this.b.length) throw new DnsParseError('TRUNCATED', `needs ${n} more bytes`, this.at, path);
  }
  u8(path: string): number {
    this.need(1, path);
    return this.b[this.at++]!;
  }
  u16(path: string): number {
    this.need(2, path);
    const v = (this.b[this.at]! << 8) | this.b[this.at + 1]!;
    this.at += 2;
    return v;
  }
  u32(path: string): number {
    this.need(4, path);
    const v = ((this.b[this.at]! << 24) >>> 0) + ((this.b[this.at + 1]! << 16) | (this.b[this.at + 2]! << 8) | this.b[this.at + 3]!);
    this.at += 4;
    return v;
  }

  /** A possibly compressed name, lower-cased, without the trailing dot (root = ''). */
  name(path: string): string {
    const labels: string[] = [];
    let pos = this.at;
    let jumped = false;
    let length = 0;
    // Every pointer must go strictly backwards: that alone rules out loops.
    let limit = pos;
    for (;;) {
      if (pos >= this.b.length) throw new DnsParseError('TRUNCATED', 'name runs past the end', pos, path);
      const len = this.b[pos]!;
      if ((len & 0xc0) === 0xc0) {
        if (pos + 1 >= this.b.length) throw new DnsParseError('TRUNCATED', 'name pointer cut short', pos, path);
        const target = ((len & 0x3f) << 8) | this.b[pos + 1]!;
        if (target >= limit) throw new DnsParseError('NAME_LOOP', `name pointer to ${target} does not point backwards`, pos, path);
        if (!jumped) this.at = pos + 2;
        jumped = true;
        limit = target;
        pos = target;
        continue;
      }
      if ((len & 0xc0) !== 0) throw new DnsParseError('BAD_NAME', `label type 0x${len.toString(16)} is not supported`, pos, path);
      if (len === 0) {
        if (!jumped) this.at = pos + 1;
        break;
      }
      if (pos + 1 + len > this.b.length) throw new DnsParseError('TRUNCATED', 'label runs past the end', pos, path);
      length += len + 1;
      if (length > MAX_NAME) throw new DnsParseError('BAD_NAME', `name longer than ${MAX_NAME} bytes`, pos, path);
      let label = '';
      for (let i = pos + 1; i <= pos + len; i++) label += String.fromCharCode(this.b[i]!);
      labels.push(label.toLowerCase());
      pos += 1 + len;
    }
    return labels.join('.');
  }
}

function ipv6Text(b: Uint8Array): string {
  const words: string[] = [];
  for (let i = 0; i < 16; i += 2) words.push(((b[i]! << 8) | b[i + 1]!).toString(16));
  // Longest run of zero words becomes '::' (RFC 5952), when it is at least two words long.
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (words[i] !== '0') {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && words[j] === '0') j++;
    if (j - i > bestLen) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  if (best < 0) return words.join(':');
  return `${words.slice(0, best).join(':')}::${words.slice(best + bestLen).join(':')}`;
}

/** Decodes a DNS message (the UDP payload, or a TCP message without its length prefix). */
export function decodeDnsMessage(bytes: Uint8Array): DnsMessage {
  const r = new Reader(bytes);
  const id = r.u16('header.id');
  const flags = r.u16('header.flags');
  const qd = r.u16('header.qdcount');
  const an = r.u16('header.ancount');
  r.u16('header.nscount');
  r.u16('header.arcount');
  const questions: DnsMessage['questions'] = [];
  for (let i = 0; i < qd; i++) {
    const name = r.name(`questions[${i}].name`);
    questions.push({ name, type: r.u16(`questions[${i}].type`), class: r.u16(`questions[${i}].class`) });
  }
  const answers: DnsRecord[] = [];
  for (let i = 0; i < an; i++) {
    const p = `answers[${i}]`;
    const name = r.name(`${p}.name`);
    const type = r.u16(`${p}.type`);
    const cls = r.u16(`${p}.class`);
    // TTLs are unsigned 31-bit (RFC 2181 8): a set top bit means zero.
    const rawTtl = r.u32(`${p}.ttl`);
    const ttl = rawTtl > 0x7fffffff ? 0 : rawTtl;
    const rdlen = r.u16(`${p}.rdlength`);
    r.need(rdlen, `${p}.rdata`);
    const start = r.at;
    const base = { name, type, class: cls, ttl };
    if (type === RR_TYPE.A && cls === CLASS_IN) {
      if (rdlen !== 4) throw new DnsParseError('BAD_RDATA', `A record of ${rdlen} bytes`, start, `${p}.rdata`);
      answers.push({ ...base, kind: 'A', address: [...bytes.subarray(start, start + 4)].join('.') });
    } else if (type === RR_TYPE.AAAA && cls === CLASS_IN) {
      if (rdlen !== 16) throw new DnsParseError('BAD_RDATA', `AAAA record of ${rdlen} bytes`, start, `${p}.rdata`);
      answers.push({ ...base, kind: 'AAAA', address: ipv6Text(bytes.subarray(start, start + 16)) });
    } else if (type === RR_TYPE.CNAME) {
      const target = r.name(`${p}.rdata`);
      if (r.at !== start + rdlen) throw new DnsParseError('BAD_RDATA', 'CNAME target does not fill its rdata', start, `${p}.rdata`);
      answers.push({ ...base, kind: 'CNAME', target });
    } else {
      answers.push({ ...base, kind: 'other', data: bytes.slice(start, start + rdlen) });
    }
    r.at = start + rdlen;
  }
  return { id, qr: (flags & 0x8000) !== 0, opcode: (flags >> 11) & 0xf, tc: (flags & 0x0200) !== 0, rcode: flags & 0xf, questions, answers };
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
const PROTO_TCP = 6;
const PROTO_UDP = 17;

/** Where the DNS message sits in a frame, and over which transport. */
export interface DnsPayload {
  transport: 'udp' | 'tcp';
  /** The DNS message bytes (for TCP: without the 2-byte length prefix). */
  message: Uint8Array;
}

/**
 * Finds the DNS message in an Ethernet frame (IPv4, optional 802.1Q tag, UDP or TCP from port 53).
 * Returns undefined for TCP segments without a complete message (handshake, ACKs, a message split
 * across segments: those cannot be decoded alone and are passed on as they are). Throws
 * {@link DnsParseError} `NOT_DNS` for frames that are not DNS responses at all.
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
  if (type !== ETHERTYPE_IPV4) throw notDns(`ethertype 0x${type.toString(16)} is not IPv4`, 12);
  if (frame.length < ip + 20) throw notDns('IPv4 header cut short', ip);
  const ihl = (v.getUint8(ip) & 0x0f) * 4;
  const total = v.getUint16(ip + 2);
  const proto = v.getUint8(ip + 9);
  if (ihl < 20 || total < ihl) throw notDns('bad IPv4 header length', ip);
  // The frame may carry Ethernet padding after the IP datagram; the datagram may not be cut short.
  const end = ip + total;
  if (end > frame.length) throw notDns('IPv4 datagram longer than the frame', ip);
  if ((v.getUint16(ip + 6) & 0x1fff) !== 0 || (v.getUint16(ip + 6) & 0x2000) !== 0) throw notDns('IPv4 fragment', ip + 6);
  const l4 = ip + ihl;
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
  throw notDns(`IP protocol ${proto} is neither UDP nor TCP`, ip + 9);
}

/** A record to encode with {@link encodeDnsResponse}. */
export type DnsAnswerSpec =
  | { name: string; ttl: number; kind: 'A' | 'AAAA'; address: string }
  | { name: string; ttl: number; kind: 'CNAME'; target: string };

function nameBytes(name: string): number[] {
  const out: number[] = [];
  for (const label of name.split('.').filter((l) => l.length > 0)) {
    out.push(label.length);
    for (let i = 0; i < label.length; i++) out.push(label.charCodeAt(i));
  }
  out.push(0);
  return out;
}

function ipv6Bytes(text: string): number[] {
  const [head = '', tail] = text.split('::');
  const h = head ? head.split(':') : [];
  const t = tail !== undefined && tail !== '' ? tail.split(':') : [];
  const words = [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t].map((w) => parseInt(w, 16));
  return words.flatMap((w) => [w >> 8, w & 0xff]);
}

/**
 * Encodes a response to one IN question (no name compression), for tests and tools; the agent
 * itself never writes DNS.
 */
export function encodeDnsResponse(m: { id: number; question: string; qtype?: number; rcode?: number; answers: DnsAnswerSpec[] }): Uint8Array {
  const out: number[] = [m.id >> 8, m.id & 0xff, 0x81, 0x80 | (m.rcode ?? 0), 0, 1, m.answers.length >> 8, m.answers.length & 0xff, 0, 0, 0, 0];
  out.push(...nameBytes(m.question), 0, m.qtype ?? RR_TYPE.A, 0, CLASS_IN);
  for (const a of m.answers) {
    const type = a.kind === 'A' ? RR_TYPE.A : a.kind === 'AAAA' ? RR_TYPE.AAAA : RR_TYPE.CNAME;
    const rdata = a.kind === 'CNAME' ? nameBytes(a.target) : a.kind === 'A' ? a.address.split('.').map(Number) : ipv6Bytes(a.address);
    out.push(...nameBytes(a.name), 0, type, 0, CLASS_IN, (a.ttl >>> 24) & 0xff, (a.ttl >>> 16) & 0xff, (a.ttl >>> 8) & 0xff, a.ttl & 0xff);
    out.push(rdata.length >> 8, rdata.length & 0xff, ...rdata);
  }
  return Uint8Array.from(out);
}
