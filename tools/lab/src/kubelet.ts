/**
 * The lab's kubelet stand-in: for every Pod bound to a lab node it creates the pod netns, calls
 * the real `switchyard-cni` ADD as a container runtime does (CNI_* env, config on stdin), writes
 * status.podIP/podIPs and Ready, and starts a server on each declared containerPort. DEL on
 * deletion. Pods without spec.nodeName are bound round-robin. `exec` runs a command in a running
 * pod for the kubelet's exec endpoint (kube-api's startKubeletExec), which `pods/exec` reaches.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { KubeConfigClient } from '@switchyard/controller';
import { ExecTargetError, type ExecRequest } from '@switchyard/kube-api';
import { run, type Netns, type Testbed } from '@switchyard/testbed';
import { imageCommand } from './images';
import { POD_SERVER_READY, RoundRobin, declaredPorts, podServerArgv } from './plan';

/** Pod annotation naming the pod's network namespace. */
export const NETNS_ANNOTATION = 'lab.switchyard.io/netns';

export interface LabNodeRuntime {
  name: string;
  cniSocket: string;
  /** The CNI plugin of this node (`--runtime podman`: what the DaemonSet's install-cni put in the node's /opt/cni/bin); absent: the kubelet's `plugin`. */
  plugin?: string;
}

interface PodObj {
  metadata: { name: string; namespace: string; uid: string; deletionTimestamp?: string };
  spec?: { nodeName?: string; containers?: { name?: string; image?: string; ports?: { containerPort?: number; protocol?: string }[] }[] };
}

interface Sandbox {
  uid: string;
  namespace: string;
  name: string;
  node: LabNodeRuntime;
  containerId: string;
  netns: Netns;
  servers: ChildProcess[];
  /** Name and image of each container (a name defaults to `c<i>`, as in the reported status). */
  containers: { name: string; image: string }[];
  /** Reported running: exec is served from then on. */
  running: boolean;
}

export interface KubeletOptions {
  kube: KubeConfigClient;
  tb: Testbed;
  nodes: LabNodeRuntime[];
  plugin: string;
  /** Poll period of the pod list (ms). */
  intervalMs?: number;
}

export class Kubelet {
  private readonly sandboxes = new Map<string, Sandbox>();
  private readonly rr: RoundRobin;
  private timer: NodeJS.Timeout | undefined;
  private busy: Promise<void> = Promise.resolve();
  /** Pods whose server is starting: each reports the pod running once its server listens. */
  private readonly readying = new Set<Promise<unknown>>();
  private stopped = false;
  /** Pods whose sandbox failed: attempts so far, and when the next may start. */
  private readonly failures = new Map<string, { tries: number; retryAt: number }>();

  constructor(private readonly o: KubeletOptions) {
    this.rr = new RoundRobin(o.nodes.map((n) => n.name));
  }

  start(): void {
    const tick = (): void => {
      if (this.stopped) return;
      this.busy = this.sync().catch((e: unknown) => {
        process.stderr.write(`kubelet: ${(e as Error).message}\n`);
      });
      void this.busy.then(() => {
        if (!this.stopped) this.timer = setTimeout(tick, this.o.intervalMs ?? 300);
      });
    };
    tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.busy;
    await Promise.all([...this.readying]);
    for (const sb of [...this.sandboxes.values()]) await this.teardown(sb).catch(() => undefined);
  }

  private async sync(): Promise<void> {
    const list = await this.o.kube.request<{ items: PodObj[] }>('GET', '/api/v1/pods');
    const live = new Set<string>();
    for (const pod of list.items) {
      const { uid, namespace, name } = pod.metadata;
      if (pod.metadata.deletionTimestamp) continue;
      live.add(uid);
      if (this.sandboxes.has(uid)) continue;
      if ((this.failures.get(uid)?.retryAt ?? 0) > Date.now()) continue;
      let nodeName = pod.spec?.nodeName;
      if (!nodeName) {
        nodeName = this.rr.pick();
        await this.o.kube.request('POST', `/api/v1/namespaces/${namespace}/pods/${name}/binding`, {
          apiVersion: 'v1', kind: 'Binding', metadata: { name, namespace }, target: { apiVersion: 'v1', kind: 'Node', name: nodeName },
        }).catch(() => this.o.kube.request('PATCH', `/api/v1/namespaces/${namespace}/pods/${name}`, { spec: { nodeName } }, 'application/merge-patch+json'));
      }
      const node = this.o.nodes.find((n) => n.name === nodeName);
      if (!node) continue; // bound to a node that is not ours
      await this.setup(pod, node);
    }
    for (const sb of [...this.sandboxes.values()]) if (!live.has(sb.uid)) await this.teardown(sb);
    for (const uid of this.failures.keys()) if (!live.has(uid)) this.failures.delete(uid);
  }

  private cniEnv(cmd: string, sb: Sandbox): NodeJS.ProcessEnv {
    return {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      CNI_COMMAND: cmd,
      CNI_CONTAINERID: sb.containerId,
      CNI_NETNS: sb.netns.path,
      CNI_IFNAME: 'eth0',
      CNI_ARGS: `IgnoreUnknown=1;K8S_POD_NAMESPACE=${sb.namespace};K8S_POD_NAME=${sb.name};K8S_POD_INFRA_CONTAINER_ID=${sb.containerId}`,
      CNI_PATH: '/opt/cni/bin',
    };
  }

  private netconf(node: LabNodeRuntime): string {
    return JSON.stringify({ cniVersion: '1.0.0', name: 'switchyard', type: 'switchyard-cni', cniSocket: node.cniSocket });
  }

  private async setup(pod: PodObj, node: LabNodeRuntime): Promise<void> {
    const { uid, namespace, name } = pod.metadata;
    const netns = await this.o.tb.createNetns('p');
    const containers = (pod.spec?.containers ?? []).map((c, i) => ({ name: c.name ?? `c${i}`, image: c.image ?? '' }));
    const sb: Sandbox = { uid, namespace, name, node, containerId: randomBytes(16).toString('hex'), netns, servers: [], containers, running: false };
    this.sandboxes.set(uid, sb);
    const r = await run([node.plugin ?? this.o.plugin], { env: this.cniEnv('ADD', sb), input: this.netconf(node), allowFailure: true, timeoutMs: 30_000 });
    if (r.code !== 0) {
      // As a kubelet does on FailedCreatePodSandBox: CNI DEL, the sandbox goes, and a new one is
      // tried after a backoff (1 s doubling to 10 s), e.g. once the agent is back.
      const tries = (this.failures.get(uid)?.tries ?? 0) + 1;
      this.failures.set(uid, { tries, retryAt: Date.now() + Math.min(10_000, 1000 * 2 ** (tries - 1)) });
      process.stderr.write(`kubelet: CNI ADD ${namespace}/${name} failed (attempt ${tries}): ${r.stdout}${r.stderr}\n`);
      await this.teardown(sb);
      return;
    }
    this.failures.delete(uid);
    const result = JSON.parse(r.stdout) as { ips?: { address: string }[] };
    // Every address of the result (dual-stack: IPv4 then IPv6), the first being podIP, as kubelet reports the CRI's.
    const ips = (result.ips ?? []).map((x) => x.address.split('/')[0] ?? '').filter((x) => x !== '');
    // One server for every TCP and UDP port of the pod. It takes a node start to listen: the pod
    // turns Ready once it does (a readiness probe), while the next pods' sandboxes are made.
    const argv = podServerArgv(declaredPorts(pod.spec), ips.some((x) => x.includes(':')));
    const server = argv ? this.o.tb.spawn(argv, netns.name) : undefined;
    if (server) sb.servers.push(server);
    // Where the pod lives, for probes (`ip netns exec <netns> ...`): the lab's `kubectl exec`.
    await this.o.kube.request('PATCH', `/api/v1/namespaces/${namespace}/pods/${name}`, { metadata: { annotations: { [NETNS_ANNOTATION]: netns.name } } }, 'application/merge-patch+json');
    const ready = (server ? serverListening(server) : Promise.resolve())
      .then(() => {
        if (this.sandboxes.get(uid) !== sb) return undefined;
        sb.running = true;
        return this.reportRunning(pod, sb, ips);
      })
      .catch((e: unknown) => process.stderr.write(`kubelet: ${namespace}/${name}: ${(e as Error).message}\n`))
      .finally(() => this.readying.delete(ready));
    this.readying.add(ready);
  }

  /**
   * Starts an exec's command in a running pod: in the pod's network namespace, as its server runs,
   * with the container image's own program mapped to the lab's stand-in ({@link imageCommand}).
   * The testbed owns the process (killed at the lab's stop if still running).
   * @throws ExecTargetError when the pod has no running sandbox here or no such container
   */
  exec(r: ExecRequest): ChildProcess {
    const target = `${r.namespace}/${r.pod}`;
    const sb = [...this.sandboxes.values()].find((s) => s.namespace === r.namespace && s.name === r.pod);
    if (!sb || !sb.running) throw new ExecTargetError(`container not found (pod ${target} is not running on the lab's nodes)`, target);
    const c = sb.containers.find((x) => x.name === r.container);
    if (!c) throw new ExecTargetError(`container not found (${JSON.stringify(r.container)} in pod ${target})`, target);
    return this.o.tb.spawn(imageCommand(c.image, r.command), sb.netns.name);
  }

  /** The pod's status as a kubelet reports a running, ready pod. */
  private async reportRunning(pod: PodObj, sb: Sandbox, ips: string[]): Promise<void> {
    const { namespace, name } = pod.metadata;
    const ip = ips[0] ?? '';
    const now = new Date().toISOString();
    await this.o.kube.request('PATCH', `/api/v1/namespaces/${namespace}/pods/${name}/status`, {
      status: {
        phase: 'Running', podIP: ip, podIPs: ips.length > 0 ? ips.map((x) => ({ ip: x })) : [{ ip }], startTime: now,
        conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: now }, { type: 'ContainersReady', status: 'True', lastTransitionTime: now }],
        // One running, ready status per container (kubectl's READY column counts them).
        containerStatuses: (pod.spec?.containers ?? []).map((c, i) => ({
          name: c.name ?? `c${i}`, image: c.image ?? '', imageID: '', containerID: `switchyard-lab://${sb.containerId}-${i}`,
          ready: true, started: true, restartCount: 0, state: { running: { startedAt: now } },
        })),
      },
    }, 'application/merge-patch+json');
  }

  private async teardown(sb: Sandbox): Promise<void> {
    this.sandboxes.delete(sb.uid);
    for (const s of sb.servers) s.kill('SIGKILL');
    await run([sb.node.plugin ?? this.o.plugin], { env: this.cniEnv('DEL', sb), input: this.netconf(sb.node), allowFailure: true, timeoutMs: 30_000 });
    await run(['ip', 'netns', 'del', sb.netns.name], { allowFailure: true });
  }
}

/** Resolves once the pod server prints that it listens; rejects if it exits first or takes 60 s. */
function serverListening(server: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const finish = (e?: Error): void => {
      clearTimeout(timer);
      server.stdout?.off('data', onOut);
      server.stderr?.off('data', onErr);
      server.off('exit', onExit);
      if (e) reject(e);
      else resolve();
    };
    const onOut = (c: Buffer): void => {
      out += c.toString('utf8');
      if (out.includes(POD_SERVER_READY)) finish();
    };
    const onErr = (c: Buffer): void => void (err += c.toString('utf8'));
    const onExit = (code: number | null, signal: string | null): void =>
      finish(new Error(`pod server exited (${signal ?? String(code)}) before it listened: ${err.trim()}`));
    const timer = setTimeout(() => finish(new Error(`pod server not listening after 60 s: ${err.trim()}`)), 60_000);
    server.stdout?.on('data', onOut);
    server.stderr?.on('data', onErr);
    server.once('exit', onExit);
  });
}
