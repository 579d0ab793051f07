/**
 * The host's half of an Egress IP without a pool (Antrea's manual mode) on its owner. The IP is a
 * local address of the node there (the user put it on an interface), so the pool IPs' way cannot
 * serve: a packet OVS hands to the gateway with a local address as its source is dropped by the
 * host as a martian, and a reply to a local address is delivered to the host's own stack instead
 * of being routed back into OVS. So OVS SNATs the members to a stand-in address of the Egress's
 * mark (`169.254.100.<mark>`, for an IPv6 IP `fc01::100:<mark in hex>` beside the virtual Service
 * IPv6 address; the pipeline's `EgressRule.snatIP`), routed into the gateway like an Egress IP, and
 * one host rule SNATs the stand-in to the egress IP on the way out (`-s <stand-in> -j SNAT
 * --to-source <ip>` in nat chain SWITCHYARD-EGRESS, of iptables or ip6tables by the family). The
 * host's conntrack reverses it for the reply before routing, so the reply reaches the gateway
 * addressed to the stand-in, and OVS un-SNATs it to the pod.
 */
import { ipv4Of } from '../../ipv4';
import { ipv6Of } from '../../ipv6';
import type { NodeNetwork } from '../../netops';

/** The nat chain holding the stand-in SNAT rules, jumped to first from POSTROUTING. */
export const MANUAL_SNAT_CHAIN = 'SWITCHYARD-EGRESS';

/** The stand-in address OVS SNATs an owned manual Egress IP's members to: one per mark (1..255) and family. */
export function manualStandIn(mark: number, family: 4 | 6 = 4): string {
  if (!Number.isInteger(mark) || mark < 1 || mark > 255) throw new RangeError(`Egress mark ${mark} is not in 1..255`);
  return family === 6 ? `fc01::100:${mark.toString(16)}` : `169.254.100.${mark}`;
}

/** One rule: traffic SNATed by OVS to `standIn` leaves the node from `ip`. */
export interface ManualSnat {
  standIn: string;
  ip: string;
}

/**
 * The `iptables-restore --noflush` input (`ip6tables-restore` for `family` 6) that makes the chain
 * hold exactly these rules (declaring the chain flushes it in the same commit, so no packet sees it
 * half made). Values are checked to be addresses of the family.
 */
export function manualSnatRestore(rules: readonly ManualSnat[], family: 4 | 6 = 4): string {
  const lines = ['*nat', `:${MANUAL_SNAT_CHAIN} - [0:0]`];
  const ok = (text: string): boolean => (family === 6 ? ipv6Of(text) !== undefined && !text.includes('.') : ipv4Of(text) !== undefined);
  const host = family === 6 ? 128 : 32;
  for (const r of [...rules].sort((a, b) => a.standIn.localeCompare(b.standIn, 'en', { numeric: true }))) {
    if (!ok(r.standIn)) throw new TypeError(`stand-in ${JSON.stringify(r.standIn)} is not an IPv${family} address`);
    if (!ok(r.ip)) throw new TypeError(`spec.egressIP ${JSON.stringify(r.ip)} is not an IPv${family} address`);
    lines.push(`-A ${MANUAL_SNAT_CHAIN} -s ${r.standIn}/${host} -j SNAT --to-source ${r.ip}`);
  }
  lines.push('COMMIT', '');
  return lines.join('\n');
}

const tool = (family: 4 | 6): string => (family === 6 ? 'ip6tables' : 'iptables');

/** The chain and its jump (first in POSTROUTING, before the masquerade), then its rules, in the node's namespace. */
export async function syncManualSnat(net: Pick<NodeNetwork, 'runInNode'>, rules: readonly ManualSnat[], family: 4 | 6 = 4): Promise<void> {
  const input = manualSnatRestore(rules, family);
  const t = tool(family);
  await net.runInNode(
    `${t} -w -t nat -N "$1" 2>/dev/null; ${t} -w -t nat -C POSTROUTING -j "$1" 2>/dev/null || ${t} -w -t nat -I POSTROUTING 1 -j "$1" && ${t}-restore -w --noflush`,
    [MANUAL_SNAT_CHAIN],
    input,
  );
}

/** Removes the chain and its jump, of both families (`--uninstall`; nothing there is not an error). */
export async function clearManualSnat(net: Pick<NodeNetwork, 'runInNode'>): Promise<void> {
  for (const t of [tool(4), tool(6)]) await net.runInNode(`${t} -w -t nat -D POSTROUTING -j "$1" 2>/dev/null; ${t} -w -t nat -F "$1" 2>/dev/null; ${t} -w -t nat -X "$1" 2>/dev/null; true`, [MANUAL_SNAT_CHAIN]);
}
