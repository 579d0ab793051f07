/**
 * The node agent: the parts of `AGENT_PARTS` (features/index.ts) that its options enable, composed
 * with runtime's `composeParts`, started in order, synced in order once the first round is primed,
 * and stopped in reverse.
 */
import { composeParts, type PartSet } from '@switchyard/runtime';
import type { AgentIntrospection } from './features/api/api';
import { switchIntrospection } from './features/api/introspection';
import { servicePortInfos } from './features/services/introspection';
import type { NodeInfo } from './bridge';
import { agentContext, type AgentContext } from './context';
import { AGENT_PARTS, partOf, type AgentPartName, type AgentParts } from './features/index';
import { agentHealth, type AgentHealth } from './health';
import type { AgentOptions, ResolvedAgentOptions } from './options';

/** A running node agent. */
export class Agent {
  /** The options with every default applied. */
  readonly options: ResolvedAgentOptions;
  readonly startTime = new Date();
  private readonly ctx: AgentContext;
  private readonly parts: PartSet;

  private constructor(ctx: AgentContext) {
    this.ctx = ctx;
    this.options = ctx.options;
    this.parts = composeParts(AGENT_PARTS, { ...ctx, introspect: () => this.introspection() });
  }

  /** Brings the node up and starts serving CNI; on a failure, what was started is stopped again. */
  static async start(o: AgentOptions): Promise<Agent> {
    const agent = new Agent(agentContext(o));
    try {
      await agent.parts.start(agent.ctx.log);
    } catch (e) {
      agent.ctx.net.close();
      throw e;
    }
    return agent;
  }

  /** Stops serving and closes every connection, parts in reverse start order. The datapath (ports, flows) stays as it is. */
  async stop(): Promise<void> {
    try {
      await this.parts.stop(this.ctx.log);
    } finally {
      // The netlink socket every part shared goes last.
      this.ctx.net.close();
    }
    this.ctx.log.info({}, 'agent stopped');
  }

  /** Each part's health, in start order. */
  health(): AgentHealth {
    return agentHealth(this.parts.health());
  }

  /** The node's gateway and tunnel ports. */
  get node(): NodeInfo {
    return partOf(this.parts, 'node').node;
  }

  /** The cookie round of this run's flows. */
  get round(): number {
    return partOf(this.parts, 'node').round;
  }

  /** The TCP port of the agent API, when it serves one. */
  get apiPort(): number | undefined {
    return partOf(this.parts, 'api').port;
  }

  /**
   * The part `name` (tests and tools reach a part's state through it); `PartError` `PART_MISSING`
   * when the options leave it off. @internal
   */
  part<N extends AgentPartName>(name: N): AgentParts[N] {
    return partOf(this.parts, name);
  }

  /** Read access for the local API, the AntreaAgentInfo heartbeat and tests. @internal */
  introspection(): AgentIntrospection {
    const node = partOf(this.parts, 'node');
    const policies = partOf(this.parts, 'policies');
    const intro: AgentIntrospection = {
      nodeName: this.options.nodeName,
      podCIDR: this.options.podCIDR,
      ...(this.options.podCIDRv6 !== undefined ? { podCIDRv6: this.options.podCIDRv6 } : {}),
      bridge: this.options.bridge,
      round: node.round,
      startTime: this.startTime,
      podInterfaces: () => node.interfaces.list(),
      policyCounts: () => policies.policies.view.counts,
      metrics: this.ctx.metrics,
      controllerConnected: () => policies.policies.client?.connected,
      policyConjIds: (ref) => {
        const flows = node.flows;
        const [ns, name] = ref.includes('/') ? (ref.split('/', 2) as [string, string]) : [undefined, ref];
        const np = flows.get('policies').find((p) => p.uid === ref) ??
          flows.get('policies').find((p) => p.sourceRef.name === name && (ns === undefined || p.sourceRef.namespace === ns));
        if (!np) return undefined;
        const ids: number[] = [];
        for (const [k, id] of flows.conjIds ?? []) if (k.startsWith(`${np.uid}/`)) ids.push(id);
        return ids;
      },
      ...switchIntrospection(() => node),
      health: () => this.health(),
    };
    const proxy = this.parts.get<AgentParts['services']>('services');
    if (proxy) intro.services = () => servicePortInfos({ specs: proxy.services.specs, groups: proxy.services.groups(), healthChecks: proxy.services.healthChecks, served: proxy.host.healthChecks() });
    const externalIP = this.parts.get<AgentParts['external-ip']>('external-ip');
    return externalIP ? { ...intro, serviceExternalIPs: () => externalIP.serviceExternalIPs() } : intro;
  }
}
