/**
 * The node's datapath part: bridge, gateway and tunnel ports, the interface store rebuilt from
 * OVSDB, the cookie round (resumed after an agent restart), the OpenFlow connection and the flow
 * sync. Its `sync` installs (or, after an agent restart, adopts) the first round, with what every
 * other part primed.
 */
import { join } from 'node:path';
import { OvsdbClient, VSwitch } from '@switchyard/ovsdb';
import { PACKETIN_METER_ID_DNS, PACKETIN_METER_ID_NP, PACKETIN_METER_ID_TF } from '@switchyard/openflow-pipeline';
import { OfSwitchError, SwitchConnection, type MeterFlag } from '@switchyard/openflow';
import { parseCidr } from '@switchyard/ipam/cidr';
import { bringUpNode, resumeRound, type NodeInfo } from '../../bridge';
import type { AgentContext } from '../../context';
import { AgentError } from '../../errors';
import { DatapathPurger, FlowSync } from '../../flow-sync';
import { InterfaceStore, readPodPorts, type PodInterface } from '../../interface-store';
import { MeterTable } from '../../meter-table';
import { probeNetns } from '../../netops';
import { nodePipelineFeatures } from '../pipeline';
import { localPodOf } from '../pods/pod-network';
import { Reconciler, systemClock, type Part, type PartHealth } from '@switchyard/runtime';

/** OpenFlow controller connection id the pipeline's packet-in actions name (Antrea's value). */
export const CONTROLLER_ID = 62373;

/**
 * Packet-in meters (NetworkPolicy, DNS, Traceflow): a drop band at `rate` packets/s with a burst of twice
 * that. Added, or modified when a previous run left them (the rate may have changed).
 */
export async function installPacketInMeters(sw: SwitchConnection, rate: number): Promise<void> {
  for (const meterId of [PACKETIN_METER_ID_NP, PACKETIN_METER_ID_DNS, PACKETIN_METER_ID_TF]) {
    const mod = { type: 'meterMod' as const, meterId, flags: ['pktps', 'burst', 'stats'] as MeterFlag[], bands: [{ type: 'drop' as const, rate, burstSize: rate * 2 }] };
    try {
      await sw.flowLike({ ...mod, command: 'add' });
    } catch (e) {
      if (!(e instanceof OfSwitchError && e.codeName === 'OFPMMFC_METER_EXISTS')) throw e;
      await sw.flowLike({ ...mod, command: 'modify' });
    }
  }
}

/** A pod port OVS still has but this run does not keep (its netns is gone, or OVS never attached it). */
export interface StalePort {
  portName: string;
  iface: PodInterface | undefined;
}

export class NodeDatapath implements Part {
  readonly name = 'node';
  readonly interfaces = new InterfaceStore();
  /** The meters other parts keep beside their flows (Egress bandwidth); put back before the flows after an ovs-vswitchd restart. */
  readonly meters = new MeterTable(() => this.openflow);
  private ovsdbClient: OvsdbClient | undefined;
  private vs: VSwitch | undefined;
  private nodeInfo: NodeInfo | undefined;
  private roundNum: number | undefined;
  private previousRound: number | undefined;
  /** The switch held this round's flows at start: the first sync adopts them. */
  private adopting = false;
  private connection: SwitchConnection | undefined;
  private flowSync: FlowSync | undefined;
  private installed = false;
  /** Pod ports found at start that this run does not keep; the pods part removes them. */
  readonly stale: StalePort[] = [];
  /** The link holding the node IP (direct routes to peers leave through it); undefined when none has it. */
  transport: { dev: string; prefix: number } | undefined;
  /** The device and prefix length of the node's IPv6 address (`nodeIPv6`), on a node with IPv6 pods: IPv6 routes of noEncap and hybrid. */
  transport6: { dev: string; prefix: number } | undefined;

  /** revalidator/purge after policy changes on the userspace datapath, over one unixctl session. */
  private readonly purger: DatapathPurger;

  constructor(private readonly ctx: AgentContext) {
    this.purger = new DatapathPurger(ctx.options.ovsRunDir);
    this.restorer = new Reconciler(() => this.afterSwitchRestart(), {
      clock: ctx.options.clock ?? systemClock,
      onError: (e, retryInMs) => ctx.log.warn({ err: e, retryInMs }, 'putting the node back after an ovs-vswitchd restart failed; trying again'),
    });
  }

  get ovsdb(): OvsdbClient {
    return this.opened(this.ovsdbClient, 'the OVSDB connection');
  }
  get vswitch(): VSwitch {
    return this.opened(this.vs, 'the bridge');
  }
  get node(): NodeInfo {
    return this.opened(this.nodeInfo, 'the node ports');
  }
  get round(): number {
    return this.opened(this.roundNum, 'the cookie round');
  }
  get openflow(): SwitchConnection {
    return this.opened(this.connection, 'the OpenFlow connection');
  }
  get flows(): FlowSync {
    return this.opened(this.flowSync, 'the flow sync');
  }

  async start(): Promise<void> {
    const { options: o, net, log } = this.ctx;
    this.ovsdbClient = await OvsdbClient.connect(o.ovsdbRemote, { logger: log });
    this.vs = new VSwitch(this.ovsdbClient, { logger: log });
    this.nodeInfo = await bringUpNode(this.vs, net, { ...o, podCIDR: this.ctx.podCIDR, ...(this.ctx.podCIDRv6 !== undefined ? { podCIDRv6: this.ctx.podCIDRv6 } : {}), mtu: this.ctx.mtu, tunnel: this.ctx.encap, ...(this.ctx.underlay6 ? { tunnelLocalIP: o.nodeIP } : {}), ...(this.ctx.policyOnly ? { gatewayAddress: `${o.nodeIP}/32` } : {}) });
    this.transport = await net.findAddress(o.nodeIP);
    if (!this.transport && (o.trafficMode === 'noEncap' || o.trafficMode === 'hybrid')) {
      throw new AgentError('INVALID_CONFIG', `trafficMode ${o.trafficMode} routes pod traffic on the transport link, but no interface has the node IP ${o.nodeIP}`, o.nodeIP, 'nodeIP');
    }
    if (this.ctx.podCIDRv6 !== undefined && o.nodeIPv6 !== undefined) {
      this.transport6 = await net.findAddress(o.nodeIPv6);
      if (!this.transport6 && (o.trafficMode === 'noEncap' || o.trafficMode === 'hybrid')) {
        throw new AgentError('INVALID_CONFIG', `trafficMode ${o.trafficMode} routes IPv6 pod traffic on the transport link, but no interface has the IPv6 node IP ${o.nodeIPv6}`, o.nodeIPv6, 'nodeIPv6');
      }
    }
    log.info({ gateway: this.nodeInfo.gateway, tunnel: this.nodeInfo.tunnel, ...(this.ctx.underlay6 && this.nodeInfo.tunnel ? { tunnelLocalIP: o.nodeIP } : {}) }, 'node ports ready');

    // Pods attached before a restart: kept if their namespace still exists and OVS attached them.
    for (const p of await readPodPorts(this.ovsdbClient)) {
      if (p.iface && p.ofport > 0 && probeNetns(p.iface.netns) === 'ok') this.interfaces.set({ ...p.iface, ofport: p.ofport });
      else this.stale.push(p);
    }

    this.connection = await SwitchConnection.connect({
      target: { path: join(o.ovsRunDir, `${o.bridge}.mgmt`) },
      logger: log,
      controllerId: CONTROLLER_ID,
      // ovs-vswitchd restarted: it lost every flow, meter and group (and, with the userspace
      // datapath, the gateway's address); put this round back, again until it all went in.
      onReconnect: () => {
        this.restorer.schedule();
        return this.restorer.idle();
      },
    });
    // An agent restart on a running switch resumes its round and adopts the flows there.
    const { round, previous, adopt } = await resumeRound(this.ovsdbClient, o.bridge, this.connection);
    this.roundNum = round;
    this.previousRound = previous;
    this.adopting = adopt;
    // Meters before the flows that use them (a flow naming a missing meter is refused).
    if (o.packetInRate > 0) await installPacketInMeters(this.connection, o.packetInRate);
    const gateway = this.nodeInfo.gateway;
    this.flowSync = new FlowSync(
      this.connection,
      {
        round,
        trafficMode: o.trafficMode,
        tunnelType: o.tunnelType,
        gateway: { ofport: gateway.ofport, ...(gateway.ip !== undefined ? { ip: gateway.ip } : {}), mac: gateway.mac, ...(gateway.ipv6 ? { ipv6: gateway.ipv6.ip } : {}) },
        ...(this.nodeInfo.tunnel ? { tunnelOfport: this.nodeInfo.tunnel.ofport } : {}),
        // The IPv4 transport subnet (an IPv6 underlay has none: its subnet is nodeSubnetV6).
        ...(this.transport && !this.ctx.underlay6 ? { nodeSubnet: `${parseCidr(`${o.nodeIP}/${this.transport.prefix}`).toString()}` } : {}),
        // Hybrid decides IPv6 peers by the IPv6 transport subnet.
        ...(this.transport6 && o.nodeIPv6 !== undefined ? { nodeSubnetV6: parseCidr(`${o.nodeIPv6}/${this.transport6.prefix}`).toString() } : {}),
        // IPv6-only: no IPv4 pod CIDR (and no gateway IPv4 address): the pipeline leaves the flows naming them out.
        ...(this.ctx.podCIDR !== undefined ? { podCIDR: this.ctx.podCIDR } : {}),
        // Dual-stack: the IPv6 flows of every feature that has them (with the gateway's IPv6 address).
        ...(this.ctx.podCIDRv6 !== undefined && gateway.ipv6 ? { podCIDRv6: this.ctx.podCIDRv6 } : {}),
        nodeIP: o.nodeIP,
        // Dual-stack with an IPv6 node address: the IPv6 NodePortMark matches it too.
        ...(this.ctx.podCIDRv6 !== undefined && gateway.ipv6 && o.nodeIPv6 !== undefined ? { nodeIPv6: o.nodeIPv6 } : {}),
        ...(this.ctx.wireGuard ? { wireGuard: true } : {}),
        netdevDatapath: o.datapathType === 'netdev',
        enableAntreaPolicy: true,
        enableProxy: o.enableProxy,
        packetInMeters: o.packetInRate > 0,
      },
      // Userspace datapath: policy changes also empty the megaflow cache (flow-sync.ts, issue 13).
      { logger: log, metrics: this.ctx.metrics, features: nodePipelineFeatures(this.ctx), ...(o.datapathType === 'netdev' ? { flushDatapath: () => this.purger.purge() } : {}) },
    );
  }

  /** Called after ovs-vswitchd came back and this part re-installed the node's flows (other parts re-apply host state). */
  onSwitchRestart(listener: () => Promise<void>): void {
    this.restartListeners.push(listener);
  }
  private readonly restartListeners: (() => Promise<void>)[] = [];
  /** Times ovs-vswitchd came back under this agent (observable for tests and health). */
  switchRestarts = 0;

  /**
   * Puts the node back after ovs-vswitchd restarted, retried with a backoff until every step went
   * in: right after a restart the OpenFlow socket can answer before vswitchd has made the
   * gateway's new tap device, and a restore that gave up there left the node without its gateway
   * address and unhealthy for good. A reconnect while one runs asks for one more pass.
   */
  private readonly restorer: Reconciler;

  /**
   * After the OpenFlow connection came back: the meters, then every group and flow of this round in
   * one bundle; then the gateway's address, MTU and link state (with the userspace datapath it is a
   * new tap device; OVSDB pins its MAC); then the other parts' host state (routes). Each step is
   * idempotent, so a retry starts from the top.
   */
  private async afterSwitchRestart(): Promise<void> {
    const { options: o, net, log } = this.ctx;
    const t0 = performance.now();
    if (o.packetInRate > 0 && this.connection) await installPacketInMeters(this.connection, o.packetInRate);
    await this.meters.replay();
    await this.flowSync?.replay();
    const gw = this.nodeInfo?.gateway;
    if (gw) await net.configureGateway(gw.name, gw.ipCidr, this.ctx.mtu);
    // The userspace datapath's new tap device has no IPv6 address either.
    if (gw?.ipv6) await net.configureGatewayV6(gw.name, gw.ipv6.ipCidr);
    for (const l of this.restartListeners) await l();
    this.switchRestarts++;
    log.info({ round: this.roundNum, flows: this.flowSync?.flows.length ?? 0, ms: Math.round(performance.now() - t0) }, 'switch reconnected: gateway, meters, groups and flows re-installed');
  }

  /**
   * The first sync of this run: adopts the previous run's flows (only the difference goes to the
   * switch) when the round was resumed, else installs every flow of the new round in one bundle.
   */
  async sync(): Promise<void> {
    const pods = this.interfaces.list().map((i) => localPodOf(i, this.ctx.policyOnly, this.nodeInfo?.gateway.ipv6 !== undefined));
    const initial = await this.flows.initialSync(pods, { adopt: this.adopting });
    this.installed = true;
    this.ctx.log.info({ round: this.round, previous: this.previousRound, ...initial, pods: this.interfaces.size }, 'round installed');
  }

  async stop(): Promise<void> {
    await this.restorer.stop();
    await this.connection?.close();
    this.ovsdbClient?.close();
    this.purger.close();
  }

  health(): PartHealth {
    if (!this.connection) return { ok: false, detail: 'not started' };
    const where = `bridge ${this.ctx.options.bridge}, round ${this.roundNum ?? '?'}`;
    if (!this.installed) return { ok: false, detail: `${where}: first round not installed` };
    if (!this.connection.connected) return { ok: false, detail: `${where}: OpenFlow connection down` };
    if (this.restorer.failing) return { ok: false, detail: `${where}: not yet put back after an ovs-vswitchd restart: ${String((this.restorer.lastError as Error | undefined)?.message ?? this.restorer.lastError)}` };
    return { ok: true, detail: `${where}, ${this.flowSync?.flows.length ?? 0} flows` };
  }

  private opened<T>(value: T | undefined, what: string): T {
    if (value === undefined) throw new AgentError('NOT_STARTED', `${what} is read before the node part started`, this.name, 'node');
    return value;
  }
}
