/**
 * The configuration an installation writes for a set of install options: antrea-agent.conf and
 * antrea-controller.conf as the generated manifest (switchyard.yml) ships them. One source for the
 * manifest generator and the lab, so the configuration a cluster runs and the one the lab tests
 * cannot drift; the lab changes only the node-local keys (datapath type, run directories, sockets,
 * ports), which it lists.
 */
import type { TunnelType, TrafficEncryptionMode } from './config-types';

/** Traffic modes an installation chooses (networkPolicyOnly is its own option). */
export const INSTALL_TRAFFIC_ENCAP_MODES = ['encap', 'noEncap', 'hybrid'] as const;
export const INSTALL_ENCRYPTION_MODES = ['none', 'ipsec', 'wireGuard'] as const satisfies readonly TrafficEncryptionMode[];
export const INSTALL_TUNNEL_TYPES = ['geneve', 'vxlan', 'gre'] as const satisfies readonly TunnelType[];

export interface InstallOptions {
  /** antrea-agent.conf trafficEncapMode (default encap). */
  trafficEncapMode: (typeof INSTALL_TRAFFIC_ENCAP_MODES)[number];
  /** antrea-agent.conf tunnelType, for encap and hybrid (default geneve). */
  tunnelType: (typeof INSTALL_TUNNEL_TYPES)[number];
  /** antrea-agent.conf trafficEncryptionMode (default none). */
  encryption: (typeof INSTALL_ENCRYPTION_MODES)[number];
  /** Chained after the cluster's primary CNI, enforcing policy only (trafficEncapMode networkPolicyOnly). */
  networkPolicyOnly: boolean;
  /** Multi-cluster member: the Multicluster feature gate and the gateway. */
  multicluster: boolean;
}

export const DEFAULT_INSTALL_OPTIONS: Readonly<InstallOptions> = { trafficEncapMode: 'encap', tunnelType: 'geneve', encryption: 'none', networkPolicyOnly: false, multicluster: false };

/** A combination of install options the agent would refuse; `field` and `value` name the option. */
export class InstallOptionError extends Error {
  readonly code = 'INVALID_OPTION';
  constructor(
    readonly field: string,
    readonly value: unknown,
    message: string,
  ) {
    super(`${field}: ${message} (got ${JSON.stringify(value)})`);
    this.name = 'InstallOptionError';
  }
}

/** Checks a combination against what the agent accepts (the same refusals as its options), so a bad one fails at generation and not in every agent pod. */
export function checkInstallOptions(o: InstallOptions): void {
  const oneOf = (field: string, v: string, allowed: readonly string[]): void => {
    if (!allowed.includes(v)) throw new InstallOptionError(field, v, `must be one of ${allowed.join(', ')}`);
  };
  oneOf('trafficEncapMode', o.trafficEncapMode, INSTALL_TRAFFIC_ENCAP_MODES);
  oneOf('tunnelType', o.tunnelType, INSTALL_TUNNEL_TYPES);
  oneOf('encryption', o.encryption, INSTALL_ENCRYPTION_MODES);
  if (o.networkPolicyOnly && o.trafficEncapMode !== 'encap') throw new InstallOptionError('trafficEncapMode', o.trafficEncapMode, 'networkPolicyOnly replaces the traffic mode; leave trafficEncapMode at its default');
  if (o.networkPolicyOnly && o.encryption !== 'none') throw new InstallOptionError('encryption', o.encryption, 'networkPolicyOnly does not route pod traffic, so it cannot encrypt it');
  if (o.encryption === 'ipsec' && o.trafficEncapMode !== 'encap') throw new InstallOptionError('encryption', o.encryption, `ipsec needs trafficEncapMode encap, not ${o.trafficEncapMode}`);
  if (o.networkPolicyOnly && o.multicluster) throw new InstallOptionError('multicluster', o.multicluster, 'the multi-cluster gateway needs a traffic mode where the agent routes pod traffic, not networkPolicyOnly');
}

/** antrea-agent.conf of an installation with these options (a Kubernetes node: kernel datapath, Antrea's paths). */
export function installAgentConfig(o: InstallOptions): Record<string, unknown> {
  const conf: Record<string, unknown> = {
    ovsBridge: 'br-int',
    ovsDatapathType: 'system',
    ovsRunDir: '/var/run/openvswitch',
    hostGateway: 'antrea-gw0',
    trafficEncapMode: o.networkPolicyOnly ? 'networkPolicyOnly' : o.trafficEncapMode,
    cniSocket: '/var/run/antrea/cni.sock',
    trafficEncryptionMode: o.encryption,
  };
  if (!o.networkPolicyOnly && o.trafficEncapMode !== 'noEncap') conf['tunnelType'] = o.tunnelType;
  if (o.multicluster) {
    conf['featureGates'] = { Multicluster: true };
    conf['multicluster'] = { enableGateway: true, namespace: '' };
  }
  return conf;
}

/** antrea-controller.conf of an installation with these options. */
export function installControllerConfig(o: InstallOptions): Record<string, unknown> {
  return {
    apiPort: 10349,
    enablePrometheusMetrics: true,
    selfSignedCert: true,
    featureGates: { ExternalNode: false, AntreaIPAM: false, ...(o.multicluster ? { Multicluster: true } : {}) },
    nodeIPAM: { enableNodeIPAM: false, clusterCIDRs: [], nodeCIDRMaskSizeIPv4: 24, nodeCIDRMaskSizeIPv6: 64 },
  };
}
