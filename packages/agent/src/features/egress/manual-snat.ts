/**
 * The host's half of an Egress IP without a pool (Antrea's manual mode) on its owner. The IP is a
 * local address of the node there (the user put it on an interface), so the pool IPs' way cannot
 * serve: a packet OVS hands to the gateway with a local address as its source is dropped by the
 * host as a martian, and a reply to a local address is delivered to the host's own stack instead
 * of being routed back into OVS. So OVS SNATs the members to a stand-in link-local address of the
 * Egress's mark (`169.254.100.<mark>`, the pipeline's `EgressRule.snatIP`), routed into the gateway
 * like an Egress IP, and one host rule SNATs the stand-in to the egress IP on the way out
 * (`-s <stand-in>/32 -j SNAT --to-source <ip>` in nat chain SWITCHYARD-EGRESS). The host's
 * conntrack reverses it for the reply before routing, so the reply reaches the gateway addressed
 * to the stand-in, and OVS un-SNATs it to the pod.
 */
import { ipv4Of } from '../../ipv4';
import type { NodeNetwork } from '../../netops';

/** The nat chain holding the stand-in SNAT rules, jumped to first from POSTROUTING. */
export const MANUAL_SNAT_CHAIN = 'SWITCHYARD-EGRESS';

/** The stand-in address OVS SNATs an owned manual Egress IP's members to: one per mark (1..255). */
export function manualStandIn(mark: number): string {
  if (!Number.isInteger(mark) || mark < 1 || mark > 255) throw new RangeError(`Egress mark ${mark} is not in 1..255`);
  return `169.254.100.${mark}`;
}

/** One rule: traffic SNATed by OVS to `standIn` leaves the node from `ip`. */
export interface ManualSnat {
  standIn: string;
  ip: string;
}

/**
 * The `iptables-restore --noflush` input that makes the chain hold exactly these rules (declaring the
 * chain flushes it in the same commit, so no packet sees it half made). Values are checked IPv4.
 */
export function manualSnatRestore(rules: readonly ManualSnat[]): string {
  const lines = ['*nat', `:${MANUAL_SNAT_CHAIN} - [0:0]`];
  for (const r of [...rules].sort((a, b) => a.standIn.localeCompare(b.standIn, 'en', { numeric: true }))) {
    if (ipv4Of(r.standIn) === undefined) throw new TypeError(`stand-in ${JSON.stringify(r.standIn)} is not an IPv4 address`);
    if (ipv4Of(r.ip) === undefined) throw new TypeError(`spec.egressIP ${JSON.stringify(r.ip)} is not an IPv4 address`);
    lines.push(`-A ${MANUAL_SNAT_CHAIN} -s ${r.standIn}/32 -j SNAT --to-source ${r.ip}`);
  }
  lines.push('COMMIT', '');
  return lines.join('\n');
}

/** The chain and its jump (first in POSTROUTING, before the masquerade), then its rules, in the node's namespace. */
export async function syncManualSnat(net: Pick<NodeNetwork, 'runInNode'>, rules: readonly ManualSnat[]): Promise<void> {
  const input = manualSnatRestore(rules);
  await net.runInNode(
    `iptables -w -t nat -N "$1" 2>/dev/null; iptables -w -t nat -C POSTROUTING -j "$1" 2>/dev/null || iptables -w -t nat -I POSTROUTING 1 -j "$1" && iptables-restore -w --noflush`,
    [MANUAL_SNAT_CHAIN],
    input,
  );
}

/** Removes the chain and its jump (`--uninstall`; nothing there is not an error). */
export async function clearManualSnat(net: Pick<NodeNetwork, 'runInNode'>): Promise<void> {
  await net.runInNode(`iptables -w -t nat -D POSTROUTING -j "$1" 2>/dev/null; iptables -w -t nat -F "$1" 2>/dev/null; iptables -w -t nat -X "$1" 2>/dev/null; true`, [MANUAL_SNAT_CHAIN]);
}
