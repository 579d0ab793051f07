// Pure ClusterSet rules: what makes a ClusterSet acceptable, which cluster IDs clash, and the
// status a leader or member writes. No I/O.
import type { ClusterSet, ClusterStatus, Condition } from '@switchyard/apis';

/** One reason a ClusterSet is refused, naming the field and its value. */
export interface ClusterSetProblem {
  field: string;
  value: unknown;
  message: string;
}

/** Options of {@link validateClusterSet}. */
export interface ClusterSetCheck {
  role: 'leader' | 'member';
  /** The ClusterSet ID this controller was configured with; the ClusterSet's name must equal it. */
  clusterSetID?: string;
}

/** Whether `a` is `b` followed by a dash and more (or the other way round): `east` and `east-1`. */
export function isDashPrefix(a: string, b: string): boolean {
  return a !== b && (b.startsWith(`${a}-`) || a.startsWith(`${b}-`));
}

/**
 * Pairs of cluster IDs where one is a dash-prefix of the other. They are refused because export
 * names (`<cluster>-<ns>-<name>-service`) could then not tell the clusters apart.
 */
export function dashPrefixConflicts(ids: readonly string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i < ids.length; i++) for (let j = i + 1; j < ids.length; j++) if (isDashPrefix(ids[i]!, ids[j]!)) out.push([ids[i]!, ids[j]!]);
  return out;
}

/** Everything wrong with a ClusterSet for the given role; empty when it is acceptable. */
export function validateClusterSet(cs: ClusterSet, check: ClusterSetCheck): ClusterSetProblem[] {
  const problems: ClusterSetProblem[] = [];
  const name = cs.metadata.name ?? '';
  if (check.clusterSetID !== undefined && name !== check.clusterSetID)
    problems.push({ field: 'metadata.name', value: name, message: `ClusterSet name "${name}" must equal the ClusterSet ID "${check.clusterSetID}"` });
  const clusterID = cs.spec.clusterID;
  if (!clusterID) problems.push({ field: 'spec.clusterID', value: clusterID, message: 'spec.clusterID is required' });
  const leader = cs.spec.leaders[0];
  if (!leader?.clusterID) problems.push({ field: 'spec.leaders[0].clusterID', value: leader?.clusterID, message: 'spec.leaders[0].clusterID is required' });
  if (check.role === 'leader' && clusterID && leader?.clusterID && leader.clusterID !== clusterID)
    problems.push({ field: 'spec.leaders[0].clusterID', value: leader.clusterID, message: `a leader's ClusterSet must list itself as leader: spec.leaders[0].clusterID "${leader.clusterID}" is not spec.clusterID "${clusterID}"` });
  if (check.role === 'member') {
    if (!leader?.server) problems.push({ field: 'spec.leaders[0].server', value: leader?.server, message: 'spec.leaders[0].server (the leader API server URL) is required' });
    else if (!/^https?:\/\/[^/]/.test(leader.server)) problems.push({ field: 'spec.leaders[0].server', value: leader.server, message: `spec.leaders[0].server "${leader.server}" is not an http(s) URL` });
    if (!leader?.secret) problems.push({ field: 'spec.leaders[0].secret', value: leader?.secret, message: 'spec.leaders[0].secret (the token Secret for the leader) is required' });
    if (!cs.spec.namespace) problems.push({ field: 'spec.namespace', value: cs.spec.namespace, message: "spec.namespace (the leader's Multi-cluster Namespace) is required" });
  }
  if (clusterID && leader?.clusterID && isDashPrefix(clusterID, leader.clusterID))
    problems.push({ field: 'spec.clusterID', value: clusterID, message: `cluster ID "${clusterID}" and leader cluster ID "${leader.clusterID}" are a dash-prefix of each other` });
  return problems;
}

/** A condition that keeps its lastTransitionTime while its status does not change. */
export function condition(type: string, status: boolean, reason: string, message: string, now: string, previous?: readonly Condition[]): Condition {
  const st = status ? 'True' : 'False';
  const old = previous?.find((c) => c.type === type);
  const lastTransitionTime = old && old.status === st && old.lastTransitionTime ? old.lastTransitionTime : now;
  return { type, status: st, reason, message, lastTransitionTime };
}

/** What the leader knows about one member. */
export interface MemberState {
  clusterID: string;
  /** Heartbeat seen within the timeout. */
  connected: boolean;
  /** Why the member is refused, if it is. */
  refused?: { reason: string; message: string };
}

/** The status of a ClusterSet that failed validation: not ready, no clusters counted. */
function invalidStatus(cs: ClusterSet, problems: readonly ClusterSetProblem[], now: string): NonNullable<ClusterSet['status']> {
  return {
    totalClusters: 0,
    readyClusters: 0,
    observedGeneration: cs.metadata.generation ?? 0,
    conditions: [condition('Ready', false, 'InvalidClusterSet', problems.map((p) => p.message).join('; '), now, cs.status?.conditions)],
    clusterStatuses: [],
  };
}

/** The leader's ClusterSet status from its members' states. */
export function leaderStatus(cs: ClusterSet, members: readonly MemberState[], problems: readonly ClusterSetProblem[], now: string): NonNullable<ClusterSet['status']> {
  const prev = cs.status;
  const prevOf = (id: string): Condition[] | undefined => prev?.clusterStatuses?.find((s) => s.clusterID === id)?.conditions;
  if (problems.length > 0) return invalidStatus(cs, problems, now);
  const clusterStatuses: ClusterStatus[] = [...members]
    .sort((a, b) => a.clusterID.localeCompare(b.clusterID))
    .map((m) => ({
      clusterID: m.clusterID,
      conditions: [
        m.refused
          ? condition('Ready', false, m.refused.reason, m.refused.message, now, prevOf(m.clusterID))
          : m.connected
            ? condition('Ready', true, 'Connected', 'heartbeats received', now, prevOf(m.clusterID))
            : condition('Ready', false, 'Disconnected', 'no heartbeat from the member within the timeout', now, prevOf(m.clusterID)),
      ],
    }));
  const ready = members.filter((m) => m.connected && !m.refused).length;
  return {
    totalClusters: members.length,
    readyClusters: ready,
    observedGeneration: cs.metadata.generation ?? 0,
    conditions: [condition('Ready', true, 'Leader', `leader of ${members.length} member cluster(s), ${ready} ready`, now, prev?.conditions)],
    clusterStatuses,
  };
}

/** The member's ClusterSet status: the leader connection, or why there is none. */
export function memberStatus(cs: ClusterSet, leader: { connected: boolean; reason: string; message: string }, problems: readonly ClusterSetProblem[], now: string): NonNullable<ClusterSet['status']> {
  const prev = cs.status;
  const leaderID = cs.spec.leaders[0]?.clusterID ?? '';
  if (problems.length > 0) return invalidStatus(cs, problems, now);
  const prevLeader = prev?.clusterStatuses?.find((s) => s.clusterID === leaderID)?.conditions;
  return {
    totalClusters: 1,
    readyClusters: leader.connected ? 1 : 0,
    observedGeneration: cs.metadata.generation ?? 0,
    conditions: [condition('Ready', leader.connected, leader.reason, leader.message, now, prev?.conditions)],
    clusterStatuses: [{ clusterID: leaderID, conditions: [condition('Ready', leader.connected, leader.reason, leader.message, now, prevLeader)] }],
  };
}
