// The resource registry: built-in kinds plus those registered by CustomResourceDefinitions.

import { compileSchema, type SchemaValidator } from './schema';
import type { KubeObject } from './types';
import { isRecord } from './types';

export const allVerbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/** One served resource (group + plural), with every version it is served at. */
export interface ResourceType {
  group: string;
  /** Served versions, preferred (storage) first. */
  versions: string[];
  resource: string;
  singular: string;
  kind: string;
  listKind: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  verbs: string[];
  /** Has a status subresource: the main endpoint ignores status, /status ignores the rest. */
  hasStatus: boolean;
  /** Extra subresources beyond status (proxy, token, finalize). */
  subresources: string[];
  builtin: boolean;
  /** Strategic merge patch is only offered for built-in kinds, as in kube-apiserver. */
  strategicMerge: boolean;
  /** Per-version structural schema (CRDs only). */
  schemas: Map<string, SchemaValidator>;
  /** Per-version additionalPrinterColumns (CRDs only). */
  printerColumns: Map<string, PrinterColumn[]>;
}

export interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  description?: string;
  format?: string;
  priority?: number;
}

interface BuiltinSpec {
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced: boolean;
  shortNames?: string[];
  status?: boolean;
  verbs?: string[];
  subresources?: string[];
  categories?: string[];
}

const createOnly = ['create'];
const builtins: BuiltinSpec[] = [
  { group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false, shortNames: ['ns'], status: true, subresources: ['finalize'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] },
  { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true, shortNames: ['po'], status: true, categories: ['all'], subresources: ['proxy', 'exec'] },
  { group: '', version: 'v1', resource: 'nodes', kind: 'Node', namespaced: false, shortNames: ['no'], status: true, subresources: ['proxy'] },
  { group: '', version: 'v1', resource: 'services', kind: 'Service', namespaced: true, shortNames: ['svc'], status: true, categories: ['all'], subresources: ['proxy'] },
  { group: '', version: 'v1', resource: 'endpoints', kind: 'Endpoints', namespaced: true, shortNames: ['ep'] },
  { group: '', version: 'v1', resource: 'serviceaccounts', kind: 'ServiceAccount', namespaced: true, shortNames: ['sa'], subresources: ['token'] },
  { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true },
  { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true, shortNames: ['cm'] },
  { group: '', version: 'v1', resource: 'events', kind: 'Event', namespaced: true, shortNames: ['ev'] },
  { group: 'events.k8s.io', version: 'v1', resource: 'events', kind: 'Event', namespaced: true, shortNames: ['ev'] },
  { group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices', kind: 'EndpointSlice', namespaced: true },
  { group: 'networking.k8s.io', version: 'v1', resource: 'networkpolicies', kind: 'NetworkPolicy', namespaced: true, shortNames: ['netpol'] },
  { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', kind: 'CustomResourceDefinition', namespaced: false, shortNames: ['crd', 'crds'], status: true, categories: ['api-extensions'] },
  { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'roles', kind: 'Role', namespaced: true },
  { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles', kind: 'ClusterRole', namespaced: false },
  { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'rolebindings', kind: 'RoleBinding', namespaced: true },
  { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterrolebindings', kind: 'ClusterRoleBinding', namespaced: false },
  { group: 'authentication.k8s.io', version: 'v1', resource: 'tokenreviews', kind: 'TokenReview', namespaced: false, verbs: createOnly },
  { group: 'authentication.k8s.io', version: 'v1', resource: 'selfsubjectreviews', kind: 'SelfSubjectReview', namespaced: false, verbs: createOnly },
  { group: 'authorization.k8s.io', version: 'v1', resource: 'subjectaccessreviews', kind: 'SubjectAccessReview', namespaced: false, verbs: createOnly },
  { group: 'authorization.k8s.io', version: 'v1', resource: 'selfsubjectaccessreviews', kind: 'SelfSubjectAccessReview', namespaced: false, verbs: createOnly },
  { group: 'authorization.k8s.io', version: 'v1', resource: 'selfsubjectrulesreviews', kind: 'SelfSubjectRulesReview', namespaced: false, verbs: createOnly },
  { group: 'authorization.k8s.io', version: 'v1', resource: 'localsubjectaccessreviews', kind: 'LocalSubjectAccessReview', namespaced: true, verbs: createOnly },
  { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', kind: 'Lease', namespaced: true },
  { group: 'certificates.k8s.io', version: 'v1', resource: 'certificatesigningrequests', kind: 'CertificateSigningRequest', namespaced: false, shortNames: ['csr'], status: true, subresources: ['approval'] },
  { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true, shortNames: ['deploy'], status: true, categories: ['all'] },
  { group: 'apps', version: 'v1', resource: 'statefulsets', kind: 'StatefulSet', namespaced: true, shortNames: ['sts'], status: true, categories: ['all'] },
  { group: 'apps', version: 'v1', resource: 'daemonsets', kind: 'DaemonSet', namespaced: true, shortNames: ['ds'], status: true, categories: ['all'] },
  { group: 'apps', version: 'v1', resource: 'replicasets', kind: 'ReplicaSet', namespaced: true, shortNames: ['rs'], status: true, categories: ['all'] },
  { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingwebhookconfigurations', kind: 'ValidatingWebhookConfiguration', namespaced: false, categories: ['api-extensions'] },
  { group: 'apiregistration.k8s.io', version: 'v1', resource: 'apiservices', kind: 'APIService', namespaced: false, status: true },
];

/** Group + resource key used for storage and lookups. */
export function grKey(group: string, resource: string): string {
  return `${group}/${resource}`;
}

/** Split `group/version` (or `v1`) into its parts. */
export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.lastIndexOf('/');
  return i < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

export function apiVersionOf(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

/** Thrown when a CRD cannot be registered because another definition owns its names. */
export class RegistryError extends Error {
  readonly code = 'RegistryConflict';
  constructor(
    message: string,
    readonly field: string,
    readonly value: string,
  ) {
    super(message);
    this.name = 'RegistryError';
  }
}

export class ResourceRegistry {
  private readonly byGR = new Map<string, ResourceType>();

  constructor() {
    for (const b of builtins) {
      this.add({
        group: b.group,
        versions: [b.version],
        resource: b.resource,
        singular: b.kind.toLowerCase(),
        kind: b.kind,
        listKind: `${b.kind}List`,
        namespaced: b.namespaced,
        shortNames: b.shortNames ?? [],
        categories: b.categories ?? [],
        verbs: b.verbs ?? allVerbs,
        hasStatus: b.status ?? false,
        subresources: b.subresources ?? [],
        builtin: true,
        strategicMerge: true,
        schemas: new Map(),
        printerColumns: new Map(),
      });
    }
  }

  private add(t: ResourceType): void {
    this.byGR.set(grKey(t.group, t.resource), t);
  }

  get(group: string, resource: string): ResourceType | undefined {
    return this.byGR.get(grKey(group, resource));
  }

  /** The type served at group/version/resource, or undefined. */
  lookup(group: string, version: string, resource: string): ResourceType | undefined {
    const t = this.get(group, resource);
    return t && t.versions.includes(version) ? t : undefined;
  }

  byKind(group: string, kind: string): ResourceType | undefined {
    for (const t of this.byGR.values()) if (t.group === group && t.kind === kind) return t;
    return undefined;
  }

  all(): ResourceType[] {
    return [...this.byGR.values()];
  }

  /** Groups with their served versions, preferred version first; core group first. */
  groups(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const t of this.byGR.values()) {
      const vs = out.get(t.group) ?? [];
      for (const v of t.versions) if (!vs.includes(v)) vs.push(v);
      out.set(t.group, vs);
    }
    for (const [g, vs] of out) out.set(g, sortVersions(vs));
    return out;
  }

  /**
   * Register (or re-register) the resource a CRD defines. Returns the registered type, or
   * throws RegistryError when its names collide with a built-in kind.
   */
  registerCrd(crd: KubeObject): ResourceType {
    const spec = (crd.spec ?? {}) as CrdSpec;
    const existing = this.get(spec.group, spec.names.plural);
    if (existing?.builtin) {
      throw new RegistryError(`resource ${spec.names.plural}.${spec.group} is built in`, 'spec.names.plural', spec.names.plural);
    }
    const served = spec.versions.filter((v) => v.served);
    const storage = served.find((v) => v.storage) ?? served[0];
    const ordered = storage ? [storage, ...served.filter((v) => v !== storage)] : served;
    const schemas = new Map<string, SchemaValidator>();
    const printerColumns = new Map<string, PrinterColumn[]>();
    let hasStatus = false;
    for (const v of spec.versions) {
      const schema = v.schema?.openAPIV3Schema;
      if (schema) schemas.set(v.name, compileSchema(schema));
      if (v.subresources && isRecord(v.subresources) && 'status' in v.subresources && v.served) hasStatus = true;
      if (v.additionalPrinterColumns) printerColumns.set(v.name, v.additionalPrinterColumns);
    }
    const t: ResourceType = {
      group: spec.group,
      versions: ordered.map((v) => v.name),
      resource: spec.names.plural,
      singular: spec.names.singular ?? spec.names.kind.toLowerCase(),
      kind: spec.names.kind,
      listKind: spec.names.listKind ?? `${spec.names.kind}List`,
      namespaced: spec.scope !== 'Cluster',
      shortNames: spec.names.shortNames ?? [],
      categories: spec.names.categories ?? [],
      verbs: allVerbs,
      hasStatus,
      subresources: [],
      builtin: false,
      strategicMerge: false,
      schemas,
      printerColumns,
    };
    this.add(t);
    return t;
  }

  unregister(group: string, resource: string): void {
    const t = this.get(group, resource);
    if (t && !t.builtin) this.byGR.delete(grKey(group, resource));
  }
}

export interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  schema?: { openAPIV3Schema?: Record<string, unknown> };
  subresources?: Record<string, unknown>;
  additionalPrinterColumns?: PrinterColumn[];
}

export interface CrdSpec {
  group: string;
  scope: 'Namespaced' | 'Cluster';
  names: { plural: string; singular?: string; kind: string; listKind?: string; shortNames?: string[]; categories?: string[] };
  versions: CrdVersion[];
}

/** Kubernetes version priority: GA > beta > alpha, higher numbers first. */
export function sortVersions(vs: string[]): string[] {
  const rank = (v: string): [number, number, number] => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return [3, 0, 0];
    const stage = m[2] === undefined ? 0 : m[2] === 'beta' ? 1 : 2;
    return [stage, -Number(m[1]), -Number(m[3] ?? 0)];
  };
  return [...vs].sort((a, b) => {
    const ra = rank(a);
    const rb = rank(b);
    return ra[0] - rb[0] || ra[1] - rb[1] || ra[2] - rb[2] || a.localeCompare(b);
  });
}
