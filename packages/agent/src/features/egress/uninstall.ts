/** What `switchyard-agent --uninstall` removes of the Egress part: the routes of the Egress IPs into the gateway and the recorded slice (the proxy ARP entries are the external IP part's). */
import { rmSync } from 'node:fs';
import { EGRESS_ROUTE_PROTO, NodeNetwork } from '../../netops';
import type { UninstallTarget } from '../uninstall-target';
import { egressSpecFile } from './part';

export async function uninstall(t: UninstallTarget): Promise<void> {
  rmSync(egressSpecFile(t.dataDir), { force: true });
  const net = new NodeNetwork(t.nodeNetns);
  try {
    await net.syncRoutes([], EGRESS_ROUTE_PROTO);
  } finally {
    net.close();
  }
}
