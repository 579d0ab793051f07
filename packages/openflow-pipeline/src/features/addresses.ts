/** Address sets for policy match flows: member IPs and ipBlocks as the fewest CIDRs. */
import type { IPBlock } from '../state';
import { cidrExcept } from '@switchyard/ipam/cidr';
import { ipv4ToInt } from './common';

const fmt = (n: number): string => `${n >>> 24}.${(n >>> 16) & 0xff}.${(n >>> 8) & 0xff}.${n & 0xff}`;

/** Merges IPv4 addresses/CIDRs into the fewest CIDRs (adjacent addresses aggregate). Fast path, no bigint. */
export function aggregateV4(items: Iterable<string>): string[] {
  const ranges: [number, number][] = [];
  for (const it of items) {
    if (it.includes(':')) continue;
    const [a, l] = it.split('/');
    const len = l === undefined ? 32 : Number(l);
    const base = ipv4ToInt(a!);
    const size = 2 ** (32 - len);
    const lo = len === 0 ? 0 : base - (base % size);
    ranges.push([lo, lo + size - 1]);
  }
  ranges.sort((x, y) => x[0] - y[0]);
  const merged: [number, number][] = [];
  for (const r of ranges) {
    const last = merged[merged.length - 1];
    if (last && r[0] <= last[1] + 1) last[1] = Math.max(last[1], r[1]);
    else merged.push([r[0], r[1]]);
  }
  const out: string[] = [];
  for (const [lo0, hi] of merged) {
    let lo = lo0;
    while (lo <= hi) {
      let size = lo === 0 ? 2 ** 32 : 2 ** Math.min(32, ctz(lo));
      while (lo + size - 1 > hi) size /= 2;
      const len = 32 - Math.log2(size);
      out.push(len === 32 ? fmt(lo) : `${fmt(lo)}/${len}`);
      lo += size;
    }
  }
  return out;
}

function ctz(n: number): number {
  let c = 0;
  while (c < 32 && n % 2 ** (c + 1) === 0) c++;
  return c;
}

/** An ipBlock as CIDRs: cidr minus its except list. */
export function ipBlockCidrs(b: IPBlock): string[] {
  if (b.except.length === 0) return [b.cidr];
  return cidrExcept(b.cidr, b.except).map((c) => c.toString());
}
