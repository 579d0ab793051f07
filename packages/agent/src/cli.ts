/**
 * `switchyard-agent`: the node agent binary. Reads an antrea-agent.conf (Antrea's keys), takes the
 * node's facts from flags / env or from its Node object, starts the agent and stops it on SIGTERM
 * or SIGINT (@switchyard/runtime/process).
 */
import { existsSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { Command } from 'commander';
import { parse as parseYaml } from 'yaml';
import { pino } from 'pino';
import { parseAgentConfig, type AgentConfig } from '@switchyard/apis';
import { KubeConfigClient, type KubeClient, type KubeObject } from '@switchyard/kube';
import { Agent } from './agent';
import { agentOptionsFromConfig, policyBypassFromConfig, type AgentOptions } from './options';
import { ExternalNodeAgent } from './external-node-agent';
import { ResolvedKubeConfig } from './kube-config';
import { ExternalNodeDatapath } from './features/external-node/datapath';
import { nodeFacts, type NodeFacts } from './features/routes/node-routes';
import { givenAddresses, needsNodeObject, nodeAddressesOf, type NodeAddresses } from './node-addresses';
import { AgentError } from './errors';
import { uninstallFeatures } from './features/uninstall';
import type { Logger } from '@switchyard/runtime';
import { onShutdown, POD_SHUTDOWN_TIMEOUT_MS } from '@switchyard/runtime/process';

interface Flags {
  config?: string;
  nodeName?: string;
  podCidr?: string;
  nodeIp?: string;
  dataDir: string;
  nodeNetns?: string;
  apiSocket: string;
  ovsdb?: string;
  logLevel: string;
  controllerUrl?: string;
  controllerCaFile?: string;
  tokenFile?: string;
  uninstall?: boolean;
}

const IN_CLUSTER_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/**
 * The Kubernetes API from the config's kubeconfig, else $KUBECONFIG / in-cluster / ~/.kube/config,
 * as client-node's KubeConfig resolves it: in a short-lived child (kube-config.ts), so the agent
 * does not carry client-node's generated API; in-process only for what cannot leave it (a proxy).
 */
async function kubeClient(cfg: AgentConfig, log: Logger): Promise<KubeClient | undefined> {
  const path = cfg.clientConnection.kubeconfig || undefined;
  try {
    const resolved = await ResolvedKubeConfig.load({ path, onUnsupported: (why) => log.info({ why }, 'kubeconfig resolved in-process') });
    if (resolved) return new KubeConfigClient(resolved);
    const { KubeConfig } = await import('@kubernetes/client-node');
    const kc = new KubeConfig();
    if (path) kc.loadFromFile(path);
    else kc.loadFromDefault();
    return new KubeConfigClient(kc);
  } catch (e) {
    log.warn({ err: (e as Error).message }, 'no Kubernetes API: no remote nodes, no AntreaAgentInfo');
    return undefined;
  }
}

/** The controller's CA from ConfigMap kube-system/switchyard-ca (published by the controller). */
async function controllerCa(kube: KubeClient | undefined): Promise<string> {
  if (!kube) throw new AgentError('INVALID_CONFIG', 'no Kubernetes API to read the controller CA from: pass --controller-ca-file', undefined, '--controller-ca-file');
  const cm = await kube.request<{ data?: Record<string, string> }>('GET', '/api/v1/namespaces/kube-system/configmaps/switchyard-ca');
  const ca = cm.data?.['ca.crt'];
  if (!ca) throw new AgentError('INVALID_CONFIG', 'ConfigMap kube-system/switchyard-ca has no ca.crt', undefined, 'kube-system/switchyard-ca');
  return ca;
}

/** The Node object's facts (pod CIDRs, InternalIPs), when there is an API to read it from. */
async function nodeFactsFromApi(kube: KubeClient | undefined, nodeName: string, log: Logger): Promise<NodeFacts | undefined> {
  if (!kube) return undefined;
  const facts = nodeFacts(await kube.request<KubeObject>('GET', `/api/v1/nodes/${encodeURIComponent(nodeName)}`));
  log.info({ nodeName, podCIDR: facts.podCIDR, podCIDRv6: facts.podCIDRv6, nodeIP: facts.nodeIP, nodeIPv6: facts.nodeIPv6 }, 'node facts from the Node object');
  return facts;
}

function parseFlags(argv: string[]): Flags {
  const program = new Command()
    .name('switchyard-agent')
    .description('Switchyard node agent: pod networking on Open vSwitch, CNI server for switchyard-cni')
    .option('-c, --config <file>', 'antrea-agent.conf (YAML, Antrea agent keys)')
    .option('--node-name <name>', 'this node (default: $NODE_NAME)')
    .option('--pod-cidr <cidr>', "this node's pod CIDR: IPv4, dual-stack <v4 cidr>,<v6 cidr>, or IPv6-only <v6 cidr> (default: the Node object's spec.podCIDRs)")
    .option('--node-ip <ip>', "this node's transport address (IPv4), or <IPv4>,<IPv6> on a dual-stack or IPv6-only node (the IPv6 one serves IPv6 node ports), or <IPv6> alone on an IPv6-only node without IPv4 (the tunnels run over IPv6) (default: the Node's InternalIPs)")
    .option('--data-dir <dir>', 'state directory (IPAM store)', '/var/lib/switchyard')
    .option('--node-netns <netns>', 'lab: netns holding the node host side')
    .option('--api-socket <path>', 'local API socket', '/var/run/antrea/agent.sock')
    .option('--ovsdb <remote>', 'OVSDB remote (default: unix:<ovsRunDir>/db.sock)')
    .option('--log-level <level>', 'pino level', 'info')
    .option('--controller-url <url>', 'https://host:port of switchyard-controller (default: the switchyard Service from env)')
    .option('--controller-ca-file <file>', "controller CA (default: ConfigMap kube-system/switchyard-ca)")
    .option('--token-file <file>', 'bearer token for the controller (default: the in-cluster ServiceAccount token)')
    .option('--uninstall', 'nodeType externalNode: put every interface the agent swapped onto OVS back as it was, then exit; nodeType Node: remove the WireGuard device the agent leaves running, then exit');
  program.parse(argv);
  return program.opts<Flags>();
}

async function main(argv: string[]): Promise<void> {
  const flags = parseFlags(argv);
  const log = pino({ level: flags.logLevel, base: { component: 'switchyard-agent' } });
  const raw: unknown = flags.config ? parseYaml(readFileSync(flags.config, 'utf8')) : {};
  const { config, warnings } = parseAgentConfig(raw);
  for (const w of warnings) log.warn({ warning: w }, 'configuration warning');
  if (config.nodeType === 'externalNode') await runExternalNode(flags, config, log);
  else if (flags.uninstall) await uninstallNode(flags, config, log);
  else await runNode(flags, config, log);
}

/** `--uninstall`: what each feature left on the node on purpose (features/uninstall.ts). */
async function uninstallNode(flags: Flags, config: AgentConfig, log: Logger): Promise<void> {
  await uninstallFeatures({ dataDir: flags.dataDir, ...(flags.nodeNetns ? { nodeNetns: flags.nodeNetns } : {}), hostGateway: config.hostGateway, logger: log });
}

/** podCIDR(s) and addresses: the flags (`--pod-cidr`, `--node-ip`), completed from the Node object (node-addresses.ts). */
async function nodeAddresses(flags: Flags, kube: KubeClient | undefined, nodeName: string, log: Logger): Promise<NodeAddresses> {
  const given = givenAddresses(flags);
  const out = nodeAddressesOf(given, needsNodeObject(given) ? await nodeFactsFromApi(kube, nodeName, log) : undefined);
  if (given.nodeIPv6 !== undefined && out.nodeIPv6 === undefined) log.warn({ nodeIPv6: given.nodeIPv6 }, 'an IPv6 node address without an IPv6 pod CIDR: not used (IPv6 node ports need a dual-stack or IPv6-only node)');
  return out;
}

/** The controller: flags, else the `switchyard` Service's environment variables (as kubelet injects them). */
async function controlplaneOf(flags: Flags, kube: KubeClient | undefined, log: Logger): Promise<AgentOptions['controlplane']> {
  const svcHost = process.env.SWITCHYARD_SERVICE_HOST;
  const controllerUrl =
    flags.controllerUrl ?? (svcHost ? `https://${svcHost.includes(':') ? `[${svcHost}]` : svcHost}:${process.env.SWITCHYARD_SERVICE_PORT ?? '443'}` : undefined);
  if (!controllerUrl) {
    log.warn({}, 'no controller configured: pod networking only, NetworkPolicies from the local cache');
    return undefined;
  }
  const tokenFile = flags.tokenFile ?? (existsSync(IN_CLUSTER_TOKEN) ? IN_CLUSTER_TOKEN : undefined);
  // Reached at the Service's ClusterIP, the controller is checked by the Service's DNS name, which its
  // certificate carries (it cannot name a ClusterIP allocated after it was issued).
  const serverName = flags.controllerUrl ? undefined : `switchyard.${process.env.POD_NAMESPACE ?? 'kube-system'}.svc`;
  return {
    url: controllerUrl,
    ...(serverName ? { serverName } : {}),
    caPem: flags.controllerCaFile ? readFileSync(flags.controllerCaFile, 'utf8') : await controllerCa(kube),
    ...(tokenFile ? { tokenFile } : {}),
  };
}

/** nodeType Node: the agent of a Kubernetes Node, until SIGTERM/SIGINT. */
async function runNode(flags: Flags, config: AgentConfig, log: Logger): Promise<void> {
  const nodeName = flags.nodeName ?? process.env.NODE_NAME;
  if (!nodeName) throw new AgentError('INVALID_CONFIG', 'node name missing: pass --node-name or set NODE_NAME', undefined, '--node-name');
  const kube = await kubeClient(config, log);
  const { podCIDR, podCIDRv6, nodeIP, nodeIPv6 } = await nodeAddresses(flags, kube, nodeName, log);
  const options = agentOptionsFromConfig(config, {
    nodeName,
    podCIDR,
    ...(podCIDRv6 ? { podCIDRv6 } : {}),
    nodeIP,
    ...(nodeIPv6 ? { nodeIPv6 } : {}),
    dataDir: flags.dataDir,
    ...(flags.nodeNetns ? { nodeNetns: flags.nodeNetns } : {}),
    logger: log,
  });
  const controlplane = await controlplaneOf(flags, kube, log);
  const agent = await Agent.start({
    ...options,
    ...(controlplane ? { controlplane } : {}),
    ...(kube ? { kube } : {}),
    apiSocket: flags.apiSocket,
    ...(flags.ovsdb ? { ovsdbRemote: flags.ovsdb } : {}),
  });
  log.info({ nodeName, podCIDR, round: agent.round, apiPort: agent.apiPort }, 'agent ready');
  onShutdown(() => agent.stop(), { log, timeoutMs: POD_SHUTDOWN_TIMEOUT_MS });
}

/**
 * nodeType externalNode (a VM or bare-metal host): the ExternalNode named by --node-name, NODE_NAME
 * or the hostname, in `externalNode.externalNodeNamespace`; no pods, no Node object.
 */
async function runExternalNode(flags: Flags, config: AgentConfig, log: Logger): Promise<void> {
  const common = {
    ovsdbRemote: flags.ovsdb ?? `unix:${config.ovsRunDir}/db.sock`,
    ovsRunDir: config.ovsRunDir,
    bridge: config.ovsBridge,
    datapathType: config.ovsDatapathType,
    dataDir: flags.dataDir,
    ...(flags.nodeNetns ? { nodeNetns: flags.nodeNetns } : {}),
  };
  if (flags.uninstall) {
    const dp = await ExternalNodeDatapath.open({ ...common, ...(flags.nodeNetns ? { netns: flags.nodeNetns } : {}), logger: log });
    try {
      await dp.uninstall();
    } finally {
      await dp.close();
    }
    log.info({}, 'ExternalNode interfaces restored');
    return;
  }
  const nodeName = flags.nodeName ?? process.env.NODE_NAME ?? hostname();
  const kube = await kubeClient(config, log);
  if (!kube) throw new AgentError('INVALID_CONFIG', 'nodeType externalNode needs the Kubernetes API: set clientConnection.kubeconfig', undefined, 'clientConnection.kubeconfig');
  const controllerUrl = flags.controllerUrl;
  const agent = await ExternalNodeAgent.start({
    ...common,
    nodeName,
    kube,
    externalNode: { namespace: config.externalNode.externalNodeNamespace, policyBypassRules: policyBypassFromConfig(config.externalNode.policyBypassRules) },
    disableTxChecksumOffload: config.disableTXChecksumOffload || config.ovsDatapathType === 'netdev',
    apiSocket: flags.apiSocket,
    ...(controllerUrl
      ? {
          controlplane: {
            url: controllerUrl,
            ...(flags.controllerCaFile ? { caPem: readFileSync(flags.controllerCaFile, 'utf8') } : {}),
            ...(flags.tokenFile ? { tokenFile: flags.tokenFile } : {}),
          },
        }
      : {}),
    logger: log,
  });
  log.info({ nodeName, namespace: config.externalNode.externalNodeNamespace, health: agent.health() }, 'ExternalNode agent ready');
  onShutdown(() => agent.stop(), { log, timeoutMs: POD_SHUTDOWN_TIMEOUT_MS });
}

main(process.argv).catch((e: unknown) => {
  const err = e instanceof Error ? e : new Error(String(e));
  process.stderr.write(`${JSON.stringify({ level: 'fatal', msg: err.message, code: (err as { code?: unknown }).code, path: (err as { path?: unknown }).path })}\n`);
  process.exit(1);
});
