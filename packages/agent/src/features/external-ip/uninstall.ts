/** What `switchyard-agent --uninstall` removes of ServiceExternalIP: the proxy neighbours a crashed agent left (its record says which). */
import { rmSync } from 'node:fs';
import { NodeNetwork } from '../../netops';
import type { UninstallTarget } from '../uninstall-target';
import { readTaken, releaseProxyNeighbour, takenFile } from './announcer';

export async function uninstall(t: UninstallTarget): Promise<void> {
  const record = readTaken(t.dataDir);
  if (!record) return;
  const net = new NodeNetwork(t.nodeNetns);
  try {
    for (const ip of record.ips) await releaseProxyNeighbour(net, record.dev, ip);
    if (record.ips.length) t.logger.info({ dev: record.dev, ips: record.ips }, 'Service external IPs removed');
    rmSync(takenFile(t.dataDir), { force: true });
  } finally {
    net.close();
  }
}
