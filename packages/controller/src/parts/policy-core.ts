// The `policy` part: the policy compiler's hub fed by the informers of its inputs, and the
// policies' realization status. Marking the hub synced (from then on watches are served) is its sync.
import type { ClusterObject } from '@switchyard/policy-compiler';
import type { InformerEvent, ResourceSpec } from '@switchyard/kube';
import type { Logger, PartHealth } from '@switchyard/runtime';
import type { ControllerContext } from '../context';
import { ControlplaneHub } from '../hub';
import type { Watch, WatchingPart } from '../informers';
import type { MetricsRegistry } from '../metrics';
import { POLICY_INPUTS } from '../resources';
import { PolicyStatusAggregator } from '../status';

/** An informer handler that applies each event of `resource` to the hub; an object the compiler refuses is logged. */
export function compileInto(hub: ControlplaneHub, log: Logger, resource: ResourceSpec): (e: InformerEvent) => void {
  return (e) => {
    try {
      hub.apply({ type: e.type, object: e.object as unknown as ClusterObject });
    } catch (err) {
      log.warn({ kind: resource.kind, name: e.object.metadata.name, err: (err as Error).message }, 'object not compiled');
    }
  };
}

export class PolicyCore implements WatchingPart {
  readonly name = 'policy';
  readonly hub: ControlplaneHub;
  readonly status: PolicyStatusAggregator;
  readonly watches: readonly Watch[];
  private stopped = false;

  constructor(ctx: ControllerContext) {
    const o = ctx.options;
    this.hub = new ControlplaneHub({ clock: ctx.clock, logger: ctx.log, ...(o.historyPerNode ? { historyPerNode: o.historyPerNode } : {}), ...(o.bookmarkIntervalMs !== undefined ? { bookmarkIntervalMs: o.bookmarkIntervalMs } : {}) });
    this.status = new PolicyStatusAggregator(this.hub, ctx.kube, {
      clock: ctx.clock,
      logger: ctx.log,
      generationOf: (type, ns, name) => {
        const plural = type === 'AntreaClusterNetworkPolicy' ? 'clusternetworkpolicies' : 'networkpolicies';
        for (const p of ctx.informers.values('crd.antrea.io', plural)) if (p.metadata.name === name && (type === 'AntreaClusterNetworkPolicy' || p.metadata.namespace === ns)) return (p.metadata as { generation?: number }).generation;
        return undefined;
      },
    });
    this.watches = POLICY_INPUTS.map((resource) => ({ resource, onEvent: compileInto(this.hub, ctx.log, resource) }));
    registerMetrics(ctx.metrics, this.hub);
  }

  async start(): Promise<void> {
    // The informers part lists the inputs into the hub.
  }

  /** Every part has started (every input listed): watches may be served. */
  async sync(): Promise<void> {
    this.hub.markSynced();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.status.close();
    this.hub.close();
  }

  health(): PartHealth {
    if (this.stopped) return { ok: false, detail: 'stopped' };
    if (!this.hub.synced) return { ok: false, detail: 'inputs not listed yet' };
    return { ok: true, detail: `${this.hub.engine.policies.size} policies compiled, ${this.hub.stats.rejectedObjects} objects refused, ${this.hub.connectedNodes().length} nodes watching` };
  }
}

function registerMetrics(m: MetricsRegistry, hub: ControlplaneHub): void {
  m.register('switchyard_controller_cluster_events_total', 'counter', 'Cluster events applied to the policy compiler', () => hub.stats.clusterEvents);
  m.register('switchyard_controller_compile_seconds_total', 'counter', 'Time spent in the incremental compiler', () => Number(hub.stats.applyNanos) / 1e9);
  m.register('switchyard_controller_rejected_objects_total', 'counter', 'Objects refused by validation', () => hub.stats.rejectedObjects);
  m.register('switchyard_controller_network_policies', 'gauge', 'Compiled internal NetworkPolicies', () => hub.engine.policies.size);
}
