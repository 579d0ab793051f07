// What README programs talk to when they run: one isolated Open vSwitch instance (tools/testbed:
// private directory and netns, pidfiles, stopped through the handle it returns) and the embedded
// Kubernetes API server (tools/kube-api). The programs find them through the environment
// variables their READMEs document: OVS_RUNDIR (OVS's own run-directory variable, the directory of
// db.sock and <bridge>.mgmt) and KUBECONFIG (an admin kubeconfig of a server with the CRDs of
// @switchyard/apis installed, as on a cluster running Switchyard).
import { join } from 'node:path';

/**
 * Starts both; returns the environment for the programs and a stop() that undoes everything.
 * @throws Error naming what this machine lacks (root, OVS binaries, ip netns).
 */
export async function startRuntimeEnv(scratch) {
  const { Testbed, missingRequirements } = await import('@switchyard/testbed');
  const missing = await missingRequirements();
  if (missing.length > 0) {
    throw new Error(
      `README programs of ovsdb/openflow run against a real OVS; this machine lacks: ${missing.join('; ')}. ` +
        `Run the check as root with Open vSwitch installed (bash scripts/ensure-system.sh); CI does.`,
    );
  }
  const { startKubeApi } = await import('@switchyard/kube-api');
  const stops = [];
  try {
    const tb = await Testbed.create();
    stops.push(() => tb.cleanup());
    const ovs = await tb.startOvs();
    // The bridge the openflow README connects to (the ovsdb README makes its own).
    await ovs.addBridge('br-int');
    const api = await startKubeApi({});
    stops.push(() => api.stop());
    // A cluster with Switchyard installed has its CRDs (IPPool, ...): the IPPool example uses one.
    const { loadCrds } = await import('@switchyard/apis');
    api.createObjects(loadCrds());
    const kubeconfig = api.writeKubeconfig(join(scratch, 'kubeconfig'));
    return {
      env: { OVS_RUNDIR: ovs.dir, KUBECONFIG: kubeconfig },
      stop: async () => {
        for (const stop of stops.reverse()) await stop();
      },
    };
  } catch (err) {
    for (const stop of stops.reverse()) await stop().catch(() => {});
    throw err;
  }
}
