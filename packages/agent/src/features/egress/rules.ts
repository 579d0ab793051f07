/**
 * How this node realizes each Egress, as the pipeline takes it: pure, from the Egress groups the
 * controller computes (the members, with their nodes and addresses), where each Egress IP is owned
 * (the external IP part's choice) and the nodes' addresses.
 */
import type { controlplane } from '@switchyard/apis';
import type { EgressRule } from '@switchyard/openflow-pipeline';

/** A member pod of an Egress, as the controller's EgressGroup names it. */
export interface EgressPodFacts {
  namespace: string;
  name: string;
  nodeName: string;
  /** Its IPv4 address (the datapath is IPv4), once it has one. */
  ip?: string;
}

/** Something left out of an Egress, with why. */
export interface EgressProblem {
  egress: string;
  message: string;
}

/**
 * The members of each Egress from the controller's groups (by Egress name). The controller has
 * already given a pod two Egresses select to the older one (docs/egress.md); a member without an
 * IPv4 address is kept without one (no flow names it).
 */
export function egressMembersFromGroups(groups: readonly controlplane.EgressGroup[]): Map<string, EgressPodFacts[]> {
  const out = new Map<string, EgressPodFacts[]>();
  for (const g of groups) {
    out.set(
      g.name,
      g.groupMembers.flatMap((m) => {
        if (!m.pod) return [];
        const ip = m.ips.find((a) => !a.includes(':'));
        return [{ namespace: m.pod.namespace, name: m.pod.name, nodeName: m.node?.name ?? '', ...(ip !== undefined ? { ip } : {}) }];
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

/** The Egresses as this node realizes them (name order); an Egress without an IP or placement has none. */
export function egressRules(o: {
  nodeName: string;
  members: ReadonlyMap<string, readonly EgressPodFacts[]>;
  placements: ReadonlyMap<string, EgressPlacement>;
  nodeIPs: ReadonlyMap<string, string>;
  marks: ReadonlyMap<string, number>;
}): EgressRule[] {
  const rules: EgressRule[] = [];
  for (const [name, pods] of [...o.members].sort(([a], [b]) => a.localeCompare(b))) {
    const placed = o.placements.get(name);
    if (!placed) continue;
    const ips = pods.filter((p) => p.ip !== undefined);
    const localPods = ips.filter((p) => p.nodeName === o.nodeName).map((p) => p.ip!).sort();
    const remotePods = ips.filter((p) => p.nodeName !== o.nodeName).map((p) => p.ip!).sort();
    const local = placed.owner === o.nodeName && o.marks.has(placed.ip);
    const ownerIP = placed.owner !== undefined && placed.owner !== o.nodeName ? o.nodeIPs.get(placed.owner) : undefined;
    rules.push({
      name, ip: placed.ip, local, localPods, remotePods,
      ...(local ? { mark: o.marks.get(placed.ip)! } : {}),
      ...(ownerIP !== undefined ? { ownerIP } : {}),
    });
  }
  return rules;
}
