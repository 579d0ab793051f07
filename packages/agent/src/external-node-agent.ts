/**
 * The agent of an ExternalNode (nodeType externalNode: a VM or bare-metal host, no pods): a list of
 * parts behind the same lifecycle as the node agent. The parts, in order:
 *
 * - `external-node`: the bridge, the uplink swap of the ExternalNode's interfaces, the pair-port pipeline
 * - `policies`: the controlplane stream and NetworkPolicy realization (when a controller is configured)
 * - `api`: the local API on `apiSocket` (agentinfo, ovsflows, healthz), when one is given
 * - `agentinfo`: this host's AntreaAgentInfo, with why the ExternalNode is not realized when it is not
 */
import type { KubeClient } from '@switchyard/kube';
import { composeParts, type PartEntry, type PartSet } from '@switchyard/runtime';
import type { AgentIntrospection } from './features/api/api';
import { switchIntrospection } from './features/api/introspection';
import { agentContext, type AgentContext } from './context';
import { agentHealth, type AgentHealth } from './health';
import type { AgentOptions } from './options';
import { AgentApi } from './features/api/part';
import { AgentInfoHeartbeat } from './features/agentinfo/part';
import { ExternalNodeMode } from './features/external-node/part';
import type { ExternalNodeOptions } from './features/external-node/options';
import { PolicyEnforcement } from './features/policy/part';

/** Options of an ExternalNode agent: the node agent's (pod settings unused) plus the ExternalNode ones. */
export type ExternalNodeAgentOptions = Omit<AgentOptions, 'podCIDR' | 'nodeIP' | 'kube' | 'apiPort' | 'apiBindAddress'> & {
  kube: KubeClient;
  externalNode: ExternalNodeOptions;
};

/** What the parts of an ExternalNode agent are made from. */
interface ExternalNodePartContext extends AgentContext {
  readonly kube: KubeClient;
  readonly externalNode: ExternalNodeOptions;
  readonly introspect: () => AgentIntrospection;
}

/** The ExternalNode agent's parts in start order (the node agent's list is features/index.ts). */
const EXTERNAL_NODE_PARTS: readonly PartEntry<ExternalNodePartContext>[] = [
  { name: 'external-node', make: (ctx) => new ExternalNodeMode(ctx, ctx.kube, ctx.externalNode) },
  {
    name: 'policies',
    enabled: (ctx) => ctx.options.controlplane !== undefined,
    after: ['external-node'],
    make: (ctx, parts) => new PolicyEnforcement(ctx, parts.require<ExternalNodeMode>('external-node')),
  },
  // The local API (unix socket, `apiSocket`): agentinfo, ovsflows, health on the VM itself.
  { name: 'api', make: (ctx) => new AgentApi(ctx, ctx.introspect) },
  { name: 'agentinfo', after: ['api'], make: (ctx, parts) => new AgentInfoHeartbeat(ctx, ctx.kube, ctx.introspect, parts.require<AgentApi>('api')) },
];

/** Each part of the ExternalNode agent by name: what `ExternalNodeAgent.part(name)` returns. */
export interface ExternalNodeParts {
  'external-node': ExternalNodeMode;
  policies: PolicyEnforcement;
  api: AgentApi;
  agentinfo: AgentInfoHeartbeat;
}

/** A running ExternalNode agent. */
export class ExternalNodeAgent {
  readonly startTime = new Date();
  private readonly parts: PartSet;
  private readonly externalNamespace: string;

  private constructor(private readonly ctx: AgentContext, o: ExternalNodeAgentOptions) {
    this.externalNamespace = o.externalNode.namespace;
    this.parts = composeParts(EXTERNAL_NODE_PARTS, { ...ctx, kube: o.kube, externalNode: o.externalNode, introspect: () => this.introspection() });
  }

  /** The part `name` (tests reach a part's state through it); `PartError` `PART_MISSING` when it is off. @internal */
  part<N extends keyof ExternalNodeParts>(name: N): ExternalNodeParts[N] {
    return this.parts.require<ExternalNodeParts[N]>(name);
  }

  private get mode(): ExternalNodeMode {
    return this.part('external-node');
  }

  /** Swaps the ExternalNode's interfaces onto OVS and starts following it; on a failure, what was started is stopped. */
  static async start(o: ExternalNodeAgentOptions): Promise<ExternalNodeAgent> {
    // No pods here: the pod CIDR and transport address of a Kubernetes node do not apply.
    const ctx = agentContext({ ...o, podCIDR: '0.0.0.0/32', nodeIP: '0.0.0.0', trafficMode: 'encap' });
    const agent = new ExternalNodeAgent(ctx, o);
    try {
      await agent.parts.start(ctx.log);
    } catch (e) {
      ctx.net.close();
      throw e;
    }
    return agent;
  }

  /** Stops following the ExternalNode; the swapped interfaces and flows stay (the host keeps its policies). */
  async stop(): Promise<void> {
    try {
      await this.parts.stop(this.ctx.log);
    } finally {
      this.ctx.net.close();
    }
  }

  /** Puts every swapped interface back as it was, then stops. */
  async uninstall(): Promise<void> {
    await this.mode.uninstall();
    await this.stop();
  }

  health(): AgentHealth {
    return agentHealth(this.parts.health());
  }

  /** Read access for the AntreaAgentInfo heartbeat and tests. @internal */
  introspection(): AgentIntrospection {
    const mode = this.mode;
    return {
      nodeName: this.ctx.options.nodeName,
      nodeRef: { kind: 'ExternalNode', name: this.ctx.options.nodeName, namespace: this.externalNamespace },
      podCIDR: '',
      bridge: this.ctx.options.bridge,
      round: mode.datapath.round,
      startTime: this.startTime,
      podInterfaces: () => [],
      policyCounts: () => this.parts.get<PolicyEnforcement>('policies')?.policies.view.counts ?? { policies: 0, addressGroups: 0, appliedToGroups: 0 },
      metrics: this.ctx.metrics,
      controllerConnected: () => this.parts.get<PolicyEnforcement>('policies')?.policies.client?.connected,
      ...switchIntrospection(() => ({ ovsdb: mode.datapath.ovsdb, openflow: mode.openflow, flows: mode.flows })),
      health: () => this.health(),
      healthCondition: () => (mode.problem === undefined ? { status: 'True' } : { status: 'False', reason: 'ExternalNodeNotRealized', message: mode.problem }),
    };
  }
}
