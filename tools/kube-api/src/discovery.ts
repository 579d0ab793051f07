// Discovery documents (/api, /apis, group and group-version resource lists) and Table output.

import type { ResourceRegistry, ResourceType } from './registry';
import { apiVersionOf, sortVersions } from './registry';
import type { KubeObject } from './types';
import { isRecord } from './types';

export interface AggregatedGroup {
  group: string;
  versions: string[];
  /** The APIService's spec.groupPriorityMinimum. */
  priority?: number;
}

/**
 * kube-apiserver's discovery order of built-in groups (kube-aggregator's priorities): clients
 * such as kubectl resolve a resource name that several groups serve (e.g. `networkpolicies`) to
 * the first group listed, so the order is part of the API.
 */
const BUILTIN_GROUP_PRIORITY: Readonly<Record<string, number>> = {
  apps: 17800, 'events.k8s.io': 17750, 'authentication.k8s.io': 17700, 'authorization.k8s.io': 17600,
  autoscaling: 17500, batch: 17400, 'certificates.k8s.io': 17300, 'networking.k8s.io': 17200, policy: 17100,
  'rbac.authorization.k8s.io': 17000, 'storage.k8s.io': 16800, 'admissionregistration.k8s.io': 16700,
  'scheduling.k8s.io': 16600, 'coordination.k8s.io': 16500, 'apiextensions.k8s.io': 16400, 'node.k8s.io': 16300,
  'discovery.k8s.io': 16200, 'flowcontrol.apiserver.k8s.io': 16100, 'apiregistration.k8s.io': 16050,
};
/** Groups of CustomResourceDefinitions (and any other group) rank as kube-apiserver ranks CRDs. */
const DEFAULT_GROUP_PRIORITY = 1000;

function groupDoc(name: string, versions: string[]): Record<string, unknown> {
  const vs = sortVersions(versions);
  const gv = vs.map((v) => ({ groupVersion: apiVersionOf(name, v), version: v }));
  return { name, versions: gv, preferredVersion: gv[0] };
}

export function apiVersions(serverAddress: string): Record<string, unknown> {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
}

export function apiGroupList(reg: ResourceRegistry, aggregated: AggregatedGroup[]): Record<string, unknown> {
  const groups = reg.groups();
  for (const a of aggregated) groups.set(a.group, [...new Set([...(groups.get(a.group) ?? []), ...a.versions])]);
  groups.delete('');
  const priority = new Map<string, number>();
  for (const a of aggregated) if (a.priority !== undefined) priority.set(a.group, Math.max(priority.get(a.group) ?? 0, a.priority));
  const rank = (g: string): number => BUILTIN_GROUP_PRIORITY[g] ?? priority.get(g) ?? DEFAULT_GROUP_PRIORITY;
  // Highest priority first, then by name (kube-apiserver's order).
  const ordered = [...groups.entries()].sort(([a], [b]) => rank(b) - rank(a) || a.localeCompare(b));
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: ordered.map(([g, vs]) => groupDoc(g, vs)) };
}

export function apiGroup(reg: ResourceRegistry, aggregated: AggregatedGroup[], group: string): Record<string, unknown> | undefined {
  const vs = new Set(reg.groups().get(group) ?? []);
  for (const a of aggregated) if (a.group === group) for (const v of a.versions) vs.add(v);
  if (vs.size === 0) return undefined;
  return { kind: 'APIGroup', apiVersion: 'v1', ...groupDoc(group, [...vs]) };
}

export function apiResourceList(reg: ResourceRegistry, group: string, version: string): Record<string, unknown> | undefined {
  const types = reg.all().filter((t) => t.group === group && t.versions.includes(version));
  if (types.length === 0) return undefined;
  const resources: Record<string, unknown>[] = [];
  for (const t of types.sort((a, b) => a.resource.localeCompare(b.resource))) {
    const r: Record<string, unknown> = { name: t.resource, singularName: t.singular, namespaced: t.namespaced, kind: t.kind, verbs: t.verbs };
    if (t.shortNames.length > 0) r.shortNames = t.shortNames;
    if (t.categories.length > 0) r.categories = t.categories;
    resources.push(r);
    if (t.hasStatus) resources.push({ name: `${t.resource}/status`, singularName: '', namespaced: t.namespaced, kind: t.kind, verbs: ['get', 'patch', 'update'] });
    for (const sub of t.subresources) {
      if (sub === 'proxy') resources.push({ name: `${t.resource}/proxy`, singularName: '', namespaced: t.namespaced, kind: `${t.kind}ProxyOptions`, verbs: ['create', 'delete', 'get', 'patch', 'update'] });
      if (sub === 'token') resources.push({ name: `${t.resource}/token`, singularName: '', namespaced: t.namespaced, group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest', verbs: ['create'] });
      if (sub === 'finalize') resources.push({ name: `${t.resource}/finalize`, singularName: '', namespaced: t.namespaced, kind: t.kind, verbs: ['update'] });
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: apiVersionOf(group, version), resources };
}

interface Column {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

function col(name: string, type = 'string', priority = 0, format = ''): Column {
  return { name, type, format, description: name, priority };
}

/** Evaluate the simple JSONPath subset printer columns use: `.a.b[0].c`. */
function jsonPath(obj: unknown, path: string): unknown {
  let cur = obj;
  const re = /\.([A-Za-z0-9_-]+)|\[(\d+)\]/g;
  let m: RegExpExecArray | null;
  const body = path.replace(/^\{|\}$/g, '');
  if (/\[\?/.test(body)) return undefined;
  while ((m = re.exec(body)) !== null) {
    if (m[1] !== undefined) cur = isRecord(cur) ? cur[m[1]] : undefined;
    else cur = Array.isArray(cur) ? cur[Number(m[2])] : undefined;
  }
  return cur;
}

function builtinColumns(t: ResourceType, o: KubeObject): [Column[], unknown[]] {
  const status = (o.status ?? {}) as Record<string, unknown>;
  const spec = (o.spec ?? {}) as Record<string, unknown>;
  switch (`${t.group}/${t.resource}`) {
    case '/pods': {
      const cs = (status.containerStatuses as { ready?: boolean; restartCount?: number }[] | undefined) ?? [];
      const total = ((spec.containers as unknown[] | undefined) ?? []).length;
      return [
        [col('Ready'), col('Status'), col('Restarts', 'string'), col('IP', 'string', 1), col('Node', 'string', 1)],
        [`${cs.filter((c) => c.ready).length}/${total}`, o.metadata.deletionTimestamp ? 'Terminating' : (status.phase ?? ''), String(cs.reduce((n, c) => n + (c.restartCount ?? 0), 0)), status.podIP ?? '<none>', spec.nodeName ?? '<none>'],
      ];
    }
    case '/services': {
      const ports = ((spec.ports as { port: number; protocol?: string; nodePort?: number }[] | undefined) ?? []).map((p) => `${p.port}${p.nodePort ? `:${p.nodePort}` : ''}/${p.protocol ?? 'TCP'}`);
      return [
        [col('Type'), col('Cluster-IP'), col('External-IP'), col('Port(s)'), col('Selector', 'string', 1)],
        [spec.type ?? 'ClusterIP', spec.clusterIP ?? '', '<none>', ports.join(',') || '<none>', Object.entries((spec.selector as Record<string, string> | undefined) ?? {}).map(([k, v]) => `${k}=${v}`).join(',') || '<none>'],
      ];
    }
    case '/namespaces':
      return [[col('Status')], [status.phase ?? '']];
    case '/nodes': {
      const ready = ((status.conditions as { type: string; status: string }[] | undefined) ?? []).find((c) => c.type === 'Ready');
      return [[col('Status')], [ready?.status === 'True' ? 'Ready' : 'NotReady']];
    }
    case '/secrets':
      return [[col('Type'), col('Data', 'integer')], [o.type ?? 'Opaque', Object.keys((o.data as Record<string, string> | undefined) ?? {}).length]];
    case 'admissionregistration.k8s.io/validatingwebhookconfigurations':
      return [[col('Webhooks', 'integer')], [Array.isArray(o.webhooks) ? o.webhooks.length : 0]];
    case '/configmaps':
      return [[col('Data', 'integer')], [Object.keys((o.data as Record<string, string> | undefined) ?? {}).length]];
    case '/endpoints': {
      const addrs = ((o.subsets as { addresses?: { ip: string }[]; ports?: { port: number }[] }[] | undefined) ?? []).flatMap((s) => (s.addresses ?? []).flatMap((a) => (s.ports ?? [{ port: 0 }]).map((p) => (p.port ? `${a.ip}:${p.port}` : a.ip))));
      return [[col('Endpoints')], [addrs.join(',') || '<none>']];
    }
    default:
      return [[], []];
  }
}

/** Kubernetes' HumanDuration: 45s, 5m12s, 3h, 2d4h, 400d. */
export function humanAge(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return s % 60 === 0 ? `${m}m` : `${m}m${s % 60}s`;
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 8) return m % 60 === 0 ? `${h}h` : `${h}h${m % 60}m`;
  if (h < 48) return `${h}h`;
  const d = Math.floor(h / 24);
  if (d < 8) return h % 24 === 0 ? `${d}d` : `${d}d${h % 24}h`;
  return `${d}d`;
}

/** meta.k8s.io/v1 Table for kubectl get; printer columns for CRDs, a few built-in layouts. */
export function toTable(t: ResourceType, version: string, objs: KubeObject[], meta: Record<string, unknown>, includeObject: string, now: number): Record<string, unknown> {
  const age = (o: KubeObject): string => (o.metadata.creationTimestamp ? humanAge((now - Date.parse(o.metadata.creationTimestamp)) / 1000) : '<unknown>');
  const printer = t.printerColumns.get(version);
  let columns: Column[] = [col('Name', 'string', 0, 'name')];
  const rows = objs.map((o) => {
    let extraCols: Column[];
    let cells: unknown[];
    if (printer) {
      extraCols = printer.map((p) => col(p.name, p.type, p.priority ?? 0, p.format ?? ''));
      cells = printer.map((p) => {
        const v = jsonPath(o, p.jsonPath);
        // kube-apiserver renders date columns as ages, like the default Age column.
        return p.type === 'date' && typeof v === 'string' ? humanAge((now - Date.parse(v)) / 1000) : (v ?? null);
      });
    } else [extraCols, cells] = builtinColumns(t, o);
    columns = [col('Name', 'string', 0, 'name'), ...extraCols];
    const hasAge = printer?.some((p) => p.name.toLowerCase() === 'age') ?? false;
    const row: Record<string, unknown> = { cells: [o.metadata.name, ...cells, ...(hasAge ? [] : [age(o)])] };
    if (includeObject === 'Object') row.object = o;
    else if (includeObject !== 'None') row.object = { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata };
    return row;
  });
  if (objs.length === 0 && !printer) columns = [col('Name', 'string', 0, 'name'), ...builtinColumns(t, { metadata: {} })[0]];
  else if (objs.length === 0 && printer) columns = [col('Name', 'string', 0, 'name'), ...printer.map((p) => col(p.name, p.type, p.priority ?? 0, p.format ?? ''))];
  if (!(printer?.some((p) => p.name.toLowerCase() === 'age') ?? false)) columns.push(col('Age', 'string'));
  return { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: meta, columnDefinitions: columns, rows };
}
