// The order of a bulk load: every input object with its kind and key, in dependency order (what
// policies reference comes before them), so each policy and group is compiled once.
import { loadItems, type LoadInput, type LoadOptions } from './load-input';
import { kindOf, objectKey, POLICY_KINDS } from './object-kinds';
import type { ClusterObject, ObjectKind, RejectedObject } from './types';

/** One object of a bulk load. */
export interface LoadEntry {
  kind: ObjectKind;
  key: string;
  obj: ClusterObject;
}

/** Dependency rank: tiers, then ClusterGroups/Groups, Namespaces and Nodes, other objects, policies. */
function loadRank(kind: ObjectKind): number {
  if (kind === 'Tier') return 0;
  if (kind === 'ClusterGroup' || kind === 'Group') return 1;
  if (kind === 'Namespace' || kind === 'Node') return 2;
  return POLICY_KINDS.has(kind) ? 4 : 3;
}

/**
 * The input's objects bucketed by dependency rank (a stable counting sort: input order is kept
 * within a rank). An object whose kind cannot be known goes to `refuse` with where it was.
 * @throws PolicyCompilerError UNKNOWN_KIND, MISSING_NAME, INVALID_EVENT (see {@link loadItems}).
 */
export function* loadOrder(input: LoadInput, options: LoadOptions, refuse: (rejected: RejectedObject, where: string) => void): Generator<LoadEntry> {
  // Each bucket is a flat list (kind, key, object, kind, ...): no record per object lives through
  // the whole load (200k of them were promoted to the old generation, copied on the way).
  const buckets: (ObjectKind | string | ClusterObject)[][] = [[], [], [], [], []];
  for (const { obj, where, error } of loadItems(input, options)) {
    if (error) {
      refuse({ kind: '', namespace: obj.metadata?.namespace ?? '', name: obj.metadata?.name ?? '', errors: [error] }, where);
      continue;
    }
    const kind = kindOf(obj, where);
    (buckets[loadRank(kind)] as (ObjectKind | string | ClusterObject)[]).push(kind, objectKey(kind, obj, where), obj);
  }
  for (const bucket of buckets) {
    for (let i = 0; i < bucket.length; i += 3) yield { kind: bucket[i] as ObjectKind, key: bucket[i + 1] as string, obj: bucket[i + 2] as ClusterObject };
  }
}
