// switchyard-mc-controller: runs the leader or member reconcilers against a cluster from a
// kubeconfig (or in-cluster config), with pino logs and graceful shutdown on SIGTERM/SIGINT
// (@switchyard/runtime/process).
import { readFileSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeConfigClient, KubeRequestError } from '@switchyard/kube';
import { onShutdown, POD_SHUTDOWN_TIMEOUT_MS } from '@switchyard/runtime/process';
import { Command } from 'commander';
import { pino } from 'pino';
import YAML from 'yaml';
import { CONTROLLER_CONFIG_KEY, CONTROLLER_CONFIGMAP, controllerConfigOf, type ControllerConfig } from './controller-config';
import { MulticlusterError } from './errors';
import { LeaderController } from './leader';
import { MemberController } from './member';
import type { EndpointIPType } from './service-export';

const program = new Command('switchyard-mc-controller')
  .description('Switchyard Multi-cluster controller: ClusterSet leader or member reconcilers')
  .requiredOption('--mode <mode>', 'leader or member')
  .option('--kubeconfig <file>', 'kubeconfig of this cluster (default: in-cluster config)')
  .option('--namespace <ns>', 'namespace of this controller (ClusterSet, token Secret, common area)', process.env.POD_NAMESPACE)
  .option('--config <file>', 'controller_manager_config.yaml (MultiClusterConfig keys: serviceCIDR, serviceCIDRv6, podCIDRs, gatewayIPPrecedence, endpointIPType, enableStretchedNetworkPolicy)')
  .option('--configmap [name]', `read the MultiClusterConfig from this ConfigMap in --namespace, key ${CONTROLLER_CONFIG_KEY} (default name ${CONTROLLER_CONFIGMAP}; read by default in-cluster)`)
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
  configmap?: string | boolean;
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
  if (o.config !== undefined && o.configmap !== undefined) throw new MulticlusterError('INVALID_OPTION', 'use only one of --config and --configmap', '--configmap', o.configmap);
  const kc = new KubeConfig();
  if (o.kubeconfig) kc.loadFromFile(o.kubeconfig);
  else kc.loadFromCluster();
  const kube = new KubeConfigClient(kc);
  // Where the MultiClusterConfig comes from: --config, --configmap, or in-cluster the deployed ConfigMap when there is one.
  let file: ControllerConfig = {};
  if (o.config !== undefined) file = controllerConfigOf(parseYaml(readFileSync(o.config, 'utf8'), o.config), o.config);
  else if (o.configmap !== undefined || !o.kubeconfig) {
    const name = typeof o.configmap === 'string' ? o.configmap : CONTROLLER_CONFIGMAP;
    const source = `ConfigMap ${namespace}/${name} key ${CONTROLLER_CONFIG_KEY}`;
    const text = await configMapKey(kube, namespace, name, o.configmap !== undefined);
    if (text === undefined) log.info({ configMap: `${namespace}/${name}` }, 'no MultiClusterConfig ConfigMap; using defaults and flags');
    else file = controllerConfigOf(parseYaml(text, source), source);
  }
  const endpointIPType = o.endpointIpType ?? file.endpointIPType ?? 'ClusterIP';
  if (endpointIPType !== 'ClusterIP' && endpointIPType !== 'PodIP')
    throw new MulticlusterError('INVALID_OPTION', `endpointIPType must be ClusterIP or PodIP, got ${JSON.stringify(endpointIPType)}`, '--endpoint-ip-type', endpointIPType);
  const stretched = o.enableStretchedNetworkpolicy ?? file.enableStretchedNetworkPolicy ?? false;
  const precedence = o.gatewayIpPrecedence ?? file.gatewayIPPrecedence ?? 'internal';
  if (precedence !== 'internal' && precedence !== 'external')
    throw new MulticlusterError('INVALID_OPTION', `gatewayIPPrecedence must be internal or external, got ${JSON.stringify(precedence)}`, '--gateway-ip-precedence', precedence);
  log.info({ config: file }, 'MultiClusterConfig read');
  const common = { kube, namespace, logger: log, ...(o.clustersetId ? { clusterSetID: o.clustersetId } : {}) };
  const controller = o.mode === 'leader' ? new LeaderController(common) : new MemberController({ ...common, endpointIPType: endpointIPType as EndpointIPType, enableStretchedNetworkPolicy: stretched, gatewayIPPrecedence: precedence, ...(file.serviceCIDR ? { serviceCIDR: file.serviceCIDR } : {}), ...(file.serviceCIDRv6 ? { serviceCIDRv6: file.serviceCIDRv6 } : {}), ...(file.podCIDRs ? { podCIDRs: file.podCIDRs } : {}) });
  await controller.start();
  log.info({ namespace }, 'switchyard-mc-controller started');
  onShutdown(() => controller.stop(), { log, timeoutMs: POD_SHUTDOWN_TIMEOUT_MS });
}

/** A ConfigMap key's text; undefined when the ConfigMap is missing and not `required`. */
async function configMapKey(kube: KubeConfigClient, namespace: string, name: string, required: boolean): Promise<string | undefined> {
  let cm: { data?: Record<string, string> };
  try {
    cm = await kube.request('GET', `/api/v1/namespaces/${namespace}/configmaps/${encodeURIComponent(name)}`);
  } catch (e) {
    if (e instanceof KubeRequestError && e.status === 404 && !required) return undefined;
    if (e instanceof KubeRequestError && e.status === 404) throw new MulticlusterError('INVALID_OPTION', `ConfigMap ${namespace}/${name} not found`, '--configmap', name);
    throw e;
  }
  const text = cm.data?.[CONTROLLER_CONFIG_KEY];
  if (text === undefined) throw new MulticlusterError('INVALID_OPTION', `ConfigMap ${namespace}/${name} has no key ${CONTROLLER_CONFIG_KEY}`, '--configmap', name);
  return text;
}

function parseYaml(text: string, source: string): unknown {
  try {
    return YAML.parse(text) as unknown;
  } catch (e) {
    throw new MulticlusterError('INVALID_OPTION', `${source}: invalid YAML: ${(e as Error).message}`, source, text.slice(0, 200));
  }
}

main().catch((e: unknown) => {
  const field = e instanceof MulticlusterError ? ` (${e.field})` : '';
  process.stderr.write(`switchyard-mc-controller: ${(e as Error).message}${field}\n`);
  process.exit(1);
});
