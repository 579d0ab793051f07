// The address texts a member carries (pod, Node, ExternalEntity), one spelling per address.
import type { ExternalEntity, Node, Pod } from '@switchyard/apis/types';
import { canonicalIp } from '@switchyard/apis/types';

/**
 * Canonical text of an address as the controlplane's wire form gives it back (RFC 5952 for
 * IPv6: `FD00:0:0::5` is `fd00::5`), so that a group member, an IP-owner lookup and an explain
 * query agree on one spelling. IPv4 text is kept as it is (dotted quads have one spelling; the
 * check costs one `includes`); text that is no address is kept too (validation is not ours here).
 */
export function ipText(text: string): string {
  return !text.includes(':') || isCanonicalIpv6(text) ? text : (canonicalIp(text) ?? text);
}

/**
 * True when `text` is IPv6 already in RFC 5952 form (what `bytesToIp` of apis writes), checked
 * in one scan without building bytes or strings. Addresses come canonical from kubelet and CNI
 * almost always; rewriting each through `canonicalIp` made a half dual-stack bulk load 1.7x and
 * the events 2.1x the IPv4-only ones (bench/dual-stack.ts, scenario 4). Dotted tails are left to
 * `canonicalIp` (false here).
 */
export function isCanonicalIpv6(text: string): boolean {
  const groups: number[] = [];
  const n = text.length;
  let gap = -1; // index in `groups` where `::` stands
  let i = 0;
  if (n >= 2 && text.charCodeAt(0) === 58 && text.charCodeAt(1) === 58) {
    gap = 0;
    i = 2;
  }
  while (i < n) {
    const start = i;
    let v = 0;
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      const d = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : -1;
      if (d < 0) break;
      v = v * 16 + d;
    }
    const len = i - start;
    // Lower-case hex, 1..4 digits, no leading zero.
    if (len === 0 || len > 4 || (len > 1 && text.charCodeAt(start) === 48)) return false;
    groups.push(v);
    if (i === n) break;
    if (text.charCodeAt(i) !== 58) return false; // upper case, a dotted tail, a zone, ...
    i++;
    if (i === n) return false; // a single trailing colon
    if (text.charCodeAt(i) === 58) {
      if (gap >= 0) return false;
      gap = groups.length;
      i++;
    }
  }
  const zeros = 8 - groups.length;
  if (gap < 0 ? zeros !== 0 : zeros < 2) return false;
  // `::` must stand for the first longest run of two or more zero groups, as formatIpv6 picks it.
  let bestStart = -1;
  let bestLen = 1;
  let run = 0;
  for (let k = 0; k < 8; k++) {
    const g = gap < 0 || k < gap ? groups[k] : k < gap + zeros ? 0 : groups[k - zeros];
    run = g === 0 ? run + 1 : 0;
    if (run > bestLen) {
      bestLen = run;
      bestStart = k + 1 - run;
    }
  }
  return gap < 0 ? bestStart < 0 : bestStart === gap && bestLen === zeros;
}

/** A pod's addresses, primary first (`status.podIPs`, else `status.podIP`): both families on a dual-stack pod. */
export function podIps(pod: Pod | undefined): string[] {
  const ips = pod?.status?.podIPs;
  if (ips) return ips.map((x) => ipText(x.ip));
  return pod?.status?.podIP ? [ipText(pod.status.podIP)] : [];
}

/** A Node's InternalIP and ExternalIP addresses, of both families on a dual-stack Node. */
export function nodeIps(n: Node | undefined): string[] {
  return (n?.status?.addresses ?? []).filter((a) => a.type === 'InternalIP' || a.type === 'ExternalIP').map((a) => ipText(a.address));
}

/** An ExternalEntity's endpoint addresses (an ExternalNode's interface IPs, IPv6 included). */
export function entityIps(ee: ExternalEntity | undefined): string[] {
  return (ee?.spec.endpoints ?? []).map((e) => ipText(e.ip));
}
