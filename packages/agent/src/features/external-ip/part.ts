/**
 * The external IP part (with a Kubernetes API and `serviceExternalIP` or `egress`): keeps this
 * agent's member Lease, watches Services (ServiceExternalIP), Egresses (Egress), ExternalIPPools,
 * Nodes and the member Leases, and makes this node answer ARP (IPv4) or NDP (IPv6) for exactly the LoadBalancer and
 * Egress IPs it owns: one ownership mechanism for both (controller.ts chooses, announcer.ts puts them
 * on the transport device). A graceful stop takes its IPs off and deletes its Lease, so they move at
 * once; after a crash the keeper (keeper.ts) takes them off at once and they move when the Lease runs
 * out on the other agents' clocks; an agent that cannot renew its Lease lets go of them before that
 * (self-fencing, controller.ts).
 */
import type { Event } from '@switchyard/apis/types';
import { Informer, type KubeClient } from '@switchyard/kube';
import { systemClock, type Part, type PartHealth } from '@switchyard/runtime';
import type { AgentContext } from '../../context';
import { ENDPOINT_SLICES, NODES, SERVICES } from '../../kube-resources';
import type { NodeDatapath } from '../node/part';
import { subnetOfPool } from '../egress/subnet';
import { clearSubnets, readSubnets, SubnetAnnouncer } from '../egress/subnet-announcer';
import { SubnetHost } from '../egress/subnet-host';
import { ProxyArpAnnouncer, readTaken, releaseProxyNeighbour, writeTaken } from './announcer';
import { ExternalIPController, type ExternalIPSink, type ServiceExternalIPInfo } from './controller';
import { ProxyArpKeeper } from './keeper';
import { LocalAddressWatch } from './local-addresses';
import type { Assignment as OwnerAssignment } from './ownership';
import { MemberLease, microTime } from './member-lease';
import { alive, type Assignment } from './ownership';

export const EXTERNAL_IP_POOLS = { group: 'crd.antrea.io', version: 'v1beta1', plural: 'externalippools', kind: 'ExternalIPPool', namespaced: false } as const;
export const EGRESSES = { group: 'crd.antrea.io', version: 'v1beta1', plural: 'egresses', kind: 'Egress', namespaced: false } as const;
export const LEASES = { group: 'coordination.k8s.io', version: 'v1', plural: 'leases', kind: 'Lease', namespaced: true } as const;

/** The Event reason when this node takes a Service's external IP. */
export const IP_TAKEN_REASON = 'ExternalIPAssigned';

export class ServiceExternalIPPart implements Part {
  readonly name = 'external-ip';
  private informers: Informer[] = [];
  lease: MemberLease | undefined;
  controller: ExternalIPController | undefined;
  /** The transport device IPs are announced on (the interface holding the node IP). */
  dev: string | undefined;
  private eventFailure: string | undefined;
  /** Holds the IPs taken, and takes them off if this agent dies (keeper.ts). */
  keeper: ProxyArpKeeper | undefined;
  /** Set by sync when no interface holds the node IP. */
  private noTransport = false;
  private readonly assignedListeners: ((a: readonly OwnerAssignment[]) => void)[] = [];
  /** Set by stop(): the releases of a graceful stop are not news for the listeners. */
  private stopping = false;
  /** The node's local addresses, followed (with `egress`): an Egress IP without a pool is owned by the node holding it. */
  addresses: LocalAddressWatch | undefined;
  /** EgressSeparateSubnet's sink (with `egress` and `egressSeparateSubnet`): Egress IPs of pools with subnetInfo leave through their subnet. */
  subnets: SubnetAnnouncer | undefined;

  constructor(
    private readonly ctx: AgentContext,
    private readonly kube: KubeClient,
    private readonly node: Pick<NodeDatapath, 'transport'>,
  ) {}

  async start(): Promise<void> {
    // Nothing to prime: no flows of its own (the services part installs the ingress IPs' routes and flows).
  }

  async sync(): Promise<void> {
    const { options: o, log } = this.ctx;
    const clock = o.clock ?? systemClock;
    this.dev = this.node.transport?.dev;
    if (this.dev === undefined) {
      this.noTransport = true;
      log.error({ nodeIP: o.nodeIP }, 'no interface holds the node IP: Service external IPs cannot be announced on this node');
      return;
    }
    const dev = this.dev;
    this.keeper = new ProxyArpKeeper({ dev, nodeNetns: this.ctx.net.nodeNetns, logger: log });
    const record = readTaken(o.dataDir);
    if (record && record.dev !== dev) {
      // The transport device changed since the last run: what was taken there goes.
      for (const ip of record.ips) await releaseProxyNeighbour(this.ctx.net, record.dev, ip).catch((err: unknown) => log.warn({ err, ip, dev: record.dev }, 'stale proxy neighbour not removed'));
    }
    this.lease = new MemberLease({
      kube: this.kube, nodeName: o.nodeName, namespace: o.memberLeaseNamespace, renewSeconds: o.memberLeaseRenewSeconds, durationSeconds: o.memberLeaseDurationSeconds, fenceMarginSeconds: o.memberLeaseFenceMarginSeconds, clock, logger: log,
      onRenewed: () => {
        if (this.controller?.frozen) this.controller.schedule();
      },
    });
    const lease = this.lease;
    const plain = new ProxyArpAnnouncer({ net: this.ctx.net, dev, logger: log, keeper: this.keeper });
    let sink: ExternalIPSink = plain;
    let installed = record?.dev === dev ? record.ips : [];
    if (o.egress && o.egressSeparateSubnet) {
      this.subnets = new SubnetAnnouncer({
        dev, dataDir: o.dataDir, plain, host: new SubnetHost(this.ctx.net), logger: log,
        proxyOn: (link) => new ProxyArpAnnouncer({ net: this.ctx.net, dev: link, logger: log }),
        subnetOf: (ip) => {
          const a = this.controller?.assignments.find((x) => x.ip === ip);
          if (!a?.egresses?.length) return undefined;
          return subnetOfPool((this.controller?.pool(a.pool)?.spec as { subnetInfo?: unknown } | undefined)?.subnetInfo, ip);
        },
      });
      sink = this.subnets;
    } else {
      const last = readSubnets(o.dataDir);
      if (last) {
        // EgressSeparateSubnet was on in the last run: its subnets go, and their IPs are taken again plainly.
        const left = new Set(last.ips.map((x) => x.ip));
        await clearSubnets(new SubnetHost(this.ctx.net), last.dev, o.dataDir).catch((err: unknown) => log.warn({ err }, 'Egress subnets of the last run not removed'));
        installed = installed.filter((ip) => !left.has(ip));
      }
    }
    this.controller = new ExternalIPController({
      nodeName: o.nodeName,
      sink,
      clock,
      logger: log,
      selfFenceAt: () => lease.fenceAt(),
      claim: (ips) => lease.claim(ips),
      publishLocal: (ips) => lease.publishLocal(ips),
      followsLocalAddresses: o.egress,
      // A manual IPv6 Egress IP moved here: announced on the transport device, where the fabric is.
      announceLocal: async (ip) => {
        if (!(await this.ctx.net.advertiseProxied(dev, ip))) log.warn({ ip, dev }, 'no switchyard-netns helper: an IPv6 Egress IP without a pool is not announced (neighbours learn this node at their next solicitation)');
      },
      installed,
      onInstalled: (ips) => {
        writeTaken(o.dataDir, { dev, ips: [...ips] });
        // The Egress part names this node in a status only once it answers for the IP: tell it what is taken now.
        if (!this.stopping) for (const l of this.assignedListeners) l(this.controller?.assignments ?? []);
      },
      onTaken: (a) => void this.recordTaken(a),
      onAssigned: (a) => {
        for (const l of this.assignedListeners) l(a);
      },
    });
    const c = this.controller;
    if (o.egress) {
      this.addresses = new LocalAddressWatch({ net: this.ctx.net, clock, logger: log, onAddresses: (ips) => c.setLocalAddresses(ips) });
      this.addresses.start();
    }
    this.lease.start();
    const opts = { clock, logger: log };
    this.informers = [
      ...(o.serviceExternalIP ? [new Informer(this.kube, SERVICES, c.onServiceEvent, opts), new Informer(this.kube, ENDPOINT_SLICES, c.onSliceEvent, opts)] : []),
      ...(o.egress ? [new Informer(this.kube, EGRESSES, c.onEgressEvent, opts)] : []),
      new Informer(this.kube, EXTERNAL_IP_POOLS, c.onPoolEvent, opts),
      new Informer(this.kube, NODES, c.onNodeEvent, opts),
      new Informer(this.kube, LEASES, c.onLeaseEvent, { ...opts, namespace: o.memberLeaseNamespace }),
    ];
    for (const i of this.informers) i.start();
  }

  /** An Event on each Service whose IP this node took (best effort: logged once when the API refuses). */
  private async recordTaken(a: Assignment): Promise<void> {
    const { nodeName } = this.ctx.options;
    const now = microTime((this.ctx.options.clock ?? systemClock).now()).replace(/\.\d+Z$/, 'Z');
    for (const svc of a.services) {
      const [namespace = 'default', name = ''] = svc.split('/', 2);
      const event: Event = {
        apiVersion: 'v1', kind: 'Event',
        metadata: { generateName: `${name}.`, namespace },
        involvedObject: { apiVersion: 'v1', kind: 'Service', namespace, name },
        reason: IP_TAKEN_REASON,
        message: `Service external IP ${a.ip} (ExternalIPPool ${a.pool}) is announced by Node ${nodeName} on ${this.dev ?? ''}`,
        type: 'Normal',
        source: { component: 'switchyard-agent', host: nodeName },
        reportingComponent: 'switchyard-agent',
        reportingInstance: nodeName,
        firstTimestamp: now,
        lastTimestamp: now,
        count: 1,
      };
      try {
        await this.kube.request('POST', `/api/v1/namespaces/${namespace}/events`, event);
        this.eventFailure = undefined;
      } catch (e) {
        const why = e instanceof Error ? e.message : String(e);
        if (this.eventFailure === undefined) this.ctx.log.warn({ err: why, service: svc }, 'Event not recorded');
        this.eventFailure = why;
      }
    }
  }

  /** Resolves once every change seen so far is applied (or has failed). */
  idle(): Promise<void> {
    return this.controller?.idle() ?? Promise.resolve();
  }

  /** Calls `listener` with every IP and its owner after each pass that chose owners (the Egress part). */
  onAssigned(listener: (assignments: readonly OwnerAssignment[]) => void): void {
    this.assignedListeners.push(listener);
    if (this.controller && this.controller.assignments.length > 0) listener(this.controller.assignments);
  }

  /** Every external IP this agent knows of, with its Services and owner (the agent API's `/serviceexternalip`). */
  serviceExternalIPs(): ServiceExternalIPInfo[] {
    return this.controller?.info() ?? [];
  }

  /** The IPs this node answers for now. */
  get owned(): string[] {
    return [...(this.controller?.taken ?? [])].sort();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(this.informers.map((i) => i.stop()));
    this.informers = [];
    await this.addresses?.stop();
    // IPs first, then the Lease: once the Lease is gone another node takes them, and two answering is worse than a moment with none.
    await this.controller?.stop({ release: true }).catch((err: unknown) => this.ctx.log.error({ err }, 'Service external IPs not all released'));
    await this.lease?.stop({ release: true });
    await this.keeper?.close();
  }

  health(): PartHealth {
    const c = this.controller;
    if (this.noTransport) return { ok: false, detail: `no interface holds the node IP ${this.ctx.options.nodeIP}: external IPs cannot be announced` };
    if (!c) return { ok: true, detail: 'not started' };
    const now = (this.ctx.options.clock ?? systemClock).now();
    const members = c.members();
    const owned = c.assignments.filter((a) => c.taken.has(a.ip)).map((a) => `${a.ip} (${[...a.services, ...(a.egresses ?? []).map((e) => `Egress ${e}`)].join(', ')})`);
    const unplaced = c.assignments.filter((a) => a.owner === undefined).map((a) => `${a.ip}: ${a.reason ?? ''}`);
    const held = [
      `owns ${owned.length ? owned.join(', ') : 'no external IP'} on ${this.dev ?? '?'}`,
      `${c.assignments.length} external IPs, ${members.filter((m) => alive(m, now)).length} of ${members.length} nodes alive`,
      ...(unplaced.length ? [`unplaced: ${unplaced.join('; ')}`] : []),
      ...(c.waiting.size ? [`waiting for: ${[...c.waiting].map(([ip, node]) => `${ip} (still claimed by ${node})`).join(', ')}`] : []),
      ...(this.keeper?.restarts ? [`proxy ARP keeper restarted ${this.keeper.restarts} times`] : []),
      ...(c.localManualIPs.length ? [`holds Egress IPs without a pool as local addresses: ${c.localManualIPs.join(', ')}`] : []),
      ...(this.addresses?.monitorDown !== undefined ? [`address monitor down (${this.addresses.monitorDown}): local addresses read every 10 s`] : []),
      ...(c.problems.length ? [`left out: ${c.problems.map((p) => `${p.object} ${p.message}`).join('; ')}`] : []),
      ...(this.subnets?.placements().length ? [`through Egress subnets: ${this.subnets.placements().map((p) => `${p.ip} on ${p.link} table ${p.table ?? '-'}`).join(', ')}`] : []),
      ...(this.subnets?.problems.size ? [`subnetInfo not used: ${[...this.subnets.problems].map(([ip, p]) => `${ip}: ${p.field} ${JSON.stringify(p.value)} ${p.message}`).join('; ')}`] : []),
    ].join('; ');
    const fenced = c.fenced ? '; self-fenced: every external IP released until the Lease is renewed' : '';
    if (this.lease?.lastError !== undefined) return { ok: false, detail: `${held}; member Lease not renewed: ${this.lease.lastError instanceof Error ? this.lease.lastError.message : String(this.lease.lastError)}${fenced}` };
    if (c.lastError !== undefined) return { ok: false, detail: `${held}; last apply failed: ${c.lastError instanceof Error ? c.lastError.message : String(c.lastError)}` };
    return { ok: true, detail: held };
  }
}
