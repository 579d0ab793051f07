// An agent's state as yardctl commands (`get agentinfo`, `get podinterface`, `get ovsflows`,
// `get service`): the
// agent's local API, on its unix socket (yardctl on the node) or through the API server's node
// proxy to the agent's TCP port (--node, from anywhere with a kubeconfig).
import type { Command } from 'commander';
import { AGENT_INFO_PATH, connectAgent, connectAgentThroughNode, DEFAULT_AGENT_SOCKET, type AgentApi } from './agent-client';
import { agentInfoTable, egressTable, ovsFlowsTable, podInterfaceTable, servicePortTable, type AgentInfo, type EgressItem, type OvsFlowItem, type PodInterfaceItem, type ServiceExternalIPItem, type ServicePortItem } from './agent-views';
import { decodeJson, kubeError } from './client';
import { examples, notFound, withOutput, type CommandContext, type OutputOpts } from './command';
import { CliError } from './errors';

interface AgentOpts extends OutputOpts {
  agentSocket?: string;
  node?: string;
}

function withAgent(cmd: Command): Command {
  return withOutput(cmd)
    .option('--agent-socket <path>', "unix socket of the agent's local API (switchyard-agent --api-socket; default $YARDCTL_AGENT_SOCKET or /var/run/antrea/agent.sock)")
    .option('--node <name>', "reach this node's agent through the API server node proxy (port from its AntreaAgentInfo apiPort, default 10350)");
}

/** The agent the flags name: --node through the API server, else the local socket. */
function agentOf(ctx: CommandContext, o: AgentOpts): AgentApi {
  if (o.node !== undefined && o.agentSocket !== undefined) throw new CliError('USAGE', 'use only one of --node and --agent-socket', o.node, '--node');
  if (o.node !== undefined) {
    if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(o.node)) throw new CliError('USAGE', `invalid node name "${o.node}"`, o.node, '--node');
    return connectAgentThroughNode(ctx.kube(), { node: o.node });
  }
  const { timeoutMs, trace } = ctx.connectOptions();
  return (ctx.io.connectAgent ?? connectAgent)({ socketPath: o.agentSocket ?? ctx.io.env.YARDCTL_AGENT_SOCKET ?? DEFAULT_AGENT_SOCKET, timeoutMs, ...(trace ? { trace } : {}) });
}

/** `get agentinfo`, `get podinterface`, `get ovsflows`, `get service`, `get egress`. */
export function addAgentGetCommands(get: Command, ctx: CommandContext): void {
  examples(withAgent(get.command('agentinfo').aliases(['ai']).description("Print agents' basic information: node, health, subnet, policy counts, local pods (every agent's AntreaAgentInfo from the API server, or one agent's own answer with --node/--agent-socket)")), [
    ['Every agent, from their AntreaAgentInfo objects', 'yardctl get agentinfo'],
    ["The agent of node-a, asked through the API server's node proxy", 'yardctl get ai --node node-a'],
    ['With bridge, OVS version and flow count, from the local socket', 'yardctl get ai -o wide --agent-socket /var/run/antrea/agent.sock'],
  ]).action(async (o: AgentOpts) => {
    if (o.node === undefined && o.agentSocket === undefined && ctx.io.env.YARDCTL_AGENT_SOCKET === undefined) {
      // No agent named: every agent, as each reports itself in its AntreaAgentInfo.
      const r = await ctx.kube().request(AGENT_INFO_PATH);
      if (r.status !== 200) throw kubeError(r.status, r.body, AGENT_INFO_PATH, (msg) => `the API server is unavailable: ${msg}`);
      const list = decodeJson<{ items: AgentInfo[] }>(r, AGENT_INFO_PATH);
      list.items.sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
      return ctx.printList(o, list, list.items.length, () => agentInfoTable(list.items, o.output === 'wide'));
    }
    const info = await agentOf(ctx, o).get<AgentInfo>('/agentinfo');
    ctx.print(o, info, () => agentInfoTable(info, o.output === 'wide'));
  });

  examples(
    withAgent(
      get
        .command('podinterface')
        .aliases(['pi', 'podinterfaces'])
        .description("Print the network interfaces of the agent's local Pods")
        .argument('[name]', 'pod name')
        .option('-n, --namespace <ns>', 'only pods of this namespace')
        .option('-A, --all-namespaces', 'pods of all namespaces (the default)'),
    ),
    [
      ['All local pod interfaces', 'yardctl get podinterface'],
      ['One pod, as JSON', 'yardctl get pi web -n x -o json'],
    ],
  ).action(async (name: string | undefined, o: AgentOpts & { namespace?: string; allNamespaces?: boolean }) => {
    if (o.namespace !== undefined && o.allNamespaces) throw new CliError('USAGE', 'use only one of -n and -A', o.namespace, '--namespace');
    const list = await agentOf(ctx, o).get<PodInterfaceItem[]>('/podinterfaces', { namespace: o.namespace, name });
    if (name !== undefined && list.length === 0) throw notFound('podinterfaces', o.namespace === undefined ? name : `${o.namespace}/${name}`);
    ctx.print(o, list, () => podInterfaceTable(list));
  });

  addOvsFlowsCommand(get, ctx);
  addServiceCommand(get, ctx);
  addEgressCommand(get, ctx);
}

function addOvsFlowsCommand(get: Command, ctx: CommandContext): void {
  examples(
    withAgent(
      get
        .command('ovsflows')
        .aliases(['of'])
        .description('Dump the OVS flows, or those of a local Pod, of a NetworkPolicy or of a flow table, as the agent reads them from the switch')
        .option('-p, --pod <name>', 'name of a local Pod (namespace from -n, default "default")')
        .option('-n, --namespace <ns>', 'namespace of the Pod or NetworkPolicy')
        .option('--networkpolicy <policy>', 'flows of the rules of a NetworkPolicy: namespace/name, a name (namespace from -n for a namespaced policy) or its uid')
        .option('-T, --table <table>', 'flow table name (e.g. IngressRule) or number'),
    ),
    [
      ['Dump all OVS flows', 'yardctl get ovsflows'],
      ['Flows of a local Pod', 'yardctl get ovsflows -p web -n x'],
      ['Flows of a NetworkPolicy', 'yardctl get ovsflows --networkpolicy web-from-client -n x'],
      ['Flows of a ClusterNetworkPolicy on node-a, through the API server', 'yardctl get of --networkpolicy acnp-drop-other --node node-a'],
      ['Flows of one table, by name or number', 'yardctl get of -T SpoofGuard'],
    ],
  ).action(async (o: AgentOpts & { pod?: string; namespace?: string; networkpolicy?: string; table?: string }) => {
    if (o.networkpolicy !== undefined && o.pod !== undefined) throw new CliError('USAGE', 'use only one of -p/--pod and --networkpolicy', o.networkpolicy, '--networkpolicy');
    if (o.networkpolicy !== undefined && !/^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(o.networkpolicy)) {
      throw new CliError('USAGE', `invalid NetworkPolicy "${o.networkpolicy}": expected namespace/name, name or uid`, o.networkpolicy, '--networkpolicy');
    }
    if (o.table !== undefined && !/^[A-Za-z0-9()_-]+$/.test(o.table)) throw new CliError('USAGE', `invalid table "${o.table}": a table name or number`, o.table, '--table');
    const networkpolicy = o.networkpolicy === undefined || o.networkpolicy.includes('/') || o.namespace === undefined ? o.networkpolicy : `${o.namespace}/${o.networkpolicy}`;
    const pod = o.pod === undefined ? undefined : `${o.namespace ?? 'default'}/${o.pod}`;
    const lines = await agentOf(ctx, o).get<string[]>('/ovsflows', { pod, table: o.table, networkpolicy });
    const flows: OvsFlowItem[] = lines.map((flow) => ({ flow }));
    ctx.print(o, flows, () => ovsFlowsTable(flows));
  });
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** The Service named by `[namespace/]name` and `-n`; a usage error when they disagree or are not DNS labels. */
function serviceRef(arg: string | undefined, namespace: string | undefined): { namespace?: string; name?: string } {
  if (namespace !== undefined && !DNS_LABEL.test(namespace)) throw new CliError('USAGE', `invalid namespace "${namespace}"`, namespace, '--namespace');
  if (arg === undefined) return namespace === undefined ? {} : { namespace };
  const [ns, name] = arg.includes('/') ? (arg.split('/', 2) as [string, string]) : [namespace, arg];
  if ((ns !== undefined && !DNS_LABEL.test(ns)) || !DNS_LABEL.test(name) || arg.split('/').length > 2) {
    throw new CliError('USAGE', `invalid Service "${arg}": expected namespace/name or name`, arg, 'service');
  }
  if (namespace !== undefined && ns !== namespace) throw new CliError('USAGE', `Service "${arg}" is not in namespace "${namespace}" (-n)`, arg, '--namespace');
  return { ...(ns !== undefined ? { namespace: ns } : {}), name };
}

const EGRESSES_PATH = '/apis/crd.antrea.io/v1beta1/egresses';

/** `get egress [name]`: every Egress with the IP in use and the node that SNATs it, from the API server. */
function addEgressCommand(get: Command, ctx: CommandContext): void {
  examples(
    withOutput(get.command('egress').aliases(['eg', 'egresses']).description('Print Egresses: the IP in use, the egress node that owns it and SNATs the members\' traffic, and the IPAllocated (controller) and IPAssigned (egress node) conditions').argument('[name]', 'Egress name')),
    [
      ['Every Egress', 'yardctl get egress'],
      ['One, with its pool and appliedTo', 'yardctl get eg eg-a -o wide'],
    ],
  ).action(async (name: string | undefined, o: OutputOpts) => {
    if (name !== undefined && !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(name)) throw new CliError('USAGE', `invalid Egress name "${name}"`, name, 'name');
    const path = name === undefined ? EGRESSES_PATH : `${EGRESSES_PATH}/${name}`;
    const r = await ctx.kube().request(path);
    if (r.status === 404 && name !== undefined) throw notFound('egresses', name);
    if (r.status !== 200) throw kubeError(r.status, r.body, path, (msg) => `the API server is unavailable: ${msg}`);
    if (name !== undefined) {
      const one = decodeJson<EgressItem>(r, path);
      return ctx.print(o, one, () => egressTable([one], o.output === 'wide'));
    }
    const list = decodeJson<{ items: EgressItem[] }>(r, path);
    ctx.printList(o, list, list.items.length, () => egressTable(list.items, o.output === 'wide'));
  });
}

function addServiceCommand(get: Command, ctx: CommandContext): void {
  examples(
    withAgent(
      get
        .command('service')
        .aliases(['svc', 'services'])
        .description("Print how the agent's AntreaProxy realises each Service port on its node: ClusterIP, node port, external addresses (with the owner node of a LoadBalancer IP), traffic policies, the select group and its endpoint buckets, the local group, session affinity")
        .argument('[service]', 'namespace/name, or a name (namespace from -n, else any)')
        .option('-n, --namespace <ns>', 'only Services of this namespace')
        .option('-A, --all-namespaces', 'Services of all namespaces (the default)'),
    ),
    [
      ['Every Service port on the local agent', 'yardctl get service'],
      ["One Service on node-a, through the API server's node proxy", 'yardctl get svc default/web --node node-a'],
      ['With port names, the local group buckets and health-check node ports', 'yardctl get svc -n x -o wide'],
      ['The full objects', 'yardctl get svc web -n x -o yaml'],
    ],
  ).action(async (arg: string | undefined, o: AgentOpts & { namespace?: string; allNamespaces?: boolean }) => {
    if (o.namespace !== undefined && o.allNamespaces) throw new CliError('USAGE', 'use only one of -n and -A', o.namespace, '--namespace');
    const ref = serviceRef(arg, o.namespace);
    const agent = agentOf(ctx, o);
    const query = { namespace: ref.namespace, name: ref.name };
    const placed = agent.get<ServiceExternalIPItem[]>('/serviceexternalip', query);
    placed.catch(() => undefined); // awaited below, after /services (whose error comes first)
    const ports = await agent.get<ServicePortItem[]>('/services', query);
    let owners: ServiceExternalIPItem[] = [];
    try {
      owners = await placed;
    } catch (e) {
      // NotFound: ServiceExternalIP is off on this agent (no owners to show); anything else is said, and the ports still printed.
      if (!(e instanceof CliError && e.code === 'NOT_FOUND')) ctx.io.stderr.write(`warning: owners of LoadBalancer IPs not shown: ${e instanceof Error ? e.message : String(e)}\n`);
    }
    const items = ports.map((p) => {
      const mine = owners.filter((e) => e.namespace === p.namespace && e.serviceName === p.name);
      return mine.length ? { ...p, serviceExternalIPs: mine } : p;
    });
    if (ref.name !== undefined && items.length === 0) throw notFound('services', ref.namespace === undefined ? ref.name : `${ref.namespace}/${ref.name}`);
    ctx.printList(o, items, items.length, () => servicePortTable(items, o.output === 'wide'), ref.namespace);
  });
}
