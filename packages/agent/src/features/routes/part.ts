/**
 * The routes part (with a Kubernetes API): watches Nodes and keeps the pipeline's remote nodes and
 * the host's routes and masquerade in line with them (with IPsec, also one tunnel port per peer). The Nodes listed at start are primed into
 * the first round: without them it would replace the previous run's tunnel flows with nothing
 * until the watch caught up.
 */
import { Informer, type KubeClient } from '@switchyard/kube';
import { systemClock, type Part, type PartHealth } from '@switchyard/runtime';
import type { AgentContext } from '../../context';
import { NodeRouteController, missingNodeIPv6Detail, nodeFacts, remoteNodesOf } from './node-routes';
import { WIREGUARD_DEVICE } from '../wireguard/wireguard';
import { join } from 'node:path';
import { IPsecTunnelPorts } from '../ipsec/ipsec';
import { GLOBAL_VIRTUAL_MAC, VIRTUAL_NODEPORT_DNAT_IPV6, VIRTUAL_SERVICE_IPV6, type RemoteNode } from '@switchyard/openflow-pipeline';
import { IPsecCertificateKeeper } from '../ipsec/certificate';
import { NODES, PRIME_LIST_MS, listWithin } from '../../kube-resources';
import type { NodeDatapath } from '../node/part';

/**
 * The pipeline's global virtual MAC (Antrea's): what L3 forwarding expects as the destination of
 * routed traffic from the gateway. The peer gateways' IPv6 addresses resolve to it on the host.
 */

export class RemoteNodes implements Part {
  readonly name = 'routes';
  private informer: Informer | undefined;
  /** Remote nodes and host routes; present once synced. */
  routes: NodeRouteController | undefined;

  constructor(
    private readonly ctx: AgentContext,
    private readonly kube: KubeClient,
    private readonly node: Pick<NodeDatapath, 'flows' | 'vswitch' | 'transport' | 'transport6' | 'onSwitchRestart'>,
  ) {}

  /** Per-peer IPsec tunnel ports (trafficEncryptionMode ipsec); set at start. */
  ipsecPorts: IPsecTunnelPorts | undefined;
  /** The IPsec certificate, kept renewed (ipsec.authenticationMode cert). */
  ipsecCertificate: IPsecCertificateKeeper | undefined;

  /** The peers as the pipeline takes them: with IPsec, after their tunnel ports exist (with their ofports). */
  private async withPorts(peers: RemoteNode[]): Promise<RemoteNode[]> {
    return this.ipsecPorts ? this.ipsecPorts.sync(peers) : peers;
  }

  async start(): Promise<void> {
    const o = this.ctx.options;
    if (this.ctx.ipsec) {
      const ports = { vswitch: this.node.vswitch, bridge: o.bridge, tunnelType: o.tunnelType, tunnelPort: o.tunnelPort, tunnelCsum: o.tunnelCsum, logger: this.ctx.log, ...(this.ctx.underlay6 ? { localIP: o.nodeIP } : {}) };
      if (o.ipsecAuthenticationMode === 'cert') {
        // The certificate first: ovs-monitor-ipsec needs it before it can configure any peer.
        this.ipsecCertificate = new IPsecCertificateKeeper({
          kube: this.kube, nodeName: o.nodeName, dir: join(o.dataDir, 'ipsec'), caNamespace: o.ipsecCANamespace, vswitch: this.node.vswitch, clock: o.clock ?? systemClock, logger: this.ctx.log,
        });
        await this.ipsecCertificate.start();
        this.ipsecPorts = new IPsecTunnelPorts({ ...ports, auth: { certificate: true } });
      } else if (o.ipsecPSK !== undefined) {
        this.ipsecPorts = new IPsecTunnelPorts({ ...ports, auth: { psk: o.ipsecPSK } });
      }
    }
    try {
      const nodes = await listWithin(this.kube, '/api/v1/nodes', PRIME_LIST_MS);
      this.node.flows.prime('remoteNodes', await this.withPorts(remoteNodesOf(nodes.map(nodeFacts), this.self(), new Map()).remote));
    } catch (e) {
      this.ctx.log.warn({ err: e instanceof Error ? e.message : String(e) }, 'Nodes not listed before the first round; remote nodes follow from the watch');
    }
  }

  /** This node as the remote-node computation takes it (dual-stack: with its IPv6 pod CIDR). */
  private self(): { name: string; podCIDR: string | undefined; nodeIP: string; podCIDRv6?: string } {
    const o = this.ctx.options;
    return { name: o.nodeName, podCIDR: this.ctx.podCIDR, nodeIP: o.nodeIP, ...(this.ctx.podCIDRv6 !== undefined ? { podCIDRv6: this.ctx.podCIDRv6 } : {}) };
  }

  async sync(): Promise<void> {
    const { options: o, net, log } = this.ctx;
    const transport = this.node.transport;
    const masquerade = !(o.noSNAT || this.ctx.policyOnly);
    this.routes = new NodeRouteController({
      self: this.self(),
      mode: o.trafficMode,
      gatewayName: o.gatewayName,
      transportDev: transport?.dev ?? o.gatewayName,
      transportPrefix: transport?.prefix ?? 32,
      ...(this.node.transport6 !== undefined && o.nodeIPv6 !== undefined ? { transport6: { nodeIPv6: o.nodeIPv6, ...this.node.transport6 } } : {}),
      ...(this.ctx.wireGuard ? { wireGuardDev: WIREGUARD_DEVICE } : {}),
      sink: {
        setRemoteNodes: async (nodes) => this.node.flows.set('remoteNodes', await this.withPorts(nodes)),
        syncRoutes: (r) => net.syncRoutes(r),
        syncMasquerade: (cidrs) => (masquerade ? net.syncMasquerade(cidrs, o.gatewayName) : Promise.resolve()),
        syncMasquerade6: (cidrs) => (masquerade ? net.syncMasquerade(cidrs, o.gatewayName, 6) : Promise.resolve()),
        // Dual-stack: the peer gateways' IPv6 addresses resolve to the global virtual MAC on the gateway.
        // The Services part's virtual IPv6 neighbours (same MAC) are its own.
        syncIpv6: (routes, peerGateways) => net.syncIpv6Routes(routes, { dev: o.gatewayName, mac: GLOBAL_VIRTUAL_MAC, ips: peerGateways, keep: [VIRTUAL_NODEPORT_DNAT_IPV6, VIRTUAL_SERVICE_IPV6] }),
      },
      logger: log,
      clock: o.clock ?? systemClock,
    });
    // A restarted ovs-vswitchd (userspace datapath) took the gateway's routes with its tap device.
    this.node.onSwitchRestart(async () => this.routes?.resync());
    this.informer = new Informer(this.kube, NODES, this.routes.onEvent, { clock: o.clock ?? systemClock, logger: log });
    this.informer.start();
  }

  async stop(): Promise<void> {
    this.ipsecCertificate?.stop();
    await this.informer?.stop();
    await this.routes?.stop();
    await this.ipsecCertificate?.idle();
  }

  health(): PartHealth {
    const r = this.routes;
    if (!r) return { ok: false, detail: 'Node watch not started' };
    const held = `${r.remote.length} remote nodes${r.refused.length ? `, ${r.refused.length} refused (duplicate pod CIDR)` : ''}`;
    if (r.lastError !== undefined) return { ok: false, detail: `${held}; last apply failed: ${r.lastError instanceof Error ? r.lastError.message : String(r.lastError)}` };
    // A peer the mode routes IPv6 to on the underlay without an IPv6 node address: its pods unreachable over IPv6.
    if (r.missingNodeIPv6.length) return { ok: false, detail: `${held}; ${missingNodeIPv6Detail(r.missingNodeIPv6)}` };
    const cert = this.ipsecCertificate?.health();
    if (cert && !cert.ok) return { ok: false, detail: `${held}; ${cert.detail}` };
    return { ok: true, detail: cert ? `${held}; ${cert.detail}` : held };
  }
}
