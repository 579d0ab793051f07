import { FABRIC_HOST_V6, RoundRobin, brPhyAddressing, declaredPorts, nodeInternalIPs, serviceCIDROf, parseEncryption, parseFeatureGates, parseIpFamily, parseMode, planNodes, podServerArgv, POD_SERVER_READY } from '../src/plan';
import { spawn, type ChildProcess } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { connect, createServer } from 'node:net';

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

describe('declaredPorts / podServerArgv', () => {
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

  it('serves TCP and UDP from one process and leaves SCTP out (no kernel module here)', () => {
    const argv = podServerArgv([{ port: 80, protocol: 'TCP' }, { port: 81, protocol: 'UDP' }, { port: 82, protocol: 'SCTP' }]);
    expect(argv).toEqual([process.execPath, '-e', expect.any(String), '4', 'TCP/80', 'UDP/81']);
    expect(podServerArgv([{ port: 82, protocol: 'SCTP' }])).toBeUndefined();
    expect(podServerArgv([])).toBeUndefined();
  });
});

/** A port free on loopback now (bound and released). */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

function tcpAnswer(port: number, host = '127.0.0.1'): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = '';
    const c = connect({ port, host });
    c.setEncoding('utf8');
    c.on('data', (d: string) => (data += d));
    c.on('end', () => resolve(data));
    c.on('error', reject);
  });
}

function udpAnswer(port: number, type: 'udp4' | 'udp6' = 'udp4', host = '127.0.0.1'): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = createSocket(type);
    s.on('message', (m) => {
      s.close();
      resolve(m.toString('utf8'));
    });
    s.on('error', reject);
    s.send('ping\n', port, host);
  });
}

async function startServer(argv: string[]): Promise<ChildProcess> {
  const child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString('utf8');
      if (out.includes(POD_SERVER_READY)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`pod server exited with ${String(code)}`)));
  });
  return child;
}

describe('the pod server', () => {
  const children: ChildProcess[] = [];
  afterAll(() => children.forEach((c) => c.kill('SIGKILL')));

  it('says it listens, then answers pong to 200 concurrent connections on each TCP port and to datagrams on its UDP port', async () => {
    const [t1, t2, u] = [await freePort(), await freePort(), await freePort()];
    children.push(await startServer(podServerArgv([{ port: t1, protocol: 'TCP' }, { port: t2, protocol: 'TCP' }, { port: u, protocol: 'UDP' }])!));
    // More at once than a forking server's backlog of 5 ever took on a slow machine.
    const answers = await Promise.all([...Array<number>(200).fill(t1), ...Array<number>(200).fill(t2)].map((p) => tcpAnswer(p)));
    expect(answers.filter((a) => a === 'pong\n')).toHaveLength(400);
    expect(await Promise.all(Array.from({ length: 16 }, () => udpAnswer(u)))).toEqual(Array<string>(16).fill('pong\n'));
  });

  it('on an IPv6 pod, answers over IPv6 and IPv4 alike', async () => {
    const [t, u] = [await freePort(), await freePort()];
    children.push(await startServer(podServerArgv([{ port: t, protocol: 'TCP' }, { port: u, protocol: 'UDP' }], true)!));
    expect([await tcpAnswer(t, '::1'), await tcpAnswer(t, '127.0.0.1')]).toEqual(['pong\n', 'pong\n']);
    expect([await udpAnswer(u, 'udp6', '::1'), await udpAnswer(u, 'udp4', '127.0.0.1')]).toEqual(['pong\n', 'pong\n']);
  });

  it('exits with the port named when it cannot listen', async () => {
    const busy = createServer();
    const port = await new Promise<number>((resolve) => busy.listen(0, '0.0.0.0', () => resolve((busy.address() as { port: number }).port)));
    const argv = podServerArgv([{ port, protocol: 'TCP' }])!;
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr!.on('data', (c: Buffer) => (err += c.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    busy.close();
    expect(code).toBe(1);
    expect(err).toContain(`pod server TCP/${port}: listen EADDRINUSE`);
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
  test('dual in a cluster of the multi-cluster lab: its own IPv6 pod CIDRs and node IPv6 addresses after nodeIPBase', () => {
    expect(planNodes(2, () => 't', 'encap', { podCIDRPrefix: '10.12', podCIDRv6Prefix: 'fd00:12', nodeIPBase: 20 }, 'dual').map((p) => [p.podCIDR, p.podCIDRv6, p.nodeIP, p.nodeIPv6])).toEqual([
      ['10.12.1.0/24', 'fd00:12:1::/64', '192.168.77.21', 'fd00:77::15'],
      ['10.12.2.0/24', 'fd00:12:2::/64', '192.168.77.22', 'fd00:77::16'],
    ]);
  });
  test('dual gives each node an IPv6 underlay address fd00:77::<i> beside its IPv4 one (the fabric host is fd00:77::fe); ipv4 none', () => {
    expect(planNodes(2, () => 't', 'encap', {}, 'dual').map((p) => [p.nodeIP, p.nodeIPv6, 'fabricGatewayV6' in p])).toEqual([
      ['192.168.77.1', 'fd00:77::1', false],
      ['192.168.77.2', 'fd00:77::2', false],
    ]);
    expect(FABRIC_HOST_V6).toBe('fd00:77::fe');
    expect(planNodes(1, () => 't').map((p) => 'nodeIPv6' in p)).toEqual([false]);
  });
  test('ipv6 gives each node the IPv6 underlay alone: fd00:77::<i> is its node IP (the tunnels\' endpoint), its subnet fd00:77::/64, its fabric router fd00:77::fe', () => {
    expect(planNodes(2, () => 't', 'encap', {}, 'ipv6').map((p) => [p.nodeIP, p.nodeIPv6, p.subnet, p.fabricGateway, 'fabricGatewayV6' in p])).toEqual([
      ['fd00:77::1', 'fd00:77::1', 'fd00:77::/64', 'fd00:77::fe', false],
      ['fd00:77::2', 'fd00:77::2', 'fd00:77::/64', 'fd00:77::fe', false],
    ]);
  });
  test('hybrid splits the IPv6 underlay as the IPv4 one: the first half in fd00:77::/64, the others in fd00:78::/64, each with its fabric router', () => {
    expect(planNodes(3, () => 't', 'hybrid', {}, 'dual').map((p) => [p.nodeIP, p.nodeIPv6, p.fabricGatewayV6])).toEqual([
      ['192.168.77.1', 'fd00:77::1', 'fd00:77::fe'],
      ['192.168.77.2', 'fd00:77::2', 'fd00:77::fe'],
      ['192.168.78.3', 'fd00:78::3', 'fd00:78::fe'],
    ]);
    expect(planNodes(3, () => 't', 'hybrid', {}, 'ipv6').map((p) => [p.nodeIP, p.nodeIPv6, p.subnet, p.fabricGatewayV6])).toEqual([
      ['fd00:77::1', 'fd00:77::1', 'fd00:77::/64', 'fd00:77::fe'],
      ['fd00:77::2', 'fd00:77::2', 'fd00:77::/64', 'fd00:77::fe'],
      ['fd00:78::3', 'fd00:78::3', 'fd00:78::/64', 'fd00:78::fe'],
    ]);
    expect(planNodes(3, () => 't', 'noEncap', {}, 'dual').map((p) => p.nodeIPv6)).toEqual(['fd00:77::1', 'fd00:77::2', 'fd00:77::3']);
  });
  test('br-phy: an IPv4 address and route beside the IPv6 ones with dual, none with ipv6; the Node\'s InternalIPs likewise', () => {
    const [dual] = planNodes(1, () => 't', 'encap', {}, 'dual');
    expect(brPhyAddressing(dual!)).toEqual([
      ['ip', 'addr', 'replace', '192.168.77.1/24', 'dev', 'br-phy'],
      ['ip', 'link', 'set', 'br-phy', 'up'],
      ['ip', 'route', 'replace', '192.168.78.0/24', 'via', '192.168.77.254', 'dev', 'br-phy'],
      ['ip', '-6', 'addr', 'replace', 'fd00:77::1/64', 'dev', 'br-phy', 'nodad'],
    ]);
    expect(nodeInternalIPs(dual!)).toEqual(['192.168.77.1', 'fd00:77::1']);
    const v6 = planNodes(3, () => 't', 'hybrid', {}, 'ipv6');
    expect(brPhyAddressing(v6[2]!)).toEqual([
      ['ip', 'link', 'set', 'br-phy', 'up'],
      ['ip', '-6', 'addr', 'replace', 'fd00:78::3/64', 'dev', 'br-phy', 'nodad'],
      ['ip', '-6', 'route', 'replace', 'fd00:77::/64', 'via', 'fd00:78::fe', 'dev', 'br-phy'],
    ]);
    expect(brPhyAddressing(v6[0]!).flat().some((a) => /^\d+\.\d+\.\d+\.\d+/.test(a))).toBe(false);
    expect(nodeInternalIPs(v6[2]!)).toEqual(['fd00:78::3']);
    expect(nodeInternalIPs(planNodes(1, () => 't')[0]!)).toEqual(['192.168.77.1']);
  });
  test('ipv6 gives each node the IPv6 pod CIDR fd00:10:<i>::/64 as its only one', () => {
    expect(planNodes(2, () => 't', 'encap', {}, 'ipv6').map((p) => [p.podCIDR, 'podCIDRv6' in p])).toEqual([
      ['fd00:10:1::/64', false],
      ['fd00:10:2::/64', false],
    ]);
  });
  test('the Service range: the API server default for ipv4, both families for dual, IPv6 alone for ipv6', () => {
    expect([serviceCIDROf('ipv4'), serviceCIDROf('dual'), serviceCIDROf('ipv6')]).toEqual([undefined, '10.96.0.0/12,fd00:10:96::/108', 'fd00:10:96::/108']);
  });
  test('a value other than ipv4, dual or ipv6 is refused naming the flag', () => {
    expect(parseIpFamily('dual')).toBe('dual');
    expect(parseIpFamily('ipv6')).toBe('ipv6');
    expect(() => parseIpFamily('IPv6')).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', path: '--ip-family', value: 'IPv6', message: expect.stringContaining('ipv4, dual, ipv6') }));
  });
  test("a dual-stack pod's server listens on IPv6 sockets (IPv4 too); an IPv4 pod's on IPv4", () => {
    expect(podServerArgv([{ port: 80, protocol: 'TCP' }], true)?.slice(3)).toEqual(['6', 'TCP/80']);
    expect(podServerArgv([{ port: 80, protocol: 'TCP' }])?.slice(3)).toEqual(['4', 'TCP/80']);
  });
});
