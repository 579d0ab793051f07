/** The node's Multi-cluster spec from the Gateway and ClusterInfoImports. */
import { gatewayFacts, gatewayWireGuardPlan, multiclusterSpecOf, podLabelIdentities, remoteClusterFacts } from '../src/features/multicluster/spec';
import { agentContext } from '../src/context';
import { multiclusterFromConfig, resolveAgentOptions } from '../src/options';
import { parseAgentConfig } from '@switchyard/apis';
import YAML from 'yaml';

const GW = { name: 'west-node1', gatewayIP: '192.168.77.11', internalIP: '192.168.77.11' };
const EAST = { clusterID: 'east', gatewayIPs: ['192.168.77.21'], serviceCIDR: '10.96.2.0/24', podCIDRs: ['10.20.0.0/16'] };

describe('multiclusterSpecOf', () => {
  test('has no spec without a Gateway', () => {
    expect(multiclusterSpecOf({ nodeName: 'west-node1', gateways: [], remoteClusters: [EAST], podToPod: false })).toBeUndefined();
  });

  test('the gateway node routes remote service CIDRs to the remote gateway and SNATs to its own gateway IP', () => {
    expect(multiclusterSpecOf({ nodeName: 'west-node1', gateways: [GW], remoteClusters: [EAST], podToPod: false })).toEqual({
      isGateway: true, localGatewayIP: '192.168.77.11', gatewayIP: '192.168.77.11', remoteClusters: [{ cidrs: ['10.96.2.0/24'], gatewayIP: '192.168.77.21' }],
    });
  });

  test('a regular node tunnels to the gateway internal IP', () => {
    const spec = multiclusterSpecOf({ nodeName: 'west-node2', gateways: [{ ...GW, gatewayIP: '203.0.113.5' }], remoteClusters: [EAST], podToPod: false })!;
    expect(spec.isGateway).toBe(false);
    expect(spec.localGatewayIP).toBe('192.168.77.11');
    expect(spec.gatewayIP).toBeUndefined();
  });

  test('adds remote pod CIDRs with pod-to-pod connectivity', () => {
    const spec = multiclusterSpecOf({ nodeName: 'west-node1', gateways: [GW], remoteClusters: [EAST], podToPod: true })!;
    expect(spec.remoteClusters[0]!.cidrs).toEqual(['10.96.2.0/24', '10.20.0.0/16']);
  });

  test('leaves out clusters without a gateway IP or any CIDR, and sorts by cluster ID', () => {
    const spec = multiclusterSpecOf({
      nodeName: 'west-node1', gateways: [GW], podToPod: false,
      remoteClusters: [{ ...EAST, clusterID: 'south' }, { ...EAST, gatewayIPs: [] }, { clusterID: 'north', gatewayIPs: ['192.168.77.31'], podCIDRs: ['10.30.0.0/16'] }, { ...EAST, clusterID: 'b', gatewayIPs: ['192.168.77.41'] }],
    })!;
    expect(spec.remoteClusters.map((r) => r.gatewayIP)).toEqual(['192.168.77.41', '192.168.77.21']);
  });

  test('with several Gateways the first by name counts', () => {
    const spec = multiclusterSpecOf({ nodeName: 'a', gateways: [{ ...GW, name: 'b' }, { ...GW, name: 'a', internalIP: '192.168.77.9' }], remoteClusters: [], podToPod: false })!;
    expect(spec).toMatchObject({ isGateway: true, localGatewayIP: '192.168.77.9' });
  });
});

describe('reading the objects', () => {
  test('a Gateway without gatewayIP or internalIP is ignored', () => {
    expect(gatewayFacts({ metadata: { name: 'n1' }, gatewayIP: '1.2.3.4' })).toBeUndefined();
    expect(gatewayFacts({ metadata: { name: 'n1' }, gatewayIP: '1.2.3.4', internalIP: '10.0.0.1' })).toEqual({ name: 'n1', gatewayIP: '1.2.3.4', internalIP: '10.0.0.1' });
  });

  test('a ClusterInfoImport gives its cluster, gateway IPs and CIDRs', () => {
    expect(remoteClusterFacts({ metadata: { name: 'east-clusterinfo' }, spec: { clusterID: 'east', gatewayInfos: [{ gatewayIP: '192.168.77.21' }, {}], serviceCIDR: '10.96.2.0/24', podCIDRs: ['10.20.0.0/16'] } })).toEqual(EAST);
    expect(remoteClusterFacts({ metadata: { name: 'x' }, spec: {} })).toBeUndefined();
  });
});

describe('antrea-agent.conf', () => {
  const conf = (text: string) => parseAgentConfig(YAML.parse(text)).config;
  test('the dataplane is on with the Multicluster gate and enableGateway, in the agent namespace by default', () => {
    expect(multiclusterFromConfig(conf('featureGates:\n  Multicluster: true\nmulticluster:\n  enableGateway: true\n'), {})).toEqual({ multicluster: { namespace: 'kube-system', enablePodToPodConnectivity: false } });
    expect(multiclusterFromConfig(conf('featureGates:\n  Multicluster: true\nmulticluster:\n  enableGateway: true\n  namespace: mc\n  enablePodToPodConnectivity: true\n'), { POD_NAMESPACE: 'x' })).toEqual({ multicluster: { namespace: 'mc', enablePodToPodConnectivity: true } });
  });
  test('it is off without the gate or without enableGateway', () => {
    expect(multiclusterFromConfig(conf('multicluster:\n  enableGateway: true\n'), {})).toEqual({});
    expect(multiclusterFromConfig(conf('featureGates:\n  Multicluster: true\n'), {})).toEqual({});
  });
});

describe('stretched NetworkPolicy: label identities of this node\'s pods', () => {
  const nsLabels = new Map([['default', { 'kubernetes.io/metadata.name': 'default' }], ['prod', { 'kubernetes.io/metadata.name': 'prod', env: 'prod' }]]);
  const ids = new Map([['ns:kubernetes.io/metadata.name=default&pod:app=client', 7], ['ns:env=prod,kubernetes.io/metadata.name=prod&pod:app=db,tier=back', 9]]);

  test('each pod\'s normalized label (namespace and pod labels, keys sorted) is looked up; pods without an id are left out', () => {
    expect(podLabelIdentities([
      { namespace: 'prod', labels: { tier: 'back', app: 'db' }, ip: '10.12.2.9' },
      { namespace: 'default', labels: { app: 'client' }, ip: '10.12.2.3' },
      { namespace: 'default', labels: { app: 'other' }, ip: '10.12.2.4' },
    ], nsLabels, ids)).toEqual([{ ip: '10.12.2.3', id: 7 }, { ip: '10.12.2.9', id: 9 }]);
  });

  test('they reach the spec with a Gateway, and the config key turns the watch on', () => {
    const spec = multiclusterSpecOf({ nodeName: 'n2', gateways: [{ name: 'n1', gatewayIP: '192.168.77.11', internalIP: '192.168.77.11' }], remoteClusters: [], podToPod: true, labelIdentities: [{ ip: '10.12.2.3', id: 7 }] });
    expect(spec?.labelIdentities).toEqual([{ ip: '10.12.2.3', id: 7 }]);
    const conf = (text: string) => parseAgentConfig(YAML.parse(text)).config;
    expect(multiclusterFromConfig(conf('featureGates:\n  Multicluster: true\nmulticluster:\n  enableGateway: true\n  enableStretchedNetworkPolicy: true\n'), {})).toEqual({ multicluster: { namespace: 'kube-system', enablePodToPodConnectivity: false, enableStretchedNetworkPolicy: true } });
  });
});

describe('WireGuard between the gateways', () => {
  const KEY = 'A'.repeat(43) + '=';
  const keyed = { ...EAST, wireGuardPublicKey: KEY };

  test('the config key turns it on with its port (51821 by default)', () => {
    const conf = (text: string) => parseAgentConfig(YAML.parse(text)).config;
    const on = 'featureGates:\n  Multicluster: true\nmulticluster:\n  enableGateway: true\n  trafficEncryptionMode: wireGuard\n';
    expect(multiclusterFromConfig(conf(on), {}).multicluster?.wireGuard).toEqual({ port: 51821 });
    expect(multiclusterFromConfig(conf(`${on}  wireGuard:\n    port: 51999\n`), {}).multicluster?.wireGuard).toEqual({ port: 51999 });
    expect(multiclusterFromConfig(conf('featureGates:\n  Multicluster: true\nmulticluster:\n  enableGateway: true\n'), {}).multicluster).not.toHaveProperty('wireGuard');
  });

  test('a ClusterInfoImport gives the key of its gateway', () => {
    expect(remoteClusterFacts({ metadata: { name: 'east' }, spec: { clusterID: 'east', gatewayInfos: [{ gatewayIP: '192.168.77.21' }], wireGuard: { publicKey: KEY } } })?.wireGuardPublicKey).toBe(KEY);
  });

  test('the gateway peers with each other cluster at <gatewayIP>:<port>, allowed its service and pod CIDRs even without pod-to-pod', () => {
    const spec = multiclusterSpecOf({ nodeName: 'west-node1', gateways: [GW], remoteClusters: [keyed], podToPod: false, wireGuard: true })!;
    expect(spec.wireGuard).toBe(true);
    expect(spec.remoteClusters[0]!.cidrs).toEqual(['10.96.2.0/24', '10.20.0.0/16']);
    expect(gatewayWireGuardPlan(spec, [keyed], 51821)).toEqual({
      peers: [{ node: 'east', publicKey: KEY, endpoint: '192.168.77.21:51821', allowedIPs: ['10.96.2.0/24', '10.20.0.0/16'] }],
      cidrs: ['10.96.2.0/24', '10.20.0.0/16'],
      skipped: [],
    });
  });

  test('a regular node has no peers and routes only what pod-to-pod says; clusters without a usable key are skipped with why', () => {
    const regular = multiclusterSpecOf({ nodeName: 'west-node2', gateways: [GW], remoteClusters: [keyed], podToPod: false, wireGuard: true });
    expect(regular!.remoteClusters[0]!.cidrs).toEqual(['10.96.2.0/24']);
    expect(gatewayWireGuardPlan(regular, [keyed], 51821)).toEqual({ peers: [], cidrs: [], skipped: [] });
    expect(gatewayWireGuardPlan(undefined, [keyed], 51821).peers).toEqual([]);
    const gw = multiclusterSpecOf({ nodeName: 'west-node1', gateways: [GW], remoteClusters: [EAST], podToPod: false, wireGuard: true });
    const plan = gatewayWireGuardPlan(gw, [EAST, { ...EAST, clusterID: 'north', wireGuardPublicKey: 'not-a-key' }], 51821);
    expect(plan.peers).toEqual([]);
    expect(plan.cidrs).toEqual([]);
    expect(plan.skipped).toEqual([
      { clusterID: 'east', reason: expect.stringContaining('has not published a WireGuard public key') },
      { clusterID: 'north', reason: expect.stringContaining('"not-a-key" is not a base64 32-byte key') },
    ]);
  });
});

describe('pod MTU with WireGuard between the gateways', () => {
  test('pods pay the WireGuard overhead on top of the tunnel (geneve: 1500 - 50 - 80)', () => {
    const base = { nodeName: 'n1', podCIDR: '10.10.1.0/24', nodeIP: '192.168.77.1', ovsdbRemote: 'unix:/x', dataDir: '/tmp/x' };
    const mc = { namespace: 'kube-system', enablePodToPodConnectivity: false };
    expect(agentContext(resolveAgentOptions({ ...base, multicluster: { ...mc, wireGuard: { port: 51821 } } })).mtu).toBe(1500 - 50 - 80);
    expect(agentContext(resolveAgentOptions({ ...base, multicluster: mc })).mtu).toBe(1450);
  });
});

describe('dual-stack clusters', () => {
  const DUAL = { metadata: { name: 'east-clusterinfo' }, spec: { clusterID: 'east', gatewayInfos: [{ gatewayIP: '192.168.77.21', gatewayIPv6: 'fd00:77::21' }], serviceCIDR: '10.96.2.0/24', serviceCIDRv6: 'fd00:96:2::/108', podCIDRs: ['10.20.0.0/16', 'fd00:20::/48'] } };

  test('reads the IPv6 gateway address and service CIDR of a ClusterInfoImport', () => {
    expect(remoteClusterFacts(DUAL)).toEqual({ clusterID: 'east', gatewayIPs: ['192.168.77.21'], gatewayIPv6: 'fd00:77::21', serviceCIDR: '10.96.2.0/24', serviceCIDRv6: 'fd00:96:2::/108', podCIDRs: ['10.20.0.0/16', 'fd00:20::/48'] });
  });

  test('routes the IPv6 CIDRs to the same gateway and knows its IPv6 address; the local Gateway SNATs IPv6 to its own', () => {
    const rc = remoteClusterFacts(DUAL)!;
    const gw = gatewayFacts({ metadata: { name: 'west-node1' }, gatewayIP: '192.168.77.11', internalIP: '192.168.77.11', gatewayIPv6: 'fd00:77::11' })!;
    const spec = multiclusterSpecOf({ nodeName: 'west-node1', gateways: [gw], remoteClusters: [rc], podToPod: true })!;
    expect(spec.gatewayIPv6).toBe('fd00:77::11');
    expect(spec.remoteClusters).toEqual([{ cidrs: ['10.96.2.0/24', 'fd00:96:2::/108', '10.20.0.0/16', 'fd00:20::/48'], gatewayIP: '192.168.77.21', gatewayIPv6: 'fd00:77::21' }]);
    // Without pod-to-pod connectivity: both service CIDRs, no pod CIDR.
    expect(multiclusterSpecOf({ nodeName: 'west-node2', gateways: [gw], remoteClusters: [rc], podToPod: false })!.remoteClusters[0]!.cidrs).toEqual(['10.96.2.0/24', 'fd00:96:2::/108']);
  });

  test('IPv6 fields that are not IPv6 are left out, each named with its field and value; the IPv4 routes stay', () => {
    const bad = { metadata: { name: 'east-clusterinfo' }, spec: { ...DUAL.spec, gatewayInfos: [{ gatewayIP: '192.168.77.21', gatewayIPv6: '192.168.77.22' }], serviceCIDRv6: '10.97.0.0/16', podCIDRs: ['10.20.0.0/16', 'fd00:20::/300'] } };
    const rc = remoteClusterFacts(bad)!;
    expect(rc.problems).toEqual([
      'ClusterInfoImport east-clusterinfo: spec.podCIDRs[1] "fd00:20::/300" is not a CIDR',
      'ClusterInfoImport east-clusterinfo: spec.serviceCIDRv6 "10.97.0.0/16" is not an IPv6 CIDR',
      'ClusterInfoImport east-clusterinfo: spec.gatewayInfos[0].gatewayIPv6 "192.168.77.22" is not an IPv6 address',
    ]);
    const spec = multiclusterSpecOf({ nodeName: 'x', gateways: [GW], remoteClusters: [rc], podToPod: true })!;
    expect(spec.remoteClusters).toEqual([{ cidrs: ['10.96.2.0/24', '10.20.0.0/16'], gatewayIP: '192.168.77.21' }]);
    // A Gateway's gatewayIPv6 that is not IPv6 is not used for SNAT.
    expect(gatewayFacts({ metadata: { name: 'n' }, gatewayIP: '192.168.77.11', internalIP: '192.168.77.11', gatewayIPv6: '10.0.0.1' })).toEqual({ name: 'n', gatewayIP: '192.168.77.11', internalIP: '192.168.77.11' });
  });

  test('WireGuard between dual-stack gateways carries IPv6 too: the IPv6 CIDRs in the spec and among the allowed IPs, one IPv4 endpoint', () => {
    const rc = { ...remoteClusterFacts(DUAL)!, wireGuardPublicKey: Buffer.alloc(32, 1).toString('base64') };
    const spec = multiclusterSpecOf({ nodeName: 'west-node1', gateways: [{ ...GW, gatewayIPv6: 'fd00:77::11' }], remoteClusters: [rc], podToPod: true, wireGuard: true, families: 'dual' })!;
    // No SNAT to gateway IPs through WireGuard, so no IPv6 gateway addresses in the spec.
    expect(spec.remoteClusters).toEqual([{ cidrs: ['10.96.2.0/24', 'fd00:96:2::/108', '10.20.0.0/16', 'fd00:20::/48'], gatewayIP: '192.168.77.21' }]);
    expect(spec.gatewayIPv6).toBeUndefined();
    expect(gatewayWireGuardPlan(spec, [rc], 51821, 'dual')).toEqual({
      peers: [{ node: 'east', publicKey: rc.wireGuardPublicKey, endpoint: '192.168.77.21:51821', allowedIPs: ['10.96.2.0/24', 'fd00:96:2::/108', '10.20.0.0/16', 'fd00:20::/48'] }],
      cidrs: ['10.96.2.0/24', 'fd00:96:2::/108', '10.20.0.0/16', 'fd00:20::/48'],
      skipped: [],
    });
  });

  test('an IPv4-only gateway keeps a dual-stack cluster\'s IPv6 CIDRs out of its spec and peer', () => {
    const rc = { ...remoteClusterFacts(DUAL)!, wireGuardPublicKey: Buffer.alloc(32, 1).toString('base64') };
    const spec = multiclusterSpecOf({ nodeName: 'west-node1', gateways: [GW], remoteClusters: [rc], podToPod: true, wireGuard: true, families: 'ipv4' })!;
    expect(spec.remoteClusters).toEqual([{ cidrs: ['10.96.2.0/24', '10.20.0.0/16'], gatewayIP: '192.168.77.21' }]);
    expect(gatewayWireGuardPlan(spec, [rc], 51821, 'ipv4').peers[0]).toMatchObject({ endpoint: '192.168.77.21:51821', allowedIPs: ['10.96.2.0/24', '10.20.0.0/16'] });
  });

  test('allowed IPs are canonical (host bits cleared, RFC 5952), as the device and the host routes print them', () => {
    const rc = { clusterID: 'east', gatewayIPs: ['192.168.77.21'], gatewayIPv6: 'fd00:77::21', serviceCIDR: '10.96.2.7/24', serviceCIDRv6: 'FD00:0096:0002::/108', podCIDRs: [], wireGuardPublicKey: Buffer.alloc(32, 1).toString('base64') };
    const spec = multiclusterSpecOf({ nodeName: 'west-node1', gateways: [GW], remoteClusters: [rc], podToPod: false, wireGuard: true, families: 'dual' });
    expect(gatewayWireGuardPlan(spec, [rc], 51821, 'dual').peers[0]!.allowedIPs).toEqual(['10.96.2.0/24', 'fd00:96:2::/108']);
  });

  test('a dual-stack pod has its label identity on both addresses', () => {
    const ids = new Map([['ns:&pod:app=client', 9]]);
    expect(podLabelIdentities([{ namespace: 'default', labels: { app: 'client' }, ip: '10.10.1.5', ips: ['10.10.1.5', 'fd00:10:1::5'] }], new Map([['default', {}]]), ids)).toEqual([{ ip: '10.10.1.5', id: 9 }, { ip: 'fd00:10:1::5', id: 9 }]);
  });
});

describe('IPv6-only clusters', () => {
  const V6ONLY = { metadata: { name: 'east-clusterinfo' }, spec: { clusterID: 'east', gatewayInfos: [{ gatewayIPv6: 'fd00:78::21' }], serviceCIDRv6: 'fd00:96:2::/108', podCIDRs: ['fd00:20::/48'] } };
  const GW6 = { metadata: { name: 'west-node1' }, gatewayIPv6: 'fd00:77::11', internalIPv6: 'fd00:77::11' };

  test('an IPv6-only Gateway (gatewayIPv6 / internalIPv6 alone) is tunnelled to at its IPv6 addresses', () => {
    expect(gatewayFacts(GW6)).toEqual({ name: 'west-node1', gatewayIP: 'fd00:77::11', internalIP: 'fd00:77::11', gatewayIPv6: 'fd00:77::11' });
    // Neither family: still ignored; an internalIPv6 that is not IPv6 does not count.
    expect(gatewayFacts({ metadata: { name: 'n' }, gatewayIPv6: 'fd00:77::11', internalIPv6: '10.0.0.1' })).toBeUndefined();
  });

  test("a ClusterInfoImport without an IPv4 gateway IP goes to its gateway's IPv6 address", () => {
    expect(remoteClusterFacts(V6ONLY)).toEqual({ clusterID: 'east', gatewayIPs: ['fd00:78::21'], gatewayIPv6: 'fd00:78::21', serviceCIDRv6: 'fd00:96:2::/108', podCIDRs: ['fd00:20::/48'] });
  });

  test('the spec of both node kinds names IPv6 tunnel addresses only, and the Gateway SNATs to its IPv6 gateway IP', () => {
    const rc = remoteClusterFacts(V6ONLY)!;
    const gw = gatewayFacts(GW6)!;
    expect(multiclusterSpecOf({ nodeName: 'west-node1', gateways: [gw], remoteClusters: [rc], podToPod: true })).toEqual({
      isGateway: true, localGatewayIP: 'fd00:77::11', gatewayIP: 'fd00:77::11', gatewayIPv6: 'fd00:77::11',
      remoteClusters: [{ cidrs: ['fd00:96:2::/108', 'fd00:20::/48'], gatewayIP: 'fd00:78::21', gatewayIPv6: 'fd00:78::21' }],
    });
    expect(multiclusterSpecOf({ nodeName: 'west-node2', gateways: [gw], remoteClusters: [rc], podToPod: false })).toEqual({
      isGateway: false, localGatewayIP: 'fd00:77::11', remoteClusters: [{ cidrs: ['fd00:96:2::/108'], gatewayIP: 'fd00:78::21', gatewayIPv6: 'fd00:78::21' }],
    });
  });

  test('WireGuard between IPv6-only gateways: the peer at [gatewayIPv6]:port, allowed its IPv6 CIDRs, routed in the spec', () => {
    const rc = { ...remoteClusterFacts(V6ONLY)!, wireGuardPublicKey: Buffer.alloc(32, 2).toString('base64') };
    const spec = multiclusterSpecOf({ nodeName: 'west-node1', gateways: [gatewayFacts(GW6)!], remoteClusters: [rc], podToPod: false, wireGuard: true, families: 'ipv6' })!;
    expect(spec).toEqual({ isGateway: true, localGatewayIP: 'fd00:77::11', gatewayIP: 'fd00:77::11', wireGuard: true, remoteClusters: [{ cidrs: ['fd00:96:2::/108', 'fd00:20::/48'], gatewayIP: 'fd00:78::21' }] });
    expect(gatewayWireGuardPlan(spec, [rc], 51821, 'ipv6')).toEqual({
      peers: [{ node: 'east', publicKey: rc.wireGuardPublicKey, endpoint: '[fd00:78::21]:51821', allowedIPs: ['fd00:96:2::/108', 'fd00:20::/48'] }],
      cidrs: ['fd00:96:2::/108', 'fd00:20::/48'],
      skipped: [],
    });
  });

  test('an IPv4-only gateway skips an IPv6-only cluster saying its gateway has an IPv6 address alone (not "no CIDR")', () => {
    const rc = { ...remoteClusterFacts(V6ONLY)!, wireGuardPublicKey: Buffer.alloc(32, 2).toString('base64') };
    const spec = multiclusterSpecOf({ nodeName: 'west-node1', gateways: [GW], remoteClusters: [rc], podToPod: false, wireGuard: true, families: 'ipv4' })!;
    expect(spec.remoteClusters).toEqual([]);
    expect(gatewayWireGuardPlan(spec, [rc], 51821, 'ipv4')).toEqual({
      peers: [], cidrs: [],
      skipped: [{ clusterID: 'east', reason: 'its gateway has an IPv6 address alone (fd00:78::21: an IPv6-only cluster), and this gateway is IPv4-only' }],
    });
  });
});

describe('a ClusterSet of a dual-stack and an IPv6-only member', () => {
  const KEY_W = Buffer.alloc(32, 3).toString('base64');
  const KEY_E = Buffer.alloc(32, 4).toString('base64');
  // west: dual-stack, exports both families; east: IPv6-only.
  const WEST_INFO = { metadata: { name: 'west-clusterinfo' }, spec: { clusterID: 'west', gatewayInfos: [{ gatewayIP: '192.168.77.11', gatewayIPv6: 'fd00:77::11' }], serviceCIDR: '10.96.1.0/24', serviceCIDRv6: 'fd00:96:1::/108', podCIDRs: ['10.10.0.0/16', 'fd00:10::/48'], wireGuard: { publicKey: KEY_W } } };
  const EAST_INFO = { metadata: { name: 'east-clusterinfo' }, spec: { clusterID: 'east', gatewayInfos: [{ gatewayIPv6: 'fd00:77::21' }], serviceCIDRv6: 'fd00:96:2::/108', podCIDRs: ['fd00:20::/48'], wireGuard: { publicKey: KEY_E } } };
  const WEST_GW = gatewayFacts({ metadata: { name: 'west-node1' }, gatewayIP: '192.168.77.11', internalIP: '192.168.77.11', gatewayIPv6: 'fd00:77::11', internalIPv6: 'fd00:77::11' })!;
  const EAST_GW = gatewayFacts({ metadata: { name: 'east-node1' }, gatewayIPv6: 'fd00:77::21', internalIPv6: 'fd00:77::21' })!;
  const west = remoteClusterFacts(WEST_INFO)!;
  const east = remoteClusterFacts(EAST_INFO)!;

  test('the IPv6-only member routes the dual-stack one\'s IPv6 CIDRs to its IPv6 gateway address and leaves its IPv4 ones out', () => {
    expect(multiclusterSpecOf({ nodeName: 'east-node1', gateways: [EAST_GW], remoteClusters: [west], podToPod: true, families: 'ipv6' })).toEqual({
      isGateway: true, localGatewayIP: 'fd00:77::21', gatewayIP: 'fd00:77::21', gatewayIPv6: 'fd00:77::21',
      remoteClusters: [{ cidrs: ['fd00:96:1::/108', 'fd00:10::/48'], gatewayIP: 'fd00:77::11', gatewayIPv6: 'fd00:77::11' }],
    });
    expect(multiclusterSpecOf({ nodeName: 'east-node2', gateways: [EAST_GW], remoteClusters: [west], podToPod: false, families: 'ipv6' })).toEqual({
      isGateway: false, localGatewayIP: 'fd00:77::21', remoteClusters: [{ cidrs: ['fd00:96:1::/108'], gatewayIP: 'fd00:77::11', gatewayIPv6: 'fd00:77::11' }],
    });
  });

  test('the dual-stack member routes the IPv6-only one to its IPv6 gateway address (its Gateway SNATs IPv6 to its own), regular nodes through their IPv4 Gateway', () => {
    expect(multiclusterSpecOf({ nodeName: 'west-node1', gateways: [WEST_GW], remoteClusters: [east], podToPod: true, families: 'dual' })).toEqual({
      isGateway: true, localGatewayIP: '192.168.77.11', gatewayIP: '192.168.77.11', gatewayIPv6: 'fd00:77::11',
      remoteClusters: [{ cidrs: ['fd00:96:2::/108', 'fd00:20::/48'], gatewayIP: 'fd00:77::21', gatewayIPv6: 'fd00:77::21' }],
    });
    expect(multiclusterSpecOf({ nodeName: 'west-node2', gateways: [WEST_GW], remoteClusters: [east], podToPod: true, families: 'dual' })).toMatchObject({
      isGateway: false, localGatewayIP: '192.168.77.11', remoteClusters: [{ cidrs: ['fd00:96:2::/108', 'fd00:20::/48'], gatewayIP: 'fd00:77::21' }],
    });
  });

  test('with WireGuard each Gateway peers with the other over IPv6 ([gatewayIPv6]:port), allowed the IPv6 CIDRs alone', () => {
    const eastSpec = multiclusterSpecOf({ nodeName: 'east-node1', gateways: [EAST_GW], remoteClusters: [west], podToPod: false, wireGuard: true, families: 'ipv6' });
    expect(gatewayWireGuardPlan(eastSpec, [west], 51821, 'ipv6')).toEqual({
      peers: [{ node: 'west', publicKey: KEY_W, endpoint: '[fd00:77::11]:51821', allowedIPs: ['fd00:96:1::/108', 'fd00:10::/48'] }], cidrs: ['fd00:96:1::/108', 'fd00:10::/48'], skipped: [],
    });
    expect(eastSpec!.remoteClusters).toEqual([{ cidrs: ['fd00:96:1::/108', 'fd00:10::/48'], gatewayIP: 'fd00:77::11' }]);
    const westSpec = multiclusterSpecOf({ nodeName: 'west-node1', gateways: [WEST_GW], remoteClusters: [east], podToPod: false, wireGuard: true, families: 'dual' });
    expect(gatewayWireGuardPlan(westSpec, [east], 51821, 'dual')).toEqual({
      peers: [{ node: 'east', publicKey: KEY_E, endpoint: '[fd00:77::21]:51821', allowedIPs: ['fd00:96:2::/108', 'fd00:20::/48'] }], cidrs: ['fd00:96:2::/108', 'fd00:20::/48'], skipped: [],
    });
  });

  test('the IPv6-only member skips a dual-stack cluster without an IPv6 gateway address or IPv6 CIDRs, saying which family is missing', () => {
    const noV6Gateway = remoteClusterFacts({ ...WEST_INFO, spec: { ...WEST_INFO.spec, gatewayInfos: [{ gatewayIP: '192.168.77.11' }] } })!;
    const spec = multiclusterSpecOf({ nodeName: 'east-node1', gateways: [EAST_GW], remoteClusters: [noV6Gateway], podToPod: false, wireGuard: true, families: 'ipv6' });
    expect(spec!.remoteClusters).toEqual([]);
    expect(gatewayWireGuardPlan(spec, [noV6Gateway], 51821, 'ipv6').skipped).toEqual([
      { clusterID: 'west', reason: 'its ClusterInfo has no IPv6 gateway address (gatewayInfos[0].gatewayIPv6, got 192.168.77.11), and this gateway is IPv6-only' },
    ]);
    const v4Only = remoteClusterFacts({ ...WEST_INFO, spec: { ...WEST_INFO.spec, serviceCIDRv6: '', podCIDRs: ['10.10.0.0/16'] } })!;
    expect(gatewayWireGuardPlan(spec, [v4Only], 51821, 'ipv6').skipped).toEqual([
      { clusterID: 'west', reason: "no service or pod CIDR of this gateway's family (IPv6) in its ClusterInfo, only 10.96.1.0/24, 10.10.0.0/16" },
    ]);
  });
});
