// The `yardctl traceflow` table view: a Traceflow's result as a tree, one line per observation
// under its node, with the policy compiler's verdict beside a policy drop.
import type { Traceflow, TraceflowNodeResult, TraceflowObservation, TraceflowPacket } from '@switchyard/apis';
import type { DirectionVerdict, Explanation } from '@switchyard/policy-compiler';
import { endpointText } from './traceflow-spec';

const PROTOCOL_NAMES: Readonly<Record<number, string>> = { 1: 'icmp', 6: 'tcp', 17: 'udp', 58: 'icmpv6', 132: 'sctp' };

/** `tcp dport 80`, `udp sport 5000 dport 53`, `icmp`, `proto 132`; empty when nothing is set. */
export function packetText(p: { [K in keyof TraceflowPacket]?: TraceflowPacket[K] | undefined } | undefined): string {
  const proto = p?.ipHeader?.protocol ?? p?.ipv6Header?.nextHeader;
  const parts: string[] = proto === undefined ? [] : [PROTOCOL_NAMES[proto] ?? `proto ${proto}`];
  const t = p?.transportHeader?.tcp ?? p?.transportHeader?.udp;
  if (t?.srcPort !== undefined) parts.push(`sport ${t.srcPort}`);
  if (t?.dstPort !== undefined) parts.push(`dport ${t.dstPort}`);
  const flags = p?.transportHeader?.tcp?.flags;
  if (flags !== undefined) parts.push(`flags ${flags}`);
  if (p?.ipHeader?.ttl !== undefined) parts.push(`ttl ${p.ipHeader.ttl}`);
  return parts.join(' ');
}

/** The details column of one observation: what the component did beyond its action. */
export function observationDetail(o: TraceflowObservation): string {
  const parts: string[] = [];
  if (o.componentInfo) parts.push(o.componentInfo);
  const rule = o.networkPolicyRule;
  if (o.networkPolicy) parts.push(rule ? `${o.networkPolicy} ${/^rule /.test(rule) ? rule : `rule ${rule}`}` : o.networkPolicy);
  if (o.egress) parts.push(`Egress ${o.egress}`);
  if (o.translatedSrcIP) parts.push(`SNAT to ${o.translatedSrcIP}`);
  if (o.translatedDstIP) parts.push(`DNAT to ${o.translatedDstIP}`);
  if (o.tunnelDstIP) parts.push(`tunnel to ${o.tunnelDstIP}`);
  if (o.egressIP) parts.push(`egress IP ${o.egressIP}`);
  if (o.egressNode) parts.push(`via node ${o.egressNode}`);
  if (o.pod) parts.push(`${o.action === 'Delivered' ? 'to' : 'pod'} ${o.pod}`);
  if (o.ttl !== undefined && o.ttl > 0) parts.push(`ttl ${o.ttl}`);
  return parts.join('  ');
}

/** Where the IPs of the header lines come from when the Traceflow does not carry them. */
export interface TraceflowTreeOptions {
  sourceIP?: string;
  destinationIP?: string;
  /** A line per Dropped/Rejected NetworkPolicy observation: the compiler's verdict (see {@link explainLine}). */
  explain?: string;
  /** Leave out the title, source and destination lines (`--no-headers`). */
  noHeaders?: boolean;
}

/** Node results in the order to show them: the Sender first, then the Receivers, each as reported. */
export function orderedResults(tf: Traceflow): TraceflowNodeResult[] {
  const results = tf.status?.results ?? [];
  return [...results.filter((r) => r.role === 'Sender'), ...results.filter((r) => r.role !== 'Sender')];
}

/** Whether an observation is a NetworkPolicy drop or reject (the one `explain` speaks to). */
export function isPolicyDrop(o: TraceflowObservation): boolean {
  return (o.action === 'Dropped' || o.action === 'Rejected') && (o.component === 'NetworkPolicy' || o.networkPolicy !== undefined);
}

function headerLines(tf: Traceflow, opts: TraceflowTreeOptions): string[] {
  const s = tf.status;
  const phase = `${s?.phase ?? 'Unknown'}${s?.dataplaneTag !== undefined ? ` (tag ${s.dataplaneTag})` : ''}`;
  const captured = s?.capturedPacket;
  const row = (label: string, who: string, ip: string | undefined, extra: string): string => [label.padEnd(8), who || '-', ip ?? '', extra].filter((c) => c !== '').join('  ');
  const lines = [`traceflow ${tf.metadata.name ?? ''}: ${phase}`];
  if (s?.phase === 'Failed' && s.reason) lines.push(`reason   ${s.reason}`);
  lines.push(row('source', endpointText(tf.spec.source), captured?.srcIP ?? opts.sourceIP ?? tf.spec.source.ip, ''));
  const dstIP = captured?.dstIP ?? opts.destinationIP ?? tf.spec.destination.ip;
  const flow = packetText(captured ?? tf.spec.packet) || (tf.spec.liveTraffic ? 'live traffic' : '');
  lines.push(row('dest', tf.spec.destination.ip !== undefined ? '' : endpointText(tf.spec.destination), dstIP, flow));
  return lines;
}

/**
 * The table output of `yardctl traceflow`: a title with the phase (and the reason of a failure),
 * the source and destination, then each node's observations, aligned in columns.
 */
export function traceflowTree(tf: Traceflow, opts: TraceflowTreeOptions = {}): string {
  const lines = opts.noHeaders ? [] : headerLines(tf, opts);
  const results = orderedResults(tf);
  const all = results.flatMap((r) => r.observations ?? []);
  const compWidth = Math.max(14, ...all.map((o) => (o.component ?? '').length)) + 2;
  const actionWidth = Math.max(10, ...all.map((o) => (o.action ?? '').length)) + 2;
  for (const r of results) {
    lines.push(`${r.node ?? '<unknown node>'}${r.role ? ` (${r.role})` : ''}`);
    for (const o of r.observations ?? []) {
      const detail = observationDetail(o);
      lines.push(`  ${(o.component ?? '-').padEnd(compWidth)}${detail === '' ? (o.action ?? '-') : `${(o.action ?? '-').padEnd(actionWidth)}${detail}`}`);
      if (opts.explain !== undefined && isPolicyDrop(o)) lines.push(`  ${' '.repeat(compWidth)}${opts.explain}`);
    }
  }
  if (results.length === 0 && tf.status?.phase === 'Succeeded') lines.push('(no observations reported)');
  return lines.join('\n') + '\n';
}

/** `AntreaClusterNetworkPolicy:deny-9000 rule 0`, `K8sNetworkPolicy isolation`, `default allow`. */
function verdictText(v: DirectionVerdict): string {
  if (v.reason === 'k8s-isolation') return `K8s NetworkPolicy isolation (${v.direction})`;
  if (!v.policy) return `${v.reason === 'default-allow' ? 'default allow' : v.reason} (${v.direction})`;
  const ns = v.policy.namespace ? `${v.policy.namespace}/` : '';
  const rule = v.rule ? ` rule ${v.rule.index}${v.rule.name ? ` (${v.rule.name})` : ''}` : '';
  return `${v.policy.type}:${ns}${v.policy.name}${rule}`;
}

/**
 * One line comparing the compiler's verdict with the dataplane's `action` (Dropped or Rejected):
 * `explain: Drop by AntreaClusterNetworkPolicy:deny-9000 rule 0 (agrees)`, or `explain: Allow
 * (DISAGREES with the dataplane)`.
 */
export function explainLine(e: Explanation, action: 'Dropped' | 'Rejected'): string {
  if (e.allowed) return 'explain: Allow (DISAGREES with the dataplane)';
  const deciding = e.egress.allowed ? e.ingress : e.egress;
  const same = (e.action === 'Reject') === (action === 'Rejected');
  return `explain: ${e.action} by ${verdictText(deciding)} (${same ? 'agrees' : `DISAGREES with the dataplane, which ${action.toLowerCase()} it`})`;
}
