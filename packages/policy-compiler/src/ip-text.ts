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
  return text.includes(':') ? (canonicalIp(text) ?? text) : text;
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
