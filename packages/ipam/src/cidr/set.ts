// Address sets as sorted disjoint intervals: the engine behind except-difference and aggregation.
import { Cidr, IpRange, parseCidr, valuesToCidrs } from './cidr';
import { CidrError } from './errors';
import { Ip, inspectCustom, parseIp, type IpFamily } from './ip';

/** Anything that names a set of addresses: an address, a block, a range, or their text. */
export type AddressLike = Ip | Cidr | IpRange | string;

type Interval = [lo: bigint, hi: bigint];

/** Parses text as a CIDR (`a/n`), a range (`a-b`) or a single address. */
export function parseAddressLike(text: string, path?: string): Cidr | IpRange | Ip {
  if (typeof text !== 'string') throw new CidrError('INVALID_IP', `not an address, CIDR or range: ${String(text)}`, text, path);
  if (text.includes('/')) return parseCidr(text, path === undefined ? {} : { path });
  if (text.includes('-')) return IpRange.parse(text, path);
  return parseIp(text, path);
}

function toInterval(x: AddressLike, path?: string): [IpFamily, bigint, bigint] {
  const v = typeof x === 'string' ? parseAddressLike(x, path) : x;
  if (v instanceof Ip) return [v.family, v.value, v.value];
  if (v instanceof Cidr) return [v.family, v.base, v.lastValue];
  return [v.family, v.first.value, v.last.value];
}

/** Sorts and merges overlapping or adjacent intervals. */
function normalize(list: Interval[]): Interval[] {
  list.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const out: Interval[] = [];
  for (const [lo, hi] of list) {
    const top = out[out.length - 1];
    if (top && lo <= top[1] + 1n) {
      if (hi > top[1]) top[1] = hi;
    } else out.push([lo, hi]);
  }
  return out;
}

function subtractIntervals(a: readonly Interval[], b: readonly Interval[]): Interval[] {
  const out: Interval[] = [];
  let j = 0;
  for (const [lo0, hi] of a) {
    let lo = lo0;
    while (j < b.length && (b[j] as Interval)[1] < lo) j++;
    let k = j;
    while (k < b.length && lo <= hi) {
      const [blo, bhi] = b[k] as Interval;
      if (blo > hi) break;
      if (blo > lo) out.push([lo, blo - 1n]);
      lo = bhi + 1n;
      k++;
    }
    if (lo <= hi) out.push([lo, hi]);
  }
  return out;
}

function intersectIntervals(a: readonly Interval[], b: readonly Interval[]): Interval[] {
  const out: Interval[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const [alo, ahi] = a[i] as Interval;
    const [blo, bhi] = b[j] as Interval;
    const lo = alo > blo ? alo : blo;
    const hi = ahi < bhi ? ahi : bhi;
    if (lo <= hi) out.push([lo, hi]);
    if (ahi < bhi) i++;
    else j++;
  }
  return out;
}

/**
 * An immutable set of addresses of both families, kept as sorted disjoint intervals, so
 * operations cost O(intervals), never O(addresses).
 */
export class IpSet {
  private constructor(
    private readonly v4: readonly Interval[],
    private readonly v6: readonly Interval[],
  ) {}

  /** The empty set. */
  static empty(): IpSet {
    return new IpSet([], []);
  }

  /**
   * The union of the given addresses, blocks and ranges (text is parsed; errors name the
   * element as `[index]`).
   */
  static from(items: Iterable<AddressLike>): IpSet {
    const v4: Interval[] = [];
    const v6: Interval[] = [];
    let i = 0;
    for (const item of items) {
      const [family, lo, hi] = toInterval(item, `[${i++}]`);
      (family === 4 ? v4 : v6).push([lo, hi]);
    }
    return new IpSet(normalize(v4), normalize(v6));
  }

  union(other: IpSet | Iterable<AddressLike>): IpSet {
    const o = other instanceof IpSet ? other : IpSet.from(other);
    return new IpSet(normalize([...this.v4, ...o.v4].map(([a, b]) => [a, b])), normalize([...this.v6, ...o.v6].map(([a, b]) => [a, b])));
  }

  subtract(other: IpSet | Iterable<AddressLike>): IpSet {
    const o = other instanceof IpSet ? other : IpSet.from(other);
    return new IpSet(subtractIntervals(this.v4, o.v4), subtractIntervals(this.v6, o.v6));
  }

  intersect(other: IpSet | Iterable<AddressLike>): IpSet {
    const o = other instanceof IpSet ? other : IpSet.from(other);
    return new IpSet(intersectIntervals(this.v4, o.v4), intersectIntervals(this.v6, o.v6));
  }

  /** True when the address is in the set (binary search). */
  has(ip: Ip): boolean {
    const list = ip.family === 4 ? this.v4 : this.v6;
    let lo = 0;
    let hi = list.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const [a, b] = list[mid] as Interval;
      if (ip.value < a) hi = mid - 1;
      else if (ip.value > b) lo = mid + 1;
      else return true;
    }
    return false;
  }

  /** Number of addresses in the set. */
  get size(): bigint {
    let n = 0n;
    for (const [lo, hi] of [...this.v4, ...this.v6]) n += hi - lo + 1n;
    return n;
  }

  get isEmpty(): boolean {
    return this.v4.length === 0 && this.v6.length === 0;
  }

  /** Maximal ranges, v4 first, in address order. */
  toRanges(): IpRange[] {
    const mk = (f: IpFamily, [lo, hi]: Interval) => new IpRange(new Ip(f, lo), new Ip(f, hi));
    return [...this.v4.map((r) => mk(4, r)), ...this.v6.map((r) => mk(6, r))];
  }

  /** The fewest CIDR blocks covering exactly the set, v4 first, in address order. */
  toCidrs(): Cidr[] {
    const out: Cidr[] = [];
    for (const [lo, hi] of this.v4) valuesToCidrs(4, lo, hi, out);
    for (const [lo, hi] of this.v6) valuesToCidrs(6, lo, hi, out);
    return out;
  }

  /** Maximal ranges joined by `, ` (a single address as itself); `''` for the empty set. */
  toString(): string {
    return this.toRanges()
      .map((r) => (r.size === 1n ? r.first.toString() : r.toString()))
      .join(', ');
  }

  /** The maximal ranges as text (`['10.0.0.0-10.0.0.6', '10.0.0.8']`). */
  toJSON(): string[] {
    return this.toRanges().map((r) => (r.size === 1n ? r.first.toString() : r.toString()));
  }

  /** console.log / util.inspect show `IpSet<10.0.0.0-10.0.0.6, 10.0.0.8>`. */
  [inspectCustom](): string {
    return `IpSet<${this.toString()}>`;
  }
}

/**
 * `cidr` minus every `except` block (a NetworkPolicy ipBlock), as the fewest CIDRs, in order.
 * Excepts outside `cidr` or of the other family are ignored, as Kubernetes does for overlap
 * beyond the block.
 */
export function cidrExcept(cidr: Cidr | string, except: Iterable<Cidr | string>): Cidr[] {
  return IpSet.from([cidr]).subtract(except).toCidrs();
}

/** Aggregates addresses, blocks and ranges (both families) into the fewest CIDRs covering exactly their union. */
export function aggregate(items: Iterable<AddressLike>): Cidr[] {
  return IpSet.from(items).toCidrs();
}
