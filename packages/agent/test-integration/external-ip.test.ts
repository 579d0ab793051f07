// ServiceExternalIP on real network namespaces: two "nodes" (a netns each, an uplink into a peer's
// Linux bridge, the ingress IP routed out by another device as the services part routes it) run the
// external-ip part against the embedded API server. The owner's proxy neighbour makes its kernel
// answer ARP for the IP on the uplink (arping from the peer shows the owner's MAC); on a graceful stop
// the IP moves at once, on a node failure when the owner's Lease runs out, and the peer then sees the
// other node's MAC. IPv6 entries on the same kernel: the announcer's proxy NDP entry and sysctls,
// released by the keeper when its pipe closes and by `--uninstall` from the taken record.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { loadCrds } from '@switchyard/apis';
import { KubeConfigClient } from '@switchyard/kube';
import { startKubeApi, type KubeApiServer } from '@switchyard/kube-api';
import { silentLogger } from '@switchyard/runtime';
import { run, Testbed, waitFor, type Netns } from '@switchyard/testbed';
import { agentContext, type AgentContext } from '../src/context';
import { ProxyArpAnnouncer, takenFile, writeTaken } from '../src/features/external-ip/announcer';
import { ProxyArpKeeper } from '../src/features/external-ip/keeper';
import { ServiceExternalIPPart } from '../src/features/external-ip/part';
import { uninstall } from '../src/features/external-ip/uninstall';
import { NodeNetwork } from '../src/netops';

jest.setTimeout(120_000);

const SUBNET = '10.201.0';
const IP = `${SUBNET}.100`;
const UPLINK = 'up0';

interface TestNode {
  name: string;
  netns: Netns;
  mac: string;
  dir: string;
  ctx?: AgentContext;
  part?: ServiceExternalIPPart | undefined;
}

let tb: Testbed;
let api: KubeApiServer;
let kube: KubeConfigClient;
let peer: Netns;
const nodes: TestNode[] = [];

/** The ExternalIPPool CRD, for an API whose embedded CRDs do not serve it yet (a minimal schema: this test reads only the nodeSelector). */
const POOL_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'externalippools.crd.antrea.io' },
  spec: {
    group: 'crd.antrea.io', scope: 'Cluster', names: { plural: 'externalippools', singular: 'externalippool', kind: 'ExternalIPPool', listKind: 'ExternalIPPoolList' },
    versions: [{ name: 'v1beta1', served: true, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
};

async function makeNode(name: string, index: number): Promise<TestNode> {
  const netns = await tb.createNetns('x');
  const [inNode, inPeer] = [tb.name('u'), tb.name('u')];
  tb.trackLink(inNode);
  tb.trackLink(inPeer);
  await run(['ip', 'link', 'add', inNode, 'type', 'veth', 'peer', 'name', inPeer]);
  await run(['ip', 'link', 'set', inPeer, 'netns', peer.name]);
  await peer.exec(['ip', 'link', 'set', inPeer, 'master', 'br0', 'up']);
  await run(['ip', 'link', 'set', inNode, 'netns', netns.name, 'name', UPLINK]);
  for (const argv of [
    ['ip', 'addr', 'add', `${SUBNET}.${index}/24`, 'dev', UPLINK],
    ['ip', 'link', 'set', UPLINK, 'up'],
    // The gateway stand-in: the ingress IP leaves by it, as the services part's route does (`<ip>/32 via 169.254.0.253 dev <gateway> onlink`).
    ['ip', 'link', 'add', 'gw0', 'type', 'veth', 'peer', 'name', 'gw0p'],
    ['ip', 'link', 'set', 'gw0', 'up'],
    ['ip', 'link', 'set', 'gw0p', 'up'],
    ['ip', 'route', 'add', `${IP}/32`, 'via', '169.254.0.253', 'dev', 'gw0', 'onlink'],
    ['sysctl', '-qw', 'net.ipv4.ip_forward=1'],
  ])
    await netns.exec(argv);
  const mac = JSON.parse((await netns.exec(['ip', '-j', 'link', 'show', UPLINK])).stdout)[0].address as string;
  await kube.request('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'network-role': 'ingress-node' } }, status: { conditions: [{ type: 'Ready', status: 'True' }] } });
  return { name, netns, mac, dir: mkdtempSync(join(tmpdir(), `sy-eip-${name}-`)) };
}

/** Starts the node's external-ip part, as the agent does (start, then sync). */
async function startPart(n: TestNode): Promise<ServiceExternalIPPart> {
  n.ctx = agentContext({
    nodeName: n.name, podCIDR: '10.10.9.0/24', nodeIP: `${SUBNET}.${nodes.indexOf(n) + 1}`, ovsdbRemote: 'unix:/nonexistent', dataDir: n.dir,
    nodeNetns: n.netns.name, kube, serviceExternalIP: true, memberLeaseRenewSeconds: 1, memberLeaseDurationSeconds: 3,
  });
  n.part = new ServiceExternalIPPart(n.ctx, kube, { transport: { dev: UPLINK, prefix: 24 } });
  await n.part.start();
  await n.part.sync();
  return n.part;
}

async function stopPart(n: TestNode): Promise<void> {
  await n.part?.stop();
  n.ctx?.net.close();
  n.part = undefined;
}

/** The MAC that answers ARP for `ip` on the peer's bridge, or undefined when nobody does within a second. */
async function arpAnswer(ip: string): Promise<string | undefined> {
  const r = await peer.exec(['arping', '-C', '1', '-c', '1', '-w', '1', '-i', 'br0', ip], { allowFailure: true, timeoutMs: 5000 });
  return /bytes from ([0-9a-f:]{17})/.exec(r.stdout)?.[1];
}

const proxies = async (n: TestNode): Promise<string> => (await n.netns.exec(['ip', 'neigh', 'show', 'proxy'])).stdout.trim();
const owners = (): string[] => nodes.filter((n) => n.part?.owned.includes(IP)).map((n) => n.name);

beforeAll(async () => {
  tb = await Testbed.create();
  const crds = loadCrds() as unknown[];
  if (!crds.some((c) => (c as { metadata: { name: string } }).metadata.name === POOL_CRD.metadata.name)) crds.push(POOL_CRD);
  api = await startKubeApi({ crds: crds as never });
  const kc = new KubeConfig();
  kc.loadFromFile(api.kubeconfigPath);
  kube = new KubeConfigClient(kc);
  peer = await tb.createNetns('p');
  for (const argv of [['ip', 'link', 'add', 'br0', 'type', 'bridge'], ['ip', 'link', 'set', 'br0', 'up'], ['ip', 'addr', 'add', `${SUBNET}.254/24`, 'dev', 'br0']]) await peer.exec(argv);
  nodes.push(await makeNode('eip-a', 1), await makeNode('eip-b', 2));
  await kube.request('POST', '/apis/crd.antrea.io/v1beta1/externalippools', {
    apiVersion: 'crd.antrea.io/v1beta1', kind: 'ExternalIPPool', metadata: { name: 'lb-pool' },
    spec: { ipRanges: [{ start: `${SUBNET}.100`, end: `${SUBNET}.110` }], nodeSelector: { matchLabels: { 'network-role': 'ingress-node' } } },
  });
  const svc = await kube.request<{ metadata: Record<string, unknown> }>('POST', '/api/v1/namespaces/default/services', {
    apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default', annotations: { 'service.antrea.io/external-ip-pool': 'lb-pool' } },
    spec: { type: 'LoadBalancer', ports: [{ port: 80, protocol: 'TCP' }], selector: { app: 'web' } },
  });
  // What the controller's allocation writes.
  await kube.request('PUT', '/api/v1/namespaces/default/services/web/status', { ...svc, status: { loadBalancer: { ingress: [{ ip: IP }] } } });
});

afterAll(async () => {
  for (const n of nodes) await stopPart(n).catch(() => undefined);
  await api?.stop();
  await tb?.cleanup();
  for (const n of nodes) rmSync(n.dir, { recursive: true, force: true });
});

describe('the owner of a LoadBalancer IP answers ARP for it, and the IP moves', () => {
  let first: TestNode;
  let second: TestNode;

  it('exactly one node owns the IP; the peer sees its MAC; the other node answers nothing; an Event names the owner', async () => {
    for (const n of nodes) await startPart(n);
    await waitFor('one owner of the IP', () => owners().length === 1 && nodes.every((n) => n.part!.serviceExternalIPs()[0]?.assignedNode === owners()[0]), { timeoutMs: 15_000, intervalMs: 50 });
    first = nodes.find((n) => n.name === owners()[0])!;
    second = nodes.find((n) => n !== first)!;
    expect(await proxies(first)).toBe(`${IP} dev ${UPLINK} proxy`);
    expect(await proxies(second)).toBe('');
    expect(await arpAnswer(IP)).toBe(first.mac);
    expect(first.part!.health()).toMatchObject({ ok: true, detail: expect.stringContaining(`owns ${IP} (default/web) on ${UPLINK}`) });
    await waitFor('the Event', async () => {
      const evs = await kube.request<{ items: { reason: string; message: string; involvedObject: { name: string } }[] }>('GET', '/api/v1/namespaces/default/events');
      return evs.items.some((e) => e.reason === 'ExternalIPAssigned' && e.involvedObject.name === 'web' && e.message.includes(`Node ${first.name}`));
    }, { timeoutMs: 30_000, intervalMs: 50 });
  });

  it('a graceful stop takes the IP off its owner and deletes its Lease: the other node answers at once', async () => {
    const leaseOf = (n: { name: string }): Promise<string> =>
      kube.request('GET', `/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/switchyard-agent-${n.name}`).then(() => 'present', (e: unknown) => String((e as { status?: number }).status ?? e));
    expect(await leaseOf(first)).toBe('present');
    const t0 = Date.now();
    await stopPart(first);
    expect(await proxies(first)).toBe('');
    await waitFor('the other node to own the IP', () => owners().join() === second.name, { timeoutMs: 30_000, intervalMs: 20 });
    const moved = Date.now() - t0;
    // Not by expiry: the stopped agent deleted its Lease, so the other node dropped it from the
    // candidates at once (the elapsed time is printed, not asserted: a loaded machine stretches it).
    expect(await leaseOf(first)).toBe('404');
    process.stdout.write(`external IP handover on a graceful stop: ${moved} ms (Lease duration 3 s)\n`);
    expect(await arpAnswer(IP)).toBe(second.mac);
  });

  it('a failed owner (uplink down, agent gone without a word) loses the IP when its Lease runs out', async () => {
    // The first node comes back and, by the owner choice, takes its IP back.
    await startPart(first);
    await waitFor('the first node to own the IP again', async () => owners().join() === first.name && (await proxies(second)) === '', { timeoutMs: 10_000, intervalMs: 50 });
    expect(await arpAnswer(IP)).toBe(first.mac);
    // A node failure: its agent stops renewing and its uplink goes down, nothing is cleaned up.
    const t0 = Date.now();
    await first.part!.lease!.stop({ release: false });
    await first.part!.controller!.stop({ release: false });
    await first.netns.exec(['ip', 'link', 'set', UPLINK, 'down']);
    let answer: string | undefined;
    await waitFor('the peer to see the other node answer', async () => (answer = await arpAnswer(IP)) === second.mac, { timeoutMs: 15_000, intervalMs: 100 });
    const failover = Date.now() - t0;
    process.stdout.write(`external IP failover after a node failure: ${failover} ms (Lease duration 3 s, renew 1 s)\n`);
    expect(answer).toBe(second.mac);
    expect(failover).toBeGreaterThan(1000);
    // The proxy entry answers before the take resolves (it still sends the gratuitous ARP, a
    // process of its own: CI-B saw the answer with `owned` still empty), so the part's record is waited for.
    await waitFor('the other node to record the IP as its own', () => second.part!.owned.join() === IP, { timeoutMs: 10_000, intervalMs: 20 });
    expect(second.part!.owned).toEqual([IP]);
    // afterAll stops what is left of the first node's part (its informers and address monitor):
    // left running in this jest process, they slowed every later file of the suite.
  });
});

describe('IPv6 external IPs on a real kernel: proxy NDP entries, the keeper and --uninstall', () => {
  const V4 = '10.202.0.5';
  const V6 = 'fd00:202::c8';
  let ns: Netns;
  let net: NodeNetwork;
  let dir: string;
  const entries = async (): Promise<string[]> => (await ns.exec(['ip', 'neigh', 'show', 'proxy'])).stdout.split('\n').map((l) => l.trim()).filter((l) => l !== '').sort();
  const sysctl = async (path: string): Promise<string> => (await ns.exec(['cat', `/proc/sys/net/${path}`])).stdout.trim();

  beforeAll(async () => {
    ns = await tb.createNetns('v');
    for (const argv of [['ip', 'link', 'add', 'up6', 'type', 'veth', 'peer', 'name', 'up6p'], ['ip', 'link', 'set', 'up6', 'up'], ['ip', 'link', 'set', 'up6p', 'up']]) await ns.exec(argv);
    net = new NodeNetwork(ns.name);
    dir = mkdtempSync(join(tmpdir(), 'sy-eip-v6-'));
  });
  afterAll(() => {
    net?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the announcer puts a proxy NDP entry beside a proxy ARP one, with proxy_ndp on (all and the device) and proxy_delay 0; the keeper takes both off when its pipe closes', async () => {
    const keeper = new ProxyArpKeeper({ dev: 'up6', nodeNetns: ns.name, logger: silentLogger });
    const announcer = new ProxyArpAnnouncer({ net, dev: 'up6', logger: silentLogger, keeper });
    await announcer.take(V4);
    await announcer.take(V6);
    expect(await entries()).toEqual([`${V4} dev up6 proxy`, `${V6} dev up6 proxy`]);
    expect([await sysctl('ipv6/conf/all/proxy_ndp'), await sysctl('ipv6/conf/up6/proxy_ndp'), await sysctl('ipv6/neigh/up6/proxy_delay')]).toEqual(['1', '1', '0']);
    expect(keeper.holding).toEqual([V4, V6]);
    // What an agent's death does: its end of the pipe closes.
    await keeper.close();
    expect(await entries()).toEqual([]);
  });

  it('--uninstall removes the IPv6 and IPv4 entries the taken record names, and the record', async () => {
    const announcer = new ProxyArpAnnouncer({ net, dev: 'up6', logger: silentLogger });
    await announcer.take(V6);
    await announcer.take(V4);
    writeTaken(dir, { dev: 'up6', ips: [V4, V6] });
    await uninstall({ dataDir: dir, nodeNetns: ns.name, hostGateway: 'gw0', logger: silentLogger });
    expect(await entries()).toEqual([]);
    expect(existsSync(takenFile(dir))).toBe(false);
  });
});
