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
import { ops, unwrap } from '@switchyard/ovsdb';
import type { TableName } from '@switchyard/openflow-pipeline';
import type { AgentIntrospection } from './api';
import { agentContext, type AgentContext } from './context';
import { healthOf, startControllers, stopControllers, type AgentController, type AgentHealth } from './lifecycle';
import type { AgentOptions } from './options';
import { AgentApi } from './parts/agent-api';
import { AgentInfoHeartbeat } from './parts/agent-info-heartbeat';
import { ExternalNodeMode, type ExternalNodeOptions } from './parts/external-node';
import { PolicyEnforcement } from './parts/policy-enforcement';

/** Options of an ExternalNode agent: the node agent's (pod settings unused) plus the ExternalNode ones. */
export type ExternalNodeAgentOptions = Omit<AgentOptions, 'podCIDR' | 'nodeIP' | 'kube' | 'apiPort' | 'apiBindAddress'> & {
  kube: KubeClient;
  externalNode: ExternalNodeOptions;
};

/** A running ExternalNode agent. */
export class ExternalNodeAgent {
  readonly startTime = new Date();
  readonly mode: ExternalNodeMode;
  readonly policies: PolicyEnforcement | undefined;
  private readonly parts: AgentController[];
  private readonly externalNamespace: string;

  private constructor(private readonly ctx: AgentContext, o: ExternalNodeAgentOptions) {
    this.externalNamespace = o.externalNode.namespace;
    this.mode = new ExternalNodeMode(ctx, o.kube, o.externalNode);
    this.policies = o.controlplane ? new PolicyEnforcement(ctx, this.mode) : undefined;
    // The local API (unix socket, `apiSocket`): agentinfo, ovsflows, health on the VM itself.
    const api = new AgentApi(ctx, () => this.introspection());
    const heartbeat = new AgentInfoHeartbeat(ctx, o.kube, () => this.introspection(), api);
    this.parts = [this.mode, ...(this.policies ? [this.policies] : []), api, heartbeat];
  }

  /** Swaps the ExternalNode's interfaces onto OVS and starts following it; on a failure, what was started is stopped. */
  static async start(o: ExternalNodeAgentOptions): Promise<ExternalNodeAgent> {
    // No pods here: the pod CIDR and transport address of a Kubernetes node do not apply.
    const ctx = agentContext({ ...o, podCIDR: '0.0.0.0/32', nodeIP: '0.0.0.0', trafficMode: 'encap' });
    const agent = new ExternalNodeAgent(ctx, o);
    try {
      await startControllers(agent.parts, ctx.log);
    } catch (e) {
      ctx.net.close();
      throw e;
    }
    return agent;
  }

  /** Stops following the ExternalNode; the swapped interfaces and flows stay (the host keeps its policies). */
  async stop(): Promise<void> {
    try {
      await stopControllers(this.parts, this.ctx.log);
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
    return healthOf(this.parts);
  }

  /** Read access for the AntreaAgentInfo heartbeat and tests. @internal */
  introspection(): AgentIntrospection {
    const mode = this.mode;
    const pipeline = () => mode.flows.nodeFlows?.pipeline;
    return {
      nodeName: this.ctx.options.nodeName,
      nodeRef: { kind: 'ExternalNode', name: this.ctx.options.nodeName, namespace: this.externalNamespace },
      podCIDR: '',
      bridge: this.ctx.options.bridge,
      round: mode.datapath.round,
      startTime: this.startTime,
      podInterfaces: () => [],
      policyCounts: () => this.policies?.policies.view.counts ?? { policies: 0, addressGroups: 0, appliedToGroups: 0 },
      metrics: this.ctx.metrics,
      controllerConnected: () => this.policies?.policies.client?.connected,
      installedFlows: () => mode.openflow.dumpFlows(),
      tableName: (id) => pipeline()?.nameOf(id),
      tableId: (name) => {
        try {
          return pipeline()?.id(name as TableName);
        } catch {
          return undefined;
        }
      },
      ovsVersion: async () => {
        const r = unwrap(await mode.datapath.ovsdb.transact('Open_vSwitch', [ops.select('Open_vSwitch', [], ['ovs_version'])]));
        const res = r.results[0];
        const v = res?.op === 'select' ? res.rows[0]?.ovs_version : undefined;
        if (typeof v === 'string' && v) return v;
        const desc = await mode.openflow.multipart({ kind: 'desc' });
        return desc.kind === 'desc' ? desc.sw : '';
      },
      health: () => this.health(),
      healthCondition: () => (mode.problem === undefined ? { status: 'True' } : { status: 'False', reason: 'ExternalNodeNotRealized', message: mode.problem }),
    };
  }
}
