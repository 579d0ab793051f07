/**
 * Address sets for policy match flows: member IPs and ipBlocks as the fewest IPv4 CIDRs. The
 * policy feature works on numeric CIDR codes (`base * 64 + prefixLength`, exact in a double) so
 * that a million peer addresses cost no strings; text is made once per distinct match flow.
 */
import type { IPBlock } from '../state';
import { Cidr, Ip, aggregate, cidrExcept } from '@switchyard/ipam/cidr';

/** `a.b.c.d` as an unsigned 32-bit number, or -1 when the text is not a dotted quad. */
export function parseIpv4(s: string, end = s.length): number {
  let n = 0;
  let octet = 0;
  let digits = 0;
  let dots = 0;
  for (let i = 0; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c === 46) {
      if (digits === 0 || dots === 3) return -1;
      n = n * 256 + octet;
      octet = 0;
      digits = 0;
      dots++;
    } else if (c >= 48 && c <= 57) {
      octet = octet * 10 + (c - 48);
      if (++digits > 3 || octet > 255) return -1;
    } else return -1;
  }
  if (dots !== 3 || digits === 0) return -1;
  return n * 256 + octet;
}

/** Dotted-quad text of a 32-bit number. */
export function formatIpv4(n: number): string {
  return `${Math.floor(n / 16777216) & 0xff}.${(n >>> 16) & 0xff}.${(n >>> 8) & 0xff}.${n & 0xff}`;
}

/** The CIDR code of `base/len`. */
export const cidrCode = (base: number, len: number): number => base * 64 + len;
/** Base address of a CIDR code. */
export const codeBase = (code: number): number => Math.floor(code / 64);
/** Prefix length of a CIDR code. */
export const codeLen = (code: number): number => code % 64;

/**
 * A reusable buffer of inclusive IPv4 ranges: typed arrays that grow as needed, so collecting a
 * peer's addresses allocates nothing per address (or per rule, once the buffer is large enough).
 */
export class Ranges {
  los = new Float64Array(256);
  his = new Float64Array(256);
  n = 0;

  /** Empties the buffer (keeps its memory). */
  reset(): this {
    this.n = 0;
    return this;
  }

  /**
   * Adds `addr` or `addr/len` (IPv4) and returns true; IPv6 or non-addresses are skipped (no IPv4
   * match for them) and return false.
   */
  add(item: string): boolean {
    // One pass over the text (this runs for every peer address of every rule).
    let n = 0;
    let octet = 0;
    let digits = 0;
    let dots = 0;
    let len = 32;
    const end = item.length;
    let i = 0;
    for (; i < end; i++) {
      const c = item.charCodeAt(i);
      if (c >= 48 && c <= 57) {
        octet = octet * 10 + (c - 48);
        if (++digits > 3 || octet > 255) return false;
      } else if (c === 46) {
        if (digits === 0 || dots === 3) return false;
        n = n * 256 + octet;
        octet = 0;
        digits = 0;
        dots++;
      } else if (c === 47) break;
      else return false;
    }
    if (dots !== 3 || digits === 0) return false;
    n = n * 256 + octet;
    if (i < end) {
      len = 0;
      for (let j = i + 1; j < end; j++) {
        const c = item.charCodeAt(j);
        if (c < 48 || c > 57) return false;
        len = len * 10 + (c - 48);
      }
      if (i + 1 === end || len > 32) return false;
    }
    const size = 2 ** (32 - len);
    const lo = n - (n % size);
    if (this.n === this.los.length) this.grow();
    this.los[this.n] = lo;
    this.his[this.n++] = lo + size - 1;
    return true;
  }

  /** Adds every item. */
  addAll(items: Iterable<string>): this {
    for (const it of items) this.add(it);
    return this;
  }

  private grow(): void {
    const los = new Float64Array(this.los.length * 2);
    const his = new Float64Array(this.his.length * 2);
    los.set(this.los);
    his.set(this.his);
    this.los = los;
    this.his = his;
  }
}

/** Collects addresses/CIDRs into a fresh range buffer. */
export function toRanges(items: Iterable<string>): Ranges {
  return new Ranges().addAll(items);
}

/** Largest power-of-two block size aligned at `lo` (2^32 at 0). */
function alignment(lo: number): number {
  if (lo === 0) return 4294967296;
  return (lo & -lo) >>> 0 || 4294967296;
}

/** Merges ranges into the fewest CIDR codes (adjacent and overlapping ranges aggregate), ascending. */
export function aggregateRanges(r: Ranges): number[] {
  const n = r.n;
  if (n === 0) return [];
  let single = true;
  for (let i = 0; i < n && single; i++) single = r.los[i] === r.his[i];
  if (single) return aggregateAddresses(r.los.subarray(0, n));
  // General case (CIDRs among the items): sort range indices by start.
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  order.sort((a, b) => r.los[a]! - r.los[b]!);
  const out: number[] = [];
  let curLo = r.los[order[0]!]!;
  let curHi = r.his[order[0]!]!;
  for (let k = 1; k < n; k++) {
    const i = order[k]!;
    const lo = r.los[i]!;
    const hi = r.his[i]!;
    if (lo <= curHi + 1) {
      if (hi > curHi) curHi = hi;
    } else {
      pushBlocks(curLo, curHi, out);
      curLo = lo;
      curHi = hi;
    }
  }
  pushBlocks(curLo, curHi, out);
  return out;
}

/** Fast path of {@link aggregateRanges} for plain addresses: a native numeric sort, then runs. */
function aggregateAddresses(sorted: Float64Array): number[] {
  sorted.sort(); // in place: the caller's buffer is scratch
  const out: number[] = [];
  let i = 0;
  while (i < sorted.length) {
    const lo = sorted[i]!;
    let hi = lo;
    while (i + 1 < sorted.length && sorted[i + 1]! <= hi + 1) hi = sorted[++i]!;
    i++;
    if (hi === lo) out.push(cidrCode(lo, 32));
    else pushBlocks(lo, hi, out);
  }
  return out;
}

/** The fewest aligned CIDR blocks covering [lo, hi], as codes. */
function pushBlocks(lo0: number, hi: number, out: number[]): void {
  let lo = lo0;
  while (lo <= hi) {
    let size = alignment(lo);
    while (lo + size - 1 > hi) size /= 2;
    out.push(cidrCode(lo, 32 - Math.round(Math.log2(size))));
    lo += size;
  }
}

/** Text of a CIDR code: `a.b.c.d` for /32, else `a.b.c.d/len`. */
export function formatCidrCode(code: number): string {
  const len = codeLen(code);
  const a = formatIpv4(codeBase(code));
  return len === 32 ? a : `${a}/${len}`;
}

/** Merges IPv4 addresses/CIDRs into the fewest CIDRs (adjacent addresses aggregate). */
export function aggregateV4(items: Iterable<string>): string[] {
  return aggregateRanges(toRanges(items)).map(formatCidrCode);
}

/** An ipBlock as CIDRs: cidr minus its except list. */
export function ipBlockCidrs(b: IPBlock): string[] {
  if (b.except.length === 0) return [b.cidr];
  return cidrExcept(b.cidr, b.except).map((c) => c.toString());
}

/**
 * IPv6 addresses/CIDRs as the fewest CIDRs (`addr` for a /128), ascending. The IPv4 path above
 * works on numbers for scale; IPv6 peers are few today, so this one goes through @switchyard/ipam.
 */
export function aggregateV6(items: Iterable<string>): string[] {
  return aggregate(items).map((c) => (c.prefix === 128 ? c.first.toString() : c.toString()));
}

/**
 * Canonical text of IPv6 addresses and CIDRs (RFC 5952, host bits cleared, a /128 as the address;
 * undefined for text that is neither), cached: peers repeat the same addresses across groups and
 * rules, and parsing IPv6 text costs microseconds. Bounded: emptied past CANON_MAX entries.
 */
const CANON6 = new Map<string, string | null>();
const CANON_MAX = 1 << 18;

export function canonicalV6(text: string): string | undefined {
  let c = CANON6.get(text);
  if (c === undefined) {
    c = null;
    try {
      if (text.includes('/')) {
        const cidr = Cidr.parse(text);
        if (cidr.family === 6) c = cidr.prefix === 128 ? cidr.first.toString() : cidr.toString();
      } else {
        const ip = Ip.parse(text);
        if (ip.family === 6) c = ip.toString();
      }
    } catch {
      // not an address: no match for it, as IPv4 text that does not parse
    }
    if (CANON6.size >= CANON_MAX) CANON6.clear();
    CANON6.set(text, c);
  }
  return c ?? undefined;
}

/**
 * The distinct IPv6 addresses and CIDRs of a list, canonical and sorted: one match flow each, as
 * Antrea has (no aggregation: IPAM rarely hands out neighbouring IPv6 addresses to one group, and
 * an address inside a CIDR of the same clause only repeats its conjunction).
 */
export function distinctV6(items: readonly string[]): string[] {
  const out = new Set<string>();
  for (const x of items) {
    const c = canonicalV6(x);
    if (c !== undefined) out.add(c);
  }
  return [...out].sort();
}
