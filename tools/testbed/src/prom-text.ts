// A strict reader of the Prometheus text exposition format 0.0.4, for tests of /metrics endpoints:
// every line must be a comment, a blank line or a well-formed sample, or it throws.

/** One sample line. */
export interface PromSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** One metric family: its TYPE, HELP and samples (histogram samples include _bucket/_sum/_count). */
export interface PromFamily {
  name: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  help?: string;
  samples: PromSample[];
}

/** A line that is not valid exposition text; `line` is 1-based. */
export class PromTextError extends Error {
  readonly code = 'BAD_PROM_TEXT';
  constructor(
    message: string,
    readonly line: number,
    readonly text: string,
  ) {
    super(`line ${line}: ${message}: ${JSON.stringify(text)}`);
    this.name = 'PromTextError';
  }
}

const METRIC = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const HELP_RE = new RegExp(`^# HELP (${METRIC}) ((?:[^\\\\\\n]|\\\\\\\\|\\\\n)*)$`);
const TYPE_RE = new RegExp(`^# TYPE (${METRIC}) (counter|gauge|histogram|summary|untyped)$`);
const SAMPLE_RE = new RegExp(`^(${METRIC})(?:\\{([^}]*)\\})? (\\S+)(?: (-?\\d+))?$`);
const LABEL_RE = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\\\|\\"|\\n)*)"(,|$)/;
const FLOAT_RE = /^(?:[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?Inf|NaN)$/;

const unescape = (s: string): string => s.replace(/\\(["\\n])/g, (_, c: string) => (c === 'n' ? '\n' : c));

function parseLabels(body: string, fail: (why: string) => never): Record<string, string> {
  const labels: Record<string, string> = {};
  let rest = body;
  while (rest.length > 0) {
    const m = LABEL_RE.exec(rest);
    if (!m) return fail('bad label pair');
    const [all, name = '', value = ''] = m;
    if (name in labels) fail(`label ${name} repeated`);
    labels[name] = unescape(value);
    rest = rest.slice(all.length);
  }
  return labels;
}

/** The family a sample name belongs to (histogram/summary samples carry a suffix). */
function familyOf(sample: string, families: Map<string, PromFamily>): PromFamily | undefined {
  if (families.has(sample)) return families.get(sample);
  const m = /^(.*)_(bucket|sum|count)$/.exec(sample);
  const f = m ? families.get(m[1] ?? '') : undefined;
  return f && (f.type === 'histogram' || (f.type === 'summary' && m?.[2] !== 'bucket')) ? f : undefined;
}

/** Checks a histogram's buckets per label set: cumulative, ending in +Inf equal to _count. */
function checkHistogram(f: PromFamily): void {
  const series = new Map<string, { buckets: [number, number][]; count?: number }>();
  for (const s of f.samples) {
    const { le, ...rest } = s.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    const e = series.get(key) ?? { buckets: [] };
    series.set(key, e);
    if (s.name === `${f.name}_bucket`) {
      if (le === undefined) throw new PromTextError('bucket without le', 0, s.name);
      e.buckets.push([le === '+Inf' ? Infinity : Number(le), s.value]);
    } else if (s.name === `${f.name}_count`) e.count = s.value;
  }
  for (const [key, e] of series) {
    const sorted = [...e.buckets].sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < sorted.length; i++) if (sorted[i]![1] < sorted[i - 1]![1]) throw new PromTextError(`${f.name} buckets are not cumulative`, 0, key);
    const inf = sorted.at(-1);
    if (!inf || inf[0] !== Infinity || inf[1] !== e.count) throw new PromTextError(`${f.name} +Inf bucket does not equal _count`, 0, key);
  }
}

/** Parses exposition text, refusing anything the format does not allow. */
export function parsePromText(text: string): Map<string, PromFamily> {
  const families = new Map<string, PromFamily>();
  if (text.length > 0 && !text.endsWith('\n')) throw new PromTextError('text does not end with a newline', 0, text.slice(-20));
  const lines = text.split('\n').slice(0, -1);
  const finished = new Set<string>();
  const seen = new Set<string>();
  let current: PromFamily | undefined;
  const enter = (f: PromFamily): void => {
    if (current !== f) {
      if (current) finished.add(current.name);
      if (finished.has(f.name)) throw new PromTextError(`family ${f.name} is not contiguous`, 0, f.name);
      current = f;
    }
  };
  lines.forEach((line, i) => {
    const fail = (why: string): never => {
      throw new PromTextError(why, i + 1, line);
    };
    if (line === '') return;
    let m: RegExpExecArray | null;
    if ((m = HELP_RE.exec(line))) {
      const f = families.get(m[1]!) ?? { name: m[1]!, type: 'untyped', samples: [] };
      if (f.help !== undefined) fail('second HELP');
      f.help = m[2]!.replace(/\\(\\|n)/g, (_, c: string) => (c === 'n' ? '\n' : '\\'));
      families.set(f.name, f);
      enter(f);
    } else if ((m = TYPE_RE.exec(line))) {
      const existing = families.get(m[1]!);
      if (existing && (existing.samples.length > 0 || existing.type !== 'untyped')) fail('TYPE after samples or repeated');
      const f = existing ?? { name: m[1]!, type: 'untyped', samples: [] };
      f.type = m[2] as PromFamily['type'];
      families.set(f.name, f);
      enter(f);
    } else if (line.startsWith('#')) {
      if (/^# (HELP|TYPE) /.test(line)) fail('malformed HELP/TYPE');
    } else if ((m = SAMPLE_RE.exec(line))) {
      if (!FLOAT_RE.test(m[3]!)) fail('value is not a float');
      const f = familyOf(m[1]!, families) ?? { name: m[1]!, type: 'untyped' as const, samples: [] };
      families.set(f.name, f);
      enter(f);
      const labels = parseLabels(m[2] ?? '', fail);
      const key = `${m[1]!}${JSON.stringify(Object.entries(labels).sort())}`;
      if (seen.has(key)) fail('sample repeated');
      seen.add(key);
      f.samples.push({ name: m[1]!, labels, value: Number(m[3]!.replace(/Inf$/, 'Infinity')) });
    } else fail('not a comment, blank line or sample');
  });
  for (const f of families.values()) if (f.type === 'histogram') checkHistogram(f);
  return families;
}
