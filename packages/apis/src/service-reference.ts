/** The Service a policy's `toServices` entry names, resolved to a `<namespace>/<name>` key. */

/** Name prefix of a Service imported from other clusters (Multi-cluster Services): `antrea-mc-<name>`. */
export const MULTICLUSTER_SERVICE_PREFIX = 'antrea-mc-';

/**
 * `<namespace>/<name>` of the Service a `toServices` reference means: with `scope: ClusterSet` it is
 * the multi-cluster Service imported into this cluster (`antrea-mc-<name>`), else the Service itself.
 */
export function serviceReferenceKey(ref: { name: string; namespace: string; scope?: 'Cluster' | 'ClusterSet' }): string {
  return `${ref.namespace}/${ref.scope === 'ClusterSet' ? MULTICLUSTER_SERVICE_PREFIX : ''}${ref.name}`;
}
