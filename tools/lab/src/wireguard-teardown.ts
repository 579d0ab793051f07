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

const DEVICE = 'switchyard-wg0';

function recorded(dataDir: string): ProcessRef | undefined {
  try {
    const r = JSON.parse(readFileSync(join(dataDir, 'wireguard', 'device.json'), 'utf8')) as Partial<ProcessRef>;
    return typeof r.pid === 'number' && typeof r.start === 'string' ? { pid: r.pid, start: r.start } : undefined;
  } catch {
    return undefined;
  }
}

/** Removes the WireGuard device of the node in `netns` whose agent data directory is `dataDir`. */
export async function removeWireGuardDevice(netns: string, dataDir: string): Promise<void> {
  await run(['ip', 'link', 'del', DEVICE], { netns, allowFailure: true });
  const ref = recorded(dataDir);
  if (!ref) return;
  const gone = await waitFor(`wireguard-go (pid ${ref.pid}) to exit`, () => !isAlive(ref.pid, ref.start), { timeoutMs: 3000, intervalMs: 50 }).then(() => true, () => false);
  if (!gone) signalProcess(ref, 'SIGKILL');
}
