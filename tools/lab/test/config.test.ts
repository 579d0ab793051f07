import { installAgentConfig, installControllerConfig, parseAgentConfig, parseControllerConfig } from '@switchyard/apis';
import { LAB_AGENT_KEYS, labAgentConfig, labControllerConfig, labInstallOptions } from '../src/config';
import { LAB_MODES } from '../src/plan';

const node = { ovsRunDir: '/tmp/lab/ovs', cniSocket: '/tmp/lab/node1/cni.sock', apiPort: 12345 };

describe("the lab's configuration is the installation's", () => {
  for (const mode of LAB_MODES) {
    for (const encryption of ['none', 'wireGuard'] as const) {
      it(`${mode}, encryption ${encryption}: the agent's differs from switchyard.yml's only in the node keys`, () => {
        const install = labInstallOptions(mode, encryption);
        const lab = labAgentConfig(install, node);
        const installed = installAgentConfig(install);
        const differing = [...new Set([...Object.keys(lab), ...Object.keys(installed)])].filter((k) => JSON.stringify(lab[k]) !== JSON.stringify(installed[k])).sort();
        expect(differing).toEqual(Object.keys(LAB_AGENT_KEYS).sort());
        expect(lab).toMatchObject({ trafficEncapMode: mode, trafficEncryptionMode: encryption, ovsDatapathType: 'netdev', ...node });
        // The agent accepts it as it is: no unknown key.
        expect(parseAgentConfig(lab).warnings).toEqual([]);
      });
    }
  }

  it("the lab's options come last: feature gates and multicluster keys", () => {
    const lab = labAgentConfig(labInstallOptions('encap'), node, { featureGates: { Multicluster: true }, multicluster: { enableGateway: true } });
    expect(lab).toMatchObject({ featureGates: { Multicluster: true }, multicluster: { enableGateway: true } });
  });

  it("the controller's is the installation's with ExternalNode on, and the lab's gates over both", () => {
    const install = labInstallOptions('encap');
    const lab = labControllerConfig(install, { featureGates: { Multicluster: true }, multicluster: { enableStretchedNetworkPolicy: true } });
    const installed = installControllerConfig(install);
    expect(lab).toEqual({ ...installed, featureGates: { ...(installed['featureGates'] as object), ExternalNode: true, Multicluster: true }, multicluster: { enableStretchedNetworkPolicy: true } });
    expect(parseControllerConfig(lab).warnings).toEqual([]);
  });
});
