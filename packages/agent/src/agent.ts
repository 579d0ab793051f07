/**
 * The node agent: composes ovsdb (bridge, ports), openflow + openflow-pipeline (flows), ipam
 * (pod addresses) and the CNI server into a running node. Start order: bridge and node ports,
 * interface store from OVSDB, a new cookie round with every flow, stale ports and addresses
 * removed, then the CNI socket opens.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OvsdbClient, VSwitch, ops, unwrap } from '@switchyard/ovsdb';
import type { TableName } from '@switchyard/openflow-pipeline';
import { SwitchConnection } from '@switchyard/openflow';
import { HostLocalStore } from '@switchyard/ipam';
import { parseCidr } from '@switchyard/ipam/cidr';
import type { AgentConfig } from '@switchyard/apis';
import { bringUpNode, checkDatapathSupport, podMtu, startRound, type NodeInfo, type TunnelType } from './bridge';
import { FlowSync } from './flow-sync';
import { InterfaceStore, readPodPorts, type PodInterface } from './interface-store';
import { NodeNetwork, probeNetns } from './netops';
import { PodNetwork } from './pods';
import { CniHandler, CniServer } from './cni/server';
import { AgentError } from './errors';
import { silentLogger, type Logger } from './logger';
import { LocalApi, type AgentIntrospection } from './api';
import { NetworkPolicyController, loadPolicyView } from './policy/controller';
import { RejectResponder } from './policy/reject';
import { PolicyAuditLog } from './policy/audit-log';
import { AgentMetrics } from './metrics';

/** OpenFlow controller connection id the pipeline's packet-in actions name (Antrea's value). */
export const CONTROLLER_ID = 62373;

/** File under the data dir holding the last controlplane view. */
export const POLICY_CACHE_FILE = 'policy-cache.json';

/** Everything the agent needs to run a node. */
export interface AgentOptions {
  nodeName: string;
  /** This node's pod CIDR (IPv4); the gateway gets its first address. */
  podCIDR: string;
  /** This node's transport address. */
  nodeIP: string;
  /** OVSDB remote, as `ovs-vsctl --db` takes it (`unix:/var/run/openvswitch/db.sock`). */
  ovsdbRemote: string;
  /** Directory of `<bridge>.mgmt` (the OpenFlow management socket). Default /var/run/openvswitch. */
  ovsRunDir?: string;
  /** Bridge name. Default br-int. */
  bridge?: string;
  /** `netdev` (userspace) or `system` (kernel). Default system, as Antrea. */
  datapathType?: 'system' | 'netdev';
  /** Gateway internal port. Default antrea-gw0. */
  gatewayName?: string;
  /** Tunnel port. Default antrea-tun0. */
  tunnelName?: string;
  /** Default geneve. `stt` is refused on the netdev datapath. */
  tunnelType?: TunnelType;
  /** 0 = the tunnel type's default UDP port. */
  tunnelPort?: number;
  tunnelCsum?: boolean;
  /** MTU of the node's transport link; pods get it minus the tunnel overhead. Default 1500. */
  linkMtu?: number;
  /** State directory: the host-local store lives in `<dataDir>/networks/<ipamNetwork>`. */
  dataDir: string;
  /** Directory name of the IPAM store (host-local's network name). Default switchyard. */
  ipamNetwork?: string;
  /** CNI gRPC socket. Default /var/run/antrea/cni.sock. */
  cniSocket?: string;
  /**
   * Lab only: netns (name or path) holding the node's host side (gateway, veth host ends), when
   * the agent process runs outside it.
   */
  nodeNetns?: string;
  /** np.log of rules with enableLogging. Default `<dataDir>/networkpolicy/np.log`. */
  policyLogFile?: string;
  /** Local API socket (podinterfaces, ovsflows, agentinfo); none when absent. */
  apiSocket?: string;
  /**
   * The controller's controlplane stream. Without it, pods still get connectivity and the policies
   * cached on disk (if any) stay enforced.
   */
  controlplane?: {
    /** `https://host:port` of the controller. */
    url: string;
    caPem?: string;
    /** Bearer token, or a file to read it from at each connection (projected ServiceAccount token). */
    token?: string;
    tokenFile?: string;
    backoff?: { initialMs?: number; maxMs?: number };
  };
  /** Transmit checksum offload off on both veth ends. Default: on the netdev datapath. */
  disableTxChecksumOffload?: boolean;
  logger?: Logger;
}

/** Agent options from an antrea-agent.conf (parsed by `parseAgentConfig`) plus the node's facts. */
export function agentOptionsFromConfig(
  cfg: AgentConfig,
  node: { nodeName: string; podCIDR: string; nodeIP: string; dataDir: string; nodeNetns?: string; logger?: Logger },
): AgentOptions {
  if (cfg.trafficEncapMode !== 'encap') {
    throw new AgentError('INVALID_CONFIG', `trafficEncapMode ${cfg.trafficEncapMode} is not implemented yet (encap only)`, cfg.trafficEncapMode, 'trafficEncapMode');
  }
  return {
    ...node,
    ovsdbRemote: `unix:${join(cfg.ovsRunDir, 'db.sock')}`,
    ovsRunDir: cfg.ovsRunDir,
    bridge: cfg.ovsBridge,
    datapathType: cfg.ovsDatapathType,
    gatewayName: cfg.hostGateway,
    tunnelType: cfg.tunnelType as TunnelType,
    tunnelPort: cfg.tunnelPort,
    tunnelCsum: cfg.tunnelCsum,
    ...(cfg.defaultMTU > 0 ? { linkMtu: cfg.defaultMTU } : {}),
    cniSocket: cfg.cniSocket,
    disableTxChecksumOffload: cfg.disableTXChecksumOffload || cfg.ovsDatapathType === 'netdev',
  };
}

/** A running node agent. */
export class Agent {
  private constructor(
    readonly options: Required<Omit<AgentOptions, 'nodeNetns' | 'logger' | 'apiSocket' | 'controlplane' | 'policyLogFile'>> &
      Pick<AgentOptions, 'nodeNetns' | 'apiSocket' | 'controlplane' | 'policyLogFile'>,
    readonly ovsdb: OvsdbClient,
    readonly vswitch: VSwitch,
    readonly openflow: SwitchConnection,
    readonly node: NodeInfo,
    readonly round: number,
    readonly flows: FlowSync,
    readonly interfaces: InterfaceStore,
    readonly pods: PodNetwork,
    readonly policies: NetworkPolicyController,
    readonly rejects: RejectResponder,
    readonly auditLog: PolicyAuditLog,
    private readonly ipam: HostLocalStore,
    private readonly cni: CniServer,
    private readonly log: Logger,
    readonly metrics: AgentMetrics,
    readonly startTime: Date = new Date(),
  ) {}

  private api: LocalApi | undefined;

  /** Read access for the local API and tests. */
  introspection(): AgentIntrospection {
    const pipeline = () => this.flows.nodeFlows?.pipeline;
    return {
      nodeName: this.options.nodeName,
      podCIDR: this.options.podCIDR,
      bridge: this.options.bridge,
      round: this.round,
      startTime: this.startTime,
      podInterfaces: () => this.interfaces.list(),
      policyCounts: () => this.policies.view.counts,
      metrics: this.metrics,
      controllerConnected: () => this.policies.client?.connected,
      installedFlows: () => this.openflow.dumpFlows(),
      tableName: (id) => pipeline()?.nameOf(id),
      tableId: (name) => {
        try {
          return pipeline()?.id(name as TableName);
        } catch {
          return undefined; // not a table of this pipeline
        }
      },
      ovsVersion: async () => {
        // Open_vSwitch.ovs_version is written by ovs-ctl, not by ovs-vswitchd: ask the switch (OFPMP_DESC).
        const r = unwrap(await this.ovsdb.transact('Open_vSwitch', [ops.select('Open_vSwitch', [], ['ovs_version'])]));
        const res = r.results[0];
        const v = res?.op === 'select' ? res.rows[0]?.ovs_version : undefined;
        if (typeof v === 'string' && v) return v;
        const desc = await this.openflow.multipart({ kind: 'desc' });
        return desc.kind === 'desc' ? desc.sw : '';
      },
    };
  }

  /** Brings the node up and starts serving CNI. */
  static async start(o: AgentOptions): Promise<Agent> {
    const log = o.logger ?? silentLogger;
    const opts = {
      nodeName: o.nodeName,
      podCIDR: o.podCIDR,
      nodeIP: o.nodeIP,
      ovsdbRemote: o.ovsdbRemote,
      ovsRunDir: o.ovsRunDir ?? '/var/run/openvswitch',
      bridge: o.bridge ?? 'br-int',
      datapathType: o.datapathType ?? 'system',
      gatewayName: o.gatewayName ?? 'antrea-gw0',
      tunnelName: o.tunnelName ?? 'antrea-tun0',
      tunnelType: o.tunnelType ?? 'geneve',
      tunnelPort: o.tunnelPort ?? 0,
      tunnelCsum: o.tunnelCsum ?? false,
      linkMtu: o.linkMtu ?? 1500,
      dataDir: o.dataDir,
      ipamNetwork: o.ipamNetwork ?? 'switchyard',
      cniSocket: o.cniSocket ?? '/var/run/antrea/cni.sock',
      disableTxChecksumOffload: o.disableTxChecksumOffload ?? (o.datapathType ?? 'system') === 'netdev',
      ...(o.nodeNetns !== undefined ? { nodeNetns: o.nodeNetns } : {}),
      ...(o.apiSocket !== undefined ? { apiSocket: o.apiSocket } : {}),
      ...(o.controlplane !== undefined ? { controlplane: o.controlplane } : {}),
    };
    checkDatapathSupport(opts);
    const cidr = parseCidr(opts.podCIDR);
    if (cidr.family !== 4) throw new AgentError('INVALID_CONFIG', 'only an IPv4 pod CIDR is supported so far', opts.podCIDR, 'podCIDR');
    const mtu = podMtu(opts.linkMtu, opts.tunnelType);
    const net = new NodeNetwork(opts.nodeNetns);
    const metrics = new AgentMetrics();

    const ovsdb = await OvsdbClient.connect(opts.ovsdbRemote, { logger: log });
    const cleanups: (() => Promise<unknown>)[] = [async () => ovsdb.close()];
    try {
      const vswitch = new VSwitch(ovsdb, { logger: log });
      const node = await bringUpNode(vswitch, net, { ...opts, mtu });
      log.info({ gateway: node.gateway, tunnel: node.tunnel }, 'node ports ready');

      // Pods attached before a restart: kept if their namespace still exists and OVS attached them.
      const interfaces = new InterfaceStore();
      const stale: { portName: string; iface: PodInterface | undefined }[] = [];
      for (const p of await readPodPorts(ovsdb)) {
        if (p.iface && p.ofport > 0 && probeNetns(p.iface.netns) === 'ok') interfaces.set({ ...p.iface, ofport: p.ofport });
        else stale.push(p);
      }

      const { round, previous } = await startRound(ovsdb, opts.bridge);
      const replayTarget: { flows?: FlowSync } = {};
      const openflow = await SwitchConnection.connect({
        target: { path: join(opts.ovsRunDir, `${opts.bridge}.mgmt`) },
        logger: log,
        // The pipeline's controller() actions address this connection id (Antrea's 62373).
        controllerId: CONTROLLER_ID,
        // ovs-vswitchd restarted: it lost every flow; put this round back.
        onReconnect: async () => replayTarget.flows?.replay(),
      });
      cleanups.push(() => openflow.close());
      const rejects = new RejectResponder(openflow, { logger: log });
      const flows = new FlowSync(
        openflow,
        {
          round,
          trafficMode: 'encap',
          tunnelType: opts.tunnelType,
          gateway: { ofport: node.gateway.ofport, ip: node.gateway.ip, mac: node.gateway.mac },
          tunnelOfport: node.tunnel.ofport,
          podCIDR: cidr.toString(),
          nodeIP: opts.nodeIP,
          netdevDatapath: opts.datapathType === 'netdev',
          enableAntreaPolicy: true,
        },
        { logger: log, metrics },
      );
      replayTarget.flows = flows;
      const auditLog = new PolicyAuditLog(
        { file: o.policyLogFile ?? join(opts.dataDir, 'networkpolicy', 'np.log'), logger: log },
        {
          policies: () => flows.policies,
          conjIds: () => flows.conjIds,
          tableName: (id) => flows.nodeFlows?.pipeline.nameOf(id),
          rulePriority: (table, conjId) => flows.flows.find((f) => f.table === table && f.match.conjId === conjId)?.priority,
        },
        openflow,
      );
      cleanups.push(async () => auditLog.stop());
      const ipam = await HostLocalStore.open({
        dataDir: join(opts.dataDir, 'networks'),
        network: opts.ipamNetwork,
        ranges: [[{ subnet: cidr.toString() }]],
        logger: log,
      });
      cleanups.push(() => ipam.close());
      const pods = new PodNetwork({
        vs: vswitch,
        bridge: opts.bridge,
        net,
        ipam,
        flows,
        store: interfaces,
        node,
        mtu,
        txOffloadOff: opts.disableTxChecksumOffload,
        logger: log,
      });
      // Policies cached by the previous run are part of the first round: enforced from the start.
      const cp = opts.controlplane;
      const policyController = new NetworkPolicyController({
        nodeName: opts.nodeName,
        flows,
        view: loadPolicyView(join(opts.dataDir, POLICY_CACHE_FILE), log),
        cacheFile: join(opts.dataDir, POLICY_CACHE_FILE),
        ...(cp
          ? {
              controlplane: {
                url: cp.url,
                ...(cp.caPem !== undefined ? { caPem: cp.caPem } : {}),
                ...(cp.backoff !== undefined ? { backoff: cp.backoff } : {}),
                ...(cp.tokenFile !== undefined
                  ? { token: () => readFileSync(cp.tokenFile!, 'utf8').trim() }
                  : cp.token !== undefined
                    ? { token: cp.token }
                    : {}),
              },
            }
          : {}),
        logger: log,
      });
      policyController.primeState();
      cleanups.push(() => policyController.stop());
      const initial = await flows.initialSync(interfaces.list().map((i) => pods.localPod(i)));
      log.info({ round, previous, ...initial, pods: interfaces.size }, 'round installed');

      for (const s of stale) {
        await vswitch.deletePort(opts.bridge, s.portName);
        await net.deleteHostLink(s.portName).catch((e: unknown) => log.warn({ err: e, port: s.portName }, 'stale veth not deleted'));
        log.info({ port: s.portName, containerId: s.iface?.containerId }, 'stale pod port removed');
      }
      const freed = await ipam.gc(interfaces.list().map((i) => ({ containerId: i.containerId, ifname: i.ifname })));
      if (freed.length) log.info({ freed: freed.map(String) }, 'IPAM GC released addresses');

      const cni = await CniServer.listen(opts.cniSocket, new CniHandler(pods, { logger: log, metrics }));
      log.info({ socket: opts.cniSocket }, 'CNI server listening');
      const agent = new Agent(opts, ovsdb, vswitch, openflow, node, round, flows, interfaces, pods, policyController, rejects, auditLog, ipam, cni, log, metrics);
      policyController.start();
      if (opts.apiSocket !== undefined) {
        cleanups.push(() => cni.close());
        agent.api = await LocalApi.listen(opts.apiSocket, agent.introspection(), { logger: log });
        log.info({ socket: opts.apiSocket }, 'local API listening');
      }
      return agent;
    } catch (e) {
      for (const c of cleanups.reverse()) await c().catch(() => undefined);
      throw e;
    }
  }

  /** Stops serving and closes every connection. The datapath (ports, flows) stays as it is. */
  async stop(): Promise<void> {
    await this.api?.close();
    await this.policies.stop();
    this.rejects.stop();
    this.auditLog.stop();
    await this.cni.close();
    await this.openflow.close();
    await this.ipam.close();
    this.ovsdb.close();
    this.log.info({}, 'agent stopped');
  }
}
