/**
 * The WireGuard part (trafficEncryptionMode wireGuard): runs the node's WireGuard device
 * (userspace wireguard-go), keeps its private key on disk and rotates it, publishes the public key
 * on the Node, and keeps the device's peers in line with the other Nodes. The routes part sends
 * remote pod CIDRs to the device; the pipeline hands that traffic to the gateway.
 *
 * The device outlives the agent, as a kernel device would (see ./device): a restarted
 * agent adopts the running device instead of starting another, so pod traffic between nodes does
 * not stop while the agent is away.
 */
import { join } from 'node:path';
import { Informer, type KubeClient } from '@switchyard/kube';
import { Reconciler, systemClock, type Part, type PartHealth } from '@switchyard/runtime';
import type { AgentContext } from '../../context';
import {
  WIREGUARD_DEVICE,
  WIREGUARD_PUBLIC_KEY_ANNOTATION,
  parseUapiGet,
  uapiRequest,
  uapiSetInterface,
  uapiSetPeers,
  wireGuardNodeFacts,
  wireGuardPeersOf,
  type SkippedPeer,
  type WireGuardFamilies,
  type WireGuardNodeFacts,
  type WireGuardPeer,
} from './wireguard';
import { NODES, PRIME_LIST_MS, listWithin } from '../../kube-resources';
import { adoptWireGuardDevice, deviceLogTail, isRunning, nodeWireGuardDevice, startWireGuardDevice, wireGuardDir, wireGuardSocket, type DeviceProcess } from './device';
import { WireGuardKey } from './key';

export { removeWireGuardDevice } from './device';

const KEY_FILE = 'private.key';

export class WireGuardTunnel implements Part {
  readonly name = 'wireguard';
  /** The device's process: recorded, and either started by this agent or adopted from a previous one. */
  private device: DeviceProcess | undefined;
  private childExit: { code: number | null; signal: string | null } | undefined;
  private stopping = false;
  private informer: Informer | undefined;
  private readonly nodes = new Map<string, WireGuardNodeFacts>();
  /** Key checks and peer changes, one at a time (both talk to the device); failures are retried. */
  private readonly reconciler: Reconciler;
  private keyCheckDue = false;
  private readonly key: WireGuardKey;
  private warned = new Set<string>();
  /** This node's public key (base64), once started. */
  publicKey: string | undefined;
  /** Whether this agent adopted a device a previous agent left running. */
  adopted = false;
  /** The peers last set on the device. */
  peers: WireGuardPeer[] = [];
  /** Nodes whose annotation holds no usable key. */
  skipped: SkippedPeer[] = [];

  constructor(
    private readonly ctx: AgentContext,
    private readonly kube: KubeClient,
  ) {
    const o = ctx.options;
    this.key = new WireGuardKey({
      file: join(wireGuardDir(o.dataDir), KEY_FILE), clock: o.clock ?? systemClock, log: ctx.log, label: 'WireGuard',
      ...(o.wireGuardKeyRotationMs !== undefined ? { periodMs: o.wireGuardKeyRotationMs } : {}),
      onCheckDue: () => this.requestKeyCheck(),
    });
    this.reconciler = new Reconciler(() => this.reconcile(), {
      clock: o.clock ?? systemClock,
      onError: (e, retryInMs) => ctx.log.error({ err: e, retryInMs }, 'WireGuard device not brought in line with the Nodes and the key'),
    });
  }

  /** Failure of the last key check or peer change, until one succeeds. */
  get lastError(): unknown {
    return this.reconciler.lastError;
  }

  /** Why the key file was not used (it holds no key); cleared once it is right again. */
  get keyProblem(): string | undefined {
    return this.key.problem;
  }
  /** Key rotations this agent made. */
  get rotations(): number {
    return this.key.rotations;
  }

  /** The UAPI socket of the device (in the node's own run directory). */
  get socketPath(): string {
    return wireGuardSocket(this.ctx.options.dataDir);
  }
  private get keyFile(): string {
    return join(wireGuardDir(this.ctx.options.dataDir), KEY_FILE);
  }

  async start(): Promise<void> {
    const { options: o, log } = this.ctx;
    const { created } = this.key.load();
    const privateKey = this.key.privateKey;
    this.publicKey = this.key.publicKey;
    log.info({ publicKey: this.publicKey, created }, created ? 'WireGuard key pair generated' : 'WireGuard key loaded');
    this.device = await adoptWireGuardDevice({ device: nodeWireGuardDevice(o.dataDir), log });
    this.adopted = this.device !== undefined;
    if (!this.device) {
      // Exit events come only while this agent is the device's parent; health checks the record too.
      this.device = await startWireGuardDevice({
        device: nodeWireGuardDevice(o.dataDir),
        nodeNetns: o.nodeNetns,
        wireGuardGo: o.wireGuardGo,
        log,
        onExit: (code, signal) => {
          this.childExit = { code, signal };
          if (!this.stopping) log.error({ code, signal, output: this.logTail() }, 'wireguard-go exited: inter-node pod traffic stops until the agent restarts');
        },
      });
    }
    // Only what differs: an adopted device with the right key and port is left untouched.
    const set = uapiSetInterface(privateKey, o.wireGuardPort, parseUapiGet(await uapiRequest(this.socketPath, 'get=1\n\n')));
    if (set) await uapiRequest(this.socketPath, set);
    await this.ctx.net.setLinkUp(WIREGUARD_DEVICE, this.ctx.mtu);
    await this.publish();
    // Peers from the Nodes listed now: the restarted agent's tunnels are back before the watch runs.
    try {
      for (const n of await listWithin(this.kube, '/api/v1/nodes', PRIME_LIST_MS)) this.onNode(wireGuardNodeFacts(n));
      await this.idle();
    } catch (e) {
      log.warn({ err: e instanceof Error ? e.message : String(e) }, 'Nodes not listed at start; WireGuard peers follow from the watch');
    }
    this.key.watch();
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
          this.reconciler.schedule();
        } else this.onNode(f);
      },
      { clock: o.clock ?? systemClock, logger: this.ctx.log },
    );
    this.informer.start();
  }

  /**
   * Stops watching; the device stays up with its peers (as a kernel device would), so pod
   * traffic between nodes goes on while no agent runs. The next agent adopts it;
   * {@link removeWireGuardDevice} removes it.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    this.key.stop();
    await this.informer?.stop();
    await this.reconciler.stop();
  }

  health(): PartHealth {
    if (this.childExit) return { ok: false, detail: `wireguard-go exited (code ${this.childExit.code}, signal ${this.childExit.signal}): ${this.logTail()}` };
    if (!this.publicKey || !this.device) return { ok: false, detail: 'not started' };
    if (!isRunning(this.device)) return { ok: false, detail: `wireguard-go (pid ${this.device.pid}) is gone: ${this.logTail()}` };
    const held = `${WIREGUARD_DEVICE}: ${this.peers.length} peers${this.skipped.length ? `, ${this.skipped.length} skipped (bad key)` : ''}`;
    if (this.keyProblem !== undefined) return { ok: false, detail: `${held}; key file ${this.keyFile}: ${this.keyProblem}` };
    if (this.lastError !== undefined) return { ok: false, detail: `${held}; last apply failed: ${this.lastError instanceof Error ? this.lastError.message : String(this.lastError)}` };
    return { ok: true, detail: held };
  }

  /** Resolves when every Node change and key check seen so far is done. */
  idle(): Promise<void> {
    return this.reconciler.idle();
  }

  /** This node's pod families: they decide the peers' allowed IPs and endpoint family. */
  private get families(): WireGuardFamilies {
    if (this.ctx.podCIDR === undefined) return 'ipv6';
    return this.ctx.podCIDRv6 !== undefined ? 'dual' : 'ipv4';
  }

  private logTail(): string {
    return deviceLogTail(nodeWireGuardDevice(this.ctx.options.dataDir));
  }

  private async publish(): Promise<void> {
    const o = this.ctx.options;
    await this.kube.request('PATCH', `/api/v1/nodes/${encodeURIComponent(o.nodeName)}`, { metadata: { annotations: { [WIREGUARD_PUBLIC_KEY_ANNOTATION]: this.publicKey } } }, 'application/merge-patch+json');
    this.ctx.log.info({ node: o.nodeName, annotation: WIREGUARD_PUBLIC_KEY_ANNOTATION, publicKey: this.publicKey }, 'WireGuard public key published');
  }

  private requestKeyCheck(): void {
    if (this.stopping) return;
    this.keyCheckDue = true;
    this.reconciler.schedule();
  }

  /**
   * A new key on the device drops its sessions (they were made with the old key); each peer
   * handshakes again once it has the new public key from the Node.
   */
  private async rotateIfDue(): Promise<void> {
    const port = this.ctx.options.wireGuardPort;
    await this.key.rotateIfDue(async (next, nextPublic) => {
      const set = uapiSetInterface(next, port, { listenPort: port });
      if (set) await uapiRequest(this.socketPath, set);
      this.publicKey = nextPublic;
      await this.publish();
    });
  }

  private onNode(f: WireGuardNodeFacts): void {
    this.nodes.set(f.name, f);
    this.reconciler.schedule();
  }

  /**
   * A due key check, then the peers (this node's own key is part of the peer checks). A failed key
   * check does not hold the peers back; it is retried with them.
   */
  private async reconcile(): Promise<void> {
    let keyFailure: { error: unknown } | undefined;
    if (this.keyCheckDue) {
      this.keyCheckDue = false;
      try {
        await this.rotateIfDue();
      } catch (e) {
        this.keyCheckDue = true;
        keyFailure = { error: e };
        this.ctx.log.error({ err: e }, 'WireGuard key check failed');
      }
    }
    await this.apply();
    if (keyFailure) throw keyFailure.error;
  }

  private async apply(): Promise<void> {
    const { options: o, log } = this.ctx;
    const self = { name: o.nodeName, ...(this.publicKey !== undefined ? { publicKey: this.publicKey } : {}) };
    const { peers, skipped } = wireGuardPeersOf([...this.nodes.values()], self, o.wireGuardPort, this.families);
    for (const s of skipped) {
      const k = `${s.node}\0${s.value}`;
      if (!this.warned.has(k)) log.warn({ node: s.node, value: s.value, annotation: WIREGUARD_PUBLIC_KEY_ANNOTATION }, `WireGuard peer skipped: Node ${s.node} annotation ${WIREGUARD_PUBLIC_KEY_ANNOTATION}=${JSON.stringify(s.value)}: ${s.reason}`);
      this.warned.add(k);
    }
    this.skipped = skipped;
    if (JSON.stringify(peers) === JSON.stringify(this.peers) && this.lastError === undefined) return;
    const current = parseUapiGet(await uapiRequest(this.socketPath, 'get=1\n\n')).peers;
    const set = uapiSetPeers(peers, current);
    if (set) await uapiRequest(this.socketPath, set);
    this.peers = peers;
    log.info({ peers: peers.map((p) => `${p.node}@${p.endpoint} ${p.allowedIPs.join(',')}`), changed: set !== undefined }, set ? 'WireGuard peers set' : 'WireGuard peers already as wanted');
  }
}
