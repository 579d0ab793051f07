// Label identities for stretched NetworkPolicy: each member exports the distinct
// (Namespace labels, Pod labels) combinations of its Pods; the leader gives each distinct label
// an ID in 1..16777214, kept in its ResourceImports so the IDs survive a leader restart; members
// import them as LabelIdentity objects. Pure except for hashing.
import { createHash } from 'node:crypto';
import { normalizedLabel, type LabelIdentity, type ResourceExport, type ResourceImport } from '@switchyard/apis/types';
import { LABEL_IDENTITY_KIND, LABEL_SOURCE_CLUSTER, LABEL_SOURCE_KIND } from './resources';

/** Smallest and largest label identity (24 bits; 0 and 2^24-1 are reserved, as in Antrea). */
export const MIN_LABEL_ID = 1;
export const MAX_LABEL_ID = 16_777_214;

/** `ns:<namespace labels>&pod:<pod labels>`, keys sorted; defined with the API types (the agent uses it too). */
export { normalizedLabel };

/** A stable object name for a normalized label. */
export const labelHash = (label: string): string => createHash('sha1').update(label).digest('hex');

/** A member's LabelIdentity ResourceExports, one per distinct label of its Pods. */
export function labelIdentityExports(input: { clusterID: string; leaderNamespace: string; pods: readonly { metadata: { namespace?: string; labels?: Record<string, string> } }[]; namespaceLabels: (ns: string) => Record<string, string> | undefined }): ResourceExport[] {
  const labels = new Set<string>();
  for (const p of input.pods) labels.add(normalizedLabel(input.namespaceLabels(p.metadata.namespace ?? ''), p.metadata.labels));
  return [...labels].sort().map((label) => ({
    metadata: { name: `${input.clusterID}-${labelHash(label)}`, namespace: input.leaderNamespace, labels: { [LABEL_SOURCE_CLUSTER]: input.clusterID, [LABEL_SOURCE_KIND]: LABEL_IDENTITY_KIND } },
    spec: { clusterID: input.clusterID, kind: LABEL_IDENTITY_KIND, labelIdentity: { normalizedLabel: label } },
  }));
}

/** Output of {@link allocateLabelIdentities}. */
export interface LabelAllocation {
  ids: Map<string, number>;
  /** Labels left without an ID because all IDs are taken. */
  exhausted: string[];
}

/**
 * IDs for `labels`: a label that had one in `existing` keeps it; new labels (sorted) take the
 * lowest free ID. Labels no longer present give their IDs back.
 */
export function allocateLabelIdentities(labels: Iterable<string>, existing: ReadonlyMap<string, number>, max = MAX_LABEL_ID): LabelAllocation {
  const ids = new Map<string, number>();
  const used = new Set<number>();
  const fresh: string[] = [];
  for (const l of new Set(labels)) {
    const id = existing.get(l);
    if (id !== undefined && id >= MIN_LABEL_ID && id <= max && !used.has(id)) {
      ids.set(l, id);
      used.add(id);
    } else fresh.push(l);
  }
  let next = MIN_LABEL_ID;
  const exhausted: string[] = [];
  for (const l of fresh.sort()) {
    while (used.has(next)) next++;
    if (next > max) {
      exhausted.push(l);
      continue;
    }
    ids.set(l, next);
    used.add(next);
  }
  return { ids, exhausted };
}

/** normalized label -> ID, as recorded in LabelIdentity ResourceImports. */
export function labelIdsOf(imports: readonly ResourceImport[]): Map<string, number> {
  const given = new Map<string, number>();
  for (const ri of imports) {
    const li = ri.spec.labelIdentity;
    if (ri.spec.kind === LABEL_IDENTITY_KIND && li?.normalizedLabel && li.id !== undefined) given.set(li.normalizedLabel, li.id);
  }
  return given;
}

/** The leader's LabelIdentity ResourceImports from the members' exports and the IDs already given (see {@link labelIdsOf}). */
export function labelIdentityImports(exports: readonly ResourceExport[], given: ReadonlyMap<string, number>, leaderNamespace: string, max = MAX_LABEL_ID): { resourceImports: ResourceImport[]; exhausted: string[] } {
  const labels = exports.filter((re) => re.spec.kind === LABEL_IDENTITY_KIND && re.spec.labelIdentity?.normalizedLabel).map((re) => re.spec.labelIdentity!.normalizedLabel!);
  const { ids, exhausted } = allocateLabelIdentities(labels, given, max);
  const resourceImports: ResourceImport[] = [...ids]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([label, id]) => ({ metadata: { name: labelHash(label), namespace: leaderNamespace }, spec: { kind: LABEL_IDENTITY_KIND, labelIdentity: { normalizedLabel: label, id } } }));
  return { resourceImports, exhausted };
}

/** A member's LabelIdentity objects from the leader's imports. */
export function labelIdentityObjects(imports: readonly ResourceImport[]): LabelIdentity[] {
  return imports
    .filter((ri) => ri.spec.kind === LABEL_IDENTITY_KIND && ri.spec.labelIdentity?.normalizedLabel && ri.spec.labelIdentity.id !== undefined)
    .map((ri) => ({ apiVersion: 'multicluster.crd.antrea.io/v1alpha1', kind: 'LabelIdentity', metadata: { name: ri.metadata.name ?? '' }, spec: { label: ri.spec.labelIdentity!.normalizedLabel!, id: ri.spec.labelIdentity!.id! } }));
}
