/**
 * Which pods each Egress applies to and how this node realizes it, as the pipeline takes it: pure,
 * from the Egresses, every pod with its node and address, the Namespaces' labels, where each Egress
 * IP is owned (the external IP part's choice) and the nodes' addresses.
 */
import type { Egress } from '@switchyard/apis/types';
import type { EgressRule } from '@switchyard/openflow-pipeline';
import { matchesSelector } from '@switchyard/policy-compiler';

/** A pod as Egress membership sees it. */
export interface EgressPodFacts {
  namespace: string;
  name: string;
  nodeName: string;
  /** Its IPv4 address, once it has one. */
  ip?: string;
  labels: Readonly<Record<string, string>>;
}

/** Something left out of an Egress, with why. */
export interface EgressProblem {
  egress: string;
  message: string;
}

const byAge = (a: Egress, b: Egress): number => (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? '') || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? '');

/** Whether an Egress selects a pod, as Antrea selects: `podSelector` in every Namespace, every pod of the Namespaces `namespaceSelector` selects, or both together. */
export function egressSelects(eg: Egress, pod: EgressPodFacts, namespaceLabels: ReadonlyMap<string, Readonly<Record<string, string>>>): boolean {
  const { podSelector, namespaceSelector } = eg.spec?.appliedTo ?? {};
  if (!podSelector && !namespaceSelector) return false;
  if (podSelector && !matchesSelector(podSelector, pod.labels)) return false;
  return !namespaceSelector || matchesSelector(namespaceSelector, namespaceLabels.get(pod.namespace));
}

/**
 * The member pods of each Egress (by name). A pod two Egresses select belongs to the older one
 * (creation time, then name), and the younger gets a problem naming the pod and the Egress it
 * keeps: its traffic can leave from one IP only.
 */
export function egressMembers(
  egresses: readonly Egress[],
  pods: readonly EgressPodFacts[],
  namespaceLabels: ReadonlyMap<string, Readonly<Record<string, string>>>,
): { members: Map<string, EgressPodFacts[]>; problems: EgressProblem[] } {
  const members = new Map<string, EgressPodFacts[]>();
  const problems: EgressProblem[] = [];
  const ordered = [...egresses].sort(byAge);
  for (const eg of ordered) members.set(eg.metadata.name ?? '', []);
  for (const pod of pods) {
    let owner: string | undefined;
    for (const eg of ordered) {
      if (!egressSelects(eg, pod, namespaceLabels)) continue;
      const name = eg.metadata.name ?? '';
      if (owner === undefined) {
        owner = name;
        members.get(name)!.push(pod);
      } else problems.push({ egress: name, message: `spec.appliedTo also selects pod ${pod.namespace}/${pod.name}, which Egress ${owner} (older) applies to` });
    }
  }
  return { members, problems };
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
