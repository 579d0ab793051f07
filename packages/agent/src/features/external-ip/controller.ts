/**
 * Keeps this node's share of the Service external IPs: from the Services, ExternalIPPools, Nodes
 * and member Leases it is given, chooses every IP's owner (ownership.ts), takes the IPs this node
 * now owns and releases the ones it no longer owns through a sink (the proxy-ARP announcer), and
 * chooses again when the next Lease runs out even if no object changes (timer on the clock).
 */
import type { Node, Service } from '@switchyard/apis/types';
import type { InformerEvent, KubeObject } from '@switchyard/kube';
import { Reconciler, type Clock, type Logger, type TimerHandle } from '@switchyard/runtime';
import { assignOwners, egressExternalIPs, endpointNodes, heldElsewhere, membersOf, nextExpiry, serviceExternalIPs, type Assignment, type EgressView, type EndpointSliceView, type ExternalIPPoolView, type ExternalIPProblem, type LeaseView, type Member } from './ownership';

/** Where owned IPs are put on and taken off the node. */
export interface ExternalIPSink {
  /** Answer ARP for `ip` on this node and announce it (gratuitous ARP). Idempotent. */
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
   * Whether this agent's own Lease is current (its last renewal within the Lease duration). While it
   * is not, the API may be unreachable and every Lease would look expired: nothing moves until it is.
   */
  selfAlive: (now: number) => boolean;
  /** IPs a previous run of the agent left taken (its record): released unless this node still owns them. */
  installed?: Iterable<string>;
  /** Told after each change of the taken set (to keep the record). */
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
  private stopped = false;
  /** IPs this node answers for now. */
  readonly taken = new Set<string>();
  /**
   * IPs a previous run left on the node (its record) that this run has not announced: released when
   * another node owns them, taken again (the gratuitous ARP sent again) when this one does. Kept
   * apart from {@link taken} so a restarted owner announces its IPs: the fabric's caches may point
   * at the node that held them meanwhile, and that node no longer answers.
   */
  private readonly leftover = new Set<string>();
  /** Every external IP with its owner, as last chosen. */
  assignments: Assignment[] = [];
  /** Ingress IPs left out, with why. */
  problems: ExternalIPProblem[] = [];
  /** True while this agent's own Lease is not current (owners are not chosen again meanwhile). */
  frozen = false;
  /** IPs this node owns but does not take yet: another node's live Lease still lists them (the handover). */
  waiting: { ip: string; holder: string }[] = [];

  constructor(private readonly o: ExternalIPControllerOptions) {
    for (const ip of o.installed ?? []) this.leftover.add(ip);
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

  /** The members as last seen (Nodes joined with their Leases). */
  members(): Member[] {
    return membersOf([...this.nodes.values()], [...this.leases.values()]);
  }

  private async apply(): Promise<void> {
    const now = this.o.clock.now();
    const members = this.members();
    this.armExpiry(members, now);
    if (!this.o.selfAlive(now)) {
      if (!this.frozen) this.o.logger.warn({ taken: [...this.taken] }, 'this agent cannot renew its member Lease: external IPs stay where they are until it can');
      this.frozen = true;
      return;
    }
    this.frozen = false;
    const svc = serviceExternalIPs([...this.services.values()], endpointNodes(this.slices.values()));
    const eg = egressExternalIPs([...this.egresses.values()], svc.ips);
    this.problems = [...svc.problems, ...eg.problems];
    this.assignments = assignOwners([...svc.ips, ...eg.ips], this.pools, members, now);
    this.o.onAssigned?.(this.assignments);
    const mine = new Set(this.assignments.filter((a) => a.owner === this.o.nodeName).map((a) => a.ip));
    let changed = false;
    try {
      // Release first: an IP that moved away must stop being answered here before anything else.
      for (const ip of new Set([...this.taken, ...this.leftover])) {
        if (mine.has(ip)) continue;
        await this.o.sink.release(ip);
        this.taken.delete(ip);
        this.leftover.delete(ip);
        changed = true;
        this.o.logger.info({ ip, owner: this.assignments.find((a) => a.ip === ip)?.owner ?? null }, 'external IP released');
      }
      const waited = new Set(this.waiting.map((w) => `${w.ip} ${w.holder}`));
      this.waiting = [];
      for (const a of this.assignments) {
        if (a.owner !== this.o.nodeName || this.taken.has(a.ip)) continue;
        // The old owner's agent still runs (its Node NotReady, say) and says it answers: it lets
        // go at the same event; this node takes the IP at its Lease's update, never both at once.
        const holder = heldElsewhere(a.ip, this.o.nodeName, members, now);
        if (holder !== undefined) {
          this.waiting.push({ ip: a.ip, holder });
          if (!waited.has(`${a.ip} ${holder}`)) this.o.logger.info({ ip: a.ip, holder }, 'external IP owned here: waiting for the old owner to release it');
          continue;
        }
        await this.o.sink.take(a.ip);
        this.taken.add(a.ip);
        this.leftover.delete(a.ip);
        changed = true;
        this.o.logger.info({ ip: a.ip, pool: a.pool, services: a.services, egresses: a.egresses ?? [] }, 'external IP taken');
        this.o.onTaken?.(a);
      }
    } finally {
      if (changed) await this.o.onInstalled?.(this.onNode());
    }
  }

  /** A pass when the earliest live Lease runs out: its node's IPs move then, with no object changing. */
  private armExpiry(members: readonly Member[], now: number): void {
    this.expiryTimer?.cancel();
    this.expiryTimer = undefined;
    // Also when a Lease listing IPs runs out (a NotReady holder's agent gone): its word lapses then.
    const lapses = members.filter((m) => m.holds.length > 0 && m.leaseExpiresAt !== undefined && m.leaseExpiresAt > now).map((m) => m.leaseExpiresAt!);
    const next = [nextExpiry(members, now), ...lapses].reduce<number | undefined>((a, b) => (b === undefined ? a : a === undefined ? b : Math.min(a, b)), undefined);
    if (next === undefined || this.stopped) return;
    this.expiryTimer = this.o.clock.setTimeout(() => this.schedule(), next - now + 1);
  }

  /** Every IP on the node: taken by this run or left by the previous one, sorted (the record). */
  private onNode(): string[] {
    return [...new Set([...this.taken, ...this.leftover])].sort();
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
    await this.reconciler.stop();
    if (!opts.release || this.onNode().length === 0) return;
    for (const ip of this.onNode()) {
      await this.o.sink.release(ip);
      this.taken.delete(ip);
      this.leftover.delete(ip);
    }
    await this.o.onInstalled?.([]);
  }
}
