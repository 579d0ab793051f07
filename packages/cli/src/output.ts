// Output layer: kubectl-like tables, JSON and YAML.
import YAML from 'yaml';
import { CliError } from './errors';

/** Output formats of `-o`. */
export type OutputFormat = 'table' | 'wide' | 'json' | 'yaml';
export const OUTPUT_FORMATS: readonly OutputFormat[] = ['table', 'wide', 'json', 'yaml'];

/** Parse an `-o` value; anything else is a usage error. */
export function parseOutputFormat(v: string): OutputFormat {
  if ((OUTPUT_FORMATS as readonly string[]).includes(v)) return v as OutputFormat;
  throw new CliError('USAGE', `unable to match a printer suitable for the output format "${v}", allowed formats are: ${OUTPUT_FORMATS.join(',')}`, v, '--output');
}

/** A table: header names (upper case, kubectl style) and rows of cell text. */
export interface Table {
  columns: string[];
  rows: string[][];
}

/**
 * Render a table as kubectl does (tabwriter, 3 spaces between columns, no padding after the last
 * column, empty cells shown as `<none>`).
 */
export function renderTable(t: Table, opts: { noHeaders?: boolean } = {}): string {
  const lines = opts.noHeaders ? t.rows : [t.columns, ...t.rows];
  if (lines.length === 0) return '';
  const cells = lines.map((r) => t.columns.map((_, i) => (r[i] === undefined || r[i] === '' ? '<none>' : (r[i] as string))));
  const widths = t.columns.map((_, i) => Math.max(...cells.map((r) => (r[i] as string).length)));
  return cells.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd((widths[i] as number) + 3))).join('').trimEnd()).join('\n') + '\n';
}

/** Serialize data for `-o json` (2-space indent, as kubectl) or `-o yaml`. */
export function renderData(data: unknown, format: 'json' | 'yaml'): string {
  return format === 'json' ? JSON.stringify(data, null, 2) + '\n' : YAML.stringify(data);
}

/** Show at most `max` items, then `+ N more...` (antctl's way of keeping group rows short). */
export function abbreviate(items: readonly string[], max = 3): string {
  if (items.length <= max) return items.join(',');
  return `${items.slice(0, max).join(',')} + ${items.length - max} more...`;
}

/** ANSI styling that is a no-op when color is off. */
export interface Style {
  bold(s: string): string;
  green(s: string): string;
  red(s: string): string;
}

/** Color only for a terminal, never for json/yaml, and never with NO_COLOR set. */
export function styleFor(isTTY: boolean, format: OutputFormat, env: Record<string, string | undefined>): Style {
  const on = isTTY && (format === 'table' || format === 'wide') && env.NO_COLOR === undefined && env.TERM !== 'dumb';
  const wrap = (code: string) => (s: string) => (on ? `\u001b[${code}m${s}\u001b[0m` : s);
  return { bold: wrap('1'), green: wrap('32'), red: wrap('31') };
}
