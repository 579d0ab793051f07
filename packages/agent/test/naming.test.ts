// Pure pieces of the node and pod datapath: names, MACs, tunnel options, MTU, config mapping.
import fc from 'fast-check';
import { parseAgentConfig } from '@switchyard/apis';
import { AgentError, agentOptionsFromConfig } from '../src/index';
import { checkDatapathSupport, podMtu, tunnelInterfaceOptions } from '../src/bridge';
import { hostInterfaceName, podResult, randomMac } from '../src/features/pods/pod-network';

describe('hostInterfaceName', () => {
  it('is at most 15 characters, starts with the sanitized pod name, and is stable', () => {
    fc.assert(
      fc.property(fc.string(), fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), (ns, name, id) => {
        const n = hostInterfaceName(ns, name, id);
        expect(n.length).toBeLessThanOrEqual(15);
        expect(n).toMatch(/^[a-z0-9]{1,6}-[0-9a-f]{8}$/);
        expect(hostInterfaceName(ns, name, id)).toBe(n);
      }),
    );
    expect(hostInterfaceName('default', 'Web-Server-1', 'abc').startsWith('webser-')).toBe(true);
  });
  it('differs for another container of the same pod (a recreated sandbox never reuses the old name)', () => {
    expect(hostInterfaceName('d', 'p', 'c1')).not.toBe(hostInterfaceName('d', 'p', 'c2'));
  });
});

it('randomMac gives locally administered unicast addresses', () => {
  for (let i = 0; i < 100; i++) {
    const mac = randomMac();
    expect(mac).toMatch(/^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/);
    const first = parseInt(mac.slice(0, 2), 16);
    expect(first & 1).toBe(0);
    expect(first & 2).toBe(2);
  }
});

describe('tunnels', () => {
  it('uses flow-based remote_ip and key, a custom port when set, csum when asked', () => {
    expect(tunnelInterfaceOptions({ tunnelType: 'geneve', tunnelPort: 0, tunnelCsum: false })).toEqual({ remote_ip: 'flow', key: 'flow' });
    expect(tunnelInterfaceOptions({ tunnelType: 'vxlan', tunnelPort: 8472, tunnelCsum: true })).toEqual({ remote_ip: 'flow', key: 'flow', dst_port: '8472', csum: 'true' });
    expect(tunnelInterfaceOptions({ tunnelType: 'gre', tunnelPort: 1234, tunnelCsum: false })).toEqual({ remote_ip: 'flow', key: 'flow' });
  });
  it('refuses stt on netdev but not on the kernel datapath', () => {
    expect(() => checkDatapathSupport({ datapathType: 'netdev', tunnelType: 'stt' })).toThrow(AgentError);
    expect(() => checkDatapathSupport({ datapathType: 'system', tunnelType: 'stt' })).not.toThrow();
  });
  it('subtracts the tunnel overhead from the link MTU', () => {
    expect(podMtu(1500, 'geneve')).toBe(1450);
    expect(podMtu(1500, 'vxlan')).toBe(1450);
    // GRE: 14 + 20 + a GRE header of 8 with the key (key=flow), as Antrea's greOverhead.
    expect(podMtu(1500, 'gre')).toBe(1458);
  });
  it('over an IPv6 underlay, 20 bytes more (the outer IPv6 header): Geneve costs 70 bytes, as Antrea deducts', () => {
    expect(podMtu(1500, 'geneve', true, true)).toBe(1430);
    expect(podMtu(1500, 'vxlan', true, true)).toBe(1430);
    expect(podMtu(1500, 'gre', true, true)).toBe(1438);
    // Not encapsulated: nothing to deduct whatever the underlay.
    expect(podMtu(1500, 'geneve', false, true)).toBe(1500);
  });
  it('sets local_ip to the node\'s IPv6 address on an IPv6 underlay, and nothing else changes', () => {
    expect(tunnelInterfaceOptions({ tunnelType: 'geneve', tunnelPort: 0, tunnelCsum: false, tunnelLocalIP: 'fd00:77::1' })).toEqual({ remote_ip: 'flow', key: 'flow', local_ip: 'fd00:77::1' });
  });
});

describe('agentOptionsFromConfig', () => {
  const node = { nodeName: 'n1', podCIDR: '10.0.1.0/24', nodeIP: '192.168.0.2', dataDir: '/var/lib/switchyard' };
  it('maps antrea-agent.conf keys', () => {
    const { config } = parseAgentConfig({ ovsBridge: 'br-x', ovsDatapathType: 'netdev', hostGateway: 'gw9', tunnelType: 'vxlan', defaultMTU: 9000, cniSocket: '/run/s.sock', ovsRunDir: '/run/ovs' });
    const o = agentOptionsFromConfig(config, node);
    expect(o).toMatchObject({
      bridge: 'br-x', datapathType: 'netdev', gatewayName: 'gw9', tunnelType: 'vxlan', linkMtu: 9000, cniSocket: '/run/s.sock',
      ovsRunDir: '/run/ovs', ovsdbRemote: 'unix:/run/ovs/db.sock', disableTxChecksumOffload: true, ...node,
    });
  });
  it('defaults to Antrea values and maps every traffic mode, noSNAT and apiPort', () => {
    const o = agentOptionsFromConfig(parseAgentConfig({}).config, node);
    expect(o).toMatchObject({ bridge: 'br-int', gatewayName: 'antrea-gw0', tunnelType: 'geneve', cniSocket: '/var/run/antrea/cni.sock' });
    expect(o.linkMtu).toBeUndefined();
    expect(o).toMatchObject({ trafficMode: 'encap', noSNAT: false, apiPort: 10350 });
    expect(agentOptionsFromConfig(parseAgentConfig({ trafficEncapMode: 'noEncap', noSNAT: true, apiPort: 10400 }).config, node)).toMatchObject({ trafficMode: 'noEncap', noSNAT: true, apiPort: 10400 });
    expect(agentOptionsFromConfig(parseAgentConfig({ trafficEncapMode: 'hybrid' }).config, node).trafficMode).toBe('hybrid');
    expect(agentOptionsFromConfig(parseAgentConfig({ trafficEncapMode: 'networkPolicyOnly' }).config, node).trafficMode).toBe('networkPolicyOnly');
  });
});

it('podResult describes the host and pod interfaces, address, gateway and default route', () => {
  const r = podResult({
    containerId: 'c', podName: 'p', podNamespace: 'd', ifname: 'eth0', netns: '/n', hostIfName: 'p-1', ipCidr: '10.0.0.5/24',
    gateway: '10.0.0.1', mac: '02:00:00:00:00:05', mtu: 1450, ofport: 3,
  });
  expect(r).toEqual({
    cniVersion: '1.0.0',
    interfaces: [{ name: 'p-1' }, { name: 'eth0', mac: '02:00:00:00:00:05', mtu: 1450, sandbox: '/n' }],
    ips: [{ address: '10.0.0.5/24', gateway: '10.0.0.1', interface: 1 }],
    routes: [{ dst: '0.0.0.0/0', gw: '10.0.0.1' }],
    dns: {},
  });
});
