/**
 * NetworkPolicy feature (Antrea's conjunction scheme): node-level flows (established bypass,
 * ingress classifier, packet-in), then per policy its rules' flows (policy-rules.ts); match flows
 * with one identity are shared between rules and policies.
 */
import type { Flow } from '@switchyard/openflow/codec';
import { CookieCategory, makeCookie } from '../cookie';
import { PipelineError } from '../errors';
import type { Feature, FlowContext, OwnerOutput } from '../feature';
import type { Group } from '../format';
import {
  CONTROLLER_ID, HairpinCTMark, OutputToControllerRegMark, PACKETIN_CATEGORY, PACKETIN_METER_ID_NP, PACKETIN_NP_LOGGING_OPERATION,
  PACKETIN_NP_REJECT_OPERATION, PRIORITY, PacketInOperationField, ToGatewayRegMark, ToTunnelRegMark, ToUplinkRegMark, matchCtMarks, matchMarks,
} from '../fields';
import type { Pipeline, TableName } from '../tables';
import type { NetworkPolicy, NodeConfig } from '../state';
import { IP, flow, goto } from './common';
import { ConjunctionBuilder } from './policy-conjunction';
import { inputReader, type PolicyInputs, type PolicyReader } from './policy-members';
import { nativeRulePriorities } from './policy-priorities';
import { addPolicyFlows, addPolicyLevelFlows, addRuleFlows, finishPolicyBuild, type PolicyBuild } from './policy-rules';
import type { PolicyRule } from '../objects';

export {
  BASELINE_TIER_PRIORITY, BANP_TIER_PRIORITY, DEFAULT_TIER_PRIORITY, assignConjunctionIds, assignOFPriorities, ruleKey, type RulePriority,
} from './policy-priorities';
export { policyRuleKeys } from './policy-members';

/** Tables the NetworkPolicy feature needs. */
export function networkPolicyTables(cfg: NodeConfig): TableName[] {
  const t: TableName[] = ['IngressSecurityClassifier', 'EgressRule', 'EgressDefaultRule', 'EgressMetric', 'IngressRule', 'IngressDefaultRule', 'IngressMetric'];
  if (cfg.enableAntreaPolicy) t.push('AntreaPolicyEgressRule', 'AntreaPolicyIngressRule');
  return t;
}

const policyCookie = (cfg: NodeConfig): bigint => makeCookie(cfg.round, CookieCategory.NetworkPolicy);

/** Flows present whenever policies are enforced, whatever the policies. */
export function networkPolicyBaseFlows(p: Pipeline, cfg: NodeConfig, controllerId = CONTROLLER_ID): Flow[] {
  const c = policyCookie(cfg);
  const antrea = cfg.enableAntreaPolicy ?? false;
  const out: Flow[] = [];
  // Established/related bypass: reply traffic never meets a rule.
  const bypassPrio = antrea ? PRIORITY.topAntreaPolicy : PRIORITY.high;
  const inTable = p.id(antrea ? 'AntreaPolicyIngressRule' : 'IngressRule');
  const egTable = p.id(antrea ? 'AntreaPolicyEgressRule' : 'EgressRule');
  for (const [t, metric] of [[egTable, p.id('EgressMetric')], [inTable, p.id('IngressMetric')]] as const) {
    out.push(flow(t, bypassPrio, { ctState: { new: false, est: true }, ...IP }, [goto(metric)], c));
    out.push(flow(t, bypassPrio, { ctState: { new: false, rel: true }, ...IP }, [goto(metric)], c));
  }
  // Ingress classifier: traffic to the gateway, tunnel or uplink skips ingress rules.
  const isc = p.id('IngressSecurityClassifier');
  for (const mark of [ToGatewayRegMark, ToTunnelRegMark, ToUplinkRegMark]) out.push(flow(isc, PRIORITY.normal, matchMarks(mark), [goto(p.id('IngressMetric'))], c));
  if (cfg.enableProxy) out.push(flow(isc, PRIORITY.normal, matchCtMarks(HairpinCTMark), [goto(p.id('ConntrackCommit'))], c));
  // Kubelet probes from the gateway bypass ingress rules (netdev datapath has no pkt_mark from the host).
  if (cfg.netdevDatapath ?? true) {
    out.push(flow(isc, PRIORITY.high, { ctState: { rpl: false, trk: true }, ...IP, ipv4Src: cfg.gateway.ip }, [goto(p.id('ConntrackCommit'))], c));
  } else {
    out.push(flow(isc, PRIORITY.high, { pktMark: { value: 0x80000000, mask: 0x80000000 }, ctState: { rpl: false, trk: true }, ...IP }, [goto(p.id('ConntrackCommit'))], c));
  }
  // Packet-in flows in Output, one per operation combination.
  for (let op = 1; op <= PACKETIN_NP_LOGGING_OPERATION + 2 + PACKETIN_NP_REJECT_OPERATION; op++) {
    out.push(flow(p.id('Output'), PRIORITY.normal, matchMarks(OutputToControllerRegMark, PacketInOperationField.mark(op)), [
      ...(cfg.packetInMeters ? [{ type: 'meter' as const, id: PACKETIN_METER_ID_NP }] : []),
      { type: 'controller', reason: 'no_match', id: controllerId, userdata: Uint8Array.of(PACKETIN_CATEGORY.NP, op) },
    ], c));
  }
  return out;
}

/** A computation of policy flows; `shareMatches` false when the caller merges conjunctive flows itself. */
function newBuild(p: Pipeline, cfg: NodeConfig, rd: PolicyReader, groupBase: number, shareMatches = true): PolicyBuild {
  const cookie = policyCookie(cfg);
  return { p, cfg, cookie, rd, conj: new ConjunctionBuilder(cookie, shareMatches), out: [], peerCache: undefined, loggingTables: undefined, groupBase };
}

/**
 * The flows and logging groups of one rule of a policy. A match the rule needs in two clauses or
 * sub-rules comes out once per use: the feature merges conjunctive flows of one identity.
 */
export function policyRuleFlows(ctx: FlowContext, pr: PolicyRule): OwnerOutput {
  const b = newBuild(ctx.pipeline, ctx.config, ctx, ctx.policyGroupIdBase, false);
  addRuleFlows(b, pr.policy, pr.rule, pr.index);
  return finishPolicyBuild(b, [], false);
}

/** What a policy has besides its rules (the K8s default drops). */
export function policyLevelFlows(ctx: FlowContext, np: NetworkPolicy): OwnerOutput {
  const b = newBuild(ctx.pipeline, ctx.config, ctx, ctx.policyGroupIdBase);
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
  const b = newBuild(p, cfg, rd, input.groupIdBase ?? 1);
  for (const np of input.policies) addPolicyFlows(b, np);
  const out = finishPolicyBuild(b, networkPolicyBaseFlows(p, cfg, input.controllerId));
  return { flows: out.flows, groups: out.groups, conjIds };
}

/**
 * The NetworkPolicy feature: node-level flows; each rule's flows owned by the rule (Antrea
 * reconciles rules one by one too), each policy's default drops by the policy.
 */
export const networkPolicyFeature: Feature = {
  name: 'networkPolicy',
  tables: networkPolicyTables,
  mergesConjunctions: true,
  nodeFlows: (ctx) => ({ flows: networkPolicyBaseFlows(ctx.pipeline, ctx.config, ctx.controllerId) }),
  perObject: { policy: policyLevelFlows, policyRule: policyRuleFlows },
  shared: (state) => nativeRulePriorities(state.policies),
  sharedInputs: ['policyRule'],
};
