/**
 * The IPv6 formatter as apis, ipam and openflow each wrote it before they shared
 * `formatIpv6` (#30), kept unchanged as the oracle of test/ip.test.ts. `dottedMapped`: apis wrote
 * IPv4-mapped addresses with a dotted tail; ipam and openflow did not.
 */
export function previousIpv6Text(bytes: Uint8Array, dottedMapped: boolean): string {
  const g: number[] = [];
  for (let i = 0; i < 8; i++) g.push(((bytes[2 * i] ?? 0) << 8) | (bytes[2 * i + 1] ?? 0));
  if (dottedMapped && g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) {
    return `::ffff:${Array.from(bytes.subarray(12)).join('.')}`;
  }
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (g[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && g[j] === 0) j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = (xs: number[]): string => xs.map((x) => x.toString(16)).join(':');
  if (bestLen < 2) return hex(g);
  return `${hex(g.slice(0, bestStart))}::${hex(g.slice(bestStart + bestLen))}`;
}
