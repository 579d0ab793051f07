/**
 * The host side of a Multi-cluster gateway with WireGuard between the clusters: the device's name,
 * and the routes and rules that take traffic into and out of it.
 */
import { GLOBAL_VIRTUAL_MAC } from '@switchyard/openflow-pipeline';
import { NAME_RE, check } from '../../host-network/checks';
import { isIpv4WithPrefix } from '../../ipv4';

/** Protocol number of the routes into the Multi-cluster WireGuard device (main table). */
export const MC_ROUTE_PROTO = 78;
/** Routing table and rule preferences of what arrives from the Multi-cluster WireGuard device. */
export const MC_ROUTE_TABLE = 78;
const MC_RULE_PREF = 7800;
/** Next hop (a permanent neighbour with the pipeline's virtual MAC) for the host's traffic into OVS. */
export const MC_VIRTUAL_NEXT_HOP = '169.254.0.253';
/** The Multi-cluster gateway's WireGuard device (IFNAMSIZ allows 15 characters). */
export const MC_WIREGUARD_DEVICE = 'switchyard-mcwg';

/** Where the routes are made: a shell in the node's namespace (NodeNetwork.runInNode). */
export interface NodeShell {
  runInNode(script: string, args?: readonly string[], input?: string): Promise<string>;
}

/**
 * Host routing of a Multi-cluster gateway with WireGuard, in the node namespace of `node`. Outbound: the other clusters' CIDRs
 * are routed (main table, protocol {@link MC_ROUTE_PROTO}) into `device`. Inbound: what comes
 * out of `device` takes the main table's routes except its default route (the pod CIDRs lead to
 * the gateway port already), and otherwise (this cluster's Service CIDR, which the host does not
 * route) goes to the gateway port through a next hop the neighbour table maps to the
 * pipeline's virtual MAC. An empty `cidrs` removes all of it (the node is not the gateway).
 * One child: `ip` has rule and neighbour commands rtnetlink here does not.
 */
export async function syncGatewayWireGuardRoutes(node: NodeShell, device: string, gatewayName: string, cidrs: readonly string[]): Promise<void> {
  check(NAME_RE, device, 'WireGuard device name');
  check(NAME_RE, gatewayName, 'gateway interface name');
  for (const c of cidrs) check(isIpv4WithPrefix, c, 'remote cluster CIDR');
  const [p1, p2] = [MC_RULE_PREF, MC_RULE_PREF + 1];
  const stale = `for r in $(ip -4 route show proto ${MC_ROUTE_PROTO} | cut -d' ' -f1); do case " $3 " in *" $r "*) ;; *) ip route del "$r" proto ${MC_ROUTE_PROTO};; esac; done`;
  // Removal: what is not there is not an error.
  const script = cidrs.length === 0
    ? `${stale}; { ip rule del pref ${p1} || true; } 2>/dev/null; { ip rule del pref ${p2} || true; } 2>/dev/null; { ip route flush table ${MC_ROUTE_TABLE} || true; } 2>/dev/null`
    : [
      `ip neigh replace ${MC_VIRTUAL_NEXT_HOP} lladdr ${GLOBAL_VIRTUAL_MAC} dev "$2" nud permanent`,
      `ip route replace default via ${MC_VIRTUAL_NEXT_HOP} dev "$2" onlink table ${MC_ROUTE_TABLE}`,
      `{ ip rule list pref ${p1} | grep -q . || ip rule add pref ${p1} iif "$1" lookup main suppress_prefixlength 0; }`,
      `{ ip rule list pref ${p2} | grep -q . || ip rule add pref ${p2} iif "$1" lookup ${MC_ROUTE_TABLE}; }`,
      stale,
      `for c in $3; do ip route replace "$c" dev "$1" proto ${MC_ROUTE_PROTO}; done`,
    ].join(' && ');
  await node.runInNode(`set -e; ${script}`, [device, gatewayName, cidrs.map((c) => c.endsWith('/32') ? c.slice(0, -3) : c).join(' ')]);
}
