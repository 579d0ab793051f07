/** The agentinfo part (with a Kubernetes API): keeps this node's AntreaAgentInfo current. */
import type { KubeClient } from '@switchyard/kube';
import { systemClock, type Part, type PartHealth } from '@switchyard/runtime';
import { AgentInfoReporter } from './agent-info';
import type { AgentIntrospection } from '../api/api';
import type { AgentContext } from '../../context';
import type { AgentApi } from '../api/part';

export class AgentInfoHeartbeat implements Part {
  readonly name = 'agentinfo';
  private reporter: AgentInfoReporter | undefined;

  /** Follows the API part: the object names the TCP port it serves. */
  constructor(
    private readonly ctx: AgentContext,
    private readonly kube: KubeClient,
    private readonly introspect: () => AgentIntrospection,
    private readonly api: Pick<AgentApi, 'port'>,
  ) {}

  async start(): Promise<void> {
    // Nothing to prime: the object describes the running agent, written from sync on.
  }

  async sync(): Promise<void> {
    const o = this.ctx.options;
    const apiPort = this.api.port;
    this.reporter = new AgentInfoReporter({
      kube: this.kube,
      agent: this.introspect(),
      ...(apiPort !== undefined ? { apiPort } : {}),
      intervalMs: o.agentInfoIntervalMs,
      clock: o.clock ?? systemClock,
      logger: this.ctx.log,
    });
    this.reporter.start();
  }

  async stop(): Promise<void> {
    await this.reporter?.stop();
  }

  health(): PartHealth {
    const r = this.reporter;
    if (!r) return { ok: false, detail: 'not started' };
    if (r.lastError !== undefined) return { ok: false, detail: `last write failed: ${r.lastError instanceof Error ? r.lastError.message : String(r.lastError)}` };
    return { ok: true, detail: `${r.writes} writes` };
  }
}
