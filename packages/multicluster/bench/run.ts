// Benchmark (not run in CI), two parts:
// 1. convergence: three embedded API servers (leader north, members west and east) with the real
//    reconcilers in this process; 100 Services exported from west one at a time, each timed from
//    the ServiceExport create until east has Endpoints antrea-mc-<name> (p50, p90 and max: with
//    100 samples a p99 would be one sample from the max, so the max is reported as such);
// 2. leader load: the switchyard-mc-controller binary in leader mode (its own process, so its CPU
//    and RSS are its own, read from /proc) against an embedded API server, and 10 simulated members
//    writing 1,000 ResourceExports each through the client (the shapes the member reconciler
//    writes, from serviceExportPlan): time until every ResourceImport holds all members'
//    endpoints, the leader's CPU time and RSS.
// Needs the built binary (`npm run build`) and kubectl. `BENCH_SERVICES=20 BENCH_MEMBERS=2
// BENCH_EXPORTS=100 npm run bench` scales it down.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import type { Endpoints, Service } from '@switchyard/apis';
import { loadCrds } from '@switchyard/apis';
import { Informer, KubeConfigClient, type KubeObject } from '@switchyard/kube';
import { startKubeApi } from '@switchyard/kube-api';
import { serviceExportPlan } from '../src';
import { CLUSTERSET, LEADER_ID, LEADER_NS, leaderController, memberClusterSet, memberController, startClusterSet } from '../test-integration/support';

const here = dirname(fileURLToPath(import.meta.url));
const SERVICES = Number(process.env['BENCH_SERVICES'] ?? 100);
const MEMBERS = Number(process.env['BENCH_MEMBERS'] ?? 10);
const EXPORTS = Number(process.env['BENCH_EXPORTS'] ?? 1000);

/** Nearest-rank percentile: the smallest sample with at least `p` of the samples at or below it. */
const percentile = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil(xs.length * p) - 1)] as number;
const ms = (n: number): string => `${n.toFixed(n < 10 ? 1 : 0)} ms`;

interface Row {
  case: string;
  n: number;
  value: string;
}

async function withTimeout<T>(p: Promise<T>, msg: string, timeoutMs = 30_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(msg)), timeoutMs)));
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/** Part 1: export -> import latency across three API servers, one Service at a time. */
async function convergence(rows: Row[]): Promise<void> {
  const env = await startClusterSet();
  await env.west.kubectl.apply(memberClusterSet('test-cluster-west', env.leader.api.url));
  await env.east.kubectl.apply(memberClusterSet('test-cluster-east', env.leader.api.url));
  const leader = leaderController(env);
  const west = memberController(env.west);
  const east = memberController(env.east);
  await Promise.all([leader.start(), west.start(), east.start()]);
  const arrived = new Map<string, () => void>();
  const seen = new Informer(
    env.east.kube,
    { group: '', version: 'v1', plural: 'endpoints', kind: 'Endpoints', namespaced: true },
    (e) => {
      if (e.type !== 'DELETED') arrived.get(e.object.metadata.name ?? '')?.();
    },
    { namespace: 'default' },
  );
  seen.start();
  await seen.synced;
  try {
    const objs: KubeObject[] = [];
    for (let i = 0; i < SERVICES; i++) {
      objs.push(
        { apiVersion: 'v1', kind: 'Service', metadata: { name: `svc-${i}`, namespace: 'default' }, spec: { ports: [{ name: 'http', port: 80, protocol: 'TCP' }] } },
        { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: `svc-${i}`, namespace: 'default' }, subsets: [{ addresses: [{ ip: `10.10.${i >> 8}.${i & 255}` }], ports: [{ name: 'http', port: 80, protocol: 'TCP' }] }] },
      );
    }
    for (const o of objs) await env.west.kube.request('POST', `/api/v1/namespaces/default/${o.kind === 'Service' ? 'services' : 'endpoints'}`, o);
    const latencies: number[] = [];
    for (let i = 0; i < SERVICES; i++) {
      const name = `antrea-mc-svc-${i}`;
      const done = new Promise<void>((r) => arrived.set(name, r));
      const t0 = performance.now();
      await env.west.kube.request('POST', '/apis/multicluster.x-k8s.io/v1alpha1/namespaces/default/serviceexports', { apiVersion: 'multicluster.x-k8s.io/v1alpha1', kind: 'ServiceExport', metadata: { name: `svc-${i}`, namespace: 'default' } });
      await withTimeout(done, `svc-${i} was not imported in east within 30 s`);
      latencies.push(performance.now() - t0);
      arrived.delete(name);
    }
    rows.push({ case: 'ServiceExport in west -> Endpoints antrea-mc-<name> in east, p50', n: SERVICES, value: ms(percentile(latencies, 0.5)) });
    rows.push({ case: 'ServiceExport in west -> Endpoints antrea-mc-<name> in east, p90', n: SERVICES, value: ms(percentile(latencies, 0.9)) });
    rows.push({ case: 'ServiceExport in west -> Endpoints antrea-mc-<name> in east, max', n: SERVICES, value: ms(Math.max(...latencies)) });
  } finally {
    await seen.stop();
    await Promise.all([leader.stop(), west.stop(), east.stop()]);
    await env.stop();
  }
}

/** utime+stime (ms) and RSS / peak RSS (MiB) of a process, from /proc. */
function procStats(pid: number): { cpuMs: number; rssMiB: number; hwmMiB: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string): number => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { cpuMs: (ticks * 1000) / 100, rssMiB: kb('VmRSS') / 1024, hwmMiB: kb('VmHWM') / 1024 };
}

/** Part 2: the leader binary under 10 simulated members x 1,000 ResourceExports. */
async function leaderLoad(rows: Row[]): Promise<void> {
  const api = await startKubeApi({ crds: loadCrds() as unknown as KubeObject[] });
  const kc = new KubeConfig();
  kc.loadFromFile(api.kubeconfigPath);
  const kube = new KubeConfigClient(kc);
  await kube.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: LEADER_NS } });
  await kube.request('POST', `/apis/multicluster.crd.antrea.io/v1alpha2/namespaces/${LEADER_NS}/clustersets`, { apiVersion: 'multicluster.crd.antrea.io/v1alpha2', kind: 'ClusterSet', metadata: { name: CLUSTERSET, namespace: LEADER_NS }, spec: { clusterID: LEADER_ID, leaders: [{ clusterID: LEADER_ID }] } });
  const child = spawn(process.execPath, [join(here, '../bin/switchyard-mc-controller.js'), '--mode', 'leader', '--kubeconfig', api.kubeconfigPath, '--namespace', LEADER_NS, '--log-level', 'warn'], { stdio: ['ignore', 'ignore', 'inherit'] });
  const pid = child.pid as number;
  try {
    await new Promise((r) => setTimeout(r, 2000)); // start-up, not measured
    const idle = procStats(pid);
    // Each member exports EXPORTS/2 Services (a -service and an -endpoints ResourceExport each); all
    // members export the same Services, so the leader merges MEMBERS clusters' endpoints per import.
    const services = Math.max(1, Math.floor(EXPORTS / 2));
    const t0 = performance.now();
    const writes: Promise<unknown>[] = [];
    const queue: (() => Promise<unknown>)[] = [];
    for (let m = 0; m < MEMBERS; m++) {
      const clusterID = `member-${m}`;
      queue.push(() => kube.request('POST', `/apis/multicluster.crd.antrea.io/v1alpha1/namespaces/${LEADER_NS}/memberclusterannounces`, { apiVersion: 'multicluster.crd.antrea.io/v1alpha1', kind: 'MemberClusterAnnounce', metadata: { name: `member-announce-from-${clusterID}`, namespace: LEADER_NS }, clusterID, clusterSetID: CLUSTERSET, leaderClusterID: LEADER_ID }));
      const svc = (ns: string, name: string): Service => ({ metadata: { name, namespace: ns }, spec: { clusterIP: `10.${100 + m}.0.${Number(name.slice(4)) % 250}`, ports: [{ name: 'http', port: 80, protocol: 'TCP' }] } });
      const eps = (ns: string, name: string): Endpoints => ({ metadata: { name, namespace: ns }, subsets: [{ addresses: [{ ip: `10.${100 + m}.1.${Number(name.slice(4)) % 250}` }], ports: [{ name: 'http', port: 80, protocol: 'TCP' }] }] });
      const plan = serviceExportPlan({ clusterID, leaderNamespace: LEADER_NS, endpointIPType: 'ClusterIP', serviceExports: Array.from({ length: services }, (_, i) => ({ metadata: { name: `svc-${i}`, namespace: 'default' } })), service: svc, endpoints: eps, now: new Date().toISOString() });
      for (const re of plan.resourceExports) queue.push(() => kube.request('POST', `/apis/multicluster.crd.antrea.io/v1alpha1/namespaces/${LEADER_NS}/resourceexports`, { apiVersion: 'multicluster.crd.antrea.io/v1alpha1', kind: 'ResourceExport', ...re }));
    }
    const total = queue.length - MEMBERS;
    for (let w = 0; w < 16; w++) writes.push((async () => {
      for (let job = queue.shift(); job; job = queue.shift()) await job();
    })());
    await Promise.all(writes);
    const written = performance.now() - t0;
    // Converged: every endpoints import lists all members' addresses.
    for (;;) {
      const list = await kube.request<{ items: { spec?: { kind?: string; endpoints?: { subsets?: { addresses?: unknown[] }[] } } }[] }>('GET', `/apis/multicluster.crd.antrea.io/v1alpha1/namespaces/${LEADER_NS}/resourceimports`);
      const full = list.items.filter((ri) => ri.spec?.kind === 'Endpoints' && (ri.spec.endpoints?.subsets ?? []).reduce((n, s) => n + (s.addresses?.length ?? 0), 0) === MEMBERS).length;
      if (full === services) break;
      if (performance.now() - t0 > 600_000) throw new Error(`not converged after 10 min: ${full}/${services} endpoints imports complete`);
      await new Promise((r) => setTimeout(r, 500));
    }
    const converged = performance.now() - t0;
    const atImports = procStats(pid);
    // Settled: the leader has also written every ResourceExport's Ready condition.
    for (;;) {
      const list = await kube.request<{ items: { status?: { conditions?: { type?: string }[] } }[] }>('GET', `/apis/multicluster.crd.antrea.io/v1alpha1/namespaces/${LEADER_NS}/resourceexports`);
      if (list.items.every((re) => re.status?.conditions?.some((c) => c.type === 'Ready'))) break;
      if (performance.now() - t0 > 900_000) throw new Error('ResourceExport statuses not all written after 15 min');
      await new Promise((r) => setTimeout(r, 500));
    }
    const settled = performance.now() - t0;
    const busy = procStats(pid);
    await new Promise((r) => setTimeout(r, 10_000));
    const after = procStats(pid);
    const label = `${MEMBERS} members x ${EXPORTS} ResourceExports`;
    rows.push({ case: `${label}: all written (16 concurrent clients)`, n: total, value: ms(written) });
    rows.push({ case: `${label}: first write -> every import has all members' endpoints`, n: total, value: ms(converged) });
    rows.push({ case: `${label}: first write -> every ResourceExport has its Ready status (settled)`, n: total, value: ms(settled) });
    rows.push({ case: 'leader CPU time from first write to imports converged', n: total, value: ms(atImports.cpuMs - idle.cpuMs) });
    rows.push({ case: 'leader CPU time from first write to settled', n: total, value: ms(busy.cpuMs - idle.cpuMs) });
    rows.push({ case: 'leader CPU over the 10 s after settling (idle cost)', n: 1, value: ms(after.cpuMs - busy.cpuMs) });
    rows.push({ case: 'leader RSS before the load', n: 1, value: `${idle.rssMiB.toFixed(0)} MiB` });
    rows.push({ case: 'leader peak RSS (VmHWM)', n: 1, value: `${after.hwmMiB.toFixed(0)} MiB` });
    rows.push({ case: 'leader RSS 10 s after settling', n: 1, value: `${after.rssMiB.toFixed(0)} MiB` });
  } finally {
    await new Promise<void>((r) => {
      if (child.exitCode !== null) return r();
      child.once('exit', () => r());
      child.kill('SIGTERM');
    });
    await api.stop();
  }
}

async function main(): Promise<void> {
  const rows: Row[] = [];
  await convergence(rows);
  await leaderLoad(rows);
  console.table(rows);
  writeFileSync(
    join(here, 'results.json'),
    `${JSON.stringify(
      {
        node: process.version,
        date: new Date().toISOString(),
        setup: 'convergence: three tools/kube-api servers and the leader/member reconcilers in one process; leader load: switchyard-mc-controller --mode leader as its own process, one tools/kube-api server in the bench process, simulated members writing through the client',
        rows,
      },
      null,
      2,
    )}\n`,
  );
}

void main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
