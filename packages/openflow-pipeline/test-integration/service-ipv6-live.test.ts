/**
 * Real IPv6 (and IPv4) TCP through a dual-stack node's Service flows: two dual-stack pods and the
 * gateway on a userspace bridge, with Linux's own Neighbor Discovery. A dual-stack Service (one
 * port per family), an IPv6-only Service whose endpoint is the client itself (hairpin, SNAT to
 * the gateway's IPv6 address) and a ClientIP-affinity IPv6 Service (the learned flow) are reached
 * through their ClusterIPs; conntrack shows the DNAT in the IPv6 zone.
 */
import { Ip } from '@switchyard/ipam/cidr';
import { Testbed, waitFor, type OvsInstance, type Pod } from '@switchyard/testbed';
import { computeNodeFlows, type NodeState, type ServicePortSpec } from '../src/index';
import { install } from './helpers';

const BR = 'br-int';
const GW_OFPORT = 2;
const GW6 = 'fd00:10:10::1';
const CLIENT6 = 'fd00:10:10::a';
const SERVER6 = 'fd00:10:10::b';
const SVC4 = '10.96.0.10';
const SVC6 = 'fd00:10:96::a';
const HAIRPIN6 = 'fd00:10:96::b';
const AFFINITY6 = 'fd00:10:96::c';

let tb: Testbed;
let ovs: OvsInstance;
let client: Pod;
let server: Pod;

function services(): ServicePortSpec[] {
  return [
    { groupId: 0x100000, service: 'ns/web', protocol: 'TCP', clusterIP: SVC4, port: 80, endpoints: [{ ip: server.ip, port: 8080, local: true }] },
    { groupId: 0x100001, service: 'ns/web', protocol: 'TCP', clusterIP: SVC6, port: 80, endpoints: [{ ip: SERVER6, port: 8080, local: true }] },
    { groupId: 0x100002, service: 'ns/self', protocol: 'TCP', clusterIP: HAIRPIN6, port: 80, endpoints: [{ ip: CLIENT6, port: 9090, local: true }] },
    { groupId: 0x100003, service: 'ns/sticky', protocol: 'TCP', clusterIP: AFFINITY6, port: 80, affinityTimeout: 600, endpoints: [{ ip: SERVER6, port: 8080, local: true }] },
  ];
}

function nodeState(gwMac: string): NodeState {
  return {
    config: {
      round: 1, trafficMode: 'encap', tunnelOfport: 1, gateway: { ofport: GW_OFPORT, ip: '10.10.0.1', ipv6: GW6, mac: gwMac }, podCIDR: '10.10.0.0/24', podCIDRv6: 'fd00:10:10::/64',
      nodeIP: '192.168.77.100', enableProxy: true, enableAntreaPolicy: true, netdevDatapath: true,
    },
    pods: [
      { name: 'client', namespace: 'ns', ofport: client.ofport, ips: [client.ip, CLIENT6], mac: client.mac },
      { name: 'server', namespace: 'ns', ofport: server.ofport, ips: [server.ip, SERVER6], mac: server.mac },
    ],
    remoteNodes: [], services: services(), addressGroups: [], appliedToGroups: [], policies: [],
  };
}

async function addIpv6(exec: (argv: string[]) => Promise<{ stdout: string }>, dev: string, cidr: string): Promise<void> {
  await exec(['ip', '-6', 'addr', 'add', cidr, 'dev', dev]);
  await waitFor(`${cidr} on ${dev} past DAD`, async () => (await exec(['ip', '-6', 'addr', 'show', 'dev', dev, 'tentative'])).stdout.trim() === '', { timeoutMs: 30_000, intervalMs: 100 });
}

/** socat's peer address (`[fd00:0010:...]`, an IPv4 client as `[::ffff:...]` in full) in RFC 5952 text; a mapped IPv4 address as `::ffff:a.b.c.d`. */
function peer(text: string): string {
  return text.replace(/\[([0-9a-f:]+)\]/, (_m, a: string) => {
    const ip = Ip.parse(a);
    const v = ip.value;
    if (v >> 32n === 0xffffn) return `::ffff:${[24n, 16n, 8n, 0n].map((s) => String((v >> s) & 0xffn)).join('.')}`;
    return ip.toString();
  });
}

/** What the server answers on a connection (its name and the peer's address), up to three tries for an allowed one. */
async function ask(from: Pod, ip: string, port: number): Promise<string> {
  const target = ip.includes(':') ? `TCP6:[${ip}]:${port}` : `TCP4:${ip}:${port}`;
  let last: unknown;
  for (let i = 0; i < 3; i++) {
    try {
      return peer((await from.exec(['socat', '-T', '3', '-', `${target},connect-timeout=2`], { input: '' })).stdout.trim());
    } catch (e) {
      last = e;
    }
  }
  throw last instanceof Error ? last : new Error(String(last));
}

beforeAll(async () => {
  tb = await Testbed.create();
  ovs = await tb.startOvs();
  await ovs.addBridge(BR, { failSecure: true });
  await ovs.vsctl('add-port', BR, 'gw0', '--', 'set', 'interface', 'gw0', 'type=internal', `ofport_request=${GW_OFPORT}`);
  const gwMac = (await ovs.vsctl('get', 'interface', 'gw0', 'mac_in_use')).trim().replace(/"/g, '');
  client = await tb.addPod(ovs, { bridge: BR, ipCidr: '10.10.0.10/24', gateway: '10.10.0.1', ofport: 10 });
  server = await tb.addPod(ovs, { bridge: BR, ipCidr: '10.10.0.11/24', gateway: '10.10.0.1', ofport: 11 });
  await install(ovs, BR, computeNodeFlows(nodeState(gwMac)));
  const gwExec = (argv: string[]) => ovs.netns.exec(argv);
  // The pods' IPv4 default route is via the gateway: the host answers its ARP.
  await gwExec(['ip', 'addr', 'add', '10.10.0.1/24', 'dev', 'gw0']);
  await gwExec(['ip', 'link', 'set', 'gw0', 'up']);
  await Promise.all([
    addIpv6(gwExec, 'gw0', `${GW6}/64`), addIpv6((argv) => client.exec(argv), 'eth0', `${CLIENT6}/64`), addIpv6((argv) => server.exec(argv), 'eth0', `${SERVER6}/64`),
  ]);
  for (const p of [client, server]) await p.exec(['ip', '-6', 'route', 'add', 'default', 'via', GW6, 'dev', 'eth0']);
  // Each server answers with the address the connection came from.
  tb.spawn(['socat', 'TCP6-LISTEN:8080,fork,reuseaddr', 'SYSTEM:echo server $SOCAT_PEERADDR'], server.netns.name);
  tb.spawn(['socat', 'TCP6-LISTEN:9090,fork,reuseaddr', 'SYSTEM:echo client $SOCAT_PEERADDR'], client.netns.name);
  await waitFor('servers listening', async () => (await server.exec(['ss', '-ltnH'])).stdout.includes(':8080') && (await client.exec(['ss', '-ltnH'])).stdout.includes(':9090'), { timeoutMs: 10_000, intervalMs: 50 });
}, 120_000);

afterAll(async () => {
  await tb?.cleanup();
});

describe('IPv6 Services on a real bridge', () => {
  it('the dual-stack Service answers through its IPv6 ClusterIP, from the client\'s own IPv6 address', async () => {
    expect(await ask(client, SVC6, 80)).toBe(`server ${CLIENT6}`);
  });

  it('and through its IPv4 ClusterIP (the server\'s IPv6 socket sees the client as a mapped IPv4 address)', async () => {
    expect(await ask(client, SVC4, 80)).toBe(`server ::ffff:${client.ip}`);
  });

  it('the DNATed IPv6 connection is tracked in the IPv6 zone (65510), ClusterIP to endpoint', async () => {
    await ask(client, SVC6, 80);
    const ct = (await ovs.appctl('dpctl/dump-conntrack', '-m')).split('\n');
    expect(ct.some((l) => l.includes(`dst=${SVC6}`) && l.includes(`src=${SERVER6}`) && l.includes('zone=65510'))).toBe(true);
  });

  it('a pod reaching itself through an IPv6 Service is hairpinned, SNATed to the gateway\'s IPv6 address', async () => {
    expect(await ask(client, HAIRPIN6, 80)).toBe(`client ${GW6}`);
  });

  it('ClientIP affinity over IPv6 answers and leaves a learned flow for the client and the ClusterIP', async () => {
    expect(await ask(client, AFFINITY6, 80)).toBe(`server ${CLIENT6}`);
    const learned = (await ovs.ofctl('-O', 'OpenFlow15', 'dump-flows', ovs.mgmtSocket(BR))).split('\n').filter((l) => l.includes(`ipv6_src=${CLIENT6}`) && l.includes(`ipv6_dst=${AFFINITY6}`));
    expect(learned).toHaveLength(1);
    expect(learned[0]).toMatch(/hard_timeout=600/);
    // The endpoint's address in xxreg3 (shown by OVS as reg12..reg15 loads or as xxreg3).
    expect(learned[0]).toMatch(/xxreg3|reg1[2-5]/);
  });
});
