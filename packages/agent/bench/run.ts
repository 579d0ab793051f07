// Benchmark: CNI ADD latency through the real switchyard-cni binary and the agent on a real OVS
// (userspace datapath), side by side with Debian's bridge + host-local plugins exec'd the same
// way; the floor of starting `node` itself; agent RSS with 100 pods. Not run in CI.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { loadCrds } from '@switchyard/apis';
import { KubeConfigClient } from '@switchyard/kube';
import { startKubeApi } from '@switchyard/kube-api';
import { Testbed, run, type Netns, type OvsInstance } from '@switchyard/testbed';
import { Agent } from '../src/index';

const HERE = new URL('.', import.meta.url).pathname;
const PLUGIN = join(HERE, '..', 'dist', 'switchyard-cni.js');
const NATIVE_PLUGIN = join(HERE, '..', 'dist', 'switchyard-cni-native');
/** The plugin exec'd per pod: the native one (what the DaemonSet installs) unless BENCH_PLUGIN=node or it was not built. */
const useNode = process.env.BENCH_PLUGIN === 'node' || !existsSync(NATIVE_PLUGIN);
const PLUGIN_ARGV = useNode ? ['node', PLUGIN] : [NATIVE_PLUGIN];
const PLUGIN_NAME = useNode ? 'Node.js plugin' : 'native plugin';
/** The agent's netns helper as the built agent finds it (dist/), unless BENCH_NETNS_HELPER=0 or it was not built. */
const NETNS_HELPER = join(HERE, '..', 'dist', 'switchyard-netns');
const netnsHelper: string | false = process.env.BENCH_NETNS_HELPER !== '0' && existsSync(NETNS_HELPER) ? NETNS_HELPER : false;
const REF_DIR = '/usr/lib/cni';
const SEQ = Number(process.env.BENCH_SEQ ?? 100);
const PAR = Number(process.env.BENCH_PAR ?? 20);

interface Row {
  name: string;
  n: number;
  p50ms: number;
  p99ms: number;
  wallMs: number;
}
const rows: Row[] = [];
const pct = (s: number[], p: number): number => s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))] ?? 0;
const r2 = (x: number): number => Math.round(x * 100) / 100;

function record(name: string, lat: number[], wallMs: number): Row {
  const s = [...lat].sort((a, b) => a - b);
  const row = { name, n: s.length, p50ms: r2(pct(s, 50)), p99ms: r2(pct(s, 99)), wallMs: r2(wallMs) };
  rows.push(row);
  console.error(`  ${name}: p50 ${row.p50ms} ms, p99 ${row.p99ms} ms (${row.n} ops, ${row.wallMs} ms wall)`);
  return row;
}

/** Execs argv with env and stdin; resolves with the elapsed ms; rejects on a non-zero exit. */
function timedExec(argv: string[], env: NodeJS.ProcessEnv, input: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const [cmd, ...args] = argv;
    const child = spawn(cmd!, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('close', (code) => (code === 0 ? resolve(performance.now() - t0) : reject(new Error(`${argv.join(' ')}: exit ${code}: ${out}`))));
    child.stdin.on('error', () => undefined); // a child that reads no stdin may exit first
    child.stdin.end(input);
  });
}

interface VswitchdSample {
  cpuNs: number;
  reconfigures: number;
}
/** ovs-vswitchd's main thread CPU time (schedstat, ns) and its bridge_reconfigure coverage count. */
async function vswitchdSample(ovs: OvsInstance): Promise<VswitchdSample> {
  // Lets the last change settle, and coverage counters reach the totals (about once a second).
  await new Promise((r) => setTimeout(r, 1100));
  const pid = readFileSync(join(ovs.dir, 'vswitchd.pid'), 'utf8').trim();
  const cpuNs = Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]);
  const cov = await ovs.appctl('coverage/show');
  const reconfigures = Number(/^bridge_reconfigure .* total: (\d+)/m.exec(cov)?.[1] ?? NaN);
  return { cpuNs, reconfigures };
}

async function measure(name: string, n: number, concurrency: number, op: (i: number) => Promise<number>): Promise<Row> {
  const lat: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) lat.push(await op(next++));
    }),
  );
  return record(name, lat, performance.now() - t0);
}

/** CPU ms ovs-vswitchd's threads have run so far (schedstat, ns): its share of a bundle beside ours. */
function vswitchdCpuMs(ovs: OvsInstance): number {
  const pid = readFileSync(join(ovs.dir, 'vswitchd.pid'), 'utf8').trim();
  let ns = 0;
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // a thread that exited meanwhile
    }
  }
  return ns / 1e6;
}

/** CPU ms of this process's children that have exited and been waited for (cutime + cstime; 10 ms ticks). */
function childrenCpuMs(): number {
  const f = readFileSync('/proc/self/stat', 'utf8');
  const fields = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

/**
 * 1,000 Antrea-native rules (each: TCP port 10000+i from its own /32, applied to one pod) handed
 * to the agent at once, as a controlplane initial state would: time to compute the flows and to
 * install them (one bundle), and the rate; then the same policy removed.
 */
let ovsRef: OvsInstance | undefined;
async function policyBench(agent: Agent, sy: (cmd: string, i: number) => Promise<number>): Promise<Record<string, unknown>> {
  await sy('ADD', 0); // the applied-to pod (container sy0 in the first sandbox)
  const N = Number(process.env.BENCH_RULES ?? 1000);
  const rules = Array.from({ length: N }, (_, i) => ({
    direction: 'In' as const,
    from: { addressGroups: [], ipBlocks: [{ cidr: `10.${200 + (i >> 16)}.${(i >> 8) & 0xff}.${i & 0xff}/32`, except: [] }] },
    to: { addressGroups: [], ipBlocks: [] },
    services: [{ protocol: 'TCP' as const, port: 10000 + i }],
    action: 'Allow' as const,
    priority: i,
    enableLogging: false,
  }));
  const policy = {
    uid: 'bench-acnp', name: 'bench', namespace: '', generation: 1, priority: 5, tierPriority: 250, appliedToGroups: ['bench-atg'],
    sourceRef: { type: 'AntreaClusterNetworkPolicy' as const, namespace: '', name: 'bench', uid: 'bench-acnp' },
    rules,
  };
  // Members are matched to local pods by address, as the controller sends them.
  const podIp = agent.part('node').interfaces.list().find((i) => i.podName === 'pod-0')!.ipCidr.split('/')[0]!;
  const appliedToGroups = [{ name: 'bench-atg', groupMembers: [{ pod: { name: 'pod-0', namespace: 'bench' }, ips: [podIp] }] }];
  const before = agent.part('node').flows.flows.length;
  const rss0 = process.memoryUsage().rss;
  const ovs = ovsRef!;
  // BENCH_CPU_PROFILE=<file>: a CPU profile of the realization alone (the agent's side).
  const profiler = process.env.BENCH_CPU_PROFILE ? new Session() : undefined;
  if (profiler) {
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.setSamplingInterval', { interval: 100 });
    await profiler.post('Profiler.start');
  }
  const v0 = vswitchdCpuMs(ovs);
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const stats = await agent.part('node').flows.set({ policies: [policy], addressGroups: [], appliedToGroups });
  const t1 = performance.now();
  const cpu = process.cpuUsage(c0);
  const agentCpuMs = (cpu.user + cpu.system) / 1000;
  const vswitchdMs = vswitchdCpuMs(ovs) - v0;
  if (profiler) {
    writeFileSync(process.env.BENCH_CPU_PROFILE!, JSON.stringify((await profiler.post('Profiler.stop')).profile));
    profiler.disconnect();
  }
  const timings = agent.part('node').flows.lastTimings!;
  const rss1 = process.memoryUsage().rss;
  const flows = stats.added + stats.modified;
  const installed = (await agent.part('node').openflow.dumpFlows()).length;
  // Reference: the same flows as ovs-ofctl writes them, added back in one bundle by ovs-ofctl.
  const sock = ovs.mgmtSocket('br-int');
  const text = await ovs.ofctl('-O', 'OpenFlow15', '--no-stats', 'dump-flows', sock);
  const file = join(tmpdir(), `sy-bench-flows-${process.pid}.txt`);
  writeFileSync(file, text.split('\n').filter((l) => l.includes('actions=')).join('\n') + '\n');
  // Single changes with the 1,000 rules in place (sync timings: compute, diff, bundle): a pod no
  // rule selects attached through the plugin, one rule of the policy changed, and a second,
  // one-rule policy added.
  await sy('ADD', 1);
  const podChange = agent.part('node').flows.lastTimings!;
  const changed = { ...policy, generation: 2, rules: rules.map((r, i) => (i === 0 ? { ...r, services: [{ protocol: 'TCP' as const, port: 9999 }] } : r)) };
  await agent.part('node').flows.set({ policies: [changed], addressGroups: [], appliedToGroups });
  const ruleChange = agent.part('node').flows.lastTimings!;
  const small = { ...policy, uid: 'bench-small', name: 'small', priority: 6, sourceRef: { ...policy.sourceRef, name: 'small', uid: 'bench-small' }, rules: rules.slice(0, 1) };
  await agent.part('node').flows.set({ policies: [changed, small], addressGroups: [], appliedToGroups });
  const policyAdd = agent.part('node').flows.lastTimings!;
  await sy('DEL', 1);
  console.error(`  single changes at ${N} rules (compute/diff/bundle ms): pod ADD ${JSON.stringify(podChange)}, one rule ${JSON.stringify(ruleChange)}, one more policy ${JSON.stringify(policyAdd)}`);
  const t2 = performance.now();
  const removed = await agent.part('node').flows.set({ policies: [], addressGroups: [], appliedToGroups: [] });
  const t3 = performance.now();
  // The same realization again, the code now warm (compiled by V8): how much of the first is warm-up.
  const wc0 = process.cpuUsage();
  const w0 = performance.now();
  await agent.part('node').flows.set({ policies: [policy], addressGroups: [], appliedToGroups });
  const warmMs = performance.now() - w0;
  const wc = process.cpuUsage(wc0);
  const warmTimings = agent.part('node').flows.lastTimings!;
  await agent.part('node').flows.set({ policies: [], addressGroups: [], appliedToGroups: [] });
  // Warm agent: a different policy of the same shape (other uid, group, addresses and ports, so
  // nothing computed for the first is reused) realized by the agent that has realized and removed
  // the first: the figure for an agent that has been running. Its flows are kept for its own
  // ovs-ofctl reference below.
  const baseFile = join(tmpdir(), `sy-bench-base-${process.pid}.txt`);
  writeFileSync(baseFile, `${(await ovs.ofctl('-O', 'OpenFlow15', '--no-stats', 'dump-flows', sock)).split('\n').filter((l) => l.includes('actions=')).join('\n')}\n`);
  const warm = await warmPolicyRealization(agent, ovs, N, podIp);
  const warmFile = join(tmpdir(), `sy-bench-warm-flows-${process.pid}.txt`);
  writeFileSync(warmFile, warm.flowText);
  await agent.part('node').flows.set({ policies: [], addressGroups: [], appliedToGroups: [] });
  // With the policy gone, ovs-ofctl adds the same flows (the policy's ones fresh) in one bundle.
  const rv0 = vswitchdCpuMs(ovs);
  const rc0 = childrenCpuMs();
  const r0 = performance.now();
  await ovs.ofctl('-O', 'OpenFlow15', '--bundle', 'add-flows', sock, file);
  const ofctlMs = performance.now() - r0;
  const ofctlCpuMs = childrenCpuMs() - rc0;
  const refVswitchdMs = vswitchdCpuMs(ovs) - rv0;
  // The switch back to the flows the agent knows (not timed), then the warm policy's reference.
  await ovs.ofctl('-O', 'OpenFlow15', 'replace-flows', sock, baseFile);
  const wv0 = vswitchdCpuMs(ovs);
  const wcc0 = childrenCpuMs();
  const wr0 = performance.now();
  await ovs.ofctl('-O', 'OpenFlow15', '--bundle', 'add-flows', sock, warmFile);
  const warmOfctlMs = performance.now() - wr0;
  const warmOfctlCpuMs = childrenCpuMs() - wcc0;
  const warmRefVswitchdMs = vswitchdCpuMs(ovs) - wv0;
  await ovs.ofctl('-O', 'OpenFlow15', 'replace-flows', sock, baseFile);
  const steady = await steadyRealizations(agent, ovs, N, podIp, baseFile);
  for (const f of [file, baseFile, warmFile]) rmSync(f, { force: true });
  await sy('DEL', 0);
  const out = {
    rules: N,
    flowsAdded: flows,
    flowsBefore: before,
    flowsOnSwitch: installed,
    realizeMs: r2(t1 - t0),
    flowsPerSecond: Math.round((flows * 1000) / (t1 - t0)),
    removeMs: r2(t3 - t2),
    again: { realizeMs: r2(warmMs), flowsPerSecond: Math.round((flows * 1000) / warmMs), agentCpuMs: r2((wc.user + wc.system) / 1000), ...warmTimings },
    // Warm agent (a second, different policy after the first was realized and removed) beside
    // ovs-ofctl of its flows; ratios > 1 mean the agent is faster.
    warmAgent: {
      flowsAdded: warm.flows,
      realizeMs: r2(warm.wallMs),
      flowsPerSecond: Math.round((warm.flows * 1000) / warm.wallMs),
      ...warm.timings,
      cpuMs: { agent: r2(warm.agentCpuMs), vswitchd: r2(warm.vswitchdMs), ovsOfctl: r2(warmOfctlCpuMs), vswitchdForOvsOfctl: r2(warmRefVswitchdMs) },
      ovsOfctlBundleAllFlowsMs: r2(warmOfctlMs),
      ovsOfctlFlowsPerSecond: Math.round((warm.flowsOnSwitch * 1000) / warmOfctlMs),
      wallRatio: r2(warmOfctlMs / warm.wallMs),
      cpuRatio: r2((warmOfctlCpuMs + warmRefVswitchdMs) / (warm.agentCpuMs + warm.vswitchdMs)),
    },
    steadyAgent: steady,
    firstRealization: {
      wallRatio: r2(ofctlMs / (t1 - t0)),
      cpuRatio: r2((ofctlCpuMs + refVswitchdMs) / (agentCpuMs + vswitchdMs)),
    },
    flowsDeleted: removed.deleted,
    ...timings,
    bundleFlowsPerSecond: Math.round((flows * 1000) / timings.installMs),
    ovsOfctlBundleAllFlowsMs: r2(ofctlMs),
    ovsOfctlFlowsPerSecond: Math.round((installed * 1000) / ofctlMs),
    // CPU beside wall (the machine is shared): the agent's and vswitchd's for ours, ovs-ofctl's (10 ms
    // ticks) and vswitchd's for the reference.
    cpuMs: { agent: r2(agentCpuMs), vswitchd: r2(vswitchdMs), ovsOfctl: r2(ofctlCpuMs), vswitchdForOvsOfctl: r2(refVswitchdMs) },
    rssDeltaMiB: Math.round((rss1 - rss0) / 2 ** 20),
    singleChanges: { podAdd: podChange, oneRuleOfThePolicy: ruleChange, oneMorePolicy: policyAdd },
  };
  console.error(`  reference: ovs-ofctl --bundle add-flows of the ${installed} flows: ${out.ovsOfctlBundleAllFlowsMs} ms = ${out.ovsOfctlFlowsPerSecond} flows/s (CPU: ovs-ofctl ${r2(ofctlCpuMs)} ms, vswitchd ${r2(refVswitchdMs)} ms)`);
  console.error(`  CPU of the realization: agent ${r2(agentCpuMs)} ms, vswitchd ${r2(vswitchdMs)} ms; realized again (warm): ${out.again.realizeMs} ms = ${out.again.flowsPerSecond} flows/s (compute ${warmTimings.computeMs}, bundle ${warmTimings.bundleMs} ms; agent CPU ${out.again.agentCpuMs} ms)`);
  const wa = out.warmAgent;
  console.error(`  warm agent, a second ${N}-rule policy: ${wa.flowsAdded} flows in ${wa.realizeMs} ms (agent CPU ${wa.cpuMs.agent}, vswitchd ${wa.cpuMs.vswitchd} ms); ovs-ofctl of its ${warm.flowsOnSwitch} flows ${wa.ovsOfctlBundleAllFlowsMs} ms (CPU ${wa.cpuMs.ovsOfctl} + vswitchd ${wa.cpuMs.vswitchdForOvsOfctl} ms): wall ${wa.wallRatio}x, CPU ${wa.cpuRatio}x; first realization: wall ${out.firstRealization.wallRatio}x, CPU ${out.firstRealization.cpuRatio}x`);
  const st = out.steadyAgent;
  console.error(`  steady agent, ${st.cycles} more new ${N}-rule policies: p50 ${st.realizeMsP50} ms, p90 ${st.realizeMsP90} ms (agent CPU p50 ${st.agentCpuMsP50} ms); ovs-ofctl of each one's flows p50 ${st.ovsOfctlMsP50} ms: wall ratio p50 ${st.wallRatioP50}x (per cycle ${st.wallRatios.join(' ')})`);
  console.error(`  ${N} rules: ${flows} flows in ${out.realizeMs} ms = ${out.flowsPerSecond} flows/s (compute ${timings.computeMs} ms, install ${timings.installMs} ms: bundle ${timings.bundleMs} ms, datapath flush ${timings.flushMs} ms); removal ${out.removeMs} ms`);
  return out;
}

/** Which 1,000-rule policy: rule i allows TCP `port0 + i` from 10.`net`.x.y/32 to pod-0. */
interface PolicyShape {
  name: string;
  uid: string;
  group: string;
  net: number;
  port0: number;
  priority: number;
}

const WARM_SHAPE: PolicyShape = { name: 'bench-warm', uid: 'bench-acnp-warm', group: 'bench-atg-warm', net: 220, port0: 30000, priority: 7 };

/**
 * Steady agent: BENCH_STEADY_CYCLES (default 10) more 1,000-rule policies, each new (its own uid,
 * group, /32s and ports: nothing computed before is reused), realized and removed one after the
 * other by the agent that has realized the ones before, each against `ovs-ofctl --bundle add-flows`
 * of its own flows right after it. The first realizations run code V8 is still compiling; this is
 * the figure for an agent that has been running a while. Medians and p90 over the cycles.
 */
async function steadyRealizations(agent: Agent, ovs: OvsInstance, n: number, podIp: string, baseFile: string) {
  const cycles = Number(process.env.BENCH_STEADY_CYCLES ?? 10);
  const sock = ovs.mgmtSocket('br-int');
  const file = join(tmpdir(), `sy-bench-steady-flows-${process.pid}.txt`);
  const rows: { realizeMs: number; agentCpuMs: number; ovsOfctlMs: number }[] = [];
  for (let k = 0; k < cycles; k++) {
    const shape: PolicyShape = { name: `bench-steady-${k}`, uid: `bench-steady-${k}-acnp`, group: `bench-steady-${k}-atg`, net: 100 + k, port0: 40000 + (k % 20) * 1000, priority: 8 };
    const r = await warmPolicyRealization(agent, ovs, n, podIp, shape);
    writeFileSync(file, r.flowText);
    await agent.part('node').flows.set({ policies: [], addressGroups: [], appliedToGroups: [] });
    const t0 = performance.now();
    await ovs.ofctl('-O', 'OpenFlow15', '--bundle', 'add-flows', sock, file);
    const ovsOfctlMs = performance.now() - t0;
    await ovs.ofctl('-O', 'OpenFlow15', 'replace-flows', sock, baseFile);
    rows.push({ realizeMs: r.wallMs, agentCpuMs: r.agentCpuMs, ovsOfctlMs });
  }
  rmSync(file, { force: true });
  const q = (xs: number[], p: number): number => r2(pct([...xs].sort((a, b) => a - b), p));
  const ratios = rows.map((x) => r2(x.ovsOfctlMs / x.realizeMs));
  return {
    cycles,
    realizeMsP50: q(rows.map((x) => x.realizeMs), 50),
    realizeMsP90: q(rows.map((x) => x.realizeMs), 90),
    agentCpuMsP50: q(rows.map((x) => x.agentCpuMs), 50),
    ovsOfctlMsP50: q(rows.map((x) => x.ovsOfctlMs), 50),
    // Per cycle, its ovs-ofctl time over its realization's: > 1 means the agent is faster.
    wallRatioP50: q(ratios, 50),
    wallRatios: ratios,
    realizeMs: rows.map((x) => r2(x.realizeMs)),
  };
}

/** A 1,000-rule policy (by default the warm one: other uid, group, /32s and ports than the first) realized and timed. */
async function warmPolicyRealization(agent: Agent, ovs: OvsInstance, n: number, podIp: string, shape: PolicyShape = WARM_SHAPE) {
  const rules = Array.from({ length: n }, (_, i) => ({
    direction: 'In' as const,
    from: { addressGroups: [], ipBlocks: [{ cidr: `10.${shape.net + (i >> 16)}.${(i >> 8) & 0xff}.${i & 0xff}/32`, except: [] }] },
    to: { addressGroups: [], ipBlocks: [] },
    services: [{ protocol: 'TCP' as const, port: shape.port0 + i }],
    action: 'Allow' as const,
    priority: i,
    enableLogging: false,
  }));
  const { uid, group } = shape;
  const policy = {
    uid, name: shape.name, namespace: '', generation: 1, priority: shape.priority, tierPriority: 250, appliedToGroups: [group],
    sourceRef: { type: 'AntreaClusterNetworkPolicy' as const, namespace: '', name: shape.name, uid },
    rules,
  };
  const appliedToGroups = [{ name: group, groupMembers: [{ pod: { name: 'pod-0', namespace: 'bench' }, ips: [podIp] }] }];
  // BENCH_WARM_CPU_PROFILE=<file>: a CPU profile of this realization alone.
  const profiler = process.env.BENCH_WARM_CPU_PROFILE && shape === WARM_SHAPE ? new Session() : undefined;
  if (profiler) {
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.setSamplingInterval', { interval: 100 });
    await profiler.post('Profiler.start');
  }
  const v0 = vswitchdCpuMs(ovs);
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const stats = await agent.part('node').flows.set({ policies: [policy], addressGroups: [], appliedToGroups });
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  const vswitchdMs = vswitchdCpuMs(ovs) - v0;
  if (profiler) {
    writeFileSync(process.env.BENCH_WARM_CPU_PROFILE!, JSON.stringify((await profiler.post('Profiler.stop')).profile));
    profiler.disconnect();
  }
  const timings = agent.part('node').flows.lastTimings!;
  const text = await ovs.ofctl('-O', 'OpenFlow15', '--no-stats', 'dump-flows', ovs.mgmtSocket('br-int'));
  const lines = text.split('\n').filter((l) => l.includes('actions='));
  return { flows: stats.added + stats.modified, flowsOnSwitch: lines.length, wallMs, agentCpuMs: (cpu.user + cpu.system) / 1000, vswitchdMs, timings, flowText: `${lines.join('\n')}\n` };
}

/**
 * CNI ADD of a pod on an IPv4-only node and on a dual-stack node (podCIDRv6: an address of each
 * family, IPv6 on in the pod, its default route) in the same run: two agents, each on its own OVS,
 * their ADDs (then their DELs) interleaved in rounds of 10 so both see the same machine load.
 */
async function dualStackBench(tb: Testbed, dir: string, env: (extra: Record<string, string>) => NodeJS.ProcessEnv): Promise<void> {
  const n = Number(process.env.BENCH_DUAL_N ?? 100);
  const round = 10;
  const load0 = loadavg().map(r2);
  const nodes = await Promise.all(
    (['IPv4-only', 'dual-stack'] as const).map(async (kind, k) => {
      const ovs = await tb.startOvs();
      const socket = join(dir, `cni-${k}.sock`);
      const agent = await Agent.start({
        nodeName: `bench-${k}`, podCIDR: `10.${110 + k}.0.0/16`, ...(kind === 'dual-stack' ? { podCIDRv6: 'fd00:10:111::/64' } : {}), nodeIP: `192.168.1.${10 + k}`,
        ovsdbRemote: ovs.dbRemote, ovsRunDir: ovs.dir, datapathType: 'netdev', gatewayName: 'sy-gw0', tunnelName: 'sy-tun0', dataDir: join(dir, `n${k}`), cniSocket: socket,
        nodeNetns: ovs.netns.name, netnsHelper,
      });
      const sandboxes: Netns[] = [];
      for (let i = 0; i < n; i++) sandboxes.push(await tb.createNetns(`d${k}`));
      const conf = JSON.stringify({ cniVersion: '1.0.0', name: 'switchyard', type: 'switchyard-cni', cniSocket: socket });
      const op = (cmd: string, i: number): Promise<number> =>
        timedExec(PLUGIN_ARGV, env({ CNI_COMMAND: cmd, CNI_CONTAINERID: `ds${k}-${i}`, CNI_NETNS: sandboxes[i]!.path, CNI_IFNAME: 'eth0', CNI_ARGS: `K8S_POD_NAMESPACE=bench;K8S_POD_NAME=pod-${i}` }), conf);
      return { kind, ovs, agent, op, lat: [] as number[], del: [] as number[], vswitchdCpuMsPerAdd: 0, reconfiguresPerAdd: 0 };
    }),
  );
  console.error(`dual-stack vs IPv4-only ADD (${PLUGIN_NAME}, ${netnsHelper ? 'switchyard-netns' : 'nsenter child per pod'}), ${n} each, interleaved in rounds of ${round}; load ${load0.join(' ')}`);
  // Each node's ovs-vswitchd main thread (it attaches ports and, on the userspace datapath, also
  // handles what the pods send: a dual-stack pod's IPv6 link-local chatter lands there).
  const before = await Promise.all(nodes.map((x) => vswitchdSample(x.ovs)));
  for (let from = 0; from < n; from += round) {
    for (const node of nodes) for (let i = from; i < Math.min(n, from + round); i++) node.lat.push(await node.op('ADD', i));
  }
  const after = await Promise.all(nodes.map((x) => vswitchdSample(x.ovs)));
  nodes.forEach((x, k) => {
    x.vswitchdCpuMsPerAdd = r2((after[k]!.cpuNs - before[k]!.cpuNs) / 1e6 / n);
    x.reconfiguresPerAdd = r2((after[k]!.reconfigures - before[k]!.reconfigures) / n);
  });
  for (let from = 0; from < n; from += round) {
    for (const node of nodes) for (let i = from; i < Math.min(n, from + round); i++) node.del.push(await node.op('DEL', i));
  }
  const load1 = loadavg().map(r2);
  for (const node of nodes) {
    record(`${node.kind} ADD, ${n} sequential (interleaved)`, node.lat, node.lat.reduce((a, b) => a + b, 0));
    record(`${node.kind} DEL, ${n} sequential (interleaved)`, node.del, node.del.reduce((a, b) => a + b, 0));
    await node.agent.stop();
  }
  const p50 = (name: string): number => rows.find((r) => r.name.startsWith(name))!.p50ms;
  const summary = {
    ratioAddP50DualVsV4: r2(p50('dual-stack ADD') / p50('IPv4-only ADD')),
    ratioDelP50DualVsV4: r2(p50('dual-stack DEL') / p50('IPv4-only DEL')),
    vswitchdPerAdd: Object.fromEntries(nodes.map((x) => [x.kind, { mainThreadCpuMs: x.vswitchdCpuMsPerAdd, reconfigures: x.reconfiguresPerAdd }])),
  };
  console.log('| case | n | p50 ms | p99 ms |\n|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.name} | ${r.n} | ${r.p50ms} | ${r.p99ms} |`);
  console.log(`dual-stack / IPv4-only p50: ADD ${summary.ratioAddP50DualVsV4}x, DEL ${summary.ratioDelP50DualVsV4}x; load average ${load0.join(' ')} -> ${load1.join(' ')}`);
  console.log(`ovs-vswitchd main thread per ADD: ${JSON.stringify(summary.vswitchdPerAdd)}`);
  const result = { date: new Date().toISOString(), node: process.version, plugin: PLUGIN_NAME, netnsHelper: netnsHelper !== false, loadavg: { start: load0, end: load1 }, rows, summary };
  if (process.env.BENCH_RESULTS !== '0') writeFileSync(join(HERE, 'dual-stack.results.json'), `${JSON.stringify(result, null, 2)}\n`);
}

async function main(): Promise<void> {
  if (!existsSync(PLUGIN)) await run(['npx', 'tsup'], { timeoutMs: 120_000 });
  const tb = await Testbed.create();
  const dir = mkdtempSync(join(tmpdir(), 'sy-agent-bench-'));
  try {
    const env = (extra: Record<string, string>): NodeJS.ProcessEnv => ({ PATH: process.env.PATH ?? '/usr/bin:/bin', CNI_PATH: REF_DIR, ...extra });
    const total = SEQ + PAR;
    const sandboxes: Netns[] = [];
    // BENCH_ONLY=policy: only the NetworkPolicy realization (two pods; written to
    // policy.results.json); BENCH_ONLY=add: only the switchyard ADD/DEL rows and the agent's step
    // timings (for before/after comparisons run back to back). Either leaves results.json as it is.
    const policyOnly = process.env.BENCH_ONLY === 'policy';
    const addOnly = process.env.BENCH_ONLY === 'add';
    // BENCH_ONLY=dual-stack: ADD on an IPv4-only node against ADD on a dual-stack node, interleaved in
    // one run (written to dual-stack.results.json unless BENCH_RESULTS=0).
    if (process.env.BENCH_ONLY === 'dual-stack') {
      await dualStackBench(tb, dir, env);
      return;
    }
    for (let i = 0; i < (policyOnly ? 2 : addOnly ? total : 2 * total); i++) sandboxes.push(await tb.createNetns('b'));
    const args = (i: number): string => `K8S_POD_NAMESPACE=bench;K8S_POD_NAME=pod-${i}`;

    console.error('node start floor');
    await measure('node -e "" (start floor)', 20, 1, () => timedExec([process.execPath, '-e', ''], env({}), ''));
    await measure(`switchyard-cni VERSION (${PLUGIN_NAME} start floor)`, 20, 1, () => timedExec(PLUGIN_ARGV, env({ CNI_COMMAND: 'VERSION' }), ''));

    console.error('switchyard-cni + agent (OVS netdev, host side in the node netns)');
    const ovs = await tb.startOvs();
    ovsRef = ovs;
    const socket = join(dir, 'cni.sock');
    // Per-step durations of each ADD inside the agent, from its 'pod attached' log line.
    const steps: Record<string, number>[] = [];
    const noop = (): void => undefined;
    const logger = {
      debug: noop, warn: noop, error: noop,
      info: (o: unknown, msg?: string) => {
        if (msg === 'pod attached') steps.push((o as { timings: Record<string, number> }).timings);
      },
    };
    const agent = await Agent.start({
      logger,
      nodeName: 'bench', podCIDR: '10.100.0.0/16', nodeIP: '192.168.1.1', ovsdbRemote: ovs.dbRemote, ovsRunDir: ovs.dir,
      datapathType: 'netdev', gatewayName: 'sy-gw0', tunnelName: 'sy-tun0', dataDir: dir, cniSocket: socket, nodeNetns: ovs.netns.name, netnsHelper,
    });
    console.error(`  pod interfaces set up by ${netnsHelper ? 'switchyard-netns' : 'a child process per pod (nsenter, sh, ip, ethtool)'}`);
    const conf = JSON.stringify({ cniVersion: '1.0.0', name: 'switchyard', type: 'switchyard-cni', cniSocket: socket });
    const sy = (cmd: string, i: number): Promise<number> =>
      timedExec(PLUGIN_ARGV, env({ CNI_COMMAND: cmd, CNI_CONTAINERID: `sy${i}`, CNI_NETNS: sandboxes[i]!.path, CNI_IFNAME: 'eth0', CNI_ARGS: args(i) }), conf);
    if (policyOnly) {
      const policy1kRules = await policyBench(agent, sy);
      const result = { date: new Date().toISOString(), node: process.version, loadavg: loadavg().map(r2), policy1kRules };
      console.log(JSON.stringify(result, null, 2));
      // Its own file (results.json is the full run's): BENCH_RESULTS=0 leaves it alone (before/after runs).
      if (process.env.BENCH_RESULTS !== '0') writeFileSync(join(HERE, 'policy.results.json'), `${JSON.stringify(result, null, 2)}\n`);
      await agent.stop();
      return;
    }
    const rssBefore = process.memoryUsage().rss;
    // ovs-vswitchd's side of the last 20 sequential ADDs: its main thread's CPU time (which also
    // attaches ports and commits bundles) and its bridge reconfigurations (each link event in the
    // node namespace and each port change is one, and each refreshes every port's status).
    let vsAt80: VswitchdSample | undefined;
    let cpuAt80: NodeJS.CpuUsage | undefined;
    // Each sequential ADD's latency by pod index: the last 20 against the first 20 (issue #32's
    // growth row: at BENCH_SEQ=250, pod 250 against pod 20).
    const seqLat: number[] = [];
    await measure(`switchyard ADD (${PLUGIN_NAME}), ${SEQ} sequential`, SEQ, 1, async (i) => {
      if (i === SEQ - 20) {
        vsAt80 = await vswitchdSample(ovs);
        cpuAt80 = process.cpuUsage();
      }
      return (seqLat[i] = await sy('ADD', i));
    });
    const p50Of = (xs: number[]): number => r2(pct([...xs].sort((a, b) => a - b), 50));
    const growth = { pods: `1-20 / ${SEQ - 19}-${SEQ}`, first20P50Ms: p50Of(seqLat.slice(0, 20)), last20P50Ms: p50Of(seqLat.slice(SEQ - 20, SEQ)), ratio: 0 };
    growth.ratio = r2(growth.last20P50Ms / growth.first20P50Ms);
    console.error(`  ADD p50 at pods ${growth.pods}: ${growth.first20P50Ms} / ${growth.last20P50Ms} ms = ${growth.ratio}x (target <= 1.3x at pod 250)`);
    const cpu80to100 = cpuAt80 && process.cpuUsage(cpuAt80);
    const vsAt100 = await vswitchdSample(ovs);
    // This process's CPU (the agent runs in it; the plugin children are not counted) beside
    // vswitchd's, per ADD at pods 80-100; the same for the 20 parallel ADDs, as totals per ADD.
    const vswitchdPerAdd = vsAt80 && {
      mainThreadCpuMs: r2((vsAt100.cpuNs - vsAt80.cpuNs) / 1e6 / 20),
      reconfigures: r2((vsAt100.reconfigures - vsAt80.reconfigures) / 20),
      ...(cpu80to100 ? { benchProcessCpuMs: r2((cpu80to100.user + cpu80to100.system) / 1000 / 20) } : {}),
    };
    console.error('  ovs-vswitchd per ADD at pods 80-100:', JSON.stringify(vswitchdPerAdd));
    const cpuPar0 = process.cpuUsage();
    await measure(`switchyard ADD (${PLUGIN_NAME}), ${PAR} parallel`, PAR, PAR, (i) => sy('ADD', SEQ + i));
    const cpuPar = process.cpuUsage(cpuPar0);
    const vsAfterPar = await vswitchdSample(ovs);
    const parallelPerAdd = {
      vswitchdMainThreadCpuMs: r2((vsAfterPar.cpuNs - vsAt100.cpuNs) / 1e6 / PAR),
      reconfigures: r2((vsAfterPar.reconfigures - vsAt100.reconfigures) / PAR),
      benchProcessCpuMs: r2((cpuPar.user + cpuPar.system) / 1000 / PAR),
    };
    console.error(`  per ADD of the ${PAR} parallel:`, JSON.stringify(parallelPerAdd));
    const rss = process.memoryUsage().rss;
    const stepP50 = (from: number, to: number): Record<string, number> => {
      const out: Record<string, number> = {};
      for (const k of Object.keys(steps[0] ?? {})) out[k] = r2(pct(steps.slice(from, to).map((t) => t[k] ?? 0).sort((a, b) => a - b), 50));
      return out;
    };
    // `pods80to100` is the last 20 sequential pods (pods 80-100 at the default BENCH_SEQ=100).
    const agentStepsP50 = { first20Pods: stepP50(0, 20), pods80to100: stepP50(SEQ - 20, SEQ), parallel20: stepP50(SEQ, SEQ + PAR), vswitchdPerAddAt80to100: vswitchdPerAdd, perAddOfParallel20: parallelPerAdd, addGrowth: growth };
    console.error('  agent steps p50:', JSON.stringify(agentStepsP50));
    if (addOnly) {
      await measure(`switchyard DEL, ${total} sequential`, total, 1, (i) => sy('DEL', i));
      await agent.stop();
      console.log(JSON.stringify({ date: new Date().toISOString(), loadavg: loadavg().map(r2), rows, agentStepsP50 }, null, 2));
      return;
    }
    const flows = agent.part('node').flows.flows.length;
    // The OVS floor at this port count: ovs-vsctl add-port (which waits for ovs-vswitchd to attach
    // the port) of a plain veth into the same bridge, with the 120 pods still attached.
    const ovsFloor: number[] = [];
    for (let i = 0; i < 10; i++) {
      const name = `syref${i}`;
      await run(['ip', 'link', 'add', name, 'type', 'veth', 'peer', 'name', `${name}p`], { netns: ovs.netns.name });
      const t0 = performance.now();
      await ovs.vsctl('add-port', 'br-int', name);
      ovsFloor.push(performance.now() - t0);
      await ovs.vsctl('del-port', 'br-int', name);
    }
    record(`ovs-vsctl add-port at ${total} ports (OVS floor)`, ovsFloor, ovsFloor.reduce((a, b) => a + b, 0));
    await measure(`switchyard DEL, ${total} sequential`, total, 1, (i) => sy('DEL', i));

    console.error('NetworkPolicy realization: 1,000 rules arriving at once');
    const ruleBench = await policyBench(agent, sy);
    await agent.stop();

    console.error('IPAM alone through the plugin (IPAM-only mode, an IPPool on the embedded API server)');
    const api = await startKubeApi({ crds: loadCrds() as never });
    const kc = new KubeConfig();
    kc.loadFromFile(api.kubeconfigPath);
    const kube = new KubeConfigClient(kc);
    await kube.request('POST', '/apis/crd.antrea.io/v1beta1/ippools', {
      apiVersion: 'crd.antrea.io/v1beta1', kind: 'IPPool', metadata: { name: 'bench' },
      spec: { ipRanges: [{ cidr: '10.103.0.0/16' }], subnetInfo: { gateway: '10.103.0.1', prefixLength: 16 } },
    });
    const ipamDir = mkdtempSync(join(tmpdir(), 'sy-agent-bench-ipam-'));
    const ipamSocket = join(ipamDir, 'cni.sock');
    // Its own OVS: a second Geneve port on the same switch would clash with the first.
    const ovs2 = await tb.startOvs();
    const ipamAgent = await Agent.start({
      nodeName: 'bench-ipam', podCIDR: '10.104.0.0/16', nodeIP: '192.168.1.2', ovsdbRemote: ovs2.dbRemote, ovsRunDir: ovs2.dir,
      datapathType: 'netdev', gatewayName: 'sy-gw0', tunnelName: 'sy-tun0', dataDir: ipamDir, cniSocket: ipamSocket, nodeNetns: ovs2.netns.name,
      kube, enableIPPools: true, enableProxy: false,
    });
    const ipamConf = JSON.stringify({ cniVersion: '1.0.0', name: 'sec', type: 'macvlan', ipam: { type: 'switchyard-cni', ippools: ['bench'], cniSocket: ipamSocket } });
    await measure('switchyard IPAM-only ADD exec (IPPool), 100 sequential', 100, 1, (i) =>
      timedExec(PLUGIN_ARGV, env({ CNI_COMMAND: 'ADD', CNI_CONTAINERID: `ipam${i}`, CNI_NETNS: '/dev/null', CNI_IFNAME: 'net1', CNI_ARGS: args(i) }), ipamConf));
    await ipamAgent.stop();
    await api.stop();
    rmSync(ipamDir, { recursive: true, force: true });

    console.error("Debian bridge + host-local (exec'd in a node netns through nsenter)");
    const refNode = await tb.createNetns('r');
    const refConf = JSON.stringify({
      cniVersion: '1.0.0', name: 'ref', type: 'bridge', bridge: 'cni-ref0', isGateway: true,
      ipam: { type: 'host-local', subnet: '10.101.0.0/16', dataDir: join(dir, 'ref-ipam') },
    });
    const ref = (cmd: string, i: number): Promise<number> =>
      timedExec(['nsenter', `--net=${refNode.path}`, join(REF_DIR, 'bridge')], env({ CNI_COMMAND: cmd, CNI_CONTAINERID: `ref${i}`, CNI_NETNS: sandboxes[total + i]!.path, CNI_IFNAME: 'eth0' }), refConf);
    await measure(`bridge ADD, ${SEQ} sequential`, SEQ, 1, (i) => ref('ADD', i));
    await measure(`bridge ADD, ${PAR} parallel`, PAR, PAR, (i) => ref('ADD', SEQ + i));
    await measure(`bridge DEL, ${total} sequential`, total, 1, (i) => ref('DEL', i));
    await measure('nsenter true (nsenter overhead of the reference)', 20, 1, () => timedExec(['nsenter', `--net=${refNode.path}`, 'true'], env({}), ''));

    console.error('IPAM alone: host-local exec');
    const hlConf = JSON.stringify({ cniVersion: '1.0.0', name: 'hl', type: 'host-local', ipam: { type: 'host-local', subnet: '10.102.0.0/16', dataDir: join(dir, 'hl') } });
    await measure('host-local ADD exec, 100 sequential', 100, 1, (i) =>
      timedExec([join(REF_DIR, 'host-local')], env({ CNI_COMMAND: 'ADD', CNI_CONTAINERID: `hl${i}`, CNI_NETNS: '/dev/null', CNI_IFNAME: 'eth0' }), hlConf));

    const get = (name: string): Row => rows.find((r) => r.name.startsWith(name))!;
    const floor = get('node -e').p50ms;
    const addSeq = `switchyard ADD (${PLUGIN_NAME}), ${SEQ}`;
    const addPar = `switchyard ADD (${PLUGIN_NAME}), ${PAR} parallel`;
    const summary = {
      nodeStartFloorP50Ms: floor,
      plugin: PLUGIN_NAME,
      pluginStartFloorP50Ms: get('switchyard-cni VERSION').p50ms,
      switchyardAddP50Ms: get(addSeq).p50ms,
      switchyardAddParallelP50Ms: get(addPar).p50ms,
      bridgeAddParallelP50Ms: get(`bridge ADD, ${PAR} parallel`).p50ms,
      ratioAddParallelP50VsBridge: r2(get(addPar).p50ms / get(`bridge ADD, ${PAR} parallel`).p50ms),
      bridgeAddP50Ms: get('bridge ADD, ' + SEQ).p50ms,
      targetAddP50Ms: r2(floor + 2 * get('bridge ADD, ' + SEQ).p50ms),
      ovsAddPortAt120PortsP50Ms: get('ovs-vsctl add-port').p50ms,
      ipamOnlyAddP50Ms: get('switchyard IPAM-only').p50ms,
      hostLocalExecP50Ms: get('host-local ADD exec').p50ms,
      ratioIpamOnlyVsHostLocal: r2(get('switchyard IPAM-only').p50ms / get('host-local ADD exec').p50ms),
      ratioAddP50VsBridge: r2(get(addSeq).p50ms / get('bridge ADD, ' + SEQ).p50ms),
      ratioAddP50MinusFloorVsBridge: r2((get(addSeq).p50ms - floor) / get('bridge ADD, ' + SEQ).p50ms),
      flowsAt120Pods: flows,
      agentStepsP50Ms: agentStepsP50,
      policy1kRules: ruleBench,
      benchProcessRssMiB: { before: Math.round(rssBefore / 2 ** 20), at120Pods: Math.round(rss / 2 ** 20) },
    };
    console.log('| case | n | p50 ms | p99 ms | wall ms |\n|---|---|---|---|---|');
    for (const r of rows) console.log(`| ${r.name} | ${r.n} | ${r.p50ms} | ${r.p99ms} | ${r.wallMs} |`);
    console.log(JSON.stringify(summary, null, 2));
    // The machine is shared: record the load so figures from a busy run are read as such.
    const load = loadavg().map(r2);
    console.log(`load average at the end: ${load.join(' ')}`);
    writeFileSync(join(HERE, 'results.json'), `${JSON.stringify({ date: new Date().toISOString(), node: process.version, loadavg: load, rows, summary }, null, 2)}\n`);
  } finally {
    await tb.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
}

void main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
