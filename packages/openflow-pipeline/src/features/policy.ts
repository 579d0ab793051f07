/**
 * NetworkPolicy feature (Antrea's conjunction scheme): node-level flows (established bypass,
 * ingress classifier, packet-in), then per policy its rules' flows (policy-rules.ts); match flows
 * with one identity are shared between rules and policies.
 */
import type { Flow } from '@switchyard/openflow/codec';
import { CookieCategory, makeCookie } from '../cookie';
import { PipelineError } from '../errors';
import type { Feature, FlowContext, OwnerOutput } from '../feature';
import { traceFlow, traceToController, type TraceContext, type Traceable } from '../trace';
import type { Group } from '../format';
import {
  APDenyRegMark, CONTROLLER_ID, HairpinCTMark, OutputToControllerRegMark, PACKETIN_CATEGORY, PACKETIN_METER_ID_NP, PACKETIN_NP_LOGGING_OPERATION,
  PACKETIN_NP_REJECT_OPERATION, PRIORITY, PacketInOperationField, ToGatewayRegMark, ToTunnelRegMark, ToUplinkRegMark, matchCtMarks, matchMarks,
} from '../fields';
import type { Pipeline, TableName } from '../tables';
import type { NetworkPolicy, NodeConfig } from '../state';
import { IP, IPV6, flow, goto, hasIpv6, ipv6Addr, withOptions } from './common';
import { ConjunctionBuilder } from './policy-conjunction';
import { inputReader, policyRuleKeys, type PolicyInputs, type PolicyReader } from './policy-members';
import { addressGroupKind, appliedToGroupKind, fqdnAddressesKind, policyKind, policyRuleKind } from './policy-kinds';
import { podKind } from './pod';
import { serviceKind } from './service';
import { nativeRulePriorities } from './policy-priorities';
import { addPolicyFlows, addPolicyLevelFlows, addRuleFlows, finishPolicyBuild, type PolicyBuild } from './policy-rules';
import type { PolicyRule } from '../objects';

export {
  BASELINE_TIER_PRIORITY, BANP_TIER_PRIORITY, DEFAULT_TIER_PRIORITY, assignConjunctionIds, assignOFPriorities, ruleKey, type RulePriority,
} from './policy-priorities';
export { policyRuleKeys } from './policy-members';

/** Settings of the NetworkPolicy feature (Antrea's featureNetworkPolicy fields). */
export interface NetworkPolicyOptions {
  /** Antrea-native policies (tiers): the AntreaPolicy*Rule tables and their established bypass. */
  antreaPolicy?: boolean;
  /** AntreaProxy is on: hairpin Service connections skip ingress rules. */
  proxy?: boolean;
  /** Rate-limit NetworkPolicy packet-ins through meter PACKETIN_METER_ID_NP (the agent installs it). */
  packetInMeters?: boolean;
  /** Userspace datapath (default): kubelet probes are recognized by the gateway's address, not by pkt_mark. */
  netdevDatapath?: boolean;
}

/** The options as the deprecated constant reads them from NodeConfig's flags. */
export const legacyPolicyOptions = (cfg: NodeConfig): Required<NetworkPolicyOptions> => ({
  antreaPolicy: cfg.enableAntreaPolicy ?? false, proxy: cfg.enableProxy ?? false, packetInMeters: cfg.packetInMeters ?? false, netdevDatapath: cfg.netdevDatapath ?? true,
});

/**
 * Tables the NetworkPolicy feature needs (the Antrea-native ones with `antreaPolicy`: NodeConfig's
 * flag when a config is given): its own, and Output and ConntrackCommit, where its packet-in flows
 * sit and its hairpin and probe bypasses jump.
 */
export function networkPolicyTables(opts: NodeConfig | NetworkPolicyOptions): TableName[] {
  const antrea = 'round' in opts ? legacyPolicyOptions(opts).antreaPolicy : opts.antreaPolicy;
  const t: TableName[] = [
    'IngressSecurityClassifier', 'EgressRule', 'EgressDefaultRule', 'EgressMetric', 'IngressRule', 'IngressDefaultRule', 'IngressMetric', 'ConntrackCommit', 'Output',
  ];
  if (antrea) t.push('AntreaPolicyEgressRule', 'AntreaPolicyIngressRule');
  return t;
}

/** The policy cookie of the last round asked for: a build per rule would otherwise make three BigInts each. */
let lastCookie = { round: -1, cookie: 0n };
function policyCookie(cfg: NodeConfig): bigint {
  if (lastCookie.round !== cfg.round) lastCookie = { round: cfg.round, cookie: makeCookie(cfg.round, CookieCategory.NetworkPolicy) };
  return lastCookie.cookie;
}

/** Flows present whenever policies are enforced, whatever the policies. */
export function networkPolicyBaseFlows(p: Pipeline, cfg: NodeConfig, controllerId = CONTROLLER_ID, opts: NetworkPolicyOptions = legacyPolicyOptions(cfg)): Flow[] {
  const c = policyCookie(cfg);
  const antrea = opts.antreaPolicy ?? false;
  const out: Flow[] = [];
  // Established/related bypass: reply traffic never meets a rule.
  const bypassPrio = antrea ? PRIORITY.topAntreaPolicy : PRIORITY.high;
  const inTable = p.id(antrea ? 'AntreaPolicyIngressRule' : 'IngressRule');
  const egTable = p.id(antrea ? 'AntreaPolicyEgressRule' : 'EgressRule');
  const ipv6 = hasIpv6(cfg);
  for (const [t, metric] of [[egTable, p.id('EgressMetric')], [inTable, p.id('IngressMetric')]] as const) {
    out.push(flow(t, bypassPrio, { ctState: { new: false, est: true }, ...IP }, [goto(metric)], c));
    out.push(flow(t, bypassPrio, { ctState: { new: false, rel: true }, ...IP }, [goto(metric)], c));
    if (ipv6) {
      out.push(flow(t, bypassPrio, { ctState: { new: false, est: true }, ...IPV6 }, [goto(metric)], c));
      out.push(flow(t, bypassPrio, { ctState: { new: false, rel: true }, ...IPV6 }, [goto(metric)], c));
    }
  }
  // Ingress classifier: traffic to the gateway, tunnel or uplink skips ingress rules.
  const isc = p.id('IngressSecurityClassifier');
  for (const mark of [ToGatewayRegMark, ToTunnelRegMark, ToUplinkRegMark]) out.push(flow(isc, PRIORITY.normal, matchMarks(mark), [goto(p.id('IngressMetric'))], c));
  if (opts.proxy) out.push(flow(isc, PRIORITY.normal, matchCtMarks(HairpinCTMark), [goto(p.id('ConntrackCommit'))], c));
  // Kubelet probes from the gateway bypass ingress rules (netdev datapath has no pkt_mark from the host).
  if (opts.netdevDatapath ?? true) {
    if (cfg.gateway.ip !== undefined) out.push(flow(isc, PRIORITY.high, { ctState: { rpl: false, trk: true }, ...IP, ipv4Src: cfg.gateway.ip }, [goto(p.id('ConntrackCommit'))], c));
    if (ipv6) out.push(flow(isc, PRIORITY.high, { ctState: { rpl: false, trk: true }, ...IPV6, ipv6Src: ipv6Addr(cfg.gateway.ipv6!, 'config.gateway.ipv6') }, [goto(p.id('ConntrackCommit'))], c));
  } else {
    out.push(flow(isc, PRIORITY.high, { pktMark: { value: 0x80000000, mask: 0x80000000 }, ctState: { rpl: false, trk: true }, ...IP }, [goto(p.id('ConntrackCommit'))], c));
    if (ipv6) out.push(flow(isc, PRIORITY.high, { pktMark: { value: 0x80000000, mask: 0x80000000 }, ctState: { rpl: false, trk: true }, ...IPV6 }, [goto(p.id('ConntrackCommit'))], c));
  }
  // Packet-in flows in Output, one per operation combination.
  for (let op = 1; op <= PACKETIN_NP_LOGGING_OPERATION + 2 + PACKETIN_NP_REJECT_OPERATION; op++) {
    out.push(flow(p.id('Output'), PRIORITY.normal, matchMarks(OutputToControllerRegMark, PacketInOperationField.mark(op)), [
      ...(opts.packetInMeters ? [{ type: 'meter' as const, id: PACKETIN_METER_ID_NP }] : []),
      { type: 'controller', reason: 'no_match', id: controllerId, userdata: Uint8Array.of(PACKETIN_CATEGORY.NP, op) },
    ], c));
  }
  return out;
}

/** A computation of policy flows; `shareMatches` false when the caller merges conjunctive flows itself. */
function newBuild(p: Pipeline, cfg: NodeConfig, rd: PolicyReader, groupBase: number, antreaPolicy: boolean, shareMatches = true): PolicyBuild {
  const cookie = policyCookie(cfg);
  return { p, cfg, cookie, rd, conj: new ConjunctionBuilder(cookie, shareMatches), out: [], peerCache: undefined, loggingTables: undefined, groupBase, antreaPolicy, ipv6: hasIpv6(cfg) };
}

/**
 * The flows and logging groups of one rule of a policy. A match the rule needs in two clauses or
 * sub-rules comes out once per use: the feature merges conjunctive flows of one identity.
 */
export function policyRuleFlows(ctx: FlowContext, pr: PolicyRule, opts: NetworkPolicyOptions = legacyPolicyOptions(ctx.config)): OwnerOutput {
  const b = newBuild(ctx.pipeline, ctx.config, ctx, ctx.policyGroupIdBase, opts.antreaPolicy ?? false, false);
  addRuleFlows(b, pr.policy, pr.rule, pr.index);
  return finishPolicyBuild(b, [], false);
}

/** What a policy has besides its rules (the K8s default drops). */
export function policyLevelFlows(ctx: FlowContext, np: NetworkPolicy, opts: NetworkPolicyOptions = legacyPolicyOptions(ctx.config)): OwnerOutput {
  const b = newBuild(ctx.pipeline, ctx.config, ctx, ctx.policyGroupIdBase, opts.antreaPolicy ?? false);
  addPolicyLevelFlows(b, np);
  return finishPolicyBuild(b);
}

/** Options of {@link networkPolicyFlows}. */
export interface NetworkPolicyInput extends PolicyInputs {
  /** Conjunction ids by rule key (see assignConjunctionIds / policyRuleKeys). */
  conjIds: ReadonlyMap<string, number>;
  /** Controller connection id for packet-ins (Antrea: 62373). */
  controllerId?: number;
  /** First group id for the logging/reject groups. */
  groupIdBase?: number;
}

/** Output of {@link networkPolicyFlows}. */
export interface NetworkPolicyFlows {
  flows: Flow[];
  groups: Group[];
  /** conj ids used, by rule key (sub-rules of named ports have `key:port`). */
  conjIds: Map<string, number>;
}

/** Conjunction ids from a map, recording which were used; a missing one is an input error. */
export function conjIdsFrom(ids: ReadonlyMap<string, number>, used: Map<string, number>): (key: string) => number {
  return (k) => {
    const id = ids.get(k);
    if (id === undefined) throw new PipelineError('INVALID_INPUT', 'no conjunction id for rule (use assignConjunctionIds)', k, k);
    used.set(k, id);
    return id;
  };
}

/**
 * Computes the NetworkPolicy flows and groups of all policies at once (match flows shared across
 * policies while they are built, the fastest way to compute many rules). Pure.
 */
export function networkPolicyFlows(p: Pipeline, cfg: NodeConfig, input: NetworkPolicyInput): NetworkPolicyFlows {
  const conjIds = new Map<string, number>();
  const rd = inputReader(input, conjIdsFrom(input.conjIds, conjIds), nativeRulePriorities(input.policies));
  const b = newBuild(p, cfg, rd, input.groupIdBase ?? 1, legacyPolicyOptions(cfg).antreaPolicy);
  for (const np of input.policies) addPolicyFlows(b, np);
  const out = finishPolicyBuild(b, networkPolicyBaseFlows(p, cfg, input.controllerId));
  return { flows: out.flows, groups: out.groups, conjIds };
}

/**
 * Trace flows of the NetworkPolicy feature: a tagged packet a K8s default drop would drop (a copy
 * of each default drop flow with the tag, above it), and one an Antrea-native Drop or Reject rule
 * denies, in the metric tables where the deny is counted and dropped (its rule's conj id is in
 * APConjIDField, which the packet-in carries).
 */
export function networkPolicyTraceFlows(ctx: TraceContext, tag: number): Flow[] {
  const p = ctx.pipeline;
  const report = traceToController(ctx);
  const defaults = new Set((['IngressDefaultRule', 'EgressDefaultRule'] as const).filter((t) => p.has(t)).map((t) => p.id(t)));
  const out: Flow[] = [];
  // On a dual-stack node, a drop that matches no address family drops IPv6 packets too: its
  // trace copy is doubled with the IPv6 tag match (the tag sits in the traffic class there).
  const ipv6 = hasIpv6(ctx.config);
  for (const f of ctx.flows) {
    if (defaults.has(f.table) && f.priority === PRIORITY.normal && f.actions.length === 0) {
      out.push(traceFlow(ctx, tag, f.table, PRIORITY.normal + 2, f.match, report));
      if (ipv6 && f.match.ethType === undefined) out.push(traceFlow(ctx, tag, f.table, PRIORITY.normal + 2, { ...f.match, ...IPV6 }, report));
    }
  }
  for (const metric of ['IngressMetric', 'EgressMetric'] as const) {
    out.push(traceFlow(ctx, tag, p.id(metric), PRIORITY.normal + 2, matchMarks(APDenyRegMark), report));
    if (ipv6) out.push(traceFlow(ctx, tag, p.id(metric), PRIORITY.normal + 2, { ...matchMarks(APDenyRegMark), ...IPV6 }, report));
  }
  return out;
}

const forms = withOptions<NetworkPolicyOptions, Feature & Traceable>(
  (optionsOf) => ({
    name: 'networkPolicy',
    tables: (cfg) => networkPolicyTables(optionsOf(cfg)),
    kinds: [policyKind, policyRuleKind, addressGroupKind, appliedToGroupKind, fqdnAddressesKind, podKind, serviceKind],
    mergesConjunctions: true,
    nodeFlows: (ctx) => ({ flows: networkPolicyBaseFlows(ctx.pipeline, ctx.config, ctx.controllerId, optionsOf(ctx.config)) }),
    perObject: { policy: (ctx, np) => policyLevelFlows(ctx, np, optionsOf(ctx.config)), policyRule: (ctx, pr) => policyRuleFlows(ctx, pr, optionsOf(ctx.config)) },
    shared: (state) => nativeRulePriorities(state.policies),
    sharedInputs: ['policyRule'],
    conjunctionKeys: (state) => policyRuleKeys({ ...state, fqdnAddresses: state.fqdn?.addresses ?? {} }),
    traceFlows: networkPolicyTraceFlows,
  }),
  (o: NetworkPolicyOptions) => ({ antreaPolicy: o.antreaPolicy ?? false, proxy: o.proxy ?? false, packetInMeters: o.packetInMeters ?? false, netdevDatapath: o.netdevDatapath ?? true }),
  legacyPolicyOptions,
);

/**
 * The NetworkPolicy feature: node-level flows; each rule's flows owned by the rule (Antrea
 * reconciles rules one by one too), each policy's default drops by the policy. Traceable.
 */
export const networkPolicy: (opts?: NetworkPolicyOptions) => Feature & Traceable = forms.factory;

/** @deprecated Reads `enableAntreaPolicy`, `enableProxy`, `packetInMeters` and `netdevDatapath` from NodeConfig; use {@link networkPolicy}. */
export const networkPolicyFeature: Feature & Traceable = forms.constant;
