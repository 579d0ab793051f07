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
import { agentHealthReport, agentHealthy, restartAgent, restartController, restartOvsdb, restartVswitchd } from './faults';
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
  /** Why `ok` is false, one line per reason (empty when it is true): what a red CI run shows first. */
  failures: string[];
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
  try {
    await waitFor('every agent healthy', async () => (await Promise.all(st.nodes.map(agentHealthy))).every(Boolean), { timeoutMs, intervalMs: 100 });
  } catch (e) {
    // The report names the agents still unhealthy and why: a CI run keeps nothing else of the lab.
    const bad = (await Promise.all(st.nodes.map(async (n) => ((await agentHealthy(n)) ? undefined : n)))).filter((n) => n !== undefined);
    throw new Error(`${(e as Error).message}; ${(await Promise.all(bad.map((n) => agentHealthReport(n)))).join('; ')}`);
  }
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

/** Namespace of the pods the `pod` fault creates and deletes. */
const CHAOS_NAMESPACE = 'chaos';

const emptyReport = (seed: number): ChaosReport => ({
  seed,
  durationMs: 0,
  faults: [],
  recovery: {},
  healthy: {},
  scenarios: { runs: 0, completed: 0, interrupted: [], abandoned: [], steps: 0, cells: 0, reprobed: 0 },
  disagreements: [],
  final: { scenario: '', cells: 0, disagreements: [] },
  leftovers: [],
  failures: [],
  ok: false,
});

/** One chaos run: the fault loop and the scenario loop side by side, then the clean final check. */
class ChaosRun {
  readonly report: ChaosReport;
  private readonly log: (line: string) => void;
  private readonly random: () => number;
  private readonly kube: KubeConfigClient;
  private readonly runner: ScenarioRunner;
  private readonly started = Date.now();
  private readonly end: number;
  private readonly settleMs: number;
  private readonly limitMs: number;
  private readonly maxAttempts: number;
  /**
   * Faults whose processes are back; the scenario loop checks each on the next step it probes,
   * before that step's scenario changes anything (a fault's injector waits for its verdict, so
   * there is at most one).
   */
  private readonly pending: PendingRecovery[] = [];
  /** Faults from injection to verdict: the scenario loop keeps going until it is 0. */
  private unverified = 0;
  /** Faults from injection until their processes are back and healthy (or the limit passed). */
  private recovering = 0;
  private podSeq = 0;

  constructor(
    private readonly o: ChaosOptions,
    private readonly st0: LabState,
  ) {
    this.report = emptyReport(o.seed);
    this.log = o.log ?? ((): void => undefined);
    this.random = rng(o.seed);
    this.kube = labClient(st0);
    this.end = this.started + o.durationMs;
    this.settleMs = o.settleMs ?? 30_000;
    this.limitMs = o.recoveryLimitMs ?? 60_000;
    this.maxAttempts = o.maxAttempts ?? 3;
    this.runner = new ScenarioRunner({ kube: this.kube, state: st0, concurrency: 16, timeoutMs: 1000, readyTimeoutMs: 90_000, keep: (r) => r.kind === 'Namespace' || r.kind === 'Pod' });
  }

  async run(): Promise<ChaosReport> {
    await this.kube.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: CHAOS_NAMESPACE } }).catch(() => undefined);
    await Promise.all([this.faultLoop(), this.scenarioLoop()]);
    await this.finalCheck();
    return this.verdict();
  }

  private pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.random() * xs.length)]!;
  }

  private readonly onReprobe = (n: number): void => void (this.report.scenarios.reprobed += n);

  /** Settles the step in place for every fault waiting for its verdict, and gives it. */
  private async checkRecoveries(name: string, i: number, r: StepResult): Promise<void> {
    for (let f = this.pending.shift(); f; f = this.pending.shift()) {
      const s = await settleCells(this.runner, r, { all: true, deadline: f.deadline, onReprobe: this.onReprobe });
      f.rec.checked = { scenario: name, step: i + 1, cells: s.cells.length };
      if (s.off.length === 0 && s.at <= f.deadline) f.rec.recoveryMs = s.at - f.t0;
      else {
        f.rec.unsettled = s.off.map(disagreement(name, i, r));
        f.rec.error =
          s.off.length === 0
            ? `every cell of ${name} step ${i + 1} matched only ${s.at - f.t0} ms after the fault, beyond the ${this.limitMs} ms limit`
            : `${s.off.length} of ${s.cells.length} cells of ${name} step ${i + 1} never matched within ${this.limitMs} ms: ${f.rec.unsettled.slice(0, 5).map((d) => `${d.cell} expected ${d.expected ? 'allowed' : 'blocked'}, last ${d.dataplane}${d.unavailable ? ` (${d.unavailable})` : ''}`).join('; ')}`;
      }
      f.done();
    }
  }

  /** Breaks one thing of this kind. */
  private async breakOne(kind: FaultKind, node: LabNodeState, rec: FaultRecord): Promise<void> {
    if (kind === 'agent') await restartAgent(this.o.labDir, node.name, 'SIGKILL');
    else if (kind === 'controller') await restartController(this.o.labDir, 'SIGKILL');
    else if (kind === 'ovsdb-server') await restartOvsdb(this.o.labDir, node.name, 'SIGKILL');
    else if (kind === 'ovs-vswitchd') await restartVswitchd(this.o.labDir, node.name, 'SIGKILL');
    else {
      const name = `churn-${++this.podSeq}`;
      rec.target = `${node.name}/${CHAOS_NAMESPACE}/${name}`;
      await podChurn(this.kube, CHAOS_NAMESPACE, name, node.name);
    }
  }

  /** One fault, waited out: processes back, then the scenario loop's verdict on the cells. */
  private async inject(kind: FaultKind, st: LabState): Promise<FaultRecord> {
    const node = this.pick(st.nodes);
    const rec: FaultRecord = { kind, target: kind === 'controller' ? 'controller' : node.name, at: Date.now() - this.started };
    const t0 = Date.now();
    const deadline = t0 + this.limitMs;
    this.unverified++;
    this.recovering++;
    try {
      try {
        await this.breakOne(kind, node, rec);
        await allAgentsHealthy(readState(this.o.labDir) ?? st, Math.max(1000, deadline - Date.now()));
        if (kind === 'ovs-vswitchd') await waitFor(`${node.name} flows put back`, async () => (await flowLeftovers(node)).length === 0, { timeoutMs: Math.max(1000, deadline - Date.now()), intervalMs: 200 });
        rec.healthyMs = Date.now() - t0;
      } finally {
        this.recovering--;
      }
      await new Promise<void>((done) => this.pending.push({ rec, t0, deadline, done }));
    } catch (e) {
      rec.error = (e as Error).message;
    } finally {
      this.unverified--;
    }
    const recovered = rec.error ? `NOT RECOVERED: ${rec.error}` : `healthy in ${rec.healthyMs} ms, ${rec.checked?.cells} cells of ${rec.checked?.scenario} step ${rec.checked?.step} right again in ${rec.recoveryMs} ms`;
    this.log(`fault ${this.report.faults.length + 1}: ${rec.kind} ${rec.target} at ${(rec.at / 1000).toFixed(1)} s: ${recovered}`);
    return rec;
  }

  /** The faults, one at a time, each waited out (processes back, then the cells) before the next pause. */
  private async faultLoop(): Promise<void> {
    const [pauseMin, pauseMax] = this.o.pauseMs ?? [3000, 8000];
    let order: FaultKind[] = [];
    while (Date.now() < this.end) {
      await sleep(pauseMin + this.random() * (pauseMax - pauseMin));
      if (Date.now() >= this.end) break;
      // Every kind once per cycle, in a seeded order: short runs still see each kind.
      if (order.length === 0) order = [...FAULT_KINDS].sort(() => this.random() - 0.5);
      this.report.faults.push(await this.inject(order.shift()!, readState(this.o.labDir) ?? this.st0));
    }
  }

  /**
   * The scenarios, in a loop, until the faults stop and the last one's recovery is checked. A
   * scenario a fault interrupts is run again (up to maxAttempts in a row), also after the faults
   * stopped; the loop gives up on unchecked faults only well past the limits.
   */
  private async scenarioLoop(): Promise<void> {
    const hardStop = this.end + this.limitMs + 120_000;
    const sc = this.report.scenarios;
    let again: { name: string; scenario: Scenario; attempt: number } | undefined;
    try {
      while ((Date.now() < this.end || this.unverified > 0 || again) && Date.now() < hardStop) {
        const { name, scenario, attempt } = again ?? { ...this.pick(this.o.scenarios), attempt: 1 };
        sc.runs++;
        try {
          await this.runner.run(scenario, async (i, r) => {
            const s = await settleCells(this.runner, r, { all: false, deadline: Date.now() + this.settleMs, onReprobe: this.onReprobe });
            sc.steps++;
            sc.cells += s.cells.length;
            this.report.disagreements.push(...s.off.map(disagreement(name, i, r)));
            await this.checkRecoveries(name, i, r);
          });
          sc.completed++;
          again = undefined;
        } catch (e) {
          // Applying or waiting failed under a fault: run it again once the fault's processes are
          // back (a controller down refuses every apply through its webhook until it serves again:
          // CI saw two attempts 500 ms apart both refused while it restarted).
          sc.interrupted.push({ scenario: name, attempt, error: (e as Error).message.slice(0, 300) });
          if (attempt >= this.maxAttempts) sc.abandoned.push(name);
          again = attempt >= this.maxAttempts ? undefined : { name, scenario, attempt: attempt + 1 };
          await sleep(500);
          await waitFor('the faulted processes back', () => this.recovering === 0, { timeoutMs: this.limitMs, intervalMs: 100 }).catch(() => undefined);
        }
      }
      if (again) sc.abandoned.push(again.name);
    } finally {
      for (let f = this.pending.shift(); f; f = this.pending.shift()) {
        f.rec.error = 'no scenario step was probed after the fault';
        f.done();
      }
    }
  }

  /** Faults stopped: everything healthy, one clean scenario, then leftovers. */
  private async finalCheck(): Promise<void> {
    const st = readState(this.o.labDir) ?? this.st0;
    const final = this.report.final;
    try {
      await allAgentsHealthy(st, 60_000);
      const last = this.o.scenarios[0]!;
      final.scenario = last.name;
      await this.runner.run(last.scenario, async (i, r) => {
        const s = await settleCells(this.runner, r, { all: false, deadline: Date.now() + 10_000, onReprobe: this.onReprobe });
        final.cells += s.cells.length;
        final.disagreements.push(...s.off.map(disagreement(last.name, i, r)));
      });
      await deletePods(this.kube, CHAOS_NAMESPACE);
      for (const n of st.nodes) this.report.leftovers.push(...(await nodeLeftovers(this.kube, n)));
    } catch (e) {
      this.report.leftovers.push(`final check failed: ${(e as Error).message}`);
    } finally {
      this.runner.close();
    }
  }

  private verdict(): ChaosReport {
    const report = this.report;
    report.durationMs = Date.now() - this.started;
    report.recovery = statsByKind(report.faults, (f) => f.recoveryMs);
    report.healthy = statsByKind(report.faults, (f) => f.healthyMs);
    report.failures = chaosFailures(report);
    report.ok = report.failures.length === 0;
    return report;
  }
}

/** Runs chaos on the lab in `o.labDir` for `o.durationMs`, then checks it clean; see the file's head. */
export async function runChaos(o: ChaosOptions): Promise<ChaosReport> {
  const st0 = readState(o.labDir);
  if (!st0) throw new LabError('NOT_RUNNING', 'no lab is running');
  if (o.scenarios.length === 0) throw new LabError('INVALID_ARGUMENT', 'a chaos run needs at least one scenario', undefined, 'scenarios');
  return new ChaosRun(o, st0).run();
}

/** Every reason a chaos report is not ok: faults not recovered, scenarios never completed, wrong cells, leftovers. */
export function chaosFailures(r: Omit<ChaosReport, 'failures' | 'ok'>): string[] {
  const out: string[] = [];
  r.faults.forEach((f, i) => {
    if (f.error || f.recoveryMs === undefined) out.push(`fault ${i + 1} (${f.kind} ${f.target} at ${(f.at / 1000).toFixed(1)} s) not recovered: ${f.error ?? 'no recovery time'}`);
  });
  const sc = r.scenarios;
  if (sc.abandoned.length > 0) out.push(`scenarios never completed: ${sc.abandoned.join(', ')}; their last errors: ${sc.interrupted.filter((x) => sc.abandoned.includes(x.scenario)).slice(-3).map((x) => `${x.scenario} attempt ${x.attempt}: ${x.error}`).join('; ')}`);
  if (sc.completed === 0) out.push(`no scenario completed (${sc.runs} runs)`);
  if (r.disagreements.length > 0) out.push(`${r.disagreements.length} cells disagreed after settling, first: ${r.disagreements.slice(0, 3).map((d) => `${d.scenario} step ${d.step} ${d.cell} expected ${d.expected ? 'allowed' : 'blocked'}, got ${d.dataplane}`).join('; ')}`);
  if (r.final.cells === 0) out.push(`the clean final run of ${r.final.scenario || 'a scenario'} probed no cell`);
  if (r.final.disagreements.length > 0) out.push(`${r.final.disagreements.length} cells of the clean final run disagreed`);
  if (r.leftovers.length > 0) out.push(`leftovers: ${r.leftovers.slice(0, 5).join('; ')}`);
  return out;
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
  if (r.failures.length > 0) lines.push(`failed because: \n  ${r.failures.join('\n  ')}`);
  return `${lines.join('\n')}\n`;
}
