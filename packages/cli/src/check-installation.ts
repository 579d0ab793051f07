// `yardctl check installation`: runs the checks in order against a cluster through the Kubernetes
// API (control plane ready, test pods, pod-to-pod and pod-to-Service connections, a deny-all
// ingress NetworkPolicy), then deletes its test namespace whatever happened.
import type { KubeWriter } from './client';
import type { ClientPod, ConnectOutcome, PodConnector } from './check-connect';
import {
  agentInfosReadiness, controllerInfoReadiness, controlPlanePaths, daemonSetReadiness, deploymentReadiness,
  AGENT_DAEMONSET, CONTROLLER_DEPLOYMENT, type AgentInfoLike, type ControllerInfoLike, type DaemonSetLike, type DeploymentLike, type NodeLike, type Readiness,
} from './check-controlplane';
import { tally, type CheckResult, type InstallationReport } from './check-report';
import {
  denyAllIngressManifest, namespaceManifest, planWorkload, podManifest, serviceManifest, usableNodes, DENY_ALL_POLICY, ECHO_PORT,
  type NodeView, type TestPod, type WorkloadPlan,
} from './check-workload';
import { CliError } from './errors';

/** Time as the run sees it; injected so tests drive it. */
export interface CheckClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const systemClock: CheckClock = { now: () => Date.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) };

export interface InstallationCheckOptions {
  kube: KubeWriter;
  /** The connector for a client pod (`pods/exec`; tests inject their own), chosen once the pod is known. */
  connectorFor(pod: ClientPod): PodConnector;
  /** The test namespace, created by the run and deleted at its end. */
  namespace: string;
  /** Where the Switchyard Deployment and DaemonSet are looked for. */
  switchyardNamespace: string;
  image: string;
  /** Limit of each wait (workloads ready, pods Ready, a connection to open or be blocked). */
  waitMs: number;
  clock?: CheckClock;
  /** Aborts the run (Ctrl-C): the running wait stops, the namespace is still deleted. */
  signal?: AbortSignal;
  /** Progress, one line per step (stderr). */
  progress?: (line: string) => void;
}

/** Thrown out of a wait when the run is aborted. */
class Interrupted extends Error {}

/** Thrown out of a wait when connections cannot be attempted at all: waiting longer will not help. */
class CannotConnect extends Error {}

const POLL_MS = 500;
/** Time limit of one connection attempt (s). */
const CONNECT_TIMEOUT_S = 3;

const httpStatus = (e: unknown): unknown => (e instanceof CliError ? e.value : undefined);

interface Running {
  pod: ClientPod;
  ip: string;
}

/** One run: its options, its checks so far, and the test pods once Ready. */
class InstallationRun {
  readonly checks: CheckResult[] = [];
  private readonly clock: CheckClock;
  private readonly ns: string;
  readonly pods = new Map<string, Running>();
  readonly serviceIPs = new Map<string, string>();
  plan: WorkloadPlan | undefined;
  namespaceCreated = false;
  connector: PodConnector | undefined;

  constructor(readonly o: InstallationCheckOptions) {
    this.clock = o.clock ?? systemClock;
    this.ns = `/api/v1/namespaces/${o.namespace}`;
  }

  /** Runs `body` as check `name`: its verdict, message and duration. */
  async check(name: string, body: () => Promise<{ result: 'Pass' | 'Skip'; message: string }>): Promise<void> {
    const t0 = this.clock.now();
    this.o.progress?.(`running ${name}`);
    try {
      const r = await body();
      this.checks.push({ name, ...r, durationMs: this.clock.now() - t0 });
    } catch (e) {
      this.checks.push({ name, result: 'Fail', message: (e as Error).message, durationMs: this.clock.now() - t0 });
      if (e instanceof Interrupted) throw e;
    }
  }

  /** Polls `probe` until it is ready or the wait limit passes; resolves with the last readiness. */
  async until(probe: () => Promise<Readiness>): Promise<Readiness> {
    const deadline = this.clock.now() + this.o.waitMs;
    for (;;) {
      if (this.o.signal?.aborted) throw new Interrupted('interrupted');
      let r: Readiness;
      try {
        r = await probe();
      } catch (e) {
        if (e instanceof CannotConnect) throw e;
        r = { ready: false, message: (e as Error).message };
      }
      if (r.ready || this.clock.now() >= deadline) return r;
      await this.clock.sleep(POLL_MS);
    }
  }

  /** `until`, then Pass with its message or Fail naming the wait limit. */
  async waitPass(probe: () => Promise<Readiness>): Promise<{ result: 'Pass'; message: string }> {
    const r = await this.until(probe);
    if (!r.ready) throw new Error(`${r.message} (after ${this.o.waitMs / 1000}s)`);
    return { result: 'Pass', message: r.message };
  }

  get<T>(path: string): Promise<T> {
    return this.o.kube.request<T>('GET', path);
  }

  /** GET, or undefined on 404. */
  async find<T>(path: string): Promise<T | undefined> {
    try {
      return await this.get<T>(path);
    } catch (e) {
      if (httpStatus(e) === 404) return undefined;
      throw e;
    }
  }

  now(): number {
    return this.clock.now();
  }

  path(rest: string): string {
    return `${this.ns}${rest}`;
  }
}

async function controllerReady(run: InstallationRun): Promise<Readiness> {
  const p = controlPlanePaths(run.o.switchyardNamespace);
  const ref = `${run.o.switchyardNamespace}/${CONTROLLER_DEPLOYMENT}`;
  const d = await run.find<DeploymentLike>(p.deployment);
  if (d) return deploymentReadiness(d, ref);
  const info = await run.find<ControllerInfoLike>(p.controllerInfo);
  if (!info) return { ready: false, message: `neither Deployment ${ref} nor AntreaControllerInfo antrea-controller found: is Switchyard installed (or --switchyard-namespace wrong)?` };
  return controllerInfoReadiness(info, run.now(), `no Deployment ${ref}: not a Kubernetes workload`);
}

async function agentsReady(run: InstallationRun): Promise<Readiness> {
  const p = controlPlanePaths(run.o.switchyardNamespace);
  const ref = `${run.o.switchyardNamespace}/${AGENT_DAEMONSET}`;
  const ds = await run.find<DaemonSetLike>(p.daemonSet);
  if (ds) return daemonSetReadiness(ds, ref);
  const [nodes, infos] = await Promise.all([run.get<{ items: NodeLike[] }>(p.nodes), run.find<{ items: AgentInfoLike[] }>(p.agentInfos)]);
  return agentInfosReadiness(nodes.items, infos?.items ?? [], run.now(), `no DaemonSet ${ref}: not Kubernetes workloads`);
}

interface PodView {
  metadata: { name: string };
  spec?: { nodeName?: string; containers?: { name: string }[] };
  status?: { phase?: string; podIP?: string; conditions?: { type: string; status: string }[]; containerStatuses?: { state?: { waiting?: { reason?: string } } }[] };
}

/** Why a pod is not Ready, as `kubectl get pod` would show it: the phase and a container's waiting reason. */
function podState(p: PodView | undefined): string {
  if (!p) return 'not found';
  const waiting = (p.status?.containerStatuses ?? []).map((c) => c.state?.waiting?.reason).find((r) => r !== undefined);
  return [p.status?.phase ?? 'no status', waiting].filter(Boolean).join(', ');
}

const podReady = (p: PodView): boolean => Boolean(p.status?.podIP) && (p.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

/** Creates the namespace (refusing one that exists), the pods and the Services. */
async function createWorkload(run: InstallationRun): Promise<{ plan: WorkloadPlan; nodes: string[] }> {
  const { kube, image, namespace } = run.o;
  const nodes = usableNodes((await run.get<{ items: NodeView[] }>('/api/v1/nodes')).items);
  if (nodes.length === 0) throw new Error('no Ready, schedulable Node to run test pods on');
  const plan = planWorkload(nodes);
  run.plan = plan;
  try {
    await kube.request('POST', '/api/v1/namespaces', namespaceManifest(namespace));
  } catch (e) {
    if (httpStatus(e) === 409) throw new Error(`namespace ${namespace} already exists: the check creates and deletes its own namespace, pick another --namespace`);
    throw e;
  }
  run.namespaceCreated = true;
  for (const p of [plan.client, plan.sameNode, ...plan.otherNodes]) await kube.request('POST', run.path('/pods'), podManifest(p, image));
  await kube.request('POST', run.path('/services'), serviceManifest('echo-same-node', plan.sameNode));
  if (plan.otherNodes[0]) await kube.request('POST', run.path('/services'), serviceManifest('echo-other-node', plan.otherNodes[0]));
  return { plan, nodes };
}

/** Creates the workload; waits for the ClusterIPs and the pods Ready. */
async function testPodsReady(run: InstallationRun): Promise<{ result: 'Pass'; message: string }> {
  const { plan, nodes } = await createWorkload(run);
  const all = [plan.client, plan.sameNode, ...plan.otherNodes];
  // ClusterIPs first: the Service checks of the pods that are Ready can run even if another pod is not.
  await run.waitPass(async () => {
    for (const s of plan.otherNodes[0] ? ['echo-same-node', 'echo-other-node'] : ['echo-same-node']) {
      const ip = (await run.get<{ spec?: { clusterIP?: string } }>(run.path(`/services/${s}`))).spec?.clusterIP;
      if (!ip || ip === 'None') return { ready: false, message: `Service ${s} has no ClusterIP` };
      run.serviceIPs.set(s, ip);
    }
    return { ready: true, message: '' };
  });
  return run.waitPass(async () => {
    const list = await run.get<{ items: PodView[] }>(run.path('/pods'));
    const byName = new Map(list.items.map((p) => [p.metadata.name, p]));
    const waiting = all.filter((p) => !podReady(byName.get(p.name) ?? { metadata: { name: p.name } }));
    for (const p of all) {
      const v = byName.get(p.name);
      if (v && podReady(v)) run.pods.set(p.name, { ip: v.status!.podIP!, pod: { namespace: run.o.namespace, name: p.name, container: v.spec?.containers?.[0]?.name ?? p.role } });
    }
    if (waiting.length) return { ready: false, message: `not Ready: ${waiting.map((p) => `${p.name} on ${p.node} (${podState(byName.get(p.name))})`).join(', ')}` };
    return { ready: true, message: `${all.length} pods Ready on ${nodes.length} node(s): ${all.map((p) => `${p.name}@${p.node}`).join(', ')}` };
  });
}

/** The client, Ready, with its connector; or a failure naming the pod that is not. */
function client(run: InstallationRun): { from: Running; connector: PodConnector } {
  const plan = run.plan;
  const from = plan ? run.pods.get(plan.client.name) : undefined;
  if (!plan || !from) throw new Error(`not run: the client pod is not Ready${plan ? ` (${plan.client.name} on ${plan.client.node})` : ''}`);
  run.connector ??= run.o.connectorFor(from.pod);
  return { from, connector: run.connector };
}

/** A Ready echo pod to connect to; the client's readiness is checked first, the more basic failure. */
function target(run: InstallationRun, p: TestPod): Running {
  client(run);
  const t = run.pods.get(p.name);
  if (!t) throw new Error(`not run: test pod ${p.name} on ${p.node} is not Ready`);
  return t;
}

/** One connection attempt to each target; an attempt that could not be made at all ends the check. */
async function attempt(connector: PodConnector, from: Running, targets: readonly { ip: string }[]): Promise<ConnectOutcome[]> {
  const outcomes = await Promise.all(targets.map((t) => connector.connect(from.pod, t.ip, ECHO_PORT, CONNECT_TIMEOUT_S)));
  const fatal = outcomes.find((o) => o.fatal);
  if (fatal) throw new CannotConnect(`no connection could be made: ${fatal.detail}`);
  return outcomes;
}

/** Connects to each target until every one opens (or the wait ends). */
async function reachAll(run: InstallationRun, targets: { label: string; ip: string }[]): Promise<{ result: 'Pass'; message: string }> {
  const { from, connector } = client(run);
  const open = new Set<string>();
  return run.waitPass(async () => {
    const left = targets.filter((t) => !open.has(t.label));
    const outcomes = await attempt(connector, from, left);
    const failed: string[] = [];
    left.forEach((t, i) => (outcomes[i]!.ok ? open.add(t.label) : failed.push(`${t.label} ${t.ip}:${ECHO_PORT}: ${outcomes[i]!.detail}`)));
    if (failed.length) return { ready: false, message: `${run.plan!.client.name}@${run.plan!.client.node} cannot connect to ${failed.join('; ')}` };
    return { ready: true, message: `${run.plan!.client.name}@${run.plan!.client.node} connected to ${targets.map((t) => `${t.label} ${t.ip}:${ECHO_PORT}`).join(', ')}` };
  });
}

const echoTarget = (run: InstallationRun, p: TestPod) => ({ label: `${p.name}@${p.node}`, ip: target(run, p).ip });

async function denyAllIngress(run: InstallationRun): Promise<{ result: 'Pass'; message: string }> {
  const plan = run.plan;
  if (!plan) throw new Error('not run: no test pods');
  const { from, connector } = client(run);
  const targets = [plan.sameNode, ...plan.otherNodes].map((p) => echoTarget(run, p));
  const t0 = run.now();
  await run.o.kube.request('POST', `/apis/networking.k8s.io/v1/namespaces/${run.o.namespace}/networkpolicies`, denyAllIngressManifest());
  const blocked = await run.until(async () => {
    const outcomes = await attempt(connector, from, targets);
    const open = targets.filter((_, i) => outcomes[i]!.ok);
    return open.length ? { ready: false, message: `NetworkPolicy ${DENY_ALL_POLICY} applied but ${plan.client.name} still connects to ${open.map((t) => t.label).join(', ')}` } : { ready: true, message: '' };
  });
  if (!blocked.ready) throw new Error(`${blocked.message} (after ${run.o.waitMs / 1000}s)`);
  const tBlocked = run.now();
  await run.o.kube.request('DELETE', `/apis/networking.k8s.io/v1/namespaces/${run.o.namespace}/networkpolicies/${DENY_ALL_POLICY}`);
  try {
    await reachAll(run, targets);
  } catch (e) {
    throw new Error(`blocked while ${DENY_ALL_POLICY} existed, but not restored after its deletion: ${(e as Error).message}`);
  }
  return { result: 'Pass', message: `${targets.length} echo pod(s) blocked (connections time out) within ${((tBlocked - t0) / 1000).toFixed(1)}s of creating ${DENY_ALL_POLICY}, reachable again ${((run.now() - tBlocked) / 1000).toFixed(1)}s after deleting it` };
}

/** Deletes the test namespace (when this run created it) and waits until it is gone. */
async function cleanup(run: InstallationRun): Promise<string | undefined> {
  if (!run.namespaceCreated) return undefined;
  const ns = run.o.namespace;
  run.o.progress?.(`deleting namespace ${ns}`);
  try {
    await run.o.kube.request('DELETE', `/api/v1/namespaces/${ns}`);
  } catch (e) {
    if (httpStatus(e) !== 404) return `namespace ${ns} not deleted: ${(e as Error).message}`;
  }
  const deadline = run.now() + run.o.waitMs;
  while (run.now() < deadline) {
    if ((await run.find(`/api/v1/namespaces/${ns}`).catch(() => ({}))) === undefined) return undefined;
    await (run.o.clock ?? systemClock).sleep(POLL_MS);
  }
  return `namespace ${ns} still terminating after ${run.o.waitMs / 1000}s (delete it with kubectl delete namespace ${ns})`;
}

/** The checks, in order: name and body. */
const CHECKS: [string, (run: InstallationRun) => Promise<{ result: 'Pass' | 'Skip'; message: string }>][] = [
  ['controller-ready', (run) => run.waitPass(() => controllerReady(run))],
  ['agents-ready', (run) => run.waitPass(() => agentsReady(run))],
  ['test-pods-ready', testPodsReady],
  ['pod-to-pod-intra-node', (run) => reachAll(run, [echoTarget(run, run.plan!.sameNode)])],
  ['pod-to-pod-inter-node', async (run) => (run.plan && run.plan.otherNodes.length === 0 ? { result: 'Skip', message: 'one usable node: no inter-node path' } : reachAll(run, (run.plan?.otherNodes ?? []).map((p) => echoTarget(run, p))))],
  ['pod-to-service-intra-node', (run) => reachService(run, 'echo-same-node', run.plan?.sameNode)],
  ['pod-to-service-inter-node', async (run) => (run.plan && run.plan.otherNodes.length === 0 ? { result: 'Skip', message: 'one usable node: no inter-node path' } : reachService(run, 'echo-other-node', run.plan?.otherNodes[0]))],
  ['ingress-deny-all', denyAllIngress],
];

async function reachService(run: InstallationRun, name: string, echo: TestPod | undefined): Promise<{ result: 'Pass'; message: string }> {
  if (!echo) throw new Error('not run: no test pods');
  target(run, echo);
  const ip = run.serviceIPs.get(name);
  if (!ip) throw new Error(`not run: Service ${name} has no ClusterIP`);
  return reachAll(run, [{ label: `Service ${name} (ClusterIP, endpoint ${echo.name}@${echo.node})`, ip }]);
}

/**
 * Runs every check and always deletes the namespace it created. An abort (Ctrl-C) stops at the
 * running check, which is reported as failed (`interrupted`); the later ones are not listed.
 */
export async function runInstallationCheck(o: InstallationCheckOptions): Promise<InstallationReport> {
  const run = new InstallationRun(o);
  const clock = o.clock ?? systemClock;
  const t0 = clock.now();
  let cleanupError: string | undefined;
  try {
    for (const [name, body] of CHECKS) {
      if (o.signal?.aborted) {
        // Interrupted between two checks: the next one is the one that did not run.
        run.checks.push({ name, result: 'Fail', message: 'interrupted', durationMs: 0 });
        break;
      }
      await run.check(name, () => body(run));
    }
  } catch (e) {
    // Interrupted: the running check is recorded as failed; the later ones are not listed.
    if (!(e instanceof Interrupted)) throw e;
  } finally {
    // Also after an abort or an unexpected error: the cleanup's waits do not watch the signal.
    cleanupError = await cleanup(run);
  }
  const counts = tally(run.checks);
  return {
    kind: 'InstallationCheck',
    namespace: o.namespace,
    connectVia: run.connector?.via ?? 'none',
    startTime: new Date(t0).toISOString(),
    durationMs: clock.now() - t0,
    ...counts,
    checks: run.checks,
    ...(cleanupError ? { cleanupError } : {}),
  };
}
