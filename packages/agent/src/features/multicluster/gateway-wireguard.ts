/**
 * WireGuard between Multi-cluster gateways (`multicluster.trafficEncryptionMode: wireGuard`): a
 * second WireGuard device on every gateway candidate (`switchyard-mcwg`, userspace wireguard-go,
 * its own key and port), whose public key the agent publishes on its Node for the member
 * controller to carry into the Gateway and the ClusterInfo. While the node is the elected gateway,
 * the device's peers are the other clusters' gateways and the host routes their CIDRs into it
 * (see ./host-routes); otherwise it has neither.
 *
 * Like the node's device, it outlives the agent and the next agent adopts it, so cross-cluster
 * traffic goes on through a restart. Its key rotates on the node device's triggers (the key file
 * removed or replaced, or `wireGuardKeyRotationMs` old): the new public key goes on the Node, and
 * from there through the Gateway and the ClusterInfo to the other clusters' gateways, which take
 * it as their peer; cross-cluster traffic waits for that, then handshakes again.
 */
import { join } from 'node:path';
import type { KubeClient } from '@switchyard/kube';
import { GATEWAY_WIREGUARD_KEY_ANNOTATION } from '@switchyard/apis';
import { systemClock, type PartHealth } from '@switchyard/runtime';
import type { AgentContext } from '../../context';
import type { GatewayWireGuardPlan } from './spec';
import { MC_WIREGUARD_DEVICE, syncGatewayWireGuardRoutes } from './host-routes';
import { parseUapiGet, uapiRequest, uapiSetInterface, uapiSetPeers, type WireGuardPeer } from '../wireguard/wireguard';
import { adoptWireGuardDevice, deviceLogTail, deviceSocket, isRunning, startWireGuardDevice, type DeviceProcess, type WireGuardDeviceLocation } from '../wireguard/device';
import { WireGuardKey } from '../wireguard/key';

/** The Multi-cluster device of a node whose agent data directory is `dataDir`. */
export const multiclusterWireGuardDevice = (dataDir: string): WireGuardDeviceLocation => ({ name: MC_WIREGUARD_DEVICE, dir: join(dataDir, 'multicluster-wireguard') });

export class GatewayWireGuard {
  private device: DeviceProcess | undefined;
  private childExit: { code: number | null; signal: string | null } | undefined;
  private stopping = false;
  private readonly loc: WireGuardDeviceLocation;
  private readonly key: WireGuardKey;
  /** Device work (peers, key) one at a time. */
  private queue: Promise<unknown> = Promise.resolve();
  /** The last key check's failure, until one succeeds. */
  private keyError: unknown;
  /** This node's public key for the Multi-cluster device (base64), once started. */
  publicKey: string | undefined;
  /** Whether this agent adopted a device a previous agent left running. */
  adopted = false;
  /** The peers (other clusters' gateways) and routed CIDRs last applied. */
  peers: WireGuardPeer[] = [];
  cidrs: string[] = [];
  skipped: GatewayWireGuardPlan['skipped'] = [];
  private readonly warned = new Set<string>();

  constructor(
    private readonly ctx: AgentContext,
    private readonly kube: KubeClient,
    private readonly port: number,
  ) {
    this.loc = multiclusterWireGuardDevice(ctx.options.dataDir);
    const o = ctx.options;
    this.key = new WireGuardKey({
      file: join(this.loc.dir, 'private.key'), clock: o.clock ?? systemClock, log: ctx.log, label: 'Multi-cluster WireGuard',
      ...(o.wireGuardKeyRotationMs !== undefined ? { periodMs: o.wireGuardKeyRotationMs } : {}),
      onCheckDue: () => void this.serially(() => this.rotateIfDue()),
    });
  }

  /** Key rotations made while this agent ran. */
  get rotations(): number {
    return this.key.rotations;
  }

  /** Resolves when the device work asked for so far is done. */
  async idle(): Promise<void> {
    for (let q = this.queue; ; q = this.queue) {
      await q;
      if (q === this.queue) return;
    }
  }

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Key, device (adopted or started), listen port and MTU, and the key published on the Node. */
  async start(): Promise<void> {
    const { options: o, log } = this.ctx;
    const { created } = this.key.load();
    const privateKey = this.key.privateKey;
    this.publicKey = this.key.publicKey;
    log.info({ device: this.loc.name, publicKey: this.publicKey, created }, created ? 'Multi-cluster WireGuard key pair generated' : 'Multi-cluster WireGuard key loaded');
    this.device = await adoptWireGuardDevice({ device: this.loc, log });
    this.adopted = this.device !== undefined;
    if (!this.device) {
      this.device = await startWireGuardDevice({
        device: this.loc,
        nodeNetns: o.nodeNetns,
        wireGuardGo: o.wireGuardGo,
        log,
        onExit: (code, signal) => {
          this.childExit = { code, signal };
          if (!this.stopping) log.error({ code, signal, output: deviceLogTail(this.loc) }, 'Multi-cluster wireguard-go exited: traffic to other clusters stops until the agent restarts');
        },
      });
    }
    const socket = deviceSocket(this.loc);
    const current = parseUapiGet(await uapiRequest(socket, 'get=1\n\n'));
    const set = uapiSetInterface(privateKey, this.port, current);
    if (set) await uapiRequest(socket, set);
    // An adopted device keeps its peers: traffic goes on until the first apply says otherwise.
    this.peers = current.peers.map((p) => ({ node: '', publicKey: p.publicKey, endpoint: p.endpoint ?? '', allowedIPs: p.allowedIPs }));
    await this.ctx.net.setLinkUp(this.loc.name, this.ctx.mtu);
    await this.publish();
    this.key.watch();
  }

  private async publish(): Promise<void> {
    const { options: o, log } = this.ctx;
    await this.kube.request('PATCH', `/api/v1/nodes/${encodeURIComponent(o.nodeName)}`, { metadata: { annotations: { [GATEWAY_WIREGUARD_KEY_ANNOTATION]: this.publicKey } } }, 'application/merge-patch+json');
    log.info({ node: o.nodeName, annotation: GATEWAY_WIREGUARD_KEY_ANNOTATION, publicKey: this.publicKey }, 'Multi-cluster WireGuard public key published');
  }

  /** A new key drops the device's sessions; the other gateways handshake again once their ClusterInfoImport has the new public key. */
  private async rotateIfDue(): Promise<void> {
    try {
      await this.key.rotateIfDue(async (next, nextPublic) => {
        const set = uapiSetInterface(next, this.port, { listenPort: this.port });
        if (set) await uapiRequest(deviceSocket(this.loc), set);
        this.publicKey = nextPublic;
        await this.publish();
      });
      this.keyError = undefined;
    } catch (e) {
      this.keyError = e;
      this.ctx.log.error({ err: e instanceof Error ? e.message : String(e) }, 'Multi-cluster WireGuard key check failed');
    }
  }

  /**
   * Makes the device's peers and the host's routes `plan`. Peers first when routes are wanted
   * (nothing is routed into a device without its peer), routes first when they go.
   */
  apply(plan: GatewayWireGuardPlan): Promise<void> {
    return this.serially(() => this.applyNow(plan));
  }

  private async applyNow(plan: GatewayWireGuardPlan): Promise<void> {
    const { log, options: o } = this.ctx;
    for (const s of plan.skipped) {
      const k = `${s.clusterID}\0${s.reason}`;
      if (!this.warned.has(k)) log.warn(s, `Multi-cluster WireGuard peer skipped: cluster ${s.clusterID}: ${s.reason}`);
      this.warned.add(k);
    }
    this.skipped = plan.skipped;
    const setPeers = async (): Promise<boolean> => {
      const socket = deviceSocket(this.loc);
      const set = uapiSetPeers(plan.peers, parseUapiGet(await uapiRequest(socket, 'get=1\n\n')).peers);
      if (set) await uapiRequest(socket, set);
      return set !== undefined;
    };
    let changed: boolean;
    if (plan.cidrs.length > 0) {
      changed = await setPeers();
      await syncGatewayWireGuardRoutes(this.ctx.net, this.loc.name, o.gatewayName, plan.cidrs);
    } else {
      await syncGatewayWireGuardRoutes(this.ctx.net, this.loc.name, o.gatewayName, []);
      changed = await setPeers();
    }
    this.peers = plan.peers;
    this.cidrs = plan.cidrs;
    if (changed) log.info({ device: this.loc.name, peers: plan.peers.map((p) => `${p.node}@${p.endpoint} ${p.allowedIPs.join(',')}`) }, 'Multi-cluster WireGuard peers set');
  }

  /** Stops watching its process; the device, its peers and routes stay (the next agent adopts them). */
  stop(): void {
    this.stopping = true;
    this.key.stop();
  }

  health(): PartHealth {
    if (this.childExit) return { ok: false, detail: `${this.loc.name}: wireguard-go exited (code ${this.childExit.code}, signal ${this.childExit.signal}): ${deviceLogTail(this.loc)}` };
    if (!this.device || !this.publicKey) return { ok: false, detail: `${this.loc.name}: not started` };
    if (!isRunning(this.device)) return { ok: false, detail: `${this.loc.name}: wireguard-go (pid ${this.device.pid}) is gone: ${deviceLogTail(this.loc)}` };
    if (this.key.problem !== undefined) return { ok: false, detail: `${this.loc.name}: key file ${join(this.loc.dir, 'private.key')}: ${this.key.problem}` };
    if (this.keyError !== undefined) return { ok: false, detail: `${this.loc.name}: key check failed: ${this.keyError instanceof Error ? this.keyError.message : String(this.keyError)}` };
    return { ok: true, detail: `${this.loc.name}: ${this.peers.length} peers${this.skipped.length ? `, ${this.skipped.length} skipped` : ''}` };
  }
}
