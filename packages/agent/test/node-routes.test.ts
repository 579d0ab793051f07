import type { KubeObject } from '@switchyard/kube';
import type { RemoteNode } from '@switchyard/openflow-pipeline';
import { ManualClock } from '@switchyard/runtime/testing';
import { NodeRouteController, ROUTES_RETRY, hostRoutes6For, hostRoutesFor, missingNodeIPv6Detail, nodeFacts, remoteNodesOf, sameSubnet, tunnelIPOf, type HostRoute } from '../src/features/routes/node-routes';

const node = (name: string, podCIDR: string | undefined, ip: string | undefined): KubeObject => ({
  metadata: { name },
  spec: podCIDR ? { podCIDR, podCIDRs: [podCIDR] } : {},
  status: { addresses: ip ? [{ type: 'Hostname', address: name }, { type: 'InternalIP', address: ip }] : [] },
});
const self = { name: 'n1', podCIDR: '10.10.1.0/24', nodeIP: '192.168.1.1' };

describe('nodeFacts', () => {
  test('takes the IPv4 pod CIDR and InternalIP, and the IPv6 ones as podCIDRv6 and nodeIPv6', () => {
    const o: KubeObject = {
      metadata: { name: 'n2' },
      spec: { podCIDR: 'fd00::/64', podCIDRs: ['fd00::/64', '10.10.2.0/24'] },
      status: { addresses: [{ type: 'InternalIP', address: 'fd00::2' }, { type: 'InternalIP', address: '192.168.1.2' }] },
    };
    expect(nodeFacts(o)).toEqual({ name: 'n2', podCIDR: '10.10.2.0/24', nodeIP: '192.168.1.2', podCIDRv6: 'fd00::/64', nodeIPv6: 'fd00::2' });
  });
  test('a Node without a pod CIDR or address gives undefined facts', () => {
    expect(nodeFacts(node('n3', undefined, undefined))).toEqual({ name: 'n3', podCIDR: undefined, nodeIP: undefined });
  });
});

describe('remoteNodesOf', () => {
  test('every other Node with a CIDR and an address, sorted, with its gateway IP', () => {
    const claims = new Map<string, string>();
    const { remote, refused } = remoteNodesOf(
      [nodeFacts(node('n3', '10.10.3.0/24', '192.168.1.3')), nodeFacts(node('n1', self.podCIDR, self.nodeIP)), nodeFacts(node('n2', '10.10.2.0/24', '192.168.1.2')), nodeFacts(node('n4', undefined, '192.168.1.4'))],
      self,
      claims,
    );
    expect(refused).toEqual([]);
    expect(remote).toEqual([
      { name: 'n2', podCIDR: '10.10.2.0/24', nodeIP: '192.168.1.2', gatewayIP: '10.10.2.1' },
      { name: 'n3', podCIDR: '10.10.3.0/24', nodeIP: '192.168.1.3', gatewayIP: '10.10.3.1' },
    ]);
  });

  test('a duplicate pod CIDR is refused until the Node holding it is gone', () => {
    const claims = new Map<string, string>();
    const n3 = nodeFacts(node('n3', '10.10.3.0/24', '192.168.1.3'));
    remoteNodesOf([n3], self, claims);
    // n2 (sorted first) claims n3's CIDR later: n3 keeps it.
    const dup = nodeFacts(node('n2', '10.10.3.0/24', '192.168.1.2'));
    const r1 = remoteNodesOf([dup, n3], self, claims);
    expect(r1.remote.map((r) => r.name)).toEqual(['n3']);
    expect(r1.refused).toEqual([{ name: 'n2', podCIDR: '10.10.3.0/24', heldBy: 'n3' }]);
    // n3 deleted: n2 gets the CIDR.
    const r2 = remoteNodesOf([dup], self, claims);
    expect(r2.remote.map((r) => r.name)).toEqual(['n2']);
    expect(r2.refused).toEqual([]);
  });

  test("a Node claiming this node's pod CIDR is refused", () => {
    const r = remoteNodesOf([nodeFacts(node('n9', self.podCIDR, '192.168.1.9'))], self, new Map());
    expect(r.remote).toEqual([]);
    expect(r.refused).toEqual([{ name: 'n9', podCIDR: self.podCIDR, heldBy: 'n1' }]);
  });
});

describe('hostRoutesFor', () => {
  const remote: RemoteNode[] = [
    { name: 'n2', podCIDR: '10.10.2.0/24', nodeIP: '192.168.1.2', gatewayIP: '10.10.2.1' },
    { name: 'n3', podCIDR: '10.10.3.0/24', nodeIP: '192.168.2.3', gatewayIP: '10.10.3.1' },
  ];
  const o = { gatewayName: 'gw0', transportDev: 'eth0', nodeIP: '192.168.1.1', transportPrefix: 24 };
  test('encap: every remote pod CIDR through the gateway, onlink to the peer gateway IP', () => {
    expect(hostRoutesFor('encap', remote, o)).toEqual([
      { dst: '10.10.2.0/24', via: '10.10.2.1', dev: 'gw0', onlink: true },
      { dst: '10.10.3.0/24', via: '10.10.3.1', dev: 'gw0', onlink: true },
    ]);
  });
  test('noEncap: every remote pod CIDR via the peer node IP on the transport link', () => {
    expect(hostRoutesFor('noEncap', remote, o).map((r) => [r.dst, r.via, r.dev])).toEqual([
      ['10.10.2.0/24', '192.168.1.2', 'eth0'],
      ['10.10.3.0/24', '192.168.2.3', 'eth0'],
    ]);
  });
  test('hybrid: routed within the transport subnet, tunnelled (via the gateway) outside it', () => {
    expect(hostRoutesFor('hybrid', remote, o).map((r) => [r.dst, r.dev])).toEqual([
      ['10.10.2.0/24', 'eth0'],
      ['10.10.3.0/24', 'gw0'],
    ]);
  });
  test('networkPolicyOnly: no routes (the primary CNI routes)', () => {
    expect(hostRoutesFor('networkPolicyOnly', remote, o)).toEqual([]);
  });
});

test('sameSubnet compares the network part only', () => {
  expect(sameSubnet('192.168.1.1', '192.168.1.254', 24)).toBe(true);
  expect(sameSubnet('192.168.1.1', '192.168.2.1', 24)).toBe(false);
  expect(sameSubnet('192.168.1.1', '192.168.2.1', 16)).toBe(true);
  expect(sameSubnet('200.1.1.1', '10.1.1.1', 0)).toBe(true);
  expect(sameSubnet('255.255.255.255', '255.255.255.254', 32)).toBe(false);
});

describe('NodeRouteController', () => {
  function setup(): { c: NodeRouteController; calls: { remote: RemoteNode[][]; routes: HostRoute[][]; masq: string[][] } } {
    const calls = { remote: [] as RemoteNode[][], routes: [] as HostRoute[][], masq: [] as string[][] };
    const c = new NodeRouteController({
      self,
      mode: 'encap',
      gatewayName: 'gw0',
      transportDev: 'eth0',
      transportPrefix: 24,
      sink: {
        setRemoteNodes: async (n) => void calls.remote.push(n),
        syncRoutes: async (r) => void calls.routes.push(r),
        syncMasquerade: async (m) => void calls.masq.push(m),
      },
    });
    return { c, calls };
  }

  test('a burst of Node events is applied as the latest state, and an unchanged state is not re-applied', async () => {
    const { c, calls } = setup();
    c.onEvent({ type: 'ADDED', object: node('n1', self.podCIDR, self.nodeIP) });
    c.onEvent({ type: 'ADDED', object: node('n2', '10.10.2.0/24', '192.168.1.2') });
    c.onEvent({ type: 'ADDED', object: node('n3', '10.10.3.0/24', '192.168.1.3') });
    await c.idle();
    expect(calls.remote.at(-1)?.map((r) => r.name)).toEqual(['n2', 'n3']);
    expect(calls.masq.at(-1)).toEqual([self.podCIDR, '10.10.2.0/24', '10.10.3.0/24']);
    expect(calls.remote.length).toBeLessThanOrEqual(2);
    const applied = calls.remote.length;
    // A status-only change (same facts) does not touch flows or routes.
    c.onEvent({ type: 'MODIFIED', object: node('n2', '10.10.2.0/24', '192.168.1.2') });
    await c.idle();
    expect(calls.remote.length).toBe(applied);
    c.onEvent({ type: 'DELETED', object: node('n3', '10.10.3.0/24', '192.168.1.3') });
    await c.idle();
    expect(calls.remote.at(-1)?.map((r) => r.name)).toEqual(['n2']);
    expect(calls.routes.at(-1)).toEqual([{ dst: '10.10.2.0/24', via: '10.10.2.1', dev: 'gw0', onlink: true }]);
    expect(c.remote.map((r) => r.name)).toEqual(['n2']);
  });

  test('a failed apply is retried on the next event and reported until then', async () => {
    let fail = true;
    const c = new NodeRouteController({
      self, mode: 'encap', gatewayName: 'gw0', transportDev: 'eth0', transportPrefix: 24,
      sink: {
        setRemoteNodes: async () => {
          if (fail) throw new Error('switch gone');
        },
        syncRoutes: async () => undefined,
        syncMasquerade: async () => undefined,
      },
    });
    c.onEvent({ type: 'ADDED', object: node('n2', '10.10.2.0/24', '192.168.1.2') });
    await c.idle();
    expect((c.lastError as Error).message).toBe('switch gone');
    expect(c.remote).toEqual([]);
    fail = false;
    c.onEvent({ type: 'MODIFIED', object: node('n2', '10.10.2.0/24', '192.168.1.2') });
    await c.idle();
    expect(c.lastError).toBeUndefined();
    expect(c.remote.map((r) => r.name)).toEqual(['n2']);
  });

  test('a failed apply is retried after a backoff on its clock with no event to trigger it (a restarted switch had not made the gateway device yet), and a stopped controller retries nothing', async () => {
    const clock = new ManualClock();
    let failures = 2;
    let routeCalls = 0;
    const c = new NodeRouteController({
      self, mode: 'encap', gatewayName: 'gw0', transportDev: 'eth0', transportPrefix: 24, clock,
      sink: {
        setRemoteNodes: async () => undefined,
        syncRoutes: async () => {
          routeCalls++;
          if (failures-- > 0) throw new Error('Cannot find device "gw0"');
        },
        syncMasquerade: async () => undefined,
      },
    });
    c.onEvent({ type: 'ADDED', object: node('n2', '10.10.2.0/24', '192.168.1.2') });
    await c.idle();
    expect((c.lastError as Error).message).toBe('Cannot find device "gw0"');
    // Not before the first delay (at least 80% of initialMs with the jitter), then once per delay.
    await clock.advanceAsync(ROUTES_RETRY.initialMs * 0.8 - 1);
    await c.idle();
    expect(routeCalls).toBe(1);
    await clock.advanceAsync(ROUTES_RETRY.initialMs * 0.2 + 1);
    await c.idle();
    expect(routeCalls).toBe(2);
    expect(c.lastError).toBeDefined();
    await clock.advanceAsync(ROUTES_RETRY.initialMs * 2);
    await c.idle();
    expect(routeCalls).toBe(3);
    expect(c.lastError).toBeUndefined();
    expect(c.remote.map((r) => r.name)).toEqual(['n2']);
    await clock.advanceAsync(60_000);
    await c.idle();
    expect(routeCalls).toBe(3);

    failures = 1;
    await c.resync();
    expect(c.lastError).toBeDefined();
    c.stop();
    await clock.advanceAsync(60_000);
    await c.idle();
    expect(routeCalls).toBe(4);
  });
});

describe('dual-stack remote nodes and IPv6 host routes', () => {
  const dual = (name: string, v4: string, v6: string, ip: string): KubeObject => ({
    metadata: { name },
    spec: { podCIDR: v4, podCIDRs: [v4, v6] },
    status: { addresses: [{ type: 'InternalIP', address: ip }] },
  });
  const self6 = { ...self, podCIDRv6: 'fd00:10:1::/64' };

  test('a dual-stack node gives each peer its IPv6 pod CIDR (canonical); an IPv4-only node leaves it out', () => {
    const nodes = [nodeFacts(dual('n2', '10.10.2.0/24', 'FD00:10:2:0::/64', '192.168.1.2')), nodeFacts(node('n3', '10.10.3.0/24', '192.168.1.3'))];
    expect(remoteNodesOf(nodes, self6, new Map()).remote).toEqual([
      { name: 'n2', podCIDR: '10.10.2.0/24', podCIDRv6: 'fd00:10:2::/64', nodeIP: '192.168.1.2', gatewayIP: '10.10.2.1' },
      { name: 'n3', podCIDR: '10.10.3.0/24', nodeIP: '192.168.1.3', gatewayIP: '10.10.3.1' },
    ]);
    expect(remoteNodesOf(nodes, self, new Map()).remote.map((r) => 'podCIDRv6' in r)).toEqual([false, false]);
  });

  test("a peer claiming this node's (or an earlier peer's) IPv6 pod CIDR keeps its IPv4 one only", () => {
    const claims = new Map<string, string>();
    const r = remoteNodesOf([nodeFacts(dual('n2', '10.10.2.0/24', 'fd00:10:1::/64', '192.168.1.2'))], self6, claims);
    expect(r.remote).toEqual([{ name: 'n2', podCIDR: '10.10.2.0/24', nodeIP: '192.168.1.2', gatewayIP: '10.10.2.1' }]);
    expect(r.refused).toEqual([{ name: 'n2', podCIDR: 'fd00:10:1::/64', heldBy: 'n1' }]);
  });

  const remote: RemoteNode[] = [
    { name: 'n2', podCIDR: '10.10.2.0/24', podCIDRv6: 'fd00:10:2::/64', nodeIP: '192.168.1.2', gatewayIP: '10.10.2.1' },
    { name: 'n3', podCIDR: '10.10.3.0/24', podCIDRv6: 'fd00:10:3::/64', nodeIP: '192.168.2.3', gatewayIP: '10.10.3.1' },
    { name: 'n4', podCIDR: '10.10.4.0/24', nodeIP: '192.168.2.4', gatewayIP: '10.10.4.1' },
  ];
  // n2 in this node's IPv6 transport subnet (fd00:77::/64), n3 in another one; n4 has no IPv6 pod CIDR.
  const underlay6: RemoteNode[] = [{ ...remote[0]!, nodeIPv6: 'fd00:77::2' }, { ...remote[1]!, nodeIPv6: 'fd00:78::3' }, remote[2]!];
  const o = { gatewayName: 'gw0', transport6: { nodeIPv6: 'fd00:77::1', dev: 'br-phy', prefix: 64 } };
  test('encap: each peer IPv6 pod CIDR through the gateway, onlink via the peer gateway IPv6 address', () => {
    expect(hostRoutes6For('encap', underlay6, o)).toEqual({
      routes: [
        { dst: 'fd00:10:2::/64', via: 'fd00:10:2::1', dev: 'gw0', onlink: true },
        { dst: 'fd00:10:3::/64', via: 'fd00:10:3::1', dev: 'gw0', onlink: true },
      ],
      missing: [],
    });
  });
  test("noEncap: each peer IPv6 pod CIDR via the peer's IPv6 node address on the IPv6 transport device", () => {
    expect(hostRoutes6For('noEncap', underlay6, o)).toEqual({
      routes: [
        { dst: 'fd00:10:2::/64', via: 'fd00:77::2', dev: 'br-phy' },
        { dst: 'fd00:10:3::/64', via: 'fd00:78::3', dev: 'br-phy' },
      ],
      missing: [],
    });
  });
  test('hybrid: the peer in the IPv6 transport subnet routed on the underlay, the other through the gateway (tunnelled)', () => {
    expect(hostRoutes6For('hybrid', underlay6, o).routes).toEqual([
      { dst: 'fd00:10:2::/64', via: 'fd00:77::2', dev: 'br-phy' },
      { dst: 'fd00:10:3::/64', via: 'fd00:10:3::1', dev: 'gw0', onlink: true },
    ]);
    // Decided by the IPv6 subnet alone: n2 and n3 are in other IPv4 subnets than this node's.
    expect(hostRoutes6For('hybrid', underlay6.map((r) => ({ ...r, nodeIP: '10.99.0.9' })), o).routes.map((r) => r.dev)).toEqual(['br-phy', 'gw0']);
    // No IPv6 node address here: every peer tunnelled.
    const { transport6: _t, ...noTransport6 } = o;
    expect(hostRoutes6For('hybrid', underlay6, noTransport6)).toEqual({ routes: [{ dst: 'fd00:10:2::/64', via: 'fd00:10:2::1', dev: 'gw0', onlink: true }, { dst: 'fd00:10:3::/64', via: 'fd00:10:3::1', dev: 'gw0', onlink: true }], missing: [] });
  });
  test('noEncap: a peer whose Node has no IPv6 InternalIP gets no route and is named in missing (so is every peer when this node has none)', () => {
    const r = hostRoutes6For('noEncap', remote, o);
    expect(r.routes).toEqual([]);
    expect(r.missing).toEqual([{ name: 'n2', podCIDRv6: 'fd00:10:2::/64', mode: 'noEncap', lacking: 'peer' }, { name: 'n3', podCIDRv6: 'fd00:10:3::/64', mode: 'noEncap', lacking: 'peer' }]);
    expect(missingNodeIPv6Detail(r.missing.slice(0, 1))).toBe('Node n2 has no IPv6 InternalIP: trafficMode noEncap routes its IPv6 pod CIDR fd00:10:2::/64 to it on the underlay, so IPv6 to its pods is not routed');
    const { transport6: _t, ...noTransport6 } = o;
    const self6Missing = hostRoutes6For('noEncap', underlay6, noTransport6).missing;
    expect(self6Missing.map((m) => [m.name, m.lacking])).toEqual([['n2', 'self'], ['n3', 'self']]);
    expect(missingNodeIPv6Detail(self6Missing.slice(0, 1))).toBe('this node has no IPv6 node address (nodeIPv6): trafficMode noEncap routes the IPv6 pod CIDR fd00:10:2::/64 of Node n2 on the IPv6 underlay, so IPv6 to its pods is not routed');
  });
  test('networkPolicyOnly: no IPv6 route', () => {
    expect(hostRoutes6For('networkPolicyOnly', underlay6, o)).toEqual({ routes: [], missing: [] });
  });
  test('WireGuard: each peer IPv6 pod CIDR onto the WireGuard device in every routed mode, with or without an IPv6 node address anywhere', () => {
    const onto = { routes: [{ dst: 'fd00:10:2::/64', dev: 'wg0' }, { dst: 'fd00:10:3::/64', dev: 'wg0' }], missing: [] };
    const { transport6: _t, ...noTransport6 } = o;
    for (const mode of ['encap', 'noEncap', 'hybrid'] as const) {
      expect(hostRoutes6For(mode, underlay6, { ...o, wireGuardDev: 'wg0' })).toEqual(onto);
      expect(hostRoutes6For(mode, remote, { ...noTransport6, wireGuardDev: 'wg0' })).toEqual(onto);
    }
  });

  test("nodeFacts reads the IPv6 InternalIP (canonical), and a dual-stack node's peers carry it beside their IPv6 pod CIDR", () => {
    const n2 = { ...dual('n2', '10.10.2.0/24', 'fd00:10:2::/64', '192.168.1.2'), status: { addresses: [{ type: 'InternalIP', address: '192.168.1.2' }, { type: 'InternalIP', address: 'FD00:77:0::2' }] } };
    expect(nodeFacts(n2).nodeIPv6).toBe('fd00:77::2');
    expect(remoteNodesOf([nodeFacts(n2)], self6, new Map()).remote).toEqual([{ name: 'n2', podCIDR: '10.10.2.0/24', podCIDRv6: 'fd00:10:2::/64', nodeIP: '192.168.1.2', nodeIPv6: 'fd00:77::2', gatewayIP: '10.10.2.1' }]);
    // An IPv4-only node takes no IPv6 of its peers.
    expect(remoteNodesOf([nodeFacts(n2)], self, new Map()).remote[0]).not.toHaveProperty('nodeIPv6');
  });

  test('the controller in noEncap routes IPv6 on the underlay with no peer gateway neighbour, and reports a peer without an IPv6 InternalIP until it has one', async () => {
    const calls: [HostRoute[], string[]][] = [];
    const c = new NodeRouteController({
      self: self6, mode: 'noEncap', gatewayName: 'gw0', transportDev: 'eth0', transportPrefix: 24, transport6: { nodeIPv6: 'fd00:77::1', dev: 'br-phy', prefix: 64 },
      sink: { setRemoteNodes: async () => undefined, syncRoutes: async () => undefined, syncMasquerade: async () => undefined, syncIpv6: async (r, g) => void calls.push([r, g]) },
    });
    c.onEvent({ type: 'ADDED', object: dual('n2', '10.10.2.0/24', 'fd00:10:2::/64', '192.168.1.2') });
    await c.idle();
    expect(calls.at(-1)).toEqual([[], []]);
    expect(c.missingNodeIPv6).toEqual([{ name: 'n2', podCIDRv6: 'fd00:10:2::/64', mode: 'noEncap', lacking: 'peer' }]);
    c.onEvent({ type: 'MODIFIED', object: { ...dual('n2', '10.10.2.0/24', 'fd00:10:2::/64', '192.168.1.2'), status: { addresses: [{ type: 'InternalIP', address: '192.168.1.2' }, { type: 'InternalIP', address: 'fd00:77::2' }] } } });
    await c.idle();
    expect(calls.at(-1)).toEqual([[{ dst: 'fd00:10:2::/64', via: 'fd00:77::2', dev: 'br-phy' }], []]);
    expect(c.missingNodeIPv6).toEqual([]);
    await c.stop();
  });

  test('the controller of a dual-stack node syncs IPv6 routes, peer gateways and the IPv6 masquerade exceptions, and drops them when the Node goes', async () => {
    const calls: [HostRoute[], string[]][] = [];
    const remotes: RemoteNode[][] = [];
    const masq6: string[][] = [];
    const c = new NodeRouteController({
      self: self6, mode: 'encap', gatewayName: 'gw0', transportDev: 'eth0', transportPrefix: 24,
      sink: {
        setRemoteNodes: async (n) => void remotes.push(n),
        syncRoutes: async () => undefined,
        syncMasquerade: async () => undefined,
        syncMasquerade6: async (m) => void masq6.push(m),
        syncIpv6: async (r, g) => void calls.push([r, g]),
      },
    });
    c.onEvent({ type: 'ADDED', object: dual('n2', '10.10.2.0/24', 'fd00:10:2::/64', '192.168.1.2') });
    await c.idle();
    expect(remotes.at(-1)?.[0]?.podCIDRv6).toBe('fd00:10:2::/64');
    expect(calls.at(-1)).toEqual([[{ dst: 'fd00:10:2::/64', via: 'fd00:10:2::1', dev: 'gw0', onlink: true }], ['fd00:10:2::1']]);
    // This node's IPv6 pod CIDR first, then the peer's: traffic between them is never masqueraded.
    expect(masq6.at(-1)).toEqual([self6.podCIDRv6, 'fd00:10:2::/64']);
    c.onEvent({ type: 'DELETED', object: dual('n2', '10.10.2.0/24', 'fd00:10:2::/64', '192.168.1.2') });
    await c.idle();
    expect(calls.at(-1)).toEqual([[], []]);
    expect(masq6.at(-1)).toEqual([self6.podCIDRv6]);
  });

  test('an IPv4-only node never calls the IPv6 sync', async () => {
    let called = 0;
    const c = new NodeRouteController({
      self, mode: 'encap', gatewayName: 'gw0', transportDev: 'eth0', transportPrefix: 24,
      sink: { setRemoteNodes: async () => undefined, syncRoutes: async () => undefined, syncMasquerade: async () => undefined, syncIpv6: async () => void called++ },
    });
    c.onEvent({ type: 'ADDED', object: dual('n2', '10.10.2.0/24', 'fd00:10:2::/64', '192.168.1.2') });
    await c.idle();
    expect(called).toBe(0);
  });
});

describe('an IPv6-only node (no IPv4 pod CIDR)', () => {
  const only6 = (name: string, v6: string, ip: string): KubeObject => ({
    metadata: { name },
    spec: { podCIDR: v6, podCIDRs: [v6] },
    status: { addresses: [{ type: 'InternalIP', address: ip }] },
  });
  const me = { name: 'n1', podCIDR: undefined, nodeIP: '192.168.1.1', podCIDRv6: 'fd00:10:1::/64' };

  test('reads an IPv6-only Node with no IPv4 pod CIDR, and takes its peers by their IPv6 pod CIDR alone', () => {
    expect(nodeFacts(only6('n2', 'fd00:10:2::/64', '192.168.1.2'))).toEqual({ name: 'n2', podCIDR: undefined, nodeIP: '192.168.1.2', podCIDRv6: 'fd00:10:2::/64' });
    const claims = new Map<string, string>();
    const r = remoteNodesOf([nodeFacts(only6('n2', 'FD00:10:2:0::/64', '192.168.1.2')), nodeFacts(only6('n3', 'fd00:10:1::/64', '192.168.1.3')), nodeFacts(only6('n1', 'fd00:10:1::/64', '192.168.1.1'))], me, claims);
    expect(r.remote).toEqual([{ name: 'n2', podCIDRv6: 'fd00:10:2::/64', nodeIP: '192.168.1.2' }]);
    expect(r.refused).toEqual([{ name: 'n3', podCIDR: 'fd00:10:1::/64', heldBy: 'n1' }]);
  });

  test("noEncap: routes each peer IPv6 pod CIDR via its IPv6 node address on the underlay", async () => {
    const routes6: HostRoute[][] = [];
    const c = new NodeRouteController({
      self: me, mode: 'noEncap', gatewayName: 'gw0', transportDev: 'eth0', transportPrefix: 24, transport6: { nodeIPv6: 'fd00:77::1', dev: 'br-phy', prefix: 64 },
      sink: { setRemoteNodes: async () => undefined, syncRoutes: async () => undefined, syncMasquerade: async () => undefined, syncIpv6: async (r) => void routes6.push(r) },
    });
    c.onEvent({ type: 'ADDED', object: { ...only6('n2', 'fd00:10:2::/64', '192.168.1.2'), status: { addresses: [{ type: 'InternalIP', address: '192.168.1.2' }, { type: 'InternalIP', address: 'fd00:77::2' }] } } });
    await c.idle();
    expect(c.remote).toEqual([{ name: 'n2', podCIDRv6: 'fd00:10:2::/64', nodeIP: '192.168.1.2', nodeIPv6: 'fd00:77::2' }]);
    expect(routes6.at(-1)).toEqual([{ dst: 'fd00:10:2::/64', via: 'fd00:77::2', dev: 'br-phy' }]);
    await c.stop();
  });

  test('routes each peer IPv6 pod CIDR through the gateway, no IPv4 route, and masquerades IPv6 only', async () => {
    const routes: HostRoute[][] = [];
    const routes6: HostRoute[][] = [];
    const masq6: string[][] = [];
    let masquerade = 0;
    const c = new NodeRouteController({
      self: me, mode: 'encap', gatewayName: 'gw0', transportDev: 'eth0', transportPrefix: 24,
      sink: {
        setRemoteNodes: async () => undefined,
        syncRoutes: async (r) => void routes.push(r),
        syncMasquerade: async () => void masquerade++,
        syncMasquerade6: async (m) => void masq6.push(m),
        syncIpv6: async (r) => void routes6.push(r),
      },
    });
    c.onEvent({ type: 'ADDED', object: only6('n2', 'fd00:10:2::/64', '192.168.1.2') });
    await c.idle();
    expect(routes.at(-1)).toEqual([]);
    expect(routes6.at(-1)).toEqual([{ dst: 'fd00:10:2::/64', via: 'fd00:10:2::1', dev: 'gw0', onlink: true }]);
    expect(masquerade).toBe(0);
    expect(masq6.at(-1)).toEqual(['fd00:10:1::/64', 'fd00:10:2::/64']);
    await c.stop();
  });
});

describe('an IPv6-only node on an IPv6 underlay (Nodes with an IPv6 InternalIP alone)', () => {
  /** An IPv6-only Node with the given InternalIPs (an IPv6 one alone on a real IPv6-only cluster). */
  const v6Node = (name: string, v6: string, ...ips: string[]): KubeObject => ({
    metadata: { name },
    spec: { podCIDR: v6, podCIDRs: [v6] },
    status: { addresses: [...ips.map((address) => ({ type: 'InternalIP', address })), { type: 'Hostname', address: name }] },
  });
  const me6 = { name: 'n1', podCIDR: undefined, nodeIP: 'fd00:77::1', podCIDRv6: 'fd00:10:1::/64' };

  test('nodeFacts of a Node with an IPv6 InternalIP alone: no IPv4 node IP, the IPv6 one canonical', () => {
    expect(nodeFacts(v6Node('n2', 'fd00:10:2::/64', 'FD00:77:0::2'))).toEqual({ name: 'n2', podCIDR: undefined, nodeIP: undefined, podCIDRv6: 'fd00:10:2::/64', nodeIPv6: 'fd00:77::2' });
  });

  test('a peer with an IPv6 InternalIP alone is a peer, reached at that address (its tunnel destination); a peer without one is not', () => {
    const r = remoteNodesOf([
      nodeFacts(v6Node('n2', 'fd00:10:2::/64', 'fd00:77::2')),
      nodeFacts(v6Node('n3', 'fd00:10:3::/64', '192.168.1.3')),
      nodeFacts(v6Node('n4', 'fd00:10:4::/64', '192.168.1.4', 'fd00:77::4')),
    ], me6, new Map());
    expect(r.remote).toEqual([
      { name: 'n2', podCIDRv6: 'fd00:10:2::/64', nodeIP: 'fd00:77::2', nodeIPv6: 'fd00:77::2' },
      // A Node that has both is reached over IPv6 too: this node has no IPv4 address to tunnel from.
      { name: 'n4', podCIDRv6: 'fd00:10:4::/64', nodeIP: 'fd00:77::4', nodeIPv6: 'fd00:77::4' },
    ]);
    expect(r.refused).toEqual([]);
  });

  test('an IPv6-only node with an IPv4 node IP (the tunnels IPv4, as before) reaches a peer with an IPv6 InternalIP alone over IPv6, the others at their IPv4 address', () => {
    const me4 = { ...me6, nodeIP: '192.168.1.1' };
    const r = remoteNodesOf([nodeFacts(v6Node('n2', 'fd00:10:2::/64', 'fd00:77::2')), nodeFacts(v6Node('n4', 'fd00:10:4::/64', '192.168.1.4', 'fd00:77::4'))], me4, new Map());
    expect(r.remote.map((n) => [n.name, n.nodeIP])).toEqual([['n2', 'fd00:77::2'], ['n4', '192.168.1.4']]);
    // Without self.nodeIP (callers before the IPv6 underlay): the same.
    const { nodeIP: _n, ...noIP } = me4;
    expect(remoteNodesOf([nodeFacts(v6Node('n4', 'fd00:10:4::/64', '192.168.1.4', 'fd00:77::4'))], noIP, new Map()).remote.map((n) => n.nodeIP)).toEqual(['192.168.1.4']);
  });

  test('tunnelIPOf: a node with IPv4 pods reaches IPv4 addresses only (a dual-stack node\'s tunnels stay IPv4)', () => {
    const both = { nodeIP: '192.168.1.2', nodeIPv6: 'fd00:77::2' };
    const only6 = { nodeIP: undefined, nodeIPv6: 'fd00:77::2' };
    expect(tunnelIPOf(both, { podCIDR: '10.10.1.0/24', nodeIP: '192.168.1.1' })).toBe('192.168.1.2');
    expect(tunnelIPOf(only6, { podCIDR: '10.10.1.0/24', nodeIP: '192.168.1.1' })).toBeUndefined();
    expect(tunnelIPOf(both, { podCIDR: undefined, nodeIP: 'fd00:77::1' })).toBe('fd00:77::2');
    expect(tunnelIPOf({ nodeIP: '192.168.1.2' }, { podCIDR: undefined, nodeIP: 'fd00:77::1' })).toBeUndefined();
    expect(tunnelIPOf(only6, { podCIDR: undefined, nodeIP: '192.168.1.1' })).toBe('fd00:77::2');
  });

  test('a dual-stack node still drops a peer without an IPv4 InternalIP (its IPv4 pods need the IPv4 tunnel)', () => {
    const dual = { name: 'n1', podCIDR: '10.10.1.0/24', nodeIP: '192.168.1.1', podCIDRv6: 'fd00:10:1::/64' };
    const peer: KubeObject = { metadata: { name: 'n2' }, spec: { podCIDR: '10.10.2.0/24', podCIDRs: ['10.10.2.0/24', 'fd00:10:2::/64'] }, status: { addresses: [{ type: 'InternalIP', address: 'fd00:77::2' }] } };
    expect(remoteNodesOf([nodeFacts(peer)], dual, new Map()).remote).toEqual([]);
  });

  test('the controller: encap tunnels to each peer\'s IPv6 node IP, routes each IPv6 pod CIDR through the gateway, and touches no IPv4 route or masquerade', async () => {
    const set: RemoteNode[][] = [];
    const routes: HostRoute[][] = [];
    const routes6: HostRoute[][] = [];
    let masquerade = 0;
    const c = new NodeRouteController({
      self: me6, mode: 'encap', gatewayName: 'gw0', transportDev: 'br-phy', transportPrefix: 64, transport6: { nodeIPv6: 'fd00:77::1', dev: 'br-phy', prefix: 64 },
      sink: {
        setRemoteNodes: async (n) => void set.push(n), syncRoutes: async (r) => void routes.push(r), syncMasquerade: async () => void masquerade++,
        syncMasquerade6: async () => undefined, syncIpv6: async (r) => void routes6.push(r),
      },
    });
    c.onEvent({ type: 'ADDED', object: v6Node('n2', 'fd00:10:2::/64', 'fd00:77::2') });
    await c.idle();
    expect(set.at(-1)).toEqual([{ name: 'n2', podCIDRv6: 'fd00:10:2::/64', nodeIP: 'fd00:77::2', nodeIPv6: 'fd00:77::2' }]);
    expect(routes.at(-1)).toEqual([]);
    expect(routes6.at(-1)).toEqual([{ dst: 'fd00:10:2::/64', via: 'fd00:10:2::1', dev: 'gw0', onlink: true }]);
    expect(masquerade).toBe(0);
    await c.stop();
  });
});
