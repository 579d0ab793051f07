/** What `switchyard-agent --uninstall` removes of Multi-cluster: the gateway's host routes into its WireGuard device, then the device. */
import { NodeNetwork } from '../../netops';
import { removeWireGuardDevice } from '../wireguard/device';
import type { UninstallTarget } from '../uninstall-target';
import { multiclusterWireGuardDevice } from './gateway-wireguard';
import { MC_WIREGUARD_DEVICE, syncGatewayWireGuardRoutes } from './host-routes';

export async function uninstall(t: UninstallTarget): Promise<void> {
  const net = new NodeNetwork(t.nodeNetns);
  try {
    await syncGatewayWireGuardRoutes(net, MC_WIREGUARD_DEVICE, t.hostGateway, []);
  } finally {
    net.close();
  }
  await removeWireGuardDevice({ dataDir: t.dataDir, ...(t.nodeNetns ? { nodeNetns: t.nodeNetns } : {}), logger: t.logger, device: multiclusterWireGuardDevice(t.dataDir) });
}
