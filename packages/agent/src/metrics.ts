/**
 * Prometheus metrics of the agent (text exposition format 0.0.4), served by the local API at
 * `/metrics`: CNI request latency, flow sync latency, flow counts per table, local pods.
 */

/** Latency buckets in seconds, from 5 ms to 10 s. */
export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** A histogram with labels, cumulative buckets as Prometheus expects. */
export class Histogram {
  private readonly series = new Map<string, { labels: Record<string, string>; counts: number[]; sum: number; count: number }>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly buckets: readonly number[] = LATENCY_BUCKETS,
  ) {}

  observe(seconds: number, labels: Record<string, string> = {}): void {
    const key = JSON.stringify(Object.entries(labels).sort());
    let s = this.series.get(key);
    if (!s) {
      s = { labels, counts: this.buckets.map(() => 0), sum: 0, count: 0 };
      this.series.set(key, s);
    }
    for (let i = 0; i < this.buckets.length; i++) if (seconds <= (this.buckets[i] ?? Infinity)) s.counts[i] = (s.counts[i] ?? 0) + 1;
    s.sum += seconds;
    s.count++;
  }

  render(): string[] {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const s of this.series.values()) {
      this.buckets.forEach((b, i) => lines.push(`${this.name}_bucket${labelText({ ...s.labels, le: String(b) })} ${s.counts[i] ?? 0}`));
      lines.push(`${this.name}_bucket${labelText({ ...s.labels, le: '+Inf' })} ${s.count}`);
      lines.push(`${this.name}_sum${labelText(s.labels)} ${s.sum}`);
      lines.push(`${this.name}_count${labelText(s.labels)} ${s.count}`);
    }
    return lines;
  }
}

function labelText(labels: Record<string, string>): string {
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`);
  return parts.length ? `{${parts.join(',')}}` : '';
}

/** A gauge family rendered from current values. */
export function renderGauge(name: string, help: string, values: { labels?: Record<string, string>; value: number }[]): string[] {
  return [`# HELP ${name} ${help}`, `# TYPE ${name} gauge`, ...values.map((v) => `${name}${labelText(v.labels ?? {})} ${v.value}`)];
}

/** The agent's metric families. */
export class AgentMetrics {
  readonly cniRequest = new Histogram('switchyard_agent_cni_request_duration_seconds', 'CNI requests handled by the agent, by command and result.');
  readonly flowSync = new Histogram('switchyard_agent_flow_sync_duration_seconds', 'Flow syncs (compute, diff and bundle), by kind.');
}
