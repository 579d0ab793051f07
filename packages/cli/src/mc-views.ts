// Table views of the Multi-cluster objects (`yardctl mc get ...`), with antctl mc's columns.
import type { Table } from './output';

interface Meta {
  name?: string;
  namespace?: string;
  annotations?: Record<string, string>;
  creationTimestamp?: string;
}
interface Condition {
  type?: string;
  status?: string;
  reason?: string;
}
/** A ClusterSet as listed (only the fields the table reads). */
export interface ClusterSetItem {
  metadata: Meta;
  spec?: { clusterID?: string; leaders?: { clusterID?: string; server?: string }[]; namespace?: string };
  status?: { totalClusters?: number; readyClusters?: number; clusterStatuses?: { clusterID?: string; conditions?: Condition[] }[] };
}
export interface ResourceExportItem {
  metadata: Meta & { labels?: Record<string, string> };
  spec?: { clusterID?: string; kind?: string; name?: string; namespace?: string };
  status?: { conditions?: Condition[] };
}
export interface ResourceImportItem {
  metadata: Meta;
  spec?: { kind?: string; name?: string; namespace?: string };
}
export interface MemberClusterAnnounceItem {
  metadata: Meta;
  clusterID?: string;
  clusterSetID?: string;
  leaderClusterID?: string;
}

/** `mc get clusterset`: one row per cluster the ClusterSet reports on (its own ID when none yet). */
export function clusterSetTable(items: ClusterSetItem[]): Table {
  const rows: string[][] = [];
  for (const cs of items) {
    const role = cs.spec?.leaders?.[0]?.server ? 'member' : 'leader';
    const statuses = cs.status?.clusterStatuses ?? [];
    if (statuses.length === 0) rows.push([cs.spec?.clusterID ?? '', cs.metadata.namespace ?? '', cs.metadata.name ?? '', role, '', '', '']);
    for (const st of statuses) {
      const c = st.conditions?.find((x) => x.type === 'Ready') ?? st.conditions?.[0];
      rows.push([st.clusterID ?? '', cs.metadata.namespace ?? '', cs.metadata.name ?? '', role, c?.type ?? '', c?.status ?? '', c?.reason ?? '']);
    }
  }
  return { columns: ['CLUSTER-ID', 'NAMESPACE', 'CLUSTER-SET-ID', 'ROLE', 'TYPE', 'STATUS', 'REASON'], rows };
}

/** `mc get resourceexport`: CLUSTER-ID NAMESPACE NAME KIND READY (the leader's verdict). */
export function resourceExportTable(items: ResourceExportItem[]): Table {
  return {
    columns: ['CLUSTER-ID', 'NAMESPACE', 'NAME', 'KIND', 'READY'],
    rows: items.map((re) => {
      const ready = re.status?.conditions?.find((c) => c.type === 'Ready');
      return [re.spec?.clusterID ?? re.metadata.labels?.['sourceClusterID'] ?? '', re.metadata.namespace ?? '', re.metadata.name ?? '', re.spec?.kind ?? '', ready ? `${ready.status ?? ''}${ready.reason ? ` (${ready.reason})` : ''}` : ''];
    }),
  };
}

/** `mc get resourceimport`: NAMESPACE NAME KIND. */
export function resourceImportTable(items: ResourceImportItem[]): Table {
  return { columns: ['NAMESPACE', 'NAME', 'KIND'], rows: items.map((ri) => [ri.metadata.namespace ?? '', ri.metadata.name ?? '', ri.spec?.kind ?? '']) };
}

/** `mc get memberclusterannounce`: NAMESPACE NAME CLUSTER-ID CLUSTER-SET-ID LEADER-CLUSTER-ID LAST-HEARTBEAT. */
export function memberClusterAnnounceTable(items: MemberClusterAnnounceItem[]): Table {
  return {
    columns: ['NAMESPACE', 'NAME', 'CLUSTER-ID', 'CLUSTER-SET-ID', 'LEADER-CLUSTER-ID', 'LAST-HEARTBEAT'],
    rows: items.map((a) => [a.metadata.namespace ?? '', a.metadata.name ?? '', a.clusterID ?? '', a.clusterSetID ?? '', a.leaderClusterID ?? '', a.metadata.annotations?.['multicluster.antrea.io/touch-ts'] ?? '']),
  };
}
