// `yardctl traceflow` (antctl traceflow): resolve -S/-D against the API server, create a Traceflow,
// poll it until the controller and agents finish it, print the tree (with the policy compiler's
// verdict beside a policy drop) or the object, and delete it unless --keep.
import { setTimeout as sleep } from 'node:timers/promises';
import { TRACEFLOW_DEFAULT_TIMEOUT_S, TRACEFLOW_MAX_TIMEOUT_S, podAddresses, type Traceflow, type TraceflowObservation } from '@switchyard/apis';
import type { Explanation } from '@switchyard/policy-compiler';
import { Option, type Command } from 'commander';
import type { KubeWriter } from './client';
import { examples, parseDuration, usage, withOutput, type CommandContext, type OutputOpts } from './command';
import { CliError } from './errors';
import { renderData } from './output';
import { buildTraceflow, defaultPacket, endpointText, parseEndpointRef, parseFlow, traceflowName, type EndpointRef, type ResolvedDestination } from './traceflow-spec';
import { explainLine, isPolicyDrop, orderedResults, traceflowTree } from './traceflow-views';

/** Path of the Traceflow collection (cluster-scoped). */
export const TRACEFLOWS_PATH = '/apis/crd.antrea.io/v1beta1/traceflows';
/** How often yardctl reads the Traceflow while it runs (a trace across two nodes takes about 90 ms in the lab: bench/traceflow.ts). */
export const POLL_INTERVAL_MS = 50;
/** How long yardctl waits beyond the Traceflow's own timeout for the controller to finish it. */
export const GRACE_MS = 10_000;

/** Time as the wait loop sees it; injected so tests drive it. Its sleeps keep the process alive (a CLI has nothing else pending). */
export interface WaitClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}
const WALL_CLOCK: WaitClock = { now: () => Date.now(), sleep: (ms) => sleep(ms) };

/** Read the Traceflow every `intervalMs` until it is Succeeded or Failed (`done`), or `deadline` (clock ms) passes. */
export async function awaitTraceflow(o: { read: () => Promise<Traceflow>; clock: WaitClock; deadline: number; intervalMs?: number }): Promise<{ tf: Traceflow; done: boolean }> {
  for (;;) {
    const tf = await o.read();
    const phase = tf.status?.phase;
    if (phase === 'Succeeded' || phase === 'Failed') return { tf, done: true };
    if (o.clock.now() >= o.deadline) return { tf, done: false };
    await o.clock.sleep(Math.min(o.intervalMs ?? POLL_INTERVAL_MS, Math.max(0, o.deadline - o.clock.now())));
  }
}

interface TraceflowOpts extends OutputOpts {
  source?: string;
  destination?: string;
  flow?: string;
  live?: boolean;
  droppedOnly?: boolean;
  keep?: boolean;
  namespace: string;
}

const podPath = (ns: string, name: string): string => `/api/v1/namespaces/${ns}/pods/${name}`;
const servicePath = (ns: string, name: string): string => `/api/v1/namespaces/${ns}/services/${name}`;

/** GET `path`, or undefined on 404. */
async function getIfExists<T>(kube: KubeWriter, path: string): Promise<T | undefined> {
  try {
    return await kube.request<T>('GET', path);
  } catch (e) {
    if (e instanceof CliError && e.code === 'NOT_FOUND') return undefined;
    throw e;
  }
}

interface PodLike {
  status?: { podIP?: string; podIPs?: { ip: string }[] };
}

const podIPsOf = (pod: PodLike | undefined): string[] => podAddresses(pod);
const isV6 = (ip: string | undefined): boolean => ip?.includes(':') === true;
/** The address of `family` among `ips` (the first when none is). */
const ofFamily = (ips: readonly string[], v6: boolean): string | undefined => ips.find((ip) => isV6(ip) === v6) ?? ips[0];

/** `-D`: an IP, else a Pod of that name, else a Service of that name; with its addresses (to show the one of the trace's family). */
async function resolveDestination(kube: KubeWriter, ref: EndpointRef, value: string): Promise<{ dst: ResolvedDestination; ips: string[] }> {
  if ('ip' in ref) return { dst: { ip: ref.ip }, ips: [ref.ip] };
  const pod = await getIfExists<PodLike>(kube, podPath(ref.namespace, ref.name));
  if (pod) return { dst: { namespace: ref.namespace, pod: ref.name }, ips: podIPsOf(pod) };
  const svc = await getIfExists<{ spec?: { clusterIP?: string; clusterIPs?: string[] } }>(kube, servicePath(ref.namespace, ref.name));
  if (svc) return { dst: { namespace: ref.namespace, service: ref.name }, ips: svc.spec?.clusterIPs ?? (svc.spec?.clusterIP ? [svc.spec.clusterIP] : []) };
  throw new CliError('NOT_FOUND', `destination "${value}": no Pod or Service "${ref.name}" in namespace "${ref.namespace}"`, value, '--destination');
}

/** The Traceflow timeout in seconds: `-t` as given on the command line (the root command owns the flag), else Antrea's default. */
function traceflowTimeoutS(cmd: Command): number {
  const root = cmd.parent;
  if (root?.getOptionValueSource('timeout') !== 'cli') return TRACEFLOW_DEFAULT_TIMEOUT_S;
  const ms = root.opts<{ timeout: number }>().timeout;
  const s = Math.ceil(ms / 1000);
  if (s < 1 || s > TRACEFLOW_MAX_TIMEOUT_S) throw new CliError('USAGE', `invalid --timeout "${ms / 1000}s": a Traceflow's timeout is 1s to ${TRACEFLOW_MAX_TIMEOUT_S}s`, ms, '--timeout');
  return s;
}

/** Check the combination of flags, as Antrea's controller would refuse it, before touching the API server. */
function checkFlags(o: TraceflowOpts): void {
  if (o.source === undefined && !o.live) throw new CliError('USAGE', 'required option -S, --source <pod> not specified (only --live may leave it out)', undefined, '--source');
  if (o.destination === undefined && !o.live) throw new CliError('USAGE', 'required option -D, --destination <dst> not specified (only --live may leave it out)', undefined, '--destination');
  if (o.droppedOnly && !o.live) throw new CliError('USAGE', '--dropped-only needs --live (an injected packet is always traced)', true, '--dropped-only');
}

/** The dataplane's policy drop, and the flow to ask the compiler about, if the trace ended in one. */
function explainQuery(tf: Traceflow): { drop: TraceflowObservation; query: Record<string, string | undefined> } | { drop: TraceflowObservation; skip: string } | undefined {
  const drop = orderedResults(tf)
    .flatMap((r) => r.observations ?? [])
    .find(isPolicyDrop);
  if (!drop) return undefined;
  const { source, destination } = tf.spec;
  const translated = orderedResults(tf)
    .flatMap((r) => r.observations ?? [])
    .find((o) => o.translatedDstIP)?.translatedDstIP;
  const src = source.pod !== undefined ? `${source.namespace}/${source.pod}` : (tf.status?.capturedPacket?.srcIP ?? source.ip);
  const dst = destination.pod !== undefined ? `${destination.namespace}/${destination.pod}` : destination.service !== undefined ? translated : (tf.status?.capturedPacket?.dstIP ?? destination.ip);
  if (src === undefined || dst === undefined) return { drop, skip: `explain: not run (${src === undefined ? 'no source address' : 'the Service was not translated to an endpoint in this trace'})` };
  const packet = tf.status?.capturedPacket ?? tf.spec.packet;
  const v6 = packet?.ipv6Header !== undefined;
  const number = v6 ? (packet?.ipv6Header?.nextHeader ?? 58) : (packet?.ipHeader?.protocol ?? 1);
  const protocol = { 1: 'ICMP', 58: 'ICMP', 6: 'TCP', 17: 'UDP', 132: 'SCTP' }[number];
  if (protocol === undefined) return { drop, skip: `explain: not run (protocol ${number} is not one a policy names)` };
  const port = packet?.transportHeader?.tcp?.dstPort ?? packet?.transportHeader?.udp?.dstPort;
  return { drop, query: { src, dst, protocol, port: port === undefined ? undefined : String(port), ...(v6 ? { ipFamily: 'IPv6' } : {}) } };
}

/** The compiler's verdict line for a policy drop in `tf`; never throws (a verdict that cannot be had is one line saying why). */
async function explainDrop(ctx: CommandContext, tf: Traceflow): Promise<string | undefined> {
  const q = explainQuery(tf);
  if (!q) return undefined;
  if ('skip' in q) return q.skip;
  try {
    const e = await ctx.api().get<Explanation>('explain', q.query);
    return explainLine(e, q.drop.action as 'Dropped' | 'Rejected');
  } catch (e) {
    return `explain: not available (${(e as Error).message.replace(/^error: /, '')})`;
  }
}

/** Create, wait, print; the Traceflow is deleted afterwards unless `keep`. */
async function runTraceflow(ctx: CommandContext, o: TraceflowOpts, timeoutS: number, clock: WaitClock): Promise<void> {
  const live = o.live === true;
  const srcRef = o.source === undefined ? undefined : parseEndpointRef(o.source, '--source', o.namespace, live);
  const dstRef = o.destination === undefined ? undefined : parseEndpointRef(o.destination, '--destination', o.namespace, true);
  const kube = ctx.kubeWriter();
  let sourceIPs: string[] = [];
  if (srcRef && !('ip' in srcRef)) {
    const pod = await getIfExists<PodLike>(kube, podPath(srcRef.namespace, srcRef.name));
    if (!pod) throw new CliError('NOT_FOUND', `source "${o.source}": no Pod "${srcRef.name}" in namespace "${srcRef.namespace}"`, o.source, '--source');
    sourceIPs = podIPsOf(pod);
  }
  const dst = dstRef && (await resolveDestination(kube, dstRef, o.destination as string));
  // IPv6 when the flow says so, an IP given is IPv6, or the source Pod has IPv6 addresses only (Antrea's rule).
  const asked = o.flow !== undefined ? parseFlow(o.flow, live) : defaultPacket(live);
  const ipv6 = asked?.ipv6Header !== undefined || (srcRef !== undefined && 'ip' in srcRef && isV6(srcRef.ip)) || (dst !== undefined && 'ip' in dst.dst && isV6(dst.dst.ip)) || (sourceIPs.length > 0 && sourceIPs.every(isV6));
  const packet = ipv6 && asked?.ipv6Header === undefined ? (o.flow !== undefined ? parseFlow(o.flow, live, true) : defaultPacket(live, true)) : asked;
  const sourceIP = ofFamily(sourceIPs, ipv6);
  const destinationIP = dst ? ofFamily(dst.ips, ipv6) : undefined;
  if (live && !(srcRef && !('ip' in srcRef)) && !(dst && 'pod' in dst.dst)) throw new CliError('USAGE', 'a live Traceflow needs a Pod as its source or its destination', o.source ?? o.destination, '--source');
  const name = traceflowName(srcRef ? ('ip' in srcRef ? srcRef.ip : srcRef.name) : '', dst ? endpointText(dst.dst).replace(/^.*\//, '') : '');
  const body = buildTraceflow(name, { ...(srcRef ? { source: srcRef } : {}), ...(dst ? { destination: dst.dst } : {}), ...(packet ? { packet } : {}), live, droppedOnly: o.droppedOnly === true, timeoutS });
  const path = `${TRACEFLOWS_PATH}/${name}`;
  await kube.request('POST', TRACEFLOWS_PATH, body);
  try {
    const { tf, done } = await awaitTraceflow({ read: () => kube.request<Traceflow>('GET', path), clock, deadline: clock.now() + timeoutS * 1000 + GRACE_MS });
    // json/yaml: the Traceflow as the API server holds it (the compiler's verdict is table-only, see docs/cli.md).
    if (o.output === 'json' || o.output === 'yaml') ctx.io.stdout.write(renderData(tf, o.output));
    else {
      const explain = tf.status?.phase === 'Succeeded' ? await explainDrop(ctx, tf) : undefined;
      ctx.io.stdout.write(traceflowTree(tf, { noHeaders: !o.headers, ...(sourceIP ? { sourceIP } : {}), ...(destinationIP ? { destinationIP } : {}), ...(explain !== undefined ? { explain } : {}) }));
    }
    if (!done) throw new CliError('TIMEOUT', `traceflow ${name} did not finish within ${timeoutS}s + ${GRACE_MS / 1000}s (phase ${tf.status?.phase ?? 'none'})`, tf.status?.phase, name);
    if (tf.status?.phase === 'Failed') throw new CliError('SERVER', `traceflow ${name} failed: ${tf.status.reason ?? 'no reason given'}`, tf.status.reason, name);
  } finally {
    if (o.keep) ctx.io.stderr.write(`traceflow ${name} kept (delete it with: kubectl delete traceflow ${name})\n`);
    else await kube.request('DELETE', path).catch((e: unknown) => ctx.io.stderr.write(`warning: could not delete traceflow ${name}: ${(e as Error).message}\n`));
  }
}

/** `traceflow`. */
export function addTraceflowCommand(program: Command, ctx: CommandContext, clock: WaitClock = WALL_CLOCK): void {
  const cmd = withOutput(
    program
      .command('traceflow')
      .aliases(['tf'])
      .description("Trace a packet through the dataplane (antctl traceflow): create a Traceflow, wait for the controller and agents to fill its result, print each node's observations, delete it")
      .option('-S, --source <pod>', 'source: namespace/pod, or a pod name in -n; with --live also an IP')
      .option('-D, --destination <dst>', 'destination: an IP, or namespace/name (a Pod of that name, else a Service); optional with --live')
      .option('-f, --flow <flow>', 'packet, OVS-like: proto[,field=value...], proto tcp|udp|icmp (tcp6|udp6|icmp6, or ipv6: an IPv6 packet, as an IPv6 -S/-D or an IPv6-only source Pod gives), fields tcp_src tcp_dst tcp_flags udp_src udp_dst nw_proto nw_ttl (default: ICMP echo)')
      .option('-n, --namespace <ns>', 'namespace of a bare -S/-D name', 'default')
      .option('-L, --live', 'trace a live packet of real traffic instead of injecting one')
      .option('--dropped-only', 'with --live: only a packet that gets dropped')
      .option('--keep', 'do not delete the Traceflow afterwards')
      .addOption(new Option('-t, --timeout <duration>', `the Traceflow's timeout, at most ${TRACEFLOW_MAX_TIMEOUT_S}s; also the time limit of each request (default: ${TRACEFLOW_DEFAULT_TIMEOUT_S}s)`).argParser(usage(parseDuration))),
  );
  examples(cmd, [
    ['Pod to pod, across nodes (an ICMP echo)', 'yardctl traceflow -S default/client -D default/web'],
    ['To a Service on TCP port 80', 'yardctl traceflow -S default/client -D default/web-svc -f tcp,tcp_dst=80'],
    ['To an external IP on UDP 53, as YAML', 'yardctl traceflow -S x/client -D 8.8.8.8 -f udp,udp_dst=53 -o yaml'],
    ['Between dual-stack Pods over IPv6', 'yardctl traceflow -S default/client -D default/web -f tcp6,tcp_dst=80'],
    ['The next live packet to x/web that gets dropped, waiting up to a minute', 'yardctl traceflow -D x/web --live --dropped-only -t 1m'],
  ]).action(async (o: TraceflowOpts, self: Command) => {
    checkFlags(o);
    await runTraceflow(ctx, o, traceflowTimeoutS(self), clock);
  });
}
