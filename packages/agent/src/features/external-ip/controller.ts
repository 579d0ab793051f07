/**
 * Keeps this node's share of the Service external IPs: from the Services, ExternalIPPools, Nodes
 * and member Leases it is given, chooses every IP's owner (ownership.ts), takes the IPs this node
 * now owns and releases the ones it no longer owns through a sink (the proxy-ARP announcer), and
 * chooses again when the next Lease runs out even if no object changes (timer on the clock).
 */
import type { Node, Service } from '@switchyard/apis/types';
import type { InformerEvent, KubeObject } from '@switchyard/kube';
import { Reconciler, type Clock, type Logger, type TimerHandle } from '@switchyard/runtime';
import { assignOwners, claimedElsewhere, egressExternalIPs, endpointNodes, membersOf, nextExpiry, serviceExternalIPs, type Assignment, type EgressView, type EndpointSliceView, type ExternalIPPoolView, type ExternalIPProblem, type LeaseView, type Member } from './ownership';

/** Where owned IPs are put on and taken off the node. */
export interface ExternalIPSink {
  /** Answer ARP (IPv4) or Neighbor Solicitations (IPv6) for `ip` on this node and announce it (gratuitous ARP, unsolicited Neighbor Advertisement). Idempotent. */
  take(ip: string): Promise<void>;
  /** Stop answering for `ip`. Idempotent. */
  release(ip: string): Promise<void>;
}

export interface ExternalIPControllerOptions {
  nodeName: string;
  sink: ExternalIPSink;
  clock: Clock;
  logger: Logger;
  /**
   * When this agent must have let go of its IPs by its own clock: its last good Lease renewal plus
   * the Lease duration, less a margin for clock skew (MemberLease.fenceAt). The other agents take
   * the IPs at the renewal plus the duration on their clocks, so the two never overlap while the
   * clocks agree within the margin. Undefined before this run's first renewal: nothing moves yet
   * (a restarted agent adopts what it had). From that instant on, while the Lease is not renewed,
   * the API may be unreachable and every Lease would look expired: this node takes nothing and
   * releases everything (self-fencing) until a renewal goes through.
   */
  selfFenceAt: () => number | undefined;
  /**
   * IPs a previous run of the agent left taken (its record): released unless this node still owns
   * them, and taken again if it does (the keeper of a killed agent removed their entries).
   */
  installed?: Iterable<string>;
  /**
   * Publishes the IPs this node answers for (the member Lease's claims): called with the set about
   * to be answered before taking, and with what is left after releasing. A rejection stops the pass.
   */
  claim?: (ips: readonly string[]) => Promise<void>;
  /**
   * Publishes the Egress IPs without a pool this node holds as local addresses (the member Lease's
   * annotation switchyard.io/local-egress-ips), so every agent chooses the same owner. Called each pass; a
   * rejection stops the pass.
   */
  publishLocal?: (ips: readonly string[]) => Promise<void>;
  /**
   * Announces an IPv6 Egress IP without a pool this node has just taken (a local address moved here
   * by hand): one unsolicited Neighbor Advertisement, so the fabric's neighbour caches follow the
   * move without waiting for their next solicitation. Best effort: a failure is logged.
   */
  announceLocal?: (ip: string) => Promise<void>;
  /** The node's local addresses are followed ({@link ExternalIPController.setLocalAddresses}): no pass before the first reading (a restarted owner would let go of its manual IPs for a moment). */
  followsLocalAddresses?: boolean;
  /** Told after each change of the taken set (to keep the record): the IPs taken through the sink (manual IPs are not). */
  onInstalled?: (ips: readonly string[]) => void | Promise<void>;
  /** Told when this node took an IP (the Event on its Services). */
  onTaken?: (a: Assignment) => void;
  /** Told after every pass that chose owners (the Egress part follows where its IPs are). */
  onAssigned?: (assignments: readonly Assignment[]) => void;
}

/** One external IP as the agent API reports it (antctl's `get serviceexternalip` fields). */
export interface ServiceExternalIPInfo {
  serviceName: string;
  namespace: string;
  externalIP: string;
  externalIPPool: string;
  /** The node that owns the IP ('' when none can). */
  assignedNode: string;
}

const keyOf = (o: KubeObject): string => (o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name ?? ''}` : (o.metadata.name ?? ''));

export class ExternalIPController {
  private readonly services = new Map<string, Service>();
  private readonly pools = new Map<string, ExternalIPPoolView>();
  private readonly nodes = new Map<string, Node>();
  private readonly leases = new Map<string, LeaseView>();
  private readonly slices = new Map<string, EndpointSliceView>();
  private readonly egresses = new Map<string, EgressView>();
  private readonly reconciler: Reconciler;
  private expiryTimer: TimerHandle | undefined;
  private fenceTimer: TimerHandle | undefined;
  /** IPs of the previous run's record not yet taken again in this one. */
  private readonly adopted = new Set<string>();
  private stopped = false;
  /** IPs this node answers for now. */
  readonly taken = new Set<string>();
  /** Every external IP with its owner, as last chosen. */
  assignments: Assignment[] = [];
  /** Ingress IPs left out, with why. */
  problems: ExternalIPProblem[] = [];
  /** True while this agent's own Lease is not current (owners are not chosen again meanwhile). */
  frozen = false;
  /** True while this agent has let go of its IPs because its own Lease may have run out for the others. */
  fenced = false;
  /** IPs this node owns but waits for: another live node's Lease still claims them (ip -> that node). */
  waiting = new Map<string, string>();
  /** The node's local IPv4 addresses as last told ({@link setLocalAddresses}); undefined until the first reading. */
  private localAddresses: Set<string> | undefined;
  /** IPs taken as manual Egress IPs (local addresses): nothing of the sink's to undo for them. */
  private readonly manualTaken = new Set<string>();

  constructor(private readonly o: ExternalIPControllerOptions) {
    for (const ip of o.installed ?? []) {
      this.taken.add(ip);
      this.adopted.add(ip);
    }
    this.reconciler = new Reconciler(() => this.apply(), {
      clock: o.clock,
      onError: (err, retryInMs) => o.logger.error({ err, retryInMs }, 'Service external IPs not applied'),
    });
  }

  /** Event handlers of the four informers. */
  readonly onServiceEvent = (e: InformerEvent): void => this.follow(this.services, e);
  readonly onPoolEvent = (e: InformerEvent): void => this.follow(this.pools, e);
  readonly onNodeEvent = (e: InformerEvent): void => this.follow(this.nodes, e);
  readonly onLeaseEvent = (e: InformerEvent): void => this.follow(this.leases, e);
  /** EndpointSlices: where `externalTrafficPolicy: Local` Services have endpoints. */
  readonly onSliceEvent = (e: InformerEvent): void => this.follow(this.slices, e);
  /** Egresses: their IPs are placed like LoadBalancer IPs (one mechanism for both). */
  readonly onEgressEvent = (e: InformerEvent): void => this.follow(this.egresses, e);

  private follow<T>(cache: Map<string, T>, e: InformerEvent): void {
    if (e.type === 'DELETED') cache.delete(keyOf(e.object));
    else cache.set(keyOf(e.object), e.object as unknown as T);
    this.schedule();
  }

  /**
   * The node's local IPv4 and IPv6 addresses (all of them; the address monitor reads them at each change): an
   * Egress IP without a pool is this node's when it is among them. A pass runs when the set changed.
   */
  setLocalAddresses(ips: Iterable<string>): void {
    const next = new Set(ips);
    if (this.localAddresses && next.size === this.localAddresses.size && [...next].every((ip) => this.localAddresses!.has(ip))) return;
    this.localAddresses = next;
    this.schedule();
  }

  /** The manual Egress IPs this node holds now, sorted. */
  get localManualIPs(): string[] {
    return this.assignments.filter((a) => a.manual && this.localAddresses?.has(a.ip)).map((a) => a.ip).sort();
  }

  /** Chooses owners again from the objects held (at once; a burst costs one pass). */
  schedule(): void {
    if (!this.stopped) this.reconciler.schedule();
  }

  /** Resolves once every change seen so far is applied (or has failed). */
  idle(): Promise<void> {
    return this.reconciler.idle();
  }

  get lastError(): unknown {
    return this.reconciler.lastError;
  }

  /** An ExternalIPPool as last seen (the Egress subnet sink reads its `subnetInfo`). */
  pool(name: string): ExternalIPPoolView | undefined {
    return this.pools.get(name);
  }

  /** The members as last seen (Nodes joined with their Leases). */
  members(): Member[] {
    return membersOf([...this.nodes.values()], [...this.leases.values()]);
  }

  private async apply(): Promise<void> {
    const now = this.o.clock.now();
    const members = this.members();
    this.armExpiry(members, now);
    const fenceAt = this.o.selfFenceAt();
    if (fenceAt === undefined) {
      if (!this.frozen) this.o.logger.info({ taken: [...this.taken] }, 'member Lease not renewed yet in this run: external IPs stay where they are until it is');
      this.frozen = true;
      return;
    }
    if (now >= fenceAt) {
      if (!this.fenced) this.o.logger.warn({ taken: [...this.taken], fenceAt: new Date(fenceAt).toISOString() }, 'this agent cannot renew its member Lease: releasing every external IP before the other agents may take them');
      this.frozen = true;
      this.fenced = true;
      await this.releaseAll();
      return;
    }
    this.frozen = false;
    this.fenced = false;
    if (this.o.followsLocalAddresses && this.localAddresses === undefined) return; // setLocalAddresses schedules the pass
    const svc = serviceExternalIPs([...this.services.values()], endpointNodes(this.slices.values()));
    const eg = egressExternalIPs([...this.egresses.values()], svc.ips);
    this.problems = [...svc.problems, ...eg.problems];
    this.assignments = assignOwners([...svc.ips, ...eg.ips], this.pools, members, now, { self: this.o.nodeName, addresses: this.localAddresses ?? new Set() });
    // The manual IPs held here, in the Lease before anything is taken: the other agents choose from it too.
    await this.o.publishLocal?.(this.localManualIPs);
    this.o.onAssigned?.(this.assignments);
    const mine = new Set(this.assignments.filter((a) => a.owner === this.o.nodeName).map((a) => a.ip));
    let changed = false;
    try {
      // Release first: an IP that moved away must stop being answered here before anything else.
      const manualMine = new Set(this.assignments.filter((a) => a.manual && a.owner === this.o.nodeName).map((a) => a.ip));
      for (const ip of [...this.taken]) {
        // Kept when still this node's and of the same kind (an IP whose Egress went from a pool to none, or back, is taken again the other way).
        if (mine.has(ip) && manualMine.has(ip) === this.manualTaken.has(ip)) continue;
        await this.untake(ip);
        this.taken.delete(ip);
        this.adopted.delete(ip);
        changed = true;
        this.o.logger.info({ ip, owner: this.assignments.find((a) => a.ip === ip)?.owner ?? null }, 'external IP released');
      }
      if (changed) await this.o.claim?.([...this.taken]);
      // Take only what no other live node still claims: it answers until it sees this node's Lease, then releases and says so.
      const waiting = new Map<string, string>();
      const toTake = this.assignments.filter((a) => {
        if (a.owner !== this.o.nodeName || (this.taken.has(a.ip) && !this.adopted.has(a.ip))) return false;
        const holder = claimedElsewhere(a.ip, this.o.nodeName, members, now);
        if (holder !== undefined) waiting.set(a.ip, holder);
        return holder === undefined;
      });
      for (const [ip, holder] of waiting) if (this.waiting.get(ip) !== holder) this.o.logger.info({ ip, holder }, 'external IP waits: another live node still claims it');
      this.waiting = waiting;
      if (toTake.length > 0) await this.o.claim?.([...new Set([...this.taken, ...toTake.map((a) => a.ip)])]);
      for (const a of toTake) {
        if (a.manual) {
          // The address is on the node's interface: the kernel answers ARP and NDP for it already. Nothing to put on.
          this.taken.add(a.ip);
          this.manualTaken.add(a.ip);
          this.adopted.delete(a.ip);
          changed = true;
          this.o.logger.info({ ip: a.ip, egresses: a.egresses ?? [], holders: a.holders ?? [this.o.nodeName] }, 'Egress IP without a pool taken: a local address of this node');
          // IPv6: the kernel sends no Neighbor Advertisement for an address added by hand (unless ndisc_notify), so a
          // neighbour would keep the previous holder's MAC until its entry is probed: this node announces it (as an IPv4 administrator's arping -U does).
          if (a.ip.includes(':') && this.o.announceLocal) await this.o.announceLocal(a.ip).catch((err: unknown) => this.o.logger.warn({ err, ip: a.ip }, 'unsolicited Neighbor Advertisement for an Egress IP without a pool not sent: neighbours learn this node at their next solicitation'));
          continue;
        }
        if (this.adopted.has(a.ip)) {
          // Still this node's after a restart: put it on again (idempotent), so the keeper holds it and a removed entry comes back.
          await this.o.sink.take(a.ip);
          this.adopted.delete(a.ip);
          this.o.logger.info({ ip: a.ip }, 'external IP adopted from the previous run');
          continue;
        }
        await this.o.sink.take(a.ip);
        this.taken.add(a.ip);
        changed = true;
        this.o.logger.info({ ip: a.ip, pool: a.pool, services: a.services, egresses: a.egresses ?? [] }, 'external IP taken');
        this.o.onTaken?.(a);
      }
    } finally {
      if (changed) await this.o.onInstalled?.(this.sinkTaken());
    }
    this.armFence(fenceAt);
  }

  /** The IPs taken through the sink (the record's): every taken IP but the manual ones. */
  private sinkTaken(): string[] {
    return [...this.taken].filter((ip) => !this.manualTaken.has(ip)).sort();
  }

  /** Lets go of one IP: the sink's entry, or only the bookkeeping of a manual IP (its address is the user's). */
  private async untake(ip: string): Promise<void> {
    if (this.manualTaken.delete(ip)) return;
    await this.o.sink.release(ip);
  }

  /** Takes every IP off the node (self-fencing, a graceful stop). */
  private async releaseAll(): Promise<void> {
    if (this.taken.size === 0) return;
    try {
      for (const ip of [...this.taken]) {
        await this.untake(ip);
        this.taken.delete(ip);
        this.adopted.delete(ip);
        this.o.logger.info({ ip }, 'external IP released');
      }
    } finally {
      await this.o.onInstalled?.(this.sinkTaken());
    }
    // Best effort: a fenced agent usually cannot write its Lease, and a stopping one deletes it.
    await this.o.claim?.([...this.taken]).catch(() => undefined);
  }

  /**
   * A pass at the self-fencing deadline while this node holds IPs: if no renewal moved the deadline
   * by then, the pass releases them. A renewal that did just moves the timer on, with no pass.
   */
  private armFence(fenceAt: number): void {
    this.fenceTimer?.cancel();
    this.fenceTimer = undefined;
    if (this.stopped || this.taken.size === 0) return;
    this.fenceTimer = this.o.clock.setTimeout(() => {
      const next = this.o.selfFenceAt();
      if (next === undefined || this.o.clock.now() >= next) this.schedule();
      else this.armFence(next);
    }, Math.max(0, fenceAt - this.o.clock.now()));
  }

  /** A pass when the earliest live Lease runs out: its node's IPs move then, with no object changing. */
  private armExpiry(members: readonly Member[], now: number): void {
    this.expiryTimer?.cancel();
    this.expiryTimer = undefined;
    const next = nextExpiry(members, now);
    if (next === undefined || this.stopped) return;
    this.expiryTimer = this.o.clock.setTimeout(() => this.schedule(), next - now + 1);
  }

  /** What the agent API reports: every external IP with its Services and owner. */
  info(): ServiceExternalIPInfo[] {
    return this.assignments.flatMap((a) =>
      a.services.map((s) => {
        const [namespace = '', serviceName = ''] = s.split('/', 2);
        return { serviceName, namespace, externalIP: a.ip, externalIPPool: a.pool, assignedNode: a.owner ?? '' };
      }),
    );
  }

  /**
   * Stops choosing owners; with `release`, takes every IP off the node (a graceful stop: the other
   * nodes take them over as soon as this agent's Lease is gone).
   */
  async stop(opts: { release: boolean }): Promise<void> {
    this.stopped = true;
    this.expiryTimer?.cancel();
    this.fenceTimer?.cancel();
    await this.reconciler.stop();
    if (opts.release) await this.releaseAll();
  }
}
