// The lab benches' shared output: the table every bench prints, and the load averages it records.
import { loadavg } from 'node:os';

/** One figure of a bench. */
export interface BenchRow {
  metric: string;
  value: number;
  unit: string;
  note?: string;
}

/** Prints the rows as an aligned table on stdout. */
export function printRows(rows: readonly BenchRow[]): void {
  const w = Math.max(...rows.map((r) => r.metric.length));
  process.stdout.write(`\n${'metric'.padEnd(w)}  ${'value'.padStart(10)}  unit\n`);
  for (const r of rows) process.stdout.write(`${r.metric.padEnd(w)}  ${String(r.value).padStart(10)}  ${r.unit}${r.note ? `  (${r.note})` : ''}\n`);
}

/** The load averages at the start (as `loadavg()` gave them then) and now, printed and returned for the JSON. */
export function loadAverages(atStart: readonly number[]): { atStart: number[]; atEnd: number[] } {
  const r2 = (x: number): number => Math.round(x * 100) / 100;
  const load = { atStart: atStart.map(r2), atEnd: loadavg().map(r2) };
  process.stdout.write(`load average: ${load.atStart.join(' ')} at the start, ${load.atEnd.join(' ')} at the end\n`);
  return load;
}
