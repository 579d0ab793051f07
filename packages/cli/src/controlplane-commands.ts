// The controller's resources as yardctl commands: `get` of internal NetworkPolicies, groups and
// controller information, `policy explain` and `query endpoint`, all from the controller's read API.
import { Option, type Command } from 'commander';
import type { EndpointQueryResult, Explanation } from '@switchyard/policy-compiler';
import { examples, notFound, usage, withOutput, type CommandContext, type OutputOpts } from './command';
import { CliError } from './errors';
import { renderTable, styleFor, type Table } from './output';
import { addressGroupTable, appliedToGroupTable, controllerInfoTable, endpointQueryTables, explanationTable, networkPolicyTable, type ControllerInfo, type GroupItem, type NetworkPolicyItem } from './views';

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

function parseIpFamily(v: string): string {
  const f = ['IPv4', 'IPv6'].find((x) => x.toLowerCase() === v.toLowerCase());
  if (f === undefined) throw new CliError('USAGE', `invalid IP family "${v}": IPv4 or IPv6`, v, '--ip-family');
  return f;
}

function parseEndpoint(field: string) {
  return (v: string): string => {
    const ok = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?\/[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(v) || /^[0-9.]+$/.test(v) || v.includes(':');
    if (!ok) throw new CliError('USAGE', `invalid ${field} "${v}": expected namespace/pod or an IP address`, v, field);
    return v;
  };
}

/** `get networkpolicy`, `get addressgroup`, `get appliedtogroup`, `get controllerinfo`. */
export function addControlplaneGetCommands(get: Command, ctx: CommandContext): void {
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
    const list = await ctx.api().get<{ items: NetworkPolicyItem[] }>('networkpolicies');
    // kubectl's order: by namespace (cluster-scoped first), then name.
    let items = list.items.filter((p) => o.namespace === undefined || p.sourceRef.namespace === o.namespace).sort((a, b) => a.sourceRef.namespace.localeCompare(b.sourceRef.namespace) || a.sourceRef.name.localeCompare(b.sourceRef.name));
    if (name !== undefined) {
      items = items.filter((p) => p.uid === name || p.sourceRef.name === name);
      if (items.length === 0) throw notFound('networkpolicies', name);
      if (items.length === 1) return ctx.print(o, items[0], () => networkPolicyTable(items, o.output === 'wide'));
    }
    ctx.printList(o, { ...list, items }, items.length, () => networkPolicyTable(items, o.output === 'wide'), o.namespace);
  });

  addGroupCommand(get, ctx, 'addressgroups', 'addressgroup', 'ag', 'AddressGroups (peers of rules) and their member IPs', addressGroupTable);
  addGroupCommand(get, ctx, 'appliedtogroups', 'appliedtogroup', 'atg', 'AppliedToGroups (what policies apply to) and their members', appliedToGroupTable);

  examples(withOutput(get.command('controllerinfo').aliases(['ci']).description("Print the controller's version, sync state, object counts and connected agents")), [
    ['Controller summary', 'yardctl get controllerinfo'],
    ['Everything, as YAML', 'yardctl get ci -o yaml'],
  ]).action(async (o: OutputOpts) => {
    const info = await ctx.api().get<ControllerInfo>('controllerinfo');
    ctx.print(o, info, () => controllerInfoTable(info, o.output === 'wide'));
  });
}

function addGroupCommand(get: Command, ctx: CommandContext, resource: 'addressgroups' | 'appliedtogroups', primary: string, alias: string, what: string, view: (g: GroupItem[], wide: boolean) => Table): void {
  examples(
    withOutput(get.command(primary).aliases([alias, resource]).description(`Print ${what}`).argument('[name]', 'group name').option('--node <name>', 'only the members and groups relevant to this node')),
    [
      [`List ${what}`, `yardctl get ${primary}`],
      [`The same, with members' nodes`, `yardctl get ${alias} -o wide`],
      ['As an agent on node-a sees them', `yardctl get ${alias} --node node-a -o json`],
    ],
  ).action(async (name: string | undefined, o: OutputOpts & { node?: string }) => {
    const list = await ctx.api().get<{ items: GroupItem[] }>(resource, { nodeName: o.node });
    if (name !== undefined) {
      const hit = list.items.filter((g) => g.name === name);
      if (hit.length === 0) throw notFound(resource, name);
      return ctx.print(o, hit[0], () => view(hit, o.output === 'wide'));
    }
    ctx.printList(o, list, list.items.length, () => view(list.items, o.output === 'wide'));
  });
}

/** `policy explain`. */
export function addPolicyCommands(program: Command, ctx: CommandContext): void {
  const { io } = ctx;
  const policy = program.command('policy').description('Reason about NetworkPolicy decisions');
  examples(
    withOutput(
      policy
        .command('explain')
        .description("Explain whether a flow is allowed: the deciding tier, policy and rule at egress (source) and ingress (destination), from the controller's evaluator")
        .addOption(new Option('--from <endpoint>', 'source: namespace/pod or an IP').makeOptionMandatory().argParser(usage(parseEndpoint('--from'))))
        .addOption(new Option('--to <endpoint>', 'destination: namespace/pod or an IP').makeOptionMandatory().argParser(usage(parseEndpoint('--to'))))
        .addOption(new Option('--port <port>', 'destination port (TCP/UDP/SCTP)').argParser(usage(parsePort)))
        .addOption(new Option('--protocol <protocol>', 'TCP|UDP|SCTP|ICMP').default('TCP').argParser(usage(parseProtocol)))
        .addOption(new Option('--ip-family <family>', "IPv4|IPv6: the flow's family between dual-stack pods (default: the source's first address family)").argParser(usage(parseIpFamily))),
    ),
    [
      ['Pod to pod on TCP 80', 'yardctl policy explain --from y/client --to x/web --port 80'],
      ['From an external IP, UDP 53', 'yardctl policy explain --from 192.0.2.10 --to kube-system/dns --port 53 --protocol UDP'],
      ["Between dual-stack pods, the flow over IPv6", 'yardctl policy explain --from y/client --to x/web --port 80 --ip-family IPv6'],
    ],
  ).action(async (o: OutputOpts & { from: string; to: string; port?: number; protocol: string; ipFamily?: string }) => {
    const e = await ctx.api().get<Explanation>('explain', { src: o.from, dst: o.to, protocol: o.protocol, port: o.port === undefined ? undefined : String(o.port), ...(o.ipFamily ? { ipFamily: o.ipFamily } : {}) });
    if (o.output === 'json' || o.output === 'yaml') return ctx.print(o, e, () => explanationTable(e));
    const st = styleFor(io.isTTY, o.output, io.env);
    const flow = `${o.protocol}${e.ipFamily ? `/${e.ipFamily}` : ''} ${o.from} -> ${o.to}${o.port === undefined ? '' : `:${o.port}`}`;
    if (o.headers) io.stdout.write(`${flow}: ${e.allowed ? st.green('ALLOWED') : st.red('DENIED')} (${e.action})\n`);
    io.stdout.write(renderTable(explanationTable(e), { noHeaders: !o.headers }));
  });
}

/** `query endpoint`. */
export function addQueryCommands(program: Command, ctx: CommandContext): void {
  const { io } = ctx;
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
    const q = await ctx.api().get<EndpointQueryResult & { pod?: string }>('endpointquery', { pod: ref });
    if (o.output === 'json' || o.output === 'yaml') return ctx.print(o, q, () => ({ columns: [], rows: [] }));
    const st = styleFor(io.isTTY, o.output, io.env);
    const parts = endpointQueryTables(q);
    io.stdout.write(parts.map((p) => `${o.headers ? `${st.bold(`${p.title}:`)}\n` : ''}${p.table.rows.length === 0 ? (o.headers ? '  <none>\n' : '') : renderTable(p.table, { noHeaders: !o.headers })}`).join(o.headers ? '\n' : ''));
  });
}
