/**
 * The Traceflow part (with a Kubernetes API and the `traceflow` option, on by default): for every
 * Traceflow the controller has set Running with a data-plane tag, this node installs the tag's
 * trace flows (the pipeline's traceable features, `FlowSync.addTrace`); the source pod's node also
 * injects the probe (a packet-out into the pipeline from the pod's port, the tag in its DSCP) or,
 * for live traffic, tags the pod's matching packets. The first Traceflow packet-in of a tag on this
 * node becomes this node's result in the Traceflow's status (observations.ts). The flows go when
 * the Traceflow ends (or at their hard timeout, the Traceflow's own).
 */
import type { Traceflow, TraceflowNodeResult, TraceflowObservation } from '@switchyard/apis/types';
import { TRACEFLOW_DEFAULT_TIMEOUT_S, canonicalIp } from '@switchyard/apis/types';
import { Informer, KubeRequestError, type KubeClient, type KubeObject } from '@switchyard/kube';
import type { PacketIn } from '@switchyard/openflow';
import { PACKETIN_CATEGORY, TraceflowTagField, liveTagFlow, ruleKey, type LocalPod } from '@switchyard/openflow-pipeline';
import { Reconciler, systemClock, type Clock, type Part, type PartHealth, type TimerHandle } from '@switchyard/runtime';
import type { AgentContext } from '../../context';
import { buildProbe, parseIpPacket, type ParsedIp } from '../../packet';
import type { NodeDatapath } from '../node/part';
import { isFinal, observe, type TraceNodeView, type TracedRule } from './observations';
import { familyOfTrace, probeSourcePort, probeSpec, resolveDestination, traceMatchOf, type ProbeDestination } from './probe';

export const TRACEFLOWS = { group: 'crd.antrea.io', version: 'v1beta1', plural: 'traceflows', kind: 'Traceflow', namespaced: false } as const;

/**
 * When the source node injects the probe again while the trace runs (a peer may not have its trace
 * flows yet: every node installs them when it sees the Traceflow Running): 100 ms after the first,
 * doubling to at most a second.
 */
export const reinjectDelayMs = (injections: number): number => Math.min(100 * 2 ** Math.max(0, injections - 1), 1000);
/** How many times a result write is retried on a conflict (other nodes write theirs at the same time). */
const STATUS_RETRIES = 10;

/** A Traceflow this node takes part in. */
interface ActiveTrace {
  readonly name: string;
  readonly uid: string;
  readonly tag: number;
  /** The source pod is on this node: it injects (or tags live traffic). */
  readonly source: LocalPod | undefined;
  readonly live: boolean;
  destination?: ProbeDestination;
  reported: boolean;
  /**
   * The injected probe's TCP or UDP source port (every node computes it from the spec and the tag);
   * undefined for live traffic and other protocols.
   */
  probeSrcPort?: number;
  /** This node reported a final result: no more probes. */
  done?: boolean;
  timer?: TimerHandle;
  injections: number;
  deadline: number;
}

export class TraceflowPart implements Part {
  readonly name = 'traceflow';
  private informer: Informer | undefined;
  private reconciler: Reconciler | undefined;
  private readonly active = new Map<string, ActiveTrace>();
  private readonly clock: Clock;
  /** Results this node wrote (for health and tests). */
  reports = 0;
  /** Probes injected (for health and tests). */
  injected = 0;
  private readonly onPacketIn = (p: PacketIn): void => {
    void this.handle(p).catch((err: unknown) => this.ctx.log.warn({ err }, 'Traceflow packet-in not reported (the next one of its tag is)'));
  };

  constructor(
    private readonly ctx: AgentContext,
    private readonly kube: KubeClient,
    private readonly node: Pick<NodeDatapath, 'flows' | 'openflow'>,
  ) {
    this.clock = ctx.options.clock ?? systemClock;
  }

  async start(): Promise<void> {
    // Nothing to prime: trace flows follow the Traceflows once the watch is in.
  }

  async sync(): Promise<void> {
    const log = this.ctx.log;
    this.reconciler = new Reconciler(() => this.apply(), { clock: this.clock, onError: (err, retryInMs) => log.error({ err, retryInMs }, 'Traceflows not applied') });
    this.node.openflow.on('packetIn', this.onPacketIn);
    this.informer = new Informer(this.kube, TRACEFLOWS, () => this.reconciler?.schedule(), { clock: this.clock, logger: log });
    this.informer.start();
  }

  /** Resolves once every change seen so far is applied (or has failed). */
  idle(): Promise<void> {
    return this.reconciler?.idle() ?? Promise.resolve();
  }

  /** The Traceflows this node is taking part in, by name, with their tags. */
  activeTraces(): { name: string; tag: number; source: boolean }[] {
    return [...this.active.values()].map((t) => ({ name: t.name, tag: t.tag, source: t.source !== undefined }));
  }

  private async apply(): Promise<void> {
    const running = new Map<string, Traceflow>();
    for (const o of this.informer?.cache.values() ?? []) {
      const tf = o as unknown as Traceflow;
      if (tf.status?.phase === 'Running' && tf.status.dataplaneTag) running.set(tf.metadata.name ?? '', tf);
    }
    for (const t of [...this.active.values()]) {
      const tf = running.get(t.name);
      if (!tf || tf.metadata.uid !== t.uid || tf.status?.dataplaneTag !== t.tag) await this.deactivate(t);
    }
    // One that could not start (the API or the switch busy) is not active: the reconciler's retry starts it again.
    const failures: unknown[] = [];
    for (const tf of running.values()) {
      if (this.active.has(tf.metadata.name ?? '')) continue;
      await this.activate(tf).catch((err: unknown) => {
        failures.push(err);
        this.ctx.log.warn({ err, traceflow: tf.metadata.name }, 'Traceflow not started on this node (tried again)');
      });
    }
    if (failures.length > 0) throw new AggregateError(failures, `${failures.length} Traceflows not started: ${failures.map((e) => (e instanceof Error ? e.message : String(e))).join('; ')}`);
  }

  private async activate(tf: Traceflow): Promise<void> {
    const tag = tf.status!.dataplaneTag!;
    const started = Date.parse(tf.status?.startTime ?? '') || this.clock.now();
    const deadline = started + (tf.spec.timeout ?? TRACEFLOW_DEFAULT_TIMEOUT_S) * 1000;
    const remainingS = Math.ceil((deadline - this.clock.now()) / 1000);
    if (remainingS <= 0) return;
    const src = tf.spec.source;
    const source = this.node.flows.get('pods').find((p) => p.namespace === src.namespace && p.name === src.pod)
      ?? (src.ip !== undefined ? this.node.flows.get('pods').find((p) => p.ips.includes(src.ip!)) : undefined);
    const live = tf.spec.liveTraffic === true;
    // Live traffic naming only its destination Pod: that Pod's node tags what arrives for it.
    const dst = tf.spec.destination;
    const liveTarget = live && !source && src.ip === undefined ? this.node.flows.get('pods').find((p) => p.namespace === dst.namespace && p.name === dst.pod) : undefined;
    const t: ActiveTrace = { name: tf.metadata.name ?? '', uid: tf.metadata.uid ?? '', tag, source, live, reported: false, injections: 0, deadline };
    const srcPort = live ? undefined : probeSourcePort(tf, tag);
    if (srcPort !== undefined) t.probeSrcPort = srcPort;
    const family = familyOfTrace(tf, source ?? liveTarget);
    const targetIP = liveTarget?.ips.find((a) => a.includes(':') === (family === 6));
    const destination = source ? await resolveDestination(this.kube, tf, family) : targetIP !== undefined ? { ip: targetIP } : undefined;
    if (destination) t.destination = destination;
    this.active.set(t.name, t);
    const opts = { hardTimeout: remainingS, live, droppedOnly: tf.spec.droppedOnly === true, packetInMeter: this.ctx.options.packetInRate > 0 };
    const tagging = live && (source || liveTarget) ? traceMatchOf(tf, source, t.destination) : undefined;
    let n: number;
    try {
      n = await this.node.flows.addTrace(tag, opts, tagging ? (ctx) => [liveTagFlow(ctx, tag, source?.ofport, tagging)] : undefined);
    } catch (e) {
      // The bundle did not apply (nothing installed): not active, so the retry starts it afresh.
      this.active.delete(t.name);
      throw e;
    }
    this.ctx.log.info({ traceflow: t.name, tag, flows: n, source: source !== undefined, live }, 'Traceflow started on this node');
    if (source && !live) await this.inject(t, tf);
  }

  /**
   * Injects the probe, and again after {@link reinjectDelayMs} while the Traceflow runs (until this
   * trace ends or this node has reported a final result). A packet-out that fails is only logged:
   * the next one is due all the same.
   */
  private async inject(t: ActiveTrace, tf: Traceflow): Promise<void> {
    if (this.active.get(t.name) !== t || !t.source || !t.destination) return;
    const cfg = this.node.flows.config;
    let frame: Uint8Array;
    try {
      frame = buildProbe(probeSpec(tf, t.source, t.destination, this.node.flows.get('pods'), cfg.gateway.mac));
    } catch (err) {
      // The spec cannot make a probe (the controller's validation lets none through): it would not change, so no retry.
      t.done = true;
      this.ctx.log.warn({ err, traceflow: t.name }, 'Traceflow probe cannot be built');
      return;
    }
    try {
      await this.node.openflow.packetOut(frame, [TraceflowTagField.load(t.tag), { type: 'output', port: 'TABLE' }], t.source.ofport);
      this.injected++;
    } catch (err) {
      this.ctx.log.warn({ err, traceflow: t.name }, 'Traceflow probe not injected (injected again)');
    }
    t.injections++;
    const delay = reinjectDelayMs(t.injections);
    if (this.active.get(t.name) === t && !t.done && this.clock.now() + delay < t.deadline) t.timer = this.clock.setTimeout(() => void this.inject(t, tf), delay);
  }

  private async deactivate(t: ActiveTrace): Promise<void> {
    t.timer?.cancel();
    this.active.delete(t.name);
    await this.node.flows.removeTrace(t.tag);
    this.ctx.log.info({ traceflow: t.name, tag: t.tag, injections: t.injections, reported: t.reported }, 'Traceflow ended on this node');
  }

  private async handle(p: PacketIn): Promise<void> {
    if (p.type !== 'packetIn2' || p.userdata?.[0] !== PACKETIN_CATEGORY.TF) return;
    const packet = parseIpPacket(p.packet);
    if (!packet) return;
    const t = [...this.active.values()].find((x) => x.tag === packet.dscp);
    // One result per node: the first packet-in of the tag that is written (a re-injected probe, or
    // later live packets, add nothing; after a failed write the next one is written).
    if (!t || t.reported) return;
    // The destination's answer to the probe can carry the tag too: Linux copies the DSCP of the
    // packet it answers into a RST. Seen on a node whose trace flows came after the probe had
    // passed, it would be that node's only result (going back through the tunnel, never final).
    if (t.probeSrcPort !== undefined && packet.dstPort === t.probeSrcPort && packet.srcPort !== t.probeSrcPort) return;
    t.reported = true;
    const observations = observe(this.view(), { tableId: p.tableId ?? 0, metadata: p.metadata ?? {}, packet }, { sender: t.source !== undefined, ...(t.destination ? { dstIP: t.destination.ip } : {}) });
    try {
      await this.report(t, observations, packet);
    } catch (e) {
      t.reported = false;
      throw e;
    }
    if (isFinal(observations.at(-1))) {
      t.done = true;
      t.timer?.cancel();
    }
  }

  /** What the observations are read against: the installed pipeline and the node's state. */
  private view(): TraceNodeView {
    const f = this.node.flows;
    const cfg = f.config;
    return {
      tableName: (id) => f.nodeFlows?.pipeline.nameOf(id),
      // IPv6 addresses as a parsed packet writes them (canonical), so they compare.
      gateway: { ...cfg.gateway, ...(cfg.gateway.ipv6 !== undefined ? { ipv6: canonicalIp(cfg.gateway.ipv6) ?? cfg.gateway.ipv6 } : {}) },
      ...(cfg.tunnelOfport !== undefined ? { tunnelOfport: cfg.tunnelOfport } : {}),
      nodeIP: cfg.nodeIP,
      ...(cfg.nodeIPv6 !== undefined ? { nodeIPv6: canonicalIp(cfg.nodeIPv6) ?? cfg.nodeIPv6 } : {}),
      ...(cfg.podCIDR !== undefined ? { podCIDR: cfg.podCIDR } : {}),
      ...(cfg.podCIDRv6 !== undefined ? { podCIDRv6: cfg.podCIDRv6 } : {}),
      pods: f.get('pods'),
      remoteNodes: f.get('remoteNodes'),
      rules: this.rulesByConjId(),
      egresses: (f.get('egress')?.egresses ?? []).map((e) => ({
        ...e,
        egressNode: e.local ? this.ctx.options.nodeName : (f.get('remoteNodes').find((n) => n.nodeIP === e.ownerIP)?.name ?? e.ownerIP ?? ''),
      })),
    };
  }

  /** The rule behind each conjunction id in use, named as a Traceflow names it. */
  private rulesByConjId(): Map<number, TracedRule> {
    const ids = this.node.flows.conjIds ?? new Map<string, number>();
    const out = new Map<number, TracedRule>();
    for (const np of this.node.flows.get('policies')) {
      const ref = np.sourceRef;
      const policy = `${ref.type}:${ref.namespace ? `${ref.namespace}/` : ''}${ref.name}`;
      np.rules.forEach((r, i) => {
        const key = ruleKey(np.uid, i);
        for (const [k, id] of ids) if (k === key || k.startsWith(`${key}:`)) out.set(id, { policy, rule: r.name ?? `rule ${i}` });
      });
    }
    return out;
  }

  /** Writes this node's result into the Traceflow's status (read, replace this node's entry, write; again on a conflict). */
  private async report(t: ActiveTrace, observations: TraceflowObservation[], packet: ParsedIp): Promise<void> {
    const nodeName = this.ctx.options.nodeName;
    const result: TraceflowNodeResult = { node: nodeName, role: t.source ? 'Sender' : 'Receiver', timestamp: Math.floor(this.clock.now() / 1000), observations };
    const path = `/apis/${TRACEFLOWS.group}/${TRACEFLOWS.version}/traceflows/${encodeURIComponent(t.name)}`;
    for (let attempt = 0; ; attempt++) {
      const cur = await this.kube.request<KubeObject & Traceflow>('GET', path);
      if (cur.metadata.uid !== t.uid || cur.status?.phase !== 'Running') return;
      const results = [...(cur.status.results ?? []).filter((r) => r.node !== nodeName), result];
      const captured = t.live && !cur.status.capturedPacket ? { capturedPacket: capturedPacketOf(packet) } : {};
      try {
        await this.kube.request('PUT', `${path}/status`, { ...cur, status: { ...cur.status, ...captured, results } });
        this.reports++;
        this.ctx.log.info({ traceflow: t.name, role: result.role, last: observations.at(-1) }, 'Traceflow result reported');
        return;
      } catch (e) {
        if (!(e instanceof KubeRequestError && e.status === 409) || attempt >= STATUS_RETRIES) throw e;
      }
    }
  }

  async stop(): Promise<void> {
    this.node.openflow.off('packetIn', this.onPacketIn);
    await this.reconciler?.stop();
    await this.informer?.stop();
    for (const t of [...this.active.values()]) await this.deactivate(t).catch(() => undefined);
  }

  health(): PartHealth {
    if (!this.reconciler) return { ok: true, detail: 'not started' };
    if (this.reconciler.failing) return { ok: false, detail: `last apply failed: ${String(this.reconciler.lastError)}` };
    return { ok: true, detail: `${this.active.size} Traceflows active; ${this.reports} results reported` };
  }
}

/** The captured packet of a live trace, as Antrea's status shows it. */
function capturedPacketOf(p: ParsedIp): NonNullable<Traceflow['status']>['capturedPacket'] {
  const ports = { ...(p.srcPort !== undefined ? { srcPort: p.srcPort } : {}), ...(p.dstPort !== undefined ? { dstPort: p.dstPort } : {}) };
  const transport = p.protocol === 6 ? { tcp: { ...ports, ...(p.tcpFlags !== undefined ? { flags: p.tcpFlags } : {}) } } : p.protocol === 17 ? { udp: ports } : {};
  const ip = p.family === 6 ? { ipv6Header: { nextHeader: p.protocol, hopLimit: p.ttl } } : { ipHeader: { protocol: p.protocol, ttl: p.ttl, flags: p.flags } };
  return { srcIP: p.srcIP, dstIP: p.dstIP, length: p.length, ...ip, transportHeader: transport };
}
