/**
 * The host side of a Multi-cluster gateway with WireGuard between the clusters: the device's name,
 * and the routes and rules that take traffic into and out of it.
 */
import { GLOBAL_VIRTUAL_MAC, VIRTUAL_SERVICE_IPV6 } from '@switchyard/openflow-pipeline';
import { NAME_RE, check } from '../../host-network/checks';
import { isIpv4WithPrefix } from '../../ipv4';
import { isIpv6WithPrefix } from '../../ipv6';

/** Protocol number of the routes into the Multi-cluster WireGuard device (main table). */
export const MC_ROUTE_PROTO = 78;
/** Routing table and rule preferences of what arrives from the Multi-cluster WireGuard device. */
export const MC_ROUTE_TABLE = 78;
const MC_RULE_PREF = 7800;
/** Next hop (a permanent neighbour with the pipeline's virtual MAC) for the host's traffic into OVS. */
export const MC_VIRTUAL_NEXT_HOP = '169.254.0.253';
/** The IPv6 next hop of the same kind (the pipeline's virtual Service IPv6 address). */
export const MC_VIRTUAL_NEXT_HOP_V6 = VIRTUAL_SERVICE_IPV6;
/** The Multi-cluster gateway's WireGuard device (IFNAMSIZ allows 15 characters). */
export const MC_WIREGUARD_DEVICE = 'switchyard-mcwg';

/** Where the routes are made: a shell in the node's namespace (NodeNetwork.runInNode). */
export interface NodeShell {
  runInNode(script: string, args?: readonly string[], input?: string): Promise<string>;
}

/** One family's commands: `ip -4` or `ip -6`, its next hop, and the shell argument holding its CIDRs. */
function familyScript(ipf: '-4' | '-6', nextHop: string, cidrsArg: string, wanted: boolean): string {
  const [p1, p2] = [MC_RULE_PREF, MC_RULE_PREF + 1];
  // Routes of this protocol not in the wanted list go (none are wanted when the family has no CIDR).
  const stale = `for r in $({ ip ${ipf} route show proto ${MC_ROUTE_PROTO} || true; } 2>/dev/null | cut -d' ' -f1); do case " ${cidrsArg} " in *" $r "*) ;; *) ip ${ipf} route del "$r" proto ${MC_ROUTE_PROTO};; esac; done`;
  // Removal: what is not there is not an error.
  if (!wanted) return `${stale}; { ip ${ipf} rule del pref ${p1} || true; } 2>/dev/null; { ip ${ipf} rule del pref ${p2} || true; } 2>/dev/null; { ip ${ipf} route flush table ${MC_ROUTE_TABLE} || true; } 2>/dev/null`;
  return [
    `ip ${ipf} neigh replace ${nextHop} lladdr ${GLOBAL_VIRTUAL_MAC} dev "$2" nud permanent`,
    `ip ${ipf} route replace default via ${nextHop} dev "$2" onlink table ${MC_ROUTE_TABLE}`,
    `{ ip ${ipf} rule list pref ${p1} | grep -q . || ip ${ipf} rule add pref ${p1} iif "$1" lookup main suppress_prefixlength 0; }`,
    `{ ip ${ipf} rule list pref ${p2} | grep -q . || ip ${ipf} rule add pref ${p2} iif "$1" lookup ${MC_ROUTE_TABLE}; }`,
    stale,
    `for c in ${cidrsArg}; do ip ${ipf} route replace "$c" dev "$1" proto ${MC_ROUTE_PROTO}; done`,
  ].join(' && ');
}

/**
 * Host routing of a Multi-cluster gateway with WireGuard, in the node namespace of `node`, for each
 * family of `cidrs` (IPv4 and IPv6 alike). Outbound: the other clusters' CIDRs
 * are routed (main table, protocol {@link MC_ROUTE_PROTO}) into `device`. Inbound: what comes
 * out of `device` takes the main table's routes except its default route (the pod CIDRs lead to
 * the gateway port already), and otherwise (this cluster's Service CIDR, which the host does not
 * route) goes to the gateway port through a next hop the neighbour table maps to the
 * pipeline's virtual MAC ({@link MC_VIRTUAL_NEXT_HOP}, for IPv6 {@link MC_VIRTUAL_NEXT_HOP_V6}).
 * A family without CIDRs has none of it (an empty `cidrs` removes all: the node is not the gateway).
 * One child: `ip` has rule and neighbour commands rtnetlink here does not.
 */
export async function syncGatewayWireGuardRoutes(node: NodeShell, device: string, gatewayName: string, cidrs: readonly string[]): Promise<void> {
  check(NAME_RE, device, 'WireGuard device name');
  check(NAME_RE, gatewayName, 'gateway interface name');
  for (const c of cidrs) check((v) => isIpv4WithPrefix(v) || isIpv6WithPrefix(v), c, 'remote cluster CIDR');
  // As `ip route show` prints them: a host route without its prefix length.
  const v4 = cidrs.filter(isIpv4WithPrefix).map((c) => (c.endsWith('/32') ? c.slice(0, -3) : c));
  const v6 = cidrs.filter((c) => !isIpv4WithPrefix(c)).map((c) => (c.endsWith('/128') ? c.slice(0, -4) : c));
  const script = [familyScript('-4', MC_VIRTUAL_NEXT_HOP, '$3', v4.length > 0), familyScript('-6', MC_VIRTUAL_NEXT_HOP_V6, '$4', v6.length > 0)].join('; ');
  await node.runInNode(`set -e; ${script}`, [device, gatewayName, v4.join(' '), v6.join(' ')]);
}
