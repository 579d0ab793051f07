// switchyard-controller: the controller binary (config file in antrea-controller.conf keys, flags,
// kubeconfig or in-cluster config, pino logs, graceful shutdown on SIGTERM/SIGINT through
// @switchyard/runtime/process).
import { readFileSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import { parseControllerConfig } from '@switchyard/apis';
import { Command } from 'commander';
import { pino } from 'pino';
import YAML from 'yaml';
import { Controller, CONTROLLER_VERSION } from './controller';
import { ControllerError } from './errors';
import { KubeConfigClient } from '@switchyard/kube';
import { onShutdown, POD_SHUTDOWN_TIMEOUT_MS } from '@switchyard/runtime/process';
import { optionsFromConfig, type ControllerFlags } from './options';

const program = new Command('switchyard-controller')
  .description('Switchyard controller: NetworkPolicy computation and the controlplane API for agents')
  .version(CONTROLLER_VERSION)
  .option('--config <file>', 'configuration file (antrea-controller.conf keys)')
  .option('--kubeconfig <file>', 'kubeconfig (default: clientConnection.kubeconfig, else in-cluster)')
  .option('--port <n>', 'API port (overrides apiPort)', (v) => Number.parseInt(v, 10))
  .option('--bind-address <addr>', 'listen address', '0.0.0.0')
  .option('--namespace <ns>', 'namespace of the Service, CA Secret and ConfigMap', process.env.POD_NAMESPACE ?? 'kube-system')
  .option('--service-name <name>', 'Service agents and the APIService use', 'switchyard')
  .option('--requestheader-client-ca-file <file>', 'CA of the API server front-proxy client certificate (aggregation)')
  .option('--log-level <level>', 'pino log level', 'info');

async function main(): Promise<void> {
  program.parse();
  const o = program.opts<{ config?: string; kubeconfig?: string; port?: number; bindAddress: string; namespace: string; serviceName: string; requestheaderClientCaFile?: string; logLevel: string }>();
  const log = pino({ level: o.logLevel, base: { component: 'switchyard-controller' } });
  const raw = o.config ? (YAML.parse(readFileSync(o.config, 'utf8')) as unknown) : {};
  const { config, warnings } = parseControllerConfig(raw);
  for (const w of warnings) log.warn({ warning: w }, 'configuration warning');
  const flags: ControllerFlags = { bindAddress: o.bindAddress, namespace: o.namespace, serviceName: o.serviceName };
  if (o.kubeconfig) flags.kubeconfig = o.kubeconfig;
  if (o.port !== undefined) {
    if (!Number.isInteger(o.port) || o.port < 0 || o.port > 65535) throw new ControllerError('INVALID_CONFIG', `--port must be 0..65535`, '--port', o.port);
    flags.port = o.port;
  }
  const { kubeconfig, ...options } = optionsFromConfig(config, flags);
  const kc = new KubeConfig();
  if (kubeconfig) kc.loadFromFile(kubeconfig);
  else kc.loadFromCluster();
  const requestHeaderCaPem = o.requestheaderClientCaFile ? readFileSync(o.requestheaderClientCaFile, 'utf8') : undefined;
  const controller = new Controller({
    ...options,
    kube: new KubeConfigClient(kc),
    logger: log,
    ...(requestHeaderCaPem ? { requestHeaderCaPem } : {}),
    ...(process.env.POD_NAME ? { podRef: { namespace: o.namespace, name: process.env.POD_NAME } } : {}),
    ...(process.env.NODE_NAME ? { nodeName: process.env.NODE_NAME } : {}),
  });
  // Signal handlers before the start: a SIGTERM while starting (the server may already answer
  // /readyz) waits for the start to settle, then stops cleanly, instead of killing the process.
  const run: { starting?: Promise<number> } = {};
  onShutdown(
    async () => {
      await (run.starting ?? Promise.resolve(0)).catch(() => 0);
      await controller.stop();
    },
    { log, timeoutMs: POD_SHUTDOWN_TIMEOUT_MS },
  );
  run.starting = controller.start();
  const port = await run.starting;
  log.info({ port }, 'switchyard-controller started');
}

main().catch((e: unknown) => {
  process.stderr.write(`switchyard-controller: ${(e as Error).message}\n`);
  process.exit(1);
});
