import { RoundRobin, checkIpFamily, declaredPorts, parseEncryption, parseFeatureGates, parseIpFamily, parseMode, planNodes, serverArgv } from '../src/plan';

describe('planNodes', () => {
  it('names nodes node1..nodeN with pod CIDR 10.10.<i>.0/24 and an underlay address each', () => {
    const plans = planNodes(3, (n) => `tok-${n}`);
    expect(plans.map((p) => [p.name, p.podCIDR, p.nodeIP, p.token])).toEqual([
      ['node1', '10.10.1.0/24', '192.168.77.1', 'tok-node1'],
      ['node2', '10.10.2.0/24', '192.168.77.2', 'tok-node2'],
      ['node3', '10.10.3.0/24', '192.168.77.3', 'tok-node3'],
    ]);
  });

  it('puts every node in 192.168.77.0/24 with the fabric router at .254 in encap and noEncap', () => {
    for (const mode of ['encap', 'noEncap'] as const)
      expect(planNodes(3, () => 't', mode).map((p) => [p.nodeIP, p.subnet, p.fabricGateway])).toEqual([
        ['192.168.77.1', '192.168.77.0/24', '192.168.77.254'],
        ['192.168.77.2', '192.168.77.0/24', '192.168.77.254'],
        ['192.168.77.3', '192.168.77.0/24', '192.168.77.254'],
      ]);
  });

  it('splits the fabric in hybrid: the first ceil(n/2) nodes in 192.168.77.0/24, the rest in 192.168.78.0/24', () => {
    expect(planNodes(3, () => 't', 'hybrid').map((p) => [p.name, p.nodeIP, p.fabricGateway])).toEqual([
      ['node1', '192.168.77.1', '192.168.77.254'],
      ['node2', '192.168.77.2', '192.168.77.254'],
      ['node3', '192.168.78.3', '192.168.78.254'],
    ]);
    expect(planNodes(4, () => 't', 'hybrid').map((p) => p.subnet)).toEqual(['192.168.77.0/24', '192.168.77.0/24', '192.168.78.0/24', '192.168.78.0/24']);
  });

  it('lays out a cluster of a multi-cluster lab by pod CIDR prefix and node IP offset', () => {
    expect(planNodes(2, () => 't', 'encap', { podCIDRPrefix: '10.12', nodeIPBase: 20 }).map((p) => [p.name, p.podCIDR, p.nodeIP])).toEqual([
      ['node1', '10.12.1.0/24', '192.168.77.21'],
      ['node2', '10.12.2.0/24', '192.168.77.22'],
    ]);
    expect(() => planNodes(31, () => 't', 'encap', { nodeIPBase: 220 })).toThrow(expect.objectContaining({ code: 'INVALID_NODES' }));
  });

  it('accepts the three lab modes and refuses others with INVALID_MODE on --mode', () => {
    expect(['encap', 'noEncap', 'hybrid'].map(parseMode)).toEqual(['encap', 'noEncap', 'hybrid']);
    expect(() => parseMode('networkPolicyOnly')).toThrow(expect.objectContaining({ code: 'INVALID_MODE', path: '--mode', value: 'networkPolicyOnly' }));
  });

  it('reads --feature-gates as Name=true|false pairs and names a bad one', () => {
    expect(parseFeatureGates('ServiceExternalIP=true, Egress=false')).toEqual({ ServiceExternalIP: true, Egress: false });
    expect(() => parseFeatureGates('ServiceExternalIP')).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', path: '--feature-gates', value: 'ServiceExternalIP' }));
  });

  it('accepts --encryption none and wireGuard and refuses ipsec (no kernel datapath here) naming --encryption', () => {
    expect(['none', 'wireGuard'].map(parseEncryption)).toEqual(['none', 'wireGuard']);
    expect(() => parseEncryption('ipsec')).toThrow(expect.objectContaining({ code: 'INVALID_MODE', path: '--encryption', value: 'ipsec' }));
  });

  it.each([0, -1, 1.5, 251, Number.NaN])('refuses %p nodes with INVALID_NODES on --nodes', (n) => {
    expect(() => planNodes(n, () => 't')).toThrow(expect.objectContaining({ code: 'INVALID_NODES', path: '--nodes' }));
  });
});

describe('RoundRobin', () => {
  it('hands out the nodes in turn and wraps around', () => {
    const rr = new RoundRobin(['node1', 'node2']);
    expect([rr.pick(), rr.pick(), rr.pick()]).toEqual(['node1', 'node2', 'node1']);
  });
});

describe('declaredPorts / serverArgv', () => {
  it('collects every container port once, protocol defaulting to TCP', () => {
    const ports = declaredPorts({
      containers: [
        { ports: [{ containerPort: 80 }, { containerPort: 81, protocol: 'UDP' }] },
        { ports: [{ containerPort: 80, protocol: 'TCP' }, { containerPort: 82, protocol: 'SCTP' }] },
        {},
      ],
    });
    expect(ports).toEqual([
      { port: 80, protocol: 'TCP' },
      { port: 81, protocol: 'UDP' },
      { port: 82, protocol: 'SCTP' },
    ]);
  });

  it('serves TCP and UDP with socat (a datagram server for UDP) and leaves SCTP out (no kernel module here)', () => {
    expect(serverArgv({ port: 80, protocol: 'TCP' })).toEqual(['socat', 'TCP-LISTEN:80,reuseaddr,fork', 'SYSTEM:echo pong']);
    expect(serverArgv({ port: 81, protocol: 'UDP' })).toEqual([process.execPath, '-e', expect.any(String), '81']);
    expect(serverArgv({ port: 82, protocol: 'SCTP' })).toBeUndefined();
  });
});

describe('--ip-family', () => {
  test('dual gives each node an IPv6 pod CIDR fd00:10:<i>::/64 beside the IPv4 one; ipv4 (the default) none', () => {
    expect(planNodes(2, () => 't', 'encap', {}, 'dual').map((p) => [p.podCIDR, p.podCIDRv6])).toEqual([
      ['10.10.1.0/24', 'fd00:10:1::/64'],
      ['10.10.2.0/24', 'fd00:10:2::/64'],
    ]);
    expect(planNodes(2, () => 't').map((p) => 'podCIDRv6' in p)).toEqual([false, false]);
  });
  test('a value other than ipv4 or dual is refused naming the flag', () => {
    expect(parseIpFamily('dual')).toBe('dual');
    expect(() => parseIpFamily('ipv6')).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', path: '--ip-family', value: 'ipv6' }));
  });
  test('dual is refused with a mode other than encap or with encryption (the underlay is IPv4), naming the flag', () => {
    expect(() => checkIpFamily('dual', 'encap', 'none')).not.toThrow();
    expect(() => checkIpFamily('ipv4', 'noEncap', 'wireGuard')).not.toThrow();
    expect(() => checkIpFamily('dual', 'noEncap', 'none')).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', path: '--ip-family', message: expect.stringContaining('got --mode noEncap') }));
    expect(() => checkIpFamily('dual', 'encap', 'wireGuard')).toThrow(expect.objectContaining({ message: expect.stringContaining('--encryption wireGuard') }));
  });
  test("a dual-stack pod's TCP server listens on an IPv6 socket (IPv4 too); an IPv4 pod's as before", () => {
    expect(serverArgv({ port: 80, protocol: 'TCP' }, true)).toEqual(['socat', 'TCP6-LISTEN:80,reuseaddr,fork', 'SYSTEM:echo pong']);
    expect(serverArgv({ port: 80, protocol: 'TCP' })).toEqual(['socat', 'TCP-LISTEN:80,reuseaddr,fork', 'SYSTEM:echo pong']);
  });
});
