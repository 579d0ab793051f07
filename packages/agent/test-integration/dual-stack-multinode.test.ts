// Two dual-stack agents on two real OVS "nodes" joined by an IPv4 underlay, with the embedded
// Kubernetes API: each learns the other's IPv6 pod CIDR from its Node's spec.podCIDRs (tunnel
// flows, an IPv6 host route through the gateway and a permanent neighbour entry for the peer
// gateway's IPv6 address), pods on the two nodes talk over IPv6 (ping and TCP) and IPv4 through
// the Geneve tunnel, the node reaches a remote pod over IPv6, a dual-stack and an IPv6-only
// Service answer over both families from endpoints on both nodes (the agents' IPv6 groups in
// OVS), an IPv6 Service without endpoints refuses with an IPv6 RST, and a deleted Node takes its IPv6 route and neighbour entry with it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseIp } from '@switchyard/ipam/cidr';
import type { KubeConfigClient } from '@switchyard/kube';
import { run, start, waitFor, type OvsInstance, type Testbed } from '@switchyard/testbed';
import { Agent } from '../src/index';
import { addPod, cni, netconf, podArgs, sandbox, type Node, type Sandbox } from './helpers';
import { TwoNodes, type UnderlayNode } from './two-nodes';

jest.setTimeout(240_000);

let env: TwoNodes;
let tb: Testbed;
let kube: KubeConfigClient;

type DualNode = UnderlayNode & { podCIDRv6: string };

const makeNode = async (name: string, podCIDR: string, podCIDRv6: string, nodeIP: string): Promise<DualNode> => ({ ...(await env.makeNode(name, podCIDR, nodeIP, podCIDRv6)), podCIDRv6 });
const startAgent = (n: DualNode): Promise<Node> => env.startAgent(n);

/** ADD through the plugin; the pod's IPv4 and IPv6 addresses. */
async function addDualPod(node: Node, sb: Sandbox): Promise<{ v4: string; v6: string }> {
  const r = await cni('ADD', { containerId: sb.containerId, netns: sb.netns.path, ifname: 'eth0', args: podArgs('default', sb.name) }, netconf(node.socket));
  if (r.code !== 0) throw new Error(`ADD failed: ${r.raw}`);
  const [v4 = '', v6 = ''] = (r.out.ips as { address: string }[]).map((i) => i.address.split('/')[0] ?? '');
  return { v4, v6 };
}

/** A pong server on TCP 7000 in the pod, on an IPv6 socket that takes IPv4 too. */
const serve = (sb: Sandbox): void => void tb.spawn(['socat', 'TCP6-LISTEN:7000,reuseaddr,fork', 'SYSTEM:echo pong'], sb.netns.name);
/** One TCP exchange; true when the server answered. */
async function tcp(from: Sandbox, ip: string): Promise<boolean> {
  const target = ip.includes(':') ? `TCP6:[${ip}]:7000` : `TCP4:${ip}:7000`;
  const r = await from.netns.exec(['socat', '-T2', '-', `${target},connect-timeout=2`], { allowFailure: true, input: 'ping\n', timeoutMs: 5000 });
  return r.stdout.trim() === 'pong';
}
const ping6 = async (netns: string, ip: string): Promise<boolean> => (await run(['ping', '-6', '-c', '1', '-W', '2', ip], { netns, allowFailure: true })).code === 0;

let n1: DualNode;
let n2: DualNode;
let a1: Node | undefined;
let a2: Node | undefined;
/** The IPv6-only nodes' API server and fabric (the last blocks), and their captures' directory. */
let env6: TwoNodes | undefined;
const captures = mkdtempSync(join(tmpdir(), 'sy-v6tun-'));

beforeAll(async () => {
  // A dual-stack Service range (IPv4 primary), as the lab's.
  env = await TwoNodes.create({ serviceCIDR: '10.96.0.0/16,fd00:10:96::/112' });
  ({ tb, kube } = env);
  [n1, n2] = await Promise.all([makeNode('ds1', '10.76.1.0/24', 'fd00:76:1::/64', '192.168.76.1'), makeNode('ds2', '10.76.2.0/24', 'fd00:76:2::/64', '192.168.76.2')]);
});

afterAll(async () => {
  // a1 is started again in a test with Agent.start directly: stopped here, the rest by env.
  await a1?.agent.stop().catch(() => undefined);
  await env?.stop();
  await env6?.stop();
  rmSync(captures, { recursive: true, force: true });
});

const flows = async (n: UnderlayNode): Promise<string> => n.ovs.ofctl('-O', 'OpenFlow15', 'dump-flows', n.ovs.mgmtSocket('br-int'));
const inNode = async (n: UnderlayNode, argv: string[]): Promise<string> => (await n.ovs.netns.exec(argv)).stdout;

describe('two dual-stack nodes in encap (geneve)', () => {
  let p1: Sandbox;
  let p2: Sandbox;
  let ip1 = { v4: '', v6: '' };
  let ip2 = { v4: '', v6: '' };

  it("each agent learns the other's IPv6 pod CIDR: tunnel flow, IPv6 host route via the peer gateway, its permanent neighbour entry, IPv6 forwarding on", async () => {
    [a1, a2] = await Promise.all([startAgent(n1), startAgent(n2)]);
    await waitFor('remote nodes', () => a1!.agent.part('routes').routes?.remote.length === 1 && a2!.agent.part('routes').routes?.remote.length === 1, { timeoutMs: 30_000, intervalMs: 100 });
    await a1.agent.part('routes').routes!.idle();
    await a2.agent.part('routes').routes!.idle();
    expect(a1.agent.part('routes').routes!.remote).toEqual([{ name: 'ds2', podCIDR: '10.76.2.0/24', podCIDRv6: 'fd00:76:2::/64', nodeIP: '192.168.76.2', gatewayIP: '10.76.2.1' }]);
    expect(await flows(n1)).toMatch(/ipv6,.*ipv6_dst=fd00:76:2::\/64 actions=.*set_field:192\.168\.76\.2->tun_dst/);
    expect(await inNode(n1, ['ip', '-6', 'route', 'show', 'proto', '77'])).toContain('fd00:76:2::/64 via fd00:76:2::1 dev sy-gw0');
    expect(await inNode(n1, ['ip', '-6', 'neigh', 'show', 'dev', 'sy-gw0', 'nud', 'permanent'])).toContain('fd00:76:2::1 lladdr aa:bb:cc:dd:ee:ff PERMANENT');
    expect((await inNode(n1, ['sysctl', '-n', 'net.ipv6.conf.all.forwarding'])).trim()).toBe('1');
    // IPv4 as on an IPv4-only node.
    expect(await inNode(n1, ['ip', '-4', 'route', 'show', 'proto', '77'])).toContain('10.76.2.0/24 via 10.76.2.1 dev sy-gw0');
  });

  it('pods on the two nodes reach each other over IPv6 (ping and TCP) and IPv4 through the tunnel', async () => {
    p1 = await sandbox(tb, 'ds-a');
    p2 = await sandbox(tb, 'ds-b');
    // The Pod objects (kubelet would have them): an agent detaches pods the API does not know.
    for (const [name, nodeName] of [['ds-a', 'ds1'], ['ds-b', 'ds2']] as const) {
      await kube.request('POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { nodeName, containers: [{ name: 'c', image: 'x' }] } });
    }
    ip1 = await addDualPod(a1!, p1);
    ip2 = await addDualPod(a2!, p2);
    expect([ip1.v6, ip2.v6]).toEqual(['fd00:76:1::2', 'fd00:76:2::2']);
    // The pods' IPv6 addresses are in their nodes' SpoofGuard (the pipeline has them as LocalPod ips).
    expect(await flows(n1)).toMatch(/ipv6_src=fd00:76:1::2/);
    serve(p1);
    serve(p2);
    await waitFor(`ping -6 ${ip1.v6} -> ${ip2.v6}`, () => ping6(p1.netns.name, ip2.v6), { timeoutMs: 60_000, intervalMs: 250 });
    await waitFor(`ping -6 ${ip2.v6} -> ${ip1.v6}`, () => ping6(p2.netns.name, ip1.v6), { timeoutMs: 60_000, intervalMs: 250 });
    await waitFor(`TCP ${ip1.v6} -> [${ip2.v6}]:7000`, () => tcp(p1, ip2.v6), { timeoutMs: 60_000, intervalMs: 250 });
    await waitFor(`TCP ${ip2.v6} -> [${ip1.v6}]:7000`, () => tcp(p2, ip1.v6), { timeoutMs: 60_000, intervalMs: 250 });
    await waitFor(`TCP ${ip1.v4} -> ${ip2.v4}:7000`, () => tcp(p1, ip2.v4), { timeoutMs: 60_000, intervalMs: 250 });
    // The IPv6 packets took the IPv6 tunnel flow.
    const tunnelFlow = (await flows(n1)).split('\n').find((l) => l.includes('ipv6_dst=fd00:76:2::/64') && l.includes('tun_dst'));
    expect(Number(/n_packets=(\d+)/.exec(tunnelFlow ?? '')?.[1] ?? 0)).toBeGreaterThan(0);
    // The receiving side's conntrack tracked the IPv6 TCP connection in the IPv6 zone.
    const ct = (await n2.ovs.appctl('dpctl/dump-conntrack')).split('\n').filter((l) => l.startsWith('tcp,') && l.includes(`dst=${ip2.v6},`));
    expect(ct.some((l) => l.includes('zone=65510'))).toBe(true);
  });

  it('the node reaches a remote pod over IPv6 (host route via the peer gateway, resolved by the permanent neighbour entry)', async () => {
    await waitFor(`ds1 -> ${ip2.v6}`, () => ping6(n1.ovs.netns.name, ip2.v6), { timeoutMs: 60_000, intervalMs: 250 });
  });

  it('a dual-stack Service answers over IPv6 and IPv4 from its endpoints on both nodes; an IPv6-only Service over IPv6; one without endpoints refuses', async () => {
    // Each pod names itself on TCP 7100 (IPv6 socket, IPv4 too).
    for (const [sb, name] of [[p1, 'ds-a'], [p2, 'ds-b']] as const) void tb.spawn(['socat', 'TCP6-LISTEN:7100,reuseaddr,fork', `SYSTEM:echo ${name}`], sb.netns.name);
    const svcOf = async (name: string, families: string[]): Promise<string[]> => {
      const o = await kube.request<{ spec: { clusterIPs: string[] } }>('POST', '/api/v1/namespaces/default/services', {
        apiVersion: 'v1', kind: 'Service', metadata: { name },
        spec: { ipFamilies: families, ipFamilyPolicy: families.length > 1 ? 'RequireDualStack' : 'SingleStack', ports: [{ name: 'who', port: 80, targetPort: 7100 }] },
      });
      return o.spec.clusterIPs;
    };
    // No selector (no kubelet fills the pods' status here): the slices are written as an EndpointSlice controller would.
    const sliceOf = (svc: string, family: 'IPv4' | 'IPv6', eps: [string, string][]) => kube.request('POST', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices', {
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: `${svc}-${family.toLowerCase()}`, labels: { 'kubernetes.io/service-name': svc } },
      addressType: family, ports: [{ name: 'who', port: 7100, protocol: 'TCP' }],
      endpoints: eps.map(([ip, nodeName]) => ({ addresses: [ip], nodeName, conditions: { ready: true } })),
    });
    const [dual4 = '', dual6 = ''] = await svcOf('who', ['IPv4', 'IPv6']);
    const [only6 = ''] = await svcOf('who6', ['IPv6']);
    expect([dual4, dual6, only6].map((ip) => ip.includes(':'))).toEqual([false, true, true]);
    await sliceOf('who', 'IPv4', [[ip1.v4, 'ds1'], [ip2.v4, 'ds2']]);
    await sliceOf('who', 'IPv6', [[ip1.v6, 'ds1'], [ip2.v6, 'ds2']]);
    await sliceOf('who6', 'IPv6', [[ip2.v6, 'ds2']]);
    /** Which pod answered through `ip`:80 ('' when none did). */
    const who = async (ip: string): Promise<string> => {
      const target = ip.includes(':') ? `TCP6:[${ip}]:80` : `TCP4:${ip}:80`;
      return (await p1.netns.exec(['socat', '-T2', '-', `${target},connect-timeout=2`], { allowFailure: true, input: '', timeoutMs: 5000 })).stdout.trim();
    };
    // Until both endpoints answered: ds-b across the tunnel, ds-a being the client itself (hairpin).
    for (const ip of [dual6, dual4]) {
      const seen = new Set<string>();
      await waitFor(`both endpoints through ${ip}:80`, async () => {
        seen.add(await who(ip));
        return seen.has('ds-a') && seen.has('ds-b');
      }, { timeoutMs: 60_000, intervalMs: 100 });
    }
    await waitFor(`the IPv6-only Service [${only6}]:80`, async () => (await who(only6)) === 'ds-b', { timeoutMs: 60_000, intervalMs: 250 });
    // An IPv6 Service without endpoints: the agent answers the SYN with an IPv6 RST (refused, not a timeout).
    const [empty6 = ''] = await svcOf('empty6', ['IPv6']);
    await waitFor(`[${empty6}]:80 refused`, async () => {
      const r = await p1.netns.exec(['socat', '-T2', '-', `TCP6:[${empty6}]:80,connect-timeout=2`], { allowFailure: true, input: '', timeoutMs: 5000 });
      return r.code !== 0 && r.stderr.includes('Connection refused');
    }, { timeoutMs: 60_000, intervalMs: 250 });
    // The agent's IPv6 select groups in OVS load the endpoints into xxreg3 (ovs-ofctl shows each IPv6 address as a 128-bit number).
    const xx = (ip: string): string => `0x${parseIp(ip).value.toString(16)}->xxreg3`;
    const groups = await n1.ovs.ofctl('-O', 'OpenFlow15', 'dump-groups', n1.ovs.mgmtSocket('br-int'));
    expect(groups).toContain(xx(ip1.v6));
    expect(groups).toContain(xx(ip2.v6));
    // The IPv6 connection was DNATed in the IPv6 zone: ClusterIP to the remote endpoint.
    const ct = (await n1.ovs.appctl('dpctl/dump-conntrack')).split('\n').filter((l) => l.includes(`dst=${only6},`));
    expect(ct.some((l) => l.includes(`src=${ip2.v6},`) && l.includes('zone=65510'))).toBe(true);
  });

  it('a restarted agent keeps the IPv6 route, neighbour entry and flows, and pods still talk over IPv6', async () => {
    await a1!.agent.stop();
    a1 = { ...a1!, agent: await Agent.start(a1!.options) };
    await waitFor('remote nodes after restart', () => a1!.agent.part('routes').routes?.remote.length === 1, { timeoutMs: 30_000, intervalMs: 100 });
    await a1.agent.part('routes').routes!.idle();
    expect(await inNode(n1, ['ip', '-6', 'neigh', 'show', 'dev', 'sy-gw0', 'nud', 'permanent'])).toContain('fd00:76:2::1 lladdr aa:bb:cc:dd:ee:ff PERMANENT');
    await waitFor(`TCP ${ip1.v6} -> [${ip2.v6}]:7000 after restart`, () => tcp(p1, ip2.v6), { timeoutMs: 60_000, intervalMs: 250 });
  });

  it('after an ovs-vswitchd restart (a new gateway device) the gateway IPv6 address, IPv6 route and neighbour entry come back, and pods talk over IPv6 again', async () => {
    // A killed ovs-vswitchd leaves its (persistent) tap devices with their addresses; the gateway's
    // is deleted too, as a cleaned-up exit or a new OVS container would leave it: the restarted
    // switch makes a new gateway device without any address, route or neighbour entry.
    await n1.ovs.stopVswitchd('SIGKILL');
    await n1.ovs.netns.exec(['ip', 'link', 'del', 'sy-gw0']);
    await n1.ovs.startVswitchd();
    await waitFor('the agent back after the switch restart', async () => a1!.agent.part('node').switchRestarts === 1 && a1!.agent.health().ok, { timeoutMs: 60_000, intervalMs: 100 });
    expect(await inNode(n1, ['ip', '-6', '-o', 'addr', 'show', 'dev', 'sy-gw0', 'scope', 'global'])).toContain('inet6 fd00:76:1::1/64');
    expect(await inNode(n1, ['ip', '-6', 'route', 'show', 'proto', '77'])).toContain('fd00:76:2::/64 via fd00:76:2::1 dev sy-gw0');
    expect(await inNode(n1, ['ip', '-6', 'neigh', 'show', 'dev', 'sy-gw0', 'nud', 'permanent'])).toContain('fd00:76:2::1 lladdr aa:bb:cc:dd:ee:ff PERMANENT');
    await waitFor(`TCP ${ip1.v6} -> [${ip2.v6}]:7000 after the switch restart`, () => tcp(p1, ip2.v6), { timeoutMs: 60_000, intervalMs: 250 });
    await waitFor(`ds1 -> ${ip2.v6} after the switch restart`, () => ping6(n1.ovs.netns.name, ip2.v6), { timeoutMs: 60_000, intervalMs: 250 });
  });

  it("a deleted Node takes its IPv6 host route and the peer gateway's neighbour entry with it", async () => {
    await kube.request('DELETE', '/api/v1/nodes/ds2');
    await waitFor('ds2 forgotten', () => a1!.agent.part('routes').routes?.remote.length === 0, { timeoutMs: 30_000, intervalMs: 100 });
    await a1!.agent.part('routes').routes!.idle();
    expect(await inNode(n1, ['ip', '-6', 'route', 'show', 'proto', '77'])).toBe('');
    expect(await inNode(n1, ['ip', '-6', 'neigh', 'show', 'dev', 'sy-gw0', 'nud', 'permanent'])).not.toContain('fd00:76:2::1');
    expect(await flows(n1)).not.toMatch(/ipv6_dst=fd00:76:2::\/64/);
  });
});

// IPv6-only nodes over an IPv6 underlay (issue 36): each node's only pod CIDR is IPv6 and its only
// address the IPv6 one on br-phy (its Node's only InternalIP), so the tunnel runs over IPv6
// (tun_ipv6_dst, local_ip). One API server, fabric and pair of OVS nodes (node addresses on the
// underlay) for the three tunnel types; each type gets its own two Nodes (names, pod CIDRs) and
// agents, and when its block ends its Nodes are deleted (no stale peers for the next) and its
// bridge too (ports, flows, and the gateway device with its addresses, routes and neighbour
// entries): the next type's agents start on the switches as on fresh nodes.
const nodeIPs = ['fd00:77::1', 'fd00:77::2'] as const;
let ovs6: OvsInstance[] = [];
describe.each([
  // type, the overhead over IPv6 (Antrea's per type + ipv6ExtraOverhead 20), what tcpdump calls the encapsulation
  ['geneve', 70, 'Geneve'],
  ['vxlan', 70, 'VXLAN'],
  ['gre', 62, 'GREv0'],
] as const)('two IPv6-only nodes over an IPv6 underlay, tunnelType %s', (tunnelType, overhead, marker) => {
  const k = ['geneve', 'vxlan', 'gre'].indexOf(tunnelType) + 1;
  const names = [`v6${tunnelType}-1`, `v6${tunnelType}-2`];
  const cidrs = [`fd00:7${k}:1::/64`, `fd00:7${k}:2::/64`];
  let nodes: UnderlayNode[] = [];
  let agents: Node[] = [];
  let pods: Sandbox[] = [];
  const ips: string[] = [];

  beforeAll(async () => {
    env6 ??= await TwoNodes.create({ serviceCIDR: 'fd00:10:96::/112' });
    const e = env6;
    if (ovs6.length === 0) ovs6 = await Promise.all(nodeIPs.map((ip) => e.underlayOvs(ip)));
    nodes = await Promise.all(ovs6.map((o, i) => e.registerNode(o, names[i]!, cidrs[i]!, nodeIPs[i]!)));
    agents = await Promise.all(nodes.map((n) => e.startAgent(n, { tunnelType })));
  });

  afterAll(async () => {
    for (const a of agents) await a.agent.stop().catch(() => undefined);
    for (const n of names) await env6?.kube.request('DELETE', `/api/v1/nodes/${n}`).catch(() => undefined);
    for (const o of ovs6) {
      await o.vsctl('--if-exists', 'del-br', 'br-int');
      // The userspace datapath's gateway is a tap device: gone with its port, or deleted here if it stayed.
      if ((await o.netns.exec(['ip', 'link', 'show', 'sy-gw0'], { allowFailure: true })).code === 0) await o.netns.exec(['ip', 'link', 'del', 'sy-gw0']);
    }
  });

  it(`the tunnel port is ${tunnelType} from the IPv6 node address, the pods and the gateway get 1500 - ${overhead}, and each agent sends the other's pod CIDR to tun_ipv6_dst`, async () => {
    await waitFor('remote nodes', () => agents.every((a) => a.agent.part('routes').routes?.remote.length === 1), { timeoutMs: 30_000, intervalMs: 100 });
    const [n1] = nodes as [UnderlayNode];
    expect((await n1.ovs.vsctl('get', 'interface', 'sy-tun0', 'type')).trim()).toBe(tunnelType);
    expect((await n1.ovs.vsctl('get', 'interface', 'sy-tun0', 'options')).trim()).toBe(`{key=flow, local_ip="${nodeIPs[0]}", remote_ip=flow}`);
    expect(agents[0]!.agent.part('routes').routes!.remote).toEqual([expect.objectContaining({ name: names[1], nodeIP: nodeIPs[1], podCIDRv6: cidrs[1] })]);
    expect(await flows(n1)).toMatch(new RegExp(`ipv6_dst=${cidrs[1]!.replace('/', '\\/')} actions=.*set_field:${nodeIPs[1]}->tun_ipv6_dst`));
    expect((await inNode(n1, ['ip', '-4', '-o', 'addr', 'show', 'scope', 'global'])).trim()).toBe('');
    expect(await inNode(n1, ['cat', '/sys/class/net/sy-gw0/mtu'])).toBe(`${1500 - overhead}\n`);
  });

  it(`pods on the two nodes reach each other over IPv6 (ping, TCP, a full-size packet), and the fabric sees it as ${tunnelType} over IPv6 between the node addresses`, async () => {
    pods = [await sandbox(env6!.tb, `${names[0]}-p`), await sandbox(env6!.tb, `${names[1]}-p`)];
    for (const [i, p] of pods.entries()) {
      await env6!.kube.request('POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: p.name, namespace: 'default' }, spec: { nodeName: names[i], containers: [{ name: 'c', image: 'x' }] } });
      ips.push((await addPod(agents[i]!, p)).ip);
    }
    expect(ips).toEqual([`fd00:7${k}:1::2`, `fd00:7${k}:2::2`]);
    expect((await pods[0]!.netns.exec(['cat', '/sys/class/net/eth0/mtu'])).stdout).toBe(`${1500 - overhead}\n`);
    for (const p of pods) void env6!.tb.spawn(['socat', 'TCP6-LISTEN:7000,reuseaddr,fork', 'SYSTEM:echo pong'], p.netns.name);
    const [p1, p2] = pods as [Sandbox, Sandbox];
    const [ip1, ip2] = ips as [string, string];
    await waitFor(`ping -6 ${ip1} -> ${ip2}`, () => ping6(p1.netns.name, ip2), { timeoutMs: 60_000, intervalMs: 250 });
    await waitFor(`ping -6 ${ip2} -> ${ip1}`, () => ping6(p2.netns.name, ip1), { timeoutMs: 60_000, intervalMs: 250 });
    await waitFor(`TCP ${ip1} -> [${ip2}]:7000`, () => tcp(p1, ip2), { timeoutMs: 60_000, intervalMs: 250 });
    await waitFor(`TCP ${ip2} -> [${ip1}]:7000`, () => tcp(p2, ip1), { timeoutMs: 60_000, intervalMs: 250 });

    // A full-size IPv6 packet (the pod MTU, no fragmentation) crosses: its encapsulation fills the 1500 of the underlay exactly.
    const full = 1500 - overhead - 48;
    const pcap = join(captures, `${tunnelType}.pcap`);
    const capture = start(['tcpdump', '-i', 'br0', '--immediate-mode', '-nn', '-U', '-s', '0', '-w', pcap], { netns: env6!.fabric.name });
    const stderr: string[] = [];
    capture.stderr?.on('data', (d: Buffer) => stderr.push(d.toString()));
    try {
      await waitFor('tcpdump listening', () => stderr.join('').includes('listening on'), { timeoutMs: 10_000, intervalMs: 50 });
      const r = await run(['ping', '-6', '-c', '2', '-i', '0.2', '-W', '2', '-M', 'do', '-s', String(full), ip2], { netns: p1.netns.name, allowFailure: true, timeoutMs: 10_000 });
      expect([r.code, r.stdout]).toEqual([0, expect.stringContaining(`${full + 8} bytes from ${ip2}`)]);
    } finally {
      const exited = new Promise((res) => capture.once('exit', res));
      capture.kill('SIGINT');
      await exited;
    }
    // Every packet naming a pod address is inside the tunnel between the IPv6 node addresses; none crossed bare, and no IPv4 at all.
    // One entry per packet: tcpdump prints VXLAN's inner packet on a line of its own.
    const packets = (await run(['tcpdump', '-nn', '-r', pcap])).stdout.split(/\n(?=\d\d:\d\d:\d\d\.)/).map((l) => l.replace(/\s*\n\s*/g, ' ').trim());
    const lines = packets.filter((l) => l !== '' && !/ ICMP6, (neighbor|multicast listener|router)/.test(l));
    const outer = new RegExp(`IP6 (${nodeIPs[0]}|${nodeIPs[1]})(\\.\\d+)? > (${nodeIPs[0]}|${nodeIPs[1]})(\\.\\d+)?: ${marker}`);
    expect(lines.filter((l) => l.includes(`IP6 ${ip1} > ${ip2}: ICMP6, echo request`) && outer.test(l)).length).toBeGreaterThanOrEqual(2);
    expect(lines.filter((l) => l.includes(`IP6 ${ip2} > ${ip1}: ICMP6, echo reply`) && outer.test(l)).length).toBeGreaterThanOrEqual(2);
    expect(lines.filter((l) => !outer.test(l))).toEqual([]);
  });
});
