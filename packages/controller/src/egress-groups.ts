// The members of every Egress (Antrea's EgressGroups), kept incrementally from Pod, Namespace and
// Egress events (pure). One implementation of the oldest-wins rule: a pod two Egresses select is a
// member of the older one only (creation time, then name), and the younger's EgressOverlap Event
// comes from the same state. The agents receive the groups; they no longer compute members.
import type { controlplane } from '@switchyard/apis';
import type { Egress } from '@switchyard/apis/types';
import type { KubeObject } from '@switchyard/kube';
import { matchesSelector } from '@switchyard/policy-compiler';
import type { EventNote } from './events';
import { validateEgress } from './egress';

/** A pod as Egress membership sees it. */
export interface EgressMemberPod {
  namespace: string;
  name: string;
  /** Its node; a pod not yet scheduled is no member. */
  nodeName: string;
  /** Its addresses (`status.podIPs`); a pod without one is no member yet. */
  ips: readonly string[];
  labels: Readonly<Record<string, string>>;
}

/** What of an Egress decides its members: its selectors and its age. */
export interface EgressSelectorFacts {
  name: string;
  creationTimestamp: string;
  podSelector?: Egress['spec']['appliedTo']['podSelector'];
  namespaceSelector?: Egress['spec']['appliedTo']['namespaceSelector'];
}

/** One group's change from one call: a new group, a patch, or a group gone. */
export type EgressGroupChange =
  | { type: 'ADDED'; group: controlplane.EgressGroup }
  | { type: 'MODIFIED'; patch: controlplane.EgressGroupPatch }
  | { type: 'DELETED'; name: string };

/** Pods left to an older Egress, per younger Egress: which Egress keeps which pods. */
export type EgressOverlaps = Map<string, { keeper: string; pods: string[] }[]>;

const podKey = (namespace: string, name: string): string => `${namespace}/${name}`;
const older = (a: EgressSelectorFacts, b: EgressSelectorFacts): number => a.creationTimestamp.localeCompare(b.creationTimestamp) || a.name.localeCompare(b.name);

/**
 * Whether an Egress takes part in membership: it is valid and the controller has allocated its IP
 * (condition IPAllocated True), or it names its IP without a pool and was not refused (manual
 * mode). An Egress without an IP does nothing, so it competes for no pod.
 * The one place that says so: the members and the EgressOverlap Event both follow it.
 */
export function egressCompetes(eg: Egress): boolean {
  if (validateEgress(eg).length > 0) return false;
  const allocated = (eg.status?.conditions ?? []).find((c) => c.type === 'IPAllocated');
  if (allocated !== undefined) return allocated.status === 'True';
  // Without a pool (Antrea's manual mode) nothing is allocated and no IPAllocated is written: the
  // IP is the spec's own, realized by the node holding it. A refused one (its IP in use) carries
  // IPAllocated False, above; a pool's Egress not yet decided has neither.
  const spec = eg.spec;
  return (spec?.egressIP ?? '') !== '' && (spec?.externalIPPool ?? '') === '' && (spec?.externalIPPools?.length ?? 0) === 0;
}

/** The selector facts of an Egress. */
export function egressSelectorFacts(eg: Egress): EgressSelectorFacts {
  const a = eg.spec?.appliedTo ?? {};
  return {
    name: eg.metadata.name ?? '',
    creationTimestamp: eg.metadata.creationTimestamp ?? '',
    ...(a.podSelector !== undefined ? { podSelector: a.podSelector } : {}),
    ...(a.namespaceSelector !== undefined ? { namespaceSelector: a.namespaceSelector } : {}),
  };
}

/** A Pod object as a member candidate; undefined when it can be no member (host network, finished). */
export function egressMemberPod(o: KubeObject): EgressMemberPod | undefined {
  const spec = (o.spec ?? {}) as { nodeName?: string; hostNetwork?: boolean };
  const status = (o.status ?? {}) as { podIP?: string; podIPs?: { ip: string }[]; phase?: string };
  if (spec.hostNetwork || status.phase === 'Succeeded' || status.phase === 'Failed') return undefined;
  const listed = (status.podIPs ?? []).map((p) => p.ip).filter((ip) => typeof ip === 'string' && ip !== '');
  const ips = listed.length > 0 ? listed : status.podIP ? [status.podIP] : [];
  return { namespace: o.metadata.namespace ?? '', name: o.metadata.name ?? '', nodeName: spec.nodeName ?? '', ips, labels: o.metadata.labels ?? {} };
}

/** Whether an Egress selects a pod, as Antrea selects: the pod selector in every Namespace, every pod of the selected Namespaces, or both together. */
export function egressSelectsPod(eg: EgressSelectorFacts, pod: Pick<EgressMemberPod, 'namespace' | 'labels'>, namespaceLabels: ReadonlyMap<string, Readonly<Record<string, string>>>): boolean {
  if (!eg.podSelector && !eg.namespaceSelector) return false;
  if (eg.podSelector && !matchesSelector(eg.podSelector, pod.labels)) return false;
  return !eg.namespaceSelector || matchesSelector(eg.namespaceSelector, namespaceLabels.get(pod.namespace));
}

interface Pending {
  added: Map<string, controlplane.GroupMember>;
  removed: Map<string, controlplane.GroupMember>;
}

const sameMember = (a: controlplane.GroupMember, b: controlplane.GroupMember): boolean =>
  a.node?.name === b.node?.name && a.ips.length === b.ips.length && a.ips.every((ip, i) => ip === b.ips[i]);

/**
 * Every competing Egress's members, followed event by event. A pod event re-matches that pod
 * against the competing Egresses; a Namespace event the pods of that Namespace; an Egress event the
 * pods the Egress selected before or selects now (only their owner can change). Each call answers
 * the groups it changed: a group is made when its Egress starts competing (empty or not) and
 * deleted when it stops; in between, patches (a pod's new IP is a removal and an addition).
 */
export class EgressMembership {
  private readonly pods = new Map<string, EgressMemberPod>();
  private readonly podsByNamespace = new Map<string, Set<string>>();
  /** Pods by `key=value` of each label: an Egress's candidates are the smallest set of its matchLabels. */
  private readonly podsByLabel = new Map<string, Set<string>>();
  private readonly namespaceLabels = new Map<string, Readonly<Record<string, string>>>();
  /** Competing Egresses, oldest first. */
  private egresses: EgressSelectorFacts[] = [];
  private readonly facts = new Map<string, EgressSelectorFacts>();
  /** Members of each competing Egress, by pod key. */
  private readonly groups = new Map<string, Map<string, controlplane.GroupMember>>();
  /** The Egress each member pod belongs to. */
  private readonly ownerOf = new Map<string, string>();
  /** Pods more than one competing Egress selects: all of them, oldest first. */
  private readonly contested = new Map<string, string[]>();
  /** Bumped whenever {@link overlaps} may answer differently. */
  overlapVersion = 0;

  /** The members of an Egress's group (undefined: it does not compete). */
  group(name: string): controlplane.EgressGroup | undefined {
    const g = this.groups.get(name);
    return g ? { name, groupMembers: [...g.values()] } : undefined;
  }

  /** Every group, by name. */
  allGroups(): controlplane.EgressGroup[] {
    return [...this.groups.keys()].sort().map((n) => this.group(n)!);
  }

  /** Number of pods held (for health and metrics). */
  get podCount(): number {
    return this.pods.size;
  }

  /** A pod added or changed (`pod`), or deleted (undefined). */
  setPod(namespace: string, name: string, pod: EgressMemberPod | undefined): EgressGroupChange[] {
    const key = podKey(namespace, name);
    const old = this.pods.get(key);
    if (old) for (const [k, v] of Object.entries(old.labels)) this.unindex(this.podsByLabel, `${k}=${v}`, key);
    if (pod) {
      this.pods.set(key, pod);
      this.index(this.podsByNamespace, namespace, key);
      for (const [k, v] of Object.entries(pod.labels)) this.index(this.podsByLabel, `${k}=${v}`, key);
    } else {
      this.pods.delete(key);
      this.unindex(this.podsByNamespace, namespace, key);
    }
    const pending = new Map<string, Pending>();
    this.rematch(key, pending);
    return this.changes(pending, [], []);
  }

  /** A Namespace's labels (undefined: deleted). */
  setNamespace(name: string, labels: Readonly<Record<string, string>> | undefined): EgressGroupChange[] {
    const before = this.namespaceLabels.get(name);
    if (labels) this.namespaceLabels.set(name, labels);
    else this.namespaceLabels.delete(name);
    if (JSON.stringify(before ?? null) === JSON.stringify(labels ?? null)) return [];
    // Only an Egress with a namespaceSelector sees a Namespace's labels.
    if (!this.egresses.some((e) => e.namespaceSelector !== undefined)) return [];
    const pending = new Map<string, Pending>();
    for (const key of this.podsByNamespace.get(name) ?? []) this.rematch(key, pending);
    return this.changes(pending, [], []);
  }

  /**
   * The competing Egresses as they are now (the whole set: an Egress absent here stops competing).
   * Re-matches only the pods an Egress that came, went or changed selected before or selects now.
   */
  setEgresses(list: readonly EgressSelectorFacts[]): EgressGroupChange[] {
    const next = new Map(list.map((e) => [e.name, e]));
    const touched: EgressSelectorFacts[] = [];
    const gone: string[] = [];
    const came: string[] = [];
    for (const [name, old] of this.facts) {
      const now = next.get(name);
      if (!now) {
        gone.push(name);
        touched.push(old);
      } else if (JSON.stringify(now) !== JSON.stringify(old)) touched.push(old, now);
    }
    for (const [name, now] of next) {
      if (this.facts.has(name)) continue;
      came.push(name);
      touched.push(now);
    }
    if (touched.length === 0) return [];
    this.facts.clear();
    for (const [n, e] of next) this.facts.set(n, e);
    this.egresses = [...next.values()].sort(older);
    for (const n of came) this.groups.set(n, new Map());
    // The pods whose owner may change: those any touched Egress (old or new spec) selects, and those a leaving Egress held.
    const keys = new Set<string>();
    for (const e of touched) {
      for (const key of this.candidates(e)) {
        const pod = this.pods.get(key);
        if (pod && egressSelectsPod(e, pod, this.namespaceLabels)) keys.add(key);
      }
    }
    for (const n of gone) for (const key of this.groups.get(n)?.keys() ?? []) keys.add(key);
    const pending = new Map<string, Pending>();
    for (const key of keys) this.rematch(key, pending);
    const removedGroups = gone.filter((n) => this.groups.delete(n));
    return this.changes(pending, came, removedGroups);
  }

  /** Pods each younger Egress leaves to an older one (the EgressOverlap Events). */
  overlaps(): EgressOverlaps {
    const out: EgressOverlaps = new Map();
    for (const [key, selecting] of this.contested) {
      const keeper = selecting[0]!;
      for (const loser of selecting.slice(1)) {
        const list = out.get(loser) ?? [];
        let entry = list.find((x) => x.keeper === keeper);
        if (!entry) list.push((entry = { keeper, pods: [] }));
        entry.pods.push(key);
        out.set(loser, list);
      }
    }
    return out;
  }

  /** Pods an Egress may select (a superset): those with the rarest of its matchLabels, else those of the Namespaces it selects, else all. */
  private candidates(e: EgressSelectorFacts): Iterable<string> {
    const labels = Object.entries(e.podSelector?.matchLabels ?? {});
    if (labels.length > 0) {
      let best: ReadonlySet<string> | undefined;
      for (const [k, v] of labels) {
        const s = this.podsByLabel.get(`${k}=${v}`);
        if (!s) return [];
        if (!best || s.size < best.size) best = s;
      }
      return best ?? [];
    }
    if (e.namespaceSelector && !e.podSelector) {
      const out: string[] = [];
      for (const [ns, keys] of this.podsByNamespace) if (egressSelectsPod(e, { namespace: ns, labels: {} }, this.namespaceLabels)) out.push(...keys);
      return out;
    }
    return this.pods.keys();
  }

  private index(m: Map<string, Set<string>>, k: string, key: string): void {
    let s = m.get(k);
    if (!s) m.set(k, (s = new Set()));
    s.add(key);
  }

  private unindex(m: Map<string, Set<string>>, k: string, key: string): void {
    const s = m.get(k);
    s?.delete(key);
    if (s?.size === 0) m.delete(k);
  }

  /** Decide one pod's Egress again and record the member changes in `pending`. */
  private rematch(key: string, pending: Map<string, Pending>): void {
    const pod = this.pods.get(key);
    const selecting = pod ? this.egresses.filter((e) => egressSelectsPod(e, pod, this.namespaceLabels)).map((e) => e.name) : [];
    const wasContested = this.contested.get(key);
    if (selecting.length > 1) {
      if (!wasContested || wasContested.join('\0') !== selecting.join('\0')) this.overlapVersion++;
      this.contested.set(key, selecting);
    } else if (wasContested) {
      this.contested.delete(key);
      this.overlapVersion++;
    }
    const owner = pod && pod.nodeName !== '' && pod.ips.length > 0 ? selecting[0] : undefined;
    const before = this.ownerOf.get(key);
    const beforeMember = before !== undefined ? this.groups.get(before)?.get(key) : undefined;
    const member: controlplane.GroupMember | undefined = owner !== undefined && pod ? { pod: { name: pod.name, namespace: pod.namespace }, node: { name: pod.nodeName }, ips: [...pod.ips] } : undefined;
    if (before === owner && (member === undefined || (beforeMember !== undefined && sameMember(beforeMember, member)))) return;
    if (before !== undefined && beforeMember !== undefined) {
      this.groups.get(before)?.delete(key);
      const p = this.pending(pending, before);
      if (p.added.has(key)) p.added.delete(key);
      else p.removed.set(key, beforeMember);
    }
    if (owner !== undefined && member !== undefined) {
      this.groups.get(owner)!.set(key, member);
      this.ownerOf.set(key, owner);
      const p = this.pending(pending, owner);
      const was = p.removed.get(key);
      if (was !== undefined && sameMember(was, member)) p.removed.delete(key);
      else p.added.set(key, member);
    } else this.ownerOf.delete(key);
  }

  private pending(pending: Map<string, Pending>, name: string): Pending {
    let p = pending.get(name);
    if (!p) pending.set(name, (p = { added: new Map(), removed: new Map() }));
    return p;
  }

  private changes(pending: Map<string, Pending>, came: readonly string[], gone: readonly string[]): EgressGroupChange[] {
    const out: EgressGroupChange[] = [];
    const made = new Set(came);
    for (const name of [...made].sort()) out.push({ type: 'ADDED', group: this.group(name)! });
    for (const [name, p] of [...pending].sort(([a], [b]) => a.localeCompare(b))) {
      if (made.has(name) || !this.groups.has(name)) continue;
      if (p.added.size === 0 && p.removed.size === 0) continue;
      out.push({ type: 'MODIFIED', patch: { name, addedGroupMembers: [...p.added.values()], removedGroupMembers: [...p.removed.values()] } });
    }
    for (const name of [...gone].sort()) out.push({ type: 'DELETED', name });
    return out;
  }
}

/** The EgressOverlap Warning of a younger Egress: the pods it leaves to each older Egress (at most three named per Egress). */
export function overlapNote(list: readonly { keeper: string; pods: readonly string[] }[]): EventNote {
  const parts = [...list]
    .sort((a, b) => a.keeper.localeCompare(b.keeper))
    .map(({ keeper, pods }) => {
      const sorted = [...pods].sort();
      const shown = sorted.slice(0, 3).join(', ') + (sorted.length > 3 ? ` and ${sorted.length - 3} more` : '');
      return `selects pod${sorted.length > 1 ? 's' : ''} ${shown}, which the older Egress ${keeper} applies to`;
    });
  return { type: 'Warning', reason: 'EgressOverlap', message: `spec.appliedTo: ${parts.join('; ')}: that traffic leaves from the older Egress's IP` };
}
