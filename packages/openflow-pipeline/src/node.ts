/** The whole node: picks tables from enabled features, runs every feature module, adds miss flows. */
import type { Flow } from '@switchyard/openflow/codec';
import { CookieCategory, makeCookie } from './cookie';
import { Pipeline, type TableName } from './tables';
import type { NodeState } from './state';
import { podConnectivityBaseFlows, podConnectivityTables, podFlows, remoteNodeFlows } from './features/pod';
import { networkPolicyFlows, networkPolicyTables, policyRuleKeys, assignConjunctionIds } from './features/policy';
import { serviceBaseFlows, serviceHairpinPodFlows, servicePortFlows, serviceTables } from './features/service';
import { externalNodeFlows, externalNodeTables, fqdnFlows, multiclusterFlows } from './features/extras';
import { formatFlow, type Group } from './format';
import { FlowIndex, flowHash } from './identity';

/** Result of {@link computeNodeFlows}. */
export interface NodeFlows {
  pipeline: Pipeline;
  flows: Flow[];
  groups: Group[];
  /** Conjunction ids in use, by rule key: pass back as `state.conjIds` next time. */
  conjIds: Map<string, number>;
}

/** Options that are not node state. */
export interface ComputeOptions {
  /** Controller connection id in packet-in actions (Antrea: 62373). */
  controllerId?: number;
  /** First group id of NetworkPolicy logging groups (Service groups use their own ids). */
  policyGroupIdBase?: number;
}

/** Tables realized for a node state. */
export function requiredTables(state: NodeState): TableName[] {
  const cfg = state.config;
  const t: TableName[] = [];
  if (state.externalNode) t.push(...externalNodeTables());
  else t.push(...podConnectivityTables());
  t.push(...networkPolicyTables(cfg));
  if (state.externalNode) t.push('AntreaPolicyEgressRule', 'AntreaPolicyIngressRule');
  if (cfg.enableProxy && !state.externalNode) t.push(...serviceTables());
  return t;
}

/**
 * Computes every flow and group of the node. Pure and deterministic: the same state gives the
 * same flows in the same order.
 */
export function computeNodeFlows(state: NodeState, opts: ComputeOptions = {}): NodeFlows {
  const cfg = state.config;
  const p = Pipeline.build(requiredTables(state));
  const flows: Flow[] = [];
  const groups: Group[] = [];
  if (state.externalNode) {
    flows.push(...externalNodeFlows(p, cfg, state.externalNode));
  } else {
    flows.push(...podConnectivityBaseFlows(p, cfg));
    for (const pod of state.pods) flows.push(...podFlows(p, cfg, pod));
    for (const peer of state.remoteNodes) flows.push(...remoteNodeFlows(p, cfg, peer));
  }
  if (cfg.enableProxy && !state.externalNode) {
    flows.push(...serviceBaseFlows(p, cfg, opts.controllerId));
    for (const pod of state.pods) flows.push(...serviceHairpinPodFlows(p, cfg, pod));
    for (const s of state.services ?? []) {
      const r = servicePortFlows(p, cfg, s);
      flows.push(...r.flows);
      groups.push(...r.groups);
    }
  }
  const npInput = { policies: state.policies, addressGroups: state.addressGroups, appliedToGroups: state.appliedToGroups, pods: state.pods };
  const conjIds = state.conjIds ?? assignConjunctionIds(new Map(), policyRuleKeys(npInput));
  const np = networkPolicyFlows(p, cfg, {
    ...npInput, conjIds, ...(opts.controllerId !== undefined ? { controllerId: opts.controllerId } : {}),
    ...(opts.policyGroupIdBase !== undefined ? { groupIdBase: opts.policyGroupIdBase } : {}),
    ...(state.fqdn?.addresses ? { fqdnAddresses: state.fqdn.addresses } : {}),
  });
  flows.push(...np.flows);
  groups.push(...np.groups);
  if (state.multicluster && !state.externalNode) flows.push(...multiclusterFlows(p, cfg, state.multicluster));
  if (state.fqdn && cfg.enableAntreaPolicy) flows.push(...fqdnFlows(p, cfg, state.fqdn, opts.controllerId));
  // Miss flows last, unless a feature owns the table's priority-0 catch-all.
  const owned = new Set(flows.filter((f) => f.priority === 0 && Object.keys(f.match).length === 0).map((f) => f.table));
  flows.push(...p.missFlows(makeCookie(cfg.round, CookieCategory.Default)).filter((f) => !owned.has(f.table)));
  return { pipeline: p, flows: dedupeFlows(flows), groups, conjIds: np.conjIds };
}

/** Later duplicates of one identity are dropped (features may emit the same flow twice). */
function dedupeFlows(flows: Flow[]): Flow[] {
  const index = new FlowIndex();
  for (const f of flows) {
    const h = flowHash(f);
    if (index.find(f, h) < 0) index.insert(f, h);
  }
  return index.flows;
}

/** Renders flows with table names, as `antctl get ovsflows` / `yardctl get ovsflows`. */
export function dumpFlows(nf: Pick<NodeFlows, 'pipeline' | 'flows'>, opts: { cookie?: boolean } = {}): string[] {
  return nf.flows.map((f) => formatFlow(f, { tableName: (id) => nf.pipeline.nameOf(id), ...opts }));
}
