/**
 * NetworkPolicy numbering: Antrea-native rule precedence to OpenFlow priorities (collisions
 * resolved across every rule of the node), and conjunction ids kept stable per rule key.
 */
import { PipelineError } from '../errors';
import type { NetworkPolicy, NetworkPolicyRule } from '../state';

/** Tier priority of Antrea's Baseline tier; BANP uses the tier below it. */
export const BASELINE_TIER_PRIORITY = 253;
export const BANP_TIER_PRIORITY = 254;
/** Priority of Antrea's default (application) tier. */
export const DEFAULT_TIER_PRIORITY = 250;

export const isAntreaNative = (np: NetworkPolicy): boolean => np.sourceRef.type !== 'K8sNetworkPolicy' && np.tierPriority !== undefined;
export const isBaseline = (np: NetworkPolicy): boolean => np.tierPriority === BASELINE_TIER_PRIORITY || np.tierPriority === BANP_TIER_PRIORITY;

/** Stable key of a rule: policy uid and the rule's index in the policy. */
export function ruleKey(policyUid: string, index: number): string {
  return `${policyUid}/${index}`;
}

/**
 * Keeps the ids of rules still present and gives new rules the lowest free ids (from 1).
 * Pure: returns a new map; the caller stores it for the next call.
 */
export function assignConjunctionIds(previous: ReadonlyMap<string, number>, keys: Iterable<string>): Map<string, number> {
  const wanted = [...new Set(keys)];
  const out = new Map<string, number>();
  const used = new Set<number>();
  for (const k of wanted) {
    const id = previous.get(k);
    if (id !== undefined) {
      out.set(k, id);
      used.add(id);
    }
  }
  let next = 1;
  for (const k of wanted) {
    if (out.has(k)) continue;
    while (used.has(next)) next++;
    out.set(k, next);
    used.add(next++);
  }
  return out;
}

/** Antrea's Priority of a rule: tier, policy priority, rule index. */
export interface RulePriority {
  tierPriority: number;
  policyPriority: number;
  rulePriority: number;
}

const cmpPriority = (a: RulePriority, b: RulePriority): number =>
  a.tierPriority - b.tierPriority || a.policyPriority - b.policyPriority || a.rulePriority - b.rulePriority;

const priorityText = (p: RulePriority): string => `${p.tierPriority}/${p.policyPriority}/${p.rulePriority}`;

/**
 * Maps rule priorities to OpenFlow priorities: Antrea's initial guess (top - tier*offsetT -
 * policy*offsetP - rule), then collisions resolved so that precedence order is strict (each
 * next priority is at most the previous minus one). Baseline tables use their own band.
 */
export function assignOFPriorities(priorities: readonly RulePriority[], baseline: boolean): Map<string, number> {
  const top = baseline ? 180 : 65000;
  const bottom = baseline ? 10 : 100;
  const uniq = new Map<string, RulePriority>();
  for (const p of priorities) uniq.set(priorityText(p), p);
  const sorted = [...uniq.values()].sort(cmpPriority);
  const out = new Map<string, number>();
  let prev = top + 1;
  sorted.forEach((p, i) => {
    const tierOff = (baseline ? 0 : 200) * p.tierPriority;
    const polOff = Math.floor(p.policyPriority * (baseline ? 10 : p.tierPriority === DEFAULT_TIER_PRIORITY ? 100 : 20));
    const off = tierOff + polOff + p.rulePriority;
    // A guess below the band (a large policy priority, e.g. the 9000 of the ExternalNode guide)
    // keeps room for the rules that follow it, so that several such rules stay strictly ordered.
    const remaining = sorted.length - 1 - i;
    let of = Math.max(off > top - bottom ? bottom : top - off, bottom + remaining);
    if (of >= prev) of = prev - 1;
    if (of < bottom) throw new PipelineError('PRIORITY_EXHAUSTED', 'no OpenFlow priority left for rule', p, baseline ? 'baseline tables' : 'Antrea policy tables');
    out.set(priorityText(p), of);
    prev = of;
  });
  return out;
}

/** The precedence of a rule of an Antrea-native policy. */
export const rulePriorityOf = (np: NetworkPolicy, r: NetworkPolicyRule): RulePriority => ({
  tierPriority: np.tierPriority ?? DEFAULT_TIER_PRIORITY, policyPriority: np.priority ?? 0, rulePriority: r.priority,
});

/** Key of a rule's OpenFlow priority among the node-wide values ({@link nativeRulePriorities}). */
export const ofPriorityKey = (np: NetworkPolicy, r: NetworkPolicyRule): string =>
  `${isBaseline(np) ? 'baseline' : 'tiered'}/${priorityText(rulePriorityOf(np, r))}`;

/** OpenFlow priorities of every Antrea-native rule of the node, by {@link ofPriorityKey}. */
export function nativeRulePriorities(policies: readonly NetworkPolicy[]): Map<string, number> {
  const tiered: RulePriority[] = [];
  const baseline: RulePriority[] = [];
  for (const np of policies) if (isAntreaNative(np)) for (const r of np.rules) (isBaseline(np) ? baseline : tiered).push(rulePriorityOf(np, r));
  const out = new Map<string, number>();
  for (const [k, v] of assignOFPriorities(tiered, false)) out.set(`tiered/${k}`, v);
  for (const [k, v] of assignOFPriorities(baseline, true)) out.set(`baseline/${k}`, v);
  return out;
}
