// Table views of the agent's local API answers (antctl's columns for agentinfo, podinterface, ovsflows).
import type { Table } from './output';

/**
 * The agent's `/agentinfo` answer, or an AntreaAgentInfo object of the API server (same fields,
 * plus metadata); only the fields yardctl shows are typed, and an object written by another
 * agent version may lack any of them.
 */
export interface AgentInfo {
  metadata?: { name?: string };
  podRef?: { namespace?: string; name?: string };
  nodeRef?: { name: string };
  nodeSubnets?: string[];
  ovsInfo?: { bridgeName?: string; version?: string; flowTable?: Record<string, number> };
  localPodNum?: number;
  agentConditions?: { type: string; status: string; lastHeartbeatTime?: string }[];
  networkPolicyControllerInfo?: { networkPolicyNum?: number; addressGroupNum?: number; appliedToGroupNum?: number };
  /** TCP port of the agent API (AntreaAgentInfo only). */
  apiPort?: number;
}

/** One entry of the agent's `/podinterfaces` answer (its interface store). */
export interface PodInterfaceItem {
  containerId: string;
  podName: string;
  podNamespace: string;
  hostIfName: string;
  ipCidr: string;
  mac: string;
  ofport: number;
  /** OVS Port UUID, when the agent reports it. */
  portUUID?: string;
}

/** One flow of `get ovsflows -o json|yaml`, as antctl shapes it. */
export interface OvsFlowItem {
  flow: string;
}

/** Unhealthy unless the agent reports AgentHealthy=True. */
export function agentStatus(info: AgentInfo): string {
  return (info.agentConditions ?? []).some((c) => c.type === 'AgentHealthy' && c.status === 'True') ? 'Healthy' : 'Unhealthy';
}

const num = (n: number | undefined): string => (n === undefined ? '' : String(n));

/**
 * `get agentinfo`: POD NODE STATUS NODE-SUBNET NETWORK-POLICIES ADDRESS-GROUPS APPLIED-TO-GROUPS
 * LOCAL-PODS (wide adds BRIDGE OVS-VERSION FLOWS CONTROLLER), one row per agent.
 */
export function agentInfoTable(infos: AgentInfo | readonly AgentInfo[], wide: boolean): Table {
  const columns = ['POD', 'NODE', 'STATUS', 'NODE-SUBNET', 'NETWORK-POLICIES', 'ADDRESS-GROUPS', 'APPLIED-TO-GROUPS', 'LOCAL-PODS'];
  if (wide) columns.push('BRIDGE', 'OVS-VERSION', 'FLOWS', 'CONTROLLER');
  const rows = (Array.isArray(infos) ? (infos as readonly AgentInfo[]) : [infos as AgentInfo]).map((info) => {
    const pod = info.podRef?.name ? `${info.podRef.namespace ? `${info.podRef.namespace}/` : ''}${info.podRef.name}` : '';
    const np = info.networkPolicyControllerInfo ?? {};
    const row = [pod, info.nodeRef?.name ?? info.metadata?.name ?? '', agentStatus(info), (info.nodeSubnets ?? []).join(','), num(np.networkPolicyNum), num(np.addressGroupNum), num(np.appliedToGroupNum), num(info.localPodNum)];
    if (wide) {
      const table = info.ovsInfo?.flowTable;
      const flows = table === undefined ? undefined : Object.values(table).reduce((a, b) => a + b, 0);
      const ctl = (info.agentConditions ?? []).find((c) => c.type === 'ControllerConnectionUp');
      row.push(info.ovsInfo?.bridgeName ?? '', info.ovsInfo?.version ?? '', num(flows), ctl === undefined ? 'not configured' : ctl.status === 'True' ? 'Connected' : 'Disconnected');
    }
    return row;
  });
  return { columns, rows };
}

/** Container ids are shown short, as antctl does (first 11 characters). */
export const CONTAINER_ID_WIDTH = 11;

/** `get podinterface`: NAMESPACE NAME INTERFACE-NAME IP MAC PORT-UUID OF-PORT CONTAINER-ID, sorted by namespace/name. */
export function podInterfaceTable(items: readonly PodInterfaceItem[]): Table {
  const sorted = [...items].sort((a, b) => a.podNamespace.localeCompare(b.podNamespace) || a.podName.localeCompare(b.podName));
  return {
    columns: ['NAMESPACE', 'NAME', 'INTERFACE-NAME', 'IP', 'MAC', 'PORT-UUID', 'OF-PORT', 'CONTAINER-ID'],
    rows: sorted.map((p) => [p.podNamespace, p.podName, p.hostIfName, p.ipCidr.split('/')[0] ?? '', p.mac, p.portUUID ?? '', String(p.ofport), p.containerId.slice(0, CONTAINER_ID_WIDTH)]),
  };
}

/** `get ovsflows`: a single FLOW column, one flow per row. */
export function ovsFlowsTable(flows: readonly OvsFlowItem[]): Table {
  return { columns: ['FLOW'], rows: flows.map((f) => [f.flow]) };
}
