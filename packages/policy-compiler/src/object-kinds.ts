// What the engine knows per input kind: how a kind is recognized, how objects are keyed, which
// validator and compiler apply, and the dependency key policies record when they read the object.
import type { AdminNetworkPolicy, AntreaNetworkPolicy, BaselineAdminNetworkPolicy, ClusterGroup, ClusterNetworkPolicy, Group, K8sNetworkPolicy, Tier } from '@switchyard/apis/types';
import { compileAdminPolicy, compileAntreaPolicy, compileK8sNetworkPolicy, type CompileContext, type CompiledPolicy } from './compile';
import { PolicyCompilerError, type PolicyValidationError } from './errors';
import { describeObject } from './load-input';
import type { ClusterObject, ObjectKind } from './types';
import { validateAdminPolicy, validateAntreaPolicy, validateGroup, validateK8sNetworkPolicy, validateTier, type ValidationContext } from './validate';

export const POLICY_KINDS: ReadonlySet<ObjectKind> = new Set(['K8sNetworkPolicy', 'ClusterNetworkPolicy', 'AntreaNetworkPolicy', 'AdminNetworkPolicy', 'BaselineAdminNetworkPolicy']);

const CLUSTER_SCOPED: ReadonlySet<ObjectKind> = new Set(['Namespace', 'Node', 'ExternalNode', 'Tier', 'ClusterGroup', 'ClusterNetworkPolicy', 'AdminNetworkPolicy', 'BaselineAdminNetworkPolicy', 'LabelIdentity']);

const KNOWN_KINDS: readonly string[] = ['Namespace', 'Pod', 'Node', 'Service', 'Endpoints', 'EndpointSlice', 'ServiceAccount', 'ExternalEntity', 'ExternalNode', 'Tier', 'ClusterGroup', 'Group', 'ClusterNetworkPolicy', 'AdminNetworkPolicy', 'BaselineAdminNetworkPolicy', 'LabelIdentity'];

/**
 * Engine kind of an input object (the two `NetworkPolicy` kinds are told apart by apiVersion; no
 * apiVersion means the Kubernetes one). `where` names the object's place in errors.
 * @throws PolicyCompilerError UNKNOWN_KIND naming the object, its kind and apiVersion.
 */
export function kindOf(obj: ClusterObject, where = 'object'): ObjectKind {
  const kind = obj.kind as string | undefined;
  const api = (obj.apiVersion as string | undefined) ?? '';
  if (kind === 'NetworkPolicy') return api.startsWith('crd.antrea.io') ? 'AntreaNetworkPolicy' : 'K8sNetworkPolicy';
  if (kind && KNOWN_KINDS.includes(kind)) return kind as ObjectKind;
  const what = kind === undefined || kind === '' ? 'no kind' : `unsupported kind ${kind}${api ? ` (${api})` : ''}`;
  throw new PolicyCompilerError('UNKNOWN_KIND', `${where}.kind`, kind, `${describeObject(obj)} has ${what}`);
}

/** The engine's key of an object: `Kind/name` or `Kind/namespace/name`. */
export function objectKey(kind: ObjectKind, obj: ClusterObject, where?: string): string {
  const name = obj.metadata?.name;
  if (!name) {
    throw new PolicyCompilerError('MISSING_NAME', where ? `${where}.metadata.name` : 'metadata.name', name, `${kind} without metadata.name`);
  }
  // join: one flat string (the engine keeps every key), not a tree of concatenations.
  return CLUSTER_SCOPED.has(kind) ? [kind, name].join('/') : [kind, obj.metadata.namespace ?? 'default', name].join('/');
}

/** Namespace of an object as a {@link RejectedObject} names it ('' for cluster-scoped kinds). */
export function namespaceOf(kind: ObjectKind, obj: ClusterObject): string {
  return CLUSTER_SCOPED.has(kind) ? '' : (obj.metadata.namespace ?? 'default');
}

/**
 * The dependency key a compiled policy records when it reads an object of this kind (see
 * {@link CompiledPolicy.deps}); undefined for kinds policies do not read by name.
 */
export function dependencyKey(kind: ObjectKind, obj: ClusterObject): string | undefined {
  switch (kind) {
    case 'Service':
      return `svc:${obj.metadata.namespace ?? 'default'}/${obj.metadata.name}`;
    case 'Tier':
      return `tier:${obj.metadata.name}`;
    case 'ClusterGroup':
      return `cg:${obj.metadata.name}`;
    case 'Group':
      return `grp:${obj.metadata.namespace ?? 'default'}/${obj.metadata.name}`;
    case 'LabelIdentity':
      return 'li:*';
    default:
      return undefined;
  }
}

/** Semantic validation of an object of any kind (kinds without rules have no errors). */
export function validateObject(kind: ObjectKind, obj: ClusterObject, ctx: ValidationContext): PolicyValidationError[] {
  switch (kind) {
    case 'K8sNetworkPolicy':
      return validateK8sNetworkPolicy(obj as K8sNetworkPolicy);
    case 'ClusterNetworkPolicy':
      return validateAntreaPolicy((obj as ClusterNetworkPolicy).spec, true, ctx);
    case 'AntreaNetworkPolicy':
      return validateAntreaPolicy((obj as AntreaNetworkPolicy).spec, false, ctx);
    case 'AdminNetworkPolicy':
      return validateAdminPolicy(obj as AdminNetworkPolicy, false);
    case 'BaselineAdminNetworkPolicy':
      return validateAdminPolicy(obj as BaselineAdminNetworkPolicy, true);
    case 'Tier':
      return validateTier(obj as Tier, ctx);
    case 'ClusterGroup':
      return validateGroup((obj as ClusterGroup).spec, undefined, obj.metadata.name ?? '', ctx);
    case 'Group':
      return validateGroup((obj as Group).spec, obj.metadata.namespace ?? 'default', obj.metadata.name ?? '', ctx);
    default:
      return [];
  }
}

/** Compiles a policy of any of the {@link POLICY_KINDS}. */
export function compileObject(kind: ObjectKind, obj: ClusterObject, ctx: CompileContext): CompiledPolicy {
  switch (kind) {
    case 'K8sNetworkPolicy':
      return compileK8sNetworkPolicy(obj as K8sNetworkPolicy, ctx);
    case 'ClusterNetworkPolicy':
      return compileAntreaPolicy(obj as ClusterNetworkPolicy, undefined, ctx);
    case 'AntreaNetworkPolicy':
      return compileAntreaPolicy(obj as AntreaNetworkPolicy, obj.metadata.namespace ?? 'default', ctx);
    case 'AdminNetworkPolicy':
      return compileAdminPolicy(obj as AdminNetworkPolicy, false, ctx);
    default:
      return compileAdminPolicy(obj as BaselineAdminNetworkPolicy, true, ctx);
  }
}
