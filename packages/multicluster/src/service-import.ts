// Pure: what a member creates locally from the leader's Service ResourceImports: Service and
// Endpoints `antrea-mc-<name>` (annotated as imported) and a ServiceImport `<name>`. A local
// Service of that name that was not imported is never overwritten.
import type { Endpoints, ResourceImport, Service, ServiceImport, ServicePort } from '@switchyard/apis';
import { IMPORTED_ANNOTATION, IMPORTED_PREFIX } from './resources';

/** Input of {@link serviceImportPlan}. */
export interface ImportInput {
  resourceImports: readonly ResourceImport[];
  /** Local Services by `ns/name`. */
  service: (namespace: string, name: string) => Service | undefined;
  /** Namespaces that exist locally (imports into others wait for the namespace). */
  namespaceExists: (namespace: string) => boolean;
  /**
   * The IP families this cluster's Services can have (from its service ranges); absent while
   * unknown: every import is made. An import of families this cluster has none of is skipped
   * (an IPv6-only member and a dual-stack member's IPv4-only export): the API server would refuse
   * its Service, and no address of it could be reached from here.
   */
  clusterFamilies?: readonly IPFamily[];
}

type IPFamily = 'IPv4' | 'IPv6';

/** The families an import carries: its ServiceImport's `ipFamilies`, else those of its endpoint addresses. */
function importedFamilies(named: readonly IPFamily[], eps: ResourceImport | undefined): IPFamily[] {
  if (named.length > 0) return [...named];
  const out: IPFamily[] = [];
  for (const s of eps?.spec.endpoints?.subsets ?? []) {
    for (const a of s.addresses ?? []) {
      const f: IPFamily = a.ip.includes(':') ? 'IPv6' : 'IPv4';
      if (!out.includes(f)) out.push(f);
    }
  }
  return out;
}

/** Output of {@link serviceImportPlan}. */
export interface ImportPlan {
  services: Service[];
  endpoints: Endpoints[];
  serviceImports: ServiceImport[];
  /** Imports not made, with why (a local Service in the way, a missing namespace). */
  skipped: { namespace: string; name: string; reason: string }[];
}

const imported = { [IMPORTED_ANNOTATION]: 'true' };

/** Whether a local object was made by an import. */
export const isImported = (o: { metadata: { annotations?: Record<string, string> } }): boolean => o.metadata.annotations?.[IMPORTED_ANNOTATION] === 'true';

export function serviceImportPlan(input: ImportInput): ImportPlan {
  const plan: ImportPlan = { services: [], endpoints: [], serviceImports: [], skipped: [] };
  const byService = new Map<string, { svc?: ResourceImport; eps?: ResourceImport }>();
  for (const ri of input.resourceImports) {
    const k = `${ri.spec.namespace ?? ''}/${ri.spec.name ?? ''}`;
    const e = byService.get(k) ?? {};
    if (ri.spec.kind === 'ServiceImport') e.svc = ri;
    else if (ri.spec.kind === 'Endpoints') e.eps = ri;
    else continue;
    byService.set(k, e);
  }
  for (const { svc, eps } of byService.values()) {
    if (!svc) continue;
    const ns = svc.spec.namespace ?? '';
    const name = svc.spec.name ?? '';
    const local = `${IMPORTED_PREFIX}${name}`;
    if (!ns || !name) continue;
    if (!input.namespaceExists(ns)) {
      plan.skipped.push({ namespace: ns, name, reason: `namespace ${ns} does not exist in this cluster` });
      continue;
    }
    const existing = input.service(ns, local);
    if (existing && !isImported(existing)) {
      plan.skipped.push({ namespace: ns, name, reason: `a local Service ${ns}/${local} that was not imported exists; it is left alone` });
      continue;
    }
    const ports: ServicePort[] = svc.spec.serviceImport?.spec.ports ?? [];
    const clusters = svc.spec.clusters ?? [];
    // The exported families. A dual-stack export: PreferDualStack without naming the families, so
    // the server gives both in its own order on a dual-stack cluster and its one family on a
    // single-stack cluster (kube-apiserver refuses a named family it is not configured for).
    const ipFamilies = svc.spec.serviceImport?.spec.ipFamilies ?? [];
    const carried = importedFamilies(ipFamilies, eps);
    const have = input.clusterFamilies;
    if (have && have.length > 0 && carried.length > 0 && !carried.some((f) => have.includes(f))) {
      plan.skipped.push({ namespace: ns, name, reason: `exported with ${carried.join(' and ')} addresses only, and this cluster has ${have.join(' and ')} Services alone` });
      continue;
    }
    const families = ipFamilies.length === 0 ? {} : ipFamilies.length > 1 ? { ipFamilyPolicy: 'PreferDualStack' as const } : { ipFamilies: [...ipFamilies], ipFamilyPolicy: 'SingleStack' as const };
    plan.services.push({
      metadata: { name: local, namespace: ns, annotations: imported },
      spec: { type: 'ClusterIP', ports: ports.map((p) => ({ ...(p.name ? { name: p.name } : {}), port: p.port, protocol: p.protocol ?? 'TCP', targetPort: p.port })), ...families },
    });
    plan.endpoints.push({
      metadata: { name: local, namespace: ns, annotations: imported },
      subsets: (eps?.spec.endpoints?.subsets ?? []).map((s) => ({ addresses: s.addresses ?? [], ports: s.ports ?? [] })),
    });
    const clusterIP = existing?.spec?.clusterIP;
    const clusterIPs = existing?.spec?.clusterIPs && existing.spec.clusterIPs.length > 0 ? existing.spec.clusterIPs : clusterIP ? [clusterIP] : [];
    const existingFamilies = existing?.spec?.ipFamilies;
    plan.serviceImports.push({
      apiVersion: 'multicluster.x-k8s.io/v1alpha1',
      kind: 'ServiceImport',
      metadata: { name, namespace: ns, annotations: imported },
      spec: { ports: ports.map((p) => ({ ...(p.name ? { name: p.name } : {}), port: p.port, protocol: p.protocol ?? 'TCP' })), type: 'ClusterSetIP',
        ...(clusterIP && clusterIP !== 'None' ? { ips: [...clusterIPs] } : {}),
        ...(clusterIP && clusterIP !== 'None' && existingFamilies && existingFamilies.length === clusterIPs.length ? { ipFamilies: [...existingFamilies] as ('IPv4' | 'IPv6')[] } : {}),
      },
      status: { clusters: clusters.map((c) => ({ cluster: c })) },
    });
  }
  return plan;
}
