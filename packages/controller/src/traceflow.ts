// Traceflow decisions, pure: run-time validation, data-plane tag allocation, the completion rule,
// deadlines and the reasons a Traceflow fails. The `traceflow` part applies them to the cluster.
import type { AntreaAgentInfo, Pod, Service, Traceflow, TraceflowAction, TraceflowNodeResult, TraceflowPhase } from '@switchyard/apis/types';
import { TRACEFLOW_DEFAULT_TIMEOUT_S, TRACEFLOW_MAX_TIMEOUT_S, TRACEFLOW_TAGS, addressesOfFamily, podAddresses, traceflowFamily } from '@switchyard/apis/types';

/** The last action of a node's observations that ends a trace (the packet goes no further in the overlay). */
export const FINAL_ACTIONS: ReadonlySet<TraceflowAction> = new Set<TraceflowAction>(['Delivered', 'Dropped', 'Rejected', 'ForwardedOutOfOverlay']);

/** What validation reads from the cluster (the informers' caches). */
export interface TraceflowView {
  pod(namespace: string, name: string): Pod | undefined;
  service(namespace: string, name: string): Service | undefined;
}

/** Kubernetes time text (RFC 3339, whole seconds) of `ms`. */
export const rfc3339 = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Milliseconds of a Kubernetes time text, or undefined when absent or not a time. */
export function parseTime(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}

/** spec.timeout in seconds: the default when absent or 0 (as Antrea). */
export const timeoutSeconds = (tf: Traceflow): number => tf.spec.timeout || TRACEFLOW_DEFAULT_TIMEOUT_S;

const TRANSPORT_PROTOCOLS = { tcp: { v4: 6, v6: 6 }, udp: { v4: 17, v6: 17 }, icmp: { v4: 1, v6: 58 } } as const;
type Transport = keyof typeof TRANSPORT_PROTOCOLS;

const podIPs = (pod: Pod): string[] => podAddresses(pod);
const hasFamily = (ips: readonly string[], family: 4 | 6): boolean => addressesOfFamily(ips, family).length > 0;

/** An IPv6 trace (ipv6Header, or an IPv6 address named) that also names IPv4: which field says so. */
function familyProblem(tf: Traceflow): string | undefined {
  const { packet, source, destination } = tf.spec;
  if (packet?.ipHeader !== undefined && packet.ipv6Header !== undefined) return 'spec.packet: ipHeader and ipv6Header both set (a packet is IPv4 or IPv6)';
  const v6 = packet?.ipv6Header !== undefined;
  for (const [field, ip] of [['spec.source.ip', source.ip], ['spec.destination.ip', destination.ip]] as const) {
    if (ip === undefined) continue;
    if (v6 && !ip.includes(':')) return `${field}: ${ip} is IPv4 but spec.packet.ipv6Header asks for IPv6`;
    if (packet?.ipHeader !== undefined && ip.includes(':')) return `${field}: ${ip} is IPv6 but spec.packet.ipHeader describes IPv4 (use ipv6Header)`;
  }
  if (source.ip !== undefined && destination.ip !== undefined && source.ip.includes(':') !== destination.ip.includes(':')) return `spec.destination.ip: ${destination.ip} is not of the family of spec.source.ip ${source.ip}`;
  return undefined;
}

function packetProblem(tf: Traceflow): string | undefined {
  const family = familyProblem(tf);
  if (family) return family;
  const packet = tf.spec.packet;
  const th = packet?.transportHeader ?? {};
  const given = (Object.keys(TRANSPORT_PROTOCOLS) as Transport[]).filter((k) => th[k] !== undefined);
  if (given.length > 1) return `spec.packet.transportHeader: only one of tcp, udp and icmp may be set (got ${given.join(', ')})`;
  const [transport] = given;
  if (transport === undefined) return undefined;
  const v4 = packet?.ipHeader?.protocol;
  if (v4 !== undefined && v4 !== TRANSPORT_PROTOCOLS[transport].v4) return `spec.packet.transportHeader.${transport}: does not agree with spec.packet.ipHeader.protocol ${v4} (${transport} is ${TRANSPORT_PROTOCOLS[transport].v4})`;
  const v6 = packet?.ipv6Header?.nextHeader;
  if (v6 !== undefined && v6 !== TRANSPORT_PROTOCOLS[transport].v6) return `spec.packet.transportHeader.${transport}: does not agree with spec.packet.ipv6Header.nextHeader ${v6} (${transport} is ${TRANSPORT_PROTOCOLS[transport].v6})`;
  return undefined;
}

function sourceProblem(tf: Traceflow, view: TraceflowView): string | undefined {
  const src = tf.spec.source;
  // Live traffic may name only its destination Pod (its node tags what arrives for it), as in Antrea.
  if (!src.pod) return tf.spec.liveTraffic && (src.ip || tf.spec.destination.pod) ? undefined : `spec.source.pod: required (or, with liveTraffic, spec.source.ip or a destination Pod)`;
  const ns = src.namespace ?? 'default';
  const pod = view.pod(ns, src.pod);
  if (!pod) return `spec.source.pod: Pod ${ns}/${src.pod} not found`;
  if (!pod.spec?.nodeName || !pod.status?.podIP) return `spec.source.pod: Pod ${ns}/${src.pod} has no IP yet (not scheduled or not started)`;
  const family = traceflowFamily(tf.spec, podIPs(pod));
  if (!hasFamily(podIPs(pod), family)) return `spec.source.pod: Pod ${ns}/${src.pod} has no IPv${family} address (it has ${podIPs(pod).join(', ')})`;
  return undefined;
}

function destinationProblem(tf: Traceflow, view: TraceflowView): string | undefined {
  const dst = tf.spec.destination;
  const ns = dst.namespace ?? 'default';
  const src = tf.spec.source.pod ? view.pod(tf.spec.source.namespace ?? 'default', tf.spec.source.pod) : undefined;
  // The family the source decides (its Pod's addresses), else the destination Pod's (live traffic naming only it).
  const dstPod = dst.pod ? view.pod(ns, dst.pod) : undefined;
  const family = traceflowFamily(tf.spec, src ? podIPs(src) : dstPod ? podIPs(dstPod) : []);
  if (dst.pod) {
    if (!dstPod) return `spec.destination.pod: Pod ${ns}/${dst.pod} not found`;
    if (!tf.spec.liveTraffic && !dstPod.status?.podIP) return `spec.destination.pod: Pod ${ns}/${dst.pod} has no IP yet (not scheduled or not started)`;
    if (dstPod.status?.podIP && !hasFamily(podIPs(dstPod), family)) return `spec.destination.pod: Pod ${ns}/${dst.pod} has no IPv${family} address (it has ${podIPs(dstPod).join(', ')})`;
  }
  if (dst.service) {
    const svc = view.service(ns, dst.service);
    if (!svc) return `spec.destination.service: Service ${ns}/${dst.service} not found`;
    const ip = svc.spec?.clusterIP;
    if (!ip || ip === 'None') return `spec.destination.service: Service ${ns}/${dst.service} has no ClusterIP`;
    const ips = svc.spec?.clusterIPs ?? [ip];
    if (!hasFamily(ips, family)) return `spec.destination.service: Service ${ns}/${dst.service} has no IPv${family} ClusterIP (it has ${ips.join(', ')})`;
  }
  return undefined;
}

/**
 * Why a new Traceflow cannot run, as `<field>: <what is wrong>`, or undefined when it can. Checks
 * what admission cannot: the Pods and Service it names as they are now, and the timeout and packet
 * a webhook that was not registered let through.
 */
export function validateTraceflow(tf: Traceflow, view: TraceflowView): string | undefined {
  const t = tf.spec.timeout;
  if (t !== undefined && t > TRACEFLOW_MAX_TIMEOUT_S) return `spec.timeout: ${t} is above ${TRACEFLOW_MAX_TIMEOUT_S}`;
  if (t !== undefined && t < 0) return `spec.timeout: ${t} is below 0`;
  return packetProblem(tf) ?? sourceProblem(tf, view) ?? destinationProblem(tf, view);
}

/** The lowest tag of TRACEFLOW_TAGS not in `held`, or undefined when all are held. */
export function lowestFreeTag(held: ReadonlySet<number>): number | undefined {
  return TRACEFLOW_TAGS.find((t) => !held.has(t));
}

/** Oldest first: creationTimestamp, then name (the order waiting Traceflows get tags in). */
export function byAge(a: Traceflow, b: Traceflow): number {
  const ta = parseTime(a.metadata.creationTimestamp) ?? 0;
  const tb = parseTime(b.metadata.creationTimestamp) ?? 0;
  if (ta !== tb) return ta - tb;
  const na = a.metadata.name ?? '';
  const nb = b.metadata.name ?? '';
  return na < nb ? -1 : na > nb ? 1 : 0;
}

/**
 * Tags for the waiting Traceflows, oldest first: each gets the lowest tag neither held nor given
 * to an older one, until none is left. Returns name → tag for those that got one.
 */
export function assignTags(waiting: readonly Traceflow[], held: ReadonlySet<number>): Map<string, number> {
  const taken = new Set(held);
  const out = new Map<string, number>();
  for (const tf of [...waiting].sort(byAge)) {
    const tag = lowestFreeTag(taken);
    if (tag === undefined) break;
    taken.add(tag);
    out.set(tf.metadata.name ?? '', tag);
  }
  return out;
}

/** The reason of a Traceflow waiting for a tag. */
export const pendingReason = (running: number): string => `waiting for a free data-plane tag (${running} Traceflows running)`;

/** The last action each node reported, in the order of status.results. */
export function lastActions(results: readonly TraceflowNodeResult[] | undefined): { node: string; action: TraceflowAction | undefined }[] {
  return (results ?? []).map((r) => ({ node: r.node ?? '?', action: r.observations?.at(-1)?.action }));
}

/**
 * Done: some node's last observation ends the trace (delivered, dropped, rejected, or out of the
 * overlay), and the source pod's node has reported too when it must (as Antrea waits for both
 * ends): the receiver's packet-in can land before the sender's, and a result written after
 * Succeeded would be lost. Only a droppedOnly trace, or live traffic from an IP that is no pod,
 * ends without the sender's result.
 */
export function isComplete(results: readonly TraceflowNodeResult[] | undefined, spec?: Pick<Traceflow['spec'], 'source' | 'droppedOnly'>): boolean {
  const final = lastActions(results).some((r) => r.action !== undefined && FINAL_ACTIONS.has(r.action));
  const needsSender = spec !== undefined && spec.droppedOnly !== true && spec.source.pod !== undefined;
  return final && (!needsSender || (results ?? []).some((r) => r.role === 'Sender'));
}

/** When a Running Traceflow times out (ms), from status.startTime; undefined without one. */
export function runningDeadline(tf: Traceflow): number | undefined {
  const start = parseTime(tf.status?.startTime);
  return start === undefined ? undefined : start + timeoutSeconds(tf) * 1000;
}

/** When a Pending Traceflow gives up waiting for a tag (ms), from its creationTimestamp. */
export function pendingDeadline(tf: Traceflow, now: number): number {
  return (parseTime(tf.metadata.creationTimestamp) ?? now) + timeoutSeconds(tf) * 1000;
}

/**
 * Latest time a finished Traceflow can have finished (ms), for garbage collection after a restart,
 * when the controller did not see it finish: its deadline, or now when that is later.
 */
export function finishedBy(tf: Traceflow, now: number): number {
  const from = parseTime(tf.status?.startTime) ?? parseTime(tf.metadata.creationTimestamp) ?? now;
  return Math.min(now, from + timeoutSeconds(tf) * 1000);
}

/** Whether a node's agent is alive: its AntreaAgentInfo's AgentHealthy heartbeat is within 3 intervals. */
export function agentRunning(info: AntreaAgentInfo | undefined, now: number, heartbeatIntervalMs: number): boolean {
  const beat = parseTime(info?.agentConditions?.find((c) => c.type === 'AgentHealthy')?.lastHeartbeatTime);
  return beat !== undefined && now - beat <= 3 * heartbeatIntervalMs;
}

/** What the timeout reason says about the nodes involved. */
export interface TimeoutFacts {
  /** The source Pod's node (undefined: liveTraffic from an IP, or the Pod is gone). */
  senderNode?: string;
  /** The destination Pod's node, when the destination is a Pod. */
  receiverNode?: string;
  /** Whether a node's agent is alive (AntreaAgentInfo heartbeat). */
  agentRunning(node: string): boolean;
}

function agentNote(node: string | undefined, facts: TimeoutFacts): string {
  return node !== undefined && !facts.agentRunning(node) ? `; the agent on node ${node} is not running (no recent AntreaAgentInfo heartbeat)` : '';
}

/**
 * The reason of a Running Traceflow that timed out: which node it waited for and why that may be,
 * or which nodes reported and what they saw last.
 */
export function timeoutReason(tf: Traceflow, facts: TimeoutFacts): string {
  const head = `timed out after ${timeoutSeconds(tf)}s`;
  const reported = lastActions(tf.status?.results);
  if (reported.length === 0) {
    if (facts.senderNode === undefined) return `${head}: no result from any node`;
    return `${head}: no result from node ${facts.senderNode} (the source Pod's node)${agentNote(facts.senderNode, facts)}`;
  }
  const nodes = reported.map((r) => `node ${r.node} reported (last: ${r.action ?? 'no observation'})`).join(', ');
  // A final result without the sender's (Succeeded waits for both ends) names only who is missing.
  const final = reported.some((r) => r.action !== undefined && FINAL_ACTIONS.has(r.action));
  let out = final ? `${head}: ${nodes}` : `${head}: ${nodes}, no final result from any node`;
  const heard = new Set(reported.map((r) => r.node));
  if (facts.senderNode !== undefined && !heard.has(facts.senderNode)) out += `; no result from node ${facts.senderNode} (the source Pod's node)${agentNote(facts.senderNode, facts)}`;
  if (facts.receiverNode !== undefined && facts.receiverNode !== facts.senderNode && !heard.has(facts.receiverNode)) {
    out += `; no result from node ${facts.receiverNode} (the destination Pod's node)${agentNote(facts.receiverNode, facts)}`;
  }
  return out;
}

/** The reason of a Pending Traceflow that timed out waiting for a tag. */
export const pendingTimeoutReason = (tf: Traceflow): string => `timed out after ${timeoutSeconds(tf)}s waiting for a free data-plane tag`;

/** A status transition the controller writes. */
export interface TraceflowTransition {
  phase: TraceflowPhase;
  reason?: string;
  dataplaneTag?: number;
  startTime?: string;
}

/** What a Traceflow needs now, given its (effective) status. */
export type TraceflowVerdict =
  | { kind: 'fail'; reason: string }
  | { kind: 'succeed' }
  | { kind: 'wait-tag' }
  | { kind: 'none'; wakeAt?: number };

/**
 * One Traceflow's next step (tags aside): a new one is validated; a Running one succeeds on a final
 * result or fails at its deadline; a Pending one fails when its wait passes its timeout.
 */
export function reviewTraceflow(tf: Traceflow, now: number, view: TraceflowView, facts: () => TimeoutFacts): TraceflowVerdict {
  switch (tf.status?.phase) {
    case undefined: {
      const problem = validateTraceflow(tf, view);
      return problem === undefined ? { kind: 'wait-tag' } : { kind: 'fail', reason: problem };
    }
    case 'Running': {
      if (isComplete(tf.status.results, tf.spec)) return { kind: 'succeed' };
      const deadline = runningDeadline(tf) ?? now;
      return now >= deadline ? { kind: 'fail', reason: timeoutReason(tf, facts()) } : { kind: 'none', wakeAt: deadline };
    }
    case 'Pending': {
      const deadline = pendingDeadline(tf, now);
      return now >= deadline ? { kind: 'fail', reason: pendingTimeoutReason(tf) } : { kind: 'wait-tag' };
    }
    default:
      return { kind: 'none' };
  }
}
