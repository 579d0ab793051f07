// switchyard-mc-controller: runs the leader or member reconcilers against a cluster from a
// kubeconfig (or in-cluster config), with pino logs and graceful shutdown on SIGTERM/SIGINT.
import { readFileSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeConfigClient } from '@switchyard/kube';
import { Command } from 'commander';
import { pino } from 'pino';
import YAML from 'yaml';
import { MulticlusterError } from './errors';
import { LeaderController } from './leader';
import { MemberController } from './member';
import type { EndpointIPType } from './service-export';

const program = new Command('switchyard-mc-controller')
  .description('Switchyard Multi-cluster controller: ClusterSet leader or member reconcilers')
  .requiredOption('--mode <mode>', 'leader or member')
  .option('--kubeconfig <file>', 'kubeconfig of this cluster (default: in-cluster config)')
  .option('--namespace <ns>', 'namespace of this controller (ClusterSet, token Secret, common area)', process.env.POD_NAMESPACE)
  .option('--config <file>', 'controller_manager_config.yaml (MultiClusterConfig keys: endpointIPType, enableStretchedNetworkPolicy, gatewayIPPrecedence, serviceCIDR, podCIDRs)')
  .option('--clusterset-id <id>', 'ClusterSet ID; the ClusterSet must be named so (default: its name)')
  .option('--endpoint-ip-type <type>', 'ClusterIP or PodIP (overrides the config file)')
  .option('--gateway-ip-precedence <p>', 'internal or external: which Node address is the gatewayIP (overrides the config file)')
  .option('--enable-stretched-networkpolicy', 'export label identities and import LabelIdentities (overrides the config file)')
  .option('--log-level <level>', 'pino log level', 'info');

interface Flags {
  mode: string;
  kubeconfig?: string;
  namespace?: string;
  config?: string;
  clustersetId?: string;
  endpointIpType?: string;
  enableStretchedNetworkpolicy?: boolean;
  gatewayIpPrecedence?: string;
  logLevel: string;
}

async function main(): Promise<void> {
  program.parse();
  const o = program.opts<Flags>();
  const log = pino({ level: o.logLevel, base: { component: 'switchyard-mc-controller', mode: o.mode } });
  if (o.mode !== 'leader' && o.mode !== 'member') throw new MulticlusterError('INVALID_OPTION', `--mode must be leader or member, got "${o.mode}"`, '--mode', o.mode);
  const namespace = o.namespace ?? (o.mode === 'leader' ? 'antrea-multicluster' : 'kube-system');
  const file = o.config ? ((YAML.parse(readFileSync(o.config, 'utf8')) as { endpointIPType?: unknown; enableStretchedNetworkPolicy?: unknown; gatewayIPPrecedence?: unknown; serviceCIDR?: unknown; podCIDRs?: unknown } | null) ?? {}) : {};
  // ClusterInfo CIDRs (MultiClusterConfig serviceCIDR, podCIDRs): what other clusters' gateways route here.
  const serviceCIDR = typeof file.serviceCIDR === 'string' && file.serviceCIDR ? file.serviceCIDR : undefined;
  const podCIDRs = Array.isArray(file.podCIDRs) ? file.podCIDRs.filter((c): c is string => typeof c === 'string' && c !== '') : [];
  const endpointIPType = o.endpointIpType ?? file.endpointIPType ?? 'ClusterIP';
  if (endpointIPType !== 'ClusterIP' && endpointIPType !== 'PodIP')
    throw new MulticlusterError('INVALID_OPTION', `endpointIPType must be ClusterIP or PodIP, got ${JSON.stringify(endpointIPType)}`, o.endpointIpType ? '--endpoint-ip-type' : `${o.config ?? ''}: endpointIPType`, endpointIPType);
  const stretched = o.enableStretchedNetworkpolicy ?? file.enableStretchedNetworkPolicy ?? false;
  if (typeof stretched !== 'boolean')
    throw new MulticlusterError('INVALID_OPTION', `enableStretchedNetworkPolicy must be true or false, got ${JSON.stringify(stretched)}`, `${o.config ?? ''}: enableStretchedNetworkPolicy`, stretched);
  const precedence = o.gatewayIpPrecedence ?? file.gatewayIPPrecedence ?? 'internal';
  if (precedence !== 'internal' && precedence !== 'external')
    throw new MulticlusterError('INVALID_OPTION', `gatewayIPPrecedence must be internal or external, got ${JSON.stringify(precedence)}`, o.gatewayIpPrecedence ? '--gateway-ip-precedence' : `${o.config ?? ''}: gatewayIPPrecedence`, precedence);
  const kc = new KubeConfig();
  if (o.kubeconfig) kc.loadFromFile(o.kubeconfig);
  else kc.loadFromCluster();
  const kube = new KubeConfigClient(kc);
  const common = { kube, namespace, logger: log, ...(o.clustersetId ? { clusterSetID: o.clustersetId } : {}) };
  const controller = o.mode === 'leader' ? new LeaderController(common) : new MemberController({ ...common, endpointIPType: endpointIPType as EndpointIPType, enableStretchedNetworkPolicy: stretched, gatewayIPPrecedence: precedence, ...(serviceCIDR ? { serviceCIDR } : {}), ...(podCIDRs.length ? { podCIDRs } : {}) });
  await controller.start();
  log.info({ namespace }, 'switchyard-mc-controller started');
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    controller.stop().then(
      () => process.exit(0),
      (e: unknown) => {
        log.error({ err: (e as Error).message }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((e: unknown) => {
  const field = e instanceof MulticlusterError ? ` (${e.field})` : '';
  process.stderr.write(`switchyard-mc-controller: ${(e as Error).message}${field}\n`);
  process.exit(1);
});
