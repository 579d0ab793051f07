/**
 * The lab's supervisor: the embedded API server, the controller, N nodes (OVS in a netns, an
 * underlay into a shared fabric bridge, a real `switchyard-agent`) and the kubelet stand-in.
 * Everything made goes into a testbed run record, so `down` (or the next `up`, after a crash)
 * removes it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { hostname } from 'node:os';
import { KubeConfig } from '@kubernetes/client-node';
import YAML from 'yaml';
import { writeFileDurableSync } from '@switchyard/durable-file';
import { Testbed, freePort, processRef, run, waitFor, type OvsInstance } from '@switchyard/testbed';
import { ExecTargetError, startKubeApi, startKubeletExec, type KubeApiServer, type KubeletExecServer, type KubeObject } from '@switchyard/kube-api';
import { loadCrds, type InstallOptions } from '@switchyard/apis';
import { KubeConfigClient } from '@switchyard/controller';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { serviceCIDROf, FABRIC_PREFIX, FABRIC_PREFIX_2, FABRIC_GATEWAY_HOST, FABRIC_HOST_V6, FABRIC_PREFIX_V6, FABRIC_PREFIX_V6_2, LabError, brPhyAddressing, nodeInternalIPs, planNodes, type LabEncryption, type LabIpFamily, type LabMode, type NodeLayout, type NodePlan } from './plan';
import { Kubelet, type LabNodeRuntime } from './kubelet';
import { labAgentConfig, labControllerConfig, labInstallOptions } from './config';
import type { Phase } from './progress';
import { removeWireGuardDevice } from './wireguard-teardown';
import { binNodeFlags } from './node-flags';
import { containerOf, isFileVolume, podmanRunArgs, podSpecOf, type PodSpec } from './pod-spec';
import { ensureImages, generatedManifest, imagesDir, podman, PodmanContainer, type LabRuntime } from './podman';

/**
 * Root of the monorepo: `$SWITCHYARD_ROOT` (the bin script sets it), else the nearest parent of
 * the working directory holding packages/agent. (No __dirname/import.meta: this file runs both as
 * ESM under tsx and as CJS under jest.)
 */
export const REPO_ROOT = findRoot();
function findRoot(): string {
  if (process.env.SWITCHYARD_ROOT) return resolve(process.env.SWITCHYARD_ROOT);
  for (let d = process.cwd(); ; d = dirname(d)) {
    if (existsSync(join(d, 'packages/agent/package.json'))) return d;
    if (dirname(d) === d) return process.cwd();
  }
}
/**
 * How to start one of the lab's own programs: its build (dist/<name>.js, see tsup.config.ts) when
 * the caller built every package from this tree (`SWITCHYARD_PREBUILT=1`, as npm test sets) and it
 * is there; else its source through tsx with the workspace's path mapping (what a developer
 * editing the lab runs).
 */
export function labProgram(name: 'supervisor' | 'prober'): { argv: string[]; env: Record<string, string> } {
  const built = join(REPO_ROOT, 'tools/lab/dist', `${name}.js`);
  if (process.env.SWITCHYARD_PREBUILT === '1' && existsSync(built)) return { argv: [process.execPath, built], env: {} };
  return {
    argv: [process.execPath, '--import', join(REPO_ROOT, 'node_modules/tsx/dist/loader.mjs'), join(REPO_ROOT, 'tools/lab/src', `${name}.ts`)],
    env: { TSX_TSCONFIG_PATH: join(REPO_ROOT, 'tools/lab/tsconfig.json') },
  };
}

/** The built programs the lab runs, as a cluster would (`switchyard-lab up` builds them through nx first). */
const AGENT_CLI = join(REPO_ROOT, 'packages/agent/dist/agent-cli.js');
/**
 * The agent runs with the node flags of its bin entry (packages/agent/bin/switchyard-agent.js, what
 * the DaemonSet runs; binNodeFlags), so the lab's agents measure as a node's: no source maps (18
 * MiB of RSS; NODE_OPTIONS=--enable-source-maps brings them back for mapped stacks in agent.log).
 */
const AGENT_BIN = join(REPO_ROOT, 'packages/agent/bin/switchyard-agent.js');
const CONTROLLER_CLI = join(REPO_ROOT, 'packages/controller/dist/cli.js');

/** The last `n` lines of a log file, for an error that names why a program exited. */
function logTail(file: string, n: number): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-n).join('\n');
  } catch (e) {
    return `(cannot read it: ${(e as Error).message})`;
  }
}

/** Runs one of the built programs (the agent, the controller) with its output to `logFile`. */
function spawnProgram(entry: string, args: string[], logFile: string, env: NodeJS.ProcessEnv = {}, nodeFlags = ['--enable-source-maps']): ChildProcess {
  const log = openSync(logFile, 'a');
  return spawn(process.execPath, [...nodeFlags, entry, ...args], {
    cwd: join(REPO_ROOT, 'tools/lab'),
    env: { ...process.env, ...env },
    stdio: ['ignore', log, log],
  });
}
/** The CNI plugin bundle a runtime execs. */
export const CNI_PLUGIN = join(REPO_ROOT, 'packages/agent/dist/switchyard-cni.js');
/** The native plugin (built with the agent when a C compiler is there): what the DaemonSet installs on a host. */
export const CNI_PLUGIN_NATIVE = join(REPO_ROOT, 'packages/agent/dist/switchyard-cni-native');
/**
 * The plugin the lab's kubelet execs: the native one, as the DaemonSet installs it, when it was
 * built; the Node.js one without a C compiler or with SWITCHYARD_LAB_CNI=node.
 */
export const cniPlugin = (): string => (process.env.SWITCHYARD_LAB_CNI !== 'node' && existsSync(CNI_PLUGIN_NATIVE) ? CNI_PLUGIN_NATIVE : CNI_PLUGIN);

/** One node of a running lab, as state.json records it. */
export interface LabNodeState {
  name: string;
  /** The node's first pod CIDR (`--ip-family ipv6`: its only one, IPv6). */
  podCIDR: string;
  /** `--ip-family dual`: the node's IPv6 pod CIDR. */
  podCIDRv6?: string;
  /** The node's underlay address, its tunnels' endpoint: IPv4; with `--ip-family ipv6` the IPv6 one (an IPv6 underlay). */
  nodeIP: string;
  /** `--ip-family dual` and `ipv6`: the node's IPv6 underlay address (its IPv6 node ports are served there; `ipv6`: `nodeIP`). */
  nodeIPv6?: string;
  /** The node's netns (its OVS, br-phy, the underlay veth). */
  netns: string;
  apiSocket: string;
  cniSocket: string;
  agentPid: number;
  /** The agent's start time (`/proc/<pid>/stat`), so `restart-agent` never signals a process that reused the pid. */
  agentStart: string;
  /** ovs-vswitchd's unixctl socket (`ovs-appctl -t`), e.g. for ofproto/trace. */
  vswitchdCtl: string;
  /** `unix:<ovsdb socket>` of the node's ovsdb-server (`ovs-vsctl --db=`). */
  dbRemote: string;
  /**
   * What the node's own network configuration runs (in `netns`) to give br-phy the node IP and
   * its routes; `restart-ovs` runs it again, since a restarted ovs-vswitchd recreates br-phy (a
   * userspace-datapath internal port: a tap device) without them.
   */
  underlay: string[][];
  /** `--runtime podman`: the ID of the node's switchyard-agent container (the lab's only handle on it). */
  agentContainer?: string;
}

/** What `up` leaves in `<labDir>/state.json` for `status`, `down` and the demo. */
export interface LabState {
  pid: number;
  /** The supervisor's start time: `down` signals `pid` only while it still matches. */
  pidStart: string;
  kubeconfig: string;
  apiUrl: string;
  /** 0 when the lab runs without a controller (`--no-controller`). */
  controllerPort: number;
  /** The controller's pid and start time; they change when the supervisor starts it again (it exited or was killed). */
  controllerPid?: number;
  controllerStart?: string;
  /** The agents' trafficEncapMode. */
  mode: LabMode;
  /** `podman`: the controller and agents run in containers from the built images (absent: processes from the checkout). */
  runtime?: LabRuntime;
  /** `--runtime podman`: the IDs of every container the lab created (`down` removes what a crashed supervisor left, by these). */
  containers?: string[];
  /** The agents' trafficEncryptionMode (absent in a state.json of an older lab: none). */
  encryption?: LabEncryption;
  /** `dual`: every node dual-stack; `ipv6`: every node IPv6-only (absent: ipv4, as every lab before `--ip-family`). */
  ipFamily?: LabIpFamily;
  /** The fabric netns: the underlay bridge br0, and the router/host at `<prefix>.254` of each fabric subnet. */
  fabricNetns: string;
  /** `agentPid` changes when the supervisor respawns an agent (`restart-agent`, or a crash). */
  nodes: LabNodeState[];
}

export interface LabOptions {
  nodes: number;
  labDir: string;
  /** trafficEncapMode of every agent (default encap). */
  mode?: LabMode;
  /** trafficEncryptionMode of every agent (default none); wireGuard runs wireguard-go per node. */
  encryption?: LabEncryption;
  /** false: no controller; agents run without policies (pod networking only). Default true. */
  controller?: boolean;
  /** Called as each phase of the bring-up completes (the supervisor turns these into progress lines). */
  progress?: (phase: Phase, detail: string) => void;
  /** One cluster of several on a shared fabric (multi-cluster lab); absent: the single-cluster lab as before. */
  cluster?: LabClusterOptions;
  /** Feature gates of every agent and of the controller (`up --feature-gates`; Antrea names them the same on both). */
  featureGates?: Record<string, boolean>;
  /** antreaProxy.proxyAll on every agent. */
  proxyAll?: boolean;
  /**
   * `dual`: each node gets an IPv6 pod CIDR (`fd00:10:<i>::/64`) besides the IPv4 one (the Node's
   * spec.podCIDRs, the agents' `--pod-cidr v4,v6`), and the API server a dual-stack Service range
   * (plan.ts `DUAL_SERVICE_CIDR`). `ipv6`: each node's only pod CIDR is the IPv6 one (Node spec.podCIDR
   * and spec.podCIDRs, the agents' `--pod-cidr v6`), pods get an IPv6 address alone, and the API
   * server an IPv6 Service range (plan.ts `IPV6_SERVICE_CIDR`); the nodes' underlay is IPv6 alone
   * (`fd00:77::<i>`, the Node's only InternalIP; the tunnels run over IPv6). Default ipv4: the lab
   * as before. `dual` and `ipv6` with `cluster` (multi-cluster) take the cluster's `serviceCIDR`
   * (both families; the IPv6 one) and `podCIDRv6Prefix`.
   */
  ipFamily?: LabIpFamily;
  /**
   * `podman`: the controller and each node's agent run from the images `npm run images` built,
   * as switchyard.yml's Deployment and DaemonSet describe them (pod-spec.ts). Default `process`.
   */
  runtime?: LabRuntime;
}

/** A lab that is one cluster of a multi-cluster lab (multicluster-lab.ts). */
export interface LabClusterOptions extends NodeLayout {
  /** The fabric netns of a lab already running (its cluster made it); absent: this lab makes one. */
  fabricNetns?: string;
  /** The API server's Service ClusterIP range (a dual-stack cluster: `<IPv4 CIDR>,<IPv6 CIDR>`, as kube-apiserver's flag). */
  serviceCIDR: string;
  /** Extra antrea-agent.conf keys of every agent (featureGates.Multicluster, multicluster.*). */
  agentConfig?: Record<string, unknown>;
  /** Extra antrea-controller.conf keys (featureGates are merged with the lab's; multicluster.*). */
  controllerConfig?: { featureGates?: Record<string, boolean>; [key: string]: unknown };
  /** Nodes annotated `multicluster.antrea.io/gateway: "true"` when registered. */
  gatewayNodes?: string[];
}

export const stateFile = (labDir: string): string => join(labDir, 'state.json');
/** While this file exists beside a node's agent socket, the supervisor does not start that agent again (`stop-agent` / `start-agent`). */
export const agentHeldFile = (n: Pick<LabNodeState, 'apiSocket'>): string => join(dirname(n.apiSocket), 'agent.held');

/** Writes state.json atomically and durably (temporary file, fsync, rename, directory fsync): readers see the old or the new state, whole. */
function writeState(labDir: string, state: LabState): void {
  writeFileDurableSync(stateFile(labDir), `${JSON.stringify(state, null, 2)}\n`);
}
/** The supervisor's progress lines while it brings the lab up. */
export const progressFile = (labDir: string): string => join(labDir, 'progress');

/** The workspace projects whose builds the lab runs (nx builds their dependencies first). */
export const LAB_PROJECTS = ['@switchyard/agent', '@switchyard/controller', '@switchyard/cli'] as const;

/**
 * Builds what the lab runs through nx (dependencies first, cached: about 2 s when nothing
 * changed, a minute or more on a fresh clone), passing each progress line of the build to `onLine`.
 */
export async function buildLabPrograms(onLine: (line: string) => void): Promise<void> {
  const child = spawn(process.execPath, [join(REPO_ROOT, 'scripts/build.mjs'), ...LAB_PROJECTS], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_OPTIONS: '' } });
  let err = '';
  let partial = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    const lines = (partial + c).split('\n');
    partial = lines.pop() ?? '';
    for (const l of lines) if (l) onLine(l.replace(/^build: /, ''));
  });
  child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
  const code = await new Promise<number | null>((res) => child.on('close', res));
  if (code !== 0) throw new LabError('NOT_BUILT', `building ${LAB_PROJECTS.join(', ')} failed:\n${err}`);
}

/** Refuses to start when a program the lab runs is not built (names the missing file and the command that builds it). */
export function assertLabProgramsBuilt(): void {
  const missing = [AGENT_CLI, CONTROLLER_CLI, CNI_PLUGIN].filter((f) => !existsSync(f));
  if (missing.length) throw new LabError('NOT_BUILT', `not built: ${missing.join(', ')} (run \`node scripts/build.mjs\` at ${REPO_ROOT}, or \`switchyard-lab up\`, which builds first)`, missing);
}

/** The controller's RBAC, and the agent role bound to every node identity. */
function applyRbac(api: KubeApiServer): void {
  const rbac = YAML.parseAllDocuments(readFileSync(join(REPO_ROOT, 'packages/controller/build/rbac.yaml'), 'utf8')).map((d) => d.toJSON() as KubeObject);
  api.createObjects([
    ...rbac,
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'switchyard-agent-nodes' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'switchyard-agent' }, subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:nodes' }] },
  ]);
}

/** The controller process the supervisor keeps running; `onRestart` runs each time it starts it again. */
interface SupervisedController {
  port: number;
  pid: number;
  start: string;
  /** Set once the lab is up: from then on an exited controller is started again, like a Deployment's pod. */
  supervise(stopping: () => boolean, onRestart: () => void): void;
}

/** Starts the real switchyard-controller (and the `switchyard` Service its APIService and validating webhook point at). */
async function startController(kube: KubeConfigClient, api: KubeApiServer, kubeconfig: string, labDir: string, tb: Testbed, children: ChildProcess[], install: InstallOptions, extraConfig: LabClusterOptions['controllerConfig'] = {}, pods?: PodmanPods): Promise<SupervisedController> {
  // The real switchyard-controller binary; it publishes its CA in ConfigMap kube-system/switchyard-ca.
  const controllerPort = await freePort();
  // The `switchyard` Service the controller's APIService points at: kube-api proxies
  // controlplane.switchyard.io (yardctl, kubectl get) to these endpoints.
  await kube.request('POST', '/api/v1/namespaces/kube-system/services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'switchyard', namespace: 'kube-system' }, spec: { ports: [{ port: 443, targetPort: controllerPort }] } });
  await kube.request('POST', '/api/v1/namespaces/kube-system/endpoints', { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'switchyard', namespace: 'kube-system' }, subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ port: controllerPort }] }] });
  // kube-api signs its front-proxy client certificate with its own CA.
  const frontProxyCa = join(labDir, 'front-proxy-ca.crt');
  writeFileSync(frontProxyCa, api.caPem);
  let supervision: { stopping: () => boolean; onRestart: () => void } | undefined;
  const sup: SupervisedController = { port: controllerPort, pid: 0, start: '', supervise: (stopping, onRestart) => void (supervision = { stopping, onRestart }) };
  // antrea-controller.conf: the lab turns on ExternalNode (alpha, off by default in Antrea) so a VM
  // joined to the fabric can be protected (docs/external-node.md, "In the lab").
  const controllerConf = join(labDir, 'antrea-controller.conf');
  writeFileSync(controllerConf, YAML.stringify(labControllerConfig(install, extraConfig)));
  if (pods) return startControllerContainer(kube, api, labDir, install, extraConfig, pods, sup);
  const spawnController = (): ChildProcess => {
    const child = spawnProgram(
      CONTROLLER_CLI,
      ['--config', controllerConf, '--kubeconfig', kubeconfig, '--port', String(controllerPort), '--bind-address', '127.0.0.1', '--requestheader-client-ca-file', frontProxyCa],
      join(labDir, 'controller.log'),
    );
    children.push(child);
    if (child.pid) tb.trackPid(child.pid);
    sup.pid = child.pid ?? 0;
    sup.start = (child.pid && processRef(child.pid)?.start) || '';
    child.once('exit', () => {
      const i = children.indexOf(child);
      if (i >= 0) children.splice(i, 1);
      if (!supervision || supervision.stopping()) return;
      spawnController();
      supervision.onRestart();
    });
    return child;
  };
  const controller = spawnController();
  await controllerServing(kube, labDir, async () => (controller.exitCode !== null ? `exited with ${controller.exitCode}` : undefined));
  return sup;
}

/** Waits until the controller published its CA and registered its webhook, then writes the CA to `<labDir>/controller-ca.pem`; `gone` says why the controller is not running, if it is not. */
async function controllerServing(kube: KubeConfigClient, labDir: string, gone: () => Promise<string | undefined>): Promise<void> {
  let caPem = '';
  await waitFor('the controller CA ConfigMap', async () => {
    const why = await gone();
    if (why !== undefined) throw new Error(`switchyard-controller ${why} (see ${join(labDir, 'controller.log')}); its last lines:\n${logTail(join(labDir, 'controller.log'), 8)}`);
    const cm = await kube.request<{ data?: Record<string, string> }>('GET', '/api/v1/namespaces/kube-system/configmaps/switchyard-ca').catch(() => undefined);
    caPem = cm?.data?.['ca.crt'] ?? '';
    if (caPem === '') return false;
    // The controller registers its validating webhook for the Antrea kinds right after it
    // serves: wait for it too, so nothing the lab applies next skips admission.
    const hook = await kube.request('GET', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/crdvalidator.antrea.io').catch(() => undefined);
    return hook !== undefined;
  }, { timeoutMs: 60_000, intervalMs: 200 });
  writeFileSync(join(labDir, 'controller-ca.pem'), caPem);
}

/** `--runtime podman`: the manifest, where its images come from and what the lab made of them. */
interface PodmanPods {
  /** switchyard.yml for the lab's install options, parsed. */
  manifest: Record<string, unknown>[];
  /** A suffix making this lab's container names unique on the machine (names are labels; IDs are the handles). */
  suffix: string;
  /** Every container the lab created (recorded in state.json, removed at stop). */
  containers: PodmanContainer[];
  /** The labels put on every container. */
  labels: Record<string, string>;
}

/** Writes a ConfigMap's data as files in `dir` (what a kubelet mounts for a configMap volume). */
function writeConfigMapDir(dir: string, data: Readonly<Record<string, string>>): string {
  mkdirSync(dir, { recursive: true });
  for (const [k, v] of Object.entries(data)) writeFileSync(join(dir, k), v);
  return dir;
}

/** A projected ServiceAccount volume as a kubelet writes it: token, ca.crt, namespace. */
function writeServiceAccountDir(dir: string, token: string, caPem: string, namespace: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'token'), token, { mode: 0o644 });
  writeFileSync(join(dir, 'ca.crt'), caPem);
  writeFileSync(join(dir, 'namespace'), namespace);
  return dir;
}

/** The ConfigMap switchyard-config of the manifest: its data, which the lab copies and in which it replaces the configuration files with the lab's. */
function manifestConfigMap(manifest: readonly Record<string, unknown>[]): Record<string, string> {
  const cm = manifest.find((o) => o['kind'] === 'ConfigMap' && (o['metadata'] as { name?: string }).name === 'switchyard-config');
  if (!cm) throw new LabError('START_FAILED', 'the manifest has no ConfigMap switchyard-config', 'switchyard-config', 'ConfigMap');
  return { ...(cm['data'] as Record<string, string>) };
}

/**
 * Starts the controller from the manifest's Deployment pod spec: the ConfigMap (with the lab's
 * antrea-controller.conf: ExternalNode, and `apiPort`, a free port since the lab gives the
 * container the host's network), the front-proxy CA for `requestheader`, the
 * switchyard-controller ServiceAccount's token and the API server's Service variables.
 */
async function startControllerContainer(kube: KubeConfigClient, api: KubeApiServer, labDir: string, install: InstallOptions, extraConfig: LabClusterOptions['controllerConfig'], pods: PodmanPods, sup: SupervisedController): Promise<SupervisedController> {
  const pod = podSpecOf(pods.manifest, 'Deployment', 'switchyard-controller');
  const c = containerOf(pod, 'switchyard-controller');
  const data = manifestConfigMap(pods.manifest);
  data['antrea-controller.conf'] = YAML.stringify({ ...labControllerConfig(install, extraConfig), apiPort: sup.port });
  const volumes: Record<string, string> = {
    config: writeConfigMapDir(join(labDir, 'pods/controller/config'), data),
    requestheader: writeConfigMapDir(join(labDir, 'pods/controller/requestheader'), { 'requestheader-client-ca-file': api.caPem }),
  };
  const sa = writeServiceAccountDir(join(labDir, 'pods/controller/serviceaccount'), api.createServiceAccountToken('kube-system', 'switchyard-controller'), api.caPem, 'kube-system');
  const log = join(labDir, 'controller.log');
  closeSync(openSync(log, 'a'));
  const args = podmanRunArgs(pod, c, {
    name: `switchyard-controller-${pods.suffix}`,
    volumes,
    fieldRefs: { 'metadata.name': `switchyard-controller-${pods.suffix}`, 'metadata.namespace': 'kube-system', 'spec.nodeName': hostname() },
    serviceEnv: { KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: String(api.port) },
    serviceAccountDir: sa,
    hostNetwork: 'host',
    podNetwork: 'host',
    labels: pods.labels,
    logPath: log,
  });
  const container = await PodmanContainer.run(args, 'switchyard-controller');
  pods.containers.push(container);
  const refresh = async (): Promise<boolean> => {
    const s = await container.state();
    sup.pid = s.pid;
    sup.start = (s.pid && processRef(s.pid)?.start) || '';
    return s.running;
  };
  await refresh();
  let supervision: { stopping: () => boolean; onRestart: () => void } | undefined;
  sup.supervise = (stopping, onRestart) => void (supervision = { stopping, onRestart });
  // restartPolicy Always: an exited controller container is started again (the same container, by its ID).
  container.watch(async () => {
    if (!supervision || supervision.stopping()) return;
    if (!(await refresh())) await podman(['start', container.id]).catch(() => undefined);
    await refresh();
    supervision.onRestart();
  });
  await controllerServing(kube, labDir, async () => ((await container.state()).running ? undefined : `container ${container.id.slice(0, 12)} exited with ${(await container.state()).exitCode}`));
  return sup;
}

/** The fabric netns: bridge br0, router between the fabric subnets and the fabric host <prefix>.254. */
async function makeFabric(tb: Testbed, ipFamily: LabIpFamily, mode: LabMode): Promise<{ name: string }> {
  const fabric = await tb.createNetns('f');
  await fabric.exec(['ip', 'link', 'add', 'br0', 'type', 'bridge']);
  await fabric.exec(['ip', 'link', 'set', 'br0', 'up']);
  // The fabric netns is also the router between the two fabric subnets (hybrid) and the
  // "host on the fabric" pods reach through MASQUERADE: <prefix>.254 in each subnet.
  for (const prefix of [FABRIC_PREFIX, FABRIC_PREFIX_2]) await fabric.exec(['ip', 'addr', 'add', `${prefix}.${FABRIC_GATEWAY_HOST}/24`, 'dev', 'br0']);
  await fabric.exec(['sysctl', '-qw', 'net.ipv4.ip_forward=1']);
  // Dual-stack and IPv6-only: the fabric host on the IPv6 underlay too (an outside client of IPv6
  // node ports); in hybrid also the router between the two IPv6 subnets, as for IPv4.
  if (ipFamily !== 'ipv4') {
    for (const prefix of mode === 'hybrid' ? [FABRIC_PREFIX_V6, FABRIC_PREFIX_V6_2] : [FABRIC_PREFIX_V6]) await fabric.exec(['ip', '-6', 'addr', 'add', `${prefix}:${FABRIC_GATEWAY_HOST.toString(16)}/64`, 'dev', 'br0', 'nodad']);
    if (mode === 'hybrid') await fabric.exec(['sysctl', '-qw', 'net.ipv6.conf.all.forwarding=1']);
  }
  return { name: fabric.name };
}

/** The port the API server is reached at on the fabric host (what the `kubernetes` Service's endpoint is). */
export const FABRIC_API_PORT = 6443;
/** The fabric host's address, where the API server is reached from the nodes. */
export const FABRIC_API_HOST = `${FABRIC_PREFIX}.${FABRIC_GATEWAY_HOST}`;
/**
 * The fabric host's address of the API server in a lab of `ipFamily`: an IPv6-only cluster's
 * `kubernetes` Service is IPv6, so its endpoint is the fabric host's IPv6 address (kube-apiserver
 * advertises an address of the Service's family), or no proxy has an endpoint for it.
 */
export const fabricApiHost = (ipFamily: LabIpFamily): string => (ipFamily === 'ipv6' ? FABRIC_HOST_V6 : FABRIC_API_HOST);

/**
 * `--runtime podman`: a node's "host filesystem" for the DaemonSet's hostPath volumes that are
 * the node's own (`/opt/cni/bin`, `/etc/cni/net.d`, `/var/lib/openvswitch`, ...), since every lab
 * node shares this machine's.
 */
export const nodeHostRoot = (labDir: string, node: string): string => join(labDir, node, 'host');

/** `--runtime podman`, before the lab is made: switchyard.yml for its options and the images it names, loaded into podman. */
async function podmanPods(opts: LabOptions, progress: (phase: Phase, detail: string) => void): Promise<PodmanPods> {
  const install = labInstallOptions(opts.mode ?? 'encap', opts.encryption);
  const manifest = await generatedManifest(REPO_ROOT, install);
  const specs: PodSpec[] = [podSpecOf(manifest, 'Deployment', 'switchyard-controller'), podSpecOf(manifest, 'DaemonSet', 'switchyard-agent')];
  const refs = [...new Set(specs.flatMap((p) => [...(p.initContainers ?? []), ...p.containers].map((c) => c.image)))].sort();
  const loaded = await ensureImages(imagesDir(REPO_ROOT), refs);
  progress('images', loaded.map((l) => `${l.reference}${l.revision ? ` (revision ${l.revision})` : ''} ${l.loaded ? `loaded in ${(l.ms / 1000).toFixed(1)} s` : 'already loaded'}`).join(', '));
  return { manifest, suffix: randomBytes(4).toString('hex'), containers: [], labels: { 'io.switchyard.lab': resolve(opts.labDir) } };
}

/** Pipes two sockets into each other; either closing or failing ends both. */
function splice(a: Socket, b: Socket): void {
  a.pipe(b).pipe(a);
  a.on('error', () => b.destroy());
  b.on('error', () => a.destroy());
}

/** What runs in the fabric netns: each connection to ip:port is piped to the supervisor's unix socket (a path works across namespaces). */
const FABRIC_API_RELAY = [
  "const net = require('net');",
  'net.createServer((c) => { const u = net.connect(process.argv[3]); c.pipe(u).pipe(c); c.on("error", () => u.destroy()); u.on("error", () => c.destroy()); })',
  '  .listen(Number(process.argv[2]), process.argv[1]);',
  'process.on("SIGTERM", () => process.exit(0));',
].join('\n');

/**
 * Makes the API server reachable from the fabric at the fabric host's address (as a real cluster's
 * API server is on the node network) and advertises it there, so the `kubernetes` Service proxies
 * to it: a relay process in the fabric netns, then a unix socket in the lab directory, then the API
 * server on loopback. Returns the unix-socket server (closed at stop); the relay is in `children`.
 */
async function exposeApiOnFabric(api: KubeApiServer, fabricNetns: string, labDir: string, children: ChildProcess[], ipFamily: LabIpFamily): Promise<Server> {
  const sock = join(labDir, 'api-relay.sock');
  rmSync(sock, { force: true });
  const relay = createServer((c) => splice(c, connect(api.port, '127.0.0.1')));
  await new Promise<void>((res, rej) => relay.once('error', rej).listen(sock, () => res()));
  const ip = fabricApiHost(ipFamily);
  const child = spawn('ip', ['netns', 'exec', fabricNetns, process.execPath, '-e', FABRIC_API_RELAY, ip, String(FABRIC_API_PORT), sock], { stdio: 'ignore' });
  children.push(child);
  await waitFor('the API relay on the fabric', async () => (await run(['ip', 'netns', 'exec', fabricNetns, 'nc', '-z', '-w', '1', ip, String(FABRIC_API_PORT)], { allowFailure: true })).code === 0, { timeoutMs: 10_000, intervalMs: 50 });
  api.advertise({ ip, port: FABRIC_API_PORT });
  return relay;
}

/**
 * `--runtime podman`: the controller (on the host's loopback) reachable from inside a node's
 * netns at 127.0.0.1:`port`, where the agent's container finds it through the `switchyard`
 * Service variables (SWITCHYARD_SERVICE_HOST/PORT) the lab gives it. Loopback, because the
 * controller's serving certificate names loopback and the Service's DNS names, not an address
 * on the fabric. A relay process in the netns, then a unix socket, then the controller. Returns
 * the unix-socket server (closed at stop); the relay is in `children`.
 */
async function relayControllerIntoNode(netns: string, port: number, sockDir: string, children: ChildProcess[]): Promise<Server> {
  const sock = join(sockDir, 'controller-relay.sock');
  rmSync(sock, { force: true });
  const relay = createServer((c) => splice(c, connect(port, '127.0.0.1')));
  await new Promise<void>((res, rej) => relay.once('error', rej).listen(sock, () => res()));
  const child = spawn('ip', ['netns', 'exec', netns, process.execPath, '-e', FABRIC_API_RELAY, '127.0.0.1', String(port), sock], { stdio: 'ignore' });
  children.push(child);
  await waitFor(`the controller relay in ${netns}`, async () => (await run(['ip', 'netns', 'exec', netns, 'nc', '-z', '-w', '1', '127.0.0.1', String(port)], { allowFailure: true })).code === 0, { timeoutMs: 10_000, intervalMs: 50 });
  return relay;
}



/** A running lab (inside the supervisor process). */
export class Lab {
  private kubelet: Kubelet | undefined;
  /** The kubelet stand-in's exec endpoint, which the API server relays `pods/exec` to (closed at stop). */
  kubeletExec: KubeletExecServer | undefined;
  labDir = '';
  /** Set by stop(): exited processes are not started again. */
  stopping = false;
  /** The API server's relay from the fabric (closed at stop). */
  apiRelay: Server | undefined;
  /** `--runtime podman`: the manifest and the containers made from it. */
  pods: PodmanPods | undefined;
  /** `--runtime podman`: the controller relays into the nodes (closed at stop). */
  private readonly relays: Server[] = [];
  private constructor(
    readonly tb: Testbed,
    readonly api: KubeApiServer,
    readonly kube: KubeConfigClient,
    readonly state: LabState,
    private readonly children: ChildProcess[],
    private readonly agentConfig: Record<string, unknown> = {},
  ) {}

  /** Brings everything up; on failure tears down what was made and rethrows. */
  static async start(opts: LabOptions): Promise<Lab> {
    mkdirSync(opts.labDir, { recursive: true });
    assertLabProgramsBuilt();
    const progress = opts.progress ?? ((): void => undefined);
    const mode = opts.mode ?? 'encap';
    const withController = opts.controller ?? true;
    const ipFamily = opts.ipFamily ?? 'ipv4';
    const serviceCIDR = serviceCIDROf(ipFamily);
    const plans = planNodes(opts.nodes, () => randomBytes(18).toString('base64url'), mode, opts.cluster ?? {}, ipFamily);
    const runtime = opts.runtime ?? 'process';
    if (runtime === 'podman' && opts.cluster) throw new LabError('INVALID_ARGUMENT', 'the podman runtime runs a single-cluster lab (not the multi-cluster lab)', runtime, '--runtime');
    // Before anything is made: the manifest and the images it names, or a refusal naming what is missing.
    const pods = runtime === 'podman' ? await podmanPods(opts, progress) : undefined;
    const tb = await Testbed.create({ baseDir: join(opts.labDir, 'run') });
    let [api, kubeletExec]: [KubeApiServer?, KubeletExecServer?] = [];
    const children: ChildProcess[] = [];
    try {
      const tokens = Object.fromEntries(plans.map((p) => [p.token, { user: `system:node:${p.name}`, groups: ['system:nodes', 'system:authenticated'] }]));
      api = await startKubeApi({ tokens, crds: loadCrds() as never, nodeProxyHost: () => '127.0.0.1', ...(serviceCIDR !== undefined ? { serviceCIDR } : {}), ...(opts.cluster ? { serviceCIDR: opts.cluster.serviceCIDR } : {}), ...(pods ? { extraSans: [fabricApiHost(ipFamily)] } : {}) });
      const kubeconfig = api.writeKubeconfig(join(opts.labDir, 'kubeconfig'));
      const kc = new KubeConfig();
      kc.loadFromFile(kubeconfig);
      const kube = new KubeConfigClient(kc);
      applyRbac(api);
      progress('api', `embedded Kubernetes API server at ${api.url}`);
      let controller: SupervisedController | undefined;
      if (withController) {
        const cc = opts.cluster?.controllerConfig ?? {};
        controller = await startController(kube, api, kubeconfig, opts.labDir, tb, children, labInstallOptions(mode, opts.encryption), opts.featureGates ? { ...cc, featureGates: { ...cc.featureGates, ...opts.featureGates } } : cc, pods);
        progress('controller', `switchyard-controller serving on 127.0.0.1:${controller.port}${pods ? ` (container ${pods.containers[0]!.id.slice(0, 12)} of the Deployment's pod spec)` : ''}`);
      }
      const controllerPort = controller?.port ?? 0;
      // Underlay: a Linux bridge in a fabric netns; each node's veth ends on it (another cluster's
      // fabric when this lab is one cluster of several).
      const fabric = opts.cluster?.fabricNetns !== undefined ? { name: opts.cluster.fabricNetns } : await makeFabric(tb, ipFamily, mode);
      // One API server per fabric at its host address: a cluster sharing another's fabric keeps loopback.
      const apiRelay = opts.cluster?.fabricNetns === undefined ? await exposeApiOnFabric(api, fabric.name, opts.labDir, children, ipFamily) : undefined;

      const state: LabState = { pid: process.pid, pidStart: processRef(process.pid)?.start ?? '', kubeconfig, apiUrl: api.url, controllerPort, mode, encryption: opts.encryption ?? 'none', ...(ipFamily !== 'ipv4' ? { ipFamily } : {}), fabricNetns: fabric.name, nodes: [], ...(pods ? { runtime, containers: [] } : {}) };
      if (controller) {
        state.controllerPid = controller.pid;
        state.controllerStart = controller.start;
      }
      const ac = opts.cluster?.agentConfig ?? {};
      const gated = opts.featureGates ? { ...ac, featureGates: { ...(ac['featureGates'] as Record<string, boolean> | undefined), ...opts.featureGates } } : ac;
      const agentConfig = opts.proxyAll ? { ...gated, antreaProxy: { ...(gated['antreaProxy'] as Record<string, unknown> | undefined), proxyAll: true } } : gated;
      const lab = new Lab(tb, api, kube, state, children, agentConfig);
      lab.apiRelay = apiRelay;
      lab.pods = pods;
      const recordContainers = (): void => {
        if (pods) state.containers = pods.containers.map((c) => c.id);
      };
      recordContainers();
      controller?.supervise(
        () => lab.stopping,
        () => {
          state.controllerPid = controller.pid;
          state.controllerStart = controller.start;
          if (lab.labDir) writeState(lab.labDir, state);
        },
      );
      const runtimes: LabNodeRuntime[] = [];
      for (const plan of plans) {
        const ovs = await tb.startOvs();
        await lab.underlay(plan, ovs, fabric.name);
        progress('OVS', `${plan.name}: ovsdb-server and ovs-vswitchd (userspace datapath) in netns ${ovs.netns.name}, node IP ${plan.nodeIP}`);
        await kube.request('POST', '/api/v1/nodes', {
          apiVersion: 'v1', kind: 'Node', metadata: { name: plan.name, labels: { 'kubernetes.io/hostname': plan.name }, ...(opts.cluster?.gatewayNodes?.includes(plan.name) ? { annotations: { 'multicluster.antrea.io/gateway': 'true' } } : {}) },
          spec: { podCIDR: plan.podCIDR, podCIDRs: plan.podCIDRv6 !== undefined ? [plan.podCIDR, plan.podCIDRv6] : [plan.podCIDR] },
          status: { addresses: [...nodeInternalIPs(plan).map((address) => ({ type: 'InternalIP', address })), { type: 'Hostname', address: plan.name }], conditions: [{ type: 'Ready', status: 'True' }], daemonEndpoints: { kubeletEndpoint: { Port: (kubeletExec ??= await lab.serveExec()).port } } },
        });
        const node = pods ? await lab.startAgentContainer(plan, ovs, opts.labDir, await freePort(), pods) : lab.startAgent(plan, ovs, opts.labDir, await freePort());
        recordContainers();
        state.nodes.push(node);
        runtimes.push({ name: plan.name, cniSocket: node.cniSocket, ...(pods ? { plugin: join(nodeHostRoot(opts.labDir, plan.name), 'opt/cni/bin/switchyard-cni') } : {}) });
        progress('nodes', `${plan.name}: switchyard-agent started (podCIDR ${plan.podCIDR}${plan.podCIDRv6 !== undefined ? `, ${plan.podCIDRv6}` : ''})${node.agentContainer ? ` in container ${node.agentContainer.slice(0, 12)} (install-cni ran first; the lab's OVS, not the switchyard-ovs container)` : ''}`);
      }
      const readyMs = new Map<string, number>();
      // The API socket, and the DaemonSet's readinessProbe: the CNI socket is there.
      await Promise.all(state.nodes.map(async (n) => {
        await waitFor(`${n.name} agent API and CNI sockets`, () => existsSync(n.apiSocket) && existsSync(n.cniSocket), { timeoutMs: 60_000, intervalMs: 100 });
        readyMs.set(n.name, Date.now() - (lab.agentStartedAt.get(n.name) ?? Date.now()));
      }));
      progress('nodes', `agents ready on ${state.nodes.map((n) => `${n.name}${pods ? ` (${(readyMs.get(n.name)! / 1000).toFixed(1)} s from podman run)` : ''}`).join(', ')}`);
      lab.labDir = opts.labDir;
      lab.kubelet = new Kubelet({ kube, tb, nodes: runtimes, plugin: cniPlugin() });
      lab.kubelet.start();
      progress('kubelet', 'the kubelet stand-in runs pods as network namespaces');
      writeState(opts.labDir, state);
      return lab;
    } catch (e) {
      for (const c of pods?.containers ?? []) await c.remove(0);
      for (const c of children) c.kill('SIGKILL');
      await Promise.all([kubeletExec?.stop(), api?.stop()].map((stopped) => stopped?.catch(() => undefined)));
      await tb.cleanup();
      throw e instanceof LabError ? e : new LabError('START_FAILED', `lab start failed: ${(e as Error).message}`, e);
    }
  }

  /**
   * Starts the kubelet stand-in's exec endpoint, the nodes' kubelet port (one endpoint serves every
   * node: the API server dials 127.0.0.1 for each). Only the API server's client certificate is let
   * in, as a kubelet's --client-ca-file does.
   */
  private async serveExec(): Promise<KubeletExecServer> {
    this.kubeletExec = await startKubeletExec({
      clientCaPem: this.api.caPem,
      start: (r) => {
        if (!this.kubelet) throw new ExecTargetError(`container not found (the kubelet stand-in has not started; pod ${r.namespace}/${r.pod})`, `${r.namespace}/${r.pod}`);
        return this.kubelet.exec(r);
      },
    });
    return this.kubeletExec;
  }

  /** veth node<->fabric; br-phy (netdev) carries the node IP, as userspace Geneve needs. */
  private async underlay(plan: NodePlan, ovs: OvsInstance, fabricNs: string): Promise<void> {
    const inNode = this.tb.name('u');
    const inFabric = this.tb.name('u');
    this.tb.trackLink(inNode);
    this.tb.trackLink(inFabric);
    await run(['ip', 'link', 'add', inNode, 'type', 'veth', 'peer', 'name', inFabric]);
    await run(['ip', 'link', 'set', inNode, 'netns', ovs.netns.name]);
    await run(['ip', 'link', 'set', inFabric, 'netns', fabricNs]);
    await run(['ip', 'link', 'set', inFabric, 'master', 'br0', 'up'], { netns: fabricNs });
    await run(['ethtool', '-K', inFabric, 'tx', 'off'], { netns: fabricNs, allowFailure: true });
    await ovs.addBridge('br-phy');
    await ovs.vsctl('add-port', 'br-phy', inNode);
    for (const argv of [
      // The kernel must not answer ARP for the node IP on the veth OVS owns: the peer would send
      // Geneve to the veth's MAC and the kernel, not OVS, would get it.
      ['sysctl', '-qw', `net.ipv4.conf.${inNode}.arp_ignore=1`],
      ['ip', 'link', 'set', inNode, 'up'],
      ['ethtool', '-K', inNode, 'tx', 'off'],
      ...brPhyAddressing(plan),
    ])
      await ovs.netns.exec(argv);
  }

  /** Starts a node's agent; `apiPort` is its TCP API (AntreaAgentInfo publishes it for `yardctl --node`). */
  private startAgent(plan: NodePlan, ovs: OvsInstance, labDir: string, apiPort: number): LabNodeState {
    const dir = join(labDir, plan.name);
    mkdirSync(dir, { recursive: true });
    const cniSocket = join(dir, 'cni.sock');
    const apiSocket = join(dir, 'agent.sock');
    const conf = join(dir, 'antrea-agent.conf');
    writeFileSync(conf, YAML.stringify(labAgentConfig(labInstallOptions(this.state.mode, this.state.encryption), { ovsRunDir: ovs.dir, cniSocket, apiPort }, this.agentConfig)));
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, plan.token, { mode: 0o600 });
    const kubeconfig = this.api.writeKubeconfig(join(dir, 'kubeconfig'), { name: plan.name, token: plan.token });
    const argv = [
      '--config', conf, '--node-name', plan.name, '--pod-cidr', plan.podCIDRv6 !== undefined ? `${plan.podCIDR},${plan.podCIDRv6}` : plan.podCIDR, '--node-ip', nodeInternalIPs(plan).join(','), '--data-dir', join(dir, 'data'),
      '--node-netns', ovs.netns.name, '--api-socket', apiSocket, '--ovsdb', ovs.dbRemote,
      ...(this.state.controllerPort ? ['--controller-url', `https://127.0.0.1:${this.state.controllerPort}`, '--controller-ca-file', join(labDir, 'controller-ca.pem'), '--token-file', tokenFile] : []),
    ];
    const node: LabNodeState = { name: plan.name, podCIDR: plan.podCIDR, ...(plan.podCIDRv6 !== undefined ? { podCIDRv6: plan.podCIDRv6 } : {}), nodeIP: plan.nodeIP, ...(plan.nodeIPv6 !== undefined ? { nodeIPv6: plan.nodeIPv6 } : {}), netns: ovs.netns.name, apiSocket, cniSocket, agentPid: 0, agentStart: '', vswitchdCtl: ovs.vswitchdCtl, dbRemote: ovs.dbRemote, underlay: brPhyAddressing(plan) };
    const spawnAgent = (): void => {
      this.agentStartedAt.set(plan.name, Date.now());
      const child = spawnProgram(AGENT_CLI, argv, join(dir, 'agent.log'), { KUBECONFIG: kubeconfig }, binNodeFlags(AGENT_BIN));
      if (child.pid) this.tb.trackPid(child.pid);
      this.children.push(child);
      node.agentPid = child.pid ?? 0;
      node.agentStart = (child.pid && processRef(child.pid)?.start) || '';
      // Like a DaemonSet's kubelet: an agent that exits (killed by `restart-agent`, or crashed) is
      // started again with the same arguments, and state.json names the new pid.
      child.once('exit', () => {
        const i = this.children.indexOf(child);
        if (i >= 0) this.children.splice(i, 1);
        if (this.stopping) return;
        rmSync(apiSocket, { force: true });
        const respawn = (): void => {
          spawnAgent();
          if (this.labDir) writeState(this.labDir, this.state);
        };
        // `stop-agent` holds it down (a node whose agent is gone) until `start-agent` lifts the hold.
        if (!existsSync(agentHeldFile(node))) return respawn();
        const poll = setInterval(() => {
          if (this.stopping) return clearInterval(poll);
          if (existsSync(agentHeldFile(node))) return;
          clearInterval(poll);
          respawn();
        }, 100);
      });
    };
    spawnAgent();
    return node;
  }

  /** When each node's agent was last started (its process spawned, or `podman run` called), for the time to Ready. */
  readonly agentStartedAt = new Map<string, number>();

  /**
   * `--runtime podman`: starts a node's agent as the manifest's DaemonSet pod spec says, on this
   * node: the init container (install-cni) run to completion, then the switchyard-agent container
   * in the node's netns (hostNetwork). The pod's volumes: the ConfigMap as files (with the lab's
   * antrea-agent.conf: LAB_AGENT_KEYS with the container's paths), hostPaths in the node's
   * directories (`/var/run/openvswitch` is the node's OVS run directory, `/var/run/antrea` the
   * node's lab directory, so the sockets are where the process runtime puts them; `/var/run/netns`
   * and `/lib/modules` the machine's), the node's token as the projected ServiceAccount token, and
   * the Service variables of `kubernetes` (the API server on the fabric) and `switchyard` (the
   * controller, relayed into the node's netns). The lab's OVS runs the datapath (not the
   * switchyard-ovs container: the lab's faults drive ovs-vswitchd by its pidfile).
   */
  async startAgentContainer(plan: NodePlan, ovs: OvsInstance, labDir: string, apiPort: number, pods: PodmanPods): Promise<LabNodeState> {
    const dir = join(labDir, plan.name);
    const root = nodeHostRoot(labDir, plan.name);
    mkdirSync(dir, { recursive: true });
    const pod = podSpecOf(pods.manifest, 'DaemonSet', 'switchyard-agent');
    const agent = containerOf(pod, 'switchyard-agent');
    const data = manifestConfigMap(pods.manifest);
    data['antrea-agent.conf'] = YAML.stringify(labAgentConfig(labInstallOptions(this.state.mode, this.state.encryption), { ovsRunDir: '/var/run/openvswitch', cniSocket: '/var/run/antrea/cni.sock', apiPort }, this.agentConfig));
    const volumes: Record<string, string> = {};
    const machine: Record<string, string> = { '/var/run/openvswitch': ovs.dir, '/var/run/antrea': dir, '/var/lib/switchyard': join(dir, 'data'), '/var/run/netns': '/var/run/netns', '/lib/modules': '/lib/modules' };
    for (const v of pod.volumes ?? []) {
      if (v.configMap?.name === 'switchyard-config') volumes[v.name] = writeConfigMapDir(join(dir, 'configmap'), data);
      else if (v.hostPath) {
        const host = machine[v.hostPath.path] ?? join(root, v.hostPath.path);
        volumes[v.name] = host;
        if (isFileVolume(v)) {
          mkdirSync(dirname(host), { recursive: true });
          closeSync(openSync(host, 'a'));
        } else mkdirSync(host, { recursive: true });
      }
    }
    const sa = writeServiceAccountDir(join(dir, 'serviceaccount'), plan.token, this.api.caPem, 'kube-system');
    const serviceEnv: Record<string, string> = { KUBERNETES_SERVICE_HOST: fabricApiHost(this.state.ipFamily ?? 'ipv4'), KUBERNETES_SERVICE_PORT: String(FABRIC_API_PORT) };
    if (this.state.controllerPort) {
      this.relays.push(await relayControllerIntoNode(ovs.netns.name, this.state.controllerPort, dir, this.children));
      Object.assign(serviceEnv, { SWITCHYARD_SERVICE_HOST: '127.0.0.1', SWITCHYARD_SERVICE_PORT: String(this.state.controllerPort) });
    }
    const context = (c: { name: string }, init: boolean) => ({
      name: `${c.name}-${plan.name}-${pods.suffix}`,
      volumes,
      fieldRefs: { 'spec.nodeName': plan.name, 'metadata.name': `switchyard-agent-${plan.name}`, 'metadata.namespace': 'kube-system' },
      serviceEnv,
      serviceAccountDir: sa,
      hostNetwork: `ns:/run/netns/${ovs.netns.name}`,
      labels: pods.labels,
      init,
    });
    for (const init of pod.initContainers ?? []) {
      const r = await run(['podman', ...podmanRunArgs(pod, init, context(init, true))], { allowFailure: true, timeoutMs: 120_000 });
      writeFileSync(join(dir, `${init.name}.log`), r.stdout + r.stderr);
      if (r.code !== 0) throw new LabError('START_FAILED', `${plan.name}: init container ${init.name} exited with ${r.code}: ${(r.stderr || r.stdout).trim().split('\n').slice(-6).join('\n')}`, r.code, `initContainers[${init.name}]`);
    }
    const apiSocket = join(dir, 'agent.sock');
    const cniSocket = join(dir, 'cni.sock');
    const log = join(dir, 'agent.log');
    this.agentStartedAt.set(plan.name, Date.now());
    const container = await PodmanContainer.run(podmanRunArgs(pod, agent, { ...context(agent, false), logPath: log }), `switchyard-agent on ${plan.name}`);
    pods.containers.push(container);
    const node: LabNodeState = { name: plan.name, podCIDR: plan.podCIDR, ...(plan.podCIDRv6 !== undefined ? { podCIDRv6: plan.podCIDRv6 } : {}), nodeIP: plan.nodeIP, ...(plan.nodeIPv6 !== undefined ? { nodeIPv6: plan.nodeIPv6 } : {}), netns: ovs.netns.name, apiSocket, cniSocket, agentPid: 0, agentStart: '', vswitchdCtl: ovs.vswitchdCtl, dbRemote: ovs.dbRemote, underlay: brPhyAddressing(plan), agentContainer: container.id };
    const refresh = async (): Promise<boolean> => {
      const st = await container.state();
      node.agentPid = st.pid;
      node.agentStart = (st.pid && processRef(st.pid)?.start) || '';
      return st.running;
    };
    await refresh();
    // restartPolicy Always, as a kubelet: an exited agent container is started again (the same
    // container, by its ID), unless `stop-agent` holds it down; a restart from outside (`podman
    // restart <id>`) is only recorded.
    container.watch(async () => {
      if (this.stopping) return;
      if (!(await refresh())) {
        rmSync(apiSocket, { force: true });
        await waitFor(`${plan.name}'s agent hold lifted`, () => this.stopping || !existsSync(agentHeldFile(node)), { timeoutMs: 24 * 3600_000, intervalMs: 100 });
        if (this.stopping) return;
        this.agentStartedAt.set(plan.name, Date.now());
        if (!(await refresh())) await podman(['start', container.id]).catch(() => undefined);
        await refresh();
      }
      if (this.labDir) writeState(this.labDir, this.state);
    });
    return node;
  }

  /** Stops the kubelet (pods removed through CNI DEL), the agents, the controller, the API; removes everything. */
  async stop(labDir: string): Promise<void> {
    const t0 = Date.now();
    const mark = (what: string): void => void process.stdout.write(`stop: ${what} at ${Date.now() - t0} ms\n`);
    this.stopping = true;
    await this.kubeletExec?.stop();
    await this.kubelet?.stop();
    mark('pods removed');
    // Containers by their IDs: the agents and the controller, all at once (SIGTERM, SIGKILL after 10 s).
    if (this.pods) {
      await Promise.all(this.pods.containers.map((c) => c.remove(10)));
      mark('containers removed');
    }
    for (const r of this.relays) r.close();
    // All at once: the controller and the agents each take a moment to drain their streams.
    await Promise.all(
      this.children.map(async (c) => {
        if (c.exitCode !== null || c.signalCode !== null) return;
        const exited = new Promise((r) => c.once('exit', r));
        c.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
        if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
      }),
    );
    mark('processes stopped');
    // WireGuard devices outlive their agents; removed by the agents' records before the netns go.
    if (this.state.encryption === 'wireGuard') for (const n of this.state.nodes) await removeWireGuardDevice(n.netns, join(dirname(n.apiSocket), 'data'));
    this.apiRelay?.close();
    await this.api.stop().catch(() => undefined);
    await this.tb.cleanup();
    mark('namespaces and interfaces removed');
    rmSync(stateFile(labDir), { force: true });
    for (const n of this.state.nodes) rmSync(dirname(n.apiSocket), { recursive: true, force: true });
  }
}
