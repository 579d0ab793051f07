/**
 * The traceable capability (Antrea's `traceableFeature`): a feature that decides a packet's fate
 * adds, for packets carrying a Traceflow tag, flows that report its decision points to the
 * controller. `traceFlows` collects them from a feature list for one tag.
 */
import type { Action, Flow, Match } from '@switchyard/openflow/codec';
import { CookieCategory, makeCookie } from './cookie';
import { PipelineError } from './errors';
import type { Feature } from './feature';
import { ETH_IP, ETH_IPV6, PACKETIN_CATEGORY, PACKETIN_METER_ID_TF, TraceflowTagField } from './fields';
import { FlowIndex } from './identity';
import type { NodeConfig } from './state';
import type { Pipeline } from './tables';

/** What a feature's trace flows are computed from. */
export interface TraceContext {
  readonly pipeline: Pipeline;
  readonly config: NodeConfig;
  /** Controller connection id of the packet-ins (Antrea: 62373). */
  readonly controllerId: number;
  /**
   * The node's flows (`NodePipeline.flows()`, `computeNodeFlows(state).flows`): a trace flow
   * shadows a decision flow among them (a K8s default drop, say) for tagged packets.
   */
  readonly flows: readonly Flow[];
  /** Hard timeout of the trace flows in seconds (Antrea: the Traceflow's timeout); absent: none. */
  readonly hardTimeout?: number;
  /** Trace packet-ins pass meter PACKETIN_METER_ID_TF (the agent installs it). */
  readonly packetInMeter?: boolean;
  /**
   * Live traffic (Antrea's liveTraffic): the tagged packets are real ones, so a trace flow at an
   * output point forwards the packet as well as reporting it (an injected packet is only reported
   * there, never delivered).
   */
  readonly live?: boolean;
  /** Antrea's droppedOnly: only the points where a packet is dropped report; outputs do not. */
  readonly droppedOnly?: boolean;
}

/**
 * Optional capability of a feature. For a packet carrying `tag` in {@link TraceflowTagField}
 * (the agent injects it by packet-out, or tags live traffic), the flows send the packet to the
 * controller (packet-in, userdata `[PACKETIN_CATEGORY.TF]`) at each point where the feature
 * decides its fate: a drop, or the output port. Each trace flow matches what the decision flow
 * it reports on matches plus the tag, at a higher priority than that flow, in the same table, so
 * untagged packets never meet it. Flows are in the codec's canonical form, with the cookie of
 * {@link traceCookie}.
 */
export interface Traceable {
  traceFlows(ctx: TraceContext, tag: number): Flow[];
}

/** Whether a feature implements {@link Traceable}. */
export function isTraceable(f: Feature): f is Feature & Traceable {
  return typeof (f as Partial<Traceable>).traceFlows === 'function';
}

/** The cookie of a tag's trace flows: category Traceflow, the tag as object id (delete them by it). */
export const traceCookie = (cfg: NodeConfig, tag: number): bigint => makeCookie(cfg.round, CookieCategory.Traceflow, tag);

/**
 * The match a trace flow adds to the flow it shadows: the tag in an IPv4 packet's DSCP, or in an
 * IPv6 packet's traffic class when the shadowed match is IPv6 (`ethType` 0x86dd).
 */
export const traceMatch = (tag: number, ethType: number = ETH_IP): Partial<Match> => TraceflowTagField.match(tag, ethType === ETH_IPV6 ? ETH_IPV6 : ETH_IP);

/** The packet-in of a traced packet (through the Traceflow meter when the context asks). */
export function traceToController(ctx: TraceContext): Action[] {
  return [
    ...(ctx.packetInMeter ? [{ type: 'meter' as const, id: PACKETIN_METER_ID_TF }] : []),
    { type: 'controller', reason: 'no_match', id: ctx.controllerId, userdata: Uint8Array.of(PACKETIN_CATEGORY.TF) },
  ];
}

/** A trace flow: the tag's cookie and the context's hard timeout. */
export function traceFlow(ctx: TraceContext, tag: number, table: number, priority: number, match: Match, actions: Action[]): Flow {
  const f: Flow = { table, priority, cookie: traceCookie(ctx.config, tag), match: { ...match, ...traceMatch(tag, match.ethType) }, actions };
  if (ctx.hardTimeout !== undefined) f.hardTimeout = ctx.hardTimeout;
  return f;
}

/**
 * The actions of a trace flow at an output point: `output` forwards the packet on (a tunnel, the
 * gateway when the host routes, or any output of live traffic) and reports it; an injected
 * packet at its last output is only reported. Undefined with `droppedOnly`: outputs do not report.
 */
export function traceOutputActions(ctx: TraceContext, output: Action[], onward: boolean): Action[] | undefined {
  if (ctx.droppedOnly) return undefined;
  return onward || ctx.live ? [...output, ...traceToController(ctx)] : traceToController(ctx);
}

/** Where live traffic is tagged: the first table, above everything in it. */
export const LIVE_TAG_PRIORITY = 65000;

/**
 * The flow that tags live traffic for a Traceflow (Antrea's liveTraffic): IPv4 packets (IPv6
 * ones when `match` has `ethType` 0x86dd: the tag goes in their traffic class) from
 * `inPort` (any port when undefined: a trace that names only its destination pod tags what arrives
 * for it) that match `match` (addresses, protocol, ports) and carry no tag yet get `tag` in their
 * DSCP and start the pipeline again, now tagged, so every traceable feature reports them. The
 * agent of the source (or destination) pod's node installs it beside the trace flows and removes
 * it with them (same cookie).
 */
export function liveTagFlow(ctx: TraceContext, tag: number, inPort: number | undefined, match: Partial<Match> = {}): Flow {
  const root = ctx.pipeline.id('PipelineRootClassifier');
  const f: Flow = {
    table: root,
    priority: LIVE_TAG_PRIORITY,
    cookie: traceCookie(ctx.config, tag),
    match: { ...match, ...(inPort !== undefined ? { inPort } : {}), ...traceMatch(0, match.ethType) },
    actions: [TraceflowTagField.load(tag), { type: 'resubmit', table: root }],
  };
  if (ctx.hardTimeout !== undefined) f.hardTimeout = ctx.hardTimeout;
  return f;
}

/**
 * The trace flows of every traceable feature of a list for one tag, in list order (a flow
 * identity twice is an error: two features would report one decision point).
 */
export function traceFlows(features: readonly Feature[], ctx: TraceContext, tag: number): Flow[] {
  TraceflowTagField.check(tag);
  if (tag === 0) throw new PipelineError('VALUE_OUT_OF_RANGE', 'tag 0 marks untraced packets', tag, TraceflowTagField.name);
  const index = new FlowIndex();
  for (const f of features) {
    if (!isTraceable(f)) continue;
    for (const flow of f.traceFlows(ctx, tag)) {
      if (index.find(flow) >= 0) throw new PipelineError('DUPLICATE_FLOW', `feature ${f.name} reports a decision point another feature reports`, flow, f.name);
      index.insert(flow);
    }
  }
  return index.flows;
}
