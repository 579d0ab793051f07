/**
 * `switchyard-lab probe`: runs a scenario on a running lab. Per step: apply (namespaces and pods
 * first, then `{{podIP}}` placeholders resolved and the rest), delete, wait until the controller
 * reports every policy realized on its span and each agent holds the controller's view for its
 * node, then probe every ordered pod pair on every probe from in-pod probers; at the end delete
 * what the scenario made.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { podAddresses } from '@switchyard/apis/types';
import type { KubeConfigClient } from '@switchyard/controller';
import { silentLogger, type Logger } from '@switchyard/runtime';
import { NETNS_ANNOTATION } from './kubelet';
import { labProgram, type LabState } from './lab';
import { agentGet } from './probe';
import { NO_ANSWER, type ProbeAnswer, type ProbeRequest } from './prober';
import { DataplaneTracer, type TraceTopology } from './trace-run';
import {
  ScenarioError,
  collectionPathOf,
  isPolicyKind,
  kindInfo,
  objectPathOf,
  refKey,
  refOf,
  substitutePodIPs,
  type KubeObject,
  type ObjectRef,
  type ProbeResult,
  type ProbeSpec,
  type IpFamily,
  type Protocol,
  type Scenario,
} from './scenario';


/**
 * Why no SCTP packet is sent: the kernel has no SCTP module here, and where it has one, Node.js
 * still has no SCTP sockets for the prober. SCTP cells are judged by ofproto/trace instead; this
 * reason is reported only for a cell the trace cannot judge.
 */
export function sctpUnavailableReason(): string {
  return existsSync('/proc/net/sctp') ? 'no SCTP sockets in Node.js for the prober' : 'no SCTP support in this kernel (sctp module not loaded)';
}

export interface ProbeRunOptions {
  kube: KubeConfigClient;
  state: LabState;
  /** Probes for steps without a Probe document: every port x protocol (defaults: the pods' declared ones). */
  ports?: number[];
  protocols?: Protocol[];
  /** When set, these replace the step's own Probe documents too (the command line's --ports/--protocols). */
  overrideProbes?: boolean;
  /** Probes in flight at once (default: every cell of a step at once). */
  concurrency?: number;
  /**
   * How long a probe waits for an answer before the cell counts as blocked (default 1000 ms): a
   * blocked verdict always rests on a probe that waited this long.
   */
  timeoutMs?: number;
  /** The first pass's shorter window (default 300 ms, at most `timeoutMs`): a cell silent in it is probed again with `timeoutMs`. */
  firstTimeoutMs?: number;
  /**
   * `false`: one pass with the full `timeoutMs` window, no confirming probe of a silent cell, so a
   * step with a blocked cell costs `timeoutMs` rather than `firstTimeoutMs + timeoutMs`. For a
   * caller that re-probes every cell its own model expects open (the conformance suite re-probes
   * each cell that disagrees with explain()): a lost first packet is caught there. Default true.
   */
  confirmSilent?: boolean;
  /** ofproto/trace runs in flight at once for cells judged by trace (SCTP; default 4). */
  traceConcurrency?: number;
  /** Objects left in place after the run (shared pods and namespaces of a suite). */
  keep?: (ref: ObjectRef) => boolean;
  /** Deadline for pods to be ready and policies realized (default 60 s). */
  readyTimeoutMs?: number;
  /**
   * How TCP and UDP probes reach their target: its pod IP (`pod`, the default), or the ClusterIP of
   * a Service made for that pod alone (`service`: no selector, one EndpointSlice naming the pod
   * with every probed port), as the upstream NetworkPolicy suite can probe through Services. SCTP
   * cells are judged by trace on the pod address either way. `nodeport`: the fabric host probes
   * each pod through a NodePort Service made for it alone (`externalTrafficPolicy: Local`, so the
   * pod sees the fabric host's own address) on the pod's node address: one source row, `fabric`;
   * SCTP cells are not probed.
   */
  via?: 'pod' | 'service' | 'nodeport';
  /**
   * The IP families probed: each cell once per family, at the target's address (or its Service's
   * ClusterIP) of that family, and `{{podIP}}`-style placeholders resolved per family (see
   * `substitutePodIPs`). Default: the lab's (a dual-stack lab both, an IPv6-only lab IPv6); on an
   * IPv4 lab none, so the pods' primary addresses are probed and results carry no `ipFamily`.
   * `via: 'nodeport'` probes the node's IPv4 address only.
   */
  ipFamilies?: IpFamily[];
  logger?: Logger;
}

/** Label of the Services (and their EndpointSlices) `via: 'service'` makes. */
export const PROBE_SERVICE_LABEL = 'switchyard.io/probe-target';
/** `endpointslice.kubernetes.io/managed-by` of their EndpointSlices (the API server's controllers leave them alone). */
const PROBE_SLICE_MANAGER = 'switchyard-lab';

/** What one step produced. */
export interface StepResult {
  /** Probed pods (`ns/name`) in matrix order. */
  pods: string[];
  /** Their addresses and network namespaces at probe time. */
  endpoints: LivePod[];
  probes: ProbeSpec[];
  results: ProbeResult[];
  /** Milliseconds spent waiting for realization, and probing (traces included). */
  realizeMs: number;
  probeMs: number;
  /** Milliseconds the ofproto/trace verdicts (SCTP cells) took; they run alongside the probes, so this overlaps probeMs. */
  traceMs: number;
  /** The same step probed by each runner `run` was given as `alongside`, in that order. */
  alongside: { results: ProbeResult[]; probeMs: number }[];
}

/** A ready pod: `ns/name`, pod IP, network namespace. */
export interface LivePod {
  ref: string;
  /** The primary address (`status.podIP`). */
  ip: string;
  /** Every address by family (`status.podIPs`). */
  ips?: Partial<Record<IpFamily, string>>;
  netns: string;
  /** The node it runs on. */
  node?: string;
}

/** The source name of the fabric host's probes (`via: 'nodeport'`). */
export const FABRIC_SOURCE = 'fabric';

/** What `via: 'service' | 'nodeport'` made for one target pod. */
interface ProbeService {
  ns: string;
  name: string;
  podIP: string;
  ports: string;
  clusterIP: string;
  /** The ClusterIP of each family probed (a dual-stack Service when the run probes both). */
  clusterIPs: Partial<Record<IpFamily, string>>;
  /** `PROTOCOL/port` -> node port (`via: 'nodeport'`). */
  nodePorts: Map<string, number>;
}

/** Kinds listed cluster-wide for explain(). */
const CLUSTER_KINDS: { apiVersion: string; kind: string }[] = [
  { apiVersion: 'v1', kind: 'Namespace' },
  { apiVersion: 'v1', kind: 'Pod' },
  { apiVersion: 'v1', kind: 'Service' },
  { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy' },
  { apiVersion: 'crd.antrea.io/v1beta1', kind: 'Tier' },
  { apiVersion: 'crd.antrea.io/v1beta1', kind: 'ClusterGroup' },
  { apiVersion: 'crd.antrea.io/v1beta1', kind: 'Group' },
  { apiVersion: 'crd.antrea.io/v1beta1', kind: 'ClusterNetworkPolicy' },
  { apiVersion: 'crd.antrea.io/v1beta1', kind: 'NetworkPolicy' },
  { apiVersion: 'policy.networking.k8s.io/v1alpha1', kind: 'AdminNetworkPolicy' },
  { apiVersion: 'policy.networking.k8s.io/v1alpha1', kind: 'BaselineAdminNetworkPolicy' },
];
function clusterPath(k: { apiVersion: string; kind: string }): string {
  const info = kindInfo(k.apiVersion, k.kind);
  return `${info.group === '' ? '/api' : '/apis'}/${k.apiVersion}/${info.plural}`;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * The window of a last pass for TCP cells that connected but did not read the pod server's answer
 * (`NO_ANSWER`): the path is open (the handshake went both ways through the policies). The cause
 * seen was the lab's old forking pod server (socat, backlog 5) on a machine where a fork takes
 * milliseconds: the accept queue overflowed and connections hung (thousands of such cells in one CI
 * run). The pod server no longer forks (`podServerArgv`), and no cell has needed this pass since;
 * it stays as a guard for a stalled machine, and costs nothing when no cell needs it. A cell still
 * silent after it is judged as before.
 */
const SLOW_ANSWER_MS = 5000;
const kubeStatus = (e: unknown): number | undefined => (e as { status?: number }).status;
/** Key of a probe target's address: the pod and the family probed (none: its primary address). */
const targetKey = (ref: string, family?: IpFamily): string => `${family ?? ''}|${ref}`;

/** One long-lived prober per source pod (inside its netns). */
class Prober {
  private next = 1;
  private readonly pending = new Map<number, (a: ProbeAnswer) => void>();
  private constructor(private readonly child: ChildProcess) {}

  static async start(netns: string): Promise<Prober> {
    const prober = labProgram('prober');
    const child = spawn('ip', ['netns', 'exec', netns, ...prober.argv], { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, ...prober.env } });
    const p = new Prober(child);
    const ready = new Promise<void>((resolve, reject) => {
      p.pending.set(0, () => resolve());
      child.once('exit', (code) => reject(new Error(`prober in ${netns} exited with ${String(code)}`)));
    });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const a = JSON.parse(line) as ProbeAnswer;
      const cb = p.pending.get(a.id);
      p.pending.delete(a.id);
      cb?.(a);
    });
    await ready;
    return p;
  }

  probe(r: Omit<ProbeRequest, 'id'>): Promise<ProbeAnswer> {
    const id = this.next++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.child.stdin!.write(`${JSON.stringify({ ...r, id })}\n`);
    });
  }

  stop(): void {
    this.child.stdin?.end();
    this.child.kill('SIGTERM');
  }
}

/** Runs `tasks` with at most `n` in flight. */
async function pool<T>(tasks: (() => Promise<T>)[], n: number): Promise<T[]> {
  const out: T[] = new Array<T>(tasks.length);
  let i = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, tasks.length) }, async () => {
      while (i < tasks.length) {
        const k = i++;
        out[k] = await tasks[k]!();
      }
    }),
  );
  return out;
}

/** Apply order: namespaces, then pods and other plain objects, then tiers, groups, policies. */
function applyRank(o: KubeObject): number {
  if (o.kind === 'Namespace') return 0;
  if (o.apiVersion === 'v1') return 1;
  if (o.kind === 'Tier') return 2;
  if (!isPolicyKind(o)) return 3;
  return 4;
}

/** A scenario run on a lab; `run()` per scenario, `close()` at the end (stops the probers). */
export class ScenarioRunner {
  private readonly probers = new Map<string, Prober>();
  private readonly log: Logger;
  private readonly sctpReason = sctpUnavailableReason();
  private readonly tracer: DataplaneTracer | undefined;
  /** Time spent in traceCells since the last step began. */
  private traceMs = 0;
  /** `via: 'service'`: the Service of each target pod (by `ns/name`), as last written. */
  private readonly probeServices = new Map<string, ProbeService>();
  /** Where each target is probed now (`targetKey(pod ref, family)` -> address). */
  private targetIP = new Map<string, string>();
  /** The families probed (`ProbeRunOptions.ipFamilies`); undefined on an IPv4 lab. */
  private readonly families: IpFamily[] | undefined;

  constructor(private readonly o: ProbeRunOptions) {
    this.log = o.logger ?? silentLogger;
    this.families = o.ipFamilies ?? (o.state.ipFamily === 'dual' ? ['IPv4', 'IPv6'] : o.state.ipFamily === 'ipv6' ? ['IPv6'] : undefined);
    // A state.json from before the lab recorded OVS control sockets: SCTP stays unavailable.
    this.tracer = o.state.nodes.every((n) => n.vswitchdCtl && n.dbRemote) ? new DataplaneTracer(o.state.nodes) : undefined;
  }

  /**
   * SCTP cells, which cannot be probed here: their dataplane verdicts by ofproto/trace
   * (`via: 'trace'`), or unavailable with the reason.
   */
  private async traceCells(cells: ProbeResult[]): Promise<ProbeResult[]> {
    if (cells.length === 0) return [];
    const t0 = Date.now();
    try {
      return await this.judgeByTrace(cells);
    } finally {
      this.traceMs += Date.now() - t0;
    }
  }

  private async judgeByTrace(cells: ProbeResult[]): Promise<ProbeResult[]> {
    const tracer = this.tracer;
    if (!tracer) return cells.map((c) => ({ ...c, allowed: null, unavailable: `${this.sctpReason}; no OVS control sockets in the lab state for ofproto/trace` }));
    let topo: TraceTopology;
    try {
      topo = await tracer.topology();
    } catch (e) {
      this.log.warn({ err: (e as Error).message }, 'trace topology unreadable');
      return cells.map((c) => ({ ...c, allowed: null, unavailable: `trace: ${(e as Error).message}` }));
    }
    return pool(
      cells.map((c) => async (): Promise<ProbeResult> => {
        const v = await tracer.judge(topo, c.from, c.to, c.protocol, c.port, c.sourcePort, c.ipFamily);
        const { unavailable: _u, via: _v, ...rest } = c;
        if (v.allowed === null) return { ...rest, allowed: null, unavailable: v.unavailable ?? 'trace: no verdict' };
        return { ...rest, allowed: v.allowed, via: 'trace' };
      }),
      this.o.traceConcurrency ?? 4,
    );
  }

  /**
   * Runs every step, then deletes what the scenario made (except `keep`). `alongside`: runners of
   * the same lab with another `via` that probe each step as well, at the same time as this one's
   * probes (their windows overlap), so a scenario applied and realized once is judged both ways;
   * they drop what they made for the pods the scenario deletes.
   */
  async run(sc: Scenario, onStep?: (i: number, r: StepResult) => void | Promise<void>, alongside: readonly ScenarioRunner[] = []): Promise<StepResult[]> {
    const made = new Map<string, ObjectRef>();
    const podRefs: string[] = [];
    const out: StepResult[] = [];
    try {
      for (const [i, step] of sc.steps.entries()) {
        const t0 = Date.now();
        const objs = [...step.apply].sort((a, b) => applyRank(a) - applyRank(b));
        const early = objs.filter((o) => applyRank(o) <= 1);
        for (const o of early) await this.apply(o, made);
        for (const o of early)
          if (o.kind === 'Pod') {
            const ref = `${o.metadata.namespace ?? 'default'}/${o.metadata.name}`;
            if (!podRefs.includes(ref)) podRefs.push(ref);
          }
        for (const r of step.delete) {
          if (r.kind === 'Pod') podRefs.splice(podRefs.indexOf(`${r.namespace ?? 'default'}/${r.name}`), 1);
        }
        const pods = await this.waitPods(podRefs);
        const ipOf = (ref: string, family?: IpFamily): string | undefined => (family ? pods.get(ref)?.ips?.[family] : pods.get(ref)?.ip);
        for (const o of objs.filter((x) => applyRank(x) > 1)) await this.apply(substitutePodIPs(o, ipOf, `step ${i + 1} ${o.kind} ${o.metadata.name}`, this.families ?? []), made);
        for (const r of [...step.delete].sort((a, b) => kindInfo(b.apiVersion, b.kind).deleteRank - kindInfo(a.apiVersion, a.kind).deleteRank)) await this.remove(r);
        await this.waitRealized();
        const realizeMs = Date.now() - t0;
        const t1 = Date.now();
        this.traceMs = 0;
        const probes = this.probesFor(step.probes, sc);
        const endpoints = podRefs.map((r) => pods.get(r)!);
        const probeAlongside = (): Promise<{ results: ProbeResult[]; probeMs: number }[]> =>
          Promise.all(
            alongside.map(async (a) => {
              const t = Date.now();
              const res = await a.probeMatrix(endpoints, probes);
              return { results: res, probeMs: Date.now() - t };
            }),
          );
        // Probes from a fixed source port would collide (the same port bound twice in a pod, the
        // same conntrack tuple): then the alongside runners probe after this one.
        const fixedSource = probes.some((p) => p.sourcePort !== undefined);
        const [results, also] = fixedSource
          ? [await this.probeMatrix(endpoints, probes), await probeAlongside()]
          : await Promise.all([this.probeMatrix(endpoints, probes), probeAlongside()]);
        const r: StepResult = { pods: [...podRefs], endpoints, probes, results, realizeMs, probeMs: Date.now() - t1, traceMs: this.traceMs, alongside: also };
        out.push(r);
        // Before the next step changes anything: the caller may check (and re-probe) this one.
        await onStep?.(i, r);
      }
    } finally {
      await this.cleanup([...made.values()]);
      // A kept pod keeps its probe Service for the next run (a suite's shared pods).
      const gone = (ref: string): boolean => {
        const [namespace, name] = ref.split('/') as [string, string];
        return !(this.o.keep?.({ apiVersion: 'v1', kind: 'Pod', namespace, name }) ?? false);
      };
      await this.removeProbeServices(gone);
      for (const a of alongside) await a.release(gone);
    }
    return out;
  }

  /** Drops what this runner holds for the pods `which` picks: their probers and probe Services. */
  async release(which: (podRef: string) => boolean): Promise<void> {
    for (const [ref, p] of [...this.probers])
      if (ref !== FABRIC_SOURCE && which(ref)) {
        p.stop();
        this.probers.delete(ref);
      }
    await this.removeProbeServices(which);
  }

  /**
   * `via: 'service' | 'nodeport'`: makes (or updates) the Service of each target pod, with every
   * probed TCP/UDP port, and waits until the flows load-balance it to its pod (every node's for a
   * ClusterIP, the pod's node's for a node port).
   */
  private async serviceTargets(pods: LivePod[], probes: ProbeSpec[], nodePort: boolean): Promise<Map<string, ProbeService>> {
    const ports = [...new Map(probes.filter((p) => p.protocol !== 'SCTP').map((p) => [`${p.protocol}/${p.port}`, p])).values()];
    const portsKey = JSON.stringify([nodePort, ports.map((p) => [p.protocol, p.port])]);
    const out = new Map<string, ProbeService>();
    // Nothing to send through a Service (SCTP only: traced on the pod address).
    if (ports.length === 0) return out;
    for (const pod of pods) {
      const [ns, podName] = pod.ref.split('/') as [string, string];
      const have = this.probeServices.get(pod.ref);
      const families = nodePort ? [] : (this.families ?? []);
      const podIPs = families.map((f) => pod.ips?.[f] ?? '');
      const key = JSON.stringify([portsKey, families, podIPs]);
      if (have && have.podIP === pod.ip && have.ports === key) {
        out.set(pod.ref, have);
        continue;
      }
      const name = `probe-${podName}`.slice(0, 63).replace(/-+$/, '');
      const labels = { [PROBE_SERVICE_LABEL]: podName };
      const svcPorts = ports.map((p, i) => ({ name: `p${i}`, protocol: p.protocol, port: p.port, targetPort: p.port }));
      const external = nodePort ? { type: 'NodePort', externalTrafficPolicy: 'Local' } : { type: 'ClusterIP' };
      // One ClusterIP per family probed (a dual-stack Service on a dual-stack lab; a runner's families do not change).
      const familySpec = families.length > 0 ? { ipFamilyPolicy: families.length > 1 ? 'RequireDualStack' : 'SingleStack', ipFamilies: families } : {};
      const svcPath = `/api/v1/namespaces/${ns}/services`;
      const svc = await this.upsert(svcPath, name, (live) => ({
        apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: ns, labels, ...(live ? { resourceVersion: live.metadata.resourceVersion } : {}) },
        spec: { ...(live?.spec as Record<string, unknown> | undefined), ...external, ...familySpec, ports: svcPorts },
      }));
      // One EndpointSlice per address family (`<name>` IPv4, `<name>-ipv6` IPv6).
      const slices = families.length > 0 ? families.map((f, k) => ({ family: f, ip: podIPs[k]! })) : [{ family: (pod.ip.includes(':') ? 'IPv6' : 'IPv4') as IpFamily, ip: pod.ip }];
      for (const sl of slices) {
        const sliceName = sl.family === 'IPv6' && slices.length > 1 ? `${name}-ipv6`.slice(0, 63) : name;
        await this.upsert(`/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices`, sliceName, (live) => ({
          apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', addressType: sl.family,
          metadata: { name: sliceName, namespace: ns, labels: { ...labels, 'kubernetes.io/service-name': name, 'endpointslice.kubernetes.io/managed-by': PROBE_SLICE_MANAGER }, ...(live ? { resourceVersion: live.metadata.resourceVersion } : {}) },
          endpoints: [{ addresses: [sl.ip], conditions: { ready: true }, ...(pod.node ? { nodeName: pod.node } : {}) }],
          ports: ports.map((p, i) => ({ name: `p${i}`, protocol: p.protocol, port: p.port })),
        }));
      }
      const spec = svc.spec as { clusterIP?: string; clusterIPs?: string[]; ports?: { protocol?: string; port: number; nodePort?: number }[] } | undefined;
      const nodePorts = new Map((spec?.ports ?? []).filter((p) => p.nodePort !== undefined).map((p) => [`${p.protocol ?? 'TCP'}/${p.port}`, p.nodePort!]));
      const clusterIPs: Partial<Record<IpFamily, string>> = {};
      for (const ip of spec?.clusterIPs ?? (spec?.clusterIP ? [spec.clusterIP] : [])) clusterIPs[ip.includes(':') ? 'IPv6' : 'IPv4'] = ip;
      const made: ProbeService = { ns, name, podIP: pod.ip, ports: key, clusterIP: spec?.clusterIP ?? '', clusterIPs, nodePorts };
      this.probeServices.set(pod.ref, made);
      out.set(pod.ref, made);
    }
    await this.waitServicesRealized(pods.map((p) => ({ pod: p, svc: out.get(p.ref)! })), nodePort);
    return out;
  }

  /**
   * Where the last step's TCP/UDP probes of `family` went (default: the primary addresses), by
   * target pod (`ns/name`): its Service's ClusterIP with `via: 'service'`, else nothing.
   */
  probeTargets(family?: IpFamily): ReadonlyMap<string, string> {
    const prefix = `${family ?? ''}|`;
    return new Map([...this.targetIP].filter(([k]) => k.startsWith(prefix)).map(([k, v]) => [k.slice(prefix.length), v]));
  }

  /** Creates or replaces one object (`body` gets the live object when there is one). */
  private async upsert(collection: string, name: string, body: (live: KubeObject | undefined) => KubeObject): Promise<KubeObject> {
    const live = await this.o.kube.request<KubeObject>('GET', `${collection}/${name}`).catch((e: unknown) => {
      if (kubeStatus(e) === 404) return undefined;
      throw e;
    });
    return live ? this.o.kube.request<KubeObject>('PUT', `${collection}/${name}`, body(live)) : this.o.kube.request<KubeObject>('POST', collection, body(undefined));
  }

  /** Waits until the flows send each Service to its pod: the ServiceLB match (ClusterIP, or every node port on the pod's node) and the endpoint's DNAT. */
  private async waitServicesRealized(targets: { pod: LivePod; svc: ProbeService }[], nodePort: boolean): Promise<void> {
    const deadline = Date.now() + (this.o.readyTimeoutMs ?? 60_000);
    for (;;) {
      const flows = new Map(await Promise.all(this.o.state.nodes.map(async (n) => [n.name, await agentGet<string[]>(n.apiSocket, '/ovsflows').then((f) => f.join('\n'), () => '')] as const)));
      const families = nodePort ? [] : (this.families ?? []);
      const v4 = (f: string, t: { pod: LivePod; svc: ProbeService }): boolean =>
        f.includes(`nat(dst=${t.pod.ip}:`) && (nodePort ? [...t.svc.nodePorts.values()].every((np) => f.includes(`_dst=${np},`)) : f.includes(`nw_dst=${t.svc.clusterIP},`));
      // Per family: the endpoint's DNAT and the ClusterIP's ServiceLB match.
      const ofFamily = (f: string, t: { pod: LivePod; svc: ProbeService }, fam: IpFamily): boolean =>
        fam === 'IPv6' ? f.includes(`nat(dst=[${t.pod.ips?.IPv6}]:`) && f.includes(`ipv6_dst=${t.svc.clusterIPs.IPv6},`) : f.includes(`nat(dst=${t.pod.ips?.IPv4}:`) && f.includes(`nw_dst=${t.svc.clusterIPs.IPv4},`);
      const done = (f: string, t: { pod: LivePod; svc: ProbeService }): boolean => (families.length === 0 ? v4(f, t) : families.every((fam) => ofFamily(f, t, fam)));
      const missing = targets.filter((t) => (nodePort ? [flows.get(t.pod.node ?? '') ?? ''] : [...flows.values()]).some((f) => !done(f, t)));
      if (missing.length === 0) return;
      if (Date.now() > deadline) throw new ScenarioError('NOT_REALIZED', `probe Services not realized after ${this.o.readyTimeoutMs ?? 60_000} ms: ${missing.map((m) => `${m.svc.ns}/${m.svc.name}`).join(', ')}`, missing.map((m) => m.pod.ref));
      await sleep(100);
    }
  }

  /** Deletes the Services (and EndpointSlices) `via: 'service'` made (those of the pods `which` picks; default all). */
  async removeProbeServices(which: (podRef: string) => boolean = () => true): Promise<void> {
    for (const [ref, s] of [...this.probeServices]) {
      if (!which(ref)) continue;
      this.probeServices.delete(ref);
      const slices = [s.name, ...(s.clusterIPs.IPv4 && s.clusterIPs.IPv6 ? [`${s.name}-ipv6`.slice(0, 63)] : [])];
      for (const path of [`/api/v1/namespaces/${s.ns}/services/${s.name}`, ...slices.map((n) => `/apis/discovery.k8s.io/v1/namespaces/${s.ns}/endpointslices/${n}`)])
        await this.o.kube.request('DELETE', path).catch((e: unknown) => {
          if (kubeStatus(e) !== 404) this.log.warn({ path, err: (e as Error).message }, 'probe Service cleanup failed');
        });
    }
  }

  /** Every object the policy compiler needs to explain flows on the lab now (Nodes, Namespaces, Pods, Services, groups, tiers, policies). */
  async clusterObjects(): Promise<KubeObject[]> {
    const lists = await Promise.all(
      [{ apiVersion: 'v1', kind: 'Node', path: '/api/v1/nodes' }, ...CLUSTER_KINDS.map((k) => ({ ...k, path: clusterPath(k) }))].map(async (k) => {
        const l = await this.o.kube.request<{ items: KubeObject[] }>('GET', k.path).catch(() => ({ items: [] as KubeObject[] }));
        return l.items.map((o) => ({ ...o, apiVersion: k.apiVersion, kind: k.kind }));
      }),
    );
    return lists.flat();
  }

  /** Stops the in-pod probers. */
  close(): void {
    for (const p of this.probers.values()) p.stop();
    this.probers.clear();
    this.tracer?.close();
  }

  private probesFor(own: ProbeSpec[] | undefined, sc: Scenario): ProbeSpec[] {
    if (own && !this.o.overrideProbes) return own;
    const declared: ProbeSpec[] = [];
    for (const st of sc.steps)
      for (const o of st.apply)
        if (o.kind === 'Pod')
          for (const c of (o.spec as { containers?: { ports?: { containerPort?: number; protocol?: string }[] }[] } | undefined)?.containers ?? [])
            for (const p of c.ports ?? []) {
              const protocol = (p.protocol ?? 'TCP').toUpperCase() as Protocol;
              if (typeof p.containerPort === 'number' && !declared.some((d) => d.port === p.containerPort && d.protocol === protocol)) declared.push({ protocol, port: p.containerPort });
            }
    // Neither flag: exactly the declared port/protocol pairs; otherwise the cross product.
    if (!this.o.ports && !this.o.protocols) return declared.sort((a, b) => a.protocol.localeCompare(b.protocol) || a.port - b.port);
    const ports = this.o.ports ?? [...new Set(declared.map((d) => d.port))].sort((a, b) => a - b);
    const protocols = this.o.protocols ?? (['TCP', 'UDP', 'SCTP'] as const).filter((p) => declared.some((d) => d.protocol === p));
    return protocols.flatMap((protocol) => ports.map((port) => ({ protocol, port })));
  }

  private async apply(o: KubeObject, made: Map<string, ObjectRef>): Promise<void> {
    const ref = refOf(o);
    const body = { ...o, metadata: { ...o.metadata, ...(ref.namespace ? { namespace: ref.namespace } : {}) } };
    delete (body as Record<string, unknown>).status;
    try {
      await this.o.kube.request('POST', collectionPathOf(ref), body);
    } catch (e) {
      if (kubeStatus(e) !== 409) throw e;
      // Exists: replace it (a Pod keeps its spec, only labels and serviceAccountName follow the scenario).
      const live = await this.o.kube.request<KubeObject & { spec?: Record<string, unknown> }>('GET', objectPathOf(ref));
      let next: Record<string, unknown>;
      if (o.kind === 'Pod' || o.kind === 'Namespace') {
        const labels = { ...(o.metadata.labels ?? {}) };
        if (o.kind === 'Namespace') labels['kubernetes.io/metadata.name'] = o.metadata.name;
        next = { ...live, metadata: { ...live.metadata, labels } };
        const spec = { ...(live.spec ?? {}) };
        if (o.kind === 'Pod') {
          const sa = (o.spec as { serviceAccountName?: string } | undefined)?.serviceAccountName;
          if (sa === undefined) delete spec.serviceAccountName;
          else spec.serviceAccountName = sa;
          next.spec = spec;
        }
        // Unchanged (a suite re-applying its shared pods): no write, no churn in the controller.
        if (JSON.stringify(Object.entries(labels).sort()) === JSON.stringify(Object.entries(live.metadata.labels ?? {}).sort()) && spec.serviceAccountName === live.spec?.serviceAccountName) {
          made.set(refKey(ref), ref);
          return;
        }
      } else next = { ...body, metadata: { ...body.metadata, resourceVersion: live.metadata.resourceVersion } };
      await this.o.kube.request('PUT', objectPathOf(ref), next);
    }
    made.set(refKey(ref), ref);
  }

  private async remove(r: ObjectRef): Promise<void> {
    await this.o.kube.request('DELETE', objectPathOf(r)).catch((e: unknown) => {
      if (kubeStatus(e) !== 404) throw e;
    });
  }

  private async cleanup(refs: ObjectRef[]): Promise<void> {
    const gone = refs.filter((r) => !(this.o.keep?.(r) ?? false));
    gone.sort((a, b) => kindInfo(b.apiVersion, b.kind).deleteRank - kindInfo(a.apiVersion, a.kind).deleteRank);
    for (const r of gone) await this.remove(r).catch((e: unknown) => this.log.warn({ ref: r, err: (e as Error).message }, 'cleanup delete failed'));
    for (const r of gone.filter((x) => x.kind === 'Pod')) {
      const key = `${r.namespace ?? 'default'}/${r.name}`;
      this.probers.get(key)?.stop();
      this.probers.delete(key);
    }
    // Pods and namespaces go before the next run may reuse their names.
    const deadline = Date.now() + (this.o.readyTimeoutMs ?? 60_000);
    for (const r of gone.filter((x) => x.kind === 'Pod' || x.kind === 'Namespace'))
      while (Date.now() < deadline) {
        const still = await this.o.kube.request('GET', objectPathOf(r)).then(() => true, () => false);
        if (!still) break;
        await sleep(200);
      }
    // Policy deletions are not waited for here: the next step's realization wait (every policy the
    // controller holds realized, each agent's counts equal to the controller's view, flows stable)
    // covers them before anything is probed again.
  }

  /** Waits until every pod has an IP and a netns; returns them by `ns/name`. */
  private async waitPods(refs: string[]): Promise<Map<string, LivePod>> {
    const deadline = Date.now() + (this.o.readyTimeoutMs ?? 60_000);
    for (;;) {
      const out = new Map<string, LivePod>();
      for (const ref of refs) {
        const [ns, name] = ref.split('/') as [string, string];
        const p = await this.o.kube
          .request<{ metadata: { annotations?: Record<string, string> }; spec?: { nodeName?: string }; status?: { podIP?: string; podIPs?: { ip: string }[] } }>('GET', `/api/v1/namespaces/${ns}/pods/${name}`)
          .catch(() => undefined);
        const ip = p?.status?.podIP;
        const netns = p?.metadata.annotations?.[NETNS_ANNOTATION];
        const ips: Partial<Record<IpFamily, string>> = {};
        for (const a of podAddresses(p)) ips[a.includes(':') ? 'IPv6' : 'IPv4'] = a;
        // Every family probed has an address (a dual-stack pod reports both at once).
        if (ip && netns && (this.families ?? []).every((f) => ips[f])) out.set(ref, { ref, ip, ips, netns, ...(p?.spec?.nodeName ? { node: p.spec.nodeName } : {}) });
      }
      if (out.size === refs.length) return out;
      if (Date.now() > deadline) {
        const missing = refs.filter((r) => !out.has(r));
        throw new ScenarioError('NOT_READY', `pods without an IP${this.families ? ` of each family probed (${this.families.join(', ')})` : ''} after ${this.o.readyTimeoutMs ?? 60_000} ms: ${missing.join(', ')}`, missing);
      }
      await sleep(200);
    }
  }

  /**
   * Realized: every policy the controller holds is Realized at its current generation on its
   * whole span, and each agent's policy/address-group/applied-to-group counts equal the
   * controller's view for its node; then each agent's flows are stable over 300 ms.
   */
  async waitRealized(): Promise<void> {
    const deadline = Date.now() + (this.o.readyTimeoutMs ?? 60_000);
    const cp = '/apis/controlplane.switchyard.io/v1beta2';
    for (;;) {
      // A component restarting (chaos runs restart agents and the controller) is "not yet", not a failure.
      const why = await this.realizedOnce(cp).catch((e: unknown) => `unreachable: ${(e as Error).message}`);
      if (why === '') return;
      if (Date.now() > deadline) throw new ScenarioError('NOT_REALIZED', `policies not realized after ${this.o.readyTimeoutMs ?? 60_000} ms: ${why}`, why);
      await sleep(100);
    }
  }

  /** One look at realization: '' when realized and stable, else why not. */
  private async realizedOnce(cp: string): Promise<string> {
    type Item = { generation?: number; sourceRef?: { name: string; namespace?: string }; span?: string[]; status?: { phase?: string; observedGeneration?: number; currentNodesRealized?: number; desiredNodesRealized?: number } };
    let why = '';
    {
      const all = await this.o.kube.request<{ items: Item[] }>('GET', `${cp}/networkpolicies`);
      const pending = all.items.filter((p) => p.status?.phase !== 'Realized' || p.status.observedGeneration !== p.generation);
      if (pending.length > 0) why = `not realized: ${pending.map((p) => `${p.sourceRef?.namespace ?? ''}/${p.sourceRef?.name ?? '?'} (${p.status?.phase ?? 'no status'}${p.status?.desiredNodesRealized !== undefined ? `, ${p.status.currentNodesRealized ?? 0} of ${p.status.desiredNodesRealized} nodes of its span [${(p.span ?? []).join(', ')}] reported generation ${p.generation ?? '?'}` : ''})`).join(', ')}`;
      if (!why)
        for (const n of this.o.state.nodes) {
          const q = `?nodeName=${n.name}`;
          const [nps, ags, atgs, info] = await Promise.all([
            this.o.kube.request<{ items: unknown[] }>('GET', `${cp}/networkpolicies${q}`),
            this.o.kube.request<{ items: unknown[] }>('GET', `${cp}/addressgroups${q}`),
            this.o.kube.request<{ items: unknown[] }>('GET', `${cp}/appliedtogroups${q}`),
            agentGet<{ networkPolicyControllerInfo: { networkPolicyNum: number; addressGroupNum: number; appliedToGroupNum: number } }>(n.apiSocket, '/agentinfo'),
          ]);
          const want = [nps.items.length, ags.items.length, atgs.items.length];
          const c = info.networkPolicyControllerInfo;
          const have = [c.networkPolicyNum, c.addressGroupNum, c.appliedToGroupNum];
          if (want.join() !== have.join()) {
            why = `${n.name}: agent holds ${have.join('/')} policies/address groups/applied-to groups, controller ${want.join('/')}`;
            break;
          }
        }
      if (!why) {
        const flows = async (): Promise<string> => (await Promise.all(this.o.state.nodes.map((n) => agentGet<string[]>(n.apiSocket, '/ovsflows')))).map((f) => f.join('\n')).join('\n');
        const a = await flows();
        await sleep(300);
        if (a === (await flows())) return '';
        why = 'flows still changing';
      }
    }
    return why;
  }

  private async prober(p: LivePod): Promise<Prober> {
    let pr = this.probers.get(p.ref);
    if (!pr) {
      pr = await Prober.start(p.netns);
      this.probers.set(p.ref, pr);
    }
    return pr;
  }

  /**
   * Every ordered pair (no loopback) on every probe; SCTP cells are traced. The whole step goes in
   * one pass (all cells in flight at once, up to `concurrency`): an allowed cell answers at once,
   * a rejected one fails at once, and a dropped one is silent. A cell silent for the short first
   * window (`firstTimeoutMs`) gets a confirming probe with the full `timeoutMs` window before it is
   * reported blocked, so a blocked verdict always rests on a probe that waited the full window
   * (with `confirmSilent: false` the one pass has the full window).
   */
  async probeMatrix(pods: LivePod[], probes: ProbeSpec[]): Promise<ProbeResult[]> {
    const timeoutMs = this.o.timeoutMs ?? 1000;
    const confirm = this.o.confirmSilent !== false;
    const firstMs = confirm ? Math.min(this.o.firstTimeoutMs ?? 300, timeoutMs) : timeoutMs;
    if (this.o.via === 'nodeport') return this.probeFromFabric(pods, probes);
    await Promise.all(pods.map((p) => this.prober(p)));
    this.targetIP = new Map();
    if (this.o.via === 'service')
      for (const [ref, svc] of await this.serviceTargets(pods, probes, false)) {
        if (!this.families) this.targetIP.set(targetKey(ref), svc.clusterIP);
        else for (const f of this.families) this.targetIP.set(targetKey(ref, f), svc.clusterIPs[f] ?? '');
      }
    const ipOf = (p: LivePod, family: IpFamily | undefined): string => this.targetIP.get(targetKey(p.ref, family)) ?? (family ? p.ips![family]! : p.ip);
    const cells: { from: LivePod; to: LivePod; probe: ProbeSpec; family: IpFamily | undefined }[] = [];
    // Each family's cells in one pass: the families' windows overlap, so a second family costs
    // probes in flight, not another step's time.
    for (const family of this.families ?? [undefined])
      for (const probe of probes) for (const from of pods) for (const to of pods) if (from.ref !== to.ref) cells.push({ from, to, probe, family });
    const base = (c: (typeof cells)[number]): ProbeResult => ({
      from: c.from.ref,
      to: c.to.ref,
      port: c.probe.port,
      protocol: c.probe.protocol,
      ...(c.probe.sourcePort ? { sourcePort: c.probe.sourcePort } : {}),
      ...(c.family ? { ipFamily: c.family } : {}),
      allowed: null,
    });
    // SCTP cells are judged by ofproto/trace; no packet is sent, so the traces run alongside the probes.
    const sctp = cells.map((c, i) => [c, i] as const).filter(([c]) => c.probe.protocol === 'SCTP');
    const tracing = this.traceCells(sctp.map(([c]) => base(c))).catch((e: unknown) =>
      sctp.map(([c]) => ({ ...base(c), unavailable: `trace: ${(e as Error).message}` })),
    );
    const probed = cells.map((c, i) => [c, i] as const).filter(([c]) => c.probe.protocol !== 'SCTP');
    const verdicts: (boolean | null)[] = new Array<boolean | null>(cells.length);
    const errors: (string | undefined)[] = new Array<string | undefined>(cells.length);
    const pass = (list: (readonly [(typeof cells)[number], number])[], t: number): Promise<void> =>
      this.probeAll(
        list.map(([c]) => ({ from: c.from.ref, ip: ipOf(c.to, c.family), port: c.probe.port, protocol: c.probe.protocol, ...(c.probe.sourcePort ? { sourcePort: c.probe.sourcePort } : {}) })),
        t,
      ).then((ok) =>
        list.forEach(([, i], k) => {
          verdicts[i] = ok[k]!.ok;
          errors[i] = ok[k]!.error;
        }),
      );
    await pass(probed, firstMs);
    if (confirm) await pass(probed.filter(([, i]) => verdicts[i] === false), timeoutMs);
    await pass(probed.filter(([, i]) => verdicts[i] === false && errors[i] === NO_ANSWER), SLOW_ANSWER_MS);
    const out: ProbeResult[] = cells.map((c, i) => ({ ...base(c), allowed: verdicts[i] ?? null, ...(errors[i] && !verdicts[i] ? { error: errors[i] } : {}) }));
    const judged = await tracing;
    sctp.forEach(([, i], k) => (out[i] = judged[k]!));
    return out;
  }

  /**
   * `via: 'nodeport'`: the fabric host probes each pod on each TCP/UDP probe through the node port
   * of its Service on the pod's node address (two passes, as the matrix). SCTP cells are left
   * unavailable.
   */
  private async probeFromFabric(pods: LivePod[], probes: ProbeSpec[]): Promise<ProbeResult[]> {
    const timeoutMs = this.o.timeoutMs ?? 1000;
    const svcs = await this.serviceTargets(pods, probes, true);
    if (!this.probers.has(FABRIC_SOURCE)) this.probers.set(FABRIC_SOURCE, await Prober.start(this.o.state.fabricNetns));
    const nodeIP = new Map(this.o.state.nodes.map((n) => [n.name, n.nodeIP]));
    const cells = probes.flatMap((probe) => pods.map((to) => ({ to, probe })));
    const base = (c: (typeof cells)[number]): ProbeResult => ({ from: FABRIC_SOURCE, to: c.to.ref, port: c.probe.port, protocol: c.probe.protocol, ...(c.probe.sourcePort ? { sourcePort: c.probe.sourcePort } : {}), allowed: null });
    const probed = cells.map((c, i) => [c, i] as const).filter(([c]) => c.probe.protocol !== 'SCTP');
    const verdicts: (boolean | null)[] = new Array<boolean | null>(cells.length);
    const errors: (string | undefined)[] = new Array<string | undefined>(cells.length);
    const pass = async (list: (readonly [(typeof cells)[number], number])[], t: number): Promise<void> => {
      const ok = await this.probeAll(
        list.map(([c]) => ({
          from: FABRIC_SOURCE, ip: nodeIP.get(c.to.node ?? '') ?? '', port: svcs.get(c.to.ref)!.nodePorts.get(`${c.probe.protocol}/${c.probe.port}`)!, protocol: c.probe.protocol,
          ...(c.probe.sourcePort ? { sourcePort: c.probe.sourcePort } : {}),
        })),
        t,
      );
      list.forEach(([, i], k) => {
        verdicts[i] = ok[k]!.ok;
        errors[i] = ok[k]!.error;
      });
    };
    await pass(probed, Math.min(this.o.firstTimeoutMs ?? 300, timeoutMs));
    await pass(probed.filter(([, i]) => verdicts[i] === false), timeoutMs);
    await pass(probed.filter(([, i]) => verdicts[i] === false && errors[i] === NO_ANSWER), SLOW_ANSWER_MS);
    return cells.map((c, i) =>
      c.probe.protocol === 'SCTP'
        ? { ...base(c), unavailable: 'SCTP is not probed through node ports' }
        : { ...base(c), allowed: verdicts[i] ?? null, ...(errors[i] && !verdicts[i] ? { error: errors[i] } : {}) },
    );
  }

  /**
   * Sends the probes, as many at once as `concurrency` allows, except that probes from one pod
   * with the same fixed source port go one after another (they would collide on bind); `ok` per
   * probe, in order.
   */
  private async probeAll(list: { from: string; ip: string; port: number; protocol: Protocol; sourcePort?: number }[], timeoutMs: number): Promise<ProbeAnswer[]> {
    const ok: ProbeAnswer[] = new Array<ProbeAnswer>(list.length);
    const lanes = new Map<string, number[]>();
    list.forEach((p, k) => {
      const lane = p.sourcePort === undefined ? `#${k}` : `${p.from}:${p.sourcePort}`;
      lanes.set(lane, [...(lanes.get(lane) ?? []), k]);
    });
    const tasks = [...lanes.values()].map((ks) => async () => {
      for (const k of ks) {
        const p = list[k]!;
        const a = await this.probers.get(p.from)!.probe({ ip: p.ip, port: p.port, protocol: p.protocol as Exclude<Protocol, 'SCTP'>, timeoutMs, ...(p.sourcePort ? { sourcePort: p.sourcePort } : {}) });
        ok[k] = a;
      }
    });
    await pool(tasks, this.o.concurrency ?? Infinity);
    return ok;
  }

  /** Re-probes only the given cells (the conformance suite's settle loop) with the full window; SCTP cells are traced again. */
  async reprobe(pods: LivePod[], cells: ProbeResult[]): Promise<ProbeResult[]> {
    const byRef = new Map(pods.map((p) => [p.ref, p]));
    const ipOf = (c: ProbeResult): string => {
      const p = byRef.get(c.to)!;
      return this.targetIP.get(targetKey(p.ref, c.ipFamily)) ?? (c.ipFamily ? p.ips![c.ipFamily]! : p.ip);
    };
    const list = cells.filter((c) => c.protocol !== 'SCTP').map((c) => ({ from: c.from, ip: ipOf(c), port: c.port, protocol: c.protocol, ...(c.sourcePort ? { sourcePort: c.sourcePort } : {}) }));
    const [traced, ok] = await Promise.all([this.traceCells(cells.filter((c) => c.protocol === 'SCTP')), this.probeAll(list, this.o.timeoutMs ?? 1000)]);
    // Connected without the answer in the window: once more with the slow server's window (as probeMatrix).
    const slow = ok.map((a, k) => [a, k] as const).filter(([a]) => !a.ok && a.error === NO_ANSWER);
    if (slow.length > 0) {
      const again = await this.probeAll(slow.map(([, k]) => list[k]!), SLOW_ANSWER_MS);
      slow.forEach(([, k], j) => (ok[k] = again[j]!));
    }
    return cells.map((c) => {
      if (c.protocol === 'SCTP') return traced.shift()!;
      const { error: _e, ...rest } = c;
      const a = ok.shift()!;
      return { ...rest, allowed: a.ok, ...(a.error && !a.ok ? { error: a.error } : {}) };
    });
  }

  /**
   * What ofproto/trace on the node bridges says about the given cells (any protocol), for a
   * disagreement's report: a probe that failed where the trace delivers points at the packet path
   * or the pods, not at the flows.
   */
  async traceVerdicts(cells: ProbeResult[]): Promise<ProbeResult[]> {
    return this.judgeByTrace(cells);
  }
}

