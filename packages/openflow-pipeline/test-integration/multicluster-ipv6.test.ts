/**
 * Multi-cluster between two IPv6-only clusters on real OVS: each cluster is one IPv6-only node that
 * is its cluster's Gateway (its IPv6 node address on br-phy, an IPv6 underlay between them, the
 * tunnel port with local_ip), with one pod and the flows computeNodeFlows gives its multicluster
 * spec. A pod pings the other cluster's pod: the Gateway tunnels with tun_ipv6_dst to the remote
 * Gateway and SNATs to its own IPv6 gateway IP; the reply comes back to that address and is
 * un-SNATed to the pod.
 *
 * A mixed ClusterSet: a third cluster, north, is one dual-stack Gateway (IPv4 and IPv6 on br-phy,
 * its tunnel port without local_ip, as a dual-stack node's whose tunnels are IPv4), in the same
 * ClusterSet as the IPv6-only east: IPv6 traffic between them takes the Geneve tunnel over IPv6.
 */
import { Testbed, eventually, type Netns, type OvsInstance, type Pod } from '@switchyard/testbed';
import { computeNodeFlows, type MulticlusterSpec, type NodeState } from '../src/index';
import { install } from './helpers';

const BR = 'br-int';
let tb: Testbed;
let fabric: Netns;

interface Gateway {
  ovs: OvsInstance;
  pod: Pod;
  gwMac: string;
  nodeIP: string;
  podCIDRv6: string;
  gw6: string;
  pod6: string;
}
let west: Gateway;
let east: Gateway;
let north: Gateway & { nodeIPv4: string; gw4: string };

/** An IPv6-only node: br-phy with its IPv6 address on the underlay, br-int with the tunnel (local_ip), the gateway port and one IPv6 pod. */
async function makeGateway(i: number): Promise<Gateway> {
  const ovs = await tb.startOvs();
  const nodeIP = `fd00:78::${i}`;
  await tb.attachUnderlay(ovs, fabric, nodeIP, 64);
  await ovs.addBridge(BR, { failSecure: true });
  await ovs.vsctl('add-port', BR, 'tun0', '--', 'set', 'interface', 'tun0', 'type=geneve', 'options:remote_ip=flow', 'options:key=flow', `options:local_ip=${nodeIP}`, 'ofport_request=1');
  await ovs.vsctl('add-port', BR, 'gw0', '--', 'set', 'interface', 'gw0', 'type=internal', 'ofport_request=2');
  const gwMac = (await ovs.vsctl('get', 'interface', 'gw0', 'mac_in_use')).trim().replace(/"/g, '');
  const [gw6, pod6] = [`fd00:20:${i}::1`, `fd00:20:${i}::a`];
  const pod = await tb.addPod(ovs, { bridge: BR, ipCidr: `${pod6}/64`, ofport: 10 });
  await pod.exec(['ip', '-6', 'route', 'add', 'default', 'via', gw6, 'dev', 'eth0']);
  for (const argv of [['ip', 'link', 'set', 'gw0', 'up'], ['ip', '-6', 'addr', 'add', `${gw6}/64`, 'dev', 'gw0', 'nodad']]) await ovs.netns.exec(argv);
  return { ovs, pod, gwMac, nodeIP, podCIDRv6: `fd00:20:${i}::/64`, gw6, pod6 };
}

/**
 * A dual-stack node: br-phy with an IPv4 and an IPv6 address on the same underlay, the tunnel port
 * without local_ip (OVS picks the source address by the route to each tunnel destination), gw0 and
 * a pod with an address of each family.
 */
async function makeDualStackGateway(i: number): Promise<typeof north> {
  const ovs = await tb.startOvs();
  const [nodeIPv4, nodeIP] = [`192.168.78.${i}`, `fd00:78::${i}`];
  await tb.attachUnderlay(ovs, fabric, nodeIPv4, 24);
  await ovs.netns.exec(['ip', '-6', 'addr', 'add', `${nodeIP}/64`, 'dev', 'br-phy', 'nodad']);
  await ovs.addBridge(BR, { failSecure: true });
  await ovs.vsctl('add-port', BR, 'tun0', '--', 'set', 'interface', 'tun0', 'type=geneve', 'options:remote_ip=flow', 'options:key=flow', 'ofport_request=1');
  await ovs.vsctl('add-port', BR, 'gw0', '--', 'set', 'interface', 'gw0', 'type=internal', 'ofport_request=2');
  const gwMac = (await ovs.vsctl('get', 'interface', 'gw0', 'mac_in_use')).trim().replace(/"/g, '');
  const [gw4, gw6, pod6] = [`10.20.${i}.1`, `fd00:20:${i}::1`, `fd00:20:${i}::a`];
  const pod = await tb.addPod(ovs, { bridge: BR, ipCidr: `10.20.${i}.10/24`, gateway: gw4, ofport: 10 });
  await pod.exec(['ip', '-6', 'addr', 'add', `${pod6}/64`, 'dev', 'eth0', 'nodad']);
  await pod.exec(['ip', '-6', 'route', 'add', 'default', 'via', gw6, 'dev', 'eth0']);
  for (const argv of [['ip', 'link', 'set', 'gw0', 'up'], ['ip', 'addr', 'add', `${gw4}/24`, 'dev', 'gw0'], ['ip', '-6', 'addr', 'add', `${gw6}/64`, 'dev', 'gw0', 'nodad']]) await ovs.netns.exec(argv);
  return { ovs, pod, gwMac, nodeIP, nodeIPv4, podCIDRv6: `fd00:20:${i}::/64`, gw4, gw6, pod6 };
}

/** The Gateway node's state: no IPv4 anywhere; the other clusters' pod CIDRs go to their Gateways' IPv6 addresses. */
function stateOf(n: Gateway, peers: Gateway[]): NodeState {
  const multicluster: MulticlusterSpec = {
    isGateway: true, localGatewayIP: n.nodeIP, gatewayIP: n.nodeIP, gatewayIPv6: n.nodeIP,
    remoteClusters: peers.map((peer) => ({ cidrs: [peer.podCIDRv6], gatewayIP: peer.nodeIP, gatewayIPv6: peer.nodeIP })),
  };
  return {
    config: { round: 1, trafficMode: 'encap', gateway: { ofport: 2, ipv6: n.gw6, mac: n.gwMac }, tunnelOfport: 1, podCIDRv6: n.podCIDRv6, nodeIP: n.nodeIP, enableProxy: true, enableAntreaPolicy: false, netdevDatapath: true },
    pods: [{ name: 'p', namespace: 'ns', ofport: n.pod.ofport, ips: [n.pod6], mac: n.pod.mac }],
    remoteNodes: [], policies: [], addressGroups: [], appliedToGroups: [], multicluster,
  };
}

/** The dual-stack Gateway's state: its IPv4 gateway IP and IPv6 one; the IPv6-only cluster is reached at its IPv6 gateway IP (the agent's spec for it). */
function dualStateOf(n: typeof north, peer: Gateway): NodeState {
  const multicluster: MulticlusterSpec = {
    isGateway: true, localGatewayIP: n.nodeIPv4, gatewayIP: n.nodeIPv4, gatewayIPv6: n.nodeIP,
    remoteClusters: [{ cidrs: [peer.podCIDRv6], gatewayIP: peer.nodeIP, gatewayIPv6: peer.nodeIP }],
  };
  return {
    config: {
      round: 1, trafficMode: 'encap', gateway: { ofport: 2, ip: n.gw4, ipv6: n.gw6, mac: n.gwMac }, tunnelOfport: 1, podCIDR: n.gw4.replace(/\.1$/, '.0/24'), podCIDRv6: n.podCIDRv6,
      nodeIP: n.nodeIPv4, nodeIPv6: n.nodeIP, enableProxy: true, enableAntreaPolicy: false, netdevDatapath: true,
    },
    pods: [{ name: 'p', namespace: 'ns', ofport: n.pod.ofport, ips: [n.gw4.replace(/\.1$/, '.10'), n.pod6], mac: n.pod.mac }],
    remoteNodes: [], policies: [], addressGroups: [], appliedToGroups: [], multicluster,
  };
}

beforeAll(async () => {
  tb = await Testbed.create();
  fabric = await tb.createNetns('f');
  await fabric.exec(['ip', 'link', 'add', 'br0', 'type', 'bridge']);
  await fabric.exec(['ip', 'link', 'set', 'br0', 'up']);
  west = await makeGateway(1);
  east = await makeGateway(2);
  north = await makeDualStackGateway(3);
  // The userspace tunnel resolves the remote Gateway by neighbour discovery from br-phy on first
  // use and drops that packet meanwhile: give each its peer's underlay MAC.
  const phyMac = async (n: Gateway): Promise<string> => (await n.ovs.vsctl('get', 'interface', 'br-phy', 'mac_in_use')).trim().replace(/"/g, '');
  await west.ovs.appctl('tnl/neigh/set', 'br-phy', east.nodeIP, await phyMac(east));
  await east.ovs.appctl('tnl/neigh/set', 'br-phy', west.nodeIP, await phyMac(west));
  await east.ovs.appctl('tnl/neigh/set', 'br-phy', north.nodeIP, await phyMac(north));
  await north.ovs.appctl('tnl/neigh/set', 'br-phy', east.nodeIP, await phyMac(east));
  await install(west.ovs, BR, computeNodeFlows(stateOf(west, [east])));
  await install(east.ovs, BR, computeNodeFlows(stateOf(east, [west, north])));
  await install(north.ovs, BR, computeNodeFlows(dualStateOf(north, east)));
}, 120_000);

afterAll(async () => {
  await tb?.cleanup();
});

describe('two IPv6-only clusters, Gateway to Gateway over an IPv6 underlay', () => {
  it("a west pod pings the east pod: tunnelled with tun_ipv6_dst, SNATed to west's IPv6 gateway IP, the reply un-SNATed", async () => {
    // Both Gateways' br-phy addresses may still be tentative (DAD): retry until the underlay carries it.
    await eventually(async () => {
      const r = await west.pod.exec(['ping', '-6', '-c', '1', '-W', '2', east.pod6], { allowFailure: true });
      return r.code === 0 ? r : undefined;
    });
    // west's SNAT zone (0xffe7 = 65511) holds the connection from its pod, SNATed to its gateway IP.
    const ct = await west.ovs.appctl('dpctl/dump-conntrack', '-m');
    const entry = ct.split('\n').find((l) => l.includes('icmpv6') && l.includes(`src=${west.pod6}`) && l.includes('zone=65511'));
    expect(entry).toContain(`dst=${west.nodeIP}`);
    // east saw the connection come from west's gateway IP, not the pod.
    const ectx = await east.ovs.appctl('dpctl/dump-conntrack', '-m');
    expect(ectx.split('\n').some((l) => l.includes('icmpv6') && l.includes(`src=${west.nodeIP}`) && l.includes(`dst=${east.pod6}`))).toBe(true);
    expect(ectx).not.toContain(`src=${west.pod6}`);
  });

  it('the Gateway sends to the other cluster with tun_ipv6_dst (no IPv4 tunnel destination)', async () => {
    const out = await west.ovs.appctl('ofproto/trace', BR, `in_port=10,icmp6,dl_src=${west.pod.mac},dl_dst=${west.gwMac},ipv6_src=${west.pod6},ipv6_dst=${east.pod6},icmpv6_type=128`);
    expect(out).toContain(`set_field:${east.nodeIP}->tun_ipv6_dst`);
    expect(out).not.toMatch(/->tun_dst/);
  });
});

describe('a ClusterSet mixing a dual-stack and an IPv6-only cluster', () => {
  const ping = async (from: Gateway, to: string) =>
    eventually(async () => {
      const r = await from.pod.exec(['ping', '-6', '-c', '1', '-W', '2', to], { allowFailure: true });
      return r.code === 0 ? r : undefined;
    });

  it("the dual-stack Gateway's pod pings the IPv6-only cluster's pod over IPv6: tunnelled over IPv6 without local_ip, SNATed to its IPv6 gateway IP", async () => {
    await ping(north, east.pod6);
    const ct = await north.ovs.appctl('dpctl/dump-conntrack', '-m');
    expect(ct.split('\n').find((l) => l.includes('icmpv6') && l.includes(`src=${north.pod6}`) && l.includes('zone=65511'))).toContain(`dst=${north.nodeIP}`);
    const ectx = await east.ovs.appctl('dpctl/dump-conntrack', '-m');
    expect(ectx.split('\n').some((l) => l.includes('icmpv6') && l.includes(`src=${north.nodeIP}`) && l.includes(`dst=${east.pod6}`))).toBe(true);
    expect(ectx).not.toContain(`orig=(src=${north.pod6}`);
    const out = await north.ovs.appctl('ofproto/trace', BR, `in_port=10,icmp6,dl_src=${north.pod.mac},dl_dst=${north.gwMac},ipv6_src=${north.pod6},ipv6_dst=${east.pod6},icmpv6_type=128`);
    expect(out).toContain(`set_field:${east.nodeIP}->tun_ipv6_dst`);
  });

  it("the IPv6-only cluster's pod pings the dual-stack cluster's pod: the dual-stack Gateway takes the IPv6 tunnel in and answers through it", async () => {
    await ping(east, north.pod6);
    const nct = await north.ovs.appctl('dpctl/dump-conntrack', '-m');
    expect(nct.split('\n').some((l) => l.includes('icmpv6') && l.includes(`src=${east.nodeIP}`) && l.includes(`dst=${north.pod6}`))).toBe(true);
    expect(nct).not.toContain(`orig=(src=${east.pod6}`);
  });
});
