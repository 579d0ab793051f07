// Pure: what a member exports for each ServiceExport (ResourceExports for the leader) and the
// ServiceExport's Valid condition, from the local Service, its Endpoints and (endpointIPType PodIP)
// its EndpointSlices, which hold a dual-stack Service's pod IPs of the second family.
import type { Condition, EndpointAddress, EndpointPort, EndpointSlice, Endpoints, ResourceExport, Service, ServiceExport } from '@switchyard/apis';
import { isIP } from 'node:net';
import { condition } from './clusterset';
import { IMPORTED_ANNOTATION, LABEL_SOURCE_CLUSTER, LABEL_SOURCE_KIND, LABEL_SOURCE_NAME, LABEL_SOURCE_NAMESPACE, exportName } from './resources';

/** Which addresses a multi-cluster Service's endpoints are: the exporting Service's ClusterIP, or its Pod IPs. */
export type EndpointIPType = 'ClusterIP' | 'PodIP';

/** Reasons of the ServiceExport `Valid` condition. */
export const ExportReason = {
  ServiceNotFound: 'ServiceNotFound',
  ServiceTypeNotSupported: 'ServiceTypeNotSupported',
  ServiceNoClusterIP: 'ServiceNoClusterIP',
  ServiceNoEndpoints: 'ServiceNoEndpoints',
  ImportedService: 'ImportedService',
  Succeed: 'Succeed',
} as const;

/** IP family names as Services spell them. */
export type IPFamily = 'IPv4' | 'IPv6';

/**
 * A Service's ClusterIPs (`spec.clusterIPs`, else `clusterIP`) and their families, primary first:
 * a dual-stack Service exports both, so the importing clusters can give its import both families.
 */
export function serviceClusterIPs(svc: Service): { ips: string[]; families: IPFamily[] } {
  const spec = svc.spec ?? {};
  const ips = (spec.clusterIPs && spec.clusterIPs.length > 0 ? spec.clusterIPs : spec.clusterIP ? [spec.clusterIP] : []).filter((ip) => isIP(ip) !== 0);
  return { ips, families: ips.map((ip) => (isIP(ip) === 6 ? 'IPv6' : 'IPv4')) };
}

/** Input of {@link serviceExportPlan}. */
export interface ExportInput {
  clusterID: string;
  /** The leader's namespace, where ResourceExports go. */
  leaderNamespace: string;
  endpointIPType: EndpointIPType;
  serviceExports: readonly ServiceExport[];
  service: (namespace: string, name: string) => Service | undefined;
  endpoints: (namespace: string, name: string) => Endpoints | undefined;
  /**
   * The Service's EndpointSlices (label `kubernetes.io/service-name`). With `endpointIPType: PodIP`
   * the ready addresses of a family the Endpoints lack (a dual-stack Service's secondary family:
   * the Endpoints hold the primary one only) are exported from them. Absent: the Endpoints alone.
   */
  endpointSlices?: (namespace: string, name: string) => readonly EndpointSlice[];
  now: string;
}

type Subset = { addresses: EndpointAddress[]; ports: EndpointPort[] };
const portsKey = (ports: readonly EndpointPort[]): string => JSON.stringify(ports.map((p) => [p.name ?? '', p.port, p.protocol ?? 'TCP']).sort());

/**
 * PodIP subsets: the Endpoints' ready addresses, plus the ready addresses of EndpointSlices of a
 * family those do not have, under the subset with the same ports (else a subset of their own).
 */
export function podIPSubsets(ready: readonly Subset[], slices: readonly EndpointSlice[]): Subset[] {
  const out = ready.map((s) => ({ addresses: [...s.addresses], ports: s.ports }));
  const have = new Set(ready.flatMap((s) => s.addresses.map((a) => isIP(a.ip))));
  const seen = new Set(out.flatMap((s) => s.addresses.map((a) => a.ip)));
  for (const slice of slices) {
    const family = slice.addressType === 'IPv4' ? 4 : slice.addressType === 'IPv6' ? 6 : 0;
    if (family === 0 || have.has(family)) continue;
    // A missing ready condition means ready (discovery.k8s.io/v1); the first address is the one to use.
    const addresses = (slice.endpoints ?? [])
      .filter((e) => e.conditions?.ready !== false)
      .map((e) => e.addresses?.[0])
      .filter((ip): ip is string => ip !== undefined && isIP(ip) === family && !seen.has(ip))
      .map((ip) => (seen.add(ip), { ip }));
    if (addresses.length === 0) continue;
    const ports: EndpointPort[] = (slice.ports ?? []).filter((p) => p.port !== undefined).map((p) => ({ ...(p.name ? { name: p.name } : {}), port: p.port!, protocol: p.protocol ?? 'TCP' }));
    const same = out.find((s) => portsKey(s.ports) === portsKey(ports));
    if (same) same.addresses.push(...addresses);
    else out.push({ addresses, ports });
  }
  return out;
}

/** What to write: ResourceExports in the leader and the Valid condition per ServiceExport (`ns/name`). */
export interface ExportPlan {
  resourceExports: ResourceExport[];
  valid: Map<string, Condition>;
}

/** The ResourceExports and conditions for every ServiceExport of the member. */
export function serviceExportPlan(input: ExportInput): ExportPlan {
  const resourceExports: ResourceExport[] = [];
  const valid = new Map<string, Condition>();
  for (const se of input.serviceExports) {
    const ns = se.metadata.namespace ?? '';
    const name = se.metadata.name ?? '';
    const prev = se.status?.conditions;
    const fail = (reason: string, message: string): void => void valid.set(`${ns}/${name}`, condition('Valid', false, reason, message, input.now, prev));
    const svc = input.service(ns, name);
    if (!svc) {
      fail(ExportReason.ServiceNotFound, `Service ${ns}/${name} not found`);
      continue;
    }
    if (svc.metadata.annotations?.[IMPORTED_ANNOTATION] === 'true') {
      fail(ExportReason.ImportedService, `Service ${ns}/${name} is an imported multi-cluster Service; it cannot be exported`);
      continue;
    }
    const type = svc.spec?.type ?? 'ClusterIP';
    if (type === 'ExternalName') {
      fail(ExportReason.ServiceTypeNotSupported, `Service ${ns}/${name} is of type ExternalName, which is not supported`);
      continue;
    }
    const clusterIP = svc.spec?.clusterIP;
    if (!clusterIP || clusterIP === 'None') {
      fail(ExportReason.ServiceNoClusterIP, `Service ${ns}/${name} has no ClusterIP (headless Services are not supported)`);
      continue;
    }
    const ports = svc.spec?.ports ?? [];
    const eps = input.endpoints(ns, name);
    const ready: { addresses: EndpointAddress[]; ports: EndpointPort[] }[] = (eps?.subsets ?? [])
      .filter((s) => (s.addresses ?? []).length > 0)
      .map((s) => ({ addresses: (s.addresses ?? []).map((a) => ({ ip: a.ip })), ports: s.ports ?? [] }));
    if (ready.length === 0) {
      fail(ExportReason.ServiceNoEndpoints, `Service ${ns}/${name} has no ready endpoints`);
      continue;
    }
    const { ips: clusterIPs, families } = serviceClusterIPs(svc);
    const subsets =
      input.endpointIPType === 'PodIP'
        ? podIPSubsets(ready, input.endpointSlices?.(ns, name) ?? [])
        : [{ addresses: (clusterIPs.length > 0 ? clusterIPs : [clusterIP]).map((ip) => ({ ip })), ports: ports.map((p) => ({ ...(p.name ? { name: p.name } : {}), port: p.port, protocol: p.protocol ?? 'TCP' })) }];
    const labels = (kind: string): Record<string, string> => ({ [LABEL_SOURCE_CLUSTER]: input.clusterID, [LABEL_SOURCE_KIND]: kind, [LABEL_SOURCE_NAMESPACE]: ns, [LABEL_SOURCE_NAME]: name });
    resourceExports.push({
      metadata: { name: exportName(input.clusterID, ns, name, 'service'), namespace: input.leaderNamespace, labels: labels('Service') },
      spec: {
        clusterID: input.clusterID,
        name,
        namespace: ns,
        kind: 'Service',
        service: { serviceSpec: { ports: ports.map((p) => ({ ...(p.name ? { name: p.name } : {}), port: p.port, protocol: p.protocol ?? 'TCP' })), type: 'ClusterIP', ...(families.length > 0 ? { ipFamilies: families } : {}) } },
      },
    });
    resourceExports.push({
      metadata: { name: exportName(input.clusterID, ns, name, 'endpoints'), namespace: input.leaderNamespace, labels: labels('Endpoints') },
      spec: { clusterID: input.clusterID, name, namespace: ns, kind: 'Endpoints', endpoints: { subsets } },
    });
    valid.set(`${ns}/${name}`, condition('Valid', true, ExportReason.Succeed, `Service ${ns}/${name} is exported`, input.now, prev));
  }
  return { resourceExports, valid };
}
