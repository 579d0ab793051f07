/**
 * Keeps this node's AntreaAgentInfo (crd.antrea.io/v1beta1, cluster-scoped, named after the
 * node) current: OVS info with flow counts per table, local pod count, node subnets, policy
 * counts, the AgentHealthy / ControllerConnectionUp conditions with a heartbeat, and the port of
 * the agent's API (what `yardctl --node` reaches through the API server's node proxy).
 */
import type { AntreaAgentInfo } from '@switchyard/apis';
import { KubeRequestError, type KubeClient } from '@switchyard/kube';
import { agentInfo, type AgentIntrospection } from '../api/api';
import { silentLogger, systemClock, type Clock, type Logger, type TimerHandle } from '@switchyard/runtime';

/** The collection path of AntreaAgentInfo objects. */
export const AGENT_INFO_PATH = '/apis/crd.antrea.io/v1beta1/antreaagentinfos';

/** Agent version written into AntreaAgentInfo. */
export const AGENT_VERSION = '0.1.0';

/** Options of {@link AgentInfoReporter}. */
export interface AgentInfoReporterOptions {
  kube: KubeClient;
  agent: AgentIntrospection;
  /** TCP port of the agent API; omitted when the agent serves only its unix socket. */
  apiPort?: number;
  /** Heartbeat period (default 60 s, as Antrea). */
  intervalMs?: number;
  clock?: Clock;
  logger?: Logger;
}

/** Builds the AntreaAgentInfo object for the current agent state. */
export async function buildAgentInfo(a: AgentIntrospection, apiPort: number | undefined, now: Date): Promise<AntreaAgentInfo> {
  const info = await agentInfo(a, now);
  return {
    apiVersion: 'crd.antrea.io/v1beta1',
    kind: 'AntreaAgentInfo',
    metadata: { name: a.nodeName },
    version: AGENT_VERSION,
    nodeRef: a.nodeRef ?? { kind: 'Node', name: a.nodeName },
    nodeSubnets: info.nodeSubnets,
    ovsInfo: info.ovsInfo,
    networkPolicyControllerInfo: info.networkPolicyControllerInfo,
    localPodNum: info.localPodNum,
    agentConditions: info.agentConditions,
    ...(apiPort !== undefined ? { apiPort } : {}),
  };
}

/** Writes AntreaAgentInfo now and then every heartbeat period. */
export class AgentInfoReporter {
  private readonly clock: Clock;
  private readonly log: Logger;
  private timer: TimerHandle | undefined;
  private stopped = false;
  private running: Promise<void> | undefined;
  /** Successful writes so far. */
  writes = 0;
  lastError: unknown;
  /** Failed writes since the last success: the next try comes after 1, 2, 4 ... s, capped at the heartbeat period. */
  private failures = 0;

  constructor(private readonly o: AgentInfoReporterOptions) {
    this.clock = o.clock ?? systemClock;
    this.log = o.logger ?? silentLogger;
  }

  start(): void {
    this.tick();
  }

  private tick(): void {
    if (this.stopped) return;
    this.running = this.report()
      .then(
        () => void (this.failures = 0),
        (e: unknown) => {
          this.lastError = e;
          this.failures++;
          this.log.warn({ err: e instanceof Error ? e.message : String(e), retryInMs: this.nextDelayMs() }, 'AntreaAgentInfo not written; retrying');
        },
      )
      .finally(() => {
        this.running = undefined;
        if (!this.stopped) this.timer = this.clock.setTimeout(() => this.tick(), this.nextDelayMs());
      });
  }

  /**
   * The heartbeat period, or after a failed write a shorter wait: a write that fails while OVS
   * restarts (the flow counts come from its OpenFlow connection) is tried again within seconds, so
   * the part is not reported unhealthy for a whole period.
   */
  private nextDelayMs(): number {
    const period = this.o.intervalMs ?? 60_000;
    return this.failures === 0 ? period : Math.min(period, 1000 * 2 ** Math.min(this.failures - 1, 16));
  }

  /** Writes the object once (create, or replace the fields of the existing one). */
  async report(): Promise<void> {
    const obj = await buildAgentInfo(this.o.agent, this.o.apiPort, new Date(this.clock.now()));
    const path = `${AGENT_INFO_PATH}/${encodeURIComponent(this.o.agent.nodeName)}`;
    try {
      const cur = await this.o.kube.request<AntreaAgentInfo>('GET', path);
      await this.o.kube.request('PUT', path, { ...obj, metadata: { ...obj.metadata, resourceVersion: cur.metadata.resourceVersion } });
    } catch (e) {
      if (!(e instanceof KubeRequestError && e.status === 404)) throw e;
      await this.o.kube.request('POST', AGENT_INFO_PATH, obj);
    }
    this.writes++;
    this.lastError = undefined;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    await this.running;
  }
}
