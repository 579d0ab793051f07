/**
 * Benchmark: the cost of one change on a node that already holds 1,000 rules, from "state
 * changed" to "flow delta known". Full = computeNodeFlows of the new state + diffFlows against the
 * previous flows (what the agent did before issue 18); incremental = NodePipeline.update (when the
 * package has it). Medians of repeated changes, each applied and reverted in turn, as
 * "wall ms / CPU ms" (the machine's cores are shared: CPU time is the steadier figure).
 */
import { loadavg } from 'node:os';
import * as lib from '../src/index';
import type { NetworkPolicy, NetworkPolicyRule, NodeState, LocalPod, ServicePortSpec } from '../src/index';

const { computeNodeFlows, diffFlows, assignConjunctionIds, policyRuleKeys } = lib;

/** What the incremental pipeline looks like from here (absent before issue 18). */
interface Incremental {
  update(state: NodeState): unknown;
}
type IncrementalCtor = new () => Incremental;
const NodePipeline = (lib as unknown as { NodePipeline?: IncrementalCtor }).NodePipeline;

let seed = 7;
const rnd = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
const pool = Array.from({ length: 20000 }, (_, i) => `10.${100 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}`);

const pod = (i: number): LocalPod => ({
  name: `pod-${i}`, namespace: 'bench', ofport: 100 + i, ips: [`10.0.${i >> 8}.${(i & 255) + 2}`], mac: `02:00:00:00:${((i >> 8) & 255).toString(16).padStart(2, '0')}:${(i & 255).toString(16).padStart(2, '0')}`,
});
const services = (n: number): ServicePortSpec[] => Array.from({ length: n }, (_, i) => ({
  groupId: 1000 + i, protocol: 'TCP', clusterIP: `10.96.0.${i + 1}`, port: 80,
  endpoints: [0, 1, 2].map((k) => ({ ip: pod((i * 3 + k) % 100).ips[0]!, port: 8080 })),
}));

function baseState(): NodeState {
  return {
    config: {
      round: 1, trafficMode: 'encap', gateway: { ofport: 2, ip: '10.0.0.1', mac: '02:00:00:00:00:01' }, tunnelOfport: 1,
      podCIDR: '10.0.0.0/16', nodeIP: '192.168.0.1', enableProxy: true, enableAntreaPolicy: true,
    },
    pods: Array.from({ length: 100 }, (_, i) => pod(i)),
    remoteNodes: Array.from({ length: 10 }, (_, i) => ({ name: `n${i}`, podCIDR: `10.${1 + i}.0.0/16`, nodeIP: `192.168.0.${10 + i}`, gatewayIP: `10.${1 + i}.0.1` })),
    services: services(50),
    policies: [], addressGroups: [], appliedToGroups: [{ name: 'web', groupMembers: [{ ips: pod(0).ips }] }],
  };
}

/** 1,000 K8s NetworkPolicies of one ingress rule each: 100 source addresses, one port (bench/run.ts). */
function k8sPolicies(state: NodeState): NodeState {
  const addressGroups = Array.from({ length: 1000 }, (_, i) => ({ name: `g${i}`, groupMembers: Array.from({ length: 100 }, () => ({ ips: [pool[rnd(pool.length)]!] })) }));
  const policies: NetworkPolicy[] = Array.from({ length: 1000 }, (_, i) => ({
    uid: `p${i}`, name: `p${i}`, namespace: 'bench', generation: 1, appliedToGroups: ['web'], sourceRef: { type: 'K8sNetworkPolicy', namespace: 'bench', name: `p${i}`, uid: `p${i}` },
    rules: [{ direction: 'In', from: { addressGroups: [`g${i}`], ipBlocks: [] }, to: { addressGroups: [], ipBlocks: [] }, services: [{ protocol: 'TCP', port: 1000 + (i % 50) }], priority: 0, enableLogging: false }],
  }));
  return { ...state, policies, addressGroups };
}

/** One ACNP of 1,000 rules, each TCP 10000+i from its own /32 (the agent bench's policy). */
function acnpRules(): NetworkPolicyRule[] {
  return Array.from({ length: 1000 }, (_, i) => ({
    direction: 'In', from: { addressGroups: [], ipBlocks: [{ cidr: `10.${200 + (i >> 16)}.${(i >> 8) & 0xff}.${i & 0xff}/32`, except: [] }] },
    to: { addressGroups: [], ipBlocks: [] }, services: [{ protocol: 'TCP', port: 10000 + i }], action: 'Allow', priority: i, enableLogging: false,
  }));
}
const acnp = (rules: NetworkPolicyRule[], generation = 1): NetworkPolicy => ({
  uid: 'bench-acnp', name: 'bench', namespace: '', generation, priority: 5, tierPriority: 250, appliedToGroups: ['web'],
  sourceRef: { type: 'AntreaClusterNetworkPolicy', namespace: '', name: 'bench', uid: 'bench-acnp' }, rules,
});

/** The full path: conj ids as the agent kept them, all flows, then the diff. */
class Full {
  private conj = new Map<string, number>();
  private flows: lib.NodeFlows['flows'] = [];
  update(state: NodeState): void {
    const s = { ...state, conjIds: assignConjunctionIds(this.conj, policyRuleKeys(state)) };
    const nf = computeNodeFlows(s);
    this.conj = nf.conjIds;
    diffFlows(nf.flows, this.flows);
    this.flows = nf.flows;
  }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const r2 = (x: number): number => Math.round(x * 100) / 100;

/** Wall and CPU ms of one call. */
function timed(fn: () => void): { wall: number; cpu: number } {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  fn();
  const c = process.cpuUsage(c0);
  return { wall: performance.now() - t0, cpu: (c.user + c.system) / 1000 };
}

/** Medians (wall ms / CPU ms) of several timings. */
const medians = (ts: { wall: number; cpu: number }[]): string => `${r2(median(ts.map((t) => t.wall)))} / ${r2(median(ts.map((t) => t.cpu)))}`;

/** Median wall / CPU ms of `reps` changes: the engine goes to `a`, then `b`, alternately (each a real change). */
function perChange(engine: { update(s: NodeState): unknown }, a: NodeState, b: NodeState, reps: number): string {
  engine.update(a);
  const times: { wall: number; cpu: number }[] = [];
  for (let i = 0; i < reps; i++) times.push(timed(() => engine.update(i % 2 === 0 ? b : a)));
  return medians(times);
}

/** Median wall / CPU ms of bringing 1,000 rules onto a node that has none (a fresh engine each time). */
function realize(make: () => { update(s: NodeState): unknown }, empty: NodeState, full: NodeState, reps: number): string {
  const times: { wall: number; cpu: number }[] = [];
  for (let i = 0; i < reps; i++) {
    const e = make();
    e.update(empty);
    times.push(timed(() => e.update(full)));
  }
  return medians(times);
}

/** The 1,000 K8s NP state (for profiling). */
export const k8sStateForProfile = (): NodeState => k8sPolicies(baseState());

/** The ACNP state and the same with one rule changed (for profiling). */
export function acnpStatesForProfile(): { a: NodeState; b: NodeState } {
  const rules = acnpRules();
  const a: NodeState = { ...baseState(), policies: [acnp(rules)] };
  return { a, b: { ...a, policies: [acnp(rules.map((r, i) => (i === 0 ? { ...r, services: [{ protocol: 'TCP', port: 9999 }] } : r)), 2)] } };
}

export function runChangeBench(reps = Number(process.env.BENCH_REPS ?? 15)): Record<string, unknown>[] {
  const base = baseState();
  const k8s = k8sPolicies(base);
  const rules = acnpRules();
  const acnpState: NodeState = { ...base, policies: [acnp(rules)] };
  const extraPod = (s: NodeState): NodeState => ({ ...s, pods: [...s.pods, pod(150)] });
  const k8sPortChanged: NodeState = { ...k8s, policies: k8s.policies.map((p, i) => (i === 500 ? { ...p, generation: 2, rules: [{ ...p.rules[0]!, services: [{ protocol: 'TCP', port: 4242 }] }] } : p)) };
  const k8sGroupGrown: NodeState = { ...k8s, addressGroups: k8s.addressGroups.map((g, i) => (i === 500 ? { ...g, groupMembers: [...g.groupMembers, { ips: ['10.250.0.1'] }] } : g)) };
  const acnpRuleChanged: NodeState = { ...acnpState, policies: [acnp(rules.map((r, i) => (i === 0 ? { ...r, services: [{ protocol: 'TCP', port: 9999 }] } : r)), 2)] };
  const cases: [string, NodeState, NodeState][] = [
    ['1,000 K8s NPs: a pod no rule selects added', k8s, extraPod(k8s)],
    ['1,000 K8s NPs: one policy\'s port changed', k8s, k8sPortChanged],
    ['1,000 K8s NPs: one address group +1 member', k8s, k8sGroupGrown],
    ['ACNP of 1,000 rules: a pod no rule selects added', acnpState, extraPod(acnpState)],
    ['ACNP of 1,000 rules: one rule\'s port changed', acnpState, acnpRuleChanged],
  ];
  const rows: Record<string, unknown>[] = [];
  for (const [name, a, b] of cases) {
    rows.push({ case: name, fullMs: perChange(new Full(), a, b, reps), incrementalMs: NodePipeline ? perChange(new NodePipeline(), a, b, reps) : null });
  }
  for (const [name, full] of [['1,000 K8s NPs realized at once', k8s], ['ACNP of 1,000 rules realized at once', acnpState]] as const) {
    rows.push({ case: name, fullMs: realize(() => new Full(), base, full, Math.max(3, reps >> 2)), incrementalMs: NodePipeline ? realize(() => new NodePipeline!(), base, full, Math.max(3, reps >> 2)) : null });
  }
  return rows;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  const rows = runChangeBench();
  console.table(rows);
  console.log(`load average: ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
}
