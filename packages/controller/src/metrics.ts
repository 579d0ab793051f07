// Prometheus text exposition (format 0.0.4) for the controller's counters and gauges.

type Sample = { labels?: Record<string, string>; value: number | bigint };
interface Family {
  help: string;
  type: 'counter' | 'gauge' | 'summary';
  samples: () => Sample[];
}

const esc = (v: string): string => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

/** A set of metric families read at scrape time from callbacks. */
export class MetricsRegistry {
  private readonly families = new Map<string, Family>();

  /** Register a family whose samples are computed at scrape time. */
  register(name: string, type: Family['type'], help: string, samples: () => Sample[] | number | bigint): void {
    this.families.set(name, { help, type, samples: () => {
      const s = samples();
      return typeof s === 'number' || typeof s === 'bigint' ? [{ value: s }] : s;
    } });
  }

  /** Render every family. */
  render(): string {
    const out: string[] = [];
    for (const [name, f] of this.families) {
      out.push(`# HELP ${name} ${f.help}`, `# TYPE ${name} ${f.type === 'summary' ? 'untyped' : f.type}`);
      for (const s of f.samples()) {
        const labels = s.labels && Object.keys(s.labels).length > 0 ? `{${Object.entries(s.labels).map(([k, v]) => `${k}="${esc(v)}"`).join(',')}}` : '';
        out.push(`${name}${labels} ${s.value.toString()}`);
      }
    }
    return `${out.join('\n')}\n`;
  }
}
