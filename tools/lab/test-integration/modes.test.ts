// Traffic modes on the real lab: `up --mode noEncap` (2 nodes, every peer routed through the fabric)
// and `up --mode hybrid` (3 nodes, the fabric split in two subnets: node1+node2 routed, node3
// tunnelled) each pass the first k8s-netpol scenarios with pods on different nodes; a pod reaching
// a host on the fabric is seen with its node's IP (MASQUERADE); the SCTP case's cells are judged
// by ofproto/trace on routed and tunnelled paths; and a lab without a controller
// still carries pod-to-pod traffic across nodes. The noEncap and hybrid labs are dual-stack and the
// controller-less one IPv6-only noEncap: IPv6 pod traffic is routed on the IPv6 underlay (fd00:77::/64),
// seen arriving as plain IPv6 on the peer's br-phy (a counter); in hybrid the IPv6 underlay is split
// like the IPv4 one (fd00:78::/64 for node3), so IPv6 to node3 is tunnelled (no plain IPv6 arrives).
// In noEncap a node port whose endpoint is on the other node answers the fabric host over both
// families (the reply comes back through the node the client chose).
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run, waitFor } from '@switchyard/testbed';
import type { KubeConfigClient } from '@switchyard/controller';
import { labClient, readState, type LabState } from '../src/index';
import { NETNS_ANNOTATION } from '../src/kubelet';
import { agentGet, tcpProbe, tcpReaches } from '../src/probe';
import { ScenarioRunner } from '../src/probe-run';
import { expectedAllowed, parseScenario, type ProbeResult } from '../src/scenario';

const BIN = join(__dirname, '../bin/switchyard-lab');
const YARDCTL = join(__dirname, '../../../packages/cli/dist/bin.js');
const CONFORMANCE = join(__dirname, '../conformance/k8s-netpol');
const SCENARIOS = ['01-tcp-should-support-a-default-deny-ingress-policy.yaml', '03-should-enforce-policy-to-allow-traffic-from-pods-within-server-namespace.yaml', '04-should-enforce-policy-to-allow-ingress-traffic-for-a-target.yaml'];
/** SCTP 81 (no SCTP in this kernel): every cell judged by ofproto/trace. */
const SCTP_SCENARIO = '49-sctp-should-enforce-policy-based-on-ports.yaml';
/** The fabric's echo server: answers each connection with the peer address it saw. */
const ECHO_PORT = 7777;

interface PodView { metadata: { name: string; namespace: string; annotations?: Record<string, string> }; spec?: { nodeName?: string }; status?: { podIP?: string; podIPs?: { ip: string }[] } }

/** A lab of its own for one describe block. */
function labFixture(args: string[]) {
  const labDir = mkdtempSync(join(tmpdir(), 'switchyard-lab-modes-'));
  const lab = (...a: string[]): string => execFileSync(BIN, ['--lab-dir', labDir, ...a], { encoding: 'utf8', timeout: 180_000 });
  const f = { labDir, lab, st: undefined as unknown as LabState, kube: undefined as unknown as KubeConfigClient };
  beforeAll(() => {
    lab('up', ...args);
    f.st = readState(labDir)!;
    f.kube = labClient(f.st);
  }, 240_000);
  afterAll(() => {
    if (readState(labDir)) lab('down');
  }, 120_000);
  return f;
}

/** Runs a conformance scenario with `place` choosing each pod's node; returns the cells that differ from the expectation and the cross-node cell count. */
async function runScenario(runner: ScenarioRunner, file: string, place: (ns: string, name: string) => string): Promise<{ wrong: ProbeResult[]; crossNode: number; allowedCrossNode: number; traced: number; tracedCrossNode: number; unjudged: ProbeResult[] }> {
  const sc = parseScenario(readFileSync(join(CONFORMANCE, file), 'utf8'), file);
  for (const step of sc.steps)
    for (const o of step.apply) if (o.kind === 'Pod') (o.spec as { nodeName?: string }).nodeName = place(o.metadata.namespace ?? 'default', o.metadata.name);
  const wrong: ProbeResult[] = [];
  let crossNode = 0;
  let allowedCrossNode = 0;
  let traced = 0;
  let tracedCrossNode = 0;
  const unjudged: ProbeResult[] = [];
  await runner.run(sc, (_i, r) => {
    const nodeOf = new Map(r.pods.map((ref) => [ref, place(ref.split('/')[0]!, ref.split('/')[1]!)]));
    for (const c of r.results) {
      if (c.allowed === null) {
        unjudged.push(c);
        continue;
      }
      if (c.via === 'trace') {
        traced++;
        if (nodeOf.get(c.from) !== nodeOf.get(c.to)) tracedCrossNode++;
      }
      const p = r.probes.find((x) => x.protocol === c.protocol && x.port === c.port && x.sourcePort === c.sourcePort)!;
      if (nodeOf.get(c.from) !== nodeOf.get(c.to)) {
        crossNode++;
        if (c.allowed) allowedCrossNode++;
      }
      if (c.allowed !== expectedAllowed(p.expect ?? [], c.from, c.to)) wrong.push(c);
    }
  });
  return { wrong, crossNode, allowedCrossNode, traced, tracedCrossNode, unjudged };
}

/** Creates pods and waits until each has an IP and a netns. */
async function makePods(kube: KubeConfigClient, specs: { name: string; node: string }[]): Promise<Map<string, PodView>> {
  for (const s of specs)
    await kube.request('POST', '/api/v1/namespaces/default/pods', {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: s.name, namespace: 'default', labels: { app: s.name } },
      spec: { nodeName: s.node, containers: [{ name: 'c', image: 'x', ports: [{ containerPort: 80 }] }] },
    });
  const out = new Map<string, PodView>();
  await waitFor('pods running with an IP and a netns', async () => {
    const list = await kube.request<{ items: PodView[] }>('GET', '/api/v1/namespaces/default/pods');
    for (const p of list.items) out.set(p.metadata.name, p);
    return specs.every((s) => out.get(s.name)?.status?.podIP && out.get(s.name)?.metadata.annotations?.[NETNS_ANNOTATION]);
  }, { timeoutMs: 60_000, intervalMs: 200 });
  return out;
}

/** A pod's IPv6 address (dual-stack: its podIPs' IPv6 entry; IPv6-only: its podIP). */
function ipv6Of(p: PodView): string {
  const ip = [p.status?.podIP, ...(p.status?.podIPs ?? []).map((x) => x.ip)].find((a) => a?.includes(':'));
  if (ip === undefined) throw new Error(`pod ${p.metadata.name} has no IPv6 address: ${JSON.stringify(p.status)}`);
  return ip;
}

/**
 * Pod-to-pod TCP over IPv6 from `from` to `to` (on `toNode`), and proof that it crossed the underlay
 * as plain IPv6 (routed, not in a Geneve tunnel, which arrives as IPv4/UDP): an ip6tables counter in
 * the raw table of the receiving node, for packets from `from` to `to` entering on br-phy, counts
 * them. The counting rule (no target) is removed afterwards.
 */
async function routedOverIpv6(from: PodView, to: PodView, toNode: LabState['nodes'][number]): Promise<number> {
  const [src, dst] = [ipv6Of(from), ipv6Of(to)];
  const rule = ['PREROUTING', '-i', 'br-phy', '-s', src, '-d', dst, '-m', 'comment', '--comment', 'modes-test-routed-ipv6'];
  const ip6t = (...a: string[]) => run(['ip', 'netns', 'exec', toNode.netns, 'ip6tables', '-w', '-t', 'raw', ...a]);
  await ip6t('-I', ...rule);
  try {
    const netns = from.metadata.annotations![NETNS_ANNOTATION]!;
    await waitFor(`${from.metadata.name} -> [${dst}]:80`, () => tcpProbe(netns, dst, 80), { timeoutMs: 30_000, intervalMs: 300 });
    const listing = (await ip6t('-L', 'PREROUTING', '-v', '-x', '-n')).stdout.split('\n').find((l) => l.includes('modes-test-routed-ipv6'));
    return Number(listing?.trim().split(/\s+/)[0] ?? 0);
  } finally {
    await ip6t('-D', ...rule);
  }
}

/** The node's IPv6 host route to a pod CIDR (`ip -6 route show <cidr>`), without the protocol and metrics. */
async function route6(node: LabState['nodes'][number], cidr: string): Promise<string> {
  const r = await run(['ip', 'netns', 'exec', node.netns, 'ip', '-6', 'route', 'show', cidr]);
  return r.stdout.trim().replace(/ proto \S+/, '').replace(/ metric \d+/, '').replace(/ pref \S+/, '').trim();
}

/** Starts the echo server on the fabric; the caller kills it. */
function fabricEcho(st: LabState): ChildProcess {
  return spawn('ip', ['netns', 'exec', st.fabricNetns, 'socat', `TCP-LISTEN:${ECHO_PORT},reuseaddr,fork`, 'SYSTEM:echo $SOCAT_PEERADDR'], { stdio: 'ignore' });
}

/** The source address the fabric host saw for a connection from `netns` to `ip`. */
async function seenFrom(netns: string, ip: string): Promise<string> {
  let seen = '';
  await waitFor(`an answer from ${ip}:${ECHO_PORT}`, async () => {
    const r = await run(['ip', 'netns', 'exec', netns, 'socat', '-T2', '-', `TCP:${ip}:${ECHO_PORT},connect-timeout=2`], { allowFailure: true, timeoutMs: 5000, input: '' });
    seen = r.stdout.trim();
    return r.code === 0 && seen !== '';
  }, { timeoutMs: 15_000, intervalMs: 300 });
  return seen;
}

/** `yardctl traceflow -S default/<from> -D default/<to> -f tcp,tcp_dst=80 -o json` on a lab: each node's observations (sender first), as `component/action` with the tunnel or pod. */
async function traceflowPath(st: LabState, from: string, to: string): Promise<[string, string[]][]> {
  const r = await new Promise<string>((resolve, reject) => {
    execFile(process.execPath, [YARDCTL, '--kubeconfig', st.kubeconfig, 'traceflow', '-S', `default/${from}`, '-D', `default/${to}`, '-f', 'tcp,tcp_dst=80', '-o', 'json'], { encoding: 'utf8', timeout: 60_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`yardctl traceflow ${from} -> ${to}: ${err.message} ${stdout}${stderr}`));
      else resolve(stdout);
    });
  });
  const tf = JSON.parse(r) as { status?: { phase?: string; results?: { node?: string; role?: string; observations?: { component?: string; action?: string; tunnelDstIP?: string; pod?: string }[] }[] } };
  expect(tf.status?.phase).toBe('Succeeded');
  // The sender first (nodes write their results in whatever order their packet-ins come).
  const results = [...(tf.status?.results ?? [])].sort((a, b) => Number(b.role === 'Sender') - Number(a.role === 'Sender'));
  return results.map((x) => [x.node ?? '', (x.observations ?? []).map((o) => `${o.component}/${o.action}${o.tunnelDstIP ? ` via ${o.tunnelDstIP}` : ''}${o.pod ? ` to ${o.pod}` : ''}`)]);
}

describe('switchyard-lab up --mode noEncap --nodes 2 --ip-family dual', () => {
  const f = labFixture(['--nodes', '2', '--mode', 'noEncap', '--ip-family', 'dual']);
  let runner: ScenarioRunner;
  beforeAll(() => {
    // The scenarios over IPv4 as on an IPv4 lab; IPv6 has its own case below.
    runner = new ScenarioRunner({ kube: f.kube, state: f.st, concurrency: 32, timeoutMs: 1000, ipFamilies: ['IPv4'], keep: (r) => r.kind === 'Namespace' || r.kind === 'Pod' });
  });
  afterAll(() => runner?.close());

  it.each(SCENARIOS)('%s: every cell as expected, pods spread over node1 and node2 (routed, no tunnel)', async (file) => {
    const r = await runScenario(runner, file, (_ns, name) => (name === 'b' ? 'node2' : 'node1'));
    expect(r.crossNode).toBeGreaterThan(0);
    expect(r.allowedCrossNode).toBeGreaterThan(0);
    expect(r.wrong).toEqual([]);
  }, 120_000);

  it(`${SCTP_SCENARIO}: every SCTP cell judged by ofproto/trace and as expected, cross-node cells through both hosts`, async () => {
    const r = await runScenario(runner, SCTP_SCENARIO, (_ns, name) => (name === 'b' ? 'node2' : 'node1'));
    expect({ unjudged: r.unjudged, wrong: r.wrong }).toEqual({ unjudged: [], wrong: [] });
    expect(r.traced).toBe(72);
    expect(r.tracedCrossNode).toBeGreaterThan(0);
  }, 120_000);

  it('a pod reaching a host on the fabric is seen with its node IP (MASQUERADE)', async () => {
    const pods = await makePods(f.kube, [{ name: 'm1', node: 'node1' }, { name: 'm2', node: 'node2' }]);
    const echo = fabricEcho(f.st);
    try {
      expect(await seenFrom(pods.get('m1')!.metadata.annotations![NETNS_ANNOTATION]!, '192.168.77.254')).toBe(f.st.nodes[0]!.nodeIP);
      expect(await seenFrom(pods.get('m2')!.metadata.annotations![NETNS_ANNOTATION]!, '192.168.77.254')).toBe(f.st.nodes[1]!.nodeIP);
    } finally {
      echo.kill();
    }
  }, 60_000);

  it('Traceflow: node1 hands the packet to the host, which routes it to node2 (no tunnel); node2 delivers it', async () => {
    await makePods(f.kube, [{ name: 't1', node: 'node1' }, { name: 't2', node: 'node2' }]);
    expect(await traceflowPath(f.st, 't1', 't2')).toEqual([
      ['node1', ['SpoofGuard/Forwarded', 'Forwarding/Forwarded via 192.168.77.2']],
      ['node2', ['Forwarding/Received', 'Forwarding/Delivered to default/t2']],
    ]);
  }, 60_000);

  it('a NodePort from the fabric host reaches an endpoint on the other node over IPv4 and IPv6 (routed, no tunnel): the reply comes back through the node the client chose, which MASQUERADEs to its own address', async () => {
    const pods = await makePods(f.kube, [{ name: 'np2', node: 'node2' }]);
    const netns = pods.get('np2')!.metadata.annotations![NETNS_ANNOTATION]!;
    // One server per family: each answer names the pod and the source it saw.
    const servers = ['TCP4-LISTEN:8080,reuseaddr,fork', 'TCP6-LISTEN:8080,ipv6only=1,reuseaddr,fork'].map((listen) =>
      spawn('ip', ['netns', 'exec', netns, 'socat', listen, 'SYSTEM:echo np2 $SOCAT_PEERADDR'], { stdio: 'ignore' }),
    );
    try {
      await f.kube.request('POST', '/api/v1/namespaces/default/services', {
        apiVersion: 'v1', kind: 'Service', metadata: { name: 'np', namespace: 'default' },
        spec: { type: 'NodePort', ipFamilyPolicy: 'RequireDualStack', ipFamilies: ['IPv4', 'IPv6'], selector: { app: 'np2' }, ports: [{ port: 8080, targetPort: 8080, nodePort: 30095 }] },
      });
      const n1 = f.st.nodes[0]!;
      const answer = async (target: string): Promise<string> => {
        let got = '';
        await waitFor(`a NodePort answer at ${target}`, async () => {
          const r = await run(['ip', 'netns', 'exec', f.st.fabricNetns, 'socat', '-T2', '-', `TCP:${target},connect-timeout=2`], { allowFailure: true, timeoutMs: 5000, input: '' });
          got = r.stdout.trim();
          return r.code === 0 && got !== '';
        }, { timeoutMs: 30_000, intervalMs: 300 });
        // socat writes an IPv6 peer in full (and maybe bracketed): the URL parser gives RFC 5952 text.
        const [name, peer = ''] = got.split(' ');
        return `${name} ${peer.includes(':') ? new URL(`http://[${peer.replace(/[[\]]/g, '')}]/`).hostname.slice(1, -1) : peer}`;
      };
      expect(await answer(`${n1.nodeIP}:30095`)).toBe(`np2 ${n1.nodeIP}`);
      expect(await answer(`[${n1.nodeIPv6!}]:30095`)).toBe(`np2 ${n1.nodeIPv6!}`);
    } finally {
      for (const c of servers) c.kill();
    }
  }, 90_000);

  it("IPv6 pod to pod across nodes, both ways: each host routes the peer's IPv6 pod CIDR via its IPv6 node address on br-phy, and the packets arrive as plain IPv6 on the peer's br-phy", async () => {
    const pods = await makePods(f.kube, [{ name: 's1', node: 'node1' }, { name: 's2', node: 'node2' }]);
    const [n1, n2] = f.st.nodes as [LabState['nodes'][number], LabState['nodes'][number]];
    expect(await route6(n1, n2.podCIDRv6!)).toBe(`${n2.podCIDRv6!} via ${n2.nodeIPv6!} dev br-phy`);
    expect(await route6(n2, n1.podCIDRv6!)).toBe(`${n1.podCIDRv6!} via ${n1.nodeIPv6!} dev br-phy`);
    expect(await routedOverIpv6(pods.get('s1')!, pods.get('s2')!, n2)).toBeGreaterThan(0);
    expect(await routedOverIpv6(pods.get('s2')!, pods.get('s1')!, n1)).toBeGreaterThan(0);
  }, 90_000);
});

describe('switchyard-lab up --mode hybrid --nodes 3 --ip-family dual', () => {
  const f = labFixture(['--nodes', '3', '--mode', 'hybrid', '--ip-family', 'dual']);
  let runner: ScenarioRunner;
  beforeAll(() => {
    runner = new ScenarioRunner({ kube: f.kube, state: f.st, concurrency: 32, timeoutMs: 1000, ipFamilies: ['IPv4'], keep: (r) => r.kind === 'Namespace' || r.kind === 'Pod' });
  });
  afterAll(() => runner?.close());

  it('splits the fabric in both families: node1 and node2 in 192.168.77.0/24 and fd00:77::/64, node3 in 192.168.78.0/24 and fd00:78::/64, the fabric routing between', async () => {
    expect(f.st.nodes.map((n) => [n.name, n.nodeIP, n.nodeIPv6])).toEqual([
      ['node1', '192.168.77.1', 'fd00:77::1'],
      ['node2', '192.168.77.2', 'fd00:77::2'],
      ['node3', '192.168.78.3', 'fd00:78::3'],
    ]);
    const [n1, , n3] = f.st.nodes as [LabState['nodes'][number], LabState['nodes'][number], LabState['nodes'][number]];
    expect(await route6(n3, 'fd00:77::/64')).toBe('fd00:77::/64 via fd00:78::fe dev br-phy');
    expect(await route6(n1, 'fd00:78::/64')).toBe('fd00:78::/64 via fd00:77::fe dev br-phy');
    // node3 reaches node1's IPv6 underlay address through the fabric router.
    expect((await run(['ip', 'netns', 'exec', n3.netns, 'ping', '-6', '-c', '1', '-W', '2', n1.nodeIPv6!], { allowFailure: true, timeoutMs: 10_000 })).code).toBe(0);
  });

  it('tunnels only to peers in the other subnet: node1 and node2 to node3, node3 to both', async () => {
    const tunnelPeers = async (n: LabState['nodes'][number]): Promise<string[]> => {
      const flows = await agentGet<string[]>(n.apiSocket, '/ovsflows');
      return [...new Set(flows.flatMap((f) => [...f.matchAll(/(\d+\.\d+\.\d+\.\d+)->tun_dst/g)].map((m) => m[1]!)))].sort();
    };
    const [n1, n2, n3] = f.st.nodes as [LabState['nodes'][number], LabState['nodes'][number], LabState['nodes'][number]];
    let peers: string[][] = [];
    await waitFor('the agents to know every peer node', async () => {
      peers = await Promise.all([n1, n2, n3].map(tunnelPeers));
      return peers[2]!.length === 2;
    }, { timeoutMs: 15_000, intervalMs: 200 }).catch(() => undefined);
    expect(peers).toEqual([['192.168.78.3'], ['192.168.78.3'], ['192.168.77.1', '192.168.77.2']]);
  });

  // a -> node1, b -> node2 (same subnet: routed), c -> node3 (other subnet: tunnelled).
  it.each(SCENARIOS)('%s: every cell as expected, pods on all three nodes (routed and tunnelled peers)', async (file) => {
    const r = await runScenario(runner, file, (_ns, name) => ({ a: 'node1', b: 'node2' })[name] ?? 'node3');
    expect(r.crossNode).toBeGreaterThan(0);
    expect(r.allowedCrossNode).toBeGreaterThan(0);
    expect(r.wrong).toEqual([]);
  }, 120_000);

  it(`${SCTP_SCENARIO}: every SCTP cell judged by ofproto/trace and as expected, on routed and tunnelled peers`, async () => {
    const r = await runScenario(runner, SCTP_SCENARIO, (_ns, name) => ({ a: 'node1', b: 'node2' })[name] ?? 'node3');
    expect({ unjudged: r.unjudged, wrong: r.wrong }).toEqual({ unjudged: [], wrong: [] });
    expect(r.traced).toBe(72);
    expect(r.tracedCrossNode).toBeGreaterThan(0);
  }, 120_000);

  it('a pod on the second subnet reaching the fabric host is seen with its node IP (MASQUERADE)', async () => {
    const pods = await makePods(f.kube, [{ name: 'm3', node: 'node3' }]);
    const echo = fabricEcho(f.st);
    try {
      expect(await seenFrom(pods.get('m3')!.metadata.annotations![NETNS_ANNOTATION]!, '192.168.78.254')).toBe('192.168.78.3');
    } finally {
      echo.kill();
    }
  }, 60_000);

  it('Traceflow: node1 routes to node2 in its subnet and tunnels to node3 in the other', async () => {
    await makePods(f.kube, [{ name: 't1', node: 'node1' }, { name: 't2', node: 'node2' }, { name: 't3', node: 'node3' }]);
    const [routed, tunnelled] = await Promise.all([traceflowPath(f.st, 't1', 't2'), traceflowPath(f.st, 't1', 't3')]);
    expect(routed).toEqual([
      ['node1', ['SpoofGuard/Forwarded', 'Forwarding/Forwarded via 192.168.77.2']],
      ['node2', ['Forwarding/Received', 'Forwarding/Delivered to default/t2']],
    ]);
    expect(tunnelled).toEqual([
      ['node1', ['SpoofGuard/Forwarded', 'Forwarding/Forwarded via 192.168.78.3']],
      ['node3', ['Forwarding/Received', 'Forwarding/Delivered to default/t3']],
    ]);
  }, 60_000);

  it('IPv6 is decided by the IPv6 transport subnet: node1 routes IPv6 to node2 (fd00:77::/64) on the underlay and tunnels it to node3 (fd00:78::/64), node3 tunnels to node1', async () => {
    const pods = await makePods(f.kube, [{ name: 'h1', node: 'node1' }, { name: 'h2', node: 'node2' }, { name: 'h3', node: 'node3' }]);
    const [n1, n2, n3] = f.st.nodes as [LabState['nodes'][number], LabState['nodes'][number], LabState['nodes'][number]];
    // Routed in the subnet: via the peer's IPv6 node address, arriving as plain IPv6 on its br-phy.
    expect(await route6(n1, n2.podCIDRv6!)).toBe(`${n2.podCIDRv6!} via ${n2.nodeIPv6!} dev br-phy`);
    expect(await routedOverIpv6(pods.get('h1')!, pods.get('h2')!, n2)).toBeGreaterThan(0);
    // Tunnelled across subnets: the host route through the gateway (the peer gateway's IPv6 address),
    // the flow to the peer's IPv6 pod CIDR sets tun_dst to its IPv4 node IP, and the connection
    // works while no plain IPv6 packet of it arrives on the peer's br-phy (it comes in Geneve).
    expect(await route6(n1, n3.podCIDRv6!)).toMatch(new RegExp(`^${n3.podCIDRv6!} via fd00:10:3::1 dev \\S+ onlink$`));
    expect(await route6(n3, n1.podCIDRv6!)).toMatch(new RegExp(`^${n1.podCIDRv6!} via fd00:10:1::1 dev \\S+ onlink$`));
    const v6TunnelFlows = async (n: LabState['nodes'][number], cidr: string): Promise<string[]> =>
      (await agentGet<string[]>(n.apiSocket, '/ovsflows')).filter((fl) => fl.includes(`ipv6_dst=${cidr}`) && fl.includes('->tun_dst'));
    expect((await v6TunnelFlows(n1, n3.podCIDRv6!)).some((fl) => fl.includes(`${n3.nodeIP}->tun_dst`))).toBe(true);
    expect((await v6TunnelFlows(n3, n1.podCIDRv6!)).some((fl) => fl.includes(`${n1.nodeIP}->tun_dst`))).toBe(true);
    expect(await v6TunnelFlows(n1, n2.podCIDRv6!)).toEqual([]);
    expect(await routedOverIpv6(pods.get('h1')!, pods.get('h3')!, n3)).toBe(0);
    expect(await routedOverIpv6(pods.get('h3')!, pods.get('h1')!, n1)).toBe(0);
  }, 90_000);
});

// Also the IPv6-only noEncap lab (one bring-up for both: no lab of its own).
describe('switchyard-lab up --no-controller --nodes 2 --ip-family ipv6 --mode noEncap', () => {
  const f = labFixture(['--nodes', '2', '--no-controller', '--ip-family', 'ipv6', '--mode', 'noEncap']);

  it('runs no controller and still carries pod-to-pod TCP across nodes', async () => {
    expect(f.st.controllerPort).toBe(0);
    const pods = await makePods(f.kube, [{ name: 'p1', node: 'node1' }, { name: 'p2', node: 'node2' }]);
    const ns = (n: string): string => pods.get(n)!.metadata.annotations![NETNS_ANNOTATION]!;
    const ip = (n: string): string => pods.get(n)!.status!.podIP!;
    await waitFor('node1 -> node2 pod', () => tcpProbe(ns('p1'), ip('p2'), 80), { timeoutMs: 15_000, intervalMs: 300 });
    expect(await tcpReaches(ns('p1'), ip('p2'), 80)).toBe(true);
    expect(await tcpReaches(ns('p2'), ip('p1'), 80)).toBe(true);
  }, 60_000);

  it("IPv6-only noEncap: the peers known by IPv6 pod CIDR and IPv6 node address; each host routes the peer's pod CIDR via it on br-phy, and pod traffic arrives as plain IPv6 on the peer's br-phy", async () => {
    const pods = await makePods(f.kube, [{ name: 'q1', node: 'node1' }, { name: 'q2', node: 'node2' }]);
    const [n1, n2] = f.st.nodes as [LabState['nodes'][number], LabState['nodes'][number]];
    expect([n1.podCIDR, n2.podCIDR]).toEqual(['fd00:10:1::/64', 'fd00:10:2::/64']);
    expect(await route6(n1, n2.podCIDR)).toBe(`${n2.podCIDR} via ${n2.nodeIPv6!} dev br-phy`);
    expect(await route6(n2, n1.podCIDR)).toBe(`${n1.podCIDR} via ${n1.nodeIPv6!} dev br-phy`);
    expect(await routedOverIpv6(pods.get('q1')!, pods.get('q2')!, n2)).toBeGreaterThan(0);
    expect(await routedOverIpv6(pods.get('q2')!, pods.get('q1')!, n1)).toBeGreaterThan(0);
  }, 90_000);
});
