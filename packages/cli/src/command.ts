// What every yardctl command group shares: the context it runs in (I/O, API connections,
// printing) and the output flags and examples each command carries.
import { CommanderError, Option, type Command } from 'commander';
import type { AgentApi, AgentConnectOptions } from './agent-client';
import type { ClientPod, PodConnector } from './check-connect';
import type { CheckClock } from './check-installation';
import type { ConnectOptions, KubeHttp, KubeWriter, ReadApi } from './client';
import { CliError, EXIT_USAGE } from './errors';
import { parseOutputFormat, type OutputFormat, type Table } from './output';

/** Where yardctl writes and what it knows about its terminal; injectable for tests. */
export interface CliIo {
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown };
  /** Whether stdout is a terminal (colors only then). */
  isTTY: boolean;
  env: Record<string, string | undefined>;
  /** Read API factory; defaults to the read API over {@link CliIo.connectKube}. */
  connect?: (o: ConnectOptions) => ReadApi;
  /** API server connection factory (node proxy, AntreaAgentInfo); defaults to `connectKube`. */
  connectKube?: (o: ConnectOptions) => KubeHttp;
  /** Agent local API factory; defaults to `connectAgent`. */
  connectAgent?: (o: AgentConnectOptions) => AgentApi;
  /** Read-write API client factory (the `mc` commands); defaults to `connectKubeWriter`. */
  connectKubeWriter?: (o: ConnectOptions) => KubeWriter;
  /** What `check installation` uses in place of real pod connections, time and process signals. */
  check?: CheckHooks;
}

/** Test doubles of `check installation`. */
export interface CheckHooks {
  podConnector?: (pod: ClientPod) => PodConnector;
  clock?: CheckClock;
  /** Where SIGINT/SIGTERM are listened for (default: the process). */
  signals?: Pick<NodeJS.Process, 'once' | 'removeListener'>;
}

/** The flags {@link withOutput} adds. */
export interface OutputOpts {
  output: OutputFormat;
  headers: boolean;
}

/** What a command group needs from the program around it. */
export interface CommandContext {
  io: CliIo;
  /** Connection options from the global flags (kubeconfig, server, timeout, --verbose tracing). */
  connectOptions(): ConnectOptions;
  /** The controller's read API, through the API server of the global flags. */
  api(): ReadApi;
  /** The API server of the global flags. */
  kube(): KubeHttp;
  /** A read-write client of the API server of the global flags. */
  kubeWriter(): KubeWriter;
  /** `data` as JSON/YAML, or `table()` rendered, by `-o`. */
  print(o: OutputOpts, data: unknown, table: () => Table): void;
  /** A list: kubectl's `No resources found` on stderr, and nothing on stdout, when a table would be empty. */
  printList(o: OutputOpts, data: unknown, count: number, table: () => Table, where?: string): void;
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

/** Wrap a parser so its CliError becomes a commander usage error (exit 2, message on stderr). */
export function usage<T>(parse: (v: string) => T): (v: string) => T {
  return (v) => {
    try {
      return parse(v);
    } catch (e) {
      if (e instanceof CliError) throw new CommanderError(EXIT_USAGE, 'yardctl.usage', `error: ${e.message}`);
      throw e;
    }
  };
}

/** Adds `-o/--output` and `--no-headers`. */
export function withOutput(cmd: Command): Command {
  return cmd
    .addOption(new Option('-o, --output <format>', 'output format: table|wide|json|yaml').default('table').argParser(usage(parseOutputFormat)))
    .option('--no-headers', 'do not print table headers');
}

/** Adds an Examples section to the command's help. */
export function examples(cmd: Command, lines: [string, string][]): Command {
  return cmd.addHelpText('after', `\nExamples:\n${lines.map(([what, how]) => `  # ${what}\n  $ ${how}`).join('\n\n')}\n`);
}

/** kubectl's NotFound of a named object. */
export function notFound(resource: string, name: string): CliError {
  return new CliError('NOT_FOUND', `Error from server (NotFound): ${resource} "${name}" not found`, name, resource);
}
