/**
 * Lab teardown of the nodes' WireGuard devices. The agent leaves its device running when it stops
 * (so a restart does not cut inter-node traffic); `down` removes it as the agent's own removal
 * does: delete the link (wireguard-go then exits), and end the process the agent recorded in
 * `<dataDir>/wireguard/device.json` by that record (pid checked against its start time) if it is
 * still there.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isAlive, run, signalProcess, waitFor, type ProcessRef } from '@switchyard/testbed';

/** A device as the agent lays it out: link name, and its state directory under the data directory. */
export interface LabWireGuardDevice {
  name: string;
  dir: string;
}
/** The node's device between nodes (trafficEncryptionMode wireGuard). */
export const NODE_WIREGUARD: LabWireGuardDevice = { name: 'switchyard-wg0', dir: 'wireguard' };
/** The Multi-cluster gateway's device (multicluster.trafficEncryptionMode wireGuard). */
export const MULTICLUSTER_WIREGUARD: LabWireGuardDevice = { name: 'switchyard-mcwg', dir: 'multicluster-wireguard' };

function recorded(dataDir: string, device: LabWireGuardDevice): ProcessRef | undefined {
  try {
    const r = JSON.parse(readFileSync(join(dataDir, device.dir, 'device.json'), 'utf8')) as Partial<ProcessRef>;
    return typeof r.pid === 'number' && typeof r.start === 'string' ? { pid: r.pid, start: r.start } : undefined;
  } catch {
    return undefined;
  }
}

/** Removes the WireGuard device of the node in `netns` whose agent data directory is `dataDir`. */
export async function removeWireGuardDevice(netns: string, dataDir: string, device: LabWireGuardDevice = NODE_WIREGUARD): Promise<void> {
  await run(['ip', 'link', 'del', device.name], { netns, allowFailure: true });
  const ref = recorded(dataDir, device);
  if (!ref) return;
  const gone = await waitFor(`wireguard-go (pid ${ref.pid}) to exit`, () => !isAlive(ref.pid, ref.start), { timeoutMs: 3000, intervalMs: 50 }).then(() => true, () => false);
  if (!gone) signalProcess(ref, 'SIGKILL');
}
