import { createHash } from 'node:crypto';
import { parseAgentConfig } from '@switchyard/apis';
import { agentContext } from '../src/context';
import { IPSEC_ESP_OVERHEAD, IPSEC_PSK_ENV, desiredIPsecPorts, ipsecExternalIds, ipsecPSK, ipsecPodMtu, ipsecTunnelOptions, ipsecTunnelPortName } from '../src/features/ipsec/ipsec';
import { agentOptionsFromConfig, resolveAgentOptions } from '../src/options';

const kube = { request: () => Promise.reject(new Error('unused')), watch: () => Promise.reject(new Error('unused')) };
const base = { nodeName: 'n1', podCIDR: '10.10.1.0/24', nodeIP: '192.168.77.1', ovsdbRemote: 'unix:/x', dataDir: '/tmp/x', trafficEncryptionMode: 'ipsec' as const, kube };

describe('ipsecTunnelPortName', () => {
  test('is the node name when short, a hyphen and the first 6 hex digits of sha1("node/<name>")', () => {
    const sha = createHash('sha1').update('node/k8s-1').digest('hex');
    expect(ipsecTunnelPortName('k8s-1')).toBe(`k8s-1-${sha.slice(0, 6)}`);
  });

  test('keeps the last 8 characters of a long name, drops their leading hyphens, never passes 15 characters', () => {
    const sha = createHash('sha1').update('node/worker-node-0001').digest('hex');
    expect(ipsecTunnelPortName('worker-node-0001')).toBe(`ode-0001-${sha.slice(0, 6)}`);
    const hy = ipsecTunnelPortName('abcdefgh--node01');
    expect(hy.startsWith('node01-')).toBe(true);
    for (const n of ['a', 'node-with-a-very-long-name-indeed', 'x'.repeat(63)]) expect(ipsecTunnelPortName(n).length).toBeLessThanOrEqual(15);
  });

  test('differs between nodes sharing the last 8 characters', () => {
    expect(ipsecTunnelPortName('east-worker-1')).not.toBe(ipsecTunnelPortName('west-worker-1'));
  });
});

describe('per-peer port rows', () => {
  test('options carry the fixed remote_ip and the psk, no flow-based key; dst_port and csum only when set', () => {
    expect(ipsecTunnelOptions({ remoteIP: '192.168.77.2', remoteName: 'n2', auth: { psk: 's3cret' }, tunnelType: 'geneve', tunnelPort: 0, tunnelCsum: false })).toEqual({ remote_ip: '192.168.77.2', psk: 's3cret' });
    expect(ipsecTunnelOptions({ remoteIP: '192.168.77.2', remoteName: 'n2', auth: { psk: 's3cret' }, tunnelType: 'vxlan', tunnelPort: 4790, tunnelCsum: true })).toEqual({ remote_ip: '192.168.77.2', psk: 's3cret', dst_port: '4790', csum: 'true' });
    expect(ipsecTunnelOptions({ remoteIP: '192.168.77.2', remoteName: 'n2', auth: { psk: 'k' }, tunnelType: 'gre', tunnelPort: 4790, tunnelCsum: false })).not.toHaveProperty('dst_port');
    // On an IPv6 underlay: local_ip beside an IPv6 remote (one family for ovs-monitor-ipsec), none beside an IPv4 one.
    expect(ipsecTunnelOptions({ remoteIP: 'fd00:77::2', remoteName: 'n2', auth: { psk: 'k' }, tunnelType: 'gre', tunnelPort: 0, tunnelCsum: false, localIP: 'fd00:77::1' })).toEqual({ remote_ip: 'fd00:77::2', psk: 'k', local_ip: 'fd00:77::1' });
    expect(ipsecTunnelOptions({ remoteIP: '192.168.77.2', remoteName: 'n2', auth: { psk: 'k' }, tunnelType: 'gre', tunnelPort: 0, tunnelCsum: false, localIP: 'fd00:77::1' })).not.toHaveProperty('local_ip');
  });

  test('external_ids name the interface type and the peer Node', () => {
    expect(ipsecExternalIds('n2')).toEqual({ 'antrea-type': 'ipsec-tunnel', 'node-name': 'n2' });
  });

  test('one port per peer, keyed by its name', () => {
    const peers = [{ name: 'n2', podCIDR: '10.10.2.0/24', nodeIP: '192.168.77.2', gatewayIP: '10.10.2.1' }, { name: 'n3', podCIDR: '10.10.3.0/24', nodeIP: '192.168.77.3', gatewayIP: '10.10.3.1' }];
    expect([...desiredIPsecPorts(peers).entries()].map(([k, v]) => [k, v.name])).toEqual([[ipsecTunnelPortName('n2'), 'n2'], [ipsecTunnelPortName('n3'), 'n3']]);
  });
});

describe('IPsec MTU', () => {
  test('the ESP overhead is 38 bytes on top of the tunnel overhead', () => {
    expect(IPSEC_ESP_OVERHEAD).toBe(38);
    expect(ipsecPodMtu(1450)).toBe(1412);
  });

  test('the agent gives pods the link MTU less tunnel and ESP overhead (geneve 1412, gre 1420)', () => {
    expect(agentContext({ ...base, ipsecPSK: 'k' }).mtu).toBe(1500 - 50 - 38);
    expect(agentContext({ ...base, ipsecPSK: 'k', tunnelType: 'gre' }).mtu).toBe(1500 - 42 - 38);
    expect(agentContext({ ...base, trafficEncryptionMode: 'none' }).mtu).toBe(1450);
  });
});

describe('IPsec options', () => {
  const saved = process.env[IPSEC_PSK_ENV];
  afterEach(() => {
    if (saved === undefined) delete process.env[IPSEC_PSK_ENV];
    else process.env[IPSEC_PSK_ENV] = saved;
  });

  test(`the PSK comes from ${IPSEC_PSK_ENV} when no option gives it`, () => {
    process.env[IPSEC_PSK_ENV] = 'from-secret';
    expect(resolveAgentOptions(base).ipsecPSK).toBe('from-secret');
    expect(resolveAgentOptions({ ...base, ipsecPSK: 'explicit' }).ipsecPSK).toBe('explicit');
  });

  test(`a missing or empty PSK is INVALID_CONFIG naming ${IPSEC_PSK_ENV}`, () => {
    delete process.env[IPSEC_PSK_ENV];
    expect(() => resolveAgentOptions(base)).toThrow(expect.objectContaining({ code: 'INVALID_CONFIG', path: IPSEC_PSK_ENV, message: expect.stringContaining(IPSEC_PSK_ENV) }));
    expect(() => ipsecPSK('', {})).toThrow(IPSEC_PSK_ENV);
  });

  test('a PSK that would break ipsec.secrets is refused without echoing it', () => {
    let err: unknown;
    try {
      ipsecPSK('ab"cd', {});
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: 'INVALID_CONFIG', value: undefined });
    expect(String((err as Error).message)).not.toContain('ab"cd');
  });

  test('ipsec needs the Kubernetes API and encap mode', () => {
    const { kube: _k, ...noKube } = base;
    expect(() => resolveAgentOptions({ ...noKube, ipsecPSK: 'k' })).toThrow('needs the Kubernetes API');
    expect(() => resolveAgentOptions({ ...base, ipsecPSK: 'k', trafficMode: 'hybrid' })).toThrow(expect.objectContaining({ code: 'INVALID_CONFIG', path: 'trafficEncapMode' }));
  });

  test('antrea-agent.conf trafficEncryptionMode ipsec and ipsec.authenticationMode reach the options; cert needs no PSK', () => {
    const node = { nodeName: 'n1', podCIDR: '10.10.1.0/24', nodeIP: '192.168.77.1', dataDir: '/tmp/x' };
    expect(agentOptionsFromConfig(parseAgentConfig({ trafficEncryptionMode: 'ipsec' }).config, node)).toMatchObject({ trafficEncryptionMode: 'ipsec', ipsecAuthenticationMode: 'psk' });
    const cert = agentOptionsFromConfig(parseAgentConfig({ trafficEncryptionMode: 'ipsec', ipsec: { authenticationMode: 'cert' } }).config, node);
    expect(cert).toMatchObject({ trafficEncryptionMode: 'ipsec', ipsecAuthenticationMode: 'cert' });
    const saved = process.env[IPSEC_PSK_ENV];
    delete process.env[IPSEC_PSK_ENV];
    try {
      expect(resolveAgentOptions({ ...base, ipsecAuthenticationMode: 'cert' }).ipsecPSK).toBeUndefined();
    } finally {
      if (saved !== undefined) process.env[IPSEC_PSK_ENV] = saved;
    }
  });

  test('with certificates a peer port names the peer (remote_name) instead of carrying a PSK', () => {
    expect(ipsecTunnelOptions({ remoteIP: '192.168.77.2', remoteName: 'node-2', auth: { certificate: true }, tunnelType: 'gre', tunnelPort: 0, tunnelCsum: false })).toEqual({ remote_ip: '192.168.77.2', remote_name: 'node-2' });
  });
});
