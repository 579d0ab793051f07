// The order of a bulk load: every input object with its kind and key, in dependency order (what
// policies reference comes before them), so each policy and group is compiled once.
import { visitLoadItems, whereOf, type LoadInput, type LoadOptions } from './load-input';
import { kindOf, objectKey, POLICY_KINDS } from './object-kinds';
import type { ClusterObject, ObjectKind, RejectedObject } from './types';

/**
 * The objects of a bulk load by dependency rank, each rank a flat list (kind, key, object, kind,
 * ...): no record per object lives through the whole load (200k of them were promoted to the old
 * generation, copied on the way), and the caller walks them with an index, not an iterator.
 */
export type LoadBuckets = readonly (readonly (ObjectKind | string | ClusterObject)[])[];

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
 * @throws PolicyCompilerError UNKNOWN_KIND, MISSING_NAME, INVALID_EVENT (see {@link visitLoadItems}).
 */
export function loadOrder(input: LoadInput, options: LoadOptions, refuse: (rejected: RejectedObject, where: string) => void): LoadBuckets {
  const buckets: (ObjectKind | string | ClusterObject)[][] = [[], [], [], [], []];
  visitLoadItems(input, options, (obj, prefix, index, error) => {
    if (error) {
      refuse({ kind: '', namespace: obj.metadata?.namespace ?? '', name: obj.metadata?.name ?? '', errors: [error] }, whereOf(prefix, index));
      return;
    }
    let kind: ObjectKind;
    let key: string;
    try {
      kind = kindOf(obj);
      key = objectKey(kind, obj);
    } catch {
      // The errors name the object's place in the input: built only now, then thrown again with it.
      const where = whereOf(prefix, index);
      kind = kindOf(obj, where);
      key = objectKey(kind, obj, where);
    }
    (buckets[loadRank(kind)] as (ObjectKind | string | ClusterObject)[]).push(kind, key, obj);
  });
  return buckets;
}
