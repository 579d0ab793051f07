/**
 * A chaos run on a running lab (`switchyard-lab chaos`): conformance scenarios are applied and
 * probed in a loop while faults are injected one after another (an agent, the controller,
 * ovsdb-server or ovs-vswitchd killed with SIGKILL, pods created and deleted). A fault has
 * recovered when every cell of the scenario step in place matches its expected verdict again:
 * the step is re-probed after the fault until it does, within the recovery limit, and its time is
 * the fault's recovery time. A scenario a fault interrupts is run again; a probed cell that never
 * settles (or gets no verdict) is a failure. At the end, with the faults stopped, one scenario is
 * run clean and every node is checked for leftovers: OVS ports, addresses and flows that belong
 * to no pod or to another round.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { run, waitFor } from '@switchyard/testbed';
import type { KubeConfigClient } from '@switchyard/controller';
import { labClient, readState } from './client';
import { agentHealthy, restartAgent, restartController, restartOvsdb, restartVswitchd } from './faults';
import type { LabNodeState, LabState } from './lab';
import { LabError } from './plan';
import { agentGet } from './probe';
import { ScenarioRunner, type StepResult } from './probe-run';
import { expectedAllowed, type ProbeResult, type Scenario } from './scenario';

/** What a chaos run breaks. */
export const FAULT_KINDS = ['agent', 'controller', 'ovsdb-server', 'ovs-vswitchd', 'pod'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface ChaosOptions {
  labDir: string;
  durationMs: number;
  /** Seeds the choice of scenarios, faults, targets and pauses (the report names it). */
  seed: number;
  scenarios: readonly { name: string; scenario: Scenario }[];
  /** Pause before each fault, drawn in [min, max] ms (default 3000-8000). */
  pauseMs?: readonly [number, number];
  /** How long a cell that disagrees is re-probed before it counts as wrong (default 30 s). */
  settleMs?: number;
  /** From a fault to every cell of the scenario step in place matching again, at most (default 60 s). */
  recoveryLimitMs?: number;
  /** Runs of a scenario that faults interrupt before it counts as failed (default 3). */
  maxAttempts?: number;
  /** Progress lines. */
  log?: (line: string) => void;
}

/** One injected fault. */
export interface FaultRecord {
  kind: FaultKind;
  target: string;
  /** ms after the start of the run. */
  at: number;
  /** From the fault to the component (and every agent) healthy again. */
  healthyMs?: number;
  /** From the fault to every cell of the scenario step in place matching again; undefined if not within the limit. */
  recoveryMs?: number;
  /** The step whose cells showed the recovery. */
  checked?: { scenario: string; step: number; cells: number };
  /** Cells that never matched again, with their last verdicts. */
  unsettled?: ChaosDisagreement[];
  error?: string;
}

/** A probed cell that still disagreed with its scenario (or had no verdict) after the settle time. */
export interface ChaosDisagreement {
  scenario: string;
  step: number;
  cell: string;
  expected: boolean;
  dataplane: boolean | null;
  /** Why there was no verdict (dataplane null). */
  unavailable?: string;
}

export interface RecoveryStats {
  n: number;
  p50: number;
  p99: number;
  max: number;
}

export interface ChaosReport {
  seed: number;
  durationMs: number;
  faults: FaultRecord[];
  /** Of recoveryMs: every cell matching again. */
  recovery: Partial<Record<FaultKind | 'all', RecoveryStats>>;
  /** Of healthyMs: processes back and healthy. */
  healthy: Partial<Record<FaultKind | 'all', RecoveryStats>>;
  scenarios: {
    runs: number;
    completed: number;
    /** Runs a fault interrupted (each run again, up to maxAttempts). */
    interrupted: { scenario: string; attempt: number; error: string }[];
    /** Scenarios interrupted maxAttempts times in a row: never completed. */
    abandoned: string[];
    steps: number;
    cells: number;
    reprobed: number;
  };
  disagreements: ChaosDisagreement[];
  /** The clean run after the faults stopped. */
  final: { scenario: string; cells: number; disagreements: ChaosDisagreement[] };
  /** OVS ports, addresses or flows that belong to no pod, or to a stale round. */
  leftovers: string[];
  ok: boolean;
}

/** mulberry32: a small seeded generator, so a run replays with its seed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export function recoveryStats(values: readonly number[]): RecoveryStats | undefined {
  if (values.length === 0) return undefined;
  const v = [...values].sort((a, b) => a - b);
  const at = (q: number): number => v[Math.min(v.length - 1, Math.ceil(q * v.length) - 1)]!;
  return { n: v.length, p50: at(0.5), p99: at(0.99), max: v[v.length - 1]! };
}

const cellName = (c: ProbeResult): string => `${c.from} -> ${c.to} ${c.protocol}/${c.port}${c.sourcePort ? ` from :${c.sourcePort}` : ''}`;

/** Every agent healthy (all parts ok), polled until `timeoutMs`. */
async function allAgentsHealthy(st: LabState, timeoutMs: number): Promise<void> {
  await waitFor('every agent healthy', async () => (await Promise.all(st.nodes.map(agentHealthy))).every(Boolean), { timeoutMs, intervalMs: 100 });
}

/** The expected verdict of a cell of step `r`. */
const wantOf = (r: StepResult) => (c: ProbeResult): boolean =>
  expectedAllowed(r.probes.find((p) => p.protocol === c.protocol && p.port === c.port && p.sourcePort === c.sourcePort)?.expect ?? [], c.from, c.to);

/**
 * Re-probes the cells of a step that disagree with the scenario (a cell without a verdict always
 * does) until none does or `deadline` passes; with `all`, every cell is probed afresh first. The
 * cells' last verdicts, and when they last were all right.
 */
async function settleCells(runner: ScenarioRunner, r: StepResult, o: { all: boolean; deadline: number; onReprobe: (n: number) => void }): Promise<{ cells: ProbeResult[]; off: ProbeResult[]; at: number }> {
  const want = wantOf(r);
  const isOff = (c: ProbeResult): boolean => c.allowed === null || c.allowed !== want(c);
  let cells = r.results;
  let off = o.all ? cells : cells.filter(isOff);
  for (let first = true; off.length > 0 && (first || Date.now() <= o.deadline); first = false) {
    if (!first) await sleep(250);
    o.onReprobe(off.length);
    const again = await runner.reprobe(r.endpoints, off).catch((e: unknown) => off.map((c) => ({ ...c, allowed: null, unavailable: `re-probe failed: ${(e as Error).message}` })));
    const byName = new Map(again.map((c) => [cellName(c), c]));
    cells = cells.map((c) => byName.get(cellName(c)) ?? c);
    off = cells.filter(isOff);
  }
  return { cells, off, at: Date.now() };
}

const disagreement = (scenario: string, step: number, r: StepResult) => (c: ProbeResult): ChaosDisagreement => ({
  scenario,
  step: step + 1,
  cell: cellName(c),
  expected: wantOf(r)(c),
  dataplane: c.allowed,
  ...(c.allowed === null && c.unavailable ? { unavailable: c.unavailable } : {}),
});

/** A fault whose processes are back, waiting for the scenario loop to show its recovery on the step in place. */
interface PendingRecovery {
  rec: FaultRecord;
  t0: number;
  deadline: number;
  done: () => void;
}

export async function runChaos(o: ChaosOptions): Promise<ChaosReport> {
  const st0 = readState(o.labDir);
  if (!st0) throw new LabError('NOT_RUNNING', 'no lab is running');
  if (o.scenarios.length === 0) throw new LabError('INVALID_ARGUMENT', 'a chaos run needs at least one scenario', undefined, 'scenarios');
  const log = o.log ?? ((): void => undefined);
  const random = rng(o.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const kube = labClient(st0);
  const started = Date.now();
  const end = started + o.durationMs;
  const settleMs = o.settleMs ?? 30_000;
  const limitMs = o.recoveryLimitMs ?? 60_000;
  const maxAttempts = o.maxAttempts ?? 3;
  const [pauseMin, pauseMax] = o.pauseMs ?? [3000, 8000];
  const runner = new ScenarioRunner({ kube, state: st0, concurrency: 16, timeoutMs: 1000, readyTimeoutMs: 90_000, keep: (r) => r.kind === 'Namespace' || r.kind === 'Pod' });
  const report: ChaosReport = {
    seed: o.seed,
    durationMs: 0,
    faults: [],
    recovery: {},
    healthy: {},
    scenarios: { runs: 0, completed: 0, interrupted: [], abandoned: [], steps: 0, cells: 0, reprobed: 0 },
    disagreements: [],
    final: { scenario: '', cells: 0, disagreements: [] },
    leftovers: [],
    ok: false,
  };
  const onReprobe = (n: number): void => void (report.scenarios.reprobed += n);

  // Faults whose processes are back; the scenario loop checks each on the next step it probes,
  // before that step's scenario changes anything (a fault's injector waits for its verdict, so
  // there is at most one). `unverified` counts faults from injection to verdict: the scenario
  // loop keeps going until it is 0.
  const pending: PendingRecovery[] = [];
  let unverified = 0;
  const checkRecoveries = async (name: string, i: number, r: StepResult): Promise<void> => {
    for (let f = pending.shift(); f; f = pending.shift()) {
      const s = await settleCells(runner, r, { all: true, deadline: f.deadline, onReprobe });
      f.rec.checked = { scenario: name, step: i + 1, cells: s.cells.length };
      if (s.off.length === 0 && s.at <= f.deadline) f.rec.recoveryMs = s.at - f.t0;
      else {
        f.rec.unsettled = s.off.map(disagreement(name, i, r));
        f.rec.error =
          s.off.length === 0
            ? `every cell of ${name} step ${i + 1} matched only ${s.at - f.t0} ms after the fault, beyond the ${limitMs} ms limit`
            : `${s.off.length} of ${s.cells.length} cells of ${name} step ${i + 1} never matched within ${limitMs} ms: ${f.rec.unsettled.slice(0, 5).map((d) => `${d.cell} expected ${d.expected ? 'allowed' : 'blocked'}, last ${d.dataplane}${d.unavailable ? ` (${d.unavailable})` : ''}`).join('; ')}`;
      }
      f.done();
    }
  };

  // The faults, one at a time, each waited out (processes back, then the cells) before the next pause.
  const podNs = 'chaos';
  await kube.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: podNs } }).catch(() => undefined);
  let podSeq = 0;
  const inject = async (kind: FaultKind, st: LabState): Promise<FaultRecord> => {
    const node = pick(st.nodes);
    const rec: FaultRecord = { kind, target: kind === 'controller' ? 'controller' : node.name, at: Date.now() - started };
    const t0 = Date.now();
    const deadline = t0 + limitMs;
    unverified++;
    try {
      if (kind === 'agent') await restartAgent(o.labDir, node.name, 'SIGKILL');
      else if (kind === 'controller') await restartController(o.labDir, 'SIGKILL');
      else if (kind === 'ovsdb-server') await restartOvsdb(o.labDir, node.name, 'SIGKILL');
      else if (kind === 'ovs-vswitchd') await restartVswitchd(o.labDir, node.name, 'SIGKILL');
      else {
        const name = `churn-${++podSeq}`;
        rec.target = `${node.name}/${podNs}/${name}`;
        await podChurn(kube, podNs, name, node.name);
      }
      await allAgentsHealthy(readState(o.labDir) ?? st, Math.max(1000, deadline - Date.now()));
      if (kind === 'ovs-vswitchd') await waitFor(`${node.name} flows put back`, async () => (await flowLeftovers(node)).length === 0, { timeoutMs: Math.max(1000, deadline - Date.now()), intervalMs: 200 });
      rec.healthyMs = Date.now() - t0;
      await new Promise<void>((done) => pending.push({ rec, t0, deadline, done }));
    } catch (e) {
      rec.error = (e as Error).message;
    } finally {
      unverified--;
    }
    const recovered = rec.error ? `NOT RECOVERED: ${rec.error}` : `healthy in ${rec.healthyMs} ms, ${rec.checked?.cells} cells of ${rec.checked?.scenario} step ${rec.checked?.step} right again in ${rec.recoveryMs} ms`;
    log(`fault ${report.faults.length + 1}: ${rec.kind} ${rec.target} at ${(rec.at / 1000).toFixed(1)} s: ${recovered}`);
    return rec;
  };
  const faults = (async (): Promise<void> => {
    let order: FaultKind[] = [];
    while (Date.now() < end) {
      await sleep(pauseMin + random() * (pauseMax - pauseMin));
      if (Date.now() >= end) break;
      // Every kind once per cycle, in a seeded order: short runs still see each kind.
      if (order.length === 0) order = [...FAULT_KINDS].sort(() => random() - 0.5);
      report.faults.push(await inject(order.shift()!, readState(o.labDir) ?? st0));
    }
  })();

  // The scenarios, in a loop, until the faults stop and the last one's recovery is checked. A
  // scenario a fault interrupts is run again (up to maxAttempts in a row), also after the faults
  // stopped; the loop gives up on unchecked faults only well past the limits.
  const hardStop = end + limitMs + 120_000;
  const scenarioLoop = (async (): Promise<void> => {
    let again: { name: string; scenario: Scenario; attempt: number } | undefined;
    try {
      while ((Date.now() < end || unverified > 0 || again) && Date.now() < hardStop) {
        const { name, scenario, attempt } = again ?? { ...pick(o.scenarios), attempt: 1 };
        report.scenarios.runs++;
        try {
          await runner.run(scenario, async (i, r) => {
            const s = await settleCells(runner, r, { all: false, deadline: Date.now() + settleMs, onReprobe });
            report.scenarios.steps++;
            report.scenarios.cells += s.cells.length;
            report.disagreements.push(...s.off.map(disagreement(name, i, r)));
            await checkRecoveries(name, i, r);
          });
          report.scenarios.completed++;
          again = undefined;
        } catch (e) {
          // Applying or waiting failed under a fault: run it again.
          report.scenarios.interrupted.push({ scenario: name, attempt, error: (e as Error).message.slice(0, 300) });
          if (attempt >= maxAttempts) report.scenarios.abandoned.push(name);
          again = attempt >= maxAttempts ? undefined : { name, scenario, attempt: attempt + 1 };
          await sleep(500);
        }
      }
      if (again) report.scenarios.abandoned.push(again.name);
    } finally {
      for (let f = pending.shift(); f; f = pending.shift()) {
        f.rec.error = 'no scenario step was probed after the fault';
        f.done();
      }
    }
  })();
  await Promise.all([faults, scenarioLoop]);

  // Faults stopped: everything healthy, one clean scenario, then leftovers.
  const st = readState(o.labDir) ?? st0;
  try {
    await allAgentsHealthy(st, 60_000);
    const last = o.scenarios[0]!;
    report.final.scenario = last.name;
    await runner.run(last.scenario, async (i, r) => {
      const s = await settleCells(runner, r, { all: false, deadline: Date.now() + 10_000, onReprobe });
      report.final.cells += s.cells.length;
      report.final.disagreements.push(...s.off.map(disagreement(last.name, i, r)));
    });
    await deletePods(kube, podNs);
    for (const n of st.nodes) report.leftovers.push(...(await nodeLeftovers(kube, n)));
  } catch (e) {
    report.leftovers.push(`final check failed: ${(e as Error).message}`);
  } finally {
    runner.close();
  }
  report.durationMs = Date.now() - started;
  report.recovery = statsByKind(report.faults, (f) => f.recoveryMs);
  report.healthy = statsByKind(report.faults, (f) => f.healthyMs);
  report.ok =
    report.faults.every((f) => !f.error && f.recoveryMs !== undefined) &&
    report.scenarios.abandoned.length === 0 &&
    report.scenarios.completed > 0 &&
    report.disagreements.length === 0 &&
    report.final.disagreements.length === 0 &&
    report.final.cells > 0 &&
    report.leftovers.length === 0;
  return report;
}

/** Percentiles of `value` over the faults that have one, per kind and over all. */
function statsByKind(faults: readonly FaultRecord[], value: (f: FaultRecord) => number | undefined): Partial<Record<FaultKind | 'all', RecoveryStats>> {
  const by = new Map<FaultKind | 'all', number[]>();
  for (const f of faults) {
    const v = value(f);
    if (v !== undefined) for (const k of [f.kind, 'all'] as const) by.set(k, [...(by.get(k) ?? []), v]);
  }
  return Object.fromEntries([...by].map(([k, v]) => [k, recoveryStats(v)!]));
}

/** Creates a pod on `node`, waits until it runs with an IP, deletes it and waits until it is gone. */
async function podChurn(kube: KubeConfigClient, ns: string, name: string, node: string): Promise<void> {
  await kube.request('POST', `/api/v1/namespaces/${ns}/pods`, { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns, labels: { chaos: 'churn' } }, spec: { nodeName: node, containers: [{ name: 'c', image: 'pause' }] } });
  await waitFor(`pod ${ns}/${name} running`, async () => {
    const p = await kube.request<{ status?: { podIP?: string; phase?: string } }>('GET', `/api/v1/namespaces/${ns}/pods/${name}`);
    return p.status?.phase === 'Running' && !!p.status.podIP;
  }, { timeoutMs: 60_000, intervalMs: 100 });
  await kube.request('DELETE', `/api/v1/namespaces/${ns}/pods/${name}`);
  await waitFor(`pod ${ns}/${name} gone`, async () => (await kube.request('GET', `/api/v1/namespaces/${ns}/pods/${name}`).then(() => false, () => true)), { timeoutMs: 60_000, intervalMs: 100 });
}

async function deletePods(kube: KubeConfigClient, ns: string): Promise<void> {
  const list = await kube.request<{ items: { metadata: { name: string } }[] }>('GET', `/api/v1/namespaces/${ns}/pods`);
  for (const p of list.items) await kube.request('DELETE', `/api/v1/namespaces/${ns}/pods/${p.metadata.name}`).catch(() => undefined);
  await waitFor(`pods of ${ns} gone`, async () => (await kube.request<{ items: unknown[] }>('GET', `/api/v1/namespaces/${ns}/pods`)).items.length === 0, { timeoutMs: 60_000, intervalMs: 200 });
}

/** Flows OVS holds that the agent did not compute: a count mismatch, or cookies of more than one round. */
async function flowLeftovers(n: LabNodeState): Promise<string[]> {
  const health = await agentGet<{ controllers?: { name: string; ok: boolean; detail: string }[] }>(n.apiSocket, '/healthz?verbose');
  const detail = health.controllers?.find((p) => p.name === 'node')?.detail ?? '';
  const computed = Number(/(\d+) flows/.exec(detail)?.[1] ?? NaN);
  const dump = (await run(['ovs-ofctl', '-O', 'OpenFlow15', 'dump-flows', join(dirname(n.vswitchdCtl), 'br-int.mgmt')], { allowFailure: true })).stdout;
  const cookies = new Set<bigint>();
  let flows = 0;
  for (const line of dump.split('\n')) {
    const m = /cookie=(0x[0-9a-f]+)/.exec(line);
    if (!m) continue;
    flows++;
    cookies.add(BigInt(m[1]!) >> 48n);
  }
  const out: string[] = [];
  if (flows !== computed) out.push(`${n.name}: OVS holds ${flows} flows, the agent computed ${Number.isNaN(computed) ? `? (${detail})` : computed}`);
  if (cookies.size > 1) out.push(`${n.name}: flows of ${cookies.size} rounds (${[...cookies].join(', ')})`);
  return out;
}

/** Ports, addresses and flows on a node that belong to no pod the API server has there. */
async function nodeLeftovers(kube: KubeConfigClient, n: LabNodeState): Promise<string[]> {
  const out: string[] = [];
  const pods = await kube.request<{ items: { metadata: { namespace: string; name: string }; spec?: { nodeName?: string }; status?: { podIP?: string } }[] }>('GET', `/api/v1/pods?fieldSelector=spec.nodeName=${n.name}`);
  const apiPods = new Map(pods.items.map((p) => [`${p.metadata.namespace}/${p.metadata.name}`, p.status?.podIP ?? '']));
  const ifaces = await agentGet<{ podNamespace: string; podName: string; hostIfName: string; ipCidr: string }[]>(n.apiSocket, '/podinterfaces');
  const agentPods = new Map(ifaces.map((i) => [`${i.podNamespace}/${i.podName}`, i]));
  for (const [ref, ip] of apiPods) if (agentPods.get(ref)?.ipCidr.split('/')[0] !== ip) out.push(`${n.name}: pod ${ref} (${ip || 'no IP'}) has no matching interface on the agent`);
  for (const ref of agentPods.keys()) if (!apiPods.has(ref)) out.push(`${n.name}: the agent still has an interface for ${ref}, which is gone`);
  const ports = (await run(['ovs-vsctl', `--db=${n.dbRemote}`, 'list-ports', 'br-int'])).stdout.split('\n').filter(Boolean);
  const podPorts = new Set(ifaces.map((i) => i.hostIfName));
  const extra = ports.filter((p) => !podPorts.has(p) && !/^sy-(gw|tun)/.test(p) && !p.startsWith('antrea-'));
  if (extra.length > 0) out.push(`${n.name}: OVS ports of no pod: ${extra.join(', ')}`);
  // host-local address files: one per allocated address.
  const ipamRoot = join(n.apiSocket, '..', 'data', 'networks');
  const allocated = readdirSync(ipamRoot, { recursive: true, withFileTypes: true }).filter((d) => d.isFile() && /^\d+\.\d+\.\d+\.\d+$/.test(d.name)).map((d) => d.name);
  const podIps = new Set(apiPods.values());
  const leaked = allocated.filter((ip) => !podIps.has(ip));
  if (leaked.length > 0) out.push(`${n.name}: addresses allocated to no pod: ${leaked.join(', ')}`);
  out.push(...(await flowLeftovers(n)));
  return out;
}

/** The conformance scenarios of `suites` under `dir` (tools/lab/conformance), named `<suite>/<file>`. */
export function loadScenarios(dir: string, suites: readonly string[], parse: (text: string, name: string) => Scenario): { name: string; scenario: Scenario }[] {
  return suites.flatMap((suite) =>
    readdirSync(join(dir, suite))
      .filter((f) => f.endsWith('.yaml'))
      .sort()
      .map((f) => ({ name: `${suite}/${f}`, scenario: parse(readFileSync(join(dir, suite, f), 'utf8'), `${suite}/${f}`) })),
  );
}

/** The report as the CLI prints it (`-o table`). */
export function formatChaosReport(r: ChaosReport): string {
  const lines = [`chaos run: ${(r.durationMs / 1000).toFixed(0)} s, seed ${r.seed}, ${r.faults.length} faults, ${r.ok ? 'PASSED' : 'FAILED'}`, '', 'FAULT\tTARGET\tAT (s)\tHEALTHY (ms)\tRECOVERY (ms)\tCHECKED ON'];
  for (const f of r.faults)
    lines.push(`${f.kind}\t${f.target}\t${(f.at / 1000).toFixed(1)}\t${f.healthyMs ?? '-'}\t${f.recoveryMs ?? `not recovered: ${f.error}`}\t${f.checked ? `${f.checked.scenario} step ${f.checked.step} (${f.checked.cells} cells)` : '-'}`);
  lines.push('', 'KIND\tN\tP50 (ms)\tP99 (ms)\tMAX (ms)\tHEALTHY P50/P99 (ms)');
  for (const [k, s] of Object.entries(r.recovery)) {
    const h = r.healthy[k as FaultKind | 'all'];
    lines.push(`${k}\t${s.n}\t${s.p50}\t${s.p99}\t${s.max}\t${h ? `${h.p50}/${h.p99}` : '-'}`);
  }
  const sc = r.scenarios;
  lines.push('', `scenarios: ${sc.runs} runs, ${sc.completed} completed, ${sc.interrupted.length} interrupted by a fault (run again), ${sc.abandoned.length} never completed${sc.abandoned.length ? ` (${sc.abandoned.join(', ')})` : ''}, ${sc.steps} steps, ${sc.cells} cells, ${sc.reprobed} re-probes`);
  lines.push(`disagreements after settling: ${r.disagreements.length}${r.disagreements.slice(0, 10).map((d) => `\n  ${d.scenario} step ${d.step}: ${d.cell} expected ${d.expected ? 'allowed' : 'blocked'}, got ${d.dataplane}${d.unavailable ? ` (${d.unavailable})` : ''}`).join('')}`);
  lines.push(`final clean run (${r.final.scenario}): ${r.final.cells} cells, ${r.final.disagreements.length} disagreements`);
  lines.push(`leftovers: ${r.leftovers.length === 0 ? 'none' : `\n  ${r.leftovers.join('\n  ')}`}`);
  return `${lines.join('\n')}\n`;
}
