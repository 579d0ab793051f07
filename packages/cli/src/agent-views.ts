// Table views of the agent's local API answers (antctl's columns for agentinfo, podinterface, ovsflows).
import type { Table } from './output';

/** The agent's `/agentinfo` answer (AntreaAgentInfo-shaped; only the fields yardctl shows are typed). */
export interface AgentInfo {
  podRef?: { namespace?: string; name?: string };
  nodeRef: { name: string };
  nodeSubnets: string[];
  ovsInfo: { bridgeName: string; version: string; flowTable: Record<string, number> };
  localPodNum: number;
  agentConditions: { type: string; status: string; lastHeartbeatTime?: string }[];
  networkPolicyControllerInfo: { networkPolicyNum: number; addressGroupNum: number; appliedToGroupNum: number };
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
  return info.agentConditions.some((c) => c.type === 'AgentHealthy' && c.status === 'True') ? 'Healthy' : 'Unhealthy';
}

/**
 * `get agentinfo`: POD NODE STATUS NODE-SUBNET NETWORK-POLICIES ADDRESS-GROUPS APPLIED-TO-GROUPS
 * LOCAL-PODS (wide adds BRIDGE OVS-VERSION FLOWS CONTROLLER).
 */
export function agentInfoTable(info: AgentInfo, wide: boolean): Table {
  const columns = ['POD', 'NODE', 'STATUS', 'NODE-SUBNET', 'NETWORK-POLICIES', 'ADDRESS-GROUPS', 'APPLIED-TO-GROUPS', 'LOCAL-PODS'];
  const pod = info.podRef?.name ? `${info.podRef.namespace ? `${info.podRef.namespace}/` : ''}${info.podRef.name}` : '';
  const np = info.networkPolicyControllerInfo;
  const row = [pod, info.nodeRef.name, agentStatus(info), info.nodeSubnets.join(','), String(np.networkPolicyNum), String(np.addressGroupNum), String(np.appliedToGroupNum), String(info.localPodNum)];
  if (wide) {
    const flows = Object.values(info.ovsInfo.flowTable).reduce((a, b) => a + b, 0);
    const ctl = info.agentConditions.find((c) => c.type === 'ControllerConnectionUp');
    columns.push('BRIDGE', 'OVS-VERSION', 'FLOWS', 'CONTROLLER');
    row.push(info.ovsInfo.bridgeName, info.ovsInfo.version, String(flows), ctl === undefined ? 'not configured' : ctl.status === 'True' ? 'Connected' : 'Disconnected');
  }
  return { columns, rows: [row] };
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
