/**
 * Pod datapath: what CNI ADD / DEL / CHECK do on this node. ADD runs its steps in order and, on
 * any failure, undoes the ones already done (in reverse); DEL is idempotent; CHECK compares the
 * interface, the OVS port and the pod's namespace with what the runtime believes (prevResult).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { HostLocalStore } from '@switchyard/ipam';
import type { LocalPod } from '@switchyard/openflow-pipeline';
import type { VSwitch } from '@switchyard/ovsdb';
import { CniError, CniErrorCode, type CniResult } from '../../cni/spec';
import type { NodeInfo } from '../../bridge';
import type { FlowSync } from '../../flow-sync';
import { podExternalIds, type InterfaceStore, type PodInterface } from '../../interface-store';
import type { PodIPPools } from '../ippools/ippools';
import { probeNetns, type NodeNetwork } from '../../netops';
import { silentLogger, type Logger } from '@switchyard/runtime';

/** An ADD/DEL/CHECK as the pod datapath sees it (parsed from the CNI request). */
export interface PodRequest {
  containerId: string;
  netns: string;
  ifname: string;
  podName: string;
  podNamespace: string;
}

/** Host-side veth name: `<up to 6 chars of the pod name>-<8 hex of a hash>`, at most 15 chars. */
export function hostInterfaceName(podNamespace: string, podName: string, containerId: string): string {
  const prefix = podName.toLowerCase().replace(/[^a-z0-9]/g, '').slice(0, 6) || 'pod';
  const hash = createHash('sha1').update(`${podNamespace}/${podName}/${containerId}`).digest('hex').slice(0, 8);
  return `${prefix}-${hash}`;
}

/** A random locally administered unicast MAC. */
export function randomMac(): string {
  const b = randomBytes(6);
  b[0] = ((b[0] ?? 0) & 0xfe) | 0x02;
  return [...b].map((x) => x.toString(16).padStart(2, '0')).join(':');
}

/**
 * The CNI result (1.0.0 layout) of a pod interface; dual-stack: both addresses and default routes,
 * IPv4 first; an IPv6-only pod (its `ipCidr` IPv6): the IPv6 address and default route alone.
 */
export function podResult(p: PodInterface): CniResult {
  return {
    cniVersion: '1.0.0',
    interfaces: [{ name: p.hostIfName }, { name: p.ifname, mac: p.mac, mtu: p.mtu, sandbox: p.netns }],
    ips: [{ address: p.ipCidr, gateway: p.gateway, interface: 1 }, ...(p.ipv6 ? [{ address: p.ipv6.ipCidr, gateway: p.ipv6.gateway, interface: 1 }] : [])],
    routes: [{ dst: isIpv6Only(p) ? '::/0' : '0.0.0.0/0', gw: p.gateway }, ...(p.ipv6 ? [{ dst: '::/0', gw: p.ipv6.gateway }] : [])],
    dns: {},
  };
}

/** A pod of an IPv6-only node: its one address (`ipCidr`, with `gateway`) is IPv6. */
export function isIpv6Only(p: Pick<PodInterface, 'ipCidr'>): boolean {
  return p.ipCidr.includes(':');
}

export interface PodNetworkDeps {
  vs: VSwitch;
  bridge: string;
  net: NodeNetwork;
  ipam: HostLocalStore;
  flows: FlowSync;
  store: InterfaceStore;
  node: NodeInfo;
  mtu: number;
  txOffloadOff: boolean;
  /**
   * networkPolicyOnly: the agent is chained after a routed primary CNI (ptp, EKS): ADD takes the
   * primary's result, attaches its host-side device to OVS and moves the pod's host route onto
   * the gateway; no IPAM, no veth of ours.
   */
  chained?: boolean;
  /**
   * AntreaIPAM: pods (or Namespaces) annotated `ipam.antrea.io/ippools` take their address from
   * that IPPool; absent, every pod gets a pod-CIDR address from host-local.
   */
  pools?: PodIPPools;
  logger?: Logger;
}

/** Wraps any failure of a step as a CNI error naming the step. */
function stepError(step: string, e: unknown): CniError {
  if (e instanceof CniError) return e;
  return new CniError(CniErrorCode.InternalError, `pod setup failed at ${step}`, e instanceof Error ? e.message : String(e));
}

/** The pod datapath of one node. */
export class PodNetwork {
  private readonly log: Logger;
  /** ofport_request numbers handed to ADDs still in flight (not yet in the interface store). */
  private readonly requesting = new Set<number>();

  constructor(private readonly d: PodNetworkDeps) {
    this.log = d.logger ?? silentLogger;
  }

  /**
   * CNI ADD. A repeated ADD of an attached container returns the same result. Chained
   * (networkPolicyOnly), `prev` is the primary plugin's result and is returned unchanged.
   */
  async add(req: PodRequest, prev?: CniResult): Promise<CniResult> {
    if (this.d.chained) {
      if (!prev) throw new CniError(CniErrorCode.InvalidNetworkConfig, 'networkPolicyOnly: switchyard-cni runs chained after the primary CNI and needs prevResult');
      return this.addChained(req, prev);
    }
    const existing = this.d.store.get(req.containerId);
    if (existing && existing.ifname === req.ifname && existing.netns === req.netns) return podResult(existing);
    if (existing) {
      throw new CniError(CniErrorCode.InvalidEnvironment, `container ${req.containerId} is already attached`, `as ${existing.ifname} in ${existing.netns}`);
    }
    const ns = probeNetns(req.netns);
    if (ns === 'missing') throw new CniError(CniErrorCode.UnknownContainer, `network namespace ${req.netns} does not exist`);
    if (ns === 'not-netns') throw new CniError(CniErrorCode.InvalidEnvironment, `CNI_NETNS ${req.netns} is not a network namespace`);

    const undo: { step: string; run: () => Promise<unknown> }[] = [];
    let step = 'ipam';
    const timings: Record<string, number> = {};
    let mark = performance.now();
    const lap = (name: string): void => {
      const now = performance.now();
      timings[name] = Math.round((now - mark) * 100) / 100;
      mark = now;
    };
    try {
      const addr = await this.allocate(req, undo);
      lap('ipam');
      const iface: PodInterface = {
        containerId: req.containerId,
        podName: req.podName,
        podNamespace: req.podNamespace,
        ifname: req.ifname,
        netns: req.netns,
        hostIfName: hostInterfaceName(req.podNamespace, req.podName, req.containerId),
        ipCidr: addr.ipCidr,
        gateway: addr.gateway,
        ...(addr.ipv6 ? { ipv6: addr.ipv6 } : {}),
        mac: randomMac(),
        mtu: this.d.mtu,
        ofport: -1,
        ...(addr.pool !== undefined ? { ipPool: addr.pool } : {}),
      };

      step = 'veth';
      undo.push({ step, run: () => this.d.net.deleteHostLink(iface.hostIfName) });
      await this.d.net.createPodLink({
        netns: req.netns,
        ifname: req.ifname,
        hostIfName: iface.hostIfName,
        mac: iface.mac,
        ipCidr: iface.ipCidr,
        gateway: iface.gateway,
        ...(iface.ipv6 ? { ipv6: iface.ipv6 } : {}),
        mtu: iface.mtu,
        txOffloadOff: this.d.txOffloadOff,
      });
      lap('veth');

      await this.attach(iface, undo, (s) => (step = s), lap);
      if (addr.pool !== undefined) {
        // Off the pod CIDR: the node reaches the pod through a host route on the gateway.
        step = 'host-route';
        undo.push({ step, run: () => this.d.net.deletePodRoute(addr.ip, this.d.node.gateway.name) });
        await this.d.net.podRoute(addr.ip, this.d.node.gateway.name);
      }

      // Gratuitous ARP in the background, as Antrea does: neighbours learn the (possibly reused)
      // address's new MAC, and ADD does not wait for arping. Started after this turn of the event
      // loop: spawning the child is synchronous (fork and exec of the agent process, 8 ms per pod
      // in the profile at load 8), and the ADD's answer goes out first.
      // An IPv6 address (dual-stack or IPv6-only) gets an unsolicited Neighbor Advertisement, IPv6's
      // gratuitous ARP.
      const v6 = iface.ipv6?.ipCidr ?? (isIpv6Only(iface) ? iface.ipCidr : undefined);
      const announced = [...(isIpv6Only(iface) ? [] : [addr.ip]), ...(v6 ? [v6.split('/')[0]!] : [])];
      setImmediate(() => {
        for (const ip of announced)
          this.d.net.announce(req.netns, req.ifname, ip).catch((e: unknown) => {
            this.log.warn({ err: e, containerId: req.containerId, ip }, ip.includes(':') ? 'unsolicited neighbor advertisement failed' : 'gratuitous ARP failed');
          });
      });
      this.log.info({ pod: `${req.podNamespace}/${req.podName}`, ip: iface.ipCidr, ...(iface.ipv6 ? { ipv6: iface.ipv6.ipCidr } : {}), ofport: iface.ofport, timings }, 'pod attached');
      return podResult(iface);
    } catch (e) {
      const err = stepError(step, e);
      for (const u of undo.reverse()) {
        await u.run().catch((ue: unknown) => this.log.error({ err: ue, step: u.step, containerId: req.containerId }, 'rollback step failed'));
      }
      this.log.warn({ err: e, step, containerId: req.containerId }, 'pod ADD failed and was rolled back');
      throw err;
    }
  }

  /**
   * The pod's address: from the IPPool its annotation names, else from the node's pod CIDR
   * (host-local; on a dual-stack node one address from each range set, released together). Pushes
   * the release onto `undo`.
   */
  private async allocate(
    req: PodRequest,
    undo: { step: string; run: () => Promise<unknown> }[],
  ): Promise<{ ip: string; ipCidr: string; gateway: string; pool?: string; ipv6?: { ipCidr: string; gateway: string } }> {
    const choice = this.d.pools ? await this.d.pools.poolFor(req.podNamespace, req.podName) : undefined;
    if (choice && this.d.pools) {
      const pools = this.d.pools;
      const a = await pools.allocate(choice, { namespace: req.podNamespace, name: req.podName, containerID: req.containerId, ifName: req.ifname });
      undo.push({ step: 'ippool', run: () => pools.release(choice.pool, req.containerId, req.ifname) });
      const ip = a.ip.toString();
      return { ip, ipCidr: `${ip}/${a.prefixLength}`, gateway: a.gateway.toString(), pool: choice.pool };
    }
    const attachment = { containerId: req.containerId, ifname: req.ifname };
    const allocs = await this.d.ipam.add(attachment);
    undo.push({ step: 'ipam', run: () => this.d.ipam.del(attachment) });
    const alloc = allocs.find((a) => a.ip.family === 4);
    const six = allocs.find((a) => a.ip.family === 6);
    const gw6 = this.d.node.gateway.ipv6;
    if (six && !gw6) throw new CniError(CniErrorCode.InternalError, 'IPAM gave an IPv6 address but the gateway has no IPv6 address', six.ip.toString());
    if (!alloc) {
      // An IPv6-only node: the IPv6 address is the pod's only one (ipCidr and gateway of its family).
      if (!six || !gw6) throw new CniError(CniErrorCode.InternalError, 'IPAM returned no address');
      const ip = six.ip.toString();
      return { ip, ipCidr: `${ip}/${six.subnet.prefix}`, gateway: gw6.ip };
    }
    const ip = alloc.ip.toString();
    const gw = this.d.node.gateway.ip;
    if (gw === undefined) throw new CniError(CniErrorCode.InternalError, 'IPAM gave an IPv4 address but the gateway has no IPv4 address', ip);
    return {
      ip,
      ipCidr: `${ip}/${alloc.subnet.prefix}`,
      gateway: gw,
      ...(six && gw6 ? { ipv6: { ipCidr: `${six.ip.toString()}/${six.subnet.prefix}`, gateway: gw6.ip } } : {}),
    };
  }

  /**
   * IPAM-only ADD: switchyard-cni named as the `ipam` of another plugin (a secondary network, as
   * Antrea's IPAM is used under Multus). The address comes from the first IPPool of
   * `ipam.ippools`; no interface is touched. Idempotent for a repeated ADD.
   */
  async ipamAdd(req: PodRequest, ippools: readonly string[]): Promise<CniResult> {
    const pools = this.ipamPools(ippools);
    const a = await pools.allocate({ pool: ippools[0] as string, source: 'ipam' }, { namespace: req.podNamespace, name: req.podName, containerID: req.containerId, ifName: req.ifname });
    this.log.info({ pod: `${req.podNamespace}/${req.podName}`, ifname: req.ifname, pool: a.pool, ip: a.ip.toString() }, 'IPAM address allocated');
    return { cniVersion: '1.0.0', ips: [{ address: `${a.ip.toString()}/${a.prefixLength}`, gateway: a.gateway.toString() }], routes: [], dns: {} };
  }

  /** IPAM-only DEL: frees the container's address of the pool. Idempotent. */
  async ipamDel(req: PodRequest, ippools: readonly string[]): Promise<void> {
    const pools = this.ipamPools(ippools);
    await pools.release(ippools[0] as string, req.containerId, req.ifname);
  }

  /** IPAM-only CHECK: the container still holds an address of the pool. */
  async ipamCheck(req: PodRequest, ippools: readonly string[], prev: CniResult): Promise<void> {
    const pools = this.ipamPools(ippools);
    const pool = await pools.store.get(ippools[0] as string);
    const held = (pool?.status?.ipAddresses ?? []).find((e) => e.owner.pod?.containerID === req.containerId && (e.owner.pod.ifName ?? req.ifname) === req.ifname);
    if (!held) throw new CniError(CniErrorCode.CheckFailed, `container ${req.containerId} holds no address of ippool ${ippools[0] as string}`);
    if (!(prev.ips ?? []).some((i) => i.address.split('/')[0] === held.ipAddress)) throw new CniError(CniErrorCode.CheckFailed, 'prevResult does not list the pool address', held.ipAddress);
  }

  private ipamPools(ippools: readonly string[]): PodIPPools {
    if (!this.d.pools) throw new CniError(CniErrorCode.InvalidNetworkConfig, 'IPAM mode needs the AntreaIPAM feature gate and the Kubernetes API on this agent');
    if (ippools.length === 0) throw new CniError(CniErrorCode.InvalidNetworkConfig, 'network configuration: ipam.ippools must name an IPPool in IPAM mode');
    return this.d.pools;
  }

  /** CNI DEL: removes whatever exists of the attachment; never fails because something is already gone. */
  async del(req: PodRequest): Promise<void> {
    if (this.d.chained) return this.delChained(req);
    const iface = this.d.store.get(req.containerId);
    const hostIfName = iface?.hostIfName ?? hostInterfaceName(req.podNamespace, req.podName, req.containerId);
    if (iface) {
      this.d.store.delete(req.containerId);
      await this.d.flows.removePod(iface.podNamespace, iface.podName);
    }
    // Ports left by a crash between steps carry the container id even if the store lost them.
    const ports = await this.d.vs.findPortsByExternalIds({ 'container-id': req.containerId });
    const names = new Set([hostIfName, ...ports.map((p) => p.name)]);
    for (const name of names) {
      await this.d.vs.deletePort(this.d.bridge, name);
      await this.d.net.deleteHostLink(name);
    }
    await this.d.ipam.del({ containerId: req.containerId, ifname: iface?.ifname ?? req.ifname });
    if (iface?.ipPool !== undefined) {
      await this.d.net.deletePodRoute(iface.ipCidr.split('/')[0] ?? '', this.d.node.gateway.name);
      await this.d.pools?.release(iface.ipPool, req.containerId, iface.ifname);
    } else if (!iface && this.d.pools) {
      // The store lost it (a crash mid-ADD): whichever pool holds the container's address frees it.
      await this.d.pools.releaseAnywhere(req.containerId, req.ifname);
    }
    this.log.info({ containerId: req.containerId, pod: `${req.podNamespace}/${req.podName}` }, 'pod detached');
  }

  /** CNI CHECK: the attachment must exist as `prev` (the runtime's prevResult) describes it. */
  async check(req: PodRequest, prev: CniResult): Promise<void> {
    const fail = (msg: string, details = ''): never => {
      throw new CniError(CniErrorCode.CheckFailed, msg, details);
    };
    const iface = this.d.store.get(req.containerId);
    if (!iface) throw new CniError(CniErrorCode.UnknownContainer, `container ${req.containerId} is not attached`);
    if (this.d.chained) return this.checkChained(req, iface, fail);
    if (iface.ifname !== req.ifname) fail(`container ${req.containerId} is attached as ${iface.ifname}, not ${req.ifname}`);
    const prevIps = (prev.ips ?? []).map((i) => i.address);
    if (!prevIps.includes(iface.ipCidr)) fail('prevResult does not list the pod address', `${iface.ipCidr} not in ${JSON.stringify(prevIps)}`);
    if (iface.ipv6 && !prevIps.includes(iface.ipv6.ipCidr)) fail('prevResult does not list the pod IPv6 address', `${iface.ipv6.ipCidr} not in ${JSON.stringify(prevIps)}`);
    const prevPod = (prev.interfaces ?? []).find((i) => i.name === req.ifname && i.sandbox !== undefined);
    if (prevPod && prevPod.mac !== undefined && prevPod.mac !== iface.mac) fail('prevResult MAC differs', `${prevPod.mac} != ${iface.mac}`);
    const host = await this.d.net.hostLinkState(iface.hostIfName);
    if (!host.exists) fail(`host interface ${iface.hostIfName} is missing`);
    if (!host.up) fail(`host interface ${iface.hostIfName} is down`);
    const ports = await this.d.vs.findPortsByExternalIds({ 'container-id': req.containerId });
    if (!ports.some((p) => p.name === iface.hostIfName)) fail(`OVS port ${iface.hostIfName} is missing`);
    const ofport = await this.d.vs.waitForOfport(iface.hostIfName, { timeoutMs: 1000 }).catch(() => -1);
    if (ofport !== iface.ofport) fail(`OVS port ${iface.hostIfName} has ofport ${ofport}, expected ${iface.ofport}`);
    if (probeNetns(req.netns) !== 'ok') fail(`network namespace ${req.netns} is gone`);
    const inPod = await this.d.net.podInterfaceState(req.netns, req.ifname);
    if (!inPod) return fail(`interface ${req.ifname} is missing in ${req.netns}`);
    if (inPod.mac !== iface.mac) fail(`interface ${req.ifname} has MAC ${String(inPod.mac)}, expected ${iface.mac}`);
    if (!inPod.up) fail(`interface ${req.ifname} is down`);
    if (!inPod.addresses.includes(iface.ipCidr)) fail(`interface ${req.ifname} lacks ${iface.ipCidr}`, `has ${inPod.addresses.join(', ')}`);
    const defaultGateway = isIpv6Only(iface) ? inPod.defaultGatewayV6 : inPod.defaultGateway;
    if (defaultGateway !== iface.gateway) fail(`default route is via ${String(defaultGateway)}, expected ${iface.gateway}`);
    if (iface.ipv6) {
      if (!inPod.addresses.includes(iface.ipv6.ipCidr)) fail(`interface ${req.ifname} lacks ${iface.ipv6.ipCidr}`, `has ${inPod.addresses.join(', ')}`);
      if (inPod.defaultGatewayV6 !== iface.ipv6.gateway) fail(`IPv6 default route is via ${String(inPod.defaultGatewayV6)}, expected ${iface.ipv6.gateway}`);
    }
  }

  /**
   * The OVS side of an ADD: the port with the pod's external_ids, its ofport, the interface store
   * and the pod's flows; each step pushes its undo.
   */
  private async attach(
    iface: PodInterface,
    undo: { step: string; run: () => Promise<unknown> }[],
    setStep: (step: string) => void,
    lap: (name: string) => void = () => undefined,
  ): Promise<void> {
    setStep('ovs-port');
    undo.push({ step: 'ovs-port', run: () => this.d.vs.deletePort(this.d.bridge, iface.hostIfName) });
    // The port number is asked for (ofport_request), so the pod's flows go in while ovs-vswitchd
    // attaches the port instead of after: vswitchd honours the request unless the number is taken
    // (another port added outside the agent), and then the flows are redone with the number it gave.
    const requested = this.freeOfport();
    this.requesting.add(requested);
    try {
      await this.d.vs.ensurePort(this.d.bridge, iface.hostIfName, { externalIds: podExternalIds(iface), ofportRequest: requested });
      lap('ovsPort');
      setStep('flows');
      iface.ofport = requested;
      this.d.store.set(iface);
      undo.push({
        step: 'flows',
        run: async () => {
          this.d.store.delete(iface.containerId);
          await this.d.flows.removePod(iface.podNamespace, iface.podName);
        },
      });
      // `flows`: the flows and the port's attachment side by side; `ofport`: redoing the flows
      // when vswitchd gave another number (0 otherwise).
      const [actual] = await Promise.all([this.d.vs.waitForOfport(iface.hostIfName), this.d.flows.upsertPod(this.localPod(iface))]);
      lap('flows');
      if (actual !== requested) {
        this.log.warn({ port: iface.hostIfName, requested, actual }, 'ovs-vswitchd gave the pod port another number than requested; redoing its flows');
        this.foreign.add(requested);
        iface.ofport = actual;
        this.d.store.set(iface);
        await this.d.flows.upsertPod(this.localPod(iface));
      }
      lap('ofport');
    } finally {
      this.requesting.delete(requested);
    }
  }

  /** Port numbers vswitchd did not give when asked (a port the agent does not know holds them). */
  private readonly foreign = new Set<number>();

  /** The lowest port number no attached pod, ADD in flight, gateway, tunnel or foreign port has (from 3: 1 and 2 are Antrea's tunnel and gateway). */
  private freeOfport(): number {
    const used = new Set<number>([...this.requesting, ...this.foreign, this.d.node.gateway.ofport, ...(this.d.node.tunnel ? [this.d.node.tunnel.ofport] : [])]);
    for (const i of this.d.store.list()) used.add(i.ofport);
    let n = 3;
    while (used.has(n)) n++;
    return n;
  }

  /** Reads the primary plugin's result: the host-side device, the pod's interface and address. */
  private chainedInterface(req: PodRequest, prev: CniResult): PodInterface {
    const bad = (msg: string): never => {
      throw new CniError(CniErrorCode.InvalidNetworkConfig, `prevResult: ${msg}`, JSON.stringify(prev));
    };
    const ifaces = prev.interfaces ?? [];
    const podIdx = ifaces.findIndex((i) => i.sandbox !== undefined && i.name === req.ifname);
    if (podIdx < 0) bad(`no interface ${req.ifname} with a sandbox`);
    const podIf = ifaces[podIdx]!;
    const ip = (prev.ips ?? []).find((i) => !i.address.includes(':') && (i.interface === undefined || i.interface === podIdx));
    if (!ip) bad(`no IPv4 address of interface ${req.ifname}`);
    // The host side: the primary names it in interfaces[] without a sandbox (ptp, EKS do).
    const host = ifaces.find((i) => i.sandbox === undefined && i.name !== req.ifname);
    if (!host) bad('no host-side interface (an interface without sandbox)');
    if (!podIf.mac) bad(`interface ${req.ifname} has no mac`);
    return {
      containerId: req.containerId,
      podName: req.podName,
      podNamespace: req.podNamespace,
      ifname: req.ifname,
      netns: req.netns,
      hostIfName: host!.name,
      ipCidr: ip!.address,
      gateway: ip!.gateway ?? '',
      mac: podIf.mac!.toLowerCase(),
      mtu: podIf.mtu ?? this.d.mtu,
      ofport: -1,
    };
  }

  /** networkPolicyOnly ADD: the primary's device into OVS, the host route onto the gateway. */
  private async addChained(req: PodRequest, prev: CniResult): Promise<CniResult> {
    const existing = this.d.store.get(req.containerId);
    if (existing) return prev;
    if (probeNetns(req.netns) !== 'ok') throw new CniError(CniErrorCode.UnknownContainer, `network namespace ${req.netns} does not exist`);
    const iface = this.chainedInterface(req, prev);
    const podIp = iface.ipCidr.split('/')[0] ?? '';
    const undo: { step: string; run: () => Promise<unknown> }[] = [];
    let step = 'host-link';
    try {
      const host = await this.d.net.hostLinkState(iface.hostIfName);
      if (!host.exists) throw new CniError(CniErrorCode.InvalidEnvironment, `host interface ${iface.hostIfName} from prevResult does not exist`);
      await this.d.net.quietHostLink(iface.hostIfName);
      if (this.d.txOffloadOff) {
        // The userspace datapath does not complete partial checksums: both ends must send full ones.
        await this.d.net.hostTxOffloadOff(iface.hostIfName);
        await this.d.net.podTxOffloadOff(req.netns, req.ifname);
      }
      await this.attach(iface, undo, (s) => (step = s));
      // Last: from here the host reaches the pod through OVS (and its policies).
      step = 'host-route';
      undo.push({ step, run: () => this.d.net.podRoute(podIp, iface.hostIfName) });
      await this.d.net.podRoute(podIp, this.d.node.gateway.name);
      this.log.info({ pod: `${req.podNamespace}/${req.podName}`, ip: iface.ipCidr, device: iface.hostIfName, ofport: iface.ofport }, 'chained pod attached');
      return prev;
    } catch (e) {
      const err = stepError(step, e);
      for (const u of undo.reverse()) {
        await u.run().catch((ue: unknown) => this.log.error({ err: ue, step: u.step, containerId: req.containerId }, 'rollback step failed'));
      }
      throw err;
    }
  }

  /** networkPolicyOnly DEL: out of OVS, the host route off the gateway; the device is the primary's. */
  private async delChained(req: PodRequest): Promise<void> {
    const iface = this.d.store.get(req.containerId);
    const ports = await this.d.vs.findPortsByExternalIds({ 'container-id': req.containerId });
    if (iface) {
      this.d.store.delete(req.containerId);
      await this.d.flows.removePod(iface.podNamespace, iface.podName);
      await this.d.net.deletePodRoute(iface.ipCidr.split('/')[0] ?? '', this.d.node.gateway.name);
    }
    for (const name of new Set([...(iface ? [iface.hostIfName] : []), ...ports.map((p) => p.name)])) await this.d.vs.deletePort(this.d.bridge, name);
    this.log.info({ containerId: req.containerId, pod: `${req.podNamespace}/${req.podName}` }, 'chained pod detached');
  }

  private async checkChained(req: PodRequest, iface: PodInterface, fail: (msg: string, details?: string) => never): Promise<void> {
    const ofport = await this.d.vs.waitForOfport(iface.hostIfName, { timeoutMs: 1000 }).catch(() => -1);
    if (ofport !== iface.ofport) fail(`OVS port ${iface.hostIfName} has ofport ${ofport}, expected ${iface.ofport}`);
    if (probeNetns(req.netns) !== 'ok') fail(`network namespace ${req.netns} is gone`);
    const dev = await this.d.net.routeDevice(iface.ipCidr.split('/')[0] ?? '');
    if (dev !== this.d.node.gateway.name) fail(`host route to ${iface.ipCidr} is on ${String(dev)}, expected ${this.d.node.gateway.name}`);
  }

  /** The pipeline's view of a pod interface. */
  localPod(iface: PodInterface): LocalPod {
    return localPodOf(iface, this.d.chained ?? false, this.d.node.gateway.ipv6 !== undefined);
  }
}

/**
 * The pipeline's view of a pod interface; `chained` as {@link PodNetworkDeps.chained}. `dualStack`:
 * the node has IPv6 (its pods' IPv6 addresses go in; a pod read back from OVSDB with one, after the
 * node lost its IPv6 pod CIDR, keeps its IPv4 address only, which the pipeline takes).
 */
export function localPodOf(iface: PodInterface, chained: boolean, dualStack: boolean): LocalPod {
  return {
    name: iface.podName,
    namespace: iface.podNamespace,
    ofport: iface.ofport,
    // Dual-stack: the IPv6 address too (RFC 5952, as ipam writes it and the pipeline matches it).
    ips: iface.ipv6 && dualStack ? [iface.ipCidr.split('/')[0] ?? '', iface.ipv6.ipCidr.split('/')[0] ?? ''] : [iface.ipCidr.split('/')[0] ?? ''],
    mac: iface.mac,
    // A pool pod's own gateway is answered by the node gateway.
    ...(iface.ipPool !== undefined && !chained ? { gatewayIP: iface.gateway } : {}),
  };
}
