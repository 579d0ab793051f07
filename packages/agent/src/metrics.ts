/**
 * Prometheus metrics of the agent (prom-client, text exposition format 0.0.4), served by the
 * local API at `/metrics`: flow counts per table, local pods, NetworkPolicies, CNI request
 * latency and flow sync latency. Each agent has its own registry, never prom-client's global one,
 * so several agents (tests, the lab) in one process keep their figures apart.
 */
import { Gauge, Histogram, Registry } from 'prom-client';

/** Latency buckets in seconds, from 5 ms to 10 s. */
export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The node state the gauges show, read from agentinfo at every scrape. */
export interface NodeState {
  /** Flows on the bridge by table name. */
  flowsByTable: Record<string, number>;
  localPods: number;
  networkPolicies: number;
}

/**
 * A latency histogram as the agent's call sites record into it: seconds first, then labels
 * (prom-client's own order is the reverse).
 */
export class LatencyHistogram<L extends string> {
  constructor(private readonly histogram: Histogram<L>) {}

  observe(seconds: number, labels: Partial<Record<L, string>> = {}): void {
    this.histogram.observe(labels, seconds);
  }
}

/** The agent's metric families, in one registry of its own. */
export class AgentMetrics {
  /** The registry `/metrics` renders. */
  readonly registry = new Registry();
  private readonly flowCount = new Gauge({ name: 'switchyard_agent_ovs_flow_count', help: 'Flows on the bridge, by table.', labelNames: ['table'] as const, registers: [this.registry] });
  private readonly localPods = new Gauge({ name: 'switchyard_agent_local_pod_count', help: 'Pods attached on this node.', registers: [this.registry] });
  private readonly policies = new Gauge({ name: 'switchyard_agent_networkpolicy_count', help: 'NetworkPolicies in the controlplane view.', registers: [this.registry] });
  readonly cniRequest = new LatencyHistogram(new Histogram({
    name: 'switchyard_agent_cni_request_duration_seconds',
    help: 'CNI requests handled by the agent, by command and result.',
    labelNames: ['command', 'result'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  }));
  readonly flowSync = new LatencyHistogram(new Histogram({
    name: 'switchyard_agent_flow_sync_duration_seconds',
    help: 'Flow syncs (compute, diff and bundle), by kind.',
    labelNames: ['kind'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  }));

  /** Content type of {@link render}'s text. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** Sets the gauges to the node's current state; tables absent now disappear from the output. */
  setNodeState(s: NodeState): void {
    this.flowCount.reset();
    for (const [table, n] of Object.entries(s.flowsByTable)) this.flowCount.set({ table }, n);
    this.localPods.set(s.localPods);
    this.policies.set(s.networkPolicies);
  }

  /** Every family as Prometheus text. */
  render(): Promise<string> {
    return this.registry.metrics();
  }
}
