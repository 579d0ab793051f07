// Lab benchmark (not run by CI: `npm run bench`, as root). Prints a table and writes
// bench/results.json:
//  - time from `switchyard-lab up` to ready (state written, every agent answering) for 2 and 4 nodes;
//  - time from applying 1 / 100 / 1,000 K8s NetworkPolicies to realized on every node;
//  - iperf3 pod-to-pod TCP across nodes (Geneve) with 0 and 1,000 policy rules on the server pod,
//    and the reference: two ports on a bare OVS netdev bridge with one NORMAL flow;
//  - new connections (TCP_CRR) and UDP request/response (UDP_RR) with bench/rr.c, across nodes and
//    on one node, with 0 and 1,000 policies, against the same bare bridge; after the 1,000 the
//    same-node runs are interleaved (server under the policies, a server none selects, the bare
//    bridge, round after round) with the datapath counters per connection.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { Testbed, processRef, run, waitFor } from '@switchyard/testbed';
import type { KubeConfigClient } from '@switchyard/controller';
import { labClient, readState, type LabState } from '../src/index';
import { NETNS_ANNOTATION } from '../src/kubelet';
import { agentGet } from '../src/probe';
import { ScenarioRunner } from '../src/probe-run';
import { IPERF_REPEATS, IPERF_SECONDS, iperf, iperfPods, median, type PodPlace } from './iperf';
import { RR_PARALLEL, RR_PORT, RR_REPEATS, RR_SECONDS, rrOnce, rrSeries, startRrServer, type RrServer } from './rr';
import { printRows } from './table';

const ROOT = join(process.cwd());
const BIN = join(ROOT, 'bin/switchyard-lab');
const rows: { metric: string; value: number; unit: string; note?: string }[] = [];
const row = (metric: string, value: number, unit: string, note?: string): void => {
  rows.push({ metric, value: Math.round(value * 100) / 100, unit, ...(note ? { note } : {}) });
  process.stderr.write(`  ${metric}: ${value.toFixed(2)} ${unit}${note ? ` (${note})` : ''}\n`);
};

function labCmd(labDir: string, ...args: string[]): string {
  return execFileSync(BIN, ['--lab-dir', labDir, ...args], { encoding: 'utf8', timeout: 600_000 });
}

/** `up` until every agent answers /agentinfo, in ms. */
async function upTime(nodes: number): Promise<number> {
  const labDir = mkdtempSync(join(tmpdir(), 'switchyard-lab-bench-'));
  const t0 = performance.now();
  labCmd(labDir, 'up', '--nodes', String(nodes));
  const st = readState(labDir)!;
  await waitFor('agents', async () => (await Promise.all(st.nodes.map((n) => agentGet(n.apiSocket, '/agentinfo').then(() => true, () => false)))).every(Boolean), { timeoutMs: 60_000, intervalMs: 50 });
  const ms = performance.now() - t0;
  labCmd(labDir, 'down');
  return ms;
}

/** Policy i selects the server pod; policy 0 admits the clients on iperf3's and rr's ports, the others on 10000+i. */
function policy(i: number): Record<string, unknown> {
  const ports = i === 0 ? [{ protocol: 'TCP', port: 5201 }, { protocol: 'TCP', port: RR_PORT }, { protocol: 'UDP', port: RR_PORT }] : [{ protocol: 'TCP', port: 10000 + i }];
  return {
    apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: `bench-${i}`, namespace: 'default' },
    spec: { podSelector: { matchLabels: { app: 'srv' } }, policyTypes: ['Ingress'], ingress: [{ from: [{ podSelector: { matchLabels: { app: 'cli' } } }], ports }] },
  };
}

const RR_NOTE = `${RR_REPEATS} x ${RR_SECONDS} s, ${RR_PARALLEL} stream${RR_PARALLEL === 1 ? '' : 's'}`;
type RrFigures = Awaited<ReturnType<typeof rrSeries>>;

/** TCP_CRR and UDP_RR rows from `cli` to the server; the figures for ratios. */
async function rrRows(label: string, cli: PodPlace, srvIp: string): Promise<RrFigures> {
  const f = await rrSeries(cli.ns, srvIp);
  row(`TCP_CRR ${label}, median`, f.tcp_crr.median, 'conn/s', `${RR_NOTE}: ${f.tcp_crr.runs.map(Math.round).join(', ')}`);
  row(`UDP_RR ${label}, median`, f.udp_rr.median, 'trans/s', `${RR_NOTE}: ${f.udp_rr.runs.map(Math.round).join(', ')}`);
  return f;
}

const FILL_PODS = 108;
const FILL_SERVICES = 100;

/** An agent's resident memory in MiB, read from /proc while the lab's pid still names it (its recorded start time). */
function agentRssMiB(st: LabState, node: string): number {
  const n = st.nodes.find((x) => x.name === node)!;
  if (processRef(n.agentPid)?.start !== n.agentStart) throw new Error(`${node}: the agent's pid ${n.agentPid} no longer names the agent the lab started`);
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${n.agentPid}/status`, 'utf8'))?.[1]);
  return kb / 1024;
}

/**
 * The issue's agent-memory case on node2: 110 pods (the server, cli2 and 108 more), the 1,000
 * policies, and 100 Services of 10 endpoints each; the agents' RSS once it is realized. The extra
 * pods and Services are removed afterwards.
 */
async function agentMemory(kube: KubeConfigClient, runner: ScenarioRunner, st: LabState): Promise<void> {
  const ns = '/api/v1/namespaces/default';
  await pool(8, Array.from({ length: FILL_PODS }, (_, i) => () =>
    kube.request('POST', `${ns}/pods`, { apiVersion: 'v1', kind: 'Pod', metadata: { name: `fill-${i}`, namespace: 'default', labels: { app: 'fill', part: String(i % 10) } }, spec: { nodeName: 'node2', containers: [{ name: 'c', image: 'idle' }] } })));
  await pool(8, Array.from({ length: FILL_SERVICES }, (_, i) => () =>
    kube.request('POST', `${ns}/services`, { apiVersion: 'v1', kind: 'Service', metadata: { name: `fill-${i}`, namespace: 'default' }, spec: { selector: { app: 'fill', part: String(i % 10) }, ports: [{ protocol: 'TCP', port: 80 + (i % 50), targetPort: 8080 }] } })));
  await waitFor('the fill pods to run', async () => (await kube.request<{ items: { status?: { podIP?: string } }[] }>('GET', `${ns}/pods?labelSelector=app%3Dfill`)).items.filter((p) => p.status?.podIP).length === FILL_PODS, { timeoutMs: 300_000, intervalMs: 500 });
  await waitFor('node2 to hold every Service', async () => {
    const flows = await agentGet<string[]>(st.nodes[1]!.apiSocket, '/ovsflows');
    return flows.filter((f) => f.includes('group:')).length >= FILL_SERVICES;
  }, { timeoutMs: 300_000, intervalMs: 500 });
  await runner.waitRealized();
  for (const n of st.nodes) row(`agent RSS ${n.name}, ${n.name === 'node2' ? '110 pods' : '1 pod'}, 1,000 policies, ${FILL_SERVICES} Services`, agentRssMiB(st, n.name), 'MiB', n.name === 'node2' ? 'target <= 150 MB' : undefined);
  await pool(8, Array.from({ length: FILL_SERVICES }, (_, i) => () => kube.request('DELETE', `${ns}/services/fill-${i}`)));
  await pool(8, Array.from({ length: FILL_PODS }, (_, i) => () => kube.request('DELETE', `${ns}/pods/fill-${i}`)));
}

/** Another pod on node2 beside the server (`cli2` labelled as a client: the same-node path). */
async function sameNodeClient(kube: KubeConfigClient, name: string, app: string): Promise<PodPlace> {
  await kube.request('POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels: { app } }, spec: { nodeName: 'node2', containers: [{ name: 'c', image: 'rr' }] } });
  let place: PodPlace | undefined;
  await waitFor(`pod ${name}`, async () => {
    const p = await kube.request<{ metadata: { annotations?: Record<string, string> }; status?: { podIP?: string } }>('GET', `/api/v1/namespaces/default/pods/${name}`);
    const ns = p.metadata.annotations?.[NETNS_ANNOTATION];
    if (ns && p.status?.podIP) place = { ns, ip: p.status.podIP };
    return place !== undefined;
  }, { timeoutMs: 60_000, intervalMs: 200 });
  return place!;
}

async function pool(n: number, tasks: (() => Promise<unknown>)[]): Promise<void> {
  let i = 0;
  await Promise.all(Array.from({ length: n }, async () => {
    while (i < tasks.length) await tasks[i++]!();
  }));
}

async function controllerPolicyCount(kube: KubeConfigClient): Promise<number> {
  return (await kube.request<{ items: unknown[] }>('GET', '/apis/controlplane.switchyard.io/v1beta2/networkpolicies')).items.length;
}

/** Applies n policies; ms from the first POST until realized everywhere (and the POSTs alone). */
async function applyAndRealize(kube: KubeConfigClient, runner: ScenarioRunner, n: number): Promise<{ applyMs: number; realizedMs: number }> {
  const t0 = performance.now();
  await pool(16, Array.from({ length: n }, (_, i) => () => kube.request('POST', '/apis/networking.k8s.io/v1/namespaces/default/networkpolicies', policy(i))));
  const applyMs = performance.now() - t0;
  await waitFor('the controller to hold every policy', async () => (await controllerPolicyCount(kube)) === n, { timeoutMs: 300_000, intervalMs: 50 });
  await runner.waitRealized();
  return { applyMs, realizedMs: performance.now() - t0 };
}

async function deleteAll(kube: KubeConfigClient, runner: ScenarioRunner, n: number): Promise<void> {
  await pool(16, Array.from({ length: n }, (_, i) => () => kube.request('DELETE', `/apis/networking.k8s.io/v1/namespaces/default/networkpolicies/bench-${i}`)));
  await waitFor('the controller to drop every policy', async () => (await controllerPolicyCount(kube)) === 0, { timeoutMs: 300_000, intervalMs: 100 });
  await runner.waitRealized();
}

/** iperf3 TCP throughput from one netns to an address, bits/s (receiver side). */

async function labBench(bare: BareBridge): Promise<{ sameNode0: RrFigures; sameNode1k: RrFigures; interleaved: Interleaved }> {
  const labDir = mkdtempSync(join(tmpdir(), 'switchyard-lab-bench-'));
  labCmd(labDir, 'up', '--nodes', '2');
  const st: LabState = readState(labDir)!;
  const kube = labClient(st);
  const runner = new ScenarioRunner({ kube, state: st, readyTimeoutMs: 300_000 });
  let rrServer: RrServer | undefined;
  let rrServer0: RrServer | undefined;
  try {
    const { cli, srv } = await iperfPods(kube, { labelled: true });
    const cli2 = await sameNodeClient(kube, 'cli2', 'cli');
    // A second server on node2 that no policy selects, for the interleaved same-node runs.
    const srv0 = await sameNodeClient(kube, 'srv0', 'srv0');
    rrServer = await startRrServer(srv.ns);
    rrServer0 = await startRrServer(srv0.ns);
    const rrAll = async (when: string): Promise<RrFigures> => {
      await rrRows(`node1 -> node2, ${when}`, cli, srv.ip);
      return rrRows(`same node (node2), ${when}`, cli2, srv.ip);
    };
    // Throughput is noisy on a shared machine: IPERF_REPEATS runs each, 0 policies measured both
    // before and after the 1,000 (drift shows as a gap between the two), medians compared.
    const series = async (): Promise<number[]> => {
      const out: number[] = [];
      for (let i = 0; i < IPERF_REPEATS; i++) out.push(await iperf(cli.ns, srv.ns, srv.ip));
      return out;
    };
    const before = await series();
    row('iperf3 node1 -> node2, 0 policies (before), median', median(before) / 1e6, 'Mbit/s', `Geneve, ${IPERF_REPEATS} x ${IPERF_SECONDS} s: ${before.map((b) => Math.round(b / 1e6)).join(', ')}`);
    const sameNode0 = await rrAll('0 policies');
    let sameNode1k: RrFigures | undefined;
    let interleaved: Interleaved | undefined;
    let with1k: number[] = [];
    for (const n of [1, 100, 1000]) {
      const r = await applyAndRealize(kube, runner, n);
      row(`${n} policies: apply -> realized on both nodes`, r.realizedMs, 'ms', `POSTs ${Math.round(r.applyMs)} ms; includes the 300 ms flows-unchanged check`);
      if (n === 1000) {
        with1k = await series();
        row('iperf3 node1 -> node2, 1,000 policies on the server pod, median', median(with1k) / 1e6, 'Mbit/s', with1k.map((b) => Math.round(b / 1e6)).join(', '));
        sameNode1k = await rrAll('1,000 policies on the server pod');
        interleaved = await interleavedRr(st, cli2, srv, srv0, bare);
        await agentMemory(kube, runner, st);
      }
      await deleteAll(kube, runner, n);
    }
    const after = await series();
    row('iperf3 node1 -> node2, 0 policies (after), median', median(after) / 1e6, 'Mbit/s', after.map((b) => Math.round(b / 1e6)).join(', '));
    row('ratio 1,000 policies / 0 (medians; 0 = before and after together)', median(with1k) / median([...before, ...after]), 'x', 'target >= 0.9');
    return { sameNode0, sameNode1k: sameNode1k!, interleaved: interleaved! };
  } finally {
    await rrServer?.stop();
    await rrServer0?.stop();
    runner.close();
    labCmd(labDir, 'down');
  }
}

/** The bare bridge, kept up through the lab runs so its rr runs interleave with the pipeline's. */
interface BareBridge {
  iperf: number;
  rr: RrFigures;
  /** One rr run on the bare bridge (client a -> server b). */
  rrOnce(mode: RrMode): Promise<number>;
  close(): Promise<void>;
}

/** Reference: two ports on a bare netdev bridge with one NORMAL flow (same OVS, no pipeline, no tunnel). */
async function bareBridge(): Promise<BareBridge> {
  const tb = await Testbed.create();
  let server: RrServer | undefined;
  try {
    const ovs = await tb.startOvs();
    await ovs.addBridge('br0');
    await ovs.ofctl('-O', 'OpenFlow15', 'del-flows', ovs.mgmtSocket('br0'));
    await ovs.ofctl('-O', 'OpenFlow15', 'add-flow', ovs.mgmtSocket('br0'), 'priority=0,actions=NORMAL');
    const a = await tb.addPod(ovs, { bridge: 'br0', ipCidr: '10.99.0.2/24' });
    const b = await tb.addPod(ovs, { bridge: 'br0', ipCidr: '10.99.0.3/24' });
    const bits = await iperf(a.netns.name, b.netns.name, '10.99.0.3');
    const srv = await startRrServer(b.netns.name);
    server = srv;
    const rr = await rrRows('bare OVS netdev bridge, one NORMAL flow (reference)', { ns: a.netns.name, ip: '10.99.0.2' }, '10.99.0.3');
    return {
      iperf: bits, rr,
      rrOnce: (mode) => rrOnce(a.netns.name, '10.99.0.3', mode),
      close: async () => {
        await srv.stop();
        await tb.cleanup();
      },
    };
  } catch (e) {
    await server?.stop();
    await tb.cleanup();
    throw e;
  }
}

/** ovs-vswitchd's datapath counters (`dpif-netdev/pmd-stats-show`, summed over threads) and its CPU seconds. */
function datapathCounters(st: LabState, node: string): { stats: Record<string, number>; cpuS: number } {
  const n = st.nodes.find((x) => x.name === node)!;
  const out = execFileSync('ovs-appctl', ['-t', n.vswitchdCtl, 'dpif-netdev/pmd-stats-show'], { encoding: 'utf8' });
  const stats: Record<string, number> = {};
  for (const m of out.matchAll(/^\s*([a-z][a-z /()-]+?):\s+(\d+)/gm)) stats[m[1]!] = (stats[m[1]!] ?? 0) + Number(m[2]);
  const pid = Number(readFileSync(n.vswitchdCtl.replace(/vswitchd\.ctl$/, 'vswitchd.pid'), 'utf8').trim());
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return { stats, cpuS: (Number(f[11]) + Number(f[12])) / 100 };
}

type RrMode = 'tcp_crr' | 'udp_rr';
type Interleaved = Record<'policed' | 'unpoliced' | 'bare' | 'bareOnNode', Record<RrMode, number[]>>;

/**
 * The second reference: a bare bridge (two ports, one NORMAL flow) added to node2's own
 * ovs-vswitchd, beside br-int and br-phy. Its packets are polled by the same main loop as the
 * pods', with the node's other ports, tunnel and sockets, so against it the pipeline's own cost
 * shows apart from what a busier switch costs every packet.
 */
async function bareOnNode(st: LabState, node: string): Promise<{ rrOnce(mode: RrMode): Promise<number>; close(): Promise<void> }> {
  const n = st.nodes.find((x) => x.name === node)!;
  const tb = await Testbed.create();
  const vsctl = (...args: string[]) => run(['ovs-vsctl', `--db=${n.dbRemote}`, ...args]);
  let server: RrServer | undefined;
  const ports: string[] = [];
  const close = async (): Promise<void> => {
    await server?.stop();
    await vsctl('--if-exists', 'del-br', 'br-bench-bare').catch(() => undefined);
    for (const p of ports) await run(['ip', 'link', 'del', p], { netns: n.netns }).catch(() => undefined);
    await tb.cleanup();
  };
  try {
    await vsctl('add-br', 'br-bench-bare', '--', 'set', 'bridge', 'br-bench-bare', 'datapath_type=netdev', 'fail_mode=standalone');
    const places: string[] = [];
    for (const i of [2, 3]) {
      const ns = await tb.createNetns('b');
      const hostIf = tb.name('vb');
      ports.push(hostIf);
      await run(['ip', 'link', 'add', hostIf, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns.name], { netns: n.netns });
      await run(['ip', '-batch', '-'], { netns: ns.name, input: `addr add 10.97.0.${i}/24 dev eth0\nlink set eth0 up\nlink set lo up\n` });
      // The userspace datapath does not fill in checksums a veth leaves to offload.
      await run(['ethtool', '-K', 'eth0', 'tx', 'off'], { netns: ns.name });
      await run(['ip', 'link', 'set', hostIf, 'up'], { netns: n.netns });
      await run(['ethtool', '-K', hostIf, 'tx', 'off'], { netns: n.netns });
      await vsctl('add-port', 'br-bench-bare', hostIf);
      places.push(ns.name);
    }
    server = await startRrServer(places[1]!);
    // A NORMAL bridge floods until it has learnt both MACs: one ping each way first.
    await run(['ping', '-c', '1', '-W', '5', '10.97.0.3'], { netns: places[0]! });
    return { rrOnce: (mode) => rrOnce(places[0]!, '10.97.0.3', mode), close };
  } catch (e) {
    await close();
    throw e;
  }
}

/**
 * Same-node runs interleaved (RR_REPEATS rounds of: the server the 1,000 policies select, a
 * server no policy selects, the bare bridge), so load drift on a shared machine reaches all three
 * alike; the first round also records node2's datapath counters per transaction for both servers.
 */
async function interleavedRr(st: LabState, cli2: PodPlace, policed: PodPlace, unpoliced: PodPlace, bare: BareBridge): Promise<Interleaved> {
  const out: Interleaved = { policed: { tcp_crr: [], udp_rr: [] }, unpoliced: { tcp_crr: [], udp_rr: [] }, bare: { tcp_crr: [], udp_rr: [] }, bareOnNode: { tcp_crr: [], udp_rr: [] } };
  const onNode = await bareOnNode(st, 'node2');
  try {
    for (let rep = 0; rep < RR_REPEATS; rep++) {
      for (const mode of ['tcp_crr', 'udp_rr'] as const) {
        for (const [cell, target] of [['policed', policed], ['unpoliced', unpoliced]] as const) {
          const before = datapathCounters(st, 'node2');
          const rate = await rrOnce(cli2.ns, target.ip, mode);
          const after = datapathCounters(st, 'node2');
          out[cell][mode].push(rate);
          if (rep === 0) {
            const n = rate * RR_SECONDS;
            const per = (k: string): string => (((after.stats[k] ?? 0) - (before.stats[k] ?? 0)) / n).toFixed(2);
            row(`datapath per ${mode === 'tcp_crr' ? 'connection' : 'transaction'}, ${mode.toUpperCase()} to the ${cell === 'policed' ? 'server under 1,000 policies' : 'server no policy selects'}: upcalls`, Number(per('miss with success upcall')), 'upcalls',
              `megaflow hits ${per('megaflow hits')}, EMC hits ${per('emc hits')}, ovs-vswitchd CPU ${((1000 * (after.cpuS - before.cpuS)) / n).toFixed(3)} ms`);
          }
        }
        out.bare[mode].push(await bare.rrOnce(mode));
        out.bareOnNode[mode].push(await onNode.rrOnce(mode));
      }
    }
  } finally {
    await onNode.close();
  }
  for (const [cell, label] of [['policed', 'server under 1,000 policies'], ['unpoliced', 'server no policy selects (1,000 policies on its neighbour)'], ['bare', 'bare OVS netdev bridge'], ['bareOnNode', 'bare bridge on node2\'s ovs-vswitchd']] as const) {
    row(`TCP_CRR same node, interleaved, ${label}, median`, median(out[cell].tcp_crr), 'conn/s', out[cell].tcp_crr.map(Math.round).join(', '));
    row(`UDP_RR same node, interleaved, ${label}, median`, median(out[cell].udp_rr), 'trans/s', out[cell].udp_rr.map(Math.round).join(', '));
  }
  return out;
}

async function main(): Promise<void> {
  const started = Date.now();
  // BENCH_SKIP_UP=1: without the up -> ready rows (a quicker run of the rest).
  if (process.env.BENCH_SKIP_UP !== '1') for (const n of [2, 4]) row(`up -> ready, ${n} nodes`, await upTime(n), 'ms');
  const bare = await bareBridge();
  try {
    const lab = await labBench(bare);
    row('iperf3 bare OVS netdev bridge, one NORMAL flow (reference)', bare.iperf / 1e6, 'Mbit/s', 'two ports on one bridge, no tunnel');
    for (const m of ['tcp_crr', 'udp_rr'] as const) {
      const name = m === 'tcp_crr' ? 'TCP_CRR' : 'UDP_RR';
      const i = lab.interleaved;
      row(`ratio ${name} same node, 1,000 policies / bare bridge (interleaved)`, median(i.policed[m]) / median(i.bare[m]), 'x', 'target >= 0.8');
      row(`ratio ${name} same node, 1,000 policies / bare bridge on node2's ovs-vswitchd (interleaved)`, median(i.policed[m]) / median(i.bareOnNode[m]), 'x', 'the same switch and main loop: the pipeline\'s own cost');
      row(`ratio ${name}, bare bridge on node2's ovs-vswitchd / bare bridge alone (interleaved)`, median(i.bareOnNode[m]) / median(i.bare[m]), 'x', 'what the node\'s other ports and bridges cost every packet');
      row(`ratio ${name} same node, no policy on the server / bare bridge (interleaved)`, median(i.unpoliced[m]) / median(i.bare[m]), 'x');
      row(`ratio ${name} same node, 1,000 policies / no policy on the server (interleaved)`, median(i.policed[m]) / median(i.unpoliced[m]), 'x');
      row(`ratio ${name} same node, 0 policies (before) / 1,000 policies`, lab.sameNode0[m].median / lab.sameNode1k[m].median, 'x', 'sequential runs minutes apart: load drift shows here');
    }
  } finally {
    await bare.close();
  }
  printRows(rows);
  writeFileSync(join(ROOT, 'bench/results.json'), `${JSON.stringify({ date: new Date().toISOString(), seconds: Math.round((Date.now() - started) / 1000), rows }, null, 2)}\n`);
}

void main().catch((e: unknown) => {
  process.stderr.write(`bench failed: ${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
