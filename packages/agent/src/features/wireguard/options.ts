/** The WireGuard feature's options (trafficEncryptionMode wireGuard), their checks and their MTU cost. */
import { AgentError } from '../../errors';
import type { FeatureOptionsFragment } from '../node/options';
import { WIREGUARD_OVERHEAD } from './wireguard';

export interface WireGuardOptions {
  /** UDP port of the WireGuard device. Default 51820 (antrea-agent.conf `wireGuard.port`). */
  wireGuardPort?: number;
  /** The wireguard-go program. Default `wireguard-go` (on PATH). */
  wireGuardGo?: string;
  /**
   * Rotate the WireGuard key once it is this old (its key file's time on the agent's clock), ms.
   * Absent: never by age (removing the key file still rotates it).
   */
  wireGuardKeyRotationMs?: number;
}

export type WireGuardUnset = 'wireGuardKeyRotationMs';

export const wireGuardOptions: FeatureOptionsFragment<WireGuardOptions, WireGuardUnset> = {
  resolve: (o) => ({
    wireGuardPort: o.wireGuardPort ?? 51820,
    wireGuardGo: o.wireGuardGo ?? 'wireguard-go',
    ...(o.wireGuardKeyRotationMs !== undefined ? { wireGuardKeyRotationMs: o.wireGuardKeyRotationMs } : {}),
  }),
  check: (r) => {
    if (r.trafficEncryptionMode !== 'wireGuard') return;
    if (r.kube === undefined) throw new AgentError('INVALID_CONFIG', 'trafficEncryptionMode wireGuard exchanges keys through Node annotations and needs the Kubernetes API', r.trafficEncryptionMode, 'trafficEncryptionMode');
    if (r.trafficMode === 'networkPolicyOnly') throw new AgentError('INVALID_CONFIG', 'trafficEncryptionMode wireGuard needs a traffic mode where this agent routes pod traffic, not networkPolicyOnly', r.trafficMode, 'trafficEncapMode');
    const period = r.wireGuardKeyRotationMs;
    if (period !== undefined && !(Number.isFinite(period) && period >= 1000)) throw new AgentError('INVALID_CONFIG', `wireGuardKeyRotationMs must be a number of milliseconds of at least 1000, not ${String(period)}`, period, 'wireGuardKeyRotationMs');
  },
  fromConfig: (cfg) => ({ wireGuardPort: cfg.wireGuard.port }),
  // As Antrea: inter-node pod traffic pays WireGuard's overhead instead of the tunnel's.
  podMtu: (r, mtu) => (r.trafficEncryptionMode === 'wireGuard' ? r.linkMtu - WIREGUARD_OVERHEAD : mtu),
};
