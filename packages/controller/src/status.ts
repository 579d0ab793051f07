// Policy realization status: agents report which generation of each policy they realized; the
// controller aggregates that over the policy's span into the source object's status.
import type { AntreaNetworkPolicyStatus, controlplane } from '@switchyard/apis';
import { silentLogger, systemClock, type Clock, type Logger, type TimerHandle } from '@switchyard/runtime';
import type { ControlplaneHub } from './hub';
import type { KubeClient } from '@switchyard/kube';

/** Aggregated status of one policy. */
export type PolicyRealization = Required<Pick<AntreaNetworkPolicyStatus, 'phase' | 'observedGeneration' | 'currentNodesRealized' | 'desiredNodesRealized'>>;

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
    options: { clock?: Clock; logger?: Logger; flushDelayMs?: number } = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.log = options.logger ?? silentLogger;
    this.flushDelayMs = options.flushDelayMs ?? 200;
    hub.onApply(() => this.schedule());
  }
  private readonly flushDelayMs: number;

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
    let failed = false;
    for (const n of span) {
      const r = reports?.get(n);
      if (r?.failed) failed = true;
      else if (r && r.generation === policy.generation) current++;
    }
    const phase = failed ? 'Failed' : current === span.length ? 'Realized' : 'Realizing';
    return { phase, observedGeneration: policy.generation, currentNodesRealized: current, desiredNodesRealized: span.length };
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
      const text = JSON.stringify(status);
      if (this.written.get(c.policy.uid) === text) continue;
      try {
        await this.kube.request('PATCH', path, { status }, 'application/merge-patch+json');
        this.written.set(c.policy.uid, text);
      } catch (e) {
        this.log.warn({ policy: `${ref.namespace}/${ref.name}`, err: (e as Error).message }, 'status update failed');
      }
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
