// The yardctl command tree (commander): argument parsing, dispatch, output and exit codes.
import { Command, CommanderError, Option } from 'commander';
import type { EndpointQueryResult, Explanation } from '@switchyard/policy-compiler';
import { AGENT_INFO_PATH, connectAgent, connectAgentThroughNode, DEFAULT_AGENT_SOCKET, type AgentApi, type AgentConnectOptions } from './agent-client';
import { agentInfoTable, ovsFlowsTable, podInterfaceTable, type AgentInfo, type OvsFlowItem, type PodInterfaceItem } from './agent-views';
import { connectKube, connectKubeWriter, decodeJson, kubeError, readApiOver, type ConnectOptions, type KubeHttp, type KubeWriter, type ReadApi } from './client';
import { addMcCommands } from './mc';
import { bashCompletion } from './completion';
import { CliError, EXIT_ERROR, EXIT_USAGE } from './errors';
import { parseOutputFormat, renderData, renderTable, styleFor, type OutputFormat, type Table } from './output';
import { addressGroupTable, appliedToGroupTable, controllerInfoTable, endpointQueryTables, explanationTable, networkPolicyTable, type ControllerInfo, type GroupItem, type NetworkPolicyItem } from './views';

/** Where yardctl writes and what it knows about its terminal; injectable for tests. */
export interface CliIo {
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown };
  /** Whether stdout is a terminal (colors only then). */
  isTTY: boolean;
  env: Record<string, string | undefined>;
  /** Read API factory; defaults to the read API over {@link CliIo.connectKube}. */
  connect?: (o: ConnectOptions) => ReadApi;
  /** API server connection factory (node proxy, AntreaAgentInfo); defaults to {@link connectKube}. */
  connectKube?: (o: ConnectOptions) => KubeHttp;
  /** Agent local API factory; defaults to {@link connectAgent}. */
  connectAgent?: (o: AgentConnectOptions) => AgentApi;
  /** Read-write API client factory (the `mc` commands); defaults to {@link connectKubeWriter}. */
  connectKubeWriter?: (o: ConnectOptions) => KubeWriter;
}

interface GlobalOpts {
  kubeconfig?: string;
  server?: string;
  timeout: number;
  verbose?: boolean;
}
interface OutputOpts {
  output: OutputFormat;
  headers: boolean;
}

/** Parse a Go-style duration (`30s`, `1m30s`, `500ms`; a bare number is seconds) into ms. */
export function parseDuration(v: string): number {
  const t = v.trim();
  if (/^\d+(\.\d+)?$/.test(t)) return Number(t) * 1000;
  const unit: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;
  let total = 0;
  let end = 0;
  for (let m = re.exec(t); m; m = re.exec(t)) {
    total += Number(m[1]) * (unit[m[2] as string] as number);
    end = re.lastIndex;
  }
  if (t === '' || end !== t.length) throw new CliError('USAGE', `invalid duration "${v}" (examples: 30s, 1m30s, 500ms)`, v, '--timeout');
  return total;
}

function parsePort(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 65535) throw new CliError('USAGE', `invalid port "${v}": must be an integer in 1-65535`, v, '--port');
  return n;
}

const PROTOCOLS = ['TCP', 'UDP', 'SCTP', 'ICMP'];
function parseProtocol(v: string): string {
  const p = v.toUpperCase();
  if (!PROTOCOLS.includes(p)) throw new CliError('USAGE', `invalid protocol "${v}": one of ${PROTOCOLS.join(', ')}`, v, '--protocol');
  return p;
}

function parseEndpoint(field: string) {
  return (v: string): string => {
    const ok = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?\/[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(v) || /^[0-9.]+$/.test(v) || v.includes(':');
    if (!ok) throw new CliError('USAGE', `invalid ${field} "${v}": expected namespace/pod or an IP address`, v, field);
    return v;
  };
}

/** Wrap a parser so its CliError becomes a commander usage error (exit 2, message on stderr). */
function usage<T>(parse: (v: string) => T): (v: string) => T {
  return (v) => {
    try {
      return parse(v);
    } catch (e) {
      if (e instanceof CliError) throw new CommanderError(EXIT_USAGE, 'yardctl.usage', `error: ${e.message}`);
      throw e;
    }
  };
}

function withOutput(cmd: Command): Command {
  return cmd
    .addOption(new Option('-o, --output <format>', 'output format: table|wide|json|yaml').default('table').argParser(usage(parseOutputFormat)))
    .option('--no-headers', 'do not print table headers');
}

function examples(cmd: Command, lines: [string, string][]): Command {
  return cmd.addHelpText('after', `\nExamples:\n${lines.map(([what, how]) => `  # ${what}\n  $ ${how}`).join('\n\n')}\n`);
}

/** Run yardctl with user arguments (no node/script prefix); resolves to the process exit code. */
export async function runYardctl(argv: readonly string[], io: CliIo): Promise<number> {
  const kubeConnect = io.connectKube ?? connectKube;
  const connect = io.connect ?? ((o: ConnectOptions) => readApiOver(kubeConnect(o)));
  const agentConnect = io.connectAgent ?? connectAgent;
  let pendingError = '';
  const program = new Command('yardctl');
  program
    .description('yardctl: inspect Switchyard (NetworkPolicies, groups, controller and agents) through the Kubernetes API')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      // Held back until the error code is known: an unknown `get` resource gets kubectl's wording.
      outputError: (s) => (pendingError += s),
    })
    .showSuggestionAfterError()
    .option('-k, --kubeconfig <file>', 'path to the kubeconfig file (default: $KUBECONFIG, ~/.kube/config, in-cluster)')
    .option('-s, --server <url>', 'address and port of the API server, taking precedence over the kubeconfig')
    .addOption(new Option('-t, --timeout <duration>', 'time limit of each request (e.g. 10s, 1m; 0 = none)').default(60_000, '60s').argParser(usage(parseDuration)))
    .option('-v, --verbose', 'log each request to stderr');
  examples(program, [
    ['List NetworkPolicies in all namespaces', 'yardctl get networkpolicy'],
    ['Explain whether x/client may reach x/web on TCP port 80', 'yardctl policy explain --from x/client --to x/web --port 80'],
    ['Use as a kubectl plugin', 'kubectl yardctl get addressgroup -o yaml'],
  ]);

  const connectOptions = (): ConnectOptions => {
    const g = program.opts<GlobalOpts>();
    const trace = g.verbose ? (l: string) => io.stderr.write(`${l}\n`) : undefined;
    return { ...(g.kubeconfig !== undefined ? { kubeconfig: g.kubeconfig } : {}), ...(g.server !== undefined ? { server: g.server } : {}), timeoutMs: g.timeout, ...(trace ? { trace } : {}) };
  };
  const api = (): ReadApi => connect(connectOptions());
  const print = (o: OutputOpts, data: unknown, table: () => Table): void => {
    if (o.output === 'json' || o.output === 'yaml') io.stdout.write(renderData(data, o.output));
    else io.stdout.write(renderTable(table(), { noHeaders: !o.headers }));
  };
  /** A list: kubectl's `No resources found` on stderr, and nothing on stdout, when a table would be empty. */
  const printList = (o: OutputOpts, data: unknown, count: number, table: () => Table, where?: string): void => {
    if (count === 0 && o.output !== 'json' && o.output !== 'yaml') {
      io.stderr.write(where === undefined ? 'No resources found\n' : `No resources found in ${where} namespace.\n`);
      return;
    }
    print(o, data, table);
  };
  const notFound = (resource: string, name: string): CliError => new CliError('NOT_FOUND', `Error from server (NotFound): ${resource} "${name}" not found`, name, resource);

  const get = program.command('get').description("Print controlplane resources (policies, groups, controller information) and an agent's state (agentinfo, pod interfaces, OVS flows)");
  examples(get, [
    ['List AddressGroups', 'yardctl get addressgroup'],
    ['Show one NetworkPolicy as YAML', 'yardctl get netpol web-policy -n x -o yaml'],
  ]);

  examples(
    withOutput(
      get
        .command('networkpolicy')
        .aliases(['netpol', 'networkpolicies'])
        .description('Print internal NetworkPolicies (all kinds: K8s NetworkPolicy, ACNP, ANNP, ANP, BANP)')
        .argument('[name]', 'source policy name or internal uid')
        .option('-n, --namespace <ns>', 'only policies of this namespace (cluster-scoped policies have none)')
        .option('-A, --all-namespaces', 'policies of all namespaces (the default)'),
    ),
    [
      ['List all NetworkPolicies', 'yardctl get networkpolicy'],
      ['List those of namespace x with tier, priority and nodes', 'yardctl get netpol -n x -o wide'],
      ['Show one as JSON', 'yardctl get netpol web-from-client -n x -o json'],
    ],
  ).action(async (name: string | undefined, o: OutputOpts & { namespace?: string; allNamespaces?: boolean }) => {
    if (o.namespace !== undefined && o.allNamespaces) throw new CliError('USAGE', 'a resource cannot be retrieved by name across all namespaces: use only one of -n and -A', o.namespace, '--namespace');
    const list = await api().get<{ items: NetworkPolicyItem[] }>('networkpolicies');
    // kubectl's order: by namespace (cluster-scoped first), then name.
    let items = list.items.filter((p) => o.namespace === undefined || p.sourceRef.namespace === o.namespace).sort((a, b) => a.sourceRef.namespace.localeCompare(b.sourceRef.namespace) || a.sourceRef.name.localeCompare(b.sourceRef.name));
    if (name !== undefined) {
      items = items.filter((p) => p.uid === name || p.sourceRef.name === name);
      if (items.length === 0) throw notFound('networkpolicies', name);
      if (items.length === 1) return print(o, items[0], () => networkPolicyTable(items, o.output === 'wide'));
    }
    printList(o, { ...list, items }, items.length, () => networkPolicyTable(items, o.output === 'wide'), o.namespace);
  });

  const groupCommand = (resource: 'addressgroups' | 'appliedtogroups', primary: string, alias: string, what: string, view: (g: GroupItem[], wide: boolean) => Table): void => {
    examples(
      withOutput(get.command(primary).aliases([alias, resource]).description(`Print ${what}`).argument('[name]', 'group name').option('--node <name>', 'only the members and groups relevant to this node')),
      [
        [`List ${what}`, `yardctl get ${primary}`],
        [`The same, with members' nodes`, `yardctl get ${alias} -o wide`],
        ['As an agent on node-a sees them', `yardctl get ${alias} --node node-a -o json`],
      ],
    ).action(async (name: string | undefined, o: OutputOpts & { node?: string }) => {
      const list = await api().get<{ items: GroupItem[] }>(resource, { nodeName: o.node });
      if (name !== undefined) {
        const hit = list.items.filter((g) => g.name === name);
        if (hit.length === 0) throw notFound(resource, name);
        return print(o, hit[0], () => view(hit, o.output === 'wide'));
      }
      printList(o, list, list.items.length, () => view(list.items, o.output === 'wide'));
    });
  };
  groupCommand('addressgroups', 'addressgroup', 'ag', 'AddressGroups (peers of rules) and their member IPs', addressGroupTable);
  groupCommand('appliedtogroups', 'appliedtogroup', 'atg', 'AppliedToGroups (what policies apply to) and their members', appliedToGroupTable);

  examples(withOutput(get.command('controllerinfo').aliases(['ci']).description("Print the controller's version, sync state, object counts and connected agents")), [
    ['Controller summary', 'yardctl get controllerinfo'],
    ['Everything, as YAML', 'yardctl get ci -o yaml'],
  ]).action(async (o: OutputOpts) => {
    const info = await api().get<ControllerInfo>('controllerinfo');
    print(o, info, () => controllerInfoTable(info, o.output === 'wide'));
  });

  // Agent commands: the agent's local API, on its unix socket (yardctl on the node) or through the
  // API server's node proxy to the agent's TCP port (--node, from anywhere with a kubeconfig).
  interface AgentOpts extends OutputOpts {
    agentSocket?: string;
    node?: string;
  }
  const withAgent = (cmd: Command): Command =>
    withOutput(cmd)
      .option('--agent-socket <path>', "unix socket of the agent's local API (switchyard-agent --api-socket; default $YARDCTL_AGENT_SOCKET or /var/run/antrea/agent.sock)")
      .option('--node <name>', "reach this node's agent through the API server node proxy (port from its AntreaAgentInfo apiPort, default 10350)");
  const agent = (o: AgentOpts): AgentApi => {
    if (o.node !== undefined && o.agentSocket !== undefined) throw new CliError('USAGE', 'use only one of --node and --agent-socket', o.node, '--node');
    if (o.node !== undefined) {
      if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(o.node)) throw new CliError('USAGE', `invalid node name "${o.node}"`, o.node, '--node');
      return connectAgentThroughNode(kubeConnect(connectOptions()), { node: o.node });
    }
    const g = program.opts<GlobalOpts>();
    const trace = g.verbose ? (l: string) => io.stderr.write(`${l}\n`) : undefined;
    return agentConnect({ socketPath: o.agentSocket ?? io.env.YARDCTL_AGENT_SOCKET ?? DEFAULT_AGENT_SOCKET, timeoutMs: g.timeout, ...(trace ? { trace } : {}) });
  };

  examples(withAgent(get.command('agentinfo').aliases(['ai']).description("Print agents' basic information: node, health, subnet, policy counts, local pods (every agent's AntreaAgentInfo from the API server, or one agent's own answer with --node/--agent-socket)")), [
    ['Every agent, from their AntreaAgentInfo objects', 'yardctl get agentinfo'],
    ["The agent of node-a, asked through the API server's node proxy", 'yardctl get ai --node node-a'],
    ['With bridge, OVS version and flow count, from the local socket', 'yardctl get ai -o wide --agent-socket /var/run/antrea/agent.sock'],
  ]).action(async (o: AgentOpts) => {
    if (o.node === undefined && o.agentSocket === undefined && io.env.YARDCTL_AGENT_SOCKET === undefined) {
      // No agent named: every agent, as each reports itself in its AntreaAgentInfo.
      const r = await kubeConnect(connectOptions()).request(AGENT_INFO_PATH);
      if (r.status !== 200) throw kubeError(r.status, r.body, AGENT_INFO_PATH, (msg) => `the API server is unavailable: ${msg}`);
      const list = decodeJson<{ items: AgentInfo[] }>(r, AGENT_INFO_PATH);
      list.items.sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
      return printList(o, list, list.items.length, () => agentInfoTable(list.items, o.output === 'wide'));
    }
    const info = await agent(o).get<AgentInfo>('/agentinfo');
    print(o, info, () => agentInfoTable(info, o.output === 'wide'));
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
    const list = await agent(o).get<PodInterfaceItem[]>('/podinterfaces', { namespace: o.namespace, name });
    if (name !== undefined && list.length === 0) throw notFound('podinterfaces', o.namespace === undefined ? name : `${o.namespace}/${name}`);
    print(o, list, () => podInterfaceTable(list));
  });

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
    const lines = await agent(o).get<string[]>('/ovsflows', { pod, table: o.table, networkpolicy });
    const flows: OvsFlowItem[] = lines.map((flow) => ({ flow }));
    print(o, flows, () => ovsFlowsTable(flows));
  });

  const policy = program.command('policy').description('Reason about NetworkPolicy decisions');
  examples(
    withOutput(
      policy
        .command('explain')
        .description("Explain whether a flow is allowed: the deciding tier, policy and rule at egress (source) and ingress (destination), from the controller's evaluator")
        .addOption(new Option('--from <endpoint>', 'source: namespace/pod or an IP').makeOptionMandatory().argParser(usage(parseEndpoint('--from'))))
        .addOption(new Option('--to <endpoint>', 'destination: namespace/pod or an IP').makeOptionMandatory().argParser(usage(parseEndpoint('--to'))))
        .addOption(new Option('--port <port>', 'destination port (TCP/UDP/SCTP)').argParser(usage(parsePort)))
        .addOption(new Option('--protocol <protocol>', 'TCP|UDP|SCTP|ICMP').default('TCP').argParser(usage(parseProtocol))),
    ),
    [
      ['Pod to pod on TCP 80', 'yardctl policy explain --from y/client --to x/web --port 80'],
      ['From an external IP, UDP 53', 'yardctl policy explain --from 192.0.2.10 --to kube-system/dns --port 53 --protocol UDP'],
    ],
  ).action(async (o: OutputOpts & { from: string; to: string; port?: number; protocol: string }) => {
    const e = await api().get<Explanation>('explain', { src: o.from, dst: o.to, protocol: o.protocol, port: o.port === undefined ? undefined : String(o.port) });
    if (o.output === 'json' || o.output === 'yaml') return print(o, e, () => explanationTable(e));
    const st = styleFor(io.isTTY, o.output, io.env);
    const flow = `${o.protocol} ${o.from} -> ${o.to}${o.port === undefined ? '' : `:${o.port}`}`;
    if (o.headers) io.stdout.write(`${flow}: ${e.allowed ? st.green('ALLOWED') : st.red('DENIED')} (${e.action})\n`);
    io.stdout.write(renderTable(explanationTable(e), { noHeaders: !o.headers }));
  });

  const query = program.command('query').description('Query the controller about an endpoint');
  examples(
    withOutput(
      query
        .command('endpoint')
        .description('Print the policies applied to a Pod and the rules that select it as a peer')
        .argument('<pod>', 'namespace/pod, or a pod name with -n')
        .option('-n, --namespace <ns>', 'namespace of the pod when <pod> is a bare name'),
    ),
    [
      ['Policies that apply to x/web', 'yardctl query endpoint x/web'],
      ['Same, by name and namespace, as JSON', 'yardctl query endpoint web -n x -o json'],
    ],
  ).action(async (pod: string, o: OutputOpts & { namespace?: string }) => {
    const ref = pod.includes('/') ? pod : o.namespace !== undefined ? `${o.namespace}/${pod}` : undefined;
    if (ref === undefined || ref.split('/').length !== 2) throw new CliError('USAGE', `invalid pod "${pod}": expected namespace/pod, or a name with -n`, pod, 'pod');
    const q = await api().get<EndpointQueryResult & { pod?: string }>('endpointquery', { pod: ref });
    if (o.output === 'json' || o.output === 'yaml') return print(o, q, () => ({ columns: [], rows: [] }));
    const st = styleFor(io.isTTY, o.output, io.env);
    const parts = endpointQueryTables(q);
    io.stdout.write(parts.map((p) => `${o.headers ? `${st.bold(`${p.title}:`)}\n` : ''}${p.table.rows.length === 0 ? (o.headers ? '  <none>\n' : '') : renderTable(p.table, { noHeaders: !o.headers })}`).join(o.headers ? '\n' : ''));
  });

  addMcCommands(program, {
    stdout: io.stdout,
    stderr: io.stderr,
    kube: () => (io.connectKubeWriter ?? connectKubeWriter)(connectOptions()),
    withOutput,
    examples,
    print,
    printList,
  });

  examples(
    program
      .command('completion')
      .description('Print a shell completion script')
      .argument('<shell>', 'bash')
      .action((shell: string) => {
        if (shell !== 'bash') throw new CliError('USAGE', `unsupported shell "${shell}": only bash`, shell, 'shell');
        io.stdout.write(bashCompletion(program));
      }),
    [
      ['Load completion into the current shell', 'source <(yardctl completion bash)'],
      ['Install it for every session', 'yardctl completion bash > /etc/bash_completion.d/yardctl'],
    ],
  );

  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version') return 0;
      if (e.code === 'commander.unknownCommand' && argv.includes('get') && !argv.slice(0, argv.indexOf('get')).some((a) => !a.startsWith('-'))) {
        const resource = argv.slice(argv.indexOf('get') + 1).find((a) => !a.startsWith('-')) ?? '';
        io.stderr.write(`error: the server doesn't have a resource type "${resource}" (yardctl get --help lists them)\n`);
        return EXIT_ERROR;
      }
      if (e.code === 'yardctl.usage') io.stderr.write(`${e.message}\n`);
      else io.stderr.write(pendingError);
      return EXIT_USAGE;
    }
    if (e instanceof CliError) {
      io.stderr.write(`${e.message.startsWith('error') || e.message.startsWith('Error') ? '' : 'error: '}${e.message}\n`);
      return e.exitCode;
    }
    io.stderr.write(`error: ${(e as Error).message ?? String(e)}\n`);
    return EXIT_ERROR;
  }
}
