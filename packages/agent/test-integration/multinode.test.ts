// Two agents on two real OVS "nodes" joined by an underlay, with the embedded Kubernetes API:
// the agents learn each other from the Node objects (tunnel flows, host routes), pods on
// different nodes talk in encap and noEncap modes, pod -> external traffic is masqueraded to the
// node IP, a Service with its endpoint on the other node is reached through the tunnel, and each
// agent keeps its AntreaAgentInfo with its API port.
import type { KubeConfigClient } from '@switchyard/kube';
import type { KubeApiServer } from '@switchyard/kube-api';
import { run, waitFor, type Netns, type Testbed } from '@switchyard/testbed';
import type { AgentOptions } from '../src/index';
import { addPod, agentApiGet, cni, netconf, podArgs, sandbox, type Node, type Sandbox } from './helpers';
import { TwoNodes, type UnderlayNode } from './two-nodes';

jest.setTimeout(240_000);

let env: TwoNodes;
let tb: Testbed;
let api: KubeApiServer;
let kube: KubeConfigClient;
let fabric: Netns;
const startAgent = (n: LabNode, overrides: Partial<AgentOptions> = {}): Promise<Node> => env.startAgent(n, overrides);

type LabNode = UnderlayNode;

/** A pong server on TCP 7000 in the pod. */
const serve = (sb: Sandbox): void => void tb.spawn(['socat', 'TCP-LISTEN:7000,reuseaddr,fork', 'SYSTEM:echo pong'], sb.netns.name);
/** One TCP exchange; true when the server answered. */
async function tcp(from: Sandbox, ip: string): Promise<boolean> {
  const r = await from.netns.exec(['socat', '-T2', '-', `TCP:${ip}:7000,connect-timeout=2`], { allowFailure: true, input: 'ping\n', timeoutMs: 5000 });
  return r.stdout.trim() === 'pong';
}

let n1: LabNode;
let n2: LabNode;
let a1: Node | undefined;
let a2: Node | undefined;

beforeAll(async () => {
  // A user the API server knows but RBAC gives nothing; node proxies dial loopback (the agents' API).
  env = await TwoNodes.create({ tokens: { 'viewer-token': { user: 'viewer' } }, nodeProxyHost: () => '127.0.0.1' });
  ({ tb, api, kube, fabric } = env);
  [n1, n2] = await Promise.all([env.makeNode('mn1', '10.71.1.0/24', '192.168.71.1'), env.makeNode('mn2', '10.71.2.0/24', '192.168.71.2')]);
});

afterAll(async () => {
  await env?.stop();
});

const flows = async (n: LabNode): Promise<string> => n.ovs.ofctl('-O', 'OpenFlow15', 'dump-flows', n.ovs.mgmtSocket('br-int'));
const routes = async (n: LabNode): Promise<string> => (await n.ovs.netns.exec(['ip', '-4', 'route', 'show', 'proto', '77'])).stdout;

describe('encap (geneve) between two nodes', () => {
  let p1: Sandbox;
  let p2: Sandbox;
  let ip1 = '';
  let ip2 = '';

  it('each agent learns the other Node: tunnel flow to its pod CIDR, host route through the gateway', async () => {
    [a1, a2] = await Promise.all([startAgent(n1), startAgent(n2)]);
    await waitFor('remote nodes', () => a1!.agent.part('routes').routes?.remote.length === 1 && a2!.agent.part('routes').routes?.remote.length === 1, { timeoutMs: 20_000, intervalMs: 100 });
    await a1.agent.part('routes').routes!.idle();
    expect(a1.agent.part('routes').routes!.remote).toEqual([{ name: 'mn2', podCIDR: '10.71.2.0/24', nodeIP: '192.168.71.2', gatewayIP: '10.71.2.1' }]);
    const f = await flows(n1);
    expect(f).toMatch(/nw_dst=10\.71\.2\.0\/24 actions=.*set_field:192\.168\.71\.2->tun_dst/);
    expect(await routes(n1)).toContain('10.71.2.0/24 via 10.71.2.1 dev sy-gw0');
  });

  it('pods on different nodes talk over TCP through the tunnel', async () => {
    p1 = await sandbox(tb, 'mn-a');
    p2 = await sandbox(tb, 'mn-b');
    // The Pod objects (kubelet would have them): an agent detaches pods the API does not know.
    for (const [name, nodeName] of [['mn-a', 'mn1'], ['mn-b', 'mn2']] as const) {
      await kube.request('POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { nodeName, containers: [{ name: 'c', image: 'x' }] } });
    }
    ip1 = (await addPod(a1!, p1)).ip;
    ip2 = (await addPod(a2!, p2)).ip;
    serve(p1);
    serve(p2);
    // No tunnel warm-up: both nodes' routes to the other's pod CIDR through the tunnel are in place
    // when the ADDs return (state, not a deadline); the connections then wait only for the servers.
    await a2!.agent.part('routes').routes!.idle();
    for (const n of [n1, n2]) expect((await flows(n)).split('\n').filter((l) => /set_field:192\.168\.71\.\d+->tun_dst/.test(l))).not.toHaveLength(0);
    await waitFor(`${ip1} -> ${ip2}`, () => tcp(p1, ip2), { timeoutMs: 30_000, intervalMs: 100 });
    await waitFor(`${ip2} -> ${ip1}`, () => tcp(p2, ip1), { timeoutMs: 30_000, intervalMs: 100 });
    // The packets took the tunnel flow (the Interface statistics column lags by seconds; flow counters do not).
    const tunnelFlow = (await flows(n1)).split('\n').find((l) => l.includes('tun_dst'));
    expect(Number(/n_packets=(\d+)/.exec(tunnelFlow ?? '')?.[1] ?? 0)).toBeGreaterThan(0);
  });

  it('TCP through conntrack works on one node and across nodes with the host ends\' checksum offload left as created', async () => {
    // The agent turns transmit checksum offload off on the pod end only (the userspace datapath's
    // conntrack checks what the pod sends); the host end is OVS's, which sends there with checksums
    // complete. A third pod on mn1 reaches mn-a beside it and mn-b on mn2.
    const p3 = await sandbox(tb, 'mn-c');
    await kube.request('POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'mn-c', namespace: 'default' }, spec: { nodeName: 'mn1', containers: [{ name: 'c', image: 'x' }] } });
    await addPod(a1!, p3);
    const txChecksum = async (netns: string, dev: string): Promise<string> => /tx-checksumming: (\w+)/.exec((await run(['ethtool', '-k', dev], { netns })).stdout)?.[1] ?? '';
    for (const [node, a] of [[n1, a1!], [n2, a2!]] as const) {
      for (const i of a.agent.part('node').interfaces.list()) {
        expect([i.podName, await txChecksum(node.ovs.netns.name, i.hostIfName)]).toEqual([i.podName, 'on']);
      }
    }
    expect(await txChecksum(p3.netns.name, 'eth0')).toBe('off');
    await waitFor(`mn-c -> ${ip1} (same node)`, () => tcp(p3, ip1), { timeoutMs: 10_000, intervalMs: 100 });
    await waitFor(`mn-c -> ${ip2} (other node)`, () => tcp(p3, ip2), { timeoutMs: 10_000, intervalMs: 100 });
    // Both went through ct(): mn1's userspace conntrack holds a TCP entry for each, past SYN_SENT
    // (a segment with a bad checksum is invalid and never moves an entry on).
    const ct = (await n1.ovs.appctl('dpctl/dump-conntrack')).split('\n').filter((l) => l.startsWith('tcp,') && l.includes('dport=7000'));
    for (const ip of [ip1, ip2]) {
      const entry = ct.find((l) => l.includes(`dst=${ip},`));
      expect(entry).toBeDefined();
      expect(entry).toMatch(/(ESTABLISHED|FIN_WAIT|CLOSE_WAIT|LAST_ACK|TIME_WAIT|CLOSING)/);
    }
    const del = await cni('DEL', { containerId: p3.containerId, netns: p3.netns.path, ifname: 'eth0', args: podArgs('default', 'mn-c') }, netconf(a1!.socket));
    expect(del.code).toBe(0);
  });

  it('a ClusterIP Service whose only endpoint is on the other node is reached through the tunnel', async () => {
    // No selector: the EndpointSlice is written by hand, as any EndpointSlice producer would.
    const svc = await kube.request<{ spec: { clusterIP: string } }>('POST', '/api/v1/namespaces/default/services', {
      apiVersion: 'v1', kind: 'Service', metadata: { name: 'mn-svc', namespace: 'default' }, spec: { ports: [{ name: 'p', port: 80, protocol: 'TCP' }] },
    });
    await kube.request('POST', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices', {
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', addressType: 'IPv4',
      metadata: { name: 'mn-svc-1', namespace: 'default', labels: { 'kubernetes.io/service-name': 'mn-svc' } },
      ports: [{ name: 'p', port: 7000, protocol: 'TCP' }],
      endpoints: [{ addresses: [ip2], conditions: { ready: true }, nodeName: 'mn2' }],
    });
    const ip = svc.spec.clusterIP;
    await waitFor('the Service on mn1', () => a1!.agent.part('services').services.specs.some((s) => s.clusterIP === ip && s.endpoints.length === 1) ?? false, { timeoutMs: 20_000, intervalMs: 100 });
    expect(a1!.agent.part('services').services.specs.find((s) => s.clusterIP === ip)?.endpoints).toEqual([{ ip: ip2, port: 7000 }]);
    expect(a2!.agent.part('services').services.specs.find((s) => s.clusterIP === ip)?.endpoints).toEqual([{ ip: ip2, port: 7000, local: true }]);
    const viaService = async (): Promise<boolean> => {
      const r = await p1.netns.exec(['socat', '-T2', '-', `TCP:${ip}:80,connect-timeout=2`], { allowFailure: true, input: 'ping\n', timeoutMs: 5000 });
      return r.stdout.trim() === 'pong';
    };
    await waitFor(`${ip1} -> ${ip}:80 -> ${ip2}:7000`, viaService, { timeoutMs: 30_000, intervalMs: 250 });
    // Steady state: three more connections get through. Each is awaited on its answer, not raced
    // against the clock: on a loaded machine the server's fork and exec of `echo` can outlast
    // socat's inactivity timeout, which is the client giving up, not the datapath failing.
    for (let i = 0; i < 3; i++) await waitFor(`connection ${i + 2} through ${ip}:80`, viaService, { timeoutMs: 30_000, intervalMs: 250 });
    await kube.request('DELETE', '/api/v1/namespaces/default/services/mn-svc');
    await kube.request('DELETE', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/mn-svc-1');
    await waitFor('the Service gone on mn1', () => !(a1!.agent.part('services').services.specs.some((s) => s.clusterIP === ip) ?? true), { timeoutMs: 20_000, intervalMs: 100 });
  });

  it('pod -> a host on the fabric leaves with the node IP as source (MASQUERADE); pod -> pod keeps the pod IP', async () => {
    // A "host" on the fabric: an address on the fabric bridge, and a server that echoes the peer address.
    await fabric.exec(['ip', 'addr', 'add', '192.168.71.100/24', 'dev', 'br0']);
    tb.spawn(['socat', 'TCP-LISTEN:7100,reuseaddr,fork', 'SYSTEM:echo $SOCAT_PEERADDR'], fabric.name);
    let seen = '';
    await waitFor('pod -> fabric host', async () => {
      const r = await p1.netns.exec(['socat', '-T2', '-', 'TCP:192.168.71.100:7100,connect-timeout=2'], { allowFailure: true, input: '\n', timeoutMs: 5000 });
      seen = r.stdout.trim();
      return seen !== '';
    }, { timeoutMs: 20_000, intervalMs: 250 });
    expect(seen).toBe('192.168.71.1');
    const rules = (await n1.ovs.netns.exec(['iptables', '-w', '-t', 'nat', '-S', 'SWITCHYARD-POSTROUTING'])).stdout;
    expect(rules).toContain('-d 10.71.2.0/24 -j RETURN');
    expect(rules).toMatch(/-s 10\.71\.1\.0\/24 ! -o sy-gw0 .*-j MASQUERADE/);
    // Pod -> pod across nodes is not masqueraded: the server sees the pod's own address.
    tb.spawn(['socat', 'TCP-LISTEN:7200,reuseaddr,fork', 'SYSTEM:echo $SOCAT_PEERADDR'], p2.netns.name);
    let peer = '';
    await waitFor('pod -> pod peer address', async () => {
      const r = await p1.netns.exec(['socat', '-T2', '-', `TCP:${ip2}:7200,connect-timeout=2`], { allowFailure: true, input: '\n', timeoutMs: 5000 });
      peer = r.stdout.trim();
      return peer !== '';
    }, { timeoutMs: 20_000, intervalMs: 250 });
    expect(peer).toBe(ip1);
  });

  it('AntreaAgentInfo per node, with the API port; the API answers on it over HTTPS, to authorized callers only', async () => {
    const info = await kube.request<{ apiPort?: number; localPodNum?: number; nodeSubnets?: string[]; ovsInfo?: { bridgeName?: string; flowTable?: Record<string, number> }; agentConditions?: { type: string; status: string }[] }>(
      'GET', '/apis/crd.antrea.io/v1beta1/antreaagentinfos/mn1');
    expect(info.apiPort).toBe(a1!.agent.apiPort);
    expect(info.nodeSubnets).toEqual(['10.71.1.0/24']);
    expect(info.ovsInfo?.bridgeName).toBe('br-int');
    expect(info.agentConditions?.find((c) => c.type === 'AgentHealthy')?.status).toBe('True');
    const url = `https://127.0.0.1:${a1!.agent.apiPort}/podinterfaces`;
    expect((await agentApiGet(url)).status).toBe(401);
    const forbidden = await agentApiGet(url, 'viewer-token');
    expect(forbidden.status).toBe(403);
    expect((forbidden.body as { message: string }).message).toContain('User "viewer" cannot get path "/podinterfaces"');
    const res = await agentApiGet(url, api.adminToken);
    expect(res.status).toBe(200);
    expect((res.body as { podName: string }[]).map((p) => p.podName)).toEqual(['mn-a']);
    // Health checks need no credentials (kubelet probes carry none).
    expect((await agentApiGet(`https://127.0.0.1:${a1!.agent.apiPort}/healthz`)).status).toBe(200);
    // Through the API server's node proxy: it presents its front-proxy certificate (verified
    // against the CA in extension-apiserver-authentication) with the caller in X-Remote-User.
    const proxied = await kube.request<{ podName: string }[]>('GET', `/api/v1/nodes/https:mn1:${a1!.agent.apiPort}/proxy/podinterfaces`);
    expect(proxied.map((p) => p.podName)).toEqual(['mn-a']);
  });

  it('a deleted Node loses its tunnel flow and host route', async () => {
    await kube.request('DELETE', '/api/v1/nodes/mn2');
    await waitFor('mn2 gone on mn1', () => a1!.agent.part('routes').routes?.remote.length === 0, { timeoutMs: 20_000, intervalMs: 100 });
    await a1!.agent.part('routes').routes!.idle();
    expect(await flows(n1)).not.toContain('10.71.2.0/24');
    expect(await routes(n1)).toBe('');
    expect(await tcp(p1, ip2)).toBe(false);
    await kube.request('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'mn2' }, spec: { podCIDR: n2.podCIDR, podCIDRs: [n2.podCIDR] }, status: { addresses: [{ type: 'InternalIP', address: n2.nodeIP }] } });
    await waitFor('mn2 back', () => tcp(p1, ip2), { timeoutMs: 20_000, intervalMs: 250 });
  });

  it('noEncap: after a restart in noEncap mode the tunnel port is gone and pods still talk, routed by the hosts', async () => {
    await a1!.agent.stop();
    await a2!.agent.stop();
    a1 = await startAgent(n1, { trafficMode: 'noEncap', dataDir: a1!.dir, cniSocket: a1!.socket });
    // The remote node is in the first round already (listed before it), not only after the watch.
    expect(a1.agent.part('node').flows.get('remoteNodes').map((r) => r.name)).toEqual(['mn2']);
    expect(await flows(n1)).toContain('nw_dst=10.71.2.0/24');
    a2 = await startAgent(n2, { trafficMode: 'noEncap', dataDir: a2!.dir, cniSocket: a2!.socket });
    await waitFor('remote nodes', () => a1!.agent.part('routes').routes?.remote.length === 1 && a2!.agent.part('routes').routes?.remote.length === 1, { timeoutMs: 20_000, intervalMs: 100 });
    await a1.agent.part('routes').routes!.idle();
    await a2.agent.part('routes').routes!.idle();
    expect((await n1.ovs.vsctl('list-ports', 'br-int')).split('\n')).not.toContain('sy-tun0');
    expect(await routes(n1)).toContain('10.71.2.0/24 via 192.168.71.2 dev br-phy');
    expect(await flows(n1)).not.toContain('tun_dst');
    await waitFor(`${ip1} -> ${ip2} (noEncap)`, () => tcp(p1, ip2), { timeoutMs: 20_000, intervalMs: 250 });
    await waitFor(`${ip2} -> ${ip1} (noEncap)`, () => tcp(p2, ip1), { timeoutMs: 20_000, intervalMs: 250 });
  });
});
