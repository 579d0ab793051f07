// Checks that integration tests can run here, and says exactly what is missing when they cannot.
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { run } from './exec';

const REQUIRED_BINARIES = [
  ['ovsdb-server', 'openvswitch-switch'],
  ['ovs-vswitchd', 'openvswitch-switch'],
  ['ovsdb-tool', 'openvswitch-switch'],
  ['ovs-vsctl', 'openvswitch-switch'],
  ['ovs-ofctl', 'openvswitch-common'],
  ['ovs-appctl', 'openvswitch-common'],
  ['ip', 'iproute2'],
  ['ethtool', 'ethtool'],
  ['ping', 'iputils-ping'],
] as const;

function onPath(bin: string): boolean {
  const dirs = (process.env.PATH ?? '').split(delimiter).concat(['/usr/sbin', '/sbin']);
  return dirs.some((d) => {
    try {
      accessSync(join(d, bin), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Lists what the integration tests need but this machine lacks (empty: all good). */
export async function missingRequirements(): Promise<string[]> {
  const missing: string[] = [];
  if (process.getuid?.() !== 0) missing.push('root (integration tests create namespaces and start OVS)');
  for (const [bin, pkg] of REQUIRED_BINARIES) {
    if (!onPath(bin)) missing.push(`${bin} (Debian package ${pkg})`);
  }
  if (onPath('ip')) {
    const probe = await run(['ip', 'netns', 'list'], { allowFailure: true });
    if (probe.code !== 0) missing.push(`working 'ip netns' (${probe.stderr.trim()})`);
  }
  return missing;
}

/** Throws an error naming everything missing; integration suites call this instead of skipping. */
export async function assertIntegrationReady(): Promise<void> {
  const missing = await missingRequirements();
  if (missing.length > 0) {
    throw new Error(
      `integration tests need: ${missing.join('; ')}. Run 'bash scripts/ensure-system.sh' as root, or run the unit tests only (npm run test:unit).`,
    );
  }
}
