/**
 * The node agent: composes ovsdb (bridge, ports), openflow + openflow-pipeline (flows), ipam
 * (pod addresses) and the CNI server into a running node. Start order: bridge and node ports,
 * interface store from OVSDB, a new cookie round with every flow, stale ports and addresses
 * removed, then the CNI socket opens.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OvsdbClient, VSwitch, ops, unwrap } from '@switchyard/ovsdb';
import { PACKETIN_METER_ID_DNS, PACKETIN_METER_ID_NP, type TableName, type TrafficMode } from '@switchyard/openflow-pipeline';
import { Informer, KubeDelegatedAuth, systemClock, type Clock, type KubeClient, type KubeObject } from '@switchyard/kube';
import { OfSwitchError, SwitchConnection, type MeterFlag } from '@switchyard/openflow';
import { HostLocalStore } from '@switchyard/ipam';
import { parseCidr } from '@switchyard/ipam/cidr';
import type { AgentConfig } from '@switchyard/apis';
import { bringUpNode, checkDatapathSupport, podMtu, startRound, type NodeInfo, type TunnelType } from './bridge';
import { FlowSync, purgeDatapathFlows } from './flow-sync';
import { InterfaceStore, readPodPorts, type PodInterface } from './interface-store';
import { NodeNetwork, probeNetns } from './netops';
import { PodIPPools } from './ippools';
import { selfSignedCert } from './tls';
import { PodNetwork } from './pods';
import { CniHandler, CniServer } from './cni/server';
import { AgentError } from './errors';
import { silentLogger, type Logger } from './logger';
import { LocalApi, type AgentIntrospection } from './api';
import { NetworkPolicyController, loadPolicyView } from './policy/controller';
import { RejectResponder } from './policy/reject';
import { PolicyAuditLog } from './policy/audit-log';
import { AgentMetrics } from './metrics';
import { NodeRouteController, nodeFacts, remoteNodesOf } from './node-routes';
import { AgentInfoReporter } from './agent-info';
import { FqdnController } from './policy/fqdn';
import { ServiceController } from './services';

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
  /**
   * How pod traffic crosses nodes. Default encap. networkPolicyOnly: chained after a routed
   * primary CNI, policies only (no IPAM, tunnel, routes or SNAT of ours).
   */
  trafficMode?: TrafficMode;
  /** Do not masquerade pod -> external traffic (the network routes pod addresses). Default false. */
  noSNAT?: boolean;
  /**
   * The Kubernetes API. With it the agent watches Nodes (remote nodes' flows and host routes) and
   * its own node's Pods, and keeps its AntreaAgentInfo current. Without it there are no remote
   * nodes: pods reach only pods of this node.
   */
  kube?: KubeClient;
  /** TCP port of the agent API (Antrea's apiPort, 10350); none when absent. 0 = any free port. */
  apiPort?: number;
  /**
   * Address the TCP API binds: default 0.0.0.0 with `kube` (every node address, for the API
   * server's node proxy), 127.0.0.1 without. The API is HTTPS; with `kube`, callers are
   * authenticated and authorized through the Kubernetes API (a non-loopback address needs `kube`).
   */
  apiBindAddress?: string;
  /**
   * Packet-ins per second allowed per category (NetworkPolicy logging/Reject, DNS), through
   * OpenFlow meters; 0 = no meters. Default 500 (Antrea's packetInRate).
   */
  packetInRate?: number;
  /**
   * AntreaProxy: Service load balancing in OVS from the Services and EndpointSlices the agent
   * watches. Needs `kube`; default true when it is given (antrea-agent.conf `antreaProxy.enable`).
   */
  enableProxy?: boolean;
  /**
   * AntreaIPAM: pods (or Namespaces) annotated `ipam.antrea.io/ippools` take their address from
   * that IPPool. Needs `kube`; default false (antrea-agent.conf feature gate `AntreaIPAM`).
   */
  enableIPPools?: boolean;
  /** AntreaAgentInfo heartbeat period. Default 60 s. */
  agentInfoIntervalMs?: number;
  /** Time source of heartbeats and informer backoff. */
  clock?: Clock;
  logger?: Logger;
}

/**
 * Packet-in meters (NetworkPolicy, DNS): a drop band at `rate` packets/s with a burst of twice
 * that. Added, or modified when a previous run left them (the rate may have changed).
 */
export async function installPacketInMeters(sw: SwitchConnection, rate: number): Promise<void> {
  for (const meterId of [PACKETIN_METER_ID_NP, PACKETIN_METER_ID_DNS]) {
    const mod = { type: 'meterMod' as const, meterId, flags: ['pktps', 'burst', 'stats'] as MeterFlag[], bands: [{ type: 'drop' as const, rate, burstSize: rate * 2 }] };
    try {
      await sw.flowLike({ ...mod, command: 'add' });
    } catch (e) {
      if (!(e instanceof OfSwitchError && e.codeName === 'OFPMMFC_METER_EXISTS')) throw e;
      await sw.flowLike({ ...mod, command: 'modify' });
    }
  }
}

const isLoopback = (host: string): boolean => host === 'localhost' || host === '::1' || host.startsWith('127.');

/**
 * The CAs of client certificates the API server presents (its own client CA and the front-proxy
 * CA), from kube-system/extension-apiserver-authentication as kube-apiserver publishes them.
 * Undefined when the ConfigMap cannot be read: then only bearer tokens authenticate.
 */
async function clusterClientCa(kube: KubeClient, log: Logger): Promise<string | undefined> {
  try {
    const cm = await kube.request<{ data?: Record<string, string> }>('GET', '/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication');
    const pems = [cm.data?.['client-ca-file'], cm.data?.['requestheader-client-ca-file']].filter((p): p is string => typeof p === 'string' && p.includes('BEGIN CERTIFICATE'));
    return pems.length ? [...new Set(pems)].join('\n') : undefined;
  } catch (e) {
    log.warn({ err: e instanceof Error ? e.message : String(e) }, 'cannot read kube-system/extension-apiserver-authentication: the agent API accepts bearer tokens only');
    return undefined;
  }
}

/** Resource specs of what the agent watches. */
const NODES = { group: '', version: 'v1', plural: 'nodes', kind: 'Node', namespaced: false } as const;
const PODS = { group: '', version: 'v1', plural: 'pods', kind: 'Pod', namespaced: true } as const;
const SERVICES = { group: '', version: 'v1', plural: 'services', kind: 'Service', namespaced: true } as const;
const ENDPOINT_SLICES = { group: 'discovery.k8s.io', version: 'v1', plural: 'endpointslices', kind: 'EndpointSlice', namespaced: true } as const;

/** A LIST that gives up after `ms` (the API may be down at start; the watches catch up later). */
async function listWithin(kube: KubeClient, path: string, ms: number): Promise<KubeObject[]> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const list = await Promise.race([
      kube.request<{ items: KubeObject[] }>('GET', path),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out after ${ms / 1000} s`)), ms);
        timer.unref();
      }),
    ]);
    return list.items;
  } finally {
    clearTimeout(timer);
  }
}

/** Agent options from an antrea-agent.conf (parsed by `parseAgentConfig`) plus the node's facts. */
export function agentOptionsFromConfig(
  cfg: AgentConfig,
  node: { nodeName: string; podCIDR: string; nodeIP: string; dataDir: string; nodeNetns?: string; logger?: Logger },
): AgentOptions {
  return {
    ...node,
    trafficMode: cfg.trafficEncapMode,
    noSNAT: cfg.noSNAT,
    packetInRate: cfg.packetInRate,
    // Antrea >= 2.0 turns AntreaProxy off with antreaProxy.enable; older configs with the gate.
    enableIPPools: cfg.featureGates.AntreaIPAM === true,
    enableProxy: cfg.featureGates.AntreaProxy !== false && cfg.antreaProxy.enable,
    ...(cfg.apiPort > 0 ? { apiPort: cfg.apiPort } : {}),
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

type OptionalKeys = 'nodeNetns' | 'logger' | 'apiSocket' | 'controlplane' | 'policyLogFile' | 'kube' | 'apiPort' | 'clock' | 'enableProxy' | 'enableIPPools';

/** A running node agent. */
export class Agent {
  private constructor(
    readonly options: Required<Omit<AgentOptions, OptionalKeys>> & Pick<AgentOptions, OptionalKeys>,
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
    readonly fqdn: FqdnController,
    private readonly ipam: HostLocalStore,
    private readonly cni: CniServer,
    private readonly log: Logger,
    readonly metrics: AgentMetrics,
    readonly startTime: Date = new Date(),
  ) {}

  private api: LocalApi | undefined;
  private tcpApi: LocalApi | undefined;
  private informers: Informer[] = [];
  private reporter: AgentInfoReporter | undefined;
  /** Remote nodes and host routes (present with a Kubernetes API). */
  nodeRoutes: NodeRouteController | undefined;
  /** Service load balancing (present with a Kubernetes API and AntreaProxy on). */
  services: ServiceController | undefined;

  /** The TCP port of the agent API, when it serves one. */
  get apiPort(): number | undefined {
    return this.tcpApi?.port;
  }

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
      policyConjIds: (ref) => {
        const [ns, name] = ref.includes('/') ? (ref.split('/', 2) as [string, string]) : [undefined, ref];
        const np = this.flows.policies.find((p) => p.uid === ref) ??
          this.flows.policies.find((p) => p.sourceRef.name === name && (ns === undefined || p.sourceRef.namespace === ns));
        if (!np) return undefined;
        const ids: number[] = [];
        for (const [k, id] of this.flows.conjIds ?? []) if (k.startsWith(`${np.uid}/`)) ids.push(id);
        return ids;
      },
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
      trafficMode: o.trafficMode ?? 'encap',
      noSNAT: o.noSNAT ?? false,
      // Authenticated callers only (with `kube`): reachable by the API server's node proxy on
      // every node address, as Antrea's agent API; without `kube`, loopback only.
      apiBindAddress: o.apiBindAddress ?? (o.kube !== undefined ? '0.0.0.0' : '127.0.0.1'),
      agentInfoIntervalMs: o.agentInfoIntervalMs ?? 60_000,
      packetInRate: o.packetInRate ?? 500,
      ...(o.kube !== undefined ? { kube: o.kube } : {}),
      ...(o.apiPort !== undefined ? { apiPort: o.apiPort } : {}),
      ...(o.clock !== undefined ? { clock: o.clock } : {}),
      enableProxy: o.kube !== undefined && (o.enableProxy ?? true),
      enableIPPools: o.kube !== undefined && (o.enableIPPools ?? false),
      ...(o.nodeNetns !== undefined ? { nodeNetns: o.nodeNetns } : {}),
      ...(o.apiSocket !== undefined ? { apiSocket: o.apiSocket } : {}),
      ...(o.controlplane !== undefined ? { controlplane: o.controlplane } : {}),
    };
    checkDatapathSupport(opts);
    const cidr = parseCidr(opts.podCIDR);
    if (cidr.family !== 4) throw new AgentError('INVALID_CONFIG', 'only an IPv4 pod CIDR is supported so far', opts.podCIDR, 'podCIDR');
    const policyOnly = opts.trafficMode === 'networkPolicyOnly';
    const encap = opts.trafficMode === 'encap' || opts.trafficMode === 'hybrid';
    const mtu = podMtu(opts.linkMtu, opts.tunnelType, encap);
    const net = new NodeNetwork(opts.nodeNetns);
    const metrics = new AgentMetrics();
    // The API certificate is started now: the first one in a process loads @peculiar/x509
    // (about half a second), which then overlaps the node bring-up instead of following it.
    const apiCert = opts.apiPort !== undefined
      ? selfSignedCert(`${opts.nodeName}@switchyard-agent`, [opts.nodeIP, opts.apiBindAddress, '127.0.0.1', 'localhost', opts.nodeName].filter((h) => h !== '0.0.0.0' && h !== '::'))
      : undefined;
    apiCert?.catch(() => undefined); // awaited where the TCP API starts; a failure surfaces there

    const ovsdb = await OvsdbClient.connect(opts.ovsdbRemote, { logger: log });
    const cleanups: (() => Promise<unknown>)[] = [async () => ovsdb.close()];
    try {
      const vswitch = new VSwitch(ovsdb, { logger: log });
      const node = await bringUpNode(vswitch, net, { ...opts, mtu, tunnel: encap, ...(policyOnly ? { gatewayAddress: `${opts.nodeIP}/32` } : {}) });
      // The transport link (holding the node IP): direct routes to peers go out of it.
      const transport = await net.findAddress(opts.nodeIP);
      if (!transport && (opts.trafficMode === 'noEncap' || opts.trafficMode === 'hybrid')) {
        throw new AgentError('INVALID_CONFIG', `trafficMode ${opts.trafficMode} routes pod traffic on the transport link, but no interface has the node IP ${opts.nodeIP}`, opts.nodeIP, 'nodeIP');
      }
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
      // Meters before the flows that use them (a flow naming a missing meter is refused).
      if (opts.packetInRate > 0) await installPacketInMeters(openflow, opts.packetInRate);
      const rejects = new RejectResponder(openflow, { logger: log });
      const flows = new FlowSync(
        openflow,
        {
          round,
          trafficMode: opts.trafficMode,
          tunnelType: opts.tunnelType,
          gateway: { ofport: node.gateway.ofport, ip: node.gateway.ip, mac: node.gateway.mac },
          ...(node.tunnel ? { tunnelOfport: node.tunnel.ofport } : {}),
          ...(transport ? { nodeSubnet: `${parseCidr(`${opts.nodeIP}/${transport.prefix}`).toString()}` } : {}),
          podCIDR: cidr.toString(),
          nodeIP: opts.nodeIP,
          netdevDatapath: opts.datapathType === 'netdev',
          enableAntreaPolicy: true,
          enableProxy: opts.enableProxy,
          packetInMeters: opts.packetInRate > 0,
        },
        // Userspace datapath: policy changes also empty the megaflow cache (flow-sync.ts, issue 13).
        { logger: log, metrics, ...(opts.datapathType === 'netdev' ? { flushDatapath: () => purgeDatapathFlows(opts.ovsRunDir) } : {}) },
      );
      replayTarget.flows = flows;
      // FQDN rules: DNS answers to the pods they select are learned before they are delivered.
      const fqdn = new FqdnController(openflow, flows, { logger: log, ...(o.clock ? { clock: o.clock } : {}) });
      cleanups.push(async () => fqdn.stop());
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
        chained: policyOnly,
        ...(opts.enableIPPools && opts.kube && !policyOnly ? { pools: new PodIPPools({ kube: opts.kube, logger: log }) } : {}),
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
      // Remote nodes are part of the first round too: without them the new round would replace
      // the previous one's tunnel flows with nothing until the Node watch caught up.
      if (opts.kube) {
        try {
          const nodes = await listWithin(opts.kube, '/api/v1/nodes', 5000);
          flows.primeRemoteNodes(remoteNodesOf(nodes.map(nodeFacts), { name: opts.nodeName, podCIDR: cidr.toString() }, new Map()).remote);
        } catch (e) {
          log.warn({ err: e instanceof Error ? e.message : String(e) }, 'Nodes not listed before the first round; remote nodes follow from the watch');
        }
      }
      // Services too: a restart must not drop the Service groups until the watches catch up.
      const services = opts.enableProxy ? new ServiceController({ nodeName: opts.nodeName, sink: { setServices: (s) => flows.setServices(s) }, logger: log }) : undefined;
      if (opts.kube && services) {
        try {
          const [svcs, slices] = await Promise.all([listWithin(opts.kube, '/api/v1/services', 5000), listWithin(opts.kube, '/apis/discovery.k8s.io/v1/endpointslices', 5000)]);
          flows.primeServices(services.prime(svcs, slices));
        } catch (e) {
          log.warn({ err: e instanceof Error ? e.message : String(e) }, 'Services not listed before the first round; they follow from the watch');
        }
      }
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

      // Pod -> external traffic leaves with the node's address; remote pod CIDRs are added as
      // Nodes appear.
      if (opts.noSNAT || policyOnly) await net.removeMasquerade();
      else await net.syncMasquerade([cidr.toString()], opts.gatewayName);
      // Pods attached before (maybe by an older agent, or before forwarding was turned on): the
      // kernel stays out of their devices.
      await net.quietHostLink(...interfaces.list().map((i) => i.hostIfName));

      const cni = await CniServer.listen(opts.cniSocket, new CniHandler(pods, { logger: log, metrics }));
      cleanups.push(() => cni.close());
      log.info({ socket: opts.cniSocket }, 'CNI server listening');
      const agent = new Agent(opts, ovsdb, vswitch, openflow, node, round, flows, interfaces, pods, policyController, rejects, auditLog, fqdn, ipam, cni, log, metrics);
      agent.services = services;
      cleanups.push(() => agent.stopKube());
      policyController.start();
      if (opts.apiSocket !== undefined) {
        agent.api = await LocalApi.listen(opts.apiSocket, agent.introspection(), { logger: log });
        cleanups.push(() => agent.api!.close());
        log.info({ socket: opts.apiSocket }, 'local API listening');
      }
      if (opts.apiPort !== undefined) {
        // HTTPS with a self-signed certificate; callers authenticated and authorized through the
        // Kubernetes API when there is one (without it, only a loopback bind is allowed).
        const tls = await apiCert!;
        let auth: KubeDelegatedAuth | undefined;
        let clientCaPem: string | undefined;
        if (opts.kube) {
          clientCaPem = await clusterClientCa(opts.kube, log);
          auth = new KubeDelegatedAuth(opts.kube, { clientCertificates: true, logger: log, ...(opts.clock ? { clock: opts.clock } : {}) });
        } else if (!isLoopback(opts.apiBindAddress)) {
          throw new AgentError('INVALID_CONFIG', `the agent API cannot bind ${opts.apiBindAddress} without the Kubernetes API to authenticate callers`, opts.apiBindAddress, 'apiBindAddress');
        }
        agent.tcpApi = await LocalApi.listenTcp(opts.apiBindAddress, opts.apiPort, agent.introspection(), {
          logger: log,
          tls: { ...tls, ...(clientCaPem ? { clientCaPem } : {}) },
          ...(auth ? { auth } : {}),
        });
        cleanups.push(() => agent.tcpApi!.close());
        log.info({ address: agent.tcpApi.address }, 'agent API listening on TCP');
      }
      if (opts.kube) await agent.startKube(opts.kube, net, transport, cidr.toString());
      return agent;
    } catch (e) {
      for (const c of cleanups.reverse()) await c().catch(() => undefined);
      throw e;
    }
  }

  /**
   * Watches Nodes (remote nodes and host routes), this node's Pods (start-up GC of pods the API
   * no longer has), Services and EndpointSlices (AntreaProxy), and starts the AntreaAgentInfo
   * heartbeat.
   */
  private async startKube(kube: KubeClient, net: NodeNetwork, transport: { dev: string; prefix: number } | undefined, podCIDR: string): Promise<void> {
    const o = this.options;
    const clock = o.clock ?? systemClock;
    const routes = new NodeRouteController({
      self: { name: o.nodeName, podCIDR, nodeIP: o.nodeIP },
      mode: o.trafficMode,
      gatewayName: o.gatewayName,
      transportDev: transport?.dev ?? o.gatewayName,
      transportPrefix: transport?.prefix ?? 32,
      sink: {
        setRemoteNodes: (nodes) => this.flows.setRemoteNodes(nodes),
        syncRoutes: (r) => net.syncRoutes(r),
        syncMasquerade: (cidrs) => (o.noSNAT || o.trafficMode === 'networkPolicyOnly' ? Promise.resolve() : net.syncMasquerade(cidrs, o.gatewayName)),
      },
      logger: this.log,
    });
    this.nodeRoutes = routes;
    const nodes = new Informer(kube, NODES, routes.onEvent, { clock, logger: this.log });
    const live = new Set<string>();
    const pods = new Informer(kube, PODS, (e) => {
      const key = `${e.object.metadata.namespace ?? ''}/${e.object.metadata.name ?? ''}`;
      if (e.type === 'DELETED') live.delete(key);
      else live.add(key);
    }, { clock, logger: this.log, fieldSelector: `spec.nodeName=${o.nodeName}` });
    this.informers.push(nodes, pods);
    if (this.services) {
      const svc = new Informer(kube, SERVICES, this.services.onServiceEvent, { clock, logger: this.log });
      const slices = new Informer(kube, ENDPOINT_SLICES, this.services.onSliceEvent, { clock, logger: this.log });
      this.informers.push(svc, slices);
    }
    for (const i of this.informers) i.start();
    // Pods deleted from the API while the agent was down: their attachments go (the runtime's DEL
    // may never come). Only at start, once the first LIST is in.
    void pods.synced.then(async () => {
      for (const iface of this.interfaces.list()) {
        if (live.has(`${iface.podNamespace}/${iface.podName}`)) continue;
        this.log.info({ pod: `${iface.podNamespace}/${iface.podName}`, containerId: iface.containerId }, 'pod gone from the API: detaching');
        await this.pods
          .del({ containerId: iface.containerId, netns: iface.netns, ifname: iface.ifname, podName: iface.podName, podNamespace: iface.podNamespace })
          .catch((e: unknown) => this.log.warn({ err: e, containerId: iface.containerId }, 'detaching a gone pod failed'));
      }
    });
    this.reporter = new AgentInfoReporter({
      kube,
      agent: this.introspection(),
      ...(this.apiPort !== undefined ? { apiPort: this.apiPort } : {}),
      intervalMs: o.agentInfoIntervalMs,
      clock,
      logger: this.log,
    });
    this.reporter.start();
  }

  private async stopKube(): Promise<void> {
    await this.reporter?.stop();
    await Promise.all(this.informers.map((i) => i.stop()));
    await this.nodeRoutes?.idle();
    await this.services?.idle();
  }

  /** Stops serving and closes every connection. The datapath (ports, flows) stays as it is. */
  async stop(): Promise<void> {
    await this.stopKube();
    await this.tcpApi?.close();
    await this.api?.close();
    await this.policies.stop();
    this.rejects.stop();
    this.auditLog.stop();
    this.fqdn.stop();
    await this.cni.close();
    await this.openflow.close();
    await this.ipam.close();
    this.ovsdb.close();
    this.log.info({}, 'agent stopped');
  }
}
