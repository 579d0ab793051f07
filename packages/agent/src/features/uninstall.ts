/**
 * `switchyard-agent --uninstall`: what outlives the agent on purpose and goes only when the node
 * leaves, removed by each feature that leaves something (the WireGuard devices, so restarts keep
 * the tunnels, and the Multi-cluster gateway's host routes). A feature that leaves state behind
 * adds its `uninstall.ts` here.
 */
import type { UninstallTarget } from './uninstall-target';
import * as egress from './egress/uninstall';
import * as externalIP from './external-ip/uninstall';
import * as multicluster from './multicluster/uninstall';
import * as services from './services/uninstall';
import * as wireguard from './wireguard/uninstall';

export type { UninstallTarget } from './uninstall-target';

/** Each feature's removal, in order. */
const UNINSTALLS: readonly ((t: UninstallTarget) => Promise<void>)[] = [wireguard.uninstall, multicluster.uninstall, egress.uninstall, externalIP.uninstall, services.uninstall];

/** Removes what every feature left on the node. */
export async function uninstallFeatures(t: UninstallTarget): Promise<void> {
  for (const u of UNINSTALLS) await u(t);
}
