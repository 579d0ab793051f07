/**
 * The WireGuard part (trafficEncryptionMode wireGuard): runs the node's WireGuard device
 * (userspace wireguard-go, a child of the agent), keeps its private key on disk, publishes the
 * public key on the Node, and keeps the device's peers in line with the other Nodes. The routes
 * part sends remote pod CIDRs to the device; the pipeline hands that traffic to the gateway.
 *
 * wireguard-go puts its UAPI socket in the fixed directory /var/run/wireguard. Several lab nodes
 * share one file system, so the child runs in a private mount namespace with the node's own
 * directory mounted there; the agent reaches the socket at that directory's real path.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Informer, type KubeClient } from '@switchyard/kube';
import { systemClock } from '@switchyard/runtime';
import type { AgentContext } from '../context';
import { AgentError } from '../errors';
import type { AgentController, ControllerHealth } from '../lifecycle';
import { netnsPath } from '../netops';
import {
  WIREGUARD_DEVICE,
  WIREGUARD_PUBLIC_KEY_ANNOTATION,
  loadOrCreatePrivateKey,
  parseUapiGet,
  publicKeyOf,
  uapiRequest,
  uapiSetInterface,
  uapiSetPeers,
  wireGuardNodeFacts,
  wireGuardPeersOf,
  type SkippedPeer,
  type WireGuardNodeFacts,
  type WireGuardPeer,
} from '../wireguard';
import { NODES, PRIME_LIST_MS, listWithin } from './kube-resources';

/** How long wireguard-go may take to answer on its socket after it was started. */
const DEVICE_READY_MS = 10_000;

export class WireGuardTunnel implements AgentController {
  readonly name = 'wireguard';
  private child: ChildProcess | undefined;
  private childExit: { code: number | null; signal: string | null } | undefined;
  private stopping = false;
  private readonly output: string[] = [];
  private informer: Informer | undefined;
  private readonly nodes = new Map<string, WireGuardNodeFacts>();
  private running: Promise<void> | undefined;
  private dirty = false;
  private warned = new Set<string>();
  /** This node's public key (base64), once started. */
  publicKey: string | undefined;
  /** The peers last set on the device. */
  peers: WireGuardPeer[] = [];
  /** Nodes whose annotation holds no usable key. */
  skipped: SkippedPeer[] = [];
  lastError: unknown;

  constructor(
    private readonly ctx: AgentContext,
    private readonly kube: KubeClient,
  ) {}

  /** The UAPI socket of the device (in the node's own run directory). */
  get socketPath(): string {
    return join(this.runDir, `${WIREGUARD_DEVICE}.sock`);
  }
  private get runDir(): string {
    return join(this.ctx.options.dataDir, 'wireguard', 'run');
  }

  async start(): Promise<void> {
    const { options: o, log } = this.ctx;
    const { privateKey, created } = loadOrCreatePrivateKey(join(o.dataDir, 'wireguard', 'private.key'));
    this.publicKey = publicKeyOf(privateKey);
    log.info({ publicKey: this.publicKey, created }, created ? 'WireGuard key pair generated' : 'WireGuard key loaded');
    await this.startDevice();
    await uapiRequest(this.socketPath, uapiSetInterface(privateKey, o.wireGuardPort));
    await this.ctx.net.setLinkUp(WIREGUARD_DEVICE, this.ctx.mtu);
    await this.kube.request('PATCH', `/api/v1/nodes/${encodeURIComponent(o.nodeName)}`, { metadata: { annotations: { [WIREGUARD_PUBLIC_KEY_ANNOTATION]: this.publicKey } } }, 'application/merge-patch+json');
    log.info({ node: o.nodeName, annotation: WIREGUARD_PUBLIC_KEY_ANNOTATION }, 'WireGuard public key published');
    // Peers from the Nodes listed now: the restarted agent's tunnels are back before the watch runs.
    try {
      for (const n of await listWithin(this.kube, '/api/v1/nodes', PRIME_LIST_MS)) this.onNode(wireGuardNodeFacts(n));
      await this.idle();
    } catch (e) {
      log.warn({ err: e instanceof Error ? e.message : String(e) }, 'Nodes not listed at start; WireGuard peers follow from the watch');
    }
  }

  async sync(): Promise<void> {
    const o = this.ctx.options;
    this.informer = new Informer(
      this.kube,
      NODES,
      (e) => {
        const f = wireGuardNodeFacts(e.object);
        if (e.type === 'DELETED') {
          this.nodes.delete(f.name);
          this.schedule();
        } else this.onNode(f);
      },
      { clock: o.clock ?? systemClock, logger: this.ctx.log },
    );
    this.informer.start();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.informer?.stop();
    await this.idle();
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    // Only the process this part started, by its handle.
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
    await exited;
    clearTimeout(timer);
  }

  health(): ControllerHealth {
    if (this.childExit) return { ok: false, detail: `wireguard-go exited (code ${this.childExit.code}, signal ${this.childExit.signal}): ${this.output.slice(-3).join(' | ')}` };
    if (!this.publicKey) return { ok: false, detail: 'not started' };
    const held = `${WIREGUARD_DEVICE}: ${this.peers.length} peers${this.skipped.length ? `, ${this.skipped.length} skipped (bad key)` : ''}`;
    if (this.lastError !== undefined) return { ok: false, detail: `${held}; last apply failed: ${this.lastError instanceof Error ? this.lastError.message : String(this.lastError)}` };
    return { ok: true, detail: held };
  }

  /** Resolves when every Node change seen so far is on the device. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /**
   * Starts wireguard-go in the foreground in the node's namespace, in a private mount namespace
   * whose /var/run/wireguard is this node's run directory, and with a parent-death signal so it
   * never outlives the agent. Resolves once the device answers on its socket.
   */
  private async startDevice(): Promise<void> {
    const { options: o, log } = this.ctx;
    mkdirSync(this.runDir, { recursive: true, mode: 0o700 });
    const script = 'mkdir -p /var/run/wireguard && mount --bind "$1" /var/run/wireguard && exec setpriv --pdeathsig KILL "$2" -f "$3"';
    const argv = [
      ...(o.nodeNetns !== undefined ? ['nsenter', `--net=${netnsPath(o.nodeNetns)}`] : []),
      'unshare', '--mount', '--propagation', 'private', 'sh', '-c', script, 'sh', this.runDir, o.wireGuardGo, WIREGUARD_DEVICE,
    ];
    const [cmd, ...args] = argv as [string, ...string[]];
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LOG_LEVEL: 'error', WG_PROCESS_FOREGROUND: '1' } });
    this.child = child;
    const keep = (d: Buffer): void => {
      for (const line of d.toString('utf8').split('\n')) if (line.trim()) this.output.push(line.trim());
      this.output.splice(0, Math.max(0, this.output.length - 20));
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    child.on('exit', (code, signal) => {
      this.childExit = { code, signal };
      if (!this.stopping) log.error({ code, signal, output: this.output.slice(-5) }, 'wireguard-go exited: inter-node pod traffic stops until the agent restarts');
    });
    child.on('error', (e) => {
      this.childExit = { code: null, signal: null };
      this.output.push(e.message);
    });
    const deadline = Date.now() + DEVICE_READY_MS;
    for (;;) {
      if (this.childExit) throw new AgentError('WIREGUARD', `wireguard-go exited before its device was ready: ${this.output.slice(-3).join(' | ')}`, argv, 'wireGuard');
      if (existsSync(this.socketPath)) {
        try {
          await uapiRequest(this.socketPath, 'get=1\n\n', 1000);
          break;
        } catch {
          // the socket file may be the previous run's; wireguard-go replaces it
        }
      }
      if (Date.now() > deadline) throw new AgentError('WIREGUARD', `${WIREGUARD_DEVICE} did not answer on ${this.socketPath} within ${DEVICE_READY_MS} ms`, argv, 'wireGuard');
      await new Promise((r) => setTimeout(r, 50));
    }
    log.info({ device: WIREGUARD_DEVICE, pid: child.pid, socket: this.socketPath }, 'WireGuard device up (wireguard-go)');
  }

  private onNode(f: WireGuardNodeFacts): void {
    this.nodes.set(f.name, f);
    this.schedule();
  }

  private schedule(): void {
    this.dirty = true;
    this.running ??= this.loop().finally(() => (this.running = undefined));
  }

  private async loop(): Promise<void> {
    while (this.dirty) {
      this.dirty = false;
      try {
        await this.apply();
        this.lastError = undefined;
      } catch (e) {
        this.lastError = e;
        this.ctx.log.error({ err: e }, 'WireGuard peers not applied');
      }
    }
  }

  private async apply(): Promise<void> {
    const { options: o, log } = this.ctx;
    const self = { name: o.nodeName, ...(this.publicKey !== undefined ? { publicKey: this.publicKey } : {}) };
    const { peers, skipped } = wireGuardPeersOf([...this.nodes.values()], self, o.wireGuardPort);
    for (const s of skipped) {
      const k = `${s.node}\0${s.value}`;
      if (!this.warned.has(k)) log.warn({ node: s.node, value: s.value, annotation: WIREGUARD_PUBLIC_KEY_ANNOTATION }, `WireGuard peer skipped: Node ${s.node} annotation ${WIREGUARD_PUBLIC_KEY_ANNOTATION}=${JSON.stringify(s.value)}: ${s.reason}`);
      this.warned.add(k);
    }
    this.skipped = skipped;
    if (JSON.stringify(peers) === JSON.stringify(this.peers) && this.lastError === undefined) return;
    const current = parseUapiGet(await uapiRequest(this.socketPath, 'get=1\n\n')).peers.map((p) => p.publicKey);
    await uapiRequest(this.socketPath, uapiSetPeers(peers, current));
    this.peers = peers;
    log.info({ peers: peers.map((p) => `${p.node}@${p.endpoint} ${p.allowedIPs.join(',')}`) }, 'WireGuard peers set');
  }
}
