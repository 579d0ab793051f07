// Lab benchmark of Services (issue 33; not in CI: `npx tsx bench/services.ts`, as root). Prints a
// table and writes bench/services-results.json:
//  - new TCP connections per second (bench/rr.c's TCP_CRR) through a ClusterIP Service with one
//    backend, on the client's node and on the other node, against the same backend's pod IP, in
//    the same run (cases interleaved per repeat); and from the fabric host through a NodePort
//    against the pod IP (the fabric routes the pod CIDR to its node, as a router of a flat network);
//  - LoadBalancer IP failover (ServiceExternalIP): stop the owner's agent, time until the fabric
//    host reaches the IP through the other node, start the agent again; N times, p50 and max.
// BENCH_LAB_DIR=<dir> reuses a running lab (up with `--feature-gates ServiceExternalIP=true`).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { run, waitFor } from '@switchyard/testbed';
import type { KubeConfigClient } from '@switchyard/controller';
import { FABRIC_PREFIX, labClient, readState, startAgent, stopAgent, type LabNodeState, type LabState } from '../src/index';
import { NETNS_ANNOTATION } from '../src/kubelet';
import { agentGet, tcpProbe } from '../src/probe';
import { median } from './iperf';
import { RR_PARALLEL, RR_PORT, RR_REPEATS, RR_SECONDS, rrOnce, startRrServer, type RrServer } from './rr';
import { loadAverages, printRows } from './table';

const ROOT = process.cwd();
const BIN = join(ROOT, 'bin/switchyard-lab');
const FAILOVERS = Number(process.env.BENCH_FAILOVERS ?? '10');
const FAILOVER_TIMEOUT_MS = 30_000;
const NODE_PORT_SAME = 30777;
const NODE_PORT_OTHER = 30778;
const NS = '/api/v1/namespaces/default';

const rows: { metric: string; value: number; unit: string; note?: string }[] = [];
/** Datapath counters per connection of each TCP_CRR case's first run. */
const profiles: Record<string, Record<string, number>> = {};
const row = (metric: string, value: number, unit: string, note?: string): void => {
  rows.push({ metric, value: Math.round(value * 100) / 100, unit, ...(note ? { note } : {}) });
  process.stderr.write(`  ${metric}: ${value.toFixed(2)} ${unit}${note ? ` (${note})` : ''}\n`);
};

interface PodView { metadata: { annotations?: Record<string, string> }; status?: { podIP?: string } }
interface Place { ns: string; ip: string }

async function podPlace(kube: KubeConfigClient, name: string): Promise<Place> {
  let place: Place | undefined;
  await waitFor(`pod ${name}`, async () => {
    const p = await kube.request<PodView>('GET', `${NS}/pods/${name}`);
    const ns = p.metadata.annotations?.[NETNS_ANNOTATION];
    if (ns && p.status?.podIP) place = { ns, ip: p.status.podIP };
    return place !== undefined;
  }, { timeoutMs: 60_000, intervalMs: 200 });
  return place!;
}

const pod = (name: string, node: string, app: string, ports: number[] = []): Record<string, unknown> => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels: { app } },
  spec: { nodeName: node, containers: [{ name: 'c', image: app, ports: ports.map((containerPort) => ({ containerPort })) }] },
});

/** A NodePort Service on rr's port selecting `app`; its ClusterIP. */
async function rrService(kube: KubeConfigClient, name: string, app: string, nodePort: number): Promise<string> {
  const svc = await kube.request<{ spec: { clusterIP: string } }>('POST', `${NS}/services`, {
    apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' },
    spec: { type: 'NodePort', selector: { app }, ports: [{ protocol: 'TCP', port: RR_PORT, targetPort: RR_PORT, nodePort }] },
  });
  return svc.spec.clusterIP;
}

/** A case of the connection-rate comparison: a client netns and the address it connects to. */
interface Case { label: string; ns: string; ip: string; port: number }

/** The userspace datapath's counters of every node (ovs-vswitchd's threads summed) and its CPU ms. */
type DpCounters = Record<string, number>;
const COUNTERS = ['packets received', 'packet recirculations', 'emc hits', 'smc hits', 'megaflow hits', 'miss with success upcall', 'miss with failed upcall'];
async function dpCounters(st: LabState): Promise<DpCounters> {
  const out: DpCounters = { cpuMs: 0 };
  for (const n of st.nodes) {
    const text = (await run(['ovs-appctl', '-t', n.vswitchdCtl, 'dpif-netdev/pmd-stats-show'])).stdout;
    for (const line of text.split('\n')) {
      const m = /^\s*([a-z. ]+):\s*(\d+)$/.exec(line);
      if (m && COUNTERS.includes(m[1]!)) out[m[1]!] = (out[m[1]!] ?? 0) + Number(m[2]);
    }
    const pid = readFileSync(join(dirname(n.vswitchdCtl), 'vswitchd.pid'), 'utf8').trim();
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    out.cpuMs! += (Number(f[11]) + Number(f[12])) * 10;
  }
  return out;
}

/** Per new connection: datapath packets, recirculations, upcalls and ovs-vswitchd CPU (µs) of one run, both nodes together. */
function perConnection(before: DpCounters, after: DpCounters, connections: number): Record<string, number> {
  const d = (k: string): number => ((after[k] ?? 0) - (before[k] ?? 0)) / connections;
  const r2 = (x: number): number => Math.round(x * 100) / 100;
  return {
    connections, datapathPackets: r2(d('packets received')), recirculations: r2(d('packet recirculations')),
    emcHits: r2(d('emc hits')), megaflowHits: r2(d('megaflow hits')), upcalls: r2(d('miss with success upcall') + d('miss with failed upcall')),
    vswitchdCpuUs: r2(d('cpuMs') * 1000),
  };
}

/**
 * RR_REPEATS TCP_CRR runs of every case, interleaved (case order within a repeat is the same), so
 * load drift on a shared machine reaches every case alike. Medians per case, and the datapath's
 * counters per connection of each case's first run (the profile of a missed ratio).
 */
async function crrInterleaved(st: LabState, cases: Case[]): Promise<Map<string, { median: number; runs: number[]; profile: Record<string, number> }>> {
  const runs = new Map<string, number[]>(cases.map((c) => [c.label, []]));
  const profiles = new Map<string, Record<string, number>>();
  for (let r = 0; r < RR_REPEATS; r++) {
    for (const c of cases) {
      const before = r === 0 ? await dpCounters(st) : undefined;
      const rate = await rrOnce(c.ns, c.ip, 'tcp_crr', c.port);
      if (before) profiles.set(c.label, perConnection(before, await dpCounters(st), Math.round(rate * RR_SECONDS)));
      runs.get(c.label)!.push(rate);
    }
  }
  return new Map([...runs].map(([k, v]) => [k, { median: median(v), runs: v, profile: profiles.get(k)! }]));
}

async function connectionRates(kube: KubeConfigClient, st: LabState): Promise<void> {
  const [n1, n2] = st.nodes as [LabNodeState, LabNodeState];
  for (const p of [pod('crr-cli', 'node1', 'crr-cli'), pod('crr-srv1', 'node1', 'crr-srv1'), pod('crr-srv2', 'node2', 'crr-srv2')]) await kube.request('POST', `${NS}/pods`, p);
  const [cli, srv1, srv2] = await Promise.all(['crr-cli', 'crr-srv1', 'crr-srv2'].map((n) => podPlace(kube, n))) as [Place, Place, Place];
  const servers: RrServer[] = [await startRrServer(srv1.ns), await startRrServer(srv2.ns)];
  // The fabric routes node2's pod CIDR to node2 (a router of a flat network would); removed at the end.
  await run(['ip', 'route', 'replace', n2.podCIDR, 'via', n2.nodeIP], { netns: st.fabricNetns });
  try {
    const sameIp = await rrService(kube, 'crr-same', 'crr-srv1', NODE_PORT_SAME);
    const otherIp = await rrService(kube, 'crr-other', 'crr-srv2', NODE_PORT_OTHER);
    // Realized when a connection through each frontend opens (the agents' flows and the host's node port rules).
    const frontends: [string, string, number][] = [[cli.ns, sameIp, RR_PORT], [cli.ns, otherIp, RR_PORT], [st.fabricNetns, n2.nodeIP, NODE_PORT_OTHER]];
    for (const [ns, ip, port] of frontends) await waitFor(`${ip}:${port} from ${ns}`, () => tcpProbe(ns, ip, port, 1), { timeoutMs: 60_000, intervalMs: 200 });
    const fabricToPod = await tcpProbe(st.fabricNetns, srv2.ip, RR_PORT, 1);
    const cases: Case[] = [
      { label: 'pod IP, backend on the same node', ns: cli.ns, ip: srv1.ip, port: RR_PORT },
      { label: 'ClusterIP, backend on the same node', ns: cli.ns, ip: sameIp, port: RR_PORT },
      { label: 'pod IP, backend on the other node', ns: cli.ns, ip: srv2.ip, port: RR_PORT },
      { label: 'ClusterIP, backend on the other node', ns: cli.ns, ip: otherIp, port: RR_PORT },
      ...(fabricToPod ? [{ label: 'fabric host -> pod IP (node2)', ns: st.fabricNetns, ip: srv2.ip, port: RR_PORT }] : []),
      { label: "fabric host -> NodePort on the backend's node (node2)", ns: st.fabricNetns, ip: n2.nodeIP, port: NODE_PORT_OTHER },
      { label: 'fabric host -> NodePort on the other node (node1)', ns: st.fabricNetns, ip: n1.nodeIP, port: NODE_PORT_OTHER },
    ];
    if (!fabricToPod) process.stderr.write('  the fabric host does not reach the pod IP directly: no fabric ratio\n');
    const note = `${RR_REPEATS} x ${RR_SECONDS} s, ${RR_PARALLEL} stream${RR_PARALLEL === 1 ? '' : 's'}, interleaved`;
    const res = await crrInterleaved(st, cases);
    for (const c of cases) {
      const f = res.get(c.label)!;
      row(`TCP_CRR ${c.label}, median`, f.median, 'conn/s', `${note}: ${f.runs.map(Math.round).join(', ')}`);
      profiles[c.label] = f.profile;
      process.stderr.write(`    per connection: ${JSON.stringify(f.profile)}\n`);
    }
    const ratio = (a: string, b: string, target?: string): void => {
      const x = res.get(a);
      const y = res.get(b);
      if (x && y) row(`ratio ${a} / ${b}`, x.median / y.median, 'x', target);
    };
    ratio('ClusterIP, backend on the same node', 'pod IP, backend on the same node', 'target >= 0.8');
    ratio('ClusterIP, backend on the other node', 'pod IP, backend on the other node', 'target >= 0.8');
    ratio("fabric host -> NodePort on the backend's node (node2)", 'fabric host -> pod IP (node2)');
    ratio('fabric host -> NodePort on the other node (node1)', 'fabric host -> pod IP (node2)');
  } finally {
    await run(['ip', 'route', 'del', n2.podCIDR], { netns: st.fabricNetns, allowFailure: true });
    for (const s of servers) await s.stop();
  }
}

/** br-phy's MAC on a node: what the fabric learns for an IP the node answers ARP for. */
const brPhyMac = async (n: LabNodeState): Promise<string> => (JSON.parse((await run(['ip', '-j', 'link', 'show', 'br-phy'], { netns: n.netns })).stdout) as { address: string }[])[0]!.address;

async function fabricNeighbour(st: LabState, addr: string): Promise<string | undefined> {
  const out = (await run(['ip', '-j', 'neigh', 'show', addr], { netns: st.fabricNetns })).stdout;
  return (JSON.parse(out || '[]') as { lladdr?: string }[])[0]?.lladdr;
}

/** The owner every running agent reports for the Service's IP ('' when they disagree or none is named). */
async function reportedOwner(nodes: LabNodeState[]): Promise<string> {
  const owners = await Promise.all(nodes.map(async (n) => (await agentGet<{ assignedNode: string }[]>(n.apiSocket, '/serviceexternalip?namespace=default&name=bench-lb').catch(() => []))[0]?.assignedNode ?? ''));
  return owners.every((o) => o === owners[0]) ? (owners[0] ?? '') : '';
}

/**
 * As tools/lab/test-integration/loadbalancer.test.ts measures it once: stop the owner's agent
 * (SIGTERM), ms until a TCP connection from the fabric host opens through the other node (its MAC
 * in the fabric host's entry for the IP); then the agent
 * is started again and the bench waits until the agents agree on an owner the fabric reaches.
 */
async function failovers(labDir: string, kube: KubeConfigClient, st: LabState): Promise<void> {
  for (const [name, node] of [['lb-1', 'node1'], ['lb-2', 'node2']] as const) await kube.request('POST', `${NS}/pods`, pod(name, node, 'bench-lb', [80]));
  await kube.request('POST', '/apis/crd.antrea.io/v1beta1/externalippools', {
    apiVersion: 'crd.antrea.io/v1beta1', kind: 'ExternalIPPool', metadata: { name: 'bench-pool' },
    spec: { ipRanges: [{ start: `${FABRIC_PREFIX}.220`, end: `${FABRIC_PREFIX}.229` }], nodeSelector: { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: st.nodes.map((n) => n.name) }] } },
  });
  await kube.request('POST', `${NS}/services`, {
    apiVersion: 'v1', kind: 'Service', metadata: { name: 'bench-lb', namespace: 'default', annotations: { 'service.antrea.io/external-ip-pool': 'bench-pool' } },
    spec: { type: 'LoadBalancer', selector: { app: 'bench-lb' }, ports: [{ port: 80, targetPort: 80, protocol: 'TCP' }] },
  });
  let ip = '';
  await waitFor('the ingress IP', async () => {
    const svc = await kube.request<{ status?: { loadBalancer?: { ingress?: { ip?: string }[] } } }>('GET', `${NS}/services/bench-lb`);
    ip = svc.status?.loadBalancer?.ingress?.[0]?.ip ?? '';
    return ip !== '';
  }, { timeoutMs: 30_000, intervalMs: 200 });
  const byName = (n: string): LabNodeState => st.nodes.find((x) => x.name === n)!;
  const settle = async (): Promise<LabNodeState> => {
    let name = '';
    await waitFor('the agents to name one owner', async () => (name = await reportedOwner(st.nodes)) !== '', { timeoutMs: 30_000, intervalMs: 100 });
    const owner = byName(name);
    const mac = await brPhyMac(owner);
    await waitFor("the fabric host to reach the IP through the owner's MAC", async () => {
      await run(['ip', 'neigh', 'flush', 'to', ip], { netns: st.fabricNetns, allowFailure: true });
      return (await tcpProbe(st.fabricNetns, ip, 80, 1)) && (await fabricNeighbour(st, ip)) === mac;
    }, { timeoutMs: 30_000, intervalMs: 100 });
    return owner;
  };
  let owner = await settle();
  const times: number[] = [];
  const missed: Record<string, unknown>[] = [];
  for (let i = 0; i < FAILOVERS; i++) {
    const to = st.nodes.find((n) => n !== owner)!;
    const toMac = await brPhyMac(to);
    const t0 = performance.now();
    await stopAgent(labDir, owner.name, 'SIGTERM');
    let ms = 0;
    try {
      await waitFor(`the IP to answer through ${to.name}`, async () => {
        // An entry for the old MAC is dropped so the connection asks again by ARP, as a client
        // whose entry went stale would. The kernel ignores unsolicited ARP (arp_accept 0): only
        // traffic makes an entry, so a gratuitous ARP arriving after a flush is lost; waiting for
        // the entry before connecting (as the lab test does) then never ends.
        if ((await fabricNeighbour(st, ip)) !== toMac) await run(['ip', 'neigh', 'flush', 'to', ip], { netns: st.fabricNetns, allowFailure: true });
        if (!(await tcpProbe(st.fabricNetns, ip, 80, 1)) || (await fabricNeighbour(st, ip)) !== toMac) return false;
        ms = performance.now() - t0;
        return true;
      }, { timeoutMs: FAILOVER_TIMEOUT_MS, intervalMs: 20 });
      times.push(ms);
      process.stderr.write(`  failover ${i + 1}: ${owner.name} -> ${to.name} ${Math.round(ms)} ms\n`);
    } catch (e) {
      // Recorded with what each side showed, and the run goes on: a missed failover is a figure too.
      const proxy = await Promise.all(st.nodes.map(async (n) => `${n.name}: ${(await run(['ip', 'neigh', 'show', 'proxy'], { netns: n.netns })).stdout.trim() || 'none'}`));
      const route = (await run(['ip', 'route', 'get', ip], { netns: to.netns, allowFailure: true })).stdout.trim();
      const delay = (await run(['sysctl', '-n', 'net.ipv4.neigh.br-phy.proxy_delay', 'net.ipv4.conf.all.forwarding'], { netns: to.netns, allowFailure: true })).stdout.trim().split('\n').join(' ');
      const seen = { stoppedAgent: owner.name, [`${to.name} route`]: route, [`${to.name} proxy_delay, forwarding`]: delay, ownerReportedBy: { [to.name]: await reportedOwner([to]) }, proxyArp: proxy, fabricNeighbour: (await fabricNeighbour(st, ip)) ?? 'none', expectedMac: toMac };
      missed.push(seen);
      process.stderr.write(`  failover ${i + 1}: ${owner.name} -> ${to.name} not answered within ${FAILOVER_TIMEOUT_MS} ms (${(e as Error).message}): ${JSON.stringify(seen)}\n`);
    }
    await startAgent(labDir, owner.name);
    owner = await settle();
  }
  row(`LoadBalancer IP failover, graceful stop of the owner's agent, p50 of ${times.length} answered`, median(times), 'ms', times.map(Math.round).join(', '));
  row(`LoadBalancer IP failover, max of ${times.length} answered`, Math.max(...times), 'ms');
  row(`LoadBalancer IP failovers not answered within ${FAILOVER_TIMEOUT_MS / 1000} s`, missed.length, `of ${FAILOVERS}`, missed.length ? JSON.stringify(missed) : undefined);
}

async function main(): Promise<void> {
  const started = Date.now();
  const reuse = process.env.BENCH_LAB_DIR;
  const labDir = reuse ?? mkdtempSync(join(tmpdir(), 'switchyard-lab-bench-svc-'));
  const lab = (...args: string[]): string => execFileSync(BIN, ['--lab-dir', labDir, ...args], { encoding: 'utf8', timeout: 600_000 });
  if (!reuse) lab('up', '--nodes', '2', '--feature-gates', 'ServiceExternalIP=true');
  const load0 = loadavg();
  try {
    const st = readState(labDir)!;
    const kube = labClient(st);
    if (process.env.BENCH_ONLY !== 'failover') await connectionRates(kube, st);
    if (process.env.BENCH_ONLY !== 'crr') await failovers(labDir, kube, st);
  } finally {
    if (!reuse) lab('down');
  }
  printRows(rows);
  const load = loadAverages(load0);
  writeFileSync(join(ROOT, 'bench/services-results.json'), `${JSON.stringify({ date: new Date().toISOString(), seconds: Math.round((Date.now() - started) / 1000), loadavg: load, rows, datapathPerConnection: profiles }, null, 2)}\n`);
}

void main().catch((e: unknown) => {
  process.stderr.write(`bench failed: ${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
