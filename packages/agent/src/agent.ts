/**
 * The node agent: a list of parts behind one lifecycle (lifecycle.ts), started in order, synced
 * in order once the first round is primed, and stopped in reverse. The parts, in order:
 *
 * - `node`: bridge, gateway and tunnel ports, interface store, cookie round, flow sync
 * - `pods`: IPAM, pod attachment, stale ports of the previous run, the CNI server
 * - `policies`: controlplane stream, NetworkPolicy realization, Reject replies, np.log, FQDN
 * - `api`: the local API (unix socket) and the agent API (TCP)
 * - with a Kubernetes API: `routes` (remote nodes and host routes), `pod-gc`, `services`
 *   (AntreaProxy, when enabled) and `agentinfo` (AntreaAgentInfo heartbeat); with
 *   trafficEncryptionMode wireGuard, `wireguard` (device, key, peers) before `routes`; with
 *   Multicluster (and enableGateway), `multicluster` (routes to other clusters through the Gateway)
 */
import type { OvsdbClient, VSwitch } from '@switchyard/ovsdb';
import type { SwitchConnection } from '@switchyard/openflow';
import { ops, unwrap } from '@switchyard/ovsdb';
import type { TableName } from '@switchyard/openflow-pipeline';
import type { AgentIntrospection } from './api';
import type { NodeInfo } from './bridge';
import { agentContext, type AgentContext } from './context';
import type { FlowSync } from './flow-sync';
import type { InterfaceStore } from './interface-store';
import { healthOf, startControllers, stopControllers, type AgentController, type AgentHealth } from './lifecycle';
import type { AgentMetrics } from './metrics';
import type { NodeRouteController } from './node-routes';
import type { AgentOptions, ResolvedAgentOptions } from './options';
import type { PodNetwork } from './pods';
import type { NetworkPolicyController } from './policy/controller';
import type { FqdnController } from './policy/fqdn';
import type { PolicyAuditLog } from './policy/audit-log';
import type { RejectResponder } from './policy/reject';
import type { ServiceController } from './services';
import { AgentApi } from './parts/agent-api';
import { AgentInfoHeartbeat } from './parts/agent-info-heartbeat';
import { NodeDatapath } from './parts/node-datapath';
import { PodAttachments } from './parts/pod-attachments';
import { PodGC } from './parts/pod-gc';
import { PolicyEnforcement } from './parts/policy-enforcement';
import { RemoteNodes } from './parts/remote-nodes';
import { ServiceProxy } from './parts/service-proxy';
import { WireGuardTunnel } from './parts/wireguard';
import { MulticlusterRoutes } from './parts/multicluster';

/** The parts of one agent, by role; `list` is the start order. */
interface Parts {
  node: NodeDatapath;
  pods: PodAttachments;
  policies: PolicyEnforcement;
  api: AgentApi;
  routes?: RemoteNodes;
  services?: ServiceProxy;
  wireGuard?: WireGuardTunnel;
  multicluster?: MulticlusterRoutes;
  list: AgentController[];
}

/** The parts the options ask for. A new part is one construction here and one entry in `list`. */
function composeParts(ctx: AgentContext, introspect: () => AgentIntrospection): Parts {
  const { kube, enableProxy } = ctx.options;
  const node = new NodeDatapath(ctx);
  const pods = new PodAttachments(ctx, node);
  const policies = new PolicyEnforcement(ctx, node);
  const api = new AgentApi(ctx, introspect);
  if (!kube) return { node, pods, policies, api, list: [node, pods, policies, api] };
  const routes = new RemoteNodes(ctx, kube, node);
  const services = enableProxy ? new ServiceProxy(ctx, kube, node) : undefined;
  // Before the routes part: its routes name the WireGuard device, which must exist.
  const wireGuard = ctx.wireGuard ? new WireGuardTunnel(ctx, kube) : undefined;
  // Multi-cluster routes need AntreaProxy (its SNAT tables, and imported Services' DNAT), as in Antrea.
  const mc = ctx.options.multicluster;
  if (mc && !enableProxy) ctx.log.warn({ namespace: mc.namespace }, 'Multicluster needs AntreaProxy: the gateway dataplane stays off');
  const multicluster = mc && enableProxy ? new MulticlusterRoutes(ctx, kube, node, mc) : undefined;
  const list: AgentController[] = [node, pods, policies, api, ...(wireGuard ? [wireGuard] : []), routes, new PodGC(ctx, kube, node, pods), ...(services ? [services] : []), ...(multicluster ? [multicluster] : []), new AgentInfoHeartbeat(ctx, kube, introspect, api)];
  return { node, pods, policies, api, routes, ...(services ? { services } : {}), ...(wireGuard ? { wireGuard } : {}), ...(multicluster ? { multicluster } : {}), list };
}

/** A running node agent. */
export class Agent {
  /** The options with every default applied. */
  readonly options: ResolvedAgentOptions;
  readonly startTime = new Date();
  private readonly ctx: AgentContext;
  private readonly parts: Parts;

  private constructor(ctx: AgentContext) {
    this.ctx = ctx;
    this.options = ctx.options;
    this.parts = composeParts(ctx, () => this.introspection());
  }

  /** Brings the node up and starts serving CNI; on a failure, what was started is stopped again. */
  static async start(o: AgentOptions): Promise<Agent> {
    const agent = new Agent(agentContext(o));
    try {
      await startControllers(agent.parts.list, agent.ctx.log);
    } catch (e) {
      agent.ctx.net.close();
      throw e;
    }
    return agent;
  }

  /** Stops serving and closes every connection, parts in reverse start order. The datapath (ports, flows) stays as it is. */
  async stop(): Promise<void> {
    try {
      await stopControllers(this.parts.list, this.ctx.log);
    } finally {
      // The netlink socket every part shared goes last.
      this.ctx.net.close();
    }
    this.ctx.log.info({}, 'agent stopped');
  }

  /** Each part's health, in start order. */
  health(): AgentHealth {
    return healthOf(this.parts.list);
  }

  /** The node's gateway and tunnel ports. */
  get node(): NodeInfo {
    return this.parts.node.node;
  }

  /** The cookie round of this run's flows. */
  get round(): number {
    return this.parts.node.round;
  }

  /** The TCP port of the agent API, when it serves one. */
  get apiPort(): number | undefined {
    return this.parts.api.port;
  }

  /** @internal */
  get ovsdb(): OvsdbClient {
    return this.parts.node.ovsdb;
  }
  /** @internal */
  get vswitch(): VSwitch {
    return this.parts.node.vswitch;
  }
  /** @internal */
  get openflow(): SwitchConnection {
    return this.parts.node.openflow;
  }
  /** @internal */
  get flows(): FlowSync {
    return this.parts.node.flows;
  }
  /** @internal */
  get interfaces(): InterfaceStore {
    return this.parts.node.interfaces;
  }
  /** @internal */
  get pods(): PodNetwork {
    return this.parts.pods.pods;
  }
  /** @internal */
  get policies(): NetworkPolicyController {
    return this.parts.policies.policies;
  }
  /** @internal */
  get rejects(): RejectResponder {
    return this.parts.policies.rejects;
  }
  /** @internal */
  get auditLog(): PolicyAuditLog {
    return this.parts.policies.auditLog;
  }
  /** @internal */
  get fqdn(): FqdnController {
    return this.parts.policies.fqdn;
  }
  /** @internal */
  get metrics(): AgentMetrics {
    return this.ctx.metrics;
  }
  /** Remote nodes and host routes (present with a Kubernetes API, once started). @internal */
  get nodeRoutes(): NodeRouteController | undefined {
    return this.parts.routes?.routes;
  }
  /** The WireGuard device's peers (present with trafficEncryptionMode wireGuard). @internal */
  get wireGuard(): WireGuardTunnel | undefined {
    return this.parts.wireGuard;
  }
  /** Multi-cluster routes (present with Multicluster and enableGateway, a Kubernetes API and AntreaProxy). @internal */
  get multicluster(): MulticlusterRoutes | undefined {
    return this.parts.multicluster;
  }
  /** Service load balancing (present with a Kubernetes API and AntreaProxy on). @internal */
  get services(): ServiceController | undefined {
    return this.parts.services?.services;
  }

  /** Read access for the local API, the AntreaAgentInfo heartbeat and tests. @internal */
  introspection(): AgentIntrospection {
    const node = this.parts.node;
    const pipeline = () => node.flows.nodeFlows?.pipeline;
    return {
      nodeName: this.options.nodeName,
      podCIDR: this.options.podCIDR,
      bridge: this.options.bridge,
      round: node.round,
      startTime: this.startTime,
      podInterfaces: () => node.interfaces.list(),
      policyCounts: () => this.parts.policies.policies.view.counts,
      metrics: this.ctx.metrics,
      controllerConnected: () => this.parts.policies.policies.client?.connected,
      policyConjIds: (ref) => {
        const flows = node.flows;
        const [ns, name] = ref.includes('/') ? (ref.split('/', 2) as [string, string]) : [undefined, ref];
        const np = flows.policies.find((p) => p.uid === ref) ??
          flows.policies.find((p) => p.sourceRef.name === name && (ns === undefined || p.sourceRef.namespace === ns));
        if (!np) return undefined;
        const ids: number[] = [];
        for (const [k, id] of flows.conjIds ?? []) if (k.startsWith(`${np.uid}/`)) ids.push(id);
        return ids;
      },
      installedFlows: () => node.openflow.dumpFlows(),
      tableName: (id) => pipeline()?.nameOf(id),
      tableId: (name) => {
        try {
          return pipeline()?.id(name as TableName);
        } catch {
          return undefined; // not a table of this pipeline
        }
      },
      ovsVersion: async () => {
        // Open_vSwitch.ovs_version is written by ovs-ctl, not by ovs-vswitchd: ask the switch (OFPMP_DESC).
        const r = unwrap(await node.ovsdb.transact('Open_vSwitch', [ops.select('Open_vSwitch', [], ['ovs_version'])]));
        const res = r.results[0];
        const v = res?.op === 'select' ? res.rows[0]?.ovs_version : undefined;
        if (typeof v === 'string' && v) return v;
        const desc = await node.openflow.multipart({ kind: 'desc' });
        return desc.kind === 'desc' ? desc.sw : '';
      },
      health: () => this.health(),
    };
  }
}
