// Benchmark: the switchyard-agent program's resident memory, started as the lab starts it (node
// --enable-source-maps dist/agent-cli.js, a kubeconfig to an API server), with the issue-32 load on
// one node: 110 pods attached through the native plugin, a 1,000-rule policy applied to one of them
// (from the policy cache, as after a restart), and 100 Services of 10 endpoints each. Variants
// (program dir x node flags) run interleaved, each on a fresh OVS; RSS and the agent's CPU time
// are read once its flows have stopped changing. Not run in CI. `npx tsx bench/rss.ts`.
//
// BENCH_RSS_VARIANTS: JSON [{ name, dir, node }] (dir: a built dist/, node: the node flags);
// default: dist/ as bin/switchyard-agent.js starts it, with no flags, and with source maps.
// Writes bench/rss.results.json unless BENCH_RSS_VARIANTS is set. BENCH_RSS_ROUNDS (3), BENCH_RSS_PODS (110).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import { loadCrds } from '@switchyard/apis';
import { KubeConfigClient } from '@switchyard/kube';
import { startKubeApi, type KubeApiServer } from '@switchyard/kube-api';
import { Testbed } from '@switchyard/testbed';

const HERE = new URL('.', import.meta.url).pathname;
const DIST = join(HERE, '..', 'dist');
interface Variant {
  name: string;
  dir: string;
  node: string[];
}
const VARIANTS: Variant[] = process.env.BENCH_RSS_VARIANTS
  ? (JSON.parse(process.env.BENCH_RSS_VARIANTS) as Variant[])
  : [
      { name: 'agent, --max-semi-space-size=4 --heap-growing-percent=50 (as bin/switchyard-agent.js and the lab start it)', dir: DIST, node: ['--max-semi-space-size=4', '--heap-growing-percent=50'] },
      { name: 'agent, --max-semi-space-size=1 --heap-growing-percent=50 (the bin before the young generation went to 4 MiB)', dir: DIST, node: ['--max-semi-space-size=1', '--heap-growing-percent=50'] },
      { name: 'agent, no flags', dir: DIST, node: [] },
      { name: 'agent, --enable-source-maps (the lab before issue 32)', dir: DIST, node: ['--enable-source-maps'] },
    ];
const ROUNDS = Number(process.env.BENCH_RSS_ROUNDS ?? 3);
const PODS = Number(process.env.BENCH_RSS_PODS ?? 110);
const SERVICES = 100;
const ENDPOINTS = 10;
const RULES = 1000;
const r1 = (x: number): number => Math.round(x * 10) / 10;
/** Seconds idle after realization before the last RSS reading. */
const IDLE_S = Number(process.env.BENCH_RSS_IDLE_S ?? 30);
/** BENCH_RSS_SNAPSHOT_DIR: write a heap snapshot of each run there (the agent runs with --heapsnapshot-signal=SIGUSR2). */
const SNAPSHOT_DIR = process.env.BENCH_RSS_SNAPSHOT_DIR;

/** Asks the agent for a heap snapshot (written in its cwd, SNAPSHOT_DIR) and waits until the file is whole. */
async function heapSnapshot(pid: number, label: string): Promise<void> {
  const before = new Set(readdirSync(SNAPSHOT_DIR!));
  process.kill(pid, 'SIGUSR2');
  for (let i = 0; i < 600; i++) {
    await sleep(500);
    const f = readdirSync(SNAPSHOT_DIR!).find((n) => n.endsWith('.heapsnapshot') && !before.has(n));
    if (f && readFileSync(join(SNAPSHOT_DIR!, f), 'utf8').trimEnd().endsWith('}')) {
      renameSync(join(SNAPSHOT_DIR!, f), join(SNAPSHOT_DIR!, `${label}-${pid}.heapsnapshot`));
      return;
    }
  }
  throw new Error('no heap snapshot');
}

/** The 1,000-rule policy applied to pod-0 (the first address of the pod CIDR after the gateway), as a policy cache. */
function policyCache(podIp: string): string {
  const rules = Array.from({ length: RULES }, (_, i) => ({
    direction: 'In',
    from: { addressGroups: [], ipBlocks: [{ cidr: `10.${200 + (i >> 16)}.${(i >> 8) & 0xff}.${i & 0xff}/32`, except: [] }] },
    to: { addressGroups: [], ipBlocks: [] },
    services: [{ protocol: 'TCP', port: 10000 + i }],
    action: 'Allow',
    priority: i,
    enableLogging: false,
  }));
  const policy = {
    uid: 'bench-acnp', name: 'bench', namespace: '', generation: 1, priority: 5, tierPriority: 250, appliedToGroups: ['bench-atg'],
    sourceRef: { type: 'AntreaClusterNetworkPolicy', namespace: '', name: 'bench', uid: 'bench-acnp' },
    rules,
  };
  return JSON.stringify({ resourceVersion: '1', policies: [policy], addressGroups: [], appliedToGroups: [{ name: 'bench-atg', groupMembers: [{ pod: { name: 'pod-0', namespace: 'bench' }, ips: [podIp] }] }] });
}

/** 100 selector-less Services with an EndpointSlice of 10 endpoints each. */
async function createServices(api: KubeApiServer): Promise<void> {
  const { KubeConfig } = await import('@kubernetes/client-node');
  const kc = new KubeConfig();
  kc.loadFromFile(api.kubeconfigPath);
  const kube = new KubeConfigClient(kc);
  for (let i = 0; i < SERVICES; i++) {
    await kube.request('POST', '/api/v1/namespaces/default/services', { apiVersion: 'v1', kind: 'Service', metadata: { name: `fill-${i}`, namespace: 'default' }, spec: { ports: [{ name: 'http', protocol: 'TCP', port: 80 + (i % 50), targetPort: 8080 }] } });
    await kube.request('POST', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices', {
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: `fill-${i}-1`, namespace: 'default', labels: { 'kubernetes.io/service-name': `fill-${i}` } },
      addressType: 'IPv4',
      ports: [{ name: 'http', protocol: 'TCP', port: 8080 }],
      endpoints: Array.from({ length: ENDPOINTS }, (_, j) => ({ addresses: [`10.150.${i}.${j + 2}`], conditions: { ready: true, serving: true, terminating: false } })),
    });
  }
}

const apiGet = (socketPath: string, path: string): Promise<unknown> =>
  new Promise((resolve, reject) => {
    const req = request({ socketPath, path }, (res) => {
      let d = '';
      res.on('data', (c: Buffer) => (d += c.toString()));
      res.on('end', () => {
        try {
          resolve(JSON.parse(d));
        } catch (e) {
          reject(e as Error);
        }
      });
    });
    req.on('error', reject);
    req.end();
  });

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function exec(argv: string[], env: NodeJS.ProcessEnv, input: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const c = spawn(argv[0]!, argv.slice(1), { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    c.stdout.on('data', (d: Buffer) => (out += d.toString()));
    c.stderr.on('data', (d: Buffer) => (out += d.toString()));
    c.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${argv.join(' ')}: exit ${code}: ${out}`))));
    c.stdin.end(input);
  });
}

/** VmRSS (MiB) and user+system CPU (ms) of a process. */
function usage(pid: number): { rssMiB: number; cpuMs: number } {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return { rssMiB: r1(kb / 1024), cpuMs: (Number(stat[11]) + Number(stat[12])) * 10 };
}

async function runOnce(v: Variant, api: KubeApiServer, kubeconfig: string): Promise<Record<string, number>> {
  const tb = await Testbed.create();
  const dir = mkdtempSync(join(tmpdir(), 'sy-agent-rss-'));
  let agent: ChildProcess | undefined;
  try {
    const ovs = await tb.startOvs();
    const sandboxes = [];
    for (let i = 0; i < PODS; i++) sandboxes.push(await tb.createNetns('b'));
    const dataDir = join(dir, 'data');
    mkdirSync(dataDir);
    writeFileSync(join(dataDir, 'policy-cache.json'), policyCache('10.100.0.2'));
    const cniSocket = join(dir, 'cni.sock');
    const apiSocket = join(dir, 'agent.sock');
    const conf = join(dir, 'antrea-agent.conf');
    writeFileSync(conf, YAML.stringify({ ovsBridge: 'br-int', ovsDatapathType: 'netdev', ovsRunDir: ovs.dir, hostGateway: 'sy-gw0', tunnelType: 'geneve', cniSocket, apiPort: 0 }));
    const argv = ['--config', conf, '--node-name', 'bench', '--pod-cidr', '10.100.0.0/16', '--node-ip', '192.168.1.1', '--data-dir', dataDir, '--node-netns', ovs.netns.name, '--api-socket', apiSocket, '--ovsdb', ovs.dbRemote];
    const snap = SNAPSHOT_DIR ? ['--heapsnapshot-signal=SIGUSR2'] : [];
    agent = spawn(process.execPath, [...v.node, ...snap, join(v.dir, 'agent-cli.js'), ...argv], {
      env: { ...process.env, KUBECONFIG: kubeconfig },
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(SNAPSHOT_DIR ? { cwd: SNAPSHOT_DIR } : {}),
    });
    let log = '';
    agent.stdout!.on('data', (d: Buffer) => (log += d.toString()));
    agent.stderr!.on('data', (d: Buffer) => (log += d.toString()));
    const t0 = Date.now();
    while (!log.includes('"agent ready"')) {
      if (agent.exitCode !== null || Date.now() - t0 > 60_000) throw new Error(`agent did not start: ${log.slice(-2000)}`);
      await sleep(100);
    }
    const ready = usage(agent.pid!);
    const plugin = join(v.dir, 'switchyard-cni-native');
    const netconf = JSON.stringify({ cniVersion: '1.0.0', name: 'switchyard', type: 'switchyard-cni', cniSocket });
    for (let i = 0; i < PODS; i++) {
      const out = await exec([plugin], { PATH: process.env.PATH ?? '/usr/bin:/bin', CNI_COMMAND: 'ADD', CNI_CONTAINERID: `rss${i}`, CNI_NETNS: sandboxes[i]!.path, CNI_IFNAME: 'eth0', CNI_ARGS: `K8S_POD_NAMESPACE=bench;K8S_POD_NAME=pod-${i}` }, netconf);
      if (i === 0 && !out.includes('"10.100.0.2/16"')) throw new Error(`pod-0 is not 10.100.0.2, the policy cache's member: ${out}`);
    }
    // Realized: the flows have not changed for 3 s (the Services' groups and the rules are in).
    let last = -1;
    let stable = 0;
    while (stable < 3) {
      const n = ((await apiGet(apiSocket, '/ovsflows')) as string[]).length;
      stable = n === last ? stable + 1 : 0;
      last = n;
      await sleep(1000);
    }
    const flows = (await apiGet(apiSocket, '/ovsflows')) as string[];
    const groups = flows.filter((f) => f.includes('group:')).length;
    const done = usage(agent.pid!);
    // An agent idles most of its life: V8 gives pages back only after its memory reducer's GCs.
    await sleep(IDLE_S * 1000);
    const idle = usage(agent.pid!);
    if (SNAPSHOT_DIR) await heapSnapshot(agent.pid!, `${v.name.replace(/[^a-z0-9]+/gi, '-')}`);
    return { rssReadyMiB: ready.rssMiB, rssMiB: done.rssMiB, rssIdleMiB: idle.rssMiB, cpuMs: done.cpuMs, flows: flows.length, flowsToGroups: groups };
  } finally {
    if (agent && agent.exitCode === null) {
      agent.kill('SIGTERM');
      await new Promise((r) => agent!.once('exit', r));
    }
    await tb.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  for (const v of VARIANTS) if (!existsSync(join(v.dir, 'agent-cli.js'))) throw new Error(`${v.dir}/agent-cli.js is not built`);
  const api = await startKubeApi({ crds: loadCrds() as never });
  const kcDir = mkdtempSync(join(tmpdir(), 'sy-agent-rss-kc-'));
  try {
    const kubeconfig = api.writeKubeconfig(join(kcDir, 'kubeconfig'));
    await createServices(api);
    const results: { variant: string; round: number; load: number[]; figures: Record<string, number> }[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      for (const v of VARIANTS) {
        const figures = await runOnce(v, api, kubeconfig);
        const load = loadavg().map(r1);
        results.push({ variant: v.name, round, load, figures });
        console.error(`${v.name} (round ${round}, load ${load.join(' ')}): ${JSON.stringify(figures)}`);
      }
    }
    console.log(`| variant | RSS at ready MiB | RSS realized MiB | RSS after ${IDLE_S} s idle MiB | agent CPU ms to realized |\n|---|---|---|---|---|`);
    for (const v of VARIANTS) {
      const mine = results.filter((r) => r.variant === v.name);
      const col = (k: string): string => mine.map((r) => r.figures[k]).join(', ');
      console.log(`| ${v.name} | ${col('rssReadyMiB')} | ${col('rssMiB')} | ${col('rssIdleMiB')} | ${col('cpuMs')} |`);
    }
    const out = { date: new Date().toISOString(), node: process.version, pods: PODS, services: SERVICES, endpoints: ENDPOINTS, rules: RULES, idleSeconds: IDLE_S, results };
    console.log(JSON.stringify(out, null, 2));
    if (!process.env.BENCH_RSS_VARIANTS) writeFileSync(join(HERE, 'rss.results.json'), `${JSON.stringify(out, null, 2)}\n`);
  } finally {
    await api.stop();
    rmSync(kcDir, { recursive: true, force: true });
  }
}

void main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
