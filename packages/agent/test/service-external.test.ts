/**
 * External Service traffic on the agent side: Services to specs (external addresses, Local
 * policies, health-check ports, skipServices), the host's node port rules and routes, and the
 * health-check server answering as kube-proxy does (real HTTP on loopback).
 */
import { request } from 'node:http';
import type { KubeObject } from '@switchyard/kube';
import { ServiceGroupIds, servicesToSpecs, staleUdpEndpoints } from '../src/features/services/services';
import { NODEPORT_CHAIN, ServiceHostNetwork, nodePortRules, serviceHostRoutes, serviceHostRoutes6 } from '../src/features/services/host-proxy';
import { NetnsListener } from '../src/host-network/netns-listener';

const svc = (name: string, spec: Record<string, unknown>, status?: Record<string, unknown>): KubeObject => ({ metadata: { name, namespace: 'default' }, spec: { clusterIP: '10.96.0.10', ...spec }, ...(status ? { status } : {}) });
const slice = (service: string, eps: { ip: string; node: string }[]): KubeObject => ({
  metadata: { name: `${service}-x`, namespace: 'default', labels: { 'kubernetes.io/service-name': service } },
  addressType: 'IPv4', ports: [{ name: '', port: 8080, protocol: 'TCP' }],
  endpoints: eps.map((e) => ({ addresses: [e.ip], conditions: { ready: true }, nodeName: e.node })),
});
const lb = (spec: Record<string, unknown> = {}) =>
  svc('web', { type: 'LoadBalancer', ports: [{ port: 80, nodePort: 30080 }], externalIPs: ['192.168.77.201'], healthCheckNodePort: 32000, ...spec }, { loadBalancer: { ingress: [{ ip: '192.168.77.200' }] } });

describe('Services to specs: external traffic', () => {
  it('serves LoadBalancer ingress IPs and externalIPs on the Service port, Cluster policy by default', () => {
    const { specs, healthChecks, skipped } = servicesToSpecs({ services: [lb()], slices: [slice('web', [{ ip: '10.10.1.5', node: 'n1' }])], nodeName: 'n1', groupIds: new ServiceGroupIds() });
    expect(skipped).toEqual([]);
    expect(specs[0]).toMatchObject({ nodePort: 30080, externalAddresses: ['192.168.77.201', '192.168.77.200'] });
    expect(specs[0]!.externalLocal).toBeUndefined();
    expect(specs[0]!.localGroupId).toBeUndefined();
    expect(healthChecks).toEqual([]);
  });

  it('externalTrafficPolicy Local: a local group and the health-check port with the local endpoint count', () => {
    const { specs, healthChecks } = servicesToSpecs({
      services: [lb({ externalTrafficPolicy: 'Local' })], slices: [slice('web', [{ ip: '10.10.1.5', node: 'n1' }, { ip: '10.10.2.5', node: 'n2' }])], nodeName: 'n1', groupIds: new ServiceGroupIds(),
    });
    expect(specs[0]).toMatchObject({ externalLocal: true, localGroupId: specs[0]!.groupId + 1 });
    expect(healthChecks).toEqual([{ service: 'default/web', port: 32000, localEndpoints: 1 }]);
  });

  it('internalTrafficPolicy Local gets a local group too; proxyLoadBalancerIPs false leaves the ingress IPs out', () => {
    const { specs } = servicesToSpecs({ services: [lb({ internalTrafficPolicy: 'Local' })], slices: [], nodeName: 'n1', groupIds: new ServiceGroupIds(), proxyLoadBalancerIPs: false });
    expect(specs[0]).toMatchObject({ internalLocal: true, externalAddresses: ['192.168.77.201'] });
    expect(specs[0]!.localGroupId).toBeDefined();
  });

  it('a dual-stack LoadBalancer Service\'s two ingress IPs (one per family, from ServiceExternalIP) each go to the Service port of their family', () => {
    const dual = svc('web', { type: 'LoadBalancer', clusterIPs: ['10.96.0.10', 'fd00:10:96::a'], ipFamilies: ['IPv4', 'IPv6'], ports: [{ port: 80, nodePort: 30080 }] }, { loadBalancer: { ingress: [{ ip: '192.168.77.230' }, { ip: 'fd00:77::e0' }] } });
    const { specs, skipped } = servicesToSpecs({ services: [dual], slices: [], nodeName: 'n1', groupIds: new ServiceGroupIds(), ipv6: true, ipv6NodePorts: true });
    expect(skipped).toEqual([]);
    expect(specs.map((s) => [s.clusterIP, s.externalAddresses])).toEqual([['10.96.0.10', ['192.168.77.230']], ['fd00:10:96::a', ['fd00:77::e0']]]);
  });

  it('IPv6 external addresses go to the IPv6 spec on a node with an IPv6 address, and are reported (by path) without one', () => {
    const dual = lb({ clusterIPs: ['10.96.0.10', 'fd00:10:96::a'], externalIPs: ['192.168.77.201', 'FD00:78::64'] });
    const withV6 = servicesToSpecs({ services: [dual], slices: [], nodeName: 'n1', groupIds: new ServiceGroupIds(), ipv6: true, ipv6NodePorts: true });
    expect(withV6.skipped).toEqual([]);
    expect(withV6.specs.map((s) => [s.clusterIP, s.externalAddresses, s.nodePort])).toEqual([
      ['10.96.0.10', ['192.168.77.201', '192.168.77.200'], 30080],
      ['fd00:10:96::a', ['fd00:78::64'], 30080],
    ]);
    const without = servicesToSpecs({ services: [dual], slices: [], nodeName: 'n1', groupIds: new ServiceGroupIds(), ipv6: true });
    expect(without.skipped).toEqual([
      { object: 'service default/web', path: 'spec.externalIPs[1]', value: 'fd00:78::64', reason: 'an IPv6 address: not served here, this node has no IPv6 address' },
      { object: 'service default/web', path: 'spec.ports[0].nodePort', value: 30080, reason: expect.stringContaining('not served over IPv6') },
    ]);
    expect(without.specs.map((s) => [s.clusterIP, s.externalAddresses, s.nodePort])).toEqual([['10.96.0.10', ['192.168.77.201', '192.168.77.200'], 30080], ['fd00:10:96::a', undefined, undefined]]);
    // An IPv4-only Service with an IPv6 external IP: reported, the IPv4 ones kept.
    const v4only = servicesToSpecs({ services: [lb({ externalIPs: ['fd00:78::64', '192.168.77.9'] })], slices: [], nodeName: 'n1', groupIds: new ServiceGroupIds(), ipv6: true, ipv6NodePorts: true });
    expect(v4only.skipped).toEqual([{ object: 'service default/web', path: 'spec.externalIPs[0]', value: 'fd00:78::64', reason: 'an IPv6 address, and the Service has no IPv6 ClusterIP' }]);
    expect(v4only.specs[0]!.externalAddresses).toEqual(['192.168.77.9', '192.168.77.200']);
  });

  it('skipServices leaves a Service alone; a bad external IP is skipped by name, the rest kept', () => {
    const skipOut = servicesToSpecs({ services: [lb()], slices: [], nodeName: 'n1', groupIds: new ServiceGroupIds(), skipServices: new Set(['default/web']) });
    expect(skipOut.specs).toEqual([]);
    const { specs, skipped } = servicesToSpecs({ services: [lb({ externalIPs: ['not-an-ip', '192.168.77.9'] })], slices: [], nodeName: 'n1', groupIds: new ServiceGroupIds() });
    expect(skipped).toEqual([{ object: 'service default/web', path: 'spec.externalIPs[0]', value: 'not-an-ip', reason: 'not an IP address' }]);
    expect(specs[0]!.externalAddresses).toEqual(['192.168.77.9', '192.168.77.200']);
  });
});

describe('host rules and routes', () => {
  const specs = [
    { groupId: 1, protocol: 'TCP' as const, clusterIP: '10.96.0.10', port: 80, nodePort: 30080, externalAddresses: ['192.168.77.200'], endpoints: [] },
    { groupId: 2, protocol: 'UDP' as const, clusterIP: '10.96.0.10', port: 53, nodePort: 30053, endpoints: [] },
  ];
  it('one DNAT rule per node port and address range, to the NodePort DNAT address', () => {
    expect(nodePortRules(specs, [])).toEqual([
      '*nat', `:${NODEPORT_CHAIN} - [0:0]`, ':SWITCHYARD-SVC-MASQ - [0:0]', '-A SWITCHYARD-SVC-MASQ -s 169.254.0.253/32 -j MASQUERADE',
      `-A ${NODEPORT_CHAIN} ! -d 127.0.0.0/8 -m addrtype --dst-type LOCAL -p udp -m udp --dport 30053 -j DNAT --to-destination 169.254.0.252`,
      `-A ${NODEPORT_CHAIN} ! -d 127.0.0.0/8 -m addrtype --dst-type LOCAL -p tcp -m tcp --dport 30080 -j DNAT --to-destination 169.254.0.252`,
      'COMMIT',
    ]);
    expect(nodePortRules(specs, ['192.168.77.0/24', '10.0.0.0/8']).filter((l) => l.startsWith('-A SWITCHYARD-NODEPORT'))).toHaveLength(4);
  });
  it('routes the DNAT address and each external address into the gateway', () => {
    expect(serviceHostRoutes(specs, 'antrea-gw0', { proxyAll: true }).map((r) => r.dst)).toEqual(['169.254.0.252/32', '169.254.0.253/32', '10.96.0.10/32', '192.168.77.200/32']);
    expect(serviceHostRoutes(specs, 'antrea-gw0')).toEqual([
      { dst: '169.254.0.252/32', dev: 'antrea-gw0' },
      { dst: '169.254.0.253/32', dev: 'antrea-gw0' },
      { dst: '192.168.77.200/32', via: '169.254.0.253', dev: 'antrea-gw0', onlink: true },
    ]);
  });
  it('IPv6 node ports (a node with an IPv6 address): ip6tables DNAT to the IPv6 DNAT address, from the IPv6 ports only; IPv4\'s rules as before', () => {
    const six = { groupId: 9, protocol: 'TCP' as const, clusterIP: 'fd00:10:96::a', port: 80, nodePort: 30090, endpoints: [] };
    expect(nodePortRules([...specs, six], [])).toEqual(nodePortRules(specs, []));
    expect(nodePortRules([...specs, six], [], undefined, 6)).toEqual([
      '*nat', `:${NODEPORT_CHAIN} - [0:0]`, ':SWITCHYARD-SVC-MASQ - [0:0]', '-A SWITCHYARD-SVC-MASQ -s fc01::aabb:ccdd:eeff/128 -j MASQUERADE',
      `-A ${NODEPORT_CHAIN} ! -d ::1/128 -m addrtype --dst-type LOCAL -p tcp -m tcp --dport 30090 -j DNAT --to-destination fc01::aabb:ccdd:eefe`,
      'COMMIT',
    ]);
    // nodePortAddresses: each family's own ranges; IPv4 ranges alone serve no IPv6 node port.
    expect(nodePortRules([six], ['192.168.77.0/24', 'fd00:77::/64'], undefined, 6).filter((l) => l.startsWith(`-A ${NODEPORT_CHAIN}`))).toEqual([
      `-A ${NODEPORT_CHAIN} -d fd00:77::/64 -m addrtype --dst-type LOCAL -p tcp -m tcp --dport 30090 -j DNAT --to-destination fc01::aabb:ccdd:eefe`,
    ]);
    expect(nodePortRules([six], ['192.168.77.0/24'], undefined, 6).filter((l) => l.startsWith(`-A ${NODEPORT_CHAIN}`))).toEqual([]);
    // The virtual IPv6 Service address too: a node port's reply the host unmasquerades (noEncap) goes back into OVS.
    expect(serviceHostRoutes6([...specs, six], 'antrea-gw0')).toEqual([{ dst: 'fc01::aabb:ccdd:eefe/128', dev: 'antrea-gw0' }, { dst: 'fc01::aabb:ccdd:eeff/128', dev: 'antrea-gw0' }]);
    expect(serviceHostRoutes6(specs, 'antrea-gw0')).toEqual([]);
    // IPv6 external addresses: through the virtual IPv6 Service address (IPv4's routes leave them out).
    const ext = { ...six, externalAddresses: ['fd00:78::64'] };
    expect(serviceHostRoutes6([...specs, ext], 'antrea-gw0')).toEqual([
      { dst: 'fc01::aabb:ccdd:eefe/128', dev: 'antrea-gw0' },
      { dst: 'fc01::aabb:ccdd:eeff/128', dev: 'antrea-gw0' },
      { dst: 'fd00:78::64/128', via: 'fc01::aabb:ccdd:eeff', dev: 'antrea-gw0', onlink: true },
    ]);
    expect(serviceHostRoutes([...specs, ext], 'antrea-gw0')).toEqual(serviceHostRoutes(specs, 'antrea-gw0'));
  });
  it('ServiceHostNetwork with ipv6 writes the ip6tables rules with the DNAT address\'s neighbour, and its route, once per change', async () => {
    const scripts: { script: string; args: readonly string[] }[] = [];
    const routes6: unknown[] = [];
    const host = new ServiceHostNetwork({
      ops: { runInNode: async (script, args = []) => {
        scripts.push({ script, args });
        return '';
      }, syncRoutes: async () => undefined, syncIpv6Routes: async (r) => void routes6.push(r) },
      listener: new NetnsListener(undefined), gatewayName: 'antrea-gw0', nodePortAddresses: [], routeProto: 78, ipv6: true,
    });
    const six = { groupId: 9, protocol: 'TCP' as const, clusterIP: 'fd00:10:96::a', port: 80, nodePort: 30090, endpoints: [] };
    await host.sync([...specs, six], []);
    await host.sync([...specs, six], []);
    const v6 = scripts.filter((s) => s.script.includes('ip6tables-restore'));
    expect(v6).toHaveLength(1);
    expect(v6[0]!.script).toContain('ip -6 neigh replace "$1" lladdr "$2" dev "$3" nud permanent');
    expect(v6[0]!.args).toEqual(['fc01::aabb:ccdd:eefe', 'aa:bb:cc:dd:ee:ff', 'antrea-gw0', 'fc01::aabb:ccdd:eeff']);
    expect(routes6).toEqual([[{ dst: 'fc01::aabb:ccdd:eefe/128', dev: 'antrea-gw0' }, { dst: 'fc01::aabb:ccdd:eeff/128', dev: 'antrea-gw0' }]]);
    await host.sync(specs, []);
    expect(routes6).toEqual([[{ dst: 'fc01::aabb:ccdd:eefe/128', dev: 'antrea-gw0' }, { dst: 'fc01::aabb:ccdd:eeff/128', dev: 'antrea-gw0' }], []]);
    await host.stop();
  });
  it('proxyAll routes each family\'s ClusterIPs in its own table: IPv6 ones through the virtual IPv6 Service address, with a route to it', () => {
    const six = { groupId: 9, protocol: 'TCP' as const, clusterIP: 'fd00:10:96::a', port: 80, endpoints: [] };
    const sixNp = { ...six, groupId: 10, clusterIP: 'fd00:10:96::b', nodePort: 30090 };
    expect(serviceHostRoutes([...specs, six], 'antrea-gw0', { proxyAll: true })).toEqual(serviceHostRoutes(specs, 'antrea-gw0', { proxyAll: true }));
    expect(serviceHostRoutes6([...specs, six, sixNp], 'antrea-gw0', { proxyAll: true })).toEqual([
      { dst: 'fc01::aabb:ccdd:eefe/128', dev: 'antrea-gw0' },
      { dst: 'fc01::aabb:ccdd:eeff/128', dev: 'antrea-gw0' },
      { dst: 'fd00:10:96::a/128', via: 'fc01::aabb:ccdd:eeff', dev: 'antrea-gw0', onlink: true },
      { dst: 'fd00:10:96::b/128', via: 'fc01::aabb:ccdd:eeff', dev: 'antrea-gw0', onlink: true },
    ]);
    // Without proxyAll the ClusterIPs stay the host's; with no IPv6 Service port there is nothing to route.
    expect(serviceHostRoutes6([...specs, six, sixNp], 'antrea-gw0')).toEqual([{ dst: 'fc01::aabb:ccdd:eefe/128', dev: 'antrea-gw0' }, { dst: 'fc01::aabb:ccdd:eeff/128', dev: 'antrea-gw0' }]);
    expect(serviceHostRoutes6(specs, 'antrea-gw0', { proxyAll: true })).toEqual([]);
  });
  it('proxyAll puts the jump to the node port chain on OUTPUT in both families\' scripts; without it the jump is removed', async () => {
    for (const proxyAll of [true, false]) {
      const scripts: string[] = [];
      const host = new ServiceHostNetwork({
        ops: { runInNode: async (script) => {
          scripts.push(script);
          return '';
        }, syncRoutes: async () => undefined, syncIpv6Routes: async () => undefined },
        listener: new NetnsListener(undefined), gatewayName: 'antrea-gw0', nodePortAddresses: [], routeProto: 78, ipv6: true, proxyAll,
      });
      await host.sync([...specs, { groupId: 9, protocol: 'TCP' as const, clusterIP: 'fd00:10:96::a', port: 80, nodePort: 30090, endpoints: [] }], []);
      await host.stop();
      expect(scripts).toHaveLength(2);
      for (const [tool, script] of [['iptables', scripts.find((x) => x.includes('iptables-restore') && !x.includes('ip6tables-restore'))!], ['ip6tables', scripts.find((x) => x.includes('ip6tables-restore'))!]] as const) {
        expect(script).toContain(`${tool} -w -t nat -I PREROUTING -j ${NODEPORT_CHAIN}`);
        expect(script).toContain(proxyAll ? `${tool} -w -t nat -I OUTPUT -j ${NODEPORT_CHAIN}` : `${tool} -w -t nat -D OUTPUT -j ${NODEPORT_CHAIN}`);
        expect(script).not.toContain(proxyAll ? `-D OUTPUT` : `-I OUTPUT`);
      }
    }
  });
});

const get = (port: number, host = '127.0.0.1'): Promise<{ status: number; body: string; weight: string | undefined }> =>
  new Promise((resolve, reject) => {
    request({ host, port, path: '/', agent: false }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, weight: res.headers['x-load-balancing-endpoint-weight'] as string | undefined }));
    }).on('error', reject).end();
  });

describe('health-check node ports', () => {
  it('answer 200 with the local endpoint count, 503 with none, and close when the Service goes', async () => {
    const scripts: string[] = [];
    const host = new ServiceHostNetwork({
      ops: { runInNode: async (s) => {
        scripts.push(s);
        return '';
      }, syncRoutes: async () => undefined },
      listener: new NetnsListener(undefined), gatewayName: 'antrea-gw0', nodePortAddresses: [], routeProto: 78,
    });
    const port = 20000 + Math.floor(Math.random() * 20000);
    try {
      await host.sync([], [{ service: 'default/web', port, localEndpoints: 2 }]);
      expect(scripts[0]).toContain('iptables-restore');
      const ok = await get(port);
      expect([ok.status, JSON.parse(ok.body), ok.weight]).toEqual([200, { service: { namespace: 'default', name: 'web' }, localEndpoints: 2, serviceProxyHealthy: true }, '2']);
      await host.sync([], [{ service: 'default/web', port, localEndpoints: 0 }]);
      expect((await get(port)).status).toBe(503);
      // Unchanged rules are not written again.
      expect(scripts).toHaveLength(1);
      await host.sync([], []);
      await expect(get(port)).rejects.toThrow(/ECONNREFUSED/);
      // A node without an IPv6 address answers over IPv4 only.
      await host.sync([], [{ service: 'default/web', port, localEndpoints: 1 }]);
      await expect(get(port, '::1')).rejects.toThrow(/ECONNREFUSED/);
    } finally {
      await host.stop();
    }
  });

  it('on a node with an IPv6 address: answered over IPv6 and IPv4 alike', async () => {
    const host = new ServiceHostNetwork({
      ops: { runInNode: async () => '', syncRoutes: async () => undefined, syncIpv6Routes: async () => undefined },
      listener: new NetnsListener(undefined), gatewayName: 'antrea-gw0', nodePortAddresses: [], routeProto: 78, ipv6: true,
    });
    const port = 20000 + Math.floor(Math.random() * 20000);
    try {
      await host.sync([], [{ service: 'default/web', port, localEndpoints: 1 }]);
      for (const addr of ['::1', '127.0.0.1']) {
        const r = await get(port, addr);
        expect([addr, r.status, JSON.parse(r.body)]).toEqual([addr, 200, { service: { namespace: 'default', name: 'web' }, localEndpoints: 1, serviceProxyHealthy: true }]);
      }
      await host.sync([], [{ service: 'default/web', port, localEndpoints: 0 }]);
      expect((await get(port, '::1')).status).toBe(503);
    } finally {
      await host.stop();
    }
  });
});

describe('stale UDP endpoints', () => {
  const udp = { groupId: 7, protocol: 'UDP' as const, clusterIP: '10.96.0.53', port: 53, nodePort: 30053, externalAddresses: ['192.168.77.9'], endpoints: [{ ip: '10.10.1.5', port: 5353 }, { ip: '10.10.2.5', port: 5353 }] };
  it('are the endpoints a UDP port lost, with every address the port is reached at; TCP ports and kept endpoints are not', () => {
    expect(staleUdpEndpoints([udp], [{ ...udp, endpoints: [udp.endpoints[1]!] }])).toEqual([
      { endpoint: { ip: '10.10.1.5', port: 5353 }, frontends: [{ ip: '10.96.0.53', port: 53 }, { ip: '192.168.77.9', port: 53 }, { ip: '169.254.0.252', port: 30053 }] },
    ]);
    expect(staleUdpEndpoints([{ ...udp, protocol: 'TCP' }], [{ ...udp, protocol: 'TCP', endpoints: [] }])).toEqual([]);
    expect(staleUdpEndpoints([udp], [udp])).toEqual([]);
    // The port itself gone: all its endpoints.
    expect(staleUdpEndpoints([udp], []).map((s) => s.endpoint.ip)).toEqual(['10.10.1.5', '10.10.2.5']);
  });
});

describe('topology hints', () => {
  const hinted = (eps: { ip: string; zones?: string[] }[]): KubeObject => ({
    metadata: { name: 'web-x', namespace: 'default', labels: { 'kubernetes.io/service-name': 'web' } },
    addressType: 'IPv4', ports: [{ name: '', port: 8080, protocol: 'TCP' }],
    endpoints: eps.map((e) => ({ addresses: [e.ip], conditions: { ready: true }, ...(e.zones ? { hints: { forZones: e.zones.map((name) => ({ name })) } } : {}) })),
  });
  const web = (annotations: Record<string, string>): KubeObject => ({ metadata: { name: 'web', namespace: 'default', annotations }, spec: { clusterIP: '10.96.0.10', ports: [{ port: 80 }] } });
  const ips = (svc: KubeObject, slice: KubeObject, nodeZone?: string) =>
    servicesToSpecs({ services: [svc], slices: [slice], nodeName: 'n1', groupIds: new ServiceGroupIds(), ...(nodeZone ? { nodeZone } : {}) }).specs[0]!.endpoints.map((e) => e.ip);
  const slice = hinted([{ ip: '10.0.0.1', zones: ['a'] }, { ip: '10.0.0.2', zones: ['b'] }, { ip: '10.0.0.3', zones: ['a', 'b'] }]);

  it('with topology-mode Auto and a zoned node: only the endpoints hinted for its zone', () => {
    expect(ips(web({ 'service.kubernetes.io/topology-mode': 'Auto' }), slice, 'a')).toEqual(['10.0.0.1', '10.0.0.3']);
    expect(ips(web({ 'service.kubernetes.io/topology-aware-hints': 'auto' }), slice, 'b')).toEqual(['10.0.0.2', '10.0.0.3']);
  });

  it('falls back to every endpoint: no annotation, Disabled, a node without zone, an endpoint without hints, or no endpoint for the zone', () => {
    const all = ['10.0.0.1', '10.0.0.2', '10.0.0.3'];
    expect(ips(web({}), slice, 'a')).toEqual(all);
    expect(ips(web({ 'service.kubernetes.io/topology-mode': 'Disabled' }), slice, 'a')).toEqual(all);
    expect(ips(web({ 'service.kubernetes.io/topology-mode': 'Auto' }), slice)).toEqual(all);
    expect(ips(web({ 'service.kubernetes.io/topology-mode': 'Auto' }), hinted([{ ip: '10.0.0.1', zones: ['a'] }, { ip: '10.0.0.2' }]), 'a')).toEqual(['10.0.0.1', '10.0.0.2']);
    expect(ips(web({ 'service.kubernetes.io/topology-mode': 'Auto' }), slice, 'c')).toEqual(all);
  });
});

describe('host route protocols', () => {
  it('each owner of host routes has its own protocol number (each sync deletes the routes of its number it does not want)', async () => {
    const { ROUTE_PROTO, SERVICE_ROUTE_PROTO } = await import('../src/netops');
    const { MC_ROUTE_PROTO } = await import('../src/features/multicluster/host-routes');
    expect(new Set([ROUTE_PROTO, SERVICE_ROUTE_PROTO, MC_ROUTE_PROTO]).size).toBe(3);
  });
});
