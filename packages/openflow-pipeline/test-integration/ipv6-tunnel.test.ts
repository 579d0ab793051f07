/**
 * IPv6 between pods of two dual-stack nodes through the Geneve tunnel over an IPv4 underlay: two
 * OVS instances (each in its own network namespace, the node IP on br-phy, a veth into a fabric
 * bridge), each with its gateway port, one pod, and the flows computeNodeFlows gives it with the
 * other node as peer (its IPv6 pod CIDR included). The pods ping each other over IPv6, and the
 * hop limit arrives decremented once by each node's pipeline.
 */
import { Testbed, type Netns, type OvsInstance, type Pod } from '@switchyard/testbed';
import { computeNodeFlows, type NodeState } from '../src/index';
import { install } from './helpers';

const BR = 'br-int';
let tb: Testbed;
let fabric: Netns;

interface TestNode {
  ovs: OvsInstance;
  pod: Pod;
  gwMac: string;
  nodeIP: string;
  podCIDR: string;
  podCIDRv6: string;
  gw: string;
  gw6: string;
  pod6: string;
}
let n1: TestNode;
let n2: TestNode;

/** A node: OVS with br-phy on the underlay (the node IP on it), br-int with the tunnel, the gateway port and one pod. */
async function makeNode(i: number): Promise<TestNode> {
  const ovs = await tb.startOvs();
  const nodeIP = `192.168.78.${i}`;
  await tb.attachUnderlay(ovs, fabric, nodeIP);
  await ovs.addBridge(BR, { failSecure: true });
  await ovs.vsctl('add-port', BR, 'tun0', '--', 'set', 'interface', 'tun0', 'type=geneve', 'options:remote_ip=flow', 'options:key=flow', 'ofport_request=1');
  await ovs.vsctl('add-port', BR, 'gw0', '--', 'set', 'interface', 'gw0', 'type=internal', 'ofport_request=2');
  const gwMac = (await ovs.vsctl('get', 'interface', 'gw0', 'mac_in_use')).trim().replace(/"/g, '');
  const [gw, gw6, pod6] = [`10.20.${i}.1`, `fd00:20:${i}::1`, `fd00:20:${i}::a`];
  const pod = await tb.addPod(ovs, { bridge: BR, ipCidr: `10.20.${i}.10/24`, gateway: gw, ofport: 10 });
  // The pod's IPv6 address without DAD (the same node's pipeline is tested for DAD elsewhere), its default route via the gateway.
  await pod.exec(['ip', '-6', 'addr', 'add', `${pod6}/64`, 'dev', 'eth0', 'nodad']);
  await pod.exec(['ip', '-6', 'route', 'add', 'default', 'via', gw6, 'dev', 'eth0']);
  for (const argv of [['ip', 'link', 'set', 'gw0', 'up'], ['ip', 'addr', 'add', `${gw}/24`, 'dev', 'gw0'], ['ip', '-6', 'addr', 'add', `${gw6}/64`, 'dev', 'gw0', 'nodad']]) await ovs.netns.exec(argv);
  return { ovs, pod, gwMac, nodeIP, podCIDR: `10.20.${i}.0/24`, podCIDRv6: `fd00:20:${i}::/64`, gw, gw6, pod6 };
}

function stateOf(n: TestNode, peer: TestNode): NodeState {
  return {
    config: {
      round: 1, trafficMode: 'encap', gateway: { ofport: 2, ip: n.gw, ipv6: n.gw6, mac: n.gwMac }, tunnelOfport: 1, podCIDR: n.podCIDR, podCIDRv6: n.podCIDRv6,
      nodeIP: n.nodeIP, enableProxy: false, enableAntreaPolicy: false, netdevDatapath: true,
    },
    pods: [{ name: 'p', namespace: 'ns', ofport: n.pod.ofport, ips: [n.pod.ip, n.pod6], mac: n.pod.mac }],
    remoteNodes: [{ name: 'peer', podCIDR: peer.podCIDR, podCIDRv6: peer.podCIDRv6, nodeIP: peer.nodeIP, gatewayIP: peer.gw }],
    policies: [], addressGroups: [], appliedToGroups: [],
  };
}

beforeAll(async () => {
  tb = await Testbed.create();
  fabric = await tb.createNetns('f');
  await fabric.exec(['ip', 'link', 'add', 'br0', 'type', 'bridge']);
  await fabric.exec(['ip', 'link', 'set', 'br0', 'up']);
  n1 = await makeNode(1);
  n2 = await makeNode(2);
  // OVS's userspace tunnel resolves the peer's node IP by ARP from br-phy on first use and drops
  // that packet meanwhile: give each node its peer's underlay MAC instead.
  const phyMac = async (n: TestNode): Promise<string> => (await n.ovs.vsctl('get', 'interface', 'br-phy', 'mac_in_use')).trim().replace(/"/g, '');
  await n1.ovs.appctl('tnl/neigh/set', 'br-phy', n2.nodeIP, await phyMac(n2));
  await n2.ovs.appctl('tnl/neigh/set', 'br-phy', n1.nodeIP, await phyMac(n1));
  await install(n1.ovs, BR, computeNodeFlows(stateOf(n1, n2)));
  await install(n2.ovs, BR, computeNodeFlows(stateOf(n2, n1)));
}, 120_000);

afterAll(async () => {
  await tb?.cleanup();
});

describe('two dual-stack nodes joined by a Geneve tunnel over IPv4', () => {
  it("a pod pings the other node's pod over IPv6: out through the sending node's tunnel flow, in through the MAC rewrite", async () => {
    const out = (await n1.pod.exec(['ping', '-6', '-c', '1', '-W', '5', n2.pod6])).stdout;
    // Sent with hop limit 64 by the pod, decremented once by each node's L3DecTTL.
    expect(out).toMatch(/ttl=62/);
  });

  it('and back, from the other node', async () => {
    const out = (await n2.pod.exec(['ping', '-6', '-c', '1', '-W', '5', n1.pod6])).stdout;
    expect(out).toMatch(/ttl=62/);
  });
});
