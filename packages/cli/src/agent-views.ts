// Table views of the agent's local API answers (antctl's columns for agentinfo, podinterface, ovsflows; yardctl's for service).
import { abbreviate, type Table } from './output';

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

/** One endpoint of a Service port: a bucket of its select group (and of its local group when `local`). */
export interface ServiceEndpointItem {
  ip: string;
  port: number;
  weight?: number;
  /** On the agent's node. */
  local?: boolean;
}

/** One entry of the agent's `/services` answer: a Service port as AntreaProxy realises it on that node. */
export interface ServicePortItem {
  namespace: string;
  name: string;
  portName: string;
  protocol: string;
  clusterIP: string;
  port: number;
  nodePort?: number;
  /** LoadBalancer ingress IPs and `spec.externalIPs` served on `port`. */
  externalAddresses?: string[];
  /** `externalTrafficPolicy: Local`. */
  externalLocal?: boolean;
  /** `internalTrafficPolicy: Local`. */
  internalLocal?: boolean;
  /** The select group: one bucket per endpoint (none: one bucket that rejects). */
  groupId: number;
  /** With a Local policy: the group of the local endpoints (none: no bucket, packets dropped). */
  localGroupId?: number;
  endpoints: ServiceEndpointItem[];
  /** ClientIP session affinity timeout (s); absent: no affinity. */
  affinityTimeout?: number;
  healthCheckNodePort?: number;
  healthCheckServed?: boolean;
  /** yardctl's join: the agent's `/serviceexternalip` entries of this Service (owner of each LoadBalancer IP from an ExternalIPPool). */
  serviceExternalIPs?: ServiceExternalIPItem[];
}

/** One entry of the agent's `/serviceexternalip` answer (antctl's `get serviceexternalip` fields). */
export interface ServiceExternalIPItem {
  serviceName: string;
  namespace: string;
  externalIP: string;
  externalIPPool: string;
  /** The owner node ('' when no node can own it). */
  assignedNode: string;
}

/** `ip:port`, an IPv6 address in brackets (`[fd00::5]:8080`), as kubectl prints endpoints. */
const hostPort = (ip: string, port: number): string => (ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`);
const endpointText = (e: ServiceEndpointItem): string => `${hostPort(e.ip, e.port)}${e.local ? '(local)' : ''}`;

/** An external address, with `@<owner node>` when an ExternalIPPool placed it (`@<none>` when no node can own it). */
function externalText(s: ServicePortItem, ip: string): string {
  const placed = s.serviceExternalIPs?.find((e) => e.externalIP === ip);
  return placed === undefined ? ip : `${ip}@${placed.assignedNode || '<none>'}`;
}

/**
 * `get service`: NAMESPACE NAME PORT CLUSTER-IP NODE-PORT EXTERNAL-IP EXT-POLICY INT-POLICY GROUP
 * ENDPOINTS LOCAL-GROUP AFFINITY (wide adds PORT-NAME LOCAL-ENDPOINTS HEALTH-CHECK-PORT and lists
 * every endpoint), one row per Service port, sorted by namespace/name then port.
 */
export function servicePortTable(items: readonly ServicePortItem[], wide: boolean): Table {
  const columns = ['NAMESPACE', 'NAME', 'PORT', 'CLUSTER-IP', 'NODE-PORT', 'EXTERNAL-IP', 'EXT-POLICY', 'INT-POLICY', 'GROUP', 'ENDPOINTS', 'LOCAL-GROUP', 'AFFINITY'];
  if (wide) columns.push('PORT-NAME', 'LOCAL-ENDPOINTS', 'HEALTH-CHECK-PORT');
  const sorted = [...items].sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name) || a.port - b.port || a.protocol.localeCompare(b.protocol));
  const rows = sorted.map((s) => {
    const endpoints = s.endpoints.map(endpointText);
    const row = [
      s.namespace,
      s.name,
      `${s.port}/${s.protocol}`,
      s.clusterIP,
      num(s.nodePort),
      (s.externalAddresses ?? []).map((ip) => externalText(s, ip)).join(','),
      s.externalLocal ? 'Local' : 'Cluster',
      s.internalLocal ? 'Local' : 'Cluster',
      String(s.groupId),
      wide ? endpoints.join(',') : abbreviate(endpoints),
      num(s.localGroupId),
      s.affinityTimeout === undefined ? 'None' : `ClientIP(${s.affinityTimeout}s)`,
    ];
    if (wide) {
      const local = s.localGroupId === undefined ? '' : s.endpoints.filter((e) => e.local).map((e) => hostPort(e.ip, e.port)).join(',');
      const hc = s.healthCheckNodePort === undefined ? '' : `${s.healthCheckNodePort}${s.healthCheckServed === false ? '(not served)' : ''}`;
      row.push(s.portName, local, hc);
    }
    return row;
  });
  return { columns, rows };
}

/** An Egress (`crd.antrea.io/v1beta1`) as the API server answers it; only the fields yardctl shows are typed. */
export interface EgressItem {
  metadata?: { name?: string };
  spec?: { egressIP?: string; egressIPs?: string[]; externalIPPool?: string; externalIPPools?: string[]; appliedTo?: { podSelector?: unknown; namespaceSelector?: unknown } };
  status?: { egressNode?: string; egressIP?: string; conditions?: { type: string; status: string; reason?: string }[] };
}

/** A condition as `True`, or `False (<reason>)`; '' when absent. */
function conditionCell(e: EgressItem, type: string): string {
  const c = (e.status?.conditions ?? []).find((x) => x.type === type);
  if (!c) return '';
  return c.status === 'True' || !c.reason ? c.status : `${c.status} (${c.reason})`;
}

/** `get egress`: NAME EGRESS-IP EGRESS-NODE IP-ALLOCATED IP-ASSIGNED; wide adds the pools and appliedTo. Sorted by name. */
export function egressTable(items: readonly EgressItem[], wide: boolean): Table {
  const columns = ['NAME', 'EGRESS-IP', 'EGRESS-NODE', 'IP-ALLOCATED', 'IP-ASSIGNED'];
  if (wide) columns.push('POOL', 'APPLIED-TO');
  const rows = [...items].sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? '')).map((e) => {
    const ips = e.spec?.egressIP ? [e.spec.egressIP] : (e.spec?.egressIPs ?? []);
    // The IP in use on the egress node, else what the spec asks for.
    const row = [e.metadata?.name ?? '', e.status?.egressIP ?? ips.join(','), e.status?.egressNode ?? '', conditionCell(e, 'IPAllocated'), conditionCell(e, 'IPAssigned')];
    // No pool: Antrea's manual mode, the IP put on a node by hand (the egress node is the one holding it).
    const pools = e.spec?.externalIPPool ?? (e.spec?.externalIPPools ?? []).join(',');
    if (wide) row.push(pools === '' && ips.length > 0 ? '(none: by hand)' : pools, JSON.stringify(e.spec?.appliedTo ?? {}));
    return row;
  });
  return { columns, rows };
}
