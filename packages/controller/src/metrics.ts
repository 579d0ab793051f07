// The controller's counters and gauges as Prometheus text (prom-client, exposition format 0.0.4),
// read from callbacks at scrape time, in a registry per controller rather than prom-client's global one.
import { Counter, Gauge, Registry } from 'prom-client';
import { ControllerError } from './errors';

/** One value of a family, with its labels. */
export type MetricSample = { labels?: Record<string, string>; value: number | bigint };

/** A set of metric families read at scrape time from callbacks. */
export class MetricsRegistry {
  private readonly registry = new Registry();

  /** Content type of {@link render}'s text. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /**
   * Register a family whose samples are computed at scrape time. `labelNames` lists every label
   * the samples may carry. Counters take the callback's value as their total (it only grows).
   * Throws {@link ControllerError} `INVALID_CONFIG` for a name or label Prometheus does not allow.
   */
  register(name: string, type: 'counter' | 'gauge', help: string, samples: () => MetricSample[] | number | bigint, labelNames: readonly string[] = []): void {
    const read = (): MetricSample[] => {
      const s = samples();
      return typeof s === 'number' || typeof s === 'bigint' ? [{ value: s }] : s;
    };
    // Registering a name again replaces the family (a controller started a second time).
    this.registry.removeSingleMetric(name);
    try {
      this.add(name, type, help, read, labelNames);
    } catch (e) {
      throw new ControllerError('INVALID_CONFIG', `metric ${name}: ${(e as Error).message}`, 'metrics', name, { cause: e });
    }
  }

  private add(name: string, type: 'counter' | 'gauge', help: string, read: () => MetricSample[], labelNames: readonly string[]): void {
    if (type === 'counter') {
      new Counter({
        name, help, labelNames, registers: [this.registry],
        collect() {
          this.reset();
          for (const s of read()) this.inc(s.labels ?? {}, Number(s.value));
        },
      });
    } else {
      new Gauge({
        name, help, labelNames, registers: [this.registry],
        collect() {
          this.reset();
          for (const s of read()) this.set(s.labels ?? {}, Number(s.value));
        },
      });
    }
  }

  /** Render every family. */
  render(): Promise<string> {
    return this.registry.metrics();
  }
}
