// Checks that integration tests can run here, and says exactly what is missing when they cannot.
import { accessSync, constants, readFileSync } from 'node:fs';
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

/**
 * The default socket receive buffer the lab's userspace datapath needs: ovs-vswitchd reads each
 * veth port through an AF_PACKET socket of that size, and at Linux's 208 KiB a pause of its main
 * thread of about 20 ms drops frames (TCP streams in the tests retransmit and stall).
 * scripts/ensure-system.sh raises it; see there for the measurements.
 */
export const DATAPATH_RMEM_DEFAULT = 4 * 1024 * 1024;

/** What {@link missingRequirements} says about `net.core.rmem_default` = `current` (undefined: enough). */
export function rmemShortfall(current: number): string | undefined {
  if (current >= DATAPATH_RMEM_DEFAULT) return undefined;
  return `net.core.rmem_default of at least ${DATAPATH_RMEM_DEFAULT} (it is ${current}; the userspace datapath's AF_PACKET sockets drop frames below it; scripts/ensure-system.sh raises it)`;
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
  let rmem: number | undefined;
  try {
    rmem = Number(readFileSync('/proc/sys/net/core/rmem_default', 'utf8').trim());
  } catch {
    rmem = undefined;
  }
  const short = rmem === undefined ? undefined : rmemShortfall(rmem);
  if (short) missing.push(short);
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
