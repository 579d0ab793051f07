// The `traceflow` part (feature gate Traceflow): hands out data-plane tags to crd.antrea.io
// Traceflows, fails the ones that cannot run, marks them Succeeded on a final agent result or
// Failed at their timeout, and deletes finished ones after the retention period.
import type { AntreaAgentInfo, Pod, Service, Traceflow, TraceflowPhase } from '@switchyard/apis/types';
import { KubeRequestError, type InformerEvent } from '@switchyard/kube';
import { Reconciler, type PartHealth, type TimerHandle } from '@switchyard/runtime';
import type { ControllerContext } from '../context';
import type { Watch, WatchingPart } from '../informers';
import { ANTREA_AGENT_INFOS, PODS, SERVICES, TRACEFLOWS } from '../resources';
import {
  assignTags,
  finishedBy,
  isComplete,
  pendingDeadline,
  pendingReason,
  reviewTraceflow,
  rfc3339,
  runningDeadline,
  agentRunning,
  type TimeoutFacts,
  type TraceflowTransition,
  type TraceflowView,
} from '../traceflow';
import { notRunning, type PartState } from './lifecycle';

/** Default time a finished Traceflow is kept (one hour). */
export const TRACEFLOW_RETENTION_MS = 3_600_000;
/** Default AntreaAgentInfo heartbeat period of the agents (60 s, as Antrea). */
export const AGENT_INFO_INTERVAL_MS = 60_000;
/** Attempts of one status read-modify-write that keeps meeting 409 Conflict (agents write results too). */
const CONFLICT_ATTEMPTS = 20;

/** What the controller wrote to one Traceflow (by uid): ahead of the informer's cache until the watch catches up. */
interface Held {
  name: string;
  phase: TraceflowPhase;
  reason?: string;
  dataplaneTag?: number;
  startTime?: string;
  /** When it finished, as this controller saw it. */
  finishedAt?: number;
}

const FINISHED: ReadonlySet<TraceflowPhase | undefined> = new Set<TraceflowPhase | undefined>(['Succeeded', 'Failed']);
const statusPath = (name: string): string => `/apis/crd.antrea.io/v1beta1/traceflows/${encodeURIComponent(name)}/status`;
const objectPath = (name: string): string => `/apis/crd.antrea.io/v1beta1/traceflows/${encodeURIComponent(name)}`;
const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** The status a transition writes over `current` (results and anything agents wrote are kept). */
function nextStatus(current: Traceflow['status'], t: TraceflowTransition): NonNullable<Traceflow['status']> {
  const out: NonNullable<Traceflow['status']> = { ...current, phase: t.phase };
  if (t.reason !== undefined) out.reason = t.reason;
  else delete out.reason;
  if (t.dataplaneTag !== undefined) out.dataplaneTag = t.dataplaneTag;
  if (t.startTime !== undefined) out.startTime = t.startTime;
  return out;
}

export class TraceflowController implements WatchingPart {
  readonly name = 'traceflow';
  readonly watches: readonly Watch[];
  private readonly held = new Map<string, Held>();
  private readonly reconciler: Reconciler;
  private readonly retentionMs: number;
  private readonly heartbeatMs: number;
  private timer: TimerHandle | undefined;
  private state: PartState = 'new';

  constructor(private readonly ctx: ControllerContext) {
    this.retentionMs = ctx.options.traceflowRetentionMs ?? TRACEFLOW_RETENTION_MS;
    this.heartbeatMs = ctx.options.agentInfoIntervalMs ?? AGENT_INFO_INTERVAL_MS;
    this.reconciler = new Reconciler(() => this.apply(), {
      clock: ctx.clock,
      onError: (e, retryInMs) => ctx.log.warn({ err: message(e), retryInMs }, 'traceflow reconcile failed'),
    });
    // Pods and Services are read when a Traceflow is validated, AntreaAgentInfos when one times out.
    this.watches = [{ resource: TRACEFLOWS, onEvent: (e) => this.onEvent(e) }, { resource: PODS }, { resource: SERVICES }, { resource: ANTREA_AGENT_INFOS }];
    ctx.metrics.register('switchyard_controller_traceflows', 'gauge', 'Traceflows the controller holds, by phase', () => this.countByPhase(), ['phase']);
  }

  /** After the informers part: Traceflows already Running take their tags again before any new one gets a tag. */
  async start(): Promise<void> {
    this.state = 'running';
    for (const obj of this.ctx.informers.cache(TRACEFLOWS).values()) this.effective(obj as unknown as Traceflow);
    this.ctx.log.info({ running: this.tags().size }, 'traceflow controller started');
    this.reconciler.schedule();
  }

  async stop(): Promise<void> {
    this.state = 'stopped';
    this.timer?.cancel();
    await this.reconciler.stop();
  }

  /** Resolves when the queued work is done. */
  idle(): Promise<void> {
    return this.reconciler.idle();
  }

  /** The data-plane tags of the Running Traceflows, by name. */
  tags(): Map<string, number> {
    const out = new Map<string, number>();
    for (const h of this.held.values()) if (h.phase === 'Running' && h.dataplaneTag !== undefined) out.set(h.name, h.dataplaneTag);
    return out;
  }

  health(): PartHealth {
    const off = notRunning(this.state);
    if (off) return off;
    const n = this.countByPhase();
    const detail = `${n.find((s) => s.labels.phase === 'Running')?.value ?? 0} running, ${n.find((s) => s.labels.phase === 'Pending')?.value ?? 0} pending`;
    if (this.reconciler.failing) return { ok: false, detail: `${detail}; last status write failed: ${message(this.reconciler.lastError)}` };
    return { ok: true, detail };
  }

  private countByPhase(): { labels: { phase: string }; value: number }[] {
    const phases: TraceflowPhase[] = ['Pending', 'Running', 'Succeeded', 'Failed'];
    return phases.map((phase) => ({ labels: { phase }, value: [...this.held.values()].filter((h) => h.phase === phase).length }));
  }

  private onEvent(e: InformerEvent): void {
    if (this.state !== 'running') return;
    if (e.type === 'DELETED') {
      const uid = e.object.metadata.uid ?? '';
      const h = this.held.get(uid);
      if (h?.phase === 'Running') this.ctx.log.info({ traceflow: h.name, dataplaneTag: h.dataplaneTag }, 'traceflow deleted while running; tag released');
      this.held.delete(uid);
    }
    this.reconciler.schedule();
  }

  /** The Traceflow with what this controller wrote over the cached status; one first seen with a phase is taken in as it is. */
  private effective(tf: Traceflow): Traceflow {
    const uid = tf.metadata.uid ?? '';
    let h = this.held.get(uid);
    if (!h && tf.status?.phase !== undefined) h = this.adopt(tf);
    if (!h) return tf;
    return { ...tf, status: nextStatus(tf.status, h) };
  }

  private adopt(tf: Traceflow): Held {
    const { phase, reason, dataplaneTag, startTime } = tf.status ?? {};
    const h: Held = { name: tf.metadata.name ?? '', phase: phase ?? 'Pending' };
    if (reason !== undefined) h.reason = reason;
    if (startTime !== undefined) h.startTime = startTime;
    if (dataplaneTag !== undefined) {
      h.dataplaneTag = dataplaneTag;
      const clash = [...this.tags()].find(([, tag]) => tag === dataplaneTag);
      if (h.phase === 'Running' && clash) this.ctx.log.warn({ traceflow: h.name, other: clash[0], dataplaneTag }, 'two running traceflows hold the same tag');
    }
    if (FINISHED.has(h.phase)) h.finishedAt = finishedBy(tf, this.ctx.clock.now());
    this.held.set(tf.metadata.uid ?? '', h);
    return h;
  }

  private view(): TraceflowView {
    const pods = this.ctx.informers.cache(PODS);
    const services = this.ctx.informers.cache(SERVICES);
    return {
      pod: (ns, name) => pods.get(`${ns}/${name}`) as Pod | undefined,
      service: (ns, name) => services.get(`${ns}/${name}`) as Service | undefined,
    };
  }

  private facts(tf: Traceflow, view: TraceflowView, now: number): TimeoutFacts {
    const { source, destination } = tf.spec;
    const infos = this.ctx.informers.cache(ANTREA_AGENT_INFOS);
    const facts: TimeoutFacts = { agentRunning: (node) => agentRunning(infos.get(node) as AntreaAgentInfo | undefined, now, this.heartbeatMs) };
    const sender = source.pod ? view.pod(source.namespace ?? 'default', source.pod)?.spec?.nodeName : undefined;
    const receiver = destination.pod ? view.pod(destination.namespace ?? 'default', destination.pod)?.spec?.nodeName : undefined;
    if (sender) facts.senderNode = sender;
    if (receiver) facts.receiverNode = receiver;
    return facts;
  }

  /** One pass over every Traceflow: finish what is due, hand free tags to the waiting, collect what is done, set the next wake-up. */
  private async apply(): Promise<void> {
    if (this.state !== 'running') return;
    const now = this.ctx.clock.now();
    const view = this.view();
    const wake: number[] = [];
    const waiting: Traceflow[] = [];
    const failures: unknown[] = [];
    const attempt = async (what: () => Promise<void>): Promise<void> => what().catch((e: unknown) => void failures.push(e));
    const cache = this.ctx.informers.cache(TRACEFLOWS);
    for (const key of [...cache.keys()]) {
      // Writes await: one deleted meanwhile is not taken in again from a stale copy.
      const obj = cache.get(key);
      if (!obj) continue;
      const tf = this.effective(obj as unknown as Traceflow);
      const verdict = reviewTraceflow(tf, now, view, () => this.facts(tf, view, now));
      if (verdict.kind === 'fail') await attempt(() => this.fail(tf, verdict.reason));
      else if (verdict.kind === 'succeed') await attempt(() => this.write(tf, () => ({ phase: 'Succeeded' })));
      else if (verdict.kind === 'wait-tag') waiting.push(tf);
      else if (verdict.wakeAt !== undefined) wake.push(verdict.wakeAt);
      if (FINISHED.has(tf.status?.phase)) await attempt(() => this.collect(tf, now, wake));
    }
    await attempt(() => this.handOutTags(waiting, now, wake));
    this.forgetDeleted();
    this.arm(wake, now);
    if (failures.length > 0) throw new AggregateError(failures, `${failures.length} traceflow writes failed: ${failures.map(message).join('; ')}`);
  }

  /** Drops what it holds for Traceflows no longer in the cache (their tags are free). */
  private forgetDeleted(): void {
    const present = new Set([...this.ctx.informers.cache(TRACEFLOWS).values()].map((o) => o.metadata.uid ?? ''));
    for (const uid of [...this.held.keys()]) if (!present.has(uid)) this.held.delete(uid);
  }

  private fail(tf: Traceflow, reason: string): Promise<void> {
    // A final result that came in after the cache was read wins over the timeout.
    return this.write(tf, (fresh) => (tf.status?.phase === 'Running' && isComplete(fresh.status?.results, fresh.spec) ? { phase: 'Succeeded' } : { phase: 'Failed', reason }));
  }

  /** The oldest waiting ones take the free tags; a new one that gets none is marked Pending. */
  private async handOutTags(waiting: readonly Traceflow[], now: number, wake: number[]): Promise<void> {
    const held = new Set(this.tags().values());
    const given = assignTags(waiting, held);
    const startTime = rfc3339(now);
    for (const tf of waiting) {
      const tag = given.get(tf.metadata.name ?? '');
      if (tag !== undefined) {
        await this.write(tf, () => ({ phase: 'Running', dataplaneTag: tag, startTime }));
        wake.push(runningDeadline({ ...tf, status: { startTime } }) ?? now);
        continue;
      }
      wake.push(pendingDeadline(tf, now));
      if (tf.status?.phase !== 'Pending') await this.write(tf, () => ({ phase: 'Pending', reason: pendingReason(held.size + given.size) }));
    }
  }

  /** Deletes a finished Traceflow once the retention period has passed. */
  private async collect(tf: Traceflow, now: number, wake: number[]): Promise<void> {
    const h = this.held.get(tf.metadata.uid ?? '');
    const due = (h?.finishedAt ?? finishedBy(tf, now)) + this.retentionMs;
    if (now < due) {
      wake.push(due);
      return;
    }
    try {
      await this.ctx.kube.request('DELETE', objectPath(tf.metadata.name ?? ''));
      this.ctx.log.info({ traceflow: tf.metadata.name, phase: tf.status?.phase }, 'finished traceflow deleted after retention');
    } catch (e) {
      if (!(e instanceof KubeRequestError && e.status === 404)) throw e;
    }
  }

  private arm(wake: readonly number[], now: number): void {
    this.timer?.cancel();
    this.timer = undefined;
    const next = Math.min(...wake);
    if (!Number.isFinite(next) || this.state !== 'running') return;
    this.timer = this.ctx.clock.setTimeout(() => this.reconciler.schedule(), Math.max(0, next - now));
  }

  /**
   * Read-modify-write of the status subresource over its resourceVersion, retried on 409 as agents
   * write their results the same way. `next` sees the fresh object; results are never dropped.
   * When the server's phase is not the one this decision was made from, the server's is taken in
   * and nothing is written (the next pass decides again).
   */
  private async write(tf: Traceflow, next: (fresh: Traceflow) => TraceflowTransition): Promise<void> {
    const name = tf.metadata.name ?? '';
    const uid = tf.metadata.uid ?? '';
    for (let i = 0; ; i++) {
      let fresh: Traceflow;
      try {
        fresh = await this.ctx.kube.request<Traceflow>('GET', objectPath(name));
      } catch (e) {
        if (e instanceof KubeRequestError && e.status === 404) return void this.held.delete(uid);
        throw e;
      }
      if (fresh.metadata.uid !== uid) return void this.held.delete(uid);
      if (fresh.status?.phase !== tf.status?.phase) {
        this.held.delete(uid);
        if (fresh.status?.phase !== undefined) this.adopt(fresh);
        return void this.reconciler.schedule();
      }
      const t = next(fresh);
      try {
        await this.ctx.kube.request('PUT', statusPath(name), { ...fresh, status: nextStatus(fresh.status, t) });
      } catch (e) {
        if (e instanceof KubeRequestError && e.status === 409 && i + 1 < CONFLICT_ATTEMPTS) continue;
        throw e;
      }
      this.record(uid, name, t, tf.status?.phase);
      return;
    }
  }

  private record(uid: string, name: string, t: TraceflowTransition, from: TraceflowPhase | undefined): void {
    const before = this.held.get(uid);
    const h: Held = { ...before, name, phase: t.phase };
    if (t.reason !== undefined) h.reason = t.reason;
    else delete h.reason;
    if (t.dataplaneTag !== undefined) h.dataplaneTag = t.dataplaneTag;
    if (t.startTime !== undefined) h.startTime = t.startTime;
    if (FINISHED.has(t.phase)) h.finishedAt = this.ctx.clock.now();
    this.held.set(uid, h);
    const released = from === 'Running' && t.phase !== 'Running' ? h.dataplaneTag : undefined;
    this.ctx.log.info({ traceflow: name, from: from ?? 'new', phase: t.phase, reason: t.reason, dataplaneTag: h.dataplaneTag, released }, 'traceflow phase');
  }
}
