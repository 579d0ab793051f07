/**
 * Text of flows and groups, on top of the codec's ovs-ofctl renderer/parser
 * (`@switchyard/openflow/codec`): this file only swaps table numbers for the pipeline's table
 * names (as `antctl get ovsflows` prints them) and back, and renders groups, which the codec has no
 * text form for.
 */
import type { Bucket, Flow, GroupType } from '@switchyard/openflow/codec';
import { parseFlow, renderActions, renderFlow, renderMatch } from '@switchyard/openflow/codec';
import { PipelineError } from './errors';

/**
 * An OpenFlow group as the pipeline emits it: exactly the fields of the codec's `groupMod`
 * message, so the agent sends `{ type: 'groupMod', command: 'add', ...group }`.
 */
export interface Group {
  groupId: number;
  groupType: GroupType;
  buckets: Bucket[];
}

/** Table number -> name lookup (a `Pipeline`'s `nameOf`). */
export type TableNamer = (id: number) => string | undefined;

/** How to render a flow. */
export interface FormatOptions {
  /** Name tables (antctl style); without it tables print as numbers (ovs-ofctl input). */
  tableName?: TableNamer;
  /** Print the cookie (default true). */
  cookie?: boolean;
}

/**
 * Table references inside action text: `goto_table:N`, `resubmit(port,N...)`, `table=N` (ct, learn).
 * The codec prints each of these with a bare decimal number.
 */
const ACTION_TABLE_REFS = /(goto_table:)(\d+)|(resubmit\([^,()]*,)(\d+)|((?:^|[(,])table=)(\d+)/g;

function nameTables(text: string, name: TableNamer): string {
  return text.replace(ACTION_TABLE_REFS, (all, g1: string | undefined, n1: string | undefined, g2: string | undefined, n2: string | undefined, g3: string | undefined, n3: string | undefined) => {
    const pre = g1 ?? g2 ?? g3;
    const id = n1 ?? n2 ?? n3;
    if (pre === undefined || id === undefined) return all;
    return `${pre}${name(Number(id)) ?? id}`;
  });
}

/** Renders an action list (`drop` when empty), tables by name when a namer is given. */
export function formatActions(actions: Flow['actions'], tableName?: TableNamer): string {
  const text = renderActions(actions);
  return tableName ? nameTables(text, tableName) : text;
}

/**
 * Renders a flow. Without a namer this is the codec's `renderFlow` (input for `ovs-ofctl
 * add-flows`); with one it is the antctl dump layout `cookie=0x.., table=Name, priority=N,match
 * actions=...`, with the codec's match and action text.
 */
export function formatFlow(f: Flow, opts: FormatOptions = {}): string {
  if (!opts.tableName) {
    return renderFlow(opts.cookie === false ? withoutCookie(f) : f);
  }
  const head: string[] = [];
  if (opts.cookie !== false && f.cookie !== undefined) head.push(`cookie=0x${f.cookie.toString(16)}`);
  head.push(`table=${opts.tableName(f.table) ?? f.table}`);
  if (f.idleTimeout) head.push(`idle_timeout=${f.idleTimeout}`);
  if (f.hardTimeout) head.push(`hard_timeout=${f.hardTimeout}`);
  const match = renderMatch(f.match);
  return `${head.join(', ')}, priority=${f.priority}${match ? `,${match}` : ''} actions=${formatActions(f.actions, opts.tableName)}`;
}

function withoutCookie(f: Flow): Flow {
  const { cookie: _c, ...rest } = f;
  return rest;
}

/**
 * Parses a flow written with table names (an antctl dump line, or a literal from Antrea's tests)
 * into the codec's Flow model, mapping names to this pipeline's numbers.
 */
export function parseNamedFlow(line: string, tableId: (name: string) => number): Flow {
  const id = (name: string): string => {
    if (/^\d+$/.test(name)) return name;
    return String(tableId(name));
  };
  const numbered = line
    .replace(/(^|[\s,])table=([A-Za-z]\w*)/g, (_a, pre: string, n: string) => `${pre}table=${id(n)}`)
    .replace(/goto_table:([A-Za-z]\w*)/g, (_a, n: string) => `goto_table:${id(n)}`)
    .replace(/(resubmit\([^,()]*,)([A-Za-z]\w*)/g, (_a, pre: string, n: string) => `${pre}${id(n)}`)
    .replace(/([(,])table=([A-Za-z]\w*)/g, (_a, pre: string, n: string) => `${pre}table=${id(n)}`);
  try {
    return parseFlow(numbered);
  } catch (e) {
    throw new PipelineError('INVALID_INPUT', `cannot parse flow text: ${(e as Error).message}`, line, 'flow');
  }
}

/**
 * Renders a group for `ovs-ofctl -O OpenFlow15 add-group` (the codec renders flows only, so this
 * small adapter writes the group syntax around the codec's action text).
 */
export function formatGroup(g: Group, tableName?: TableNamer): string {
  const buckets = g.buckets.map((b, i) => {
    const w = g.groupType === 'select' ? `weight:${b.weight ?? 100},` : '';
    return `bucket=bucket_id:${b.bucketId ?? i},${w}actions=${formatActions(b.actions, tableName)}`;
  });
  return `group_id=${g.groupId},type=${g.groupType},${buckets.join(',')}`;
}
