/**
 * WireGuard between Multi-cluster gateways (`multicluster.trafficEncryptionMode: wireGuard`): a
 * second WireGuard device on every gateway candidate (`switchyard-mcwg`, userspace wireguard-go,
 * its own key and port), whose public key the agent publishes on its Node for the member
 * controller to carry into the Gateway and the ClusterInfo. While the node is the elected gateway,
 * the device's peers are the other clusters' gateways and the host routes their CIDRs into it
 * (see NodeNetwork.syncMulticlusterRoutes); otherwise it has neither.
 *
 * Like the node's device, it outlives the agent and the next agent adopts it, so cross-cluster
 * traffic goes on through a restart. The key is not rotated (the node device's rotation is the
 * model if it is wanted).
 */
import { join } from 'node:path';
import type { KubeClient } from '@switchyard/kube';
import { GATEWAY_WIREGUARD_KEY_ANNOTATION } from '@switchyard/multicluster';
import { systemClock } from '@switchyard/runtime';
import type { AgentContext } from '../context';
import type { ControllerHealth } from '../lifecycle';
import type { GatewayWireGuardPlan } from '../multicluster';
import { MC_WIREGUARD_DEVICE } from '../netops';
import { loadOrCreatePrivateKey, parseUapiGet, publicKeyOf, uapiRequest, uapiSetInterface, uapiSetPeers, type WireGuardPeer } from '../wireguard';
import { adoptWireGuardDevice, deviceLogTail, deviceSocket, isRunning, startWireGuardDevice, type DeviceProcess, type WireGuardDeviceLocation } from './wireguard-device';

/** The Multi-cluster device of a node whose agent data directory is `dataDir`. */
export const multiclusterWireGuardDevice = (dataDir: string): WireGuardDeviceLocation => ({ name: MC_WIREGUARD_DEVICE, dir: join(dataDir, 'multicluster-wireguard') });

export class GatewayWireGuard {
  private device: DeviceProcess | undefined;
  private childExit: { code: number | null; signal: string | null } | undefined;
  private stopping = false;
  private readonly loc: WireGuardDeviceLocation;
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
  }

  /** Key, device (adopted or started), listen port and MTU, and the key published on the Node. */
  async start(): Promise<void> {
    const { options: o, log } = this.ctx;
    const { privateKey, created } = loadOrCreatePrivateKey(join(this.loc.dir, 'private.key'), (o.clock ?? systemClock).now());
    this.publicKey = publicKeyOf(privateKey);
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
    await this.kube.request('PATCH', `/api/v1/nodes/${encodeURIComponent(o.nodeName)}`, { metadata: { annotations: { [GATEWAY_WIREGUARD_KEY_ANNOTATION]: this.publicKey } } }, 'application/merge-patch+json');
    log.info({ node: o.nodeName, annotation: GATEWAY_WIREGUARD_KEY_ANNOTATION, publicKey: this.publicKey }, 'Multi-cluster WireGuard public key published');
  }

  /**
   * Makes the device's peers and the host's routes `plan`. Peers first when routes are wanted
   * (nothing is routed into a device without its peer), routes first when they go.
   */
  async apply(plan: GatewayWireGuardPlan): Promise<void> {
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
      await this.ctx.net.syncMulticlusterRoutes(this.loc.name, o.gatewayName, plan.cidrs);
    } else {
      await this.ctx.net.syncMulticlusterRoutes(this.loc.name, o.gatewayName, []);
      changed = await setPeers();
    }
    this.peers = plan.peers;
    this.cidrs = plan.cidrs;
    if (changed) log.info({ device: this.loc.name, peers: plan.peers.map((p) => `${p.node}@${p.endpoint} ${p.allowedIPs.join(',')}`) }, 'Multi-cluster WireGuard peers set');
  }

  /** Stops watching its process; the device, its peers and routes stay (the next agent adopts them). */
  stop(): void {
    this.stopping = true;
  }

  health(): ControllerHealth {
    if (this.childExit) return { ok: false, detail: `${this.loc.name}: wireguard-go exited (code ${this.childExit.code}, signal ${this.childExit.signal}): ${deviceLogTail(this.loc)}` };
    if (!this.device || !this.publicKey) return { ok: false, detail: `${this.loc.name}: not started` };
    if (!isRunning(this.device)) return { ok: false, detail: `${this.loc.name}: wireguard-go (pid ${this.device.pid}) is gone: ${deviceLogTail(this.loc)}` };
    return { ok: true, detail: `${this.loc.name}: ${this.peers.length} peers${this.skipped.length ? `, ${this.skipped.length} skipped` : ''}` };
  }
}
