/**
 * The node agent's parts, as one list: each entry says when its part is on, what it starts after,
 * and how it is made (runtime's `PartEntry`). `Agent` composes this list with `composeParts`;
 * adding a part is one entry here and a name in {@link AgentParts}.
 */
import type { PartEntry, PartSet } from '@switchyard/runtime';
import type { AgentIntrospection } from './api/api';
import type { AgentContext } from '../context';
import { AgentApi } from './api/part';
import { AgentInfoHeartbeat } from './agentinfo/part';
import { ServiceExternalIPPart } from './external-ip/part';
import { EgressPart } from './egress/part';
import { MulticlusterRoutes } from './multicluster/part';
import { NodeDatapath } from './node/part';
import { PodAttachments } from './pods/part';
import { PodGC } from './pod-gc/part';
import { PolicyEnforcement } from './policy/part';
import { RemoteNodes } from './routes/part';
import { ServiceProxy } from './services/part';
import { TraceflowPart } from './traceflow/part';
import { TrafficControlPart } from './traffic-control/part';
import { WireGuardTunnel } from './wireguard/part';

/** What the parts of a node agent are made from: the shared context, and the agent's read access for the API parts. */
export interface AgentPartContext extends AgentContext {
  /** What the local API and AntreaAgentInfo read of the running agent (called once every part has started). */
  readonly introspect: () => AgentIntrospection;
}

/** Each part of the node agent by name: what `Agent.part(name)` returns. */
export interface AgentParts {
  node: NodeDatapath;
  pods: PodAttachments;
  policies: PolicyEnforcement;
  api: AgentApi;
  wireguard: WireGuardTunnel;
  routes: RemoteNodes;
  'pod-gc': PodGC;
  services: ServiceProxy;
  multicluster: MulticlusterRoutes;
  agentinfo: AgentInfoHeartbeat;
  'traffic-control': TrafficControlPart;
  traceflow: TraceflowPart;
  'external-ip': ServiceExternalIPPart;
  egress: EgressPart;
}

/** The names of the node agent's parts. */
export type AgentPartName = keyof AgentParts;

/** The part `name` of a set composed from {@link AGENT_PARTS}, typed by its name (`PartError` `PART_MISSING` when it is off). */
export function partOf<N extends AgentPartName>(parts: PartSet, name: N): AgentParts[N] {
  return parts.require<AgentParts[N]>(name);
}

/** One entry of {@link AGENT_PARTS}: its name is one of {@link AgentParts} and `make` returns that part. */
interface AgentPartEntry<N extends AgentPartName> extends PartEntry<AgentPartContext> {
  readonly name: N;
  make(ctx: AgentPartContext, parts: PartSet): AgentParts[N];
}
const entry = <N extends AgentPartName>(e: AgentPartEntry<N>): AgentPartEntry<N> => e;

/** The Kubernetes API of the agent, for parts that are on only with it. */
const kubeOf = (ctx: AgentContext) => ctx.options.kube!;
const withKube = (ctx: AgentContext): boolean => ctx.options.kube !== undefined;

/** Egress runs with a Kubernetes API and AntreaProxy (its SNAT tables, and the route of its IPs through the virtual Service address). */
const egressOn = (ctx: AgentContext): boolean => {
  if (!withKube(ctx) || !ctx.options.egress) return false;
  if (!ctx.options.enableProxy) ctx.log.warn('Egress needs AntreaProxy: Egresses are not realized on this node');
  return ctx.options.enableProxy;
};

/**
 * The node agent's parts in start order. Without a Kubernetes API only `node`, `pods`,
 * `policies` and `api` run.
 */
export const AGENT_PARTS: readonly PartEntry<AgentPartContext>[] = [
  entry({ name: 'node', make: (ctx) => new NodeDatapath(ctx) }),
  entry({ name: 'pods', after: ['node'], make: (ctx, p) => new PodAttachments(ctx, partOf(p, 'node')) }),
  entry({ name: 'policies', after: ['node'], make: (ctx, p) => new PolicyEnforcement(ctx, partOf(p, 'node')) }),
  entry({ name: 'api', make: (ctx) => new AgentApi(ctx, ctx.introspect) }),
  // Before the routes part: its routes name the WireGuard device, which must exist.
  entry({ name: 'wireguard', enabled: (ctx) => withKube(ctx) && ctx.wireGuard, make: (ctx) => new WireGuardTunnel(ctx, kubeOf(ctx)) }),
  entry({ name: 'routes', enabled: withKube, after: ['node', 'wireguard'], make: (ctx, p) => new RemoteNodes(ctx, kubeOf(ctx), partOf(p, 'node')) }),
  entry({ name: 'pod-gc', enabled: withKube, after: ['node', 'pods'], make: (ctx, p) => new PodGC(ctx, kubeOf(ctx), partOf(p, 'node'), partOf(p, 'pods')) }),
  entry({ name: 'services', enabled: (ctx) => withKube(ctx) && ctx.options.enableProxy, after: ['node'], make: (ctx, p) => new ServiceProxy(ctx, kubeOf(ctx), partOf(p, 'node')) }),
  entry({
    name: 'multicluster',
    enabled: (ctx) => {
      const mc = ctx.options.multicluster;
      if (!withKube(ctx) || !mc) return false;
      // Multi-cluster routes need AntreaProxy (its SNAT tables, and imported Services' DNAT), as in Antrea.
      // (composeParts asks once per agent, so this warns once.)
      if (!ctx.options.enableProxy) ctx.log.warn({ namespace: mc.namespace }, 'Multicluster needs AntreaProxy: the gateway dataplane stays off');
      return ctx.options.enableProxy;
    },
    after: ['node'],
    make: (ctx, p) => new MulticlusterRoutes(ctx, kubeOf(ctx), partOf(p, 'node'), ctx.options.multicluster!),
  }),
  entry({ name: 'traffic-control', enabled: (ctx) => withKube(ctx) && ctx.options.trafficControl, after: ['node', 'pods'], make: (ctx, p) => new TrafficControlPart(ctx, kubeOf(ctx), partOf(p, 'node')) }),
  // After the policies: a trace copies the node's policy flows as they are.
  entry({ name: 'traceflow', enabled: (ctx) => withKube(ctx) && ctx.options.traceflow, after: ['node', 'pods', 'policies'], make: (ctx, p) => new TraceflowPart(ctx, kubeOf(ctx), partOf(p, 'node')) }),
  // After the services part: the ingress IPs' routes and flows it installs are what an owner's ARP answers lead to.
  entry({ name: 'external-ip', enabled: (ctx) => withKube(ctx) && (ctx.options.serviceExternalIP || egressOn(ctx)), after: ['node', 'services'], make: (ctx, p) => new ServiceExternalIPPart(ctx, kubeOf(ctx), partOf(p, 'node')) }),
  // After the external IP part: it places each Egress IP on its owner, the same way as LoadBalancer IPs.
  entry({ name: 'egress', enabled: egressOn, after: ['node', 'services', 'external-ip'], make: (ctx, p) => new EgressPart(ctx, kubeOf(ctx), partOf(p, 'node'), partOf(p, 'external-ip')) }),
  // After the API part: the object names the TCP port it serves.
  entry({ name: 'agentinfo', enabled: withKube, after: ['api'], make: (ctx, p) => new AgentInfoHeartbeat(ctx, kubeOf(ctx), ctx.introspect, partOf(p, 'api')) }),
];

export { externalNodePipelineFeatures, nodePipelineFeatures } from './pipeline';
