/**
 * What `switchyard-agent --uninstall` removes of the Egress part: the routes (IPv4 and IPv6) of the Egress IPs into
 * the gateway, the host SNAT chain of Egress IPs without a pool, the recorded slice, and the Egress subnets (EgressSeparateSubnet: source rules,
 * route tables 101..120, `antrea-ext.<vlan>` links); the proxy ARP entries are the external IP part's.
 */
import { rmSync } from 'node:fs';
import { EGRESS_ROUTE_PROTO, NodeNetwork } from '../../netops';
import type { UninstallTarget } from '../uninstall-target';
import { clearManualSnat } from './manual-snat';
import { egressSpecFile } from './part';
import { clearSubnets, readSubnets } from './subnet-announcer';
import { SubnetHost } from './subnet-host';

export async function uninstall(t: UninstallTarget): Promise<void> {
  rmSync(egressSpecFile(t.dataDir), { force: true });
  const net = new NodeNetwork(t.nodeNetns);
  const host = new SubnetHost(net);
  try {
    await net.syncRoutes([], EGRESS_ROUTE_PROTO);
    await net.syncIpv6Routes([], undefined, EGRESS_ROUTE_PROTO);
    await clearManualSnat(net);
    const record = readSubnets(t.dataDir);
    if (record) {
      const steps = await clearSubnets(host, record.dev, t.dataDir);
      if (steps > 0) t.logger.info({ dev: record.dev, ips: record.ips.map((x) => x.ip) }, 'Egress subnets removed');
    }
  } finally {
    host.close();
    net.close();
  }
}
