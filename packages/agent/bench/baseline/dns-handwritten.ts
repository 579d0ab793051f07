// The agent's DNS decoder as it was before dns-packet (hand-written RFC 1035 reader), kept only as
// the baseline of bench/dns-decode.ts. Not used by the agent. One change: records are built as
// object literals instead of `{ ...base, kind, ... }` (slow on Node 20's V8, and fixed the same
// way in the agent), so the comparison measures the decoding, not that.
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
    if (type === RR_TYPE.A && cls === CLASS_IN) {
      if (rdlen !== 4) throw new DnsParseError('BAD_RDATA', `A record of ${rdlen} bytes`, start, `${p}.rdata`);
      answers.push({ name, type, class: cls, ttl, kind: 'A', address: [...bytes.subarray(start, start + 4)].join('.') });
    } else if (type === RR_TYPE.AAAA && cls === CLASS_IN) {
      if (rdlen !== 16) throw new DnsParseError('BAD_RDATA', `AAAA record of ${rdlen} bytes`, start, `${p}.rdata`);
      answers.push({ name, type, class: cls, ttl, kind: 'AAAA', address: ipv6Text(bytes.subarray(start, start + 16)) });
    } else if (type === RR_TYPE.CNAME) {
      const target = r.name(`${p}.rdata`);
      if (r.at !== start + rdlen) throw new DnsParseError('BAD_RDATA', 'CNAME target does not fill its rdata', start, `${p}.rdata`);
      answers.push({ name, type, class: cls, ttl, kind: 'CNAME', target });
    } else {
      answers.push({ name, type, class: cls, ttl, kind: 'other', data: bytes.slice(start, start + rdlen) });
    }
    r.at = start + rdlen;
  }
  return { id, qr: (flags & 0x8000) !== 0, opcode: (flags >> 11) & 0xf, tc: (flags & 0x0200) !== 0, rcode: flags & 0xf, questions, answers };
}

