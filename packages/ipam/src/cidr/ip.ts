// One IP address type for v4 and v6: a family plus a bigint value; IPv6 parsed with ip-address, IPv4 read and IPv6 written by apis.
import { formatIpv6, ipToBytes } from '@switchyard/apis/types';
import { Address6 } from 'ip-address';
import { CidrError } from './errors';

/**
 * Key under which Node's util.inspect (and so console.log) looks for a custom rendering. A
 * registered symbol, so this pure module needs no `node:util` import.
 */
export const inspectCustom: unique symbol = Symbol.for('nodejs.util.inspect.custom') as typeof inspectCustom;

/** Address family. */
export type IpFamily = 4 | 6;

/** Number of bits in an address of the family. */
export const familyBits = (family: IpFamily): number => (family === 4 ? 32 : 128);
/** Largest address value of the family. */
export const familyMax = (family: IpFamily): bigint => (family === 4 ? 0xffffffffn : (1n << 128n) - 1n);

/**
 * An IPv4 or IPv6 address. Immutable; compare with {@link Ip.equals} / {@link Ip.compare}.
 * IPv4-mapped IPv6 text (`::ffff:1.2.3.4`) stays IPv6, as ip-address parses it.
 */
export class Ip {
  private text: string | undefined;

  /** @throws CidrError OUT_OF_RANGE when value does not fit the family. */
  constructor(
    readonly family: IpFamily,
    readonly value: bigint,
  ) {
    if (value < 0n || value > familyMax(family)) {
      throw new CidrError('OUT_OF_RANGE', `value ${value} is not an IPv${family} address`, value);
    }
  }

  /** Parses dotted-quad IPv4 or any RFC 4291 IPv6 text (no zone, no prefix). */
  static parse(text: string, path?: string): Ip {
    return parseIp(text, path);
  }

  /** Bits in this family (32 or 128). */
  get bits(): number {
    return familyBits(this.family);
  }

  /** The following address, or undefined past the end of the address space. */
  next(): Ip | undefined {
    return this.value === familyMax(this.family) ? undefined : new Ip(this.family, this.value + 1n);
  }

  /** The preceding address, or undefined before the start of the address space. */
  prev(): Ip | undefined {
    return this.value === 0n ? undefined : new Ip(this.family, this.value - 1n);
  }

  /** This address plus `n` (may be negative). @throws CidrError OUT_OF_RANGE on overflow. */
  add(n: bigint | number): Ip {
    return new Ip(this.family, this.value + BigInt(n));
  }

  /** Orders v4 before v6, then by value. */
  compare(other: Ip): number {
    if (this.family !== other.family) return this.family - other.family;
    return this.value < other.value ? -1 : this.value > other.value ? 1 : 0;
  }

  equals(other: Ip): boolean {
    return this.family === other.family && this.value === other.value;
  }

  /** Canonical text: dotted quad, or RFC 5952 IPv6 (as Go's net.IP prints it). */
  toString(): string {
    this.text ??= formatIp(this.family, this.value);
    return this.text;
  }

  /** The canonical text, so JSON.stringify writes `"10.0.0.1"`. */
  toJSON(): string {
    return this.toString();
  }

  /** console.log / util.inspect show `Ip<10.0.0.1>` rather than the raw bigint. */
  [inspectCustom](): string {
    return `Ip<${this.toString()}>`;
  }
}

const v4Text = /^\d{1,3}(\.\d{1,3}){3}$/;

/**
 * Parses one address. Rejects prefixes, zones and IPv4 octets with leading zeros (ambiguous:
 * some tools read them as octal).
 * @throws CidrError INVALID_IP naming the text.
 */
export function parseIp(text: string, path?: string): Ip {
  if (typeof text !== 'string') throw new CidrError('INVALID_IP', `not an IP address: ${String(text)}`, text, path);
  const s = text.trim();
  if (v4Text.test(s)) {
    // IPv4 through apis' reader rather than ip-address's Address4: 0.4 µs against 5.5 µs per
    // address (docs/ipam.md); the IPv4 test of test/cidr-properties.test.ts checks they agree.
    const b = ipToBytes(s);
    if (b?.length !== 4) throw new CidrError('INVALID_IP', `invalid IPv4 address "${text}"`, text, path);
    return new Ip(4, BigInt((((b[0] ?? 0) << 24) >>> 0) + ((b[1] ?? 0) << 16) + ((b[2] ?? 0) << 8) + (b[3] ?? 0)));
  }
  if (s.includes(':') && !s.includes('/') && !s.includes('%') && Address6.isValid(s)) {
    return new Ip(6, new Address6(s).bigInt());
  }
  throw new CidrError('INVALID_IP', `invalid IP address "${text}"`, text, path);
}

/** Formats a raw value of a family as canonical text. */
export function formatIp(family: IpFamily, value: bigint): string {
  if (family === 4) {
    const n = Number(value);
    return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
  }
  const bytes = new Uint8Array(16);
  const view = new DataView(bytes.buffer);
  view.setBigUint64(0, value >> 64n);
  view.setBigUint64(8, value & 0xffff_ffff_ffff_ffffn);
  return formatIpv6(bytes);
}
