// Pure: how the leader merges the Service/Endpoints ResourceExports of all members into
// ResourceImports, and which exports lose a port conflict (the first export wins).
import type { Condition, EndpointAddress, EndpointPort, ResourceExport, ResourceImport, ServicePort } from '@switchyard/apis';
import { condition } from './clusterset';
import { importName } from './resources';

/** Output of {@link mergeServiceExports}. */
export interface MergePlan {
  resourceImports: ResourceImport[];
  /** Status per ResourceExport name: Ready True, or False with reason ConvergeFailure. */
  exportStatus: Map<string, { conditions: Condition[] }>;
}

const portKey = (ports: readonly Partial<ServicePort>[]): string =>
  JSON.stringify([...ports].map((p) => [p.name ?? '', p.port ?? 0, p.protocol ?? 'TCP']).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))));

const age = (re: ResourceExport): [string, string] => [String(re.metadata.creationTimestamp ?? ''), re.metadata.name ?? ''];
const older = (a: ResourceExport, b: ResourceExport): number => {
  const [ta, na] = age(a);
  const [tb, nb] = age(b);
  return ta === tb ? na.localeCompare(nb) : ta.localeCompare(tb);
};

const KNOWN_KINDS = ['Service', 'Endpoints', 'AntreaClusterNetworkPolicy', 'LabelIdentity', 'ClusterInfo', 'ExternalEntity'];

/** What is wrong with a (possibly hand-written) ResourceExport, naming the field and value; undefined when nothing. */
export function exportProblem(re: ResourceExport): string | undefined {
  const kind = re.spec.kind;
  if (!kind || !KNOWN_KINDS.includes(kind)) return `spec.kind ${JSON.stringify(kind ?? null)} is not one of ${KNOWN_KINDS.join(', ')}`;
  if (kind !== 'Service' && kind !== 'Endpoints') return undefined;
  for (const f of ['clusterID', 'namespace', 'name'] as const) if (!re.spec[f]) return `spec.${f} is required for kind ${kind}`;
  if (kind === 'Service') {
    const ports = re.spec.service?.serviceSpec?.['ports'];
    if (!Array.isArray(ports)) return `spec.service.serviceSpec.ports must be a list, got ${JSON.stringify(ports ?? null)}`;
    for (const [i, p] of (ports as { port?: unknown }[]).entries())
      if (typeof p?.port !== 'number' || !Number.isInteger(p.port) || p.port < 1 || p.port > 65535) return `spec.service.serviceSpec.ports[${i}].port must be 1..65535, got ${JSON.stringify(p?.port ?? null)}`;
    const families = re.spec.service?.serviceSpec?.['ipFamilies'];
    if (families !== undefined) {
      if (!Array.isArray(families) || families.length > 2) return `spec.service.serviceSpec.ipFamilies must be a list of at most 2 families, got ${JSON.stringify(families)}`;
      for (const [i, f] of families.entries()) if ((f !== 'IPv4' && f !== 'IPv6') || families.indexOf(f) !== i) return `spec.service.serviceSpec.ipFamilies[${i}] must be IPv4 or IPv6, once, got ${JSON.stringify(f)}`;
    }
  }
  return undefined;
}

/**
 * Groups Service/Endpoints exports by the Service they export (namespace/name). The ports the
 * Service is imported with now (`current` ResourceImports, while an export still has them), else the
 * oldest Service export's, define the ports; an export whose ports differ (names, numbers, protocols) is in conflict
 * and contributes nothing until fixed. `accepted(clusterID)` leaves out clusters the leader refused;
 * a malformed export (see {@link exportProblem}) gets `Ready=False, reason InvalidSpec` and is left out.
 */
export function mergeServiceExports(
  exports: readonly ResourceExport[],
  leaderNamespace: string,
  now: string,
  accepted: (clusterID: string) => boolean = () => true,
  current: readonly ResourceImport[] = [],
): MergePlan {
  // The ports each Service is imported with now: exports with those ports keep winning, so a
  // conflict never flips the import (creation times have whole seconds: two exports made within
  // the same second would otherwise be ordered by name).
  const held = new Map<string, string>();
  for (const ri of current)
    if (ri.spec.kind === 'ServiceImport' && ri.spec.serviceImport?.spec.ports) held.set(`${ri.spec.namespace ?? ''}/${ri.spec.name ?? ''}`, portKey(ri.spec.serviceImport.spec.ports as Partial<ServicePort>[]));
  const groups = new Map<string, { ns: string; name: string; services: ResourceExport[]; endpoints: Map<string, ResourceExport> }>();
  const exportStatus = new Map<string, { conditions: Condition[] }>();
  for (const re of exports) {
    const problem = exportProblem(re);
    if (problem) {
      exportStatus.set(re.metadata.name ?? '', { conditions: [condition('Ready', false, 'InvalidSpec', problem, now, re.status?.conditions as Condition[] | undefined)] });
      continue;
    }
    const kind = re.spec.kind;
    if (kind !== 'Service' && kind !== 'Endpoints') continue;
    const ns = re.spec.namespace ?? '';
    const name = re.spec.name ?? '';
    const cluster = re.spec.clusterID ?? '';
    if (!accepted(cluster)) continue;
    const k = `${ns}/${name}`;
    let g = groups.get(k);
    if (!g) groups.set(k, (g = { ns, name, services: [], endpoints: new Map() }));
    if (kind === 'Service') g.services.push(re);
    else g.endpoints.set(cluster, re);
  }
  const resourceImports: ResourceImport[] = [];
  for (const g of [...groups.values()].sort((a, b) => `${a.ns}/${a.name}`.localeCompare(`${b.ns}/${b.name}`))) {
    if (g.services.length === 0) continue;
    const holds = (re: ResourceExport): number => Number(portKey((re.spec.service?.serviceSpec?.['ports'] as ServicePort[] | undefined) ?? []) === held.get(`${g.ns}/${g.name}`));
    g.services.sort((a, b) => holds(b) - holds(a) || older(a, b));
    const first = g.services[0]!;
    const ports = ((first.spec.service?.serviceSpec?.['ports'] as ServicePort[] | undefined) ?? []).map((p) => ({ ...(p.name ? { name: p.name } : {}), port: p.port, protocol: p.protocol ?? 'TCP' }));
    const want = portKey(ports);
    const clusters: string[] = [];
    for (const re of g.services) {
      const prev = (re.status?.conditions ?? []) as Condition[];
      const mine = (re.spec.service?.serviceSpec?.['ports'] as ServicePort[] | undefined) ?? [];
      const cluster = re.spec.clusterID ?? '';
      const epName = g.endpoints.get(cluster)?.metadata.name;
      if (portKey(mine) === want) {
        clusters.push(cluster);
        const ok = { conditions: [condition('Ready', true, 'Succeed', 'the export is merged into the ResourceImport', now, prev)] };
        exportStatus.set(re.metadata.name ?? '', ok);
        if (epName) exportStatus.set(epName, { conditions: [condition('Ready', true, 'Succeed', 'the export is merged into the ResourceImport', now, g.endpoints.get(cluster)?.status?.conditions as Condition[] | undefined)] });
      } else {
        const msg = `ports ${portKey(mine)} of cluster ${cluster} conflict with ports ${want} first exported by cluster ${first.spec.clusterID ?? ''}`;
        exportStatus.set(re.metadata.name ?? '', { conditions: [condition('Ready', false, 'ConvergeFailure', msg, now, prev)] });
        if (epName) exportStatus.set(epName, { conditions: [condition('Ready', false, 'ConvergeFailure', msg, now, g.endpoints.get(cluster)?.status?.conditions as Condition[] | undefined)] });
      }
    }
    clusters.sort();
    // The families of every merged export, the first export's first: a dual-stack export anywhere makes the import dual-stack.
    const ipFamilies: ('IPv4' | 'IPv6')[] = [];
    for (const re of g.services)
      if (clusters.includes(re.spec.clusterID ?? ''))
        for (const f of (re.spec.service?.serviceSpec?.['ipFamilies'] as unknown[] | undefined) ?? []) if ((f === 'IPv4' || f === 'IPv6') && !ipFamilies.includes(f)) ipFamilies.push(f);
    resourceImports.push({
      metadata: { name: importName(g.ns, g.name, 'service'), namespace: leaderNamespace },
      spec: { clusters, name: g.name, namespace: g.ns, kind: 'ServiceImport', serviceImport: { spec: { ports, type: 'ClusterSetIP', ...(ipFamilies.length > 0 ? { ipFamilies } : {}) } } },
    });
    const subsets: { addresses: EndpointAddress[]; ports: EndpointPort[] }[] = [];
    for (const c of clusters) for (const s of g.endpoints.get(c)?.spec.endpoints?.subsets ?? []) subsets.push({ addresses: s.addresses ?? [], ports: s.ports ?? [] });
    resourceImports.push({
      metadata: { name: importName(g.ns, g.name, 'endpoints'), namespace: leaderNamespace },
      spec: { clusters, name: g.name, namespace: g.ns, kind: 'Endpoints', endpoints: { subsets } },
    });
  }
  return { resourceImports, exportStatus };
}
