/**
 * The FQDN slice of the node state (the pipeline's FqdnSpec): which pods' DNS responses to
 * intercept and which learned addresses to allow. Pure; the controller (fqdn.ts) has FlowSync
 * derive the slice with it at every computation.
 */
import type { controlplane } from '@switchyard/apis';
import type { FqdnSpec, LocalPod } from '@switchyard/openflow-pipeline';

/** The parts of the node state FQDN rules depend on. */
export interface FqdnRuleInputs {
  policies: readonly controlplane.NetworkPolicy[];
  appliedToGroups: readonly controlplane.AppliedToGroup[];
  pods: readonly Pick<LocalPod, 'ofport' | 'ips'>[];
}

/**
 * The FQDN rules' view of the node state: every FQDN written in an egress rule of a policy, and
 * the local pods those rules apply to (whose DNS responses the pipeline must intercept).
 */
export function fqdnRuleTargets(state: FqdnRuleInputs): { patterns: string[]; podOfports: number[] } {
  const patterns = new Set<string>();
  const groups = new Set<string>();
  for (const p of state.policies) {
    for (const r of p.rules) {
      const fqdns = r.direction === 'Out' ? (r.to.fqdns ?? []) : [];
      if (fqdns.length === 0) continue;
      for (const f of fqdns) patterns.add(f);
      for (const g of r.appliedToGroups?.length ? r.appliedToGroups : p.appliedToGroups) groups.add(g);
    }
  }
  const ips = new Set<string>();
  for (const g of state.appliedToGroups) if (groups.has(g.name)) for (const m of g.groupMembers) for (const ip of m.ips) ips.add(ip);
  const ports = new Set<number>();
  for (const pod of state.pods) if (pod.ips.some((ip) => ips.has(ip))) ports.add(pod.ofport);
  return { patterns: [...patterns].sort(), podOfports: [...ports].sort((a, b) => a - b) };
}

/** Where the FQDN slice takes its intercept conjunction and learned addresses from. */
export interface FqdnSource {
  /** Conjunction id of the intercept flows. */
  readonly conjId: number;
  /** Addresses currently learned for each FQDN pattern (only patterns with addresses). */
  addresses(patterns: readonly string[]): Record<string, string[]>;
}

/** Builds the pipeline's FqdnSpec, or undefined when no local pod is selected by an FQDN rule. */
export function fqdnSpecOf(state: FqdnRuleInputs, source: FqdnSource): FqdnSpec | undefined {
  const t = fqdnRuleTargets(state);
  if (t.podOfports.length === 0) return undefined;
  return { conjId: source.conjId, podOfports: t.podOfports, addresses: source.addresses(t.patterns) };
}
