/**
 * The pods part: the host-local address store, pod attachment (CNI ADD/DEL/CHECK) and the CNI
 * server. Its `sync` clears what the previous run left behind, then opens the CNI socket.
 */
import { join } from 'node:path';
import { HostLocalStore } from '@switchyard/ipam';
import { CniHandler, CniServer } from '../../cni/server';
import type { AgentContext } from '../../context';
import { AgentError } from '../../errors';
import { PodIPPools } from '../ippools/ippools';
import type { Part, PartHealth } from '@switchyard/runtime';
import { PodNetwork } from './pod-network';
import type { NodeDatapath } from '../node/part';

export class PodAttachments implements Part {
  readonly name = 'pods';
  private ipam: HostLocalStore | undefined;
  private network: PodNetwork | undefined;
  private cni: CniServer | undefined;

  constructor(
    private readonly ctx: AgentContext,
    private readonly node: NodeDatapath,
  ) {}

  /** Pod ADD/DEL/CHECK on the datapath. */
  get pods(): PodNetwork {
    if (!this.network) throw new AgentError('NOT_STARTED', 'pod attachment is used before the pods part started', this.name, 'pods');
    return this.network;
  }

  async start(): Promise<void> {
    const { options: o, log } = this.ctx;
    this.ipam = await HostLocalStore.open({
      dataDir: join(o.dataDir, 'networks'),
      network: o.ipamNetwork,
      // Dual-stack: one range set per family, as host-local's `ranges` (an address from each);
      // IPv6-only: the IPv6 one alone.
      ranges: [...(this.ctx.podCIDR !== undefined ? [[{ subnet: this.ctx.podCIDR }]] : []), ...(this.ctx.podCIDRv6 !== undefined ? [[{ subnet: this.ctx.podCIDRv6 }]] : [])],
      logger: log,
    });
    this.network = new PodNetwork({
      vs: this.node.vswitch,
      bridge: o.bridge,
      net: this.ctx.net,
      ipam: this.ipam,
      flows: this.node.flows,
      store: this.node.interfaces,
      node: this.node.node,
      mtu: this.ctx.mtu,
      txOffloadOff: o.disableTxChecksumOffload,
      chained: this.ctx.policyOnly,
      ...(o.enableIPPools && o.kube && !this.ctx.policyOnly ? { pools: new PodIPPools({ kube: o.kube, logger: log }) } : {}),
      logger: log,
    });
  }

  async sync(): Promise<void> {
    const { options: o, net, log } = this.ctx;
    const interfaces = this.node.interfaces;
    for (const s of this.node.stale) {
      await this.node.vswitch.deletePort(o.bridge, s.portName);
      await net.deleteHostLink(s.portName).catch((e: unknown) => log.warn({ err: e, port: s.portName }, 'stale veth not deleted'));
      log.info({ port: s.portName, containerId: s.iface?.containerId }, 'stale pod port removed');
    }
    const freed = await this.ipam!.gc(interfaces.list().map((i) => ({ containerId: i.containerId, ifname: i.ifname })));
    if (freed.length) log.info({ freed: freed.map(String) }, 'IPAM GC released addresses');

    // Pod -> external traffic leaves with the node's address, in each family the node has (ip6tables
    // for IPv6); remote pod CIDRs are added as Nodes appear.
    const masquerade = !o.noSNAT && !this.ctx.policyOnly;
    if (!masquerade || this.ctx.podCIDR === undefined) await net.removeMasquerade(4);
    else await net.syncMasquerade([this.ctx.podCIDR], o.gatewayName, 4);
    if (!masquerade || this.ctx.podCIDRv6 === undefined) await net.removeMasquerade(6);
    else await net.syncMasquerade([this.ctx.podCIDRv6], o.gatewayName, 6);
    // Pods attached before (maybe by an older agent, or before forwarding was turned on): the
    // kernel stays out of their devices.
    await net.quietHostLink(...interfaces.list().map((i) => i.hostIfName));

    this.cni = await CniServer.listen(o.cniSocket, new CniHandler(this.pods, { logger: log, metrics: this.ctx.metrics }));
    log.info({ socket: o.cniSocket }, 'CNI server listening');
  }

  async stop(): Promise<void> {
    await this.cni?.close();
    await this.ipam?.close();
  }

  health(): PartHealth {
    if (!this.cni) return { ok: false, detail: 'CNI server not listening' };
    return { ok: true, detail: `${this.node.interfaces.size} pods, CNI on ${this.cni.socketPath}` };
  }
}
