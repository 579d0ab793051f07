// The control-plane checks of `yardctl check installation`: the controller Deployment and the agent
// DaemonSet ready, or, where they are not Kubernetes workloads (the lab runs them as processes),
// their AntreaControllerInfo / AntreaAgentInfo heartbeats. Verdicts are pure functions of the objects.
import { AGENT_INFO_PATH } from './agent-client';

/** Where Switchyard's workloads live unless `--switchyard-namespace` says otherwise. */
export const DEFAULT_SWITCHYARD_NAMESPACE = 'kube-system';
export const CONTROLLER_DEPLOYMENT = 'switchyard-controller';
export const AGENT_DAEMONSET = 'switchyard-agent';
export const CONTROLLER_INFO_PATH = '/apis/crd.antrea.io/v1beta1/antreacontrollerinfos/antrea-controller';
/**
 * A heartbeat older than this is stale: three periods of the default 60 s heartbeat of the
 * controller and the agents (the controller's Traceflow takes an agent for dead after three).
 */
export const HEARTBEAT_MAX_AGE_MS = 3 * 60_000;

/** A verdict while waiting: ready, with what was seen. */
export interface Readiness {
  ready: boolean;
  message: string;
}

interface Condition { type: string; status: string; lastHeartbeatTime?: string }
export interface DeploymentLike { spec?: { replicas?: number }; status?: { readyReplicas?: number; updatedReplicas?: number } }
export interface DaemonSetLike { status?: { desiredNumberScheduled?: number; numberReady?: number } }
export interface ControllerInfoLike { controllerConditions?: Condition[]; version?: string }
export interface AgentInfoLike { metadata?: { name?: string }; nodeRef?: { name?: string }; agentConditions?: Condition[] }
export interface NodeLike { metadata: { name: string } }

export function deploymentReadiness(d: DeploymentLike, ref: string): Readiness {
  const want = d.spec?.replicas ?? 1;
  const ready = d.status?.readyReplicas ?? 0;
  return { ready: want > 0 && ready >= want, message: `Deployment ${ref}: ${ready}/${want} ready` };
}

export function daemonSetReadiness(ds: DaemonSetLike, ref: string): Readiness {
  const want = ds.status?.desiredNumberScheduled ?? 0;
  const ready = ds.status?.numberReady ?? 0;
  return { ready: want > 0 && ready >= want, message: `DaemonSet ${ref}: ${ready}/${want} ready` };
}

/** Age of a condition's heartbeat in whole seconds, or undefined when it has none. */
function heartbeatAgeS(c: Condition | undefined, now: number): number | undefined {
  const t = c?.lastHeartbeatTime === undefined ? NaN : Date.parse(c.lastHeartbeatTime);
  return Number.isNaN(t) ? undefined : Math.max(0, Math.round((now - t) / 1000));
}

/** What is wrong with one health condition (`AgentHealthy`, `ControllerHealthy`), or undefined when it is True and fresh. */
function heartbeatProblem(conds: Condition[] | undefined, type: string, now: number): string | undefined {
  const c = (conds ?? []).find((x) => x.type === type);
  if (!c) return `no ${type} condition`;
  if (c.status !== 'True') return `${type}=${c.status}`;
  const age = heartbeatAgeS(c, now);
  if (age === undefined) return `${type} has no heartbeat time`;
  if (age * 1000 > HEARTBEAT_MAX_AGE_MS) return `last heartbeat ${age}s ago (stale after ${HEARTBEAT_MAX_AGE_MS / 1000}s)`;
  return undefined;
}

export function controllerInfoReadiness(info: ControllerInfoLike, now: number, why: string): Readiness {
  const problem = heartbeatProblem(info.controllerConditions, 'ControllerHealthy', now);
  const age = heartbeatAgeS((info.controllerConditions ?? []).find((c) => c.type === 'ControllerHealthy'), now);
  return problem
    ? { ready: false, message: `AntreaControllerInfo antrea-controller: ${problem} (${why})` }
    : { ready: true, message: `AntreaControllerInfo antrea-controller: ControllerHealthy, heartbeat ${age}s ago (${why})` };
}

/** Every Node has an AntreaAgentInfo (named after the node) that is AgentHealthy with a fresh heartbeat. */
export function agentInfosReadiness(nodes: readonly NodeLike[], infos: readonly AgentInfoLike[], now: number, why: string): Readiness {
  if (nodes.length === 0) return { ready: false, message: `no Nodes in the cluster (${why})` };
  const byNode = new Map(infos.map((i) => [i.nodeRef?.name ?? i.metadata?.name ?? '', i]));
  const problems: string[] = [];
  let oldest = 0;
  for (const n of nodes) {
    const info = byNode.get(n.metadata.name);
    const problem = info ? heartbeatProblem(info.agentConditions, 'AgentHealthy', now) : 'no AntreaAgentInfo';
    if (problem) problems.push(`${n.metadata.name}: ${problem}`);
    else oldest = Math.max(oldest, heartbeatAgeS((info?.agentConditions ?? []).find((c) => c.type === 'AgentHealthy'), now) ?? 0);
  }
  const healthy = nodes.length - problems.length;
  if (problems.length) return { ready: false, message: `${healthy}/${nodes.length} agents healthy; ${problems.join('; ')} (${why})` };
  return { ready: true, message: `${healthy}/${nodes.length} agents AgentHealthy in AntreaAgentInfo, heartbeats at most ${oldest}s old (${why})` };
}

/** The API paths the control-plane checks read. */
export const controlPlanePaths = (ns: string) => ({
  deployment: `/apis/apps/v1/namespaces/${ns}/deployments/${CONTROLLER_DEPLOYMENT}`,
  daemonSet: `/apis/apps/v1/namespaces/${ns}/daemonsets/${AGENT_DAEMONSET}`,
  controllerInfo: CONTROLLER_INFO_PATH,
  agentInfos: AGENT_INFO_PATH,
  nodes: '/api/v1/nodes',
});
