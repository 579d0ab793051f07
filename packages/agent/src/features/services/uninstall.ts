/** What `switchyard-agent --uninstall` removes of the Services part: the node port chain and its jump, the routes into OVS, the virtual neighbours. */
import { NodeNetwork, SERVICE_ROUTE_PROTO } from '../../netops';
import type { UninstallTarget } from '../uninstall-target';
import { NODEPORT_CHAIN, SERVICE_MASQ_CHAIN } from './host-proxy';
import { VIRTUAL_NODEPORT_DNAT_IP, VIRTUAL_NODEPORT_DNAT_IPV6, VIRTUAL_SERVICE_IP, VIRTUAL_SERVICE_IPV6 } from '@switchyard/openflow-pipeline';

export async function uninstall(t: UninstallTarget): Promise<void> {
  const net = new NodeNetwork(t.nodeNetns);
  try {
    await net.syncRoutes([], SERVICE_ROUTE_PROTO);
    await net.runInNode(
      `iptables -w -t nat -D PREROUTING -j ${NODEPORT_CHAIN} 2>/dev/null; iptables -w -t nat -D OUTPUT -j ${NODEPORT_CHAIN} 2>/dev/null; iptables -w -t nat -F ${NODEPORT_CHAIN} 2>/dev/null; iptables -w -t nat -X ${NODEPORT_CHAIN} 2>/dev/null; ` +
        `iptables -w -t nat -D POSTROUTING -j ${SERVICE_MASQ_CHAIN} 2>/dev/null; iptables -w -t nat -F ${SERVICE_MASQ_CHAIN} 2>/dev/null; iptables -w -t nat -X ${SERVICE_MASQ_CHAIN} 2>/dev/null; ` +
        'ip neigh del "$1" dev "$3" 2>/dev/null; ip neigh del "$2" dev "$3" 2>/dev/null; ' +
        // The IPv6 node ports' twins (a node with an IPv6 address; OUTPUT's jump with proxyAll).
        `ip6tables -w -t nat -D PREROUTING -j ${NODEPORT_CHAIN} 2>/dev/null; ip6tables -w -t nat -D OUTPUT -j ${NODEPORT_CHAIN} 2>/dev/null; ip6tables -w -t nat -F ${NODEPORT_CHAIN} 2>/dev/null; ip6tables -w -t nat -X ${NODEPORT_CHAIN} 2>/dev/null; ` +
        `ip6tables -w -t nat -D POSTROUTING -j ${SERVICE_MASQ_CHAIN} 2>/dev/null; ip6tables -w -t nat -F ${SERVICE_MASQ_CHAIN} 2>/dev/null; ip6tables -w -t nat -X ${SERVICE_MASQ_CHAIN} 2>/dev/null; ` +
        'ip -6 neigh del "$4" dev "$3" 2>/dev/null; ip -6 neigh del "$5" dev "$3" 2>/dev/null; ip -6 route flush proto "$6" 2>/dev/null; true',
      [VIRTUAL_NODEPORT_DNAT_IP, VIRTUAL_SERVICE_IP, t.hostGateway, VIRTUAL_NODEPORT_DNAT_IPV6, VIRTUAL_SERVICE_IPV6, String(SERVICE_ROUTE_PROTO)],
    );
  } finally {
    net.close();
  }
}
