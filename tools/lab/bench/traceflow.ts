// Traceflow benchmark (not run by CI: `npm run bench:traceflow -w @switchyard/lab`, as root). In a
// 2-node encap lab: the time from starting `yardctl traceflow` (a new Node process, as a user runs
// it) to its printed result for an inter-node TCP trace, BENCH_TRACES times one after another; the
// reference in the same run is `ovs-appctl ofproto/trace` of the same packet on the source node
// (one node's pipeline, simulated: what a user reads instead today). Also the trace flows each
// node holds while idle and while one Traceflow runs. Prints a table and writes
// bench/traceflow-results.json.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import YAML from 'yaml';
import { run, waitFor } from '@switchyard/testbed';
import { labClient, readState, type LabState } from '../src/index';
import { NETNS_ANNOTATION } from '../src/kubelet';
import { median } from './iperf';

const ROOT = process.cwd();
const BIN = join(ROOT, 'bin/switchyard-lab');
const YARDCTL = join(ROOT, '../../packages/cli/dist/bin.js');
const TRACES = Number(process.env.BENCH_TRACES ?? '20');
const execFileP = promisify(execFile);

interface PodView { metadata: { name: string; annotations?: Record<string, string> }; status?: { podIP?: string } }

const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? 0;
const round1 = (x: number): number => Math.round(x * 10) / 10;

/** Traceflow-cookie flows (category 7) on a node's br-int. */
async function traceFlowCount(labDir: string, node: string): Promise<number> {
  const conf = YAML.parse(readFileSync(join(labDir, node, 'antrea-agent.conf'), 'utf8')) as { ovsRunDir: string };
  const out = (await run(['ovs-ofctl', '-O', 'OpenFlow15', 'dump-flows', join(conf.ovsRunDir, 'br-int.mgmt')])).stdout;
  return [...out.matchAll(/cookie=(0x[0-9a-f]+)/g)].filter((m) => ((BigInt(m[1]!) >> 40n) & 0xffn) === 7n).length;
}

async function pods(st: LabState): Promise<Map<string, PodView>> {
  const kube = labClient(st);
  for (const [name, node] of [['a', 'node1'], ['b', 'node2']] as const) {
    await kube.request('POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { nodeName: node, containers: [{ name: 'c', image: 'x', ports: [{ containerPort: 80 }] }] } });
  }
  const out = new Map<string, PodView>();
  await waitFor('pods with an IP', async () => {
    for (const p of (await kube.request<{ items: PodView[] }>('GET', '/api/v1/namespaces/default/pods')).items) out.set(p.metadata.name, p);
    return ['a', 'b'].every((n) => out.get(n)?.status?.podIP && out.get(n)?.metadata.annotations?.[NETNS_ANNOTATION]);
  }, { timeoutMs: 60_000, intervalMs: 200 });
  return out;
}

async function main(): Promise<void> {
  const started = Date.now();
  const labDir = mkdtempSync(join(tmpdir(), 'switchyard-lab-bench-tf-'));
  const lab = (...a: string[]): string => execFileSync(BIN, ['--lab-dir', labDir, ...a], { encoding: 'utf8', timeout: 600_000 });
  lab('up', '--nodes', '2');
  try {
    const st = readState(labDir)!;
    const p = await pods(st);
    const [a, b] = [p.get('a')!, p.get('b')!];
    const idle = [await traceFlowCount(labDir, 'node1'), await traceFlowCount(labDir, 'node2')];
    const yardctl: number[] = [];
    const ofproto: number[] = [];
    const inProcess: number[] = [];
    let during: number[] = [];
    const n1 = st.nodes[0]!;
    const aPort = await podOfport(labDir, 'a');
    const aMac = await podMac(a);
    for (let i = 0; i < TRACES; i++) {
      const t0 = performance.now();
      const child = execFileP(process.execPath, [YARDCTL, '--kubeconfig', st.kubeconfig, 'traceflow', '-S', 'default/a', '-D', 'default/b', '-f', 'tcp,tcp_dst=80', '-o', 'json'], { encoding: 'utf8', timeout: 60_000 });
      if (i === 0) {
        await waitFor('trace flows on both nodes', async () => (await traceFlowCount(labDir, 'node1')) > 0 && (await traceFlowCount(labDir, 'node2')) > 0, { timeoutMs: 20_000, intervalMs: 20 }).catch(() => undefined);
        during = [await traceFlowCount(labDir, 'node1'), await traceFlowCount(labDir, 'node2')];
      }
      const r = await child;
      yardctl.push(performance.now() - t0);
      if (!r.stdout.includes('"Succeeded"')) throw new Error(`trace ${i} did not succeed: ${r.stdout}`);
      // The reference: one node's pipeline simulated for the same packet.
      const t1 = performance.now();
      await run(['ovs-appctl', '-t', n1.vswitchdCtl, 'ofproto/trace', 'br-int', `tcp,in_port=${aPort},dl_src=${aMac},dl_dst=00:00:00:00:00:00,nw_src=${a.status!.podIP},nw_dst=${b.status!.podIP},tp_dst=80`]);
      ofproto.push(performance.now() - t1);
      // The Traceflow alone, without yardctl's start: created over the API, read every 10 ms until Succeeded.
      inProcess.push(await traceOverApi(st, i));
    }
    const rows = [
      { metric: `yardctl traceflow a (node1) -> b (node2), tcp 80, start to printed result, p50 of ${TRACES}`, value: round1(median(yardctl)), unit: 'ms', p90: round1(pct(yardctl, 0.9)) },
      { metric: `the Traceflow alone: created over the API to Succeeded read back (10 ms polls), p50 of ${TRACES}`, value: round1(median(inProcess)), unit: 'ms', p90: round1(pct(inProcess, 0.9)) },
      { metric: 'yardctl start alone: `yardctl --help`, p50 of 5', value: round1(median(await cliStarts(5))), unit: 'ms', p90: 0 },
      { metric: `reference: ovs-appctl ofproto/trace of the same packet on node1, p50 of ${TRACES}`, value: round1(median(ofproto)), unit: 'ms', p90: round1(pct(ofproto, 0.9)) },
      { metric: 'ratio yardctl traceflow / ofproto/trace (p50)', value: Math.round((median(yardctl) / median(ofproto)) * 10) / 10, unit: 'x', p90: 0 },
      { metric: 'trace flows per node while idle (node1, node2)', value: idle[0]! + idle[1]!, unit: 'flows', p90: 0, detail: idle },
      { metric: 'trace flows per node while one Traceflow runs (node1, node2)', value: Math.max(...during), unit: 'flows', p90: 0, detail: during },
    ];
    const w = Math.max(...rows.map((r) => r.metric.length));
    process.stdout.write(`\n${'metric'.padEnd(w)}  ${'value'.padStart(8)}  unit    p90\n`);
    for (const r of rows) process.stdout.write(`${r.metric.padEnd(w)}  ${String(r.value).padStart(8)}  ${r.unit.padEnd(6)}  ${r.p90 || ''}${'detail' in r ? ` ${JSON.stringify(r.detail)}` : ''}\n`);
    const setup = `2-node encap lab, OVS userspace datapath, yardctl as a new Node process per trace (its start included), traces one after another`;
    writeFileSync(join(ROOT, 'bench/traceflow-results.json'), `${JSON.stringify({ date: new Date().toISOString(), seconds: Math.round((Date.now() - started) / 1000), setup, rows }, null, 2)}\n`);
  } finally {
    lab('down');
    rmSync(labDir, { recursive: true, force: true });
  }
}

/** One Traceflow a -> b created through the API (as yardctl creates it) until it reads back Succeeded; ms. */
async function traceOverApi(st: LabState, i: number): Promise<number> {
  const kube = labClient(st);
  const name = `bench-${i}`;
  const path = '/apis/crd.antrea.io/v1beta1/traceflows';
  const t0 = performance.now();
  await kube.request('POST', path, { apiVersion: 'crd.antrea.io/v1beta1', kind: 'Traceflow', metadata: { name }, spec: { source: { namespace: 'default', pod: 'a' }, destination: { namespace: 'default', pod: 'b' }, packet: { ipHeader: { protocol: 6 }, transportHeader: { tcp: { dstPort: 80 } } } } });
  let ms = 0;
  await waitFor(`${name} Succeeded`, async () => {
    const tf = await kube.request<{ status?: { phase?: string } }>('GET', `${path}/${name}`);
    ms = performance.now() - t0;
    return tf.status?.phase === 'Succeeded';
  }, { timeoutMs: 30_000, intervalMs: 10 });
  await kube.request('DELETE', `${path}/${name}`);
  return ms;
}

/** `yardctl --help` n times: the CLI's own start (Node, its modules, @kubernetes/client-node). */
async function cliStarts(n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await execFileP(process.execPath, [YARDCTL, '--help'], { encoding: 'utf8' });
    out.push(performance.now() - t0);
  }
  return out;
}

/** A lab pod's OVS port number (its interface is named after the pod, as the agent names it). */
async function podOfport(labDir: string, pod: string): Promise<string> {
  const st = readState(labDir)!;
  const out = (await run(['ovs-vsctl', '--db', st.nodes[0]!.dbRemote, '--bare', '--columns', 'ofport,external_ids', 'find', 'interface', `external_ids:pod-name=${pod}`])).stdout;
  return out.trim().split(/\s+/)[0] ?? '';
}

/** A pod's MAC (from its netns). */
async function podMac(p: PodView): Promise<string> {
  const out = (await run(['ip', 'netns', 'exec', p.metadata.annotations![NETNS_ANNOTATION]!, 'cat', '/sys/class/net/eth0/address'])).stdout;
  return out.trim();
}

void main().catch((e: unknown) => {
  process.stderr.write(`bench failed: ${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
