/** What `switchyard-agent --uninstall` removes of the WireGuard feature: the node's device (it outlives agent restarts on purpose). */
import { removeWireGuardDevice } from './device';
import type { UninstallTarget } from '../uninstall-target';

export async function uninstall(t: UninstallTarget): Promise<void> {
  await removeWireGuardDevice({ dataDir: t.dataDir, ...(t.nodeNetns ? { nodeNetns: t.nodeNetns } : {}), logger: t.logger });
}
