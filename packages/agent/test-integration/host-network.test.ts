// NodeNetwork against real namespaces: the lab set-up (node netns other than the agent's: veth by
// rtnetlink across namespaces, the rest through nsenter) in this process, and the real-node
// set-up (node netns = the agent's own: links, addresses, routes by rtnetlink) in a child started
// inside a node netns.
import { join } from 'node:path';
import { Testbed, run, type Netns } from '@switchyard/testbed';
import { NetnsHelper } from '../src/host-network/netns-helper';
import { NetlinkError } from '../src/host-network/rtnetlink';
import { NodeNetwork, SERVICE_ROUTE_PROTO } from '../src/netops';
import { ServiceHostNetwork } from '../src/features/services/host-proxy';
import { uninstall as uninstallServices } from '../src/features/services/uninstall';
import { NetnsListener } from '../src/host-network/netns-listener';
import { silentLogger } from '@switchyard/runtime';
import { buildNetnsHelper, PKG_DIR } from './helpers';
import { MC_ROUTE_PROTO, MC_ROUTE_TABLE, syncGatewayWireGuardRoutes } from '../src/features/multicluster/host-routes';
import { GLOBAL_VIRTUAL_MAC } from '@switchyard/openflow-pipeline';

let tb: Testbed;
beforeAll(async () => {
  tb = await Testbed.create();
});
afterAll(async () => {
  await tb?.cleanup();
});

interface JsonLink {
  ifname: string;
  address: string;
  mtu: number;
  flags: string[];
  link_netnsid?: number;
}
const link = async (netns: string, name: string): Promise<JsonLink> => (JSON.parse((await run(['ip', '-j', 'link', 'show', 'dev', name], { netns })).stdout) as JsonLink[])[0]!;
const links = async (netns: string): Promise<string[]> => (JSON.parse((await run(['ip', '-j', 'link', 'show'], { netns })).stdout) as JsonLink[]).map((l) => l.ifname);
const sysctl = async (netns: string, path: string): Promise<string> => (await run(['cat', `/proc/sys/net/${path}`], { netns })).stdout.trim();
const txChecksum = async (netns: string, dev: string): Promise<string> => /tx-checksumming: (\w+)/.exec((await run(['ethtool', '-k', dev], { netns })).stdout)?.[1] ?? '';

describe.each(['child processes', 'switchyard-netns'] as const)('lab set-up: the node namespace is not the agent’s, pod side set by %s', (how) => {
  let node: Netns;
  let pod: Netns;
  let net: NodeNetwork;
  const spec = (p: Netns) => ({ netns: p.path, ifname: 'eth0', hostIfName: 'pod-lab', mac: '02:00:0a:4e:00:05', ipCidr: '10.78.0.5/24', gateway: '10.78.0.1', mtu: 1450, txOffloadOff: true });
  beforeAll(async () => {
    node = await tb.createNetns('n');
    pod = await tb.createNetns('p');
    net = new NodeNetwork(node.name, how === 'switchyard-netns' ? { netnsHelper: await buildNetnsHelper() } : {});
  });
  afterAll(() => net.close());

  test('creates the host end up in the node namespace and the peer in the pod’s, configured on both sides', async () => {
    await net.createPodLink(spec(pod));
    const host = await link(node.name, 'pod-lab');
    expect(host.flags).toContain('UP');
    // Promiscuous already, so ovs-vswitchd attaching it changes no flag (no link event, no reconfiguration).
    expect(host.flags).toContain('PROMISC');
    expect(host.mtu).toBe(1450);
    expect(await links(pod.name)).toContain('eth0');
    expect(await links(pod.name)).not.toContain('pod-lab');
    // The host side is kept out of the kernel's way, in the node namespace.
    expect(await sysctl(node.name, 'ipv4/conf/pod-lab/arp_ignore')).toBe('8');
    expect(await sysctl(node.name, 'ipv4/conf/pod-lab/forwarding')).toBe('0');
    expect(await sysctl(node.name, 'ipv6/conf/pod-lab/disable_ipv6')).toBe('1');
    // The host end's offload is left as created: only OVS sends there, with checksums complete,
    // and a change would be one more link event (a full ovs-vswitchd reconfiguration).
    expect(await txChecksum(node.name, 'pod-lab')).toBe('on');
    const eth0 = await link(pod.name, 'eth0');
    expect(eth0.address).toBe('02:00:0a:4e:00:05');
    expect(eth0.mtu).toBe(1450);
    expect(await sysctl(pod.name, 'ipv6/conf/eth0/disable_ipv6')).toBe('1');
    expect(await txChecksum(pod.name, 'eth0')).toBe('off');
    expect(await net.podInterfaceState(pod.path, 'eth0')).toEqual({ mac: '02:00:0a:4e:00:05', up: true, addresses: ['10.78.0.5/24'], defaultGateway: '10.78.0.1' });
    expect(await net.hostLinkState('pod-lab')).toEqual({ exists: true, up: true, mtu: 1450 });
  });

  test('refuses a second veth of the same name with the kernel’s errno', async () => {
    const other = await tb.createNetns('p');
    await expect(net.createPodLink(spec(other))).rejects.toMatchObject({ name: 'NetlinkError', code: 'NETLINK_FAILED', errno: 'EEXIST', value: 'pod-lab' });
    await expect(net.createPodLink(spec(other))).rejects.toBeInstanceOf(NetlinkError);
  });

  test('deleting the host end takes the pod end with it, and a second delete reports nothing deleted', async () => {
    expect(await net.deleteHostLink('pod-lab')).toBe(true);
    expect(await links(pod.name)).not.toContain('eth0');
    expect(await net.deleteHostLink('pod-lab')).toBe(false);
    expect(await net.hostLinkState('pod-lab')).toEqual({ exists: false, up: false });
  });
});

describe('switchyard-netns', () => {
  test('a failed step comes back naming the step and the kernel’s reason; the helper serves the next request', async () => {
    const node = await tb.createNetns('n');
    const pod = await tb.createNetns('p');
    const helper = new NetnsHelper(await buildNetnsHelper());
    try {
      // No such host device in the node namespace.
      await expect(helper.podLink({ nodeNetns: node.path, hostIfName: 'nope0', podNetns: pod.path, ifname: 'eth0', ip: '10.78.0.5', prefix: 24, gateway: '10.78.0.1', txOffloadOff: false }))
        .rejects.toMatchObject({ code: 'EXEC_FAILED', message: expect.stringContaining('host side /proc/sys/net/ipv4/conf/nope0/arp_ignore: No such file or directory') });
      // A pod namespace path that is not there.
      await run(['ip', 'link', 'add', 'hn-a', 'type', 'veth', 'peer', 'name', 'eth0', 'netns', pod.name], { netns: node.name });
      await expect(helper.podLink({ nodeNetns: node.path, hostIfName: 'hn-a', podNetns: '/var/run/netns/none-such', ifname: 'eth0', ip: '10.78.0.5', prefix: 24, gateway: '10.78.0.1', txOffloadOff: false }))
        .rejects.toMatchObject({ message: expect.stringContaining('enter pod namespace /var/run/netns/none-such: No such file or directory') });
      // The same helper (back in its own namespace) then sets the pod up.
      await helper.podLink({ nodeNetns: node.path, hostIfName: 'hn-a', podNetns: pod.path, ifname: 'eth0', ip: '10.78.0.5', prefix: 24, gateway: '10.78.0.1', txOffloadOff: false });
      expect((await run(['ip', '-4', '-o', 'addr', 'show', 'dev', 'eth0'], { netns: pod.name })).stdout).toContain('10.78.0.5/24');
      // (linkdown: the host end was made here and left down)
      expect((await run(['ip', 'route', 'show', 'default'], { netns: pod.name })).stdout.trim()).toMatch(/^default via 10.78.0.1 dev eth0\b/);
      // Closed (its child ended by the handle it holds), it starts a new one on the next request.
      helper.close();
      await helper.podLink({ nodeNetns: node.path, hostIfName: 'hn-a', podNetns: pod.path, ifname: 'eth0', ip: '10.78.0.5', prefix: 24, gateway: '10.78.0.1', txOffloadOff: true });
      expect(await txChecksum(pod.name, 'eth0')).toBe('off');
    } finally {
      helper.close();
    }
  });

  test('refuses a field with a tab or newline before anything is sent', () => {
    const helper = new NetnsHelper('/nonexistent/switchyard-netns');
    expect(() => helper.podLink({ nodeNetns: undefined, hostIfName: 'a\tb', podNetns: '/x', ifname: 'eth0', ip: '10.0.0.1', prefix: 24, gateway: '10.0.0.2', txOffloadOff: false })).toThrow(/tab or newline/);
  });

  test('a helper that cannot start fails the request with the reason', async () => {
    const helper = new NetnsHelper('/nonexistent/switchyard-netns');
    await expect(helper.podLink({ nodeNetns: undefined, hostIfName: 'x', podNetns: '/x', ifname: 'eth0', ip: '10.0.0.1', prefix: 24, gateway: '10.0.0.2', txOffloadOff: false })).rejects.toMatchObject({ code: 'EXEC_FAILED', message: expect.stringContaining('ENOENT') });
  });
});

describe('real-node set-up: the node namespace is the agent’s own', () => {
  test('configures the gateway, pod veth, host routes and sysctls by rtnetlink', async () => {
    const node = await tb.createNetns('n');
    const pod = await tb.createNetns('p');
    const fixture = join(PKG_DIR, 'test-integration', 'fixtures', 'own-netns.ts');
    const res = await run([process.execPath, '--import', 'tsx', fixture, pod.path], { netns: node.name, env: { ...process.env, NODE_OPTIONS: '' } });
    const out = JSON.parse(res.stdout) as Record<string, unknown>;
    expect(out).toEqual({
      gatewayMac: (await link(node.name, 'gw0')).address,
      findAddress: { dev: 'gw0', prefix: 24 },
      findMissing: null,
      hostLink: { exists: true, up: true, mtu: 1400 },
      missingLink: { exists: false, up: false },
      sync1: { added: 2, deleted: 0 },
      sync2: { added: 1, deleted: 1 },
      sync3: { added: 0, deleted: 0 },
      together: [{ dev: 'gw0', prefix: 24 }, { dev: 'gw0', prefix: 24 }, { added: 0, deleted: 0 }],
      routeDevice: 'gw0',
      routeDeviceAfter: null,
      deleted: true,
      deletedAgain: false,
    });
    const gw = await link(node.name, 'gw0');
    expect(gw.mtu).toBe(1400);
    expect(gw.flags).toContain('UP');
    expect((await run(['ip', '-4', '-o', 'addr', 'show', 'dev', 'gw0'], { netns: node.name })).stdout).toContain('10.77.0.1/24');
    // Only the last sync's route is left, with its protocol, next hop and onlink flag.
    expect((await run(['ip', 'route', 'show', 'proto', '77'], { netns: node.name })).stdout.trim()).toBe('10.78.0.0/24 via 10.78.0.2 dev gw0 onlink');
    expect((await run(['ip', 'route', 'show', '10.80.0.7'], { netns: node.name })).stdout.trim()).toBe('');
    expect(await sysctl(node.name, 'ipv4/conf/gw0p/arp_ignore')).toBe('8');
    expect(await sysctl(node.name, 'ipv6/conf/gw0p/disable_ipv6')).toBe('1');
    expect(await links(node.name)).not.toContain('pod-own');
    expect(await links(pod.name)).not.toContain('eth0');
  });

  test('dual-stack: IPv6 routes to peer pod CIDRs and the peer gateways\' permanent neighbour entries by rtnetlink, synced to exactly the wanted ones', async () => {
    const node = await tb.createNetns('n');
    const fixture = join(PKG_DIR, 'test-integration', 'fixtures', 'own-netns-ipv6.ts');
    const res = await run([process.execPath, '--import', 'tsx', fixture], { netns: node.name, env: { ...process.env, NODE_OPTIONS: '' } });
    expect(JSON.parse(res.stdout)).toEqual({
      sync1: { added: 2, deleted: 0 },
      sync2: { added: 0, deleted: 1 },
      sync3: { added: 0, deleted: 0 },
      sync4: { added: 0, deleted: 0 },
      sync5: { added: 0, deleted: 0 },
      sync6: { added: 1, deleted: 0 },
    });
    expect((await run(['ip', '-6', 'route', 'show', 'proto', '79'], { netns: node.name })).stdout.trim()).toMatch(/^fc01::aabb:ccdd:eefe dev gw0 metric \d+/);
    expect((await run(['ip', '-6', 'route', 'show', 'proto', '77'], { netns: node.name })).stdout.trim()).toMatch(/^fd00:78::\/64 via fd00:78::1 dev gw0 metric \d+ onlink/);
    const neigh = (await run(['ip', '-6', 'neigh', 'show', 'dev', 'gw0', 'nud', 'permanent'], { netns: node.name })).stdout;
    expect(neigh).toContain('fd00:78::1 lladdr aa:bb:cc:dd:ee:ff PERMANENT');
    expect(neigh).not.toContain('fd00:79::1');
    expect(neigh).toContain('fd00:99::1 lladdr 02:00:00:00:00:99 PERMANENT');
    expect(neigh).toContain('fc01::aabb:ccdd:eefe lladdr aa:bb:cc:dd:ee:ff PERMANENT');
    expect((await run(['ip', '-4', 'route', 'show', 'proto', '77'], { netns: node.name })).stdout.trim()).toBe('10.78.0.0/24 via 10.78.0.1 dev gw0 onlink');
    expect(await sysctl(node.name, 'ipv6/conf/all/forwarding')).toBe('1');
  });
});

describe('the Services part\'s host side over IPv6 with proxyAll (lab set-up), and --uninstall', () => {
  test('ip6tables jumps to the node port chain from PREROUTING and OUTPUT, the IPv6 ClusterIP routes into the gateway; uninstall removes both families\' chains, jumps and routes', async () => {
    const node = await tb.createNetns('n');
    // A veth stands in for the gateway port (this kernel refuses dummy links).
    await run(['ip', 'link', 'add', 'gw0', 'type', 'veth', 'peer', 'name', 'gw0p'], { netns: node.name });
    await run(['ip', 'link', 'set', 'gw0p', 'up'], { netns: node.name });
    const net = new NodeNetwork(node.name);
    await net.configureGatewayV6('gw0', 'fd00:10:1::1/64');
    await run(['ip', 'link', 'set', 'gw0', 'up'], { netns: node.name });
    const host = new ServiceHostNetwork({ ops: net, listener: new NetnsListener(node.path), gatewayName: 'gw0', nodePortAddresses: [], routeProto: SERVICE_ROUTE_PROTO, proxyAll: true, ipv6: true });
    const nat = async (tool: string): Promise<string> => (await run([tool, '-w', '-t', 'nat', '-S'], { netns: node.name })).stdout;
    try {
      await host.sync([
        { groupId: 8, protocol: 'TCP', clusterIP: '10.96.0.10', port: 80, nodePort: 30080, endpoints: [] },
        { groupId: 9, protocol: 'TCP', clusterIP: 'fd00:10:96::a', port: 80, nodePort: 30090, endpoints: [] },
      ], []);
      for (const tool of ['iptables', 'ip6tables']) {
        expect(await nat(tool)).toContain('-A PREROUTING -j SWITCHYARD-NODEPORT');
        expect(await nat(tool)).toContain('-A OUTPUT -j SWITCHYARD-NODEPORT');
      }
      expect(await nat('ip6tables')).toContain('--dport 30090 -j DNAT --to-destination fc01::aabb:ccdd:eefe');
      const routes6 = (await run(['ip', '-6', 'route', 'show', 'proto', String(SERVICE_ROUTE_PROTO)], { netns: node.name })).stdout;
      expect(routes6).toMatch(/^fd00:10:96::a via fc01::aabb:ccdd:eeff dev gw0 .*onlink/m);
      expect(routes6).toMatch(/^fc01::aabb:ccdd:eeff dev gw0 /m);
      // The node's own connection to the ClusterIP leaves by the gateway from its IPv6 address.
      expect((await run(['ip', '-6', 'route', 'get', 'fd00:10:96::a'], { netns: node.name })).stdout).toMatch(/via fc01::aabb:ccdd:eeff dev gw0 .*src fd00:10:1::1 /);
    } finally {
      await host.stop();
    }
    await uninstallServices({ dataDir: '/nonexistent', nodeNetns: node.name, hostGateway: 'gw0', logger: silentLogger });
    for (const tool of ['iptables', 'ip6tables']) {
      expect(await nat(tool)).not.toContain('SWITCHYARD-NODEPORT');
      expect(await nat(tool)).not.toContain('SWITCHYARD-SVC-MASQ');
    }
    for (const family of ['-4', '-6']) expect((await run(['ip', family, 'route', 'show', 'proto', String(SERVICE_ROUTE_PROTO)], { netns: node.name })).stdout.trim()).toBe('');
    net.close();
  });
});

describe('the Multi-cluster gateway\'s WireGuard host routes, both families', () => {
  test('routes the other clusters\' IPv4 and IPv6 CIDRs into the device, and what leaves it to the gateway by a rule and table 78 per family; a family without CIDRs has none, no CIDR removes all', async () => {
    const node = await tb.createNetns('m');
    // Veths stand in for the WireGuard device and the gateway port (this kernel refuses dummy links).
    for (const [a, b] of [['switchyard-mcwg', 'mcwgp'], ['gw0', 'gw0p']]) {
      await run(['ip', 'link', 'add', a!, 'type', 'veth', 'peer', 'name', b!], { netns: node.name });
      for (const l of [a!, b!]) await run(['ip', 'link', 'set', l, 'up'], { netns: node.name });
    }
    const net = new NodeNetwork(node.name);
    const ip = async (...argv: string[]): Promise<string> => (await run(['ip', ...argv], { netns: node.name })).stdout;
    const mine = async (f: string): Promise<string[]> => (await ip(f, 'route', 'show', 'proto', String(MC_ROUTE_PROTO))).split('\n').filter((l) => l !== '').map((l) => l.split(' ').slice(0, 3).join(' '));
    try {
      await syncGatewayWireGuardRoutes(net, 'switchyard-mcwg', 'gw0', ['10.96.2.0/24', 'fd00:96:2::/108', '10.20.0.0/16', 'fd00:20::/48']);
      expect((await mine('-4')).sort()).toEqual(['10.20.0.0/16 dev switchyard-mcwg', '10.96.2.0/24 dev switchyard-mcwg']);
      expect((await mine('-6')).sort()).toEqual(['fd00:20::/48 dev switchyard-mcwg', 'fd00:96:2::/108 dev switchyard-mcwg']);
      for (const [f, hop] of [['-4', '169.254.0.253'], ['-6', 'fc01::aabb:ccdd:eeff']] as const) {
        const rules = await ip(f, 'rule', 'list');
        expect(rules).toMatch(/^7800:\s+from all iif switchyard-mcwg lookup main suppress_prefixlength 0/m);
        expect(rules).toMatch(new RegExp(`^7801:\\s+from all iif switchyard-mcwg lookup ${MC_ROUTE_TABLE}`, 'm'));
        expect(await ip(f, 'route', 'show', 'table', String(MC_ROUTE_TABLE))).toMatch(new RegExp(`^default via ${hop} dev gw0 .*onlink`, 'm'));
        expect(await ip(f, 'neigh', 'show', hop, 'dev', 'gw0')).toMatch(new RegExp(`lladdr ${GLOBAL_VIRTUAL_MAC} PERMANENT`, 'i'));
      }
      // A second pass with the IPv4 service CIDR alone: the rest goes, IPv6's rules and table with it.
      await syncGatewayWireGuardRoutes(net, 'switchyard-mcwg', 'gw0', ['10.96.2.0/24']);
      expect(await mine('-4')).toEqual(['10.96.2.0/24 dev switchyard-mcwg']);
      expect(await mine('-6')).toEqual([]);
      expect(await ip('-6', 'rule', 'list')).not.toContain('switchyard-mcwg');
      expect((await ip('-6', 'route', 'show', 'table', String(MC_ROUTE_TABLE))).trim()).toBe('');
      // IPv6 alone (an IPv6-only gateway): IPv4's go.
      await syncGatewayWireGuardRoutes(net, 'switchyard-mcwg', 'gw0', ['fd00:96:2::/108']);
      expect(await mine('-4')).toEqual([]);
      expect(await ip('-4', 'rule', 'list')).not.toContain('switchyard-mcwg');
      expect(await mine('-6')).toEqual(['fd00:96:2::/108 dev switchyard-mcwg']);
      expect(await ip('-6', 'rule', 'list')).toContain('iif switchyard-mcwg');
      await syncGatewayWireGuardRoutes(net, 'switchyard-mcwg', 'gw0', []);
      for (const f of ['-4', '-6']) {
        expect(await mine(f)).toEqual([]);
        expect(await ip(f, 'rule', 'list')).not.toContain('switchyard-mcwg');
      }
    } finally {
      net.close();
    }
  });
});
