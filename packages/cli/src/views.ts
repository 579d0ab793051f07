// Table views of the controller's read API answers (columns as antctl prints them).
import type { controlplane } from '@switchyard/apis';
import { STATIC_TIERS, type DirectionVerdict, type EndpointQueryResult, type Explanation, type RuleRef } from '@switchyard/policy-compiler';
import { abbreviate, type Table } from './output';

/** A NetworkPolicy item of the read API: the internal policy plus span and realization status. */
export type NetworkPolicyItem = controlplane.NetworkPolicy & { span?: string[]; status?: unknown };
/** An AddressGroup / AppliedToGroup item of the read API. */
export type GroupItem = controlplane.AddressGroup & { span?: string[] };
/** The read API's `controllerinfo` answer. */
export interface ControllerInfo {
  version?: string;
  epoch?: string;
  resourceVersion?: string | number;
  synced?: boolean;
  networkPolicyNum?: number;
  addressGroupNum?: number;
  appliedToGroupNum?: number;
  connectedAgentNum?: number;
  watchers?: number;
}

const TIER_NAMES = new Map(Object.entries(STATIC_TIERS).map(([name, p]) => [p, name]));
const PSEUDO_TIERS = new Map([
  [251, 'adminnetworkpolicy'],
  [254, 'baselineadminnetworkpolicy'],
]);

/** Tier of a priority, by name for the static tiers (`application (250)`), else the number. */
export function tierText(p: number | undefined): string {
  if (p === undefined) return '';
  const name = TIER_NAMES.get(p) ?? PSEUDO_TIERS.get(p);
  return name ? `${name} (${p})` : String(p);
}

const SHORT_TYPE: Record<controlplane.NetworkPolicyType, string> = {
  K8sNetworkPolicy: 'K8sNP',
  AntreaClusterNetworkPolicy: 'ACNP',
  AntreaNetworkPolicy: 'ANNP',
  AdminNetworkPolicy: 'ANP',
  BaselineAdminNetworkPolicy: 'BANP',
};

/** `K8sNP:ns/name` or `ACNP:name`: a policy reference on one cell. */
export function policyRefText(r: controlplane.NetworkPolicyReference | undefined): string {
  if (!r) return '';
  return `${SHORT_TYPE[r.type] ?? r.type}:${r.namespace ? `${r.namespace}/` : ''}${r.name}`;
}

function memberText(m: controlplane.GroupMember): string {
  if (m.pod) return `${m.pod.namespace}/${m.pod.name}`;
  if (m.externalEntity) return `${m.externalEntity.namespace}/${m.externalEntity.name}`;
  if (m.node) return `node/${m.node.name}`;
  return m.ips.join(',');
}

/** `get networkpolicy`: NAMESPACE NAME APPLIED-TO RULES (wide: TYPE TIER PRIORITY NODES UID). */
export function networkPolicyTable(items: NetworkPolicyItem[], wide: boolean): Table {
  const columns = ['NAMESPACE', 'NAME', 'APPLIED-TO', 'RULES'];
  if (wide) columns.push('TYPE', 'TIER', 'PRIORITY', 'NODES', 'UID');
  const rows = items.map((p) => {
    const applied = p.appliedToGroups.length > 0 ? p.appliedToGroups : [...new Set(p.rules.flatMap((r) => r.appliedToGroups ?? []))];
    const row = [p.sourceRef.namespace, p.sourceRef.name, abbreviate(applied), String(p.rules.length)];
    if (wide) row.push(SHORT_TYPE[p.sourceRef.type] ?? p.sourceRef.type, tierText(p.tierPriority), p.priority === undefined ? '' : String(p.priority), abbreviate(p.span ?? []), p.uid);
    return row;
  });
  return { columns, rows };
}

/** `get addressgroup`: NAME POD-IPS (wide: MEMBERS NODES). */
export function addressGroupTable(items: GroupItem[], wide: boolean): Table {
  const columns = wide ? ['NAME', 'POD-IPS', 'MEMBERS', 'NODES'] : ['NAME', 'POD-IPS'];
  const rows = items.map((g) => {
    const ips = g.groupMembers.flatMap((m) => m.ips);
    const row = [g.name, abbreviate(ips)];
    if (wide) row.push(abbreviate(g.groupMembers.map(memberText)), abbreviate(g.span ?? []));
    return row;
  });
  return { columns, rows };
}

/** `get appliedtogroup`: NAME PODS (wide: POD-IPS NODES). */
export function appliedToGroupTable(items: GroupItem[], wide: boolean): Table {
  const columns = wide ? ['NAME', 'PODS', 'POD-IPS', 'NODES'] : ['NAME', 'PODS'];
  const rows = items.map((g) => {
    const row = [g.name, abbreviate(g.groupMembers.map(memberText))];
    if (wide) row.push(abbreviate(g.groupMembers.flatMap((m) => m.ips)), abbreviate(g.span ?? []));
    return row;
  });
  return { columns, rows };
}

/** `get controllerinfo`: one row of counts (wide adds epoch, resourceVersion and watchers). */
export function controllerInfoTable(info: ControllerInfo, wide: boolean): Table {
  const columns = ['VERSION', 'SYNCED', 'NETWORK-POLICIES', 'ADDRESS-GROUPS', 'APPLIED-TO-GROUPS', 'CONNECTED-AGENTS'];
  const s = (v: unknown): string => (v === undefined ? '' : String(v));
  const row = [s(info.version), s(info.synced), s(info.networkPolicyNum), s(info.addressGroupNum), s(info.appliedToGroupNum), s(info.connectedAgentNum)];
  if (wide) {
    columns.push('EPOCH', 'RESOURCE-VERSION', 'WATCHERS');
    row.push(s(info.epoch), s(info.resourceVersion), s(info.watchers));
  }
  return { columns, rows: [row] };
}

function ruleText(v: { rule?: { index: number; name?: string } }): string {
  if (!v.rule) return '';
  return v.rule.name ? `${v.rule.name} (#${v.rule.index})` : `#${v.rule.index}`;
}

/** `policy explain`: one row per direction, egress (at the source) first. */
export function explanationTable(e: Explanation): Table {
  const row = (v: DirectionVerdict): string[] => [v.direction, v.allowed ? 'Allowed' : 'Denied', v.action, v.reason, tierText(v.tierPriority), policyRefText(v.policy), ruleText(v), (v.passedBy ?? []).map(policyRefText).join(',')];
  return { columns: ['DIRECTION', 'VERDICT', 'ACTION', 'REASON', 'TIER', 'POLICY', 'RULE', 'PASSED-BY'], rows: [row(e.egress), row(e.ingress)] };
}

/** `query endpoint`: the policies applied to a pod and the rules that select it as a peer. */
export function endpointQueryTables(q: EndpointQueryResult): { title: string; table: Table }[] {
  const rule = (r: RuleRef): string[] => [policyRefText(r.policy), r.direction === 'In' ? 'Ingress' : 'Egress', r.name ? `${r.name} (#${r.index})` : `#${r.index}`];
  return [
    { title: 'Applied policies', table: { columns: ['POLICY', 'TYPE', 'UID'], rows: q.appliedPolicies.map((p) => [policyRefText(p), p.type, p.uid]) } },
    { title: 'Ingress rules selecting it as a source', table: { columns: ['POLICY', 'DIRECTION', 'RULE'], rows: q.ingressSrcRules.map(rule) } },
    { title: 'Egress rules selecting it as a destination', table: { columns: ['POLICY', 'DIRECTION', 'RULE'], rows: q.egressDstRules.map(rule) } },
  ];
}
