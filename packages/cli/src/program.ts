// The yardctl command tree (commander): argument parsing, dispatch, output and exit codes.
import { Command, CommanderError, Option } from 'commander';
import { addAgentGetCommands } from './agent-commands';
import { connectKube, connectKubeWriter, readApiOver, type ConnectOptions } from './client';
import { examples, parseDuration, usage, type CliIo, type CommandContext, type OutputOpts } from './command';
import { addCheckCommand } from './check-command';
import { bashCompletion } from './completion';
import { addControlplaneGetCommands, addPolicyCommands, addQueryCommands } from './controlplane-commands';
import { CliError, EXIT_ERROR, EXIT_USAGE } from './errors';
import { addMcCommands } from './mc';
import { addTraceflowCommand } from './traceflow-command';
import { renderData, renderTable, type Table } from './output';

export type { CliIo } from './command';
export { parseDuration } from './command';

interface GlobalOpts {
  kubeconfig?: string;
  server?: string;
  timeout: number;
  verbose?: boolean;
}

/** Run yardctl with user arguments (no node/script prefix); resolves to the process exit code. */
export async function runYardctl(argv: readonly string[], io: CliIo): Promise<number> {
  // Commander's error text is held back until the error code is known: an unknown `get` resource gets kubectl's wording.
  const held = { error: '' };
  const program = rootCommand(io, held);
  const ctx = commandContext(program, io);
  const get = program.command('get').description("Print controlplane resources (policies, groups, controller information) and an agent's state (agentinfo, pod interfaces, OVS flows, Service ports)");
  examples(get, [
    ['List AddressGroups', 'yardctl get addressgroup'],
    ['Show one NetworkPolicy as YAML', 'yardctl get netpol web-policy -n x -o yaml'],
  ]);
  addControlplaneGetCommands(get, ctx);
  addAgentGetCommands(get, ctx);
  addPolicyCommands(program, ctx);
  addQueryCommands(program, ctx);
  addMcCommands(program, ctx);
  addTraceflowCommand(program, ctx);
  addCheckCommand(program, ctx);
  addCompletionCommand(program, io);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (e) {
    return failure(e, argv, io, held.error);
  }
}

/** `yardctl` with its global flags, its output through `io`, and commander's errors held in `held`. */
function rootCommand(io: CliIo, held: { error: string }): Command {
  const program = new Command('yardctl');
  program
    .description('yardctl: inspect Switchyard (NetworkPolicies, groups, controller and agents) through the Kubernetes API')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      outputError: (s) => (held.error += s),
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
  return program;
}

/** The connections and printing the command groups share, from the global flags and `io`. */
function commandContext(program: Command, io: CliIo): CommandContext {
  const kubeConnect = io.connectKube ?? connectKube;
  const connect = io.connect ?? ((o: ConnectOptions) => readApiOver(kubeConnect(o)));
  const connectOptions = (): ConnectOptions => {
    const g = program.opts<GlobalOpts>();
    const trace = g.verbose ? (l: string) => io.stderr.write(`${l}\n`) : undefined;
    return { ...(g.kubeconfig !== undefined ? { kubeconfig: g.kubeconfig } : {}), ...(g.server !== undefined ? { server: g.server } : {}), timeoutMs: g.timeout, ...(trace ? { trace } : {}) };
  };
  const print = (o: OutputOpts, data: unknown, table: () => Table): void => {
    if (o.output === 'json' || o.output === 'yaml') io.stdout.write(renderData(data, o.output));
    else io.stdout.write(renderTable(table(), { noHeaders: !o.headers }));
  };
  return {
    io,
    connectOptions,
    api: () => connect(connectOptions()),
    kube: () => kubeConnect(connectOptions()),
    kubeWriter: () => (io.connectKubeWriter ?? connectKubeWriter)(connectOptions()),
    print,
    printList(o, data, count, table, where) {
      if (count === 0 && o.output !== 'json' && o.output !== 'yaml') {
        io.stderr.write(where === undefined ? 'No resources found\n' : `No resources found in ${where} namespace.\n`);
        return;
      }
      print(o, data, table);
    },
  };
}

function addCompletionCommand(program: Command, io: CliIo): void {
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
}

/** The exit code of a failed run, with its message on stderr (`heldError`: commander's own text). */
function failure(e: unknown, argv: readonly string[], io: CliIo, heldError: string): number {
  if (e instanceof CommanderError) {
    if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version') return 0;
    if (e.code === 'commander.unknownCommand' && argv.includes('get') && !argv.slice(0, argv.indexOf('get')).some((a) => !a.startsWith('-'))) {
      const resource = argv.slice(argv.indexOf('get') + 1).find((a) => !a.startsWith('-')) ?? '';
      io.stderr.write(`error: the server doesn't have a resource type "${resource}" (yardctl get --help lists them)\n`);
      return EXIT_ERROR;
    }
    if (e.code === 'yardctl.usage') io.stderr.write(`${e.message}\n`);
    else io.stderr.write(heldError);
    return EXIT_USAGE;
  }
  if (e instanceof CliError) {
    io.stderr.write(`${e.message.startsWith('error') || e.message.startsWith('Error') ? '' : 'error: '}${e.message}\n`);
    return e.exitCode;
  }
  io.stderr.write(`error: ${(e as Error).message ?? String(e)}\n`);
  return EXIT_ERROR;
}
