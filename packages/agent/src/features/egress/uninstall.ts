/** What `switchyard-agent --uninstall` removes of the Egress part: the routes of the Egress IPs into the gateway (the proxy ARP entries are the external IP part's). */
import { EGRESS_ROUTE_PROTO, NodeNetwork } from '../../netops';
import type { UninstallTarget } from '../uninstall-target';

export async function uninstall(t: UninstallTarget): Promise<void> {
  const net = new NodeNetwork(t.nodeNetns);
  try {
    await net.syncRoutes([], EGRESS_ROUTE_PROTO);
  } finally {
    net.close();
  }
}
