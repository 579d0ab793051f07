// The CIDR block type and the inclusive address range type.
import { CidrError } from './errors';
import { Ip, familyBits, familyMax, inspectCustom, parseIp, type IpFamily } from './ip';

/** Largest number of blocks {@link Cidr.split} returns at once; use {@link Cidr.subnets} beyond. */
export const MAX_SPLIT = 1 << 20;

const hostMask = (family: IpFamily, prefix: number): bigint => (1n << BigInt(familyBits(family) - prefix)) - 1n;

/**
 * A CIDR block, always normalized (host bits cleared). `10.1.2.3/24` parses to `10.1.2.0/24`
 * unless `strict` is asked for.
 */
export class Cidr {
  /** Network address as a raw value. */
  readonly base: bigint;

  /** @throws CidrError INVALID_PREFIX, HOST_BITS_SET (strict) */
  constructor(
    readonly family: IpFamily,
    base: bigint,
    readonly prefix: number,
    strict = false,
  ) {
    const bits = familyBits(family);
    if (!Number.isInteger(prefix) || prefix < 0 || prefix > bits) {
      throw new CidrError('INVALID_PREFIX', `prefix length ${prefix} is not in 0..${bits}`, prefix);
    }
    if (base < 0n || base > familyMax(family)) {
      throw new CidrError('OUT_OF_RANGE', `value ${base} is not an IPv${family} address`, base);
    }
    const masked = base & ~hostMask(family, prefix);
    if (strict && masked !== base) {
      throw new CidrError(
        'HOST_BITS_SET',
        `${new Ip(family, base).toString()}/${prefix} has host bits set (network is ${new Ip(family, masked).toString()}/${prefix})`,
        `${new Ip(family, base).toString()}/${prefix}`,
      );
    }
    this.base = masked;
  }

  /** Parses `addr/prefix`; see {@link parseCidr}. */
  static parse(text: string, options?: ParseCidrOptions): Cidr {
    return parseCidr(text, options);
  }

  /** The block of `prefix` bits containing `ip`. */
  static of(ip: Ip, prefix: number): Cidr {
    return new Cidr(ip.family, ip.value, prefix);
  }

  get bits(): number {
    return familyBits(this.family);
  }
  /** Number of addresses in the block. */
  get size(): bigint {
    return 1n << BigInt(this.bits - this.prefix);
  }
  /** Network address (first address of the block). */
  get first(): Ip {
    return new Ip(this.family, this.base);
  }
  /** Last address of the block (the IPv4 broadcast address). */
  get last(): Ip {
    return new Ip(this.family, this.base | hostMask(this.family, this.prefix));
  }
  /** Raw value of the last address. */
  get lastValue(): bigint {
    return this.base | hostMask(this.family, this.prefix);
  }

  /**
   * The `n`th address of the block, 0 = network address; negative counts from the end
   * (-1 = last). @throws CidrError OUT_OF_RANGE
   */
  nth(n: bigint | number): Ip {
    const i = BigInt(n);
    const off = i < 0n ? this.size + i : i;
    if (off < 0n || off >= this.size) {
      throw new CidrError('OUT_OF_RANGE', `address #${i} is outside ${this.toString()} (${this.size} addresses)`, n);
    }
    return new Ip(this.family, this.base + off);
  }

  /**
   * First address a host may use: network + 1, except in /31, /32, /127 and /128 where every
   * address is usable (RFC 3021). This is the gateway of a node subnet.
   */
  firstUsable(): Ip {
    return this.prefix >= this.bits - 1 ? this.first : this.nth(1);
  }

  /** The gateway convention of Antrea and host-local: {@link Cidr.firstUsable}. */
  gateway(): Ip {
    return this.firstUsable();
  }

  /**
   * Last address a host may use: IPv4 excludes the broadcast address (except /31, /32);
   * IPv6 has no broadcast, so it is the last address.
   */
  lastUsable(): Ip {
    return this.family === 4 && this.prefix < 31 ? this.nth(-2) : this.last;
  }

  /** True when the address or the whole block lies inside this block. */
  contains(x: Ip | Cidr): boolean {
    if (x.family !== this.family) return false;
    if (x instanceof Ip) return (x.value & ~hostMask(this.family, this.prefix)) === this.base;
    return x.prefix >= this.prefix && (x.base & ~hostMask(this.family, this.prefix)) === this.base;
  }

  /** True when the two blocks share at least one address. */
  overlaps(other: Cidr): boolean {
    return this.contains(other) || other.contains(this);
  }

  /**
   * All sub-blocks of length `prefix`, in order. @throws CidrError INVALID_PREFIX when shorter
   * than this block's, TOO_MANY beyond {@link MAX_SPLIT} blocks.
   */
  split(prefix: number): Cidr[] {
    this.checkSubPrefix(prefix);
    if (prefix - this.prefix > 20 && 1n << BigInt(prefix - this.prefix) > BigInt(MAX_SPLIT)) {
      throw new CidrError('TOO_MANY', `${this.toString()} splits into more than ${MAX_SPLIT} /${prefix} blocks`, prefix);
    }
    return [...this.subnets(prefix)];
  }

  /** Lazily yields the sub-blocks of length `prefix`, in order. */
  *subnets(prefix: number): Generator<Cidr> {
    this.checkSubPrefix(prefix);
    const step = 1n << BigInt(this.bits - prefix);
    for (let b = this.base; b <= this.lastValue; b += step) yield new Cidr(this.family, b, prefix);
  }

  /** The adjacent block of the same size after this one, or undefined at the end of the space. */
  next(): Cidr | undefined {
    const b = this.lastValue + 1n;
    return b > familyMax(this.family) ? undefined : new Cidr(this.family, b, this.prefix);
  }

  /** The adjacent block of the same size before this one, or undefined at the start. */
  prev(): Cidr | undefined {
    return this.base === 0n ? undefined : new Cidr(this.family, this.base - this.size, this.prefix);
  }

  /** The block as an inclusive range. */
  toRange(): IpRange {
    return new IpRange(this.first, this.last);
  }

  /** Orders v4 before v6, then by network address, then shorter prefix first. */
  compare(other: Cidr): number {
    if (this.family !== other.family) return this.family - other.family;
    if (this.base !== other.base) return this.base < other.base ? -1 : 1;
    return this.prefix - other.prefix;
  }

  equals(other: Cidr): boolean {
    return this.family === other.family && this.base === other.base && this.prefix === other.prefix;
  }

  toString(): string {
    return `${this.first.toString()}/${this.prefix}`;
  }

  /** The canonical text, so JSON.stringify writes `"10.0.0.0/24"`. */
  toJSON(): string {
    return this.toString();
  }

  /** console.log / util.inspect show `Cidr<10.0.0.0/24>`. */
  [inspectCustom](): string {
    return `Cidr<${this.toString()}>`;
  }

  private checkSubPrefix(prefix: number): void {
    if (!Number.isInteger(prefix) || prefix < this.prefix || prefix > this.bits) {
      throw new CidrError('INVALID_PREFIX', `cannot split ${this.toString()} into /${prefix} blocks`, prefix);
    }
  }
}

/** Options of {@link parseCidr}. */
export interface ParseCidrOptions {
  /** Refuse host bits (`10.0.0.1/24`) instead of clearing them. Default false. */
  strict?: boolean;
  /** Accept a bare address as a /32 or /128. Default false. */
  allowBareIp?: boolean;
  /** Where the text came from, for error messages (`spec.ipBlock.cidr`). */
  path?: string;
}

/**
 * Parses `addr/prefix` (v4 or v6) into a normalized {@link Cidr}.
 * @throws CidrError INVALID_CIDR, INVALID_PREFIX, HOST_BITS_SET, naming the text
 */
export function parseCidr(text: string, options: ParseCidrOptions = {}): Cidr {
  const { path } = options;
  if (typeof text !== 'string') throw new CidrError('INVALID_CIDR', `not a CIDR: ${String(text)}`, text, path);
  const s = text.trim();
  const slash = s.indexOf('/');
  if (slash < 0) {
    if (options.allowBareIp) {
      const ip = parseIp(s, path);
      return new Cidr(ip.family, ip.value, ip.bits);
    }
    throw new CidrError('INVALID_CIDR', `"${text}" is not a CIDR (missing /prefix)`, text, path);
  }
  let ip: Ip;
  try {
    ip = parseIp(s.slice(0, slash));
  } catch {
    throw new CidrError('INVALID_CIDR', `"${text}" is not a CIDR (bad address)`, text, path);
  }
  const p = s.slice(slash + 1);
  if (!/^\d{1,3}$/.test(p) || Number(p) > ip.bits) {
    throw new CidrError('INVALID_PREFIX', `"${text}" has an invalid prefix length for IPv${ip.family}`, text, path);
  }
  try {
    return new Cidr(ip.family, ip.value, Number(p), options.strict ?? false);
  } catch (e) {
    if (e instanceof CidrError) throw new CidrError(e.code, e.message, text, path);
    throw e;
  }
}

/** An inclusive range of addresses of one family, `first <= last`. */
export class IpRange {
  /** @throws CidrError FAMILY_MISMATCH, INVALID_RANGE (first after last) */
  constructor(
    readonly first: Ip,
    readonly last: Ip,
  ) {
    if (first.family !== last.family) {
      throw new CidrError('FAMILY_MISMATCH', `range ${first.toString()}-${last.toString()} mixes families`, `${first.toString()}-${last.toString()}`);
    }
    if (first.value > last.value) {
      throw new CidrError('INVALID_RANGE', `range ${first.toString()}-${last.toString()} ends before it starts`, `${first.toString()}-${last.toString()}`);
    }
  }

  /** Parses `first-last`. @throws CidrError */
  static parse(text: string, path?: string): IpRange {
    const parts = typeof text === 'string' ? text.split('-') : [];
    if (parts.length !== 2) throw new CidrError('INVALID_RANGE', `"${String(text)}" is not a range "first-last"`, text, path);
    try {
      return new IpRange(parseIp(parts[0] ?? '', path), parseIp(parts[1] ?? '', path));
    } catch (e) {
      if (e instanceof CidrError) throw new CidrError(e.code, `${e.message} in range "${text}"`, text, path);
      throw e;
    }
  }

  get family(): IpFamily {
    return this.first.family;
  }
  get size(): bigint {
    return this.last.value - this.first.value + 1n;
  }

  contains(x: Ip | IpRange | Cidr): boolean {
    if (x.family !== this.family) return false;
    if (x instanceof Ip) return x.value >= this.first.value && x.value <= this.last.value;
    const r = x instanceof Cidr ? x.toRange() : x;
    return r.first.value >= this.first.value && r.last.value <= this.last.value;
  }

  /** The `n`th address (0 = first; negative from the end). @throws CidrError OUT_OF_RANGE */
  nth(n: bigint | number): Ip {
    const i = BigInt(n);
    const off = i < 0n ? this.size + i : i;
    if (off < 0n || off >= this.size) throw new CidrError('OUT_OF_RANGE', `address #${i} is outside ${this.toString()}`, n);
    return this.first.add(off);
  }

  /** Fewest CIDR blocks covering exactly this range. */
  toCidrs(): Cidr[] {
    return rangeToCidrs(this.first, this.last);
  }

  /** `first-last`, the text {@link IpRange.parse} reads. */
  toString(): string {
    return `${this.first.toString()}-${this.last.toString()}`;
  }

  toJSON(): string {
    return this.toString();
  }

  /** console.log / util.inspect show `IpRange<10.0.0.5-10.0.0.12>`. */
  [inspectCustom](): string {
    return `IpRange<${this.toString()}>`;
  }
}

/** Fewest CIDR blocks that cover exactly `[first, last]`, in address order. */
export function rangeToCidrs(first: Ip, last: Ip): Cidr[] {
  const r = new IpRange(first, last);
  return valuesToCidrs(r.family, r.first.value, r.last.value);
}

/** Internal: greedy largest-aligned-block decomposition of raw values. */
export function valuesToCidrs(family: IpFamily, lo: bigint, hi: bigint, out: Cidr[] = []): Cidr[] {
  const bits = familyBits(family);
  let cur = lo;
  while (cur <= hi) {
    // Largest block aligned at cur: limited by cur's trailing zeros and by the remaining length.
    let size = cur === 0n ? 1n << BigInt(bits) : cur & -cur;
    while (size > hi - cur + 1n) size >>= 1n;
    let hostBits = 0;
    while (1n << BigInt(hostBits) < size) hostBits++;
    out.push(new Cidr(family, cur, bits - hostBits));
    cur += size;
  }
  return out;
}
