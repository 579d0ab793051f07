/** Recognizing parsed manifests as typed objects of the kinds this package knows. */
import type { KnownObject } from './kinds';
import { ManifestError } from './errors';
import { findCrd, parseApiVersion } from './crd-loader';

/** Built-in kinds (no CRD) by group; '' is the core group. */
const BUILTIN_KINDS: Readonly<Record<string, readonly string[]>> = {
  '': ['Namespace', 'Pod', 'Node', 'Service', 'Endpoints', 'ServiceAccount', 'Secret', 'Event', 'ConfigMap'],
  'discovery.k8s.io': ['EndpointSlice'],
  'networking.k8s.io': ['NetworkPolicy'],
  'rbac.authorization.k8s.io': ['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding'],
};

/** Whether `obj` has the apiVersion/kind of a kind typed by this package (any served version). */
export function isKnownObject(obj: unknown): obj is KnownObject {
  if (obj === null || typeof obj !== 'object') return false;
  const { apiVersion, kind } = obj as { apiVersion?: unknown; kind?: unknown };
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return false;
  const { group, version } = parseApiVersion(apiVersion);
  if (BUILTIN_KINDS[group]?.includes(kind)) return true;
  return findCrd(group, kind)?.spec.versions.some((v) => v.name === version && v.served) ?? false;
}

/**
 * Narrow a parsed manifest (from YAML or JSON) to {@link KnownObject}. Checks only
 * apiVersion/kind; use validateObject for a schema check of custom kinds.
 * Throws ManifestError (UNKNOWN_KIND / UNSERVED_VERSION / NOT_AN_OBJECT).
 */
export function asKnownObject(obj: unknown): KnownObject {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
    throw new ManifestError('NOT_AN_OBJECT', 'manifest must be an object', '', obj);
  }
  if (isKnownObject(obj)) return obj;
  const { apiVersion, kind } = obj as { apiVersion?: unknown; kind?: unknown };
  const { group } = parseApiVersion(typeof apiVersion === 'string' ? apiVersion : '');
  if (typeof kind === 'string' && findCrd(group, kind)) {
    throw new ManifestError('UNSERVED_VERSION', `${String(apiVersion)} is not a served version of ${kind}`, 'apiVersion', apiVersion);
  }
  throw new ManifestError('UNKNOWN_KIND', `unknown kind ${String(kind)} in ${String(apiVersion)}`, 'kind', kind);
}
