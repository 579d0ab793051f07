// Shared setup of the agent integration tests: a real OVS from the testbed, the agent running
// against it with the node's host side in the OVS netns, and the built switchyard-cni binary.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import YAML from 'yaml';
import { loadCrds } from '@switchyard/apis';
import { Controller } from '@switchyard/controller';
import { KubeConfigClient } from '@switchyard/kube';
import { startKubeApi, type KubeApiServer, type KubeObject } from '@switchyard/kube-api';
import { parseDumpFlows } from '@switchyard/openflow/codec';
import { flowChanges, flowSnapshot, run, type FlowSnapshot, type Netns, type OvsInstance, type Testbed } from '@switchyard/testbed';
import { Agent, type AgentOptions } from '../src/index';

export const PKG_DIR = join(__dirname, '..');
export const PLUGIN = join(PKG_DIR, 'dist', 'switchyard-cni.js');
/** The kubeconfig resolver the built agent runs as a child (src/kube-config-resolve.ts). */
export const KUBE_CONFIG_RESOLVER = join(PKG_DIR, 'dist', 'kube-config-resolve.js');
/** The native plugin (native/switchyard-cni.c, built with the package): the same contract, no Node.js start. */
export const NATIVE_PLUGIN = join(PKG_DIR, 'dist', 'switchyard-cni-native');

/**
 * native/switchyard-netns.c compiled for this run's source (the build puts it in dist/; a test must
 * not depend on that). The binary is kept in /tmp under the hash of the source and flags, so every
 * file and run of the same source shares one build and one directory (a directory per test file,
 * removed on the process's `exit` event, stayed behind when jest ended its workers without it).
 */
let netnsHelperBuilt: Promise<string> | undefined;
export function buildNetnsHelper(): Promise<string> {
  netnsHelperBuilt ??= (async () => {
    const source = join(PKG_DIR, 'native', 'switchyard-netns.c');
    const flags = ['-O2', '-Wall', '-Wextra'];
    const key = createHash('sha256').update(readFileSync(source)).update(flags.join(' ')).digest('hex').slice(0, 16);
    const dir = join(tmpdir(), `switchyard-netns-${key}`);
    const out = join(dir, 'switchyard-netns');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // /tmp is shared: only a directory of this user that no one else may write is trusted.
    const st = statSync(dir);
    if (st.uid !== process.getuid?.() || (st.mode & 0o022) !== 0) throw new Error(`${dir} is not this user's own directory`);
    if (existsSync(out)) return out;
    // Built under a name of this process, then renamed: a file of another lane building the same
    // source at the same time is never seen half written.
    const partial = `${out}.${process.pid}`;
    await run(['cc', ...flags, '-o', partial, source]);
    renameSync(partial, out);
    return out;
  })();
  return netnsHelperBuilt;
}

/** Builds the agent (and what it depends on) through nx when the plugin bundle is missing, as the lab does. */
export async function ensurePluginBuilt(): Promise<string> {
  if (!existsSync(PLUGIN) || !existsSync(KUBE_CONFIG_RESOLVER)) {
    execFileSync(process.execPath, [join(PKG_DIR, '../../scripts/build.mjs'), '@switchyard/agent'], { timeout: 600_000, stdio: 'inherit', env: { ...process.env, NODE_OPTIONS: '' } });
  }
  return PLUGIN;
}

export interface Node {
  ovs: OvsInstance;
  dir: string;
  socket: string;
  options: AgentOptions;
  agent: Agent;
}

/** Starts OVS and an agent with a pod CIDR; `overrides` tweak the options. */
export async function startNode(tb: Testbed, podCIDR: string, overrides: Partial<AgentOptions> = {}): Promise<Node> {
  const ovs = await tb.startOvs();
  const dir = mkdtempSync(join(tmpdir(), 'sy-agent-'));
  const socket = join(dir, 'cni.sock');
  const options: AgentOptions = {
    nodeName: 'node-1',
    podCIDR,
    nodeIP: '192.168.77.1',
    ovsdbRemote: ovs.dbRemote,
    ovsRunDir: ovs.dir,
    bridge: 'br-int',
    datapathType: 'netdev',
    gatewayName: 'sy-gw0',
    tunnelName: 'sy-tun0',
    dataDir: dir,
    cniSocket: socket,
    nodeNetns: ovs.netns.name,
    ...overrides,
  };
  const agent = await Agent.start(options);
  return { ovs, dir, socket, options, agent };
}

export async function stopNode(node: Node | undefined): Promise<void> {
  if (!node) return;
  await node.agent.stop().catch(() => undefined);
  rmSync(node.dir, { recursive: true, force: true });
}

export interface PluginRun {
  code: number;
  out: Record<string, unknown>;
  raw: string;
}

/** Execs the plugin the way a container runtime does: CNI_* env, config on stdin, JSON on stdout. */
export async function cni(
  command: string,
  env: { containerId?: string; netns?: string; ifname?: string; args?: string; socket?: string },
  stdin: string,
  plugin: string = PLUGIN,
): Promise<PluginRun> {
  const e: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', CNI_COMMAND: command, CNI_PATH: '/opt/cni/bin' };
  if (env.containerId !== undefined) e.CNI_CONTAINERID = env.containerId;
  if (env.netns !== undefined) e.CNI_NETNS = env.netns;
  if (env.ifname !== undefined) e.CNI_IFNAME = env.ifname;
  if (env.args !== undefined) e.CNI_ARGS = env.args;
  if (env.socket !== undefined) e.SWITCHYARD_CNI_SOCKET = env.socket;
  const r = await run([plugin], { env: e, input: stdin, allowFailure: true });
  let out: Record<string, unknown> = {};
  if (r.stdout.trim()) out = JSON.parse(r.stdout) as Record<string, unknown>;
  return { code: r.code, out, raw: r.stdout };
}

/** A network configuration as a runtime passes it. */
export function netconf(socket: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ cniVersion: '1.0.0', name: 'switchyard', type: 'switchyard-cni', cniSocket: socket, ...extra });
}

export const podArgs = (ns: string, name: string): string => `IgnoreUnknown=1;K8S_POD_NAMESPACE=${ns};K8S_POD_NAME=${name};K8S_POD_INFRA_CONTAINER_ID=x`;

/** A pod sandbox: a fresh netns and a container id. */
export interface Sandbox {
  netns: Netns;
  containerId: string;
  name: string;
}

let seq = 0;
export async function sandbox(tb: Testbed, name: string): Promise<Sandbox> {
  const netns = await tb.createNetns('p');
  return { netns, containerId: `c${Date.now().toString(16)}${(seq++).toString(16).padStart(4, '0')}`, name };
}

/** ADD through the plugin; returns the pod address (no prefix). */
export async function addPod(node: Node, sb: Sandbox): Promise<{ ip: string; result: Record<string, unknown> }> {
  const r = await cni('ADD', { containerId: sb.containerId, netns: sb.netns.path, ifname: 'eth0', args: podArgs('default', sb.name) }, netconf(node.socket));
  if (r.code !== 0) throw new Error(`ADD failed: ${r.raw}`);
  const ips = r.out.ips as { address: string }[];
  return { ip: (ips[0]?.address ?? '').split('/')[0] ?? '', result: r.out };
}

/** The embedded Kubernetes API with the RBAC of the manifests, and the real controller. */
export interface ControlPlane {
  api: KubeApiServer;
  kube: KubeConfigClient;
  controller: Controller;
  /** controlplane options for an agent of `nodeName` (its token was registered at start). */
  agentControlplane(): NonNullable<AgentOptions['controlplane']>;
  stop(): Promise<void>;
}

/** Starts kube-api (a node token for `nodeName`), applies the controller's RBAC, starts the controller. */
/** The controller's RBAC, and the agent role for every node identity (the lab binds it the same way). */
export function clusterRbac(): KubeObject[] {
  const rbac = YAML.parseAllDocuments(readFileSync(join(__dirname, '../../controller/build/rbac.yaml'), 'utf8')).map((d) => d.toJSON() as KubeObject);
  return [
    ...rbac,
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'switchyard-agent-nodes' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'switchyard-agent' }, subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:nodes' }] },
  ];
}

export async function startControlPlane(nodeName: string, controllerOptions: Partial<ConstructorParameters<typeof Controller>[0]> = {}): Promise<ControlPlane> {
  const token = `token-${nodeName}`;
  const api = await startKubeApi({ tokens: { [token]: { user: `system:node:${nodeName}`, groups: ['system:nodes', 'system:authenticated'] } }, crds: loadCrds() as never });
  const kc = new KubeConfig();
  kc.loadFromFile(api.kubeconfigPath);
  const kube = new KubeConfigClient(kc);
  api.createObjects(clusterRbac());
  const controller = new Controller({ kube, port: 0, host: '127.0.0.1', registerAPIService: false, informer: { initialBackoffMs: 50, maxBackoffMs: 500 }, ...controllerOptions });
  await controller.start();
  return {
    api,
    kube,
    controller,
    agentControlplane: () => ({ url: `https://127.0.0.1:${controller.port}`, caPem: controller.pki.caPem, token, backoff: { initialMs: 50, maxMs: 500 } }),
    stop: async () => {
      await controller.stop();
      await api.stop();
    },
  };
}

/**
 * GET over HTTPS from the agent API (a self-signed certificate, so the server is not verified
 * here), with an optional bearer token.
 */
export async function agentApiGet(url: string, token?: string): Promise<{ status: number; body: unknown }> {
  const { request } = await import('node:https');
  return new Promise((resolve, reject) => {
    const req = request(url, { rejectUnauthorized: false, headers: token ? { authorization: `Bearer ${token}` } : {} }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? (JSON.parse(text) as unknown) : undefined }));
    });
    req.on('error', reject);
    req.end();
  });
}

type DumpedFlow = ReturnType<typeof parseDumpFlows>[number];

/** The flows on a bridge (ovs-ofctl dump-flows), with their statistics. */
export async function dumpFlows(ovs: OvsInstance, bridge = 'br-int'): Promise<DumpedFlow[]> {
  return parseDumpFlows(await ovs.ofctl('-O', 'OpenFlow15', 'dump-flows', ovs.mgmtSocket(bridge)));
}

/** Each flow's age by its identity, and when they were read: taken before an agent restart (@switchyard/testbed's flowSnapshot, shared with the lab's restart test). */
export function flowAges(ovs: OvsInstance, bridge = 'br-int'): Promise<FlowSnapshot> {
  return flowSnapshot(ovs.mgmtSocket(bridge));
}

/**
 * The flows on the bridge now that did not age by at least the time since `before` was taken: an
 * untouched flow did; one added, modified or replaced since (a restart that re-sent it) did not.
 * Empty when a restart adopted every flow as it was.
 */
export async function flowsYoungerThan(ovs: OvsInstance, before: FlowSnapshot, bridge = 'br-int'): Promise<string[]> {
  const c = flowChanges(before, await flowSnapshot(ovs.mgmtSocket(bridge)));
  return [...c.added, ...c.younger];
}
