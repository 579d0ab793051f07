// `yardctl check installation`: flags, Ctrl-C handling, the report as a table or JSON/YAML, and the exit code.
import { KubeConfig } from '@kubernetes/client-node';
import type { Command } from 'commander';
import { podsExecConnector } from './check-connect';
import { DEFAULT_SWITCHYARD_NAMESPACE } from './check-controlplane';
import { runInstallationCheck } from './check-installation';
import { checkTable, reportExitCode, summaryLine } from './check-report';
import { DEFAULT_TEST_IMAGE, generatedNamespace } from './check-workload';
import { loadKubeConfig, type ConnectOptions } from './client';
import { examples, withOutput, type CommandContext, type OutputOpts } from './command';
import { CliError } from './errors';

/** The kubeconfig for `pods/exec`, with `-s` as the current cluster's server as for every other request. */
function execKubeConfig(conn: ConnectOptions): KubeConfig {
  const kc = loadKubeConfig(conn);
  if (conn.server === undefined) return kc;
  const current = kc.getCurrentCluster()?.name;
  const server = conn.server;
  const clusters = current === undefined ? [{ name: 'yardctl-server', server, skipTLSVerify: false }] : kc.clusters.map((c) => (c.name === current ? { ...c, server } : c));
  const contexts = current === undefined ? [{ name: 'yardctl-server', cluster: 'yardctl-server', user: kc.getCurrentUser()?.name ?? '' }] : kc.contexts;
  const out = new KubeConfig();
  out.loadFromOptions({ clusters, users: kc.users, contexts, currentContext: current === undefined ? 'yardctl-server' : kc.currentContext });
  return out;
}

const DNS1123 = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** Each wait of the check when `--timeout` is not given (the global flag's default, 60 s). */
export const DEFAULT_CHECK_WAIT_MS = 60_000;

interface CheckOpts extends OutputOpts {
  namespace?: string;
  switchyardNamespace: string;
  testImage: string;
}

/** Adds `check installation`. */
export function addCheckCommand(program: Command, ctx: CommandContext): void {
  const hooks = ctx.io.check ?? {};
  const check = program.command('check').description('Check a Switchyard installation against the running cluster');
  const cmd = withOutput(
    check
      .command('installation')
      .description('Smoke test of a running cluster through the Kubernetes API: controller and agents ready, then in a test namespace pod-to-pod (same node, across nodes), pod-to-Service (ClusterIP) and a deny-all ingress NetworkPolicy; the namespace is deleted at the end, also on failure or Ctrl-C. -t/--timeout bounds each wait (default 60s). Exit code 0 when no check failed.')
      .option('-n, --namespace <ns>', 'test namespace to create (and delete); must not exist (default: yardctl-check-<random>)')
      .option('--switchyard-namespace <ns>', 'namespace of the switchyard-controller Deployment and switchyard-agent DaemonSet', DEFAULT_SWITCHYARD_NAMESPACE)
      .option('--test-image <image>', 'image of the test pods (agnhost: pause, netexec, connect)', DEFAULT_TEST_IMAGE),
  );
  examples(cmd, [
    ['Check the cluster of the current context', 'yardctl check installation'],
    ['A structured report, with 2 minutes for each wait', 'yardctl check installation -o json --timeout 2m'],
  ]).action(async (o: CheckOpts, command: Command) => {
    const namespace = o.namespace ?? generatedNamespace();
    if (!DNS1123.test(namespace) || namespace.length > 63) throw new CliError('USAGE', `invalid --namespace "${namespace}": must be a DNS-1123 label`, namespace, '--namespace');
    const conn = ctx.connectOptions();
    const root = command.parent?.parent;
    const waitMs = root?.getOptionValueSource('timeout') === 'cli' ? conn.timeoutMs : DEFAULT_CHECK_WAIT_MS;
    if (waitMs <= 0) throw new CliError('USAGE', 'invalid --timeout "0": check installation needs a limit for each wait (e.g. 2m)', waitMs, '--timeout');
    const abort = new AbortController();
    const signals = hooks.signals ?? process;
    const onSignal = (): void => {
      ctx.io.stderr.write(`interrupted: stopping and deleting namespace ${namespace}\n`);
      abort.abort();
    };
    signals.once('SIGINT', onSignal);
    signals.once('SIGTERM', onSignal);
    try {
      const report = await runInstallationCheck({
        kube: ctx.kubeWriter(),
        connectorFor: hooks.podConnector ?? (() => podsExecConnector(execKubeConfig(conn))),
        namespace,
        switchyardNamespace: o.switchyardNamespace,
        image: o.testImage,
        waitMs,
        signal: abort.signal,
        ...(hooks.clock ? { clock: hooks.clock } : {}),
        progress: (l: string) => ctx.io.stderr.write(`${l}\n`),
      });
      ctx.print(o, report, () => checkTable(report.checks));
      if (o.output !== 'json' && o.output !== 'yaml') ctx.io.stderr.write(`${summaryLine(report)}\n`);
      if (report.cleanupError) ctx.io.stderr.write(`warning: ${report.cleanupError}\n`);
      if (reportExitCode(report) !== 0) throw new CliError('SERVER', `installation check failed: ${report.failed} of ${report.checks.length} checks failed${report.cleanupError ? ', test namespace left behind' : ''}`, report.failed, 'check installation');
    } finally {
      signals.removeListener('SIGINT', onSignal);
      signals.removeListener('SIGTERM', onSignal);
    }
  });
}
