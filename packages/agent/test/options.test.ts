/** The agent's options, merged from each feature's fragment: defaults, config keys, checks, MTU. */
import { parseAgentConfig } from '@switchyard/apis';
import { silentLogger } from '@switchyard/runtime';
import { agentOptionsFromConfig, podMtuOf, resolveAgentOptions, unmasqueradedOf } from '../src/options';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { locateNetnsHelper } from '../src/host-network/netns-helper';

const node = { nodeName: 'n1', podCIDR: '10.10.1.0/24', nodeIP: '192.168.1.1', dataDir: '/d' };

test('every field without a default in the given options gets its fragment\'s default', () => {
  expect(resolveAgentOptions({ ...node, ovsdbRemote: 'unix:/x' })).toEqual({
    ...node,
    ovsdbRemote: 'unix:/x', ovsRunDir: '/var/run/openvswitch', bridge: 'br-int', datapathType: 'system', gatewayName: 'antrea-gw0', tunnelName: 'antrea-tun0',
    tunnelType: 'geneve', tunnelPort: 0, tunnelCsum: false, linkMtu: 1500, disableTxChecksumOffload: false, trafficMode: 'encap', trafficEncryptionMode: 'none', noSNAT: false,
    logger: silentLogger,
    // No switchyard-netns beside jest's program: pods are set up by child processes.
    ipamNetwork: 'switchyard', cniSocket: '/var/run/antrea/cni.sock', netnsHelper: false,
    enableIPPools: false,
    policyLogFile: '/d/networkpolicy/np.log', packetInRate: 500,
    enableProxy: false, nodePortAddresses: [], proxyLoadBalancerIPs: true, skipServices: [], proxyAll: false,
    wireGuardPort: 51820, wireGuardGo: 'wireguard-go',
    ipsecAuthenticationMode: 'psk', ipsecCANamespace: 'kube-system',
    apiBindAddress: '127.0.0.1',
    agentInfoIntervalMs: 60_000,
    trafficControl: false,
    traceflow: false,
    serviceExternalIP: false, memberLeaseRenewSeconds: 2, memberLeaseDurationSeconds: 6, memberLeaseFenceMarginSeconds: 1, memberLeaseNamespace: 'kube-system',
    egress: false, egressExceptCIDRs: [],
    egressSeparateSubnet: false, egressTrafficShaping: false,
  });
});

test('an antrea-agent.conf maps to options through each fragment', () => {
  const { config } = parseAgentConfig({ ovsDatapathType: 'netdev', defaultMTU: 9000, trafficEncryptionMode: 'wireGuard', wireGuard: { port: 5555 }, featureGates: { AntreaIPAM: true, TrafficControl: true } });
  expect(agentOptionsFromConfig(config, node)).toEqual({
    ...node,
    ovsdbRemote: 'unix:/var/run/openvswitch/db.sock', ovsRunDir: '/var/run/openvswitch', bridge: 'br-int', datapathType: 'netdev', gatewayName: 'antrea-gw0',
    tunnelType: 'geneve', tunnelPort: 0, tunnelCsum: false, linkMtu: 9000, disableTxChecksumOffload: true, trafficMode: 'encap', trafficEncryptionMode: 'wireGuard', noSNAT: false,
    cniSocket: '/var/run/antrea/cni.sock', enableIPPools: true, packetInRate: 500, enableProxy: true, nodePortAddresses: [], proxyLoadBalancerIPs: true, skipServices: [], proxyAll: false, wireGuardPort: 5555, apiPort: 10350, trafficControl: true, traceflow: true,
    serviceExternalIP: false,
    // Antrea's Egress gate is on by default.
    egress: true, egressExceptCIDRs: [],
    egressSeparateSubnet: false, egressTrafficShaping: false,
  });
});

test('the pods\' MTU pays each feature\'s overhead in fragment order: tunnel, then WireGuard instead of it, ESP on top of it, gateway WireGuard on top of all', () => {
  const base = { ...node, ovsdbRemote: 'unix:/x' };
  expect(podMtuOf(resolveAgentOptions(base))).toBe(1450);
  expect(podMtuOf(resolveAgentOptions({ ...base, trafficMode: 'noEncap' }))).toBe(1500);
  const mc = { namespace: 'kube-system', enablePodToPodConnectivity: false, wireGuard: { port: 51821 } };
  expect(podMtuOf(resolveAgentOptions({ ...base, multicluster: mc }))).toBe(1450 - 80);
});

test("a Multi-cluster gateway's WireGuard device is kept out of the masquerade, and only with Multi-cluster", () => {
  const base = { ...node, ovsdbRemote: 'unix:/x' };
  expect(unmasqueradedOf(resolveAgentOptions(base))).toEqual([]);
  expect(unmasqueradedOf(resolveAgentOptions({ ...base, multicluster: { namespace: 'kube-system', enablePodToPodConnectivity: false } }))).toEqual(['switchyard-mcwg']);
});

test('the netns helper is found beside the agent\'s program, named explicitly, or turned off', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sy-helper-'));
  try {
    expect(locateNetnsHelper(join(dir, 'agent-cli.js'))).toBeUndefined();
    writeFileSync(join(dir, 'switchyard-netns'), '');
    expect(locateNetnsHelper(join(dir, 'agent-cli.js'))).toBe(join(dir, 'switchyard-netns'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  expect(resolveAgentOptions({ ...node, ovsdbRemote: 'unix:/x', netnsHelper: '/opt/sy/switchyard-netns' }).netnsHelper).toBe('/opt/sy/switchyard-netns');
  expect(resolveAgentOptions({ ...node, ovsdbRemote: 'unix:/x', netnsHelper: false }).netnsHelper).toBe(false);
});
