/**
 * The lab's antrea-agent.conf and antrea-controller.conf: the installation's (the functions the
 * switchyard.yml generator writes its ConfigMap with, in @switchyard/apis), with only the keys a
 * lab node must set otherwise. A lab node is a network namespace on one host with the userspace
 * datapath, so its datapath type, run directory, sockets and ports are its own; everything else
 * (modes, gates, tunnel, encryption) is what a cluster installed with the same options runs.
 */
import { DEFAULT_INSTALL_OPTIONS, installAgentConfig, installControllerConfig, type InstallOptions } from '@switchyard/apis';
import type { LabEncryption, LabMode } from './plan';

/** The antrea-agent.conf keys a lab node sets over the installation's, and why. */
export const LAB_AGENT_KEYS = {
  ovsDatapathType: 'netdev: the userspace datapath (no kernel module in a network namespace)',
  ovsRunDir: "the node's own OVS instance's run directory",
  hostGateway: 'sy-gw0: the name the lab, its tests and docs/lab.md use for the gateway',
  cniSocket: "the node's own socket in the lab directory",
  apiPort: 'a free port per node: every node shares the host loopback',
} as const;

export interface LabNodeConfig {
  ovsRunDir: string;
  cniSocket: string;
  apiPort: number;
}

/** The install options a lab of this mode and encryption stands for. */
export const labInstallOptions = (mode: LabMode, encryption: LabEncryption = 'none'): InstallOptions => ({ ...DEFAULT_INSTALL_OPTIONS, trafficEncapMode: mode, encryption });

/** A lab node's antrea-agent.conf: the installation's, the node keys of {@link LAB_AGENT_KEYS}, then the lab's options (feature gates, multicluster, proxyAll). */
export function labAgentConfig(install: InstallOptions, node: LabNodeConfig, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...installAgentConfig(install), ovsDatapathType: 'netdev', ovsRunDir: node.ovsRunDir, hostGateway: 'sy-gw0', cniSocket: node.cniSocket, apiPort: node.apiPort, ...extra };
}

/**
 * The lab's antrea-controller.conf: the installation's with ExternalNode on (the lab's VMs are
 * ExternalNodes), then the lab's options. Its API port is the command line's `--port`.
 */
export function labControllerConfig(install: InstallOptions, extra: { featureGates?: Record<string, boolean>; [key: string]: unknown } = {}): Record<string, unknown> {
  const base = installControllerConfig(install);
  return { ...base, ...extra, featureGates: { ...(base['featureGates'] as Record<string, boolean>), ExternalNode: true, ...extra.featureGates } };
}
