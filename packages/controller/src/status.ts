// Policy realization status: agents report which generation of each policy they realized; the
// controller aggregates that over the policy's span into the source object's status, with the
// conditions Antrea writes (Realizable; RealizationFailure naming the failed nodes). A policy the
// compiler refuses gets phase Pending and Realizable False with the compiler's reasons.
import type { AntreaNetworkPolicyStatus, Condition, controlplane } from '@switchyard/apis';
import type { RejectedObject } from '@switchyard/policy-compiler';
import { silentLogger, systemClock, type Clock, type Logger, type TimerHandle } from '@switchyard/runtime';
import type { ControlplaneHub } from './hub';
import type { KubeClient } from '@switchyard/kube';

/** Aggregated status of one policy. */
export type PolicyRealization = Required<Pick<AntreaNetworkPolicyStatus, 'phase' | 'observedGeneration' | 'currentNodesRealized' | 'desiredNodesRealized' | 'conditions'>>;

/** Antrea's condition types and reasons. */
export const REALIZABLE = 'Realizable';
export const REALIZATION_FAILURE = 'RealizationFailure';
export const REASON_FAILED_ON_NODE = 'NetworkPolicyRealizationFailedOnNode';
export const REASON_INVALID = 'NetworkPolicyInvalid';

const REJECTED_TYPE: Partial<Record<RejectedObject['kind'], controlplane.NetworkPolicyType>> = { ClusterNetworkPolicy: 'AntreaClusterNetworkPolicy', AntreaNetworkPolicy: 'AntreaNetworkPolicy' };

const STATUS_PATH: Partial<Record<controlplane.NetworkPolicyType, (ref: controlplane.NetworkPolicyReference) => string>> = {
  AntreaClusterNetworkPolicy: (r) => `/apis/crd.antrea.io/v1beta1/clusternetworkpolicies/${r.name}/status`,
  AntreaNetworkPolicy: (r) => `/apis/crd.antrea.io/v1beta1/namespaces/${r.namespace}/networkpolicies/${r.name}/status`,
};

/**
 * Aggregates agents' reports. Pure aggregation in {@link PolicyStatusAggregator.realization};
 * writes to the Kubernetes API are coalesced (`flushDelayMs`) and only sent when they change.
 */
export class PolicyStatusAggregator {
  /** uid -> node -> realized generation (or failure). */
  private readonly reports = new Map<string, Map<string, { generation: number; failed: boolean; message?: string }>>();
  private readonly written = new Map<string, string>();
  private timer: TimerHandle | undefined;
  private readonly clock: Clock;
  private readonly log: Logger;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly hub: ControlplaneHub,
    private readonly kube: KubeClient | undefined,
    options: { clock?: Clock; logger?: Logger; flushDelayMs?: number; /** metadata.generation of a source policy (refused ones are not compiled, so the hub does not know it). */ generationOf?: (type: controlplane.NetworkPolicyType, namespace: string, name: string) => number | undefined } = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.log = options.logger ?? silentLogger;
    this.flushDelayMs = options.flushDelayMs ?? 200;
    this.generationOf = options.generationOf;
    hub.onApply(() => this.schedule());
  }
  private readonly flushDelayMs: number;
  private readonly generationOf: ((type: controlplane.NetworkPolicyType, namespace: string, name: string) => number | undefined) | undefined;
  /** key -> condition type -> [status, lastTransitionTime]: the time moves only when the status does. */
  private readonly transitions = new Map<string, Map<string, [string, string]>>();

  private condition(key: string, c: Omit<Condition, 'lastTransitionTime'>): Condition {
    let m = this.transitions.get(key);
    if (!m) this.transitions.set(key, (m = new Map()));
    const prev = m.get(c.type);
    const at = prev && prev[0] === c.status ? prev[1] : new Date(this.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
    m.set(c.type, [c.status, at]);
    return { ...c, lastTransitionTime: at };
  }

  /** Record an agent's report (the agent's node must be `node`). */
  report(node: string, status: controlplane.NetworkPolicyStatus): void {
    let m = this.reports.get(status.name);
    if (!m) this.reports.set(status.name, (m = new Map()));
    for (const s of status.nodes) {
      if (s.nodeName !== node) continue;
      const r: { generation: number; failed: boolean; message?: string } = { generation: s.generation, failed: s.realizationFailure === true };
      if (s.message !== undefined) r.message = s.message;
      m.set(node, r);
    }
    this.schedule();
  }

  /** Realization of the policy with this uid over its current span. */
  realization(uid: string): PolicyRealization | undefined {
    const policy = this.policy(uid);
    if (!policy) return undefined;
    const span = this.hub.engine.spanOf('NetworkPolicy', uid);
    const reports = this.reports.get(uid);
    let current = 0;
    const failedNodes: string[] = [];
    for (const n of span) {
      const r = reports?.get(n);
      if (r?.failed) failedNodes.push(r.message ? `${n} (${r.message})` : n);
      else if (r && r.generation === policy.generation) current++;
    }
    const phase = failedNodes.length > 0 ? 'Failed' : current === span.length ? 'Realized' : 'Realizing';
    const conditions = [this.condition(uid, { type: REALIZABLE, status: 'True' })];
    if (failedNodes.length > 0) conditions.push(this.condition(uid, { type: REALIZATION_FAILURE, status: 'True', reason: REASON_FAILED_ON_NODE, message: `Failed Nodes count ${failedNodes.length}: ${failedNodes.join(', ')}` }));
    else this.transitions.get(uid)?.delete(REALIZATION_FAILURE);
    return { phase, observedGeneration: policy.generation, currentNodesRealized: current, desiredNodesRealized: span.length, conditions };
  }

  /** Status of a policy the compiler refused: nothing is realized, and the reasons are named. */
  refusal(r: RejectedObject): AntreaNetworkPolicyStatus | undefined {
    const type = REJECTED_TYPE[r.kind];
    if (!type) return undefined;
    const status: AntreaNetworkPolicyStatus = { phase: 'Pending', currentNodesRealized: 0, desiredNodesRealized: 0 };
    const generation = this.generationOf?.(type, r.namespace, r.name);
    if (generation !== undefined) status.observedGeneration = generation;
    status.conditions = [this.condition(`refused:${r.kind}/${r.namespace}/${r.name}`, { type: REALIZABLE, status: 'False', reason: REASON_INVALID, message: r.errors.map((e) => e.message).join('; ') })];
    return status;
  }

  private policy(uid: string): controlplane.NetworkPolicy | undefined {
    for (const c of this.hub.engine.compiledPolicies()) if (c.policy.uid === uid) return c.policy;
    return undefined;
  }

  private schedule(): void {
    if (!this.kube || this.timer) return;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.flushing = this.flushing.then(() => this.flush());
    }, this.flushDelayMs);
  }

  /** Write every changed status now. */
  async flush(): Promise<void> {
    if (!this.kube) return;
    for (const c of this.hub.engine.compiledPolicies()) {
      const ref = c.policy.sourceRef;
      const path = STATUS_PATH[ref.type]?.(ref);
      if (!path) continue;
      const status = this.realization(c.policy.uid);
      if (!status) continue;
      await this.write(c.policy.uid, path, status, `${ref.namespace ?? ''}/${ref.name}`);
    }
    for (const r of this.hub.engine.rejected()) {
      const type = REJECTED_TYPE[r.kind];
      const status = this.refusal(r);
      const path = type ? STATUS_PATH[type]?.({ type, namespace: r.namespace, name: r.name, uid: '' }) : undefined;
      if (status && path) await this.write(`refused:${r.kind}/${r.namespace}/${r.name}`, path, status, `${r.namespace}/${r.name}`);
    }
  }

  /** PATCH the status when it differs from what was last written under `key`. */
  private async write(key: string, path: string, status: AntreaNetworkPolicyStatus, what: string): Promise<void> {
    const text = JSON.stringify(status);
    if (this.written.get(key) === text) return;
    try {
      // conditions is a list: a merge patch replaces it whole, as the status is computed whole.
      await this.kube?.request('PATCH', path, { status }, 'application/merge-patch+json');
      this.written.set(key, text);
    } catch (e) {
      this.log.warn({ policy: what, err: (e as Error).message }, 'status update failed');
    }
  }

  /** Wait for pending writes. */
  async idle(): Promise<void> {
    await this.flushing;
  }

  close(): void {
    this.timer?.cancel();
  }
}
