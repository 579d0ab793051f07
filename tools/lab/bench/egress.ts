// Egress benchmark (issue 34; not in CI: `npm run bench:egress -w @switchyard/lab`, as root). In a
// 2-node encap lab, with an ExternalIPPool on the fabric subnet and Egress IPs the agents place on
// node2 (their rendezvous choice), it prints a table and writes bench/egress-results.json:
//  - what one Egress costs per node: the OpenFlow flows per table (the agents' /agentinfo
//    flowTable before and after) on the owner and on the other node, for an Egress with 1 member and
//    one with BENCH_MEMBERS members (half on each node), and the OVSDB writes meanwhile: records
//    appended to each node's conf.db (ovsdb-server's log of committed transactions that changed
//    data; statistics columns are ephemeral and never written);
//  - throughput to an iperf3 server on the fabric host: from a member pod on node1 (tunnelled to
//    node2, SNATed there to the Egress IP), from a member on node2 (SNATed on its own node), and from
//    a non-member pod on node1 (masqueraded to node1's address), BENCH_ROUNDS rounds with the cases
//    alternated, medians and the ratio to the non-member's own-node masquerade;
//  - the failover gap, BENCH_FAILOVERS times each for a graceful stop (SIGTERM) and a kill
//    (SIGKILL) of the owner's agent: as tools/lab/test-integration/egress.test.ts measures it, from
//    the stop to a new connection of the member on node1 reaching the fabric server from the Egress
//    IP with status.egressNode node1; the agent is then started again and the bench waits until the
//    IP is back on node2. p50 and p99 (the largest of 10). And BENCH_FAILOVERS times node2 marked
//    NotReady through the API (its agent running: the handover), measured the same way, then Ready.
// BENCH_LAB_DIR=<dir> reuses a running lab; BENCH_ONLY=flows,throughput,failover,notready picks parts
// (their JSON then goes to <tmpdir>/egress-results.partial.json).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import { rendezvousOwner } from '@switchyard/agent';
import type { Egress } from '@switchyard/apis/types';
import type { KubeConfigClient } from '@switchyard/controller';
import { run, waitFor } from '@switchyard/testbed';
import { FABRIC_PREFIX, labClient, readState, startAgent, stopAgent, type LabNodeState, type LabState } from '../src/index';
import { NETNS_ANNOTATION } from '../src/kubelet';
import { agentGet } from '../src/probe';
import { IPERF_SECONDS, iperf, median } from './iperf';
import { loadAverages, printRows } from './table';

const ROOT = process.cwd();
const BIN = join(ROOT, 'bin/switchyard-lab');
const FAILOVERS = Number(process.env.BENCH_FAILOVERS ?? '10');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? '4');
const MEMBERS = Number(process.env.BENCH_MEMBERS ?? '10');
const ONLY = new Set((process.env.BENCH_ONLY ?? 'flows,throughput,failover,notready').split(',').map((s) => s.trim()));
const FAILOVER_TIMEOUT_MS = 60_000;
const FABRIC_HOST = `${FABRIC_PREFIX}.254`;
const SERVER_PORT = 9099;
const NS = '/api/v1/namespaces/default';
const EGRESSES = '/apis/crd.antrea.io/v1beta1/egresses';
const POOL = 'bench-egress-pool';
const POOL_IPS = Array.from({ length: 10 }, (_, i) => `${FABRIC_PREFIX}.${220 + i}`);
/** Pool addresses the agents place on node2 while both nodes are up: the owner is node2 for each Egress of the bench. */
const NODE2_IPS = POOL_IPS.filter((ip) => rendezvousOwner(ip, ['node1', 'node2']) === 'node2');

interface Row { metric: string; value: number; unit: string; note?: string }
const rows: Row[] = [];
const row = (metric: string, value: number, unit: string, note?: string): void => {
  rows.push({ metric, value: Math.round(value * 100) / 100, unit, ...(note ? { note } : {}) });
  process.stderr.write(`  ${metric}: ${value.toFixed(2)} ${unit}${note ? ` (${note})` : ''}\n`);
};
/** Per-node flow and OVSDB costs, for the JSON. */
const costs: Record<string, unknown> = {};

const pct = (xs: readonly number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * p) - 1)] ?? 0;

interface PodView { metadata: { name: string; annotations?: Record<string, string> }; status?: { podIP?: string } }
interface Place { ns: string; ip: string; node: string }

class Bench {
  readonly kube: KubeConfigClient;
  readonly pods = new Map<string, Place>();
  private readonly servers: ChildProcess[] = [];

  constructor(readonly labDir: string, readonly st: LabState) {
    this.kube = labClient(st);
  }

  node(name: string): LabNodeState {
    return this.st.nodes.find((n) => n.name === name)!;
  }

  async setUp(): Promise<void> {
    const want: [string, string, Record<string, string>][] = [
      ['a1', 'node1', { app: 'a' }],
      ['a2', 'node2', { app: 'a' }],
      ['n1', 'node1', { app: 'n' }],
      ...Array.from({ length: MEMBERS }, (_, i): [string, string, Record<string, string>] => [`m-${i}`, i % 2 === 0 ? 'node1' : 'node2', { app: 'm', ...(i === 0 ? { first: 'yes' } : {}) }]),
    ];
    for (const [name, node, labels] of want)
      await this.kube.request('POST', `${NS}/pods`, { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels }, spec: { nodeName: node, containers: [{ name: 'c', image: 'bench' }] } });
    await waitFor('pods with an IP and a netns', async () => {
      for (const p of (await this.kube.request<{ items: (PodView & { spec?: { nodeName?: string } })[] }>('GET', `${NS}/pods`)).items) {
        const ns = p.metadata.annotations?.[NETNS_ANNOTATION];
        if (ns && p.status?.podIP) this.pods.set(p.metadata.name, { ns, ip: p.status.podIP, node: p.spec?.nodeName ?? '' });
      }
      return want.every(([n]) => this.pods.has(n));
    }, { timeoutMs: 180_000, intervalMs: 300 });
    this.servers.push(spawn('ip', ['netns', 'exec', this.st.fabricNetns, 'socat', `TCP-LISTEN:${SERVER_PORT},bind=${FABRIC_HOST},reuseaddr,fork`, 'SYSTEM:echo $SOCAT_PEERADDR'], { stdio: 'ignore' }));
    await waitFor('the fabric server answers pods', async () => (await this.seenFromFabric('n1')) === this.node('node1').nodeIP, { timeoutMs: 60_000, intervalMs: 300 });
    await this.kube.request('POST', '/apis/crd.antrea.io/v1beta1/externalippools', {
      apiVersion: 'crd.antrea.io/v1beta1', kind: 'ExternalIPPool', metadata: { name: POOL },
      spec: { ipRanges: [{ start: POOL_IPS[0], end: POOL_IPS[POOL_IPS.length - 1] }], nodeSelector: {} },
    });
  }

  tearDown(): void {
    for (const c of this.servers) c.kill('SIGKILL');
  }

  /** The source address the fabric server saw for a new TCP connection from the pod ('' when nothing answered within 2 s). */
  async seenFromFabric(pod: string): Promise<string> {
    const r = await run(['ip', 'netns', 'exec', this.pods.get(pod)!.ns, 'socat', '-T2', '-', `TCP:${FABRIC_HOST}:${SERVER_PORT},connect-timeout=2`], { allowFailure: true, timeoutMs: 8000, input: '' });
    return r.code === 0 ? (r.stdout.trim().split('\n')[0] ?? '') : '';
  }

  getEgress(name: string): Promise<Egress> {
    return this.kube.request<Egress>('GET', `${EGRESSES}/${name}`);
  }

  async createEgress(name: string, matchLabels: Record<string, string>, ip: string): Promise<void> {
    await this.kube.request('POST', EGRESSES, { apiVersion: 'crd.antrea.io/v1beta1', kind: 'Egress', metadata: { name }, spec: { appliedTo: { podSelector: { matchLabels } }, externalIPPool: POOL, egressIP: ip } });
  }

  async proxyEntries(node: string): Promise<string> {
    return (await run(['ip', 'neigh', 'show', 'proxy'], { netns: this.node(node).netns })).stdout;
  }

  /** Flows per table on a node, as its agent reports them (/agentinfo ovsInfo.flowTable). */
  async flowTable(node: string): Promise<Record<string, number>> {
    return (await agentGet<{ ovsInfo: { flowTable: Record<string, number> } }>(this.node(node).apiSocket, '/agentinfo')).ovsInfo.flowTable;
  }

  /** The node's flows of one table, as text. */
  async flowsOf(node: string, table: string): Promise<string> {
    return JSON.stringify(await agentGet<unknown>(this.node(node).apiSocket, `/ovsflows?table=${table}`));
  }

  /** Committed OVSDB transactions that changed data: the records in the node's conf.db (a compaction rewrites it: -1 then). */
  dbRecords(node: string): number {
    const { ovsRunDir } = YAML.parse(readFileSync(join(this.labDir, node, 'antrea-agent.conf'), 'utf8')) as { ovsRunDir: string };
    return (readFileSync(join(ovsRunDir, 'conf.db'), 'utf8').match(/^OVSDB JSON /gm) ?? []).length;
  }
}

const NODES = ['node1', 'node2'] as const;

/** Table -> after minus before, the tables that changed only. */
function diff(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const t of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const d = (after[t] ?? 0) - (before[t] ?? 0);
    if (d !== 0) out[t] = d;
  }
  return out;
}
const total = (d: Record<string, number>): number => Object.values(d).reduce((a, b) => a + b, 0);
const fmt = (d: Record<string, number>): string => Object.entries(d).map(([t, n]) => `${t} ${n > 0 ? '+' : ''}${n}`).join(', ') || 'none';

/**
 * One Egress's cost: create it, wait until the owner (node2) SNATs to its IP and holds every member
 * in L3Forwarding and node1 holds its own members in EgressMark, read the flows and conf.db, delete
 * it and wait until the flows are back to where they were.
 */
async function egressCost(b: Bench, name: string, labels: Record<string, string>, ip: string, members: string[]): Promise<void> {
  await waitFor('a quiet start: the flows of both nodes unchanged between two reads', async () => {
    const x = await Promise.all(NODES.map((n) => b.flowTable(n)));
    const y = await Promise.all(NODES.map((n) => b.flowTable(n)));
    return JSON.stringify(x) === JSON.stringify(y);
  }, { timeoutMs: 60_000, intervalMs: 500 });
  const before = Object.fromEntries(await Promise.all(NODES.map(async (n) => [n, await b.flowTable(n)] as const)));
  const db0 = Object.fromEntries(NODES.map((n) => [n, b.dbRecords(n)]));
  const t0 = performance.now();
  await b.createEgress(name, labels, ip);
  const ipsOn = (node: string): string[] => members.filter((m) => b.pods.get(m)!.node === node).map((m) => b.pods.get(m)!.ip);
  const has = (text: string, podIP: string): boolean => new RegExp(`nw_src=${podIP.replaceAll('.', '\\.')}[ ,]`).test(text);
  await waitFor(`${name} realized on both nodes`, async () => {
    if ((await b.getEgress(name)).status?.egressNode !== 'node2') return false;
    if (!(await b.flowsOf('node2', 'SNAT')).includes(`nat(src=${ip})`)) return false;
    const l3 = await b.flowsOf('node2', 'L3Forwarding');
    if (!members.every((m) => has(l3, b.pods.get(m)!.ip))) return false;
    const mark1 = await b.flowsOf('node1', 'EgressMark');
    return ipsOn('node1').every((p) => has(mark1, p));
  }, { timeoutMs: 120_000, intervalMs: 100 });
  const realizedMs = performance.now() - t0;
  const after = Object.fromEntries(await Promise.all(NODES.map(async (n) => [n, await b.flowTable(n)] as const)));
  const db1 = Object.fromEntries(NODES.map((n) => [n, b.dbRecords(n)]));
  const owner = diff(before.node2!, after.node2!);
  const other = diff(before.node1!, after.node1!);
  const dbOwner = db1.node2! - db0.node2!;
  const dbOther = db1.node1! - db0.node1!;
  const nOther = ipsOn('node1').length;
  row(`${name}: ${members.length} member(s), flows on the owner (node2)`, total(owner), 'flows', fmt(owner));
  row(`${name}: flows on the other node (node1, ${nOther} member(s) there)`, total(other), 'flows', fmt(other));
  row(`${name}: OVSDB writes (conf.db records) on the owner, the other node`, dbOwner + dbOther, 'txns', `node2 ${dbOwner}, node1 ${dbOther}`);
  row(`${name}: create to realized on both nodes`, realizedMs, 'ms');
  await b.kube.request('DELETE', `${EGRESSES}/${name}`);
  await waitFor(`${name}'s flows gone`, async () => {
    const now = await Promise.all(NODES.map((n) => b.flowTable(n)));
    return JSON.stringify(now[0]) === JSON.stringify(before.node1) && JSON.stringify(now[1]) === JSON.stringify(before.node2);
  }, { timeoutMs: 120_000, intervalMs: 200 });
  const db2 = Object.fromEntries(NODES.map((n) => [n, b.dbRecords(n)]));
  costs[name] = { members: members.length, membersOnOther: nOther, flows: { owner, other }, ovsdbWrites: { create: { node2: dbOwner, node1: dbOther }, delete: { node2: db2.node2! - db1.node2!, node1: db2.node1! - db1.node1! } }, realizedMs: Math.round(realizedMs) };
}

async function flows(b: Bench): Promise<void> {
  const [ipOne, ipAll] = [NODE2_IPS[1]!, NODE2_IPS[2]!];
  await egressCost(b, 'bench-eg-one', { first: 'yes' }, ipOne, ['m-0']);
  await egressCost(b, `bench-eg-${MEMBERS}`, { app: 'm' }, ipAll, Array.from({ length: MEMBERS }, (_, i) => `m-${i}`));
}

/** eg-a (app=a) on node2, both members seen from its IP, node1 answering for it no more. */
async function settled(b: Bench, ip: string): Promise<void> {
  await waitFor('eg-a on node2, a1 and a2 seen from its IP, node1 answering for it no more', async () =>
    (await b.getEgress('eg-a')).status?.egressNode === 'node2' && !(await b.proxyEntries('node1')).includes(ip)
    && (await b.seenFromFabric('a1')) === ip && (await b.seenFromFabric('a2')) === ip,
  { timeoutMs: 120_000, intervalMs: 200 });
}

async function throughput(b: Bench, ip: string): Promise<void> {
  await settled(b, ip);
  const nodeIP = b.node('node1').nodeIP;
  if ((await b.seenFromFabric('n1')) !== nodeIP) throw new Error(`n1 is not seen from node1's address ${nodeIP}`);
  const cases = [
    { key: 'member on node1 (tunnelled to node2, SNATed there)', pod: 'a1' },
    { key: 'member on node2 (SNATed on its own node)', pod: 'a2' },
    { key: "non-member on node1 (its own node's masquerade)", pod: 'n1' },
  ];
  const runs = new Map<string, number[]>(cases.map((c) => [c.key, []]));
  for (let r = 0; r < ROUNDS; r++) {
    // Alternated: each round starts with the next case, so load drift reaches every case alike.
    for (let k = 0; k < cases.length; k++) {
      const c = cases[(r + k) % cases.length]!;
      const bps = await iperf(b.pods.get(c.pod)!.ns, b.st.fabricNetns, FABRIC_HOST);
      runs.get(c.key)!.push(bps / 1e6);
      process.stderr.write(`  round ${r + 1}: ${c.key}: ${(bps / 1e6).toFixed(0)} Mbit/s\n`);
    }
  }
  const ref = median(runs.get(cases[2]!.key)!);
  for (const c of cases) {
    const xs = runs.get(c.key)!;
    row(`iperf3 to the fabric host, ${c.key}, median`, median(xs), 'Mbit/s', `${ROUNDS} x ${IPERF_SECONDS} s: ${xs.map(Math.round).join(', ')}`);
  }
  row('ratio member on node1 (through the egress node) / non-member own-node masquerade', median(runs.get(cases[0]!.key)!) / ref, 'x');
  row('ratio member on node2 (the egress node itself) / non-member own-node masquerade', median(runs.get(cases[1]!.key)!) / ref, 'x');
}

/** Writes node2's Ready condition through the status subresource (read, modify, write; again on a conflict). */
async function setReady(b: Bench, name: string, ready: boolean): Promise<void> {
  type NodeObj = { status?: { conditions?: { type: string }[] } };
  await waitFor(`${name} Ready=${ready}`, async () => {
    const n = await b.kube.request<NodeObj>('GET', `/api/v1/nodes/${name}`);
    const cond = { type: 'Ready', status: ready ? 'True' : 'False', reason: ready ? 'KubeletReady' : 'KubeletNotReady', message: 'the Egress bench', lastTransitionTime: new Date().toISOString() };
    try {
      await b.kube.request('PUT', `/api/v1/nodes/${name}/status`, { ...n, status: { ...n.status, conditions: [...(n.status?.conditions ?? []).filter((c) => c.type !== 'Ready'), cond] } });
      return true;
    } catch (e) {
      if (/409|Conflict/i.test(String((e as Error).message))) return false;
      throw e;
    }
  }, { timeoutMs: 30_000, intervalMs: 100 });
}

/**
 * FAILOVERS rounds of one failover: `fail` takes node2 out (its IP must move to node1), the time
 * is until a1's new connection reaches the fabric server from the egress IP through node1, then
 * `restore` brings node2 back (the IP returns before the next round).
 */
async function failoverRounds(b: Bench, ip: string, label: string, what: string, fail: () => Promise<void>, restore: () => Promise<void>): Promise<void> {
  const times: number[] = [];
  let missed = 0;
  for (let i = 0; i < FAILOVERS; i++) {
    await settled(b, ip);
    const t0 = performance.now();
    await fail();
    try {
      let ms = 0;
      await waitFor('a1 seen from the egress IP through node1', async () => {
        if ((await b.getEgress('eg-a')).status?.egressNode !== 'node1') return false;
        if ((await b.seenFromFabric('a1')) !== ip) return false;
        ms = performance.now() - t0;
        return true;
      }, { timeoutMs: FAILOVER_TIMEOUT_MS, intervalMs: 20 });
      times.push(ms);
      process.stderr.write(`  ${label} ${i + 1}: ${Math.round(ms)} ms\n`);
    } catch (e) {
      missed++;
      process.stderr.write(`  ${label} ${i + 1}: not within ${FAILOVER_TIMEOUT_MS} ms (${(e as Error).message})\n`);
    }
    await restore();
  }
  await settled(b, ip);
  row(`failover, ${what}, p50 of ${times.length}`, median(times), 'ms', times.map(Math.round).join(', '));
  row(`failover, ${what}, p99 of ${times.length}`, pct(times, 0.99), 'ms');
  if (missed) row(`failover, ${what}, not within ${FAILOVER_TIMEOUT_MS / 1000} s`, missed, `of ${FAILOVERS}`);
}

/** node2 NotReady with its agent running (the handover); then Ready again. */
const notReadyFailovers = (b: Bench, ip: string): Promise<void> =>
  failoverRounds(b, ip, 'NotReady', 'owner NotReady, its agent running (the handover)', () => setReady(b, 'node2', false), () => setReady(b, 'node2', true));

/** node2's agent stopped (SIGTERM) or killed (SIGKILL); then started again. */
const failovers = (b: Bench, ip: string, signal: 'SIGTERM' | 'SIGKILL'): Promise<void> =>
  failoverRounds(
    b, ip, signal,
    signal === 'SIGTERM' ? "graceful stop of the owner's agent (SIGTERM)" : "owner's agent killed (SIGKILL; Lease 6 s, renewed every 2 s)",
    async () => { await stopAgent(b.labDir, 'node2', signal); }, async () => { await startAgent(b.labDir, 'node2'); },
  );

async function main(): Promise<void> {
  const started = Date.now();
  const reuse = process.env.BENCH_LAB_DIR;
  const labDir = reuse ?? mkdtempSync(join(tmpdir(), 'switchyard-lab-bench-egress-'));
  const lab = (...args: string[]): string => execFileSync(BIN, ['--lab-dir', labDir, ...args], { encoding: 'utf8', timeout: 600_000 });
  const load0 = loadavg();
  if (!reuse) lab('up', '--nodes', '2');
  let b: Bench | undefined;
  try {
    b = new Bench(labDir, readState(labDir)!);
    await b.setUp();
    if (ONLY.has('flows')) await flows(b);
    const ip = NODE2_IPS[0]!;
    if (ONLY.has('throughput') || ONLY.has('failover') || ONLY.has('notready')) await b.createEgress('eg-a', { app: 'a' }, ip);
    if (ONLY.has('throughput')) await throughput(b, ip);
    if (ONLY.has('failover')) {
      await failovers(b, ip, 'SIGTERM');
      await failovers(b, ip, 'SIGKILL');
    }
    if (ONLY.has('notready')) await notReadyFailovers(b, ip);
  } finally {
    b?.tearDown();
    if (!reuse) {
      lab('down');
      rmSync(labDir, { recursive: true, force: true });
    }
  }
  printRows(rows);
  const load = loadAverages(load0);
  const setup = `2-node encap lab (Geneve), OVS userspace datapath; Egress IPs owned by node2; ${MEMBERS} members for the flow cost; iperf3 ${ROUNDS} rounds x ${IPERF_SECONDS} s; ${FAILOVERS} failovers per kind (agent stopped, killed, Node NotReady)`;
  // A run of some parts (BENCH_ONLY) leaves the committed figures alone.
  const out = process.env.BENCH_ONLY ? join(tmpdir(), 'egress-results.partial.json') : join(ROOT, 'bench/egress-results.json');
  process.stdout.write(`written to ${out}\n`);
  writeFileSync(out, `${JSON.stringify({ date: new Date().toISOString(), seconds: Math.round((Date.now() - started) / 1000), loadavg: load, setup, rows, costs }, null, 2)}\n`);
}

void main().catch((e: unknown) => {
  process.stderr.write(`bench failed: ${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
