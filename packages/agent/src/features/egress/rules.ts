/**
 * How this node realizes each Egress, as the pipeline takes it: pure, from the Egress groups the
 * controller computes (the members, with their nodes and addresses), where each Egress IP is owned
 * (the external IP part's choice) and the nodes' addresses.
 */
import type { controlplane } from '@switchyard/apis';
import { egressRuleKey, type EgressRule } from '@switchyard/openflow-pipeline';

/** A member pod of an Egress, as the controller's EgressGroup names it. */
export interface EgressPodFacts {
  namespace: string;
  name: string;
  nodeName: string;
  /** Its IPv4 address, once it has one. */
  ip?: string;
  /** Its IPv6 address (a dual-stack or IPv6 pod), once it has one: an IPv6 Egress IP applies to it. */
  ipv6?: string;
}

/** Something left out of an Egress, with why. */
export interface EgressProblem {
  egress: string;
  message: string;
}

/**
 * The members of each Egress from the controller's groups (by Egress name). The controller has
 * already given a pod two Egresses select to the older one (docs/egress.md); a member keeps its
 * IPv4 and its IPv6 address (each family's Egress IP applies to the address of its family; a
 * member without one is named by no flow of that family).
 */
export function egressMembersFromGroups(groups: readonly controlplane.EgressGroup[]): Map<string, EgressPodFacts[]> {
  const out = new Map<string, EgressPodFacts[]>();
  for (const g of groups) {
    out.set(
      g.name,
      g.groupMembers.flatMap((m) => {
        if (!m.pod) return [];
        const ip = m.ips.find((a) => !a.includes(':'));
        const ipv6 = m.ips.find((a) => a.includes(':'));
        return [{ namespace: m.pod.namespace, name: m.pod.name, nodeName: m.node?.name ?? '', ...(ip !== undefined ? { ip } : {}), ...(ipv6 !== undefined ? { ipv6 } : {}) }];
      }),
    );
  }
  return out;
}

/** The IP of an Egress and the node owning it (the external IP part's assignment). */
export interface EgressPlacement {
  ip: string;
  owner?: string;
}

/**
 * Where an Egress IP's placement is kept: the Egress's name for its IPv4 IP, `<name>/IPv6` for its
 * IPv6 one (the pipeline's object key; a dual-stack Egress's two IPs may have two owners).
 */
export const placementKey = (egress: string, ip: string): string => egressRuleKey({ name: egress, ip });

/** Marks 1..255 for the IPs this node owns: kept while owned, the lowest free one for a new IP. */
export function egressMarks(previous: ReadonlyMap<string, number>, ownedIPs: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const ip of ownedIPs) {
    const m = previous.get(ip);
    if (m !== undefined) out.set(ip, m);
  }
  const used = new Set(out.values());
  let next = 1;
  for (const ip of [...ownedIPs].sort()) {
    if (out.has(ip)) continue;
    while (used.has(next)) next++;
    if (next > 255) break; // Antrea's maxEgressIPsPerNode: the rest stay unmarked (not SNATed here)
    out.set(ip, next);
    used.add(next);
  }
  return out;
}

/**
 * The Egresses as this node realizes them (name order, the IPv4 IP's rule before the IPv6 one's);
 * an Egress IP without a placement has no rule. Each rule names the members' addresses of its IP's
 * family.
 */
export function egressRules(o: {
  nodeName: string;
  members: ReadonlyMap<string, readonly EgressPodFacts[]>;
  /** By {@link placementKey}. */
  placements: ReadonlyMap<string, EgressPlacement>;
  nodeIPs: ReadonlyMap<string, string>;
  marks: ReadonlyMap<string, number>;
}): EgressRule[] {
  const rules: EgressRule[] = [];
  for (const [name, pods] of [...o.members].sort(([a], [b]) => a.localeCompare(b))) {
    for (const placed of [o.placements.get(name), o.placements.get(`${name}/IPv6`)]) {
      if (!placed) continue;
      const addr = (p: EgressPodFacts): string | undefined => (placed.ip.includes(':') ? p.ipv6 : p.ip);
      const localPods = pods.filter((p) => p.nodeName === o.nodeName).flatMap((p) => addr(p) ?? []).sort();
      const remotePods = pods.filter((p) => p.nodeName !== o.nodeName).flatMap((p) => addr(p) ?? []).sort();
      const local = placed.owner === o.nodeName && o.marks.has(placed.ip);
      const ownerIP = placed.owner !== undefined && placed.owner !== o.nodeName ? o.nodeIPs.get(placed.owner) : undefined;
      rules.push({
        name, ip: placed.ip, local, localPods, remotePods,
        ...(local ? { mark: o.marks.get(placed.ip)! } : {}),
        ...(ownerIP !== undefined ? { ownerIP } : {}),
      });
    }
  }
  return rules;
}
