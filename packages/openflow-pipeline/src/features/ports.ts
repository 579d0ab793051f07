/** Port ranges as bitmask matches: the fewest value/mask pairs covering [start, end]. */

/** One value/mask pair; mask 0xffff = exact port. */
export interface PortMask {
  value: number;
  mask: number;
}

/** Splits an inclusive port range into aligned power-of-two blocks, each one value/mask match. */
export function portRangeToMasks(start: number, end: number): PortMask[] {
  if (!Number.isInteger(start) || !Number.isInteger(end) || start < 0 || end > 0xffff || start > end) {
    throw new RangeError(`bad port range ${start}-${end}`);
  }
  const out: PortMask[] = [];
  let cur = start;
  while (cur <= end) {
    // Largest block aligned at cur that does not pass end.
    let size = cur === 0 ? 0x10000 : cur & -cur;
    while (cur + size - 1 > end) size >>= 1;
    out.push({ value: cur, mask: (0xffff & ~(size - 1)) >>> 0 });
    cur += size;
  }
  return out;
}
