// The `serviceExternalIP` part (feature gate ServiceExternalIP): external IPs from ExternalIPPools
// for Services of type LoadBalancer annotated with their pool (one per IP family of the Service),
// written to status.loadBalancer.ingress, kept across restarts (taken back from the Services'
// statuses), with each pool's status.usage.
import type { ExternalIPPool, ObjectReference, Service } from '@switchyard/apis/types';
import { parseIp, type Ip } from '@switchyard/ipam/cidr';
import { KubeRequestError, type InformerEvent } from '@switchyard/kube';
import { Reconciler, type PartHealth } from '@switchyard/runtime';
import type { ControllerContext } from '../context';
import { EventRecorder, type EventNote } from '../events';
import { ExternalIPAllocator, usableRanges, type ExternalIPHolding, type ExternalIPRefusal, type ExternalIPResult } from '../external-ip-allocator';
import { poolRanges } from '../external-ip-pool';
import { fieldMessage } from '../admission';
import type { Watch, WatchingPart } from '../informers';
import { EXTERNAL_IP_POOLS, SERVICES } from '../resources';
import {
  allocatedNote,
  externalIPRequest,
  familyName,
  familyNumber,
  familyPlan,
  ingressIPs,
  loadBalancerIPFamilyNote,
  malformedIPNote,
  parseServiceHolderKey,
  poolDeletedNote,
  refusalNote,
  releasedNote,
  serviceHolderKey,
  type ExternalIPRequest,
  type IPFamilyName,
} from '../service-external-ip';
import { notRunning, type PartState } from './lifecycle';

/** Attempts of one status read-modify-write that keeps meeting 409 Conflict. */
const CONFLICT_ATTEMPTS = 10;
/** Event topic of a Service's external IPs as a whole (pool, loadBalancerIP, families; one Event per change of what it is told). */
const TOPIC = 'externalIP';
/** Event topic of a Service's external IP of one family. */
const familyTopic = (f: IPFamilyName): string => `${TOPIC}/${f}`;
const sameList = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);
const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));
const keyOf = (o: { metadata: { namespace?: string; name?: string } }): string => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
const servicePath = (key: string, sub = ''): string => {
  const [ns, name] = key.split('/') as [string, string];
  return `/api/v1/namespaces/${encodeURIComponent(ns)}/services/${encodeURIComponent(name)}${sub}`;
};
const poolPath = (name: string, sub = ''): string => `/apis/crd.antrea.io/v1beta1/externalippools/${encodeURIComponent(name)}${sub}`;

function serviceRef(svc: Service): ObjectReference {
  return { apiVersion: 'v1', kind: 'Service', name: svc.metadata.name ?? '', namespace: svc.metadata.namespace ?? '', ...(svc.metadata.uid ? { uid: svc.metadata.uid } : {}), ...(svc.metadata.resourceVersion ? { resourceVersion: svc.metadata.resourceVersion } : {}) };
}
function poolRef(pool: ExternalIPPool): ObjectReference {
  return { apiVersion: 'crd.antrea.io/v1beta1', kind: 'ExternalIPPool', name: pool.metadata.name ?? '', ...(pool.metadata.uid ? { uid: pool.metadata.uid } : {}) };
}
/** Oldest first, then by key: the first Service asking for an IP keeps it. */
const byAge = (a: Service, b: Service): number => (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? '') || keyOf(a).localeCompare(keyOf(b));
/** What one pass decides for one Service: its ingress IPs in family order, and what it is told. */
interface Settled {
  ips: string[];
  notes: { topic: string; note: EventNote }[];
}
function parsed(text: string | undefined): Ip | undefined {
  if (text === undefined) return undefined;
  try {
    return parseIp(text);
  } catch {
    return undefined;
  }
}

/**
 * Antrea's ServiceExternalIP controller. Every change runs one pass over the annotated Services
 * (runtime's `Reconciler`, retried with backoff on the controller's clock when a write fails):
 * releases first (deleted Services, type or annotation changed, pool deleted, loadBalancerIP
 * changed), then the Services still holding their IP, then the pending ones oldest first. What a
 * Service is told goes to `status.loadBalancer.ingress` and, when it changes, to an Event.
 */
export class ServiceExternalIP implements WatchingPart {
  readonly name = 'serviceExternalIP';
  readonly watches: readonly Watch[];
  /** Shared with the Egress part when it is on (one IP is never given to a Service and an Egress). */
  readonly allocator: ExternalIPAllocator;
  readonly events: EventRecorder;
  private readonly reconciler: Reconciler;
  /** Pool name -> the spec taken in (ranges are parsed again only when it changes). */
  private readonly poolSpecs = new Map<string, string>();
  private pending = 0;
  /** Events decided outside a pass (a pool's bad ranges seen at start), written by the next pass. */
  private readonly queued: EventTask[] = [];
  private state: PartState = 'new';

  constructor(private readonly ctx: ControllerContext, allocator = new ExternalIPAllocator()) {
    this.allocator = allocator;
    this.events = new EventRecorder({ kube: ctx.kube, clock: ctx.clock, log: ctx.log, component: 'switchyard-controller', ...(ctx.options.podRef ? { instance: ctx.options.podRef.name } : {}) });
    this.reconciler = new Reconciler(() => this.apply(), {
      clock: ctx.clock,
      onError: (e, retryInMs) => ctx.log.warn({ err: message(e), retryInMs }, 'service external IP pass failed'),
    });
    this.watches = [
      { resource: SERVICES, onEvent: (e) => this.onEvent(e, true) },
      { resource: EXTERNAL_IP_POOLS, onEvent: (e) => this.onEvent(e, false) },
    ];
    ctx.metrics.register(
      'switchyard_controller_service_external_ips',
      'gauge',
      'Services of type LoadBalancer asking for an external IP, by state',
      () => [
        { labels: { state: 'allocated' }, value: new Set(this.allocator.holdings('Service').map((h) => parseServiceHolderKey(h.service).service)).size },
        { labels: { state: 'pending' }, value: this.pending },
      ],
      ['state'],
    );
  }

  /** After the informers part: the IPs in the Services' statuses are taken back before any is handed out. */
  async start(): Promise<void> {
    this.state = 'running';
    this.syncPools();
    let restored = 0;
    for (const svc of this.services().sort(byAge)) {
      const req = externalIPRequest(svc);
      if (!req) continue;
      const asked = parsed(req.ip);
      if (req.ip !== undefined && asked === undefined) continue;
      for (const ip of ingressIPs(svc).map(parsed)) {
        // An IP of a family the Service no longer has, or not its loadBalancerIP, is not taken back.
        if (!ip || !req.families.includes(familyName(ip.family)) || (asked !== undefined && asked.family === ip.family && !asked.equals(ip))) continue;
        const holder = serviceHolderKey(keyOf(svc), familyName(ip.family));
        if (this.allocator.held(holder)) continue;
        const r = this.allocator.claim(holder, req.pool, ip, req.sharable);
        if (r.ok) restored++;
        else this.ctx.log.info({ service: keyOf(svc), ip: ip.toString(), pool: req.pool, reason: r.reason }, 'external IP in status not restored');
      }
    }
    this.ctx.log.info({ restored, pools: this.poolSpecs.size }, 'service external IP controller started');
    this.reconciler.schedule();
  }

  async stop(): Promise<void> {
    this.state = 'stopped';
    await this.reconciler.stop();
  }

  /** Resolves when the queued work is done. */
  idle(): Promise<void> {
    return this.reconciler.idle();
  }

  health(): PartHealth {
    const off = notRunning(this.state);
    if (off) return off;
    const detail = `${this.allocator.holdings('Service').length} external IPs, ${this.pending} pending, ${this.poolSpecs.size} pools`;
    if (this.reconciler.failing) return { ok: false, detail: `${detail}; last pass failed: ${message(this.reconciler.lastError)}` };
    return { ok: true, detail };
  }

  private onEvent(e: InformerEvent, service: boolean): void {
    if (this.state !== 'running') return;
    // What a deleted Service was told is forgotten (its Events go with it).
    if (e.type === 'DELETED' && service && e.object.metadata.uid) this.events.clear({ uid: e.object.metadata.uid });
    this.reconciler.schedule();
  }

  private services(): Service[] {
    return [...this.ctx.informers.cache(SERVICES).values()] as unknown as Service[];
  }

  private pools(): ExternalIPPool[] {
    return [...this.ctx.informers.cache(EXTERNAL_IP_POOLS).values()] as unknown as ExternalIPPool[];
  }

  /** The allocator's pools from the cache; a pool with ranges that do not parse gets an Event and hands out the rest. */
  private syncPools(): void {
    const seen = new Set<string>();
    for (const pool of this.pools()) {
      const name = pool.metadata.name ?? '';
      seen.add(name);
      const spec = JSON.stringify(pool.spec?.ipRanges ?? []);
      if (this.poolSpecs.get(name) === spec) continue;
      this.poolSpecs.set(name, spec);
      const { ranges, errors } = poolRanges(pool.spec);
      this.allocator.setPool(name, usableRanges(ranges));
      if (errors.length > 0) this.queued.push({ ref: poolRef(pool), topic: 'ranges', note: { type: 'Warning', reason: 'InvalidIPRange', message: `${errors.map(fieldMessage).join('; ')} (the other ranges are used)` } });
    }
    for (const name of [...this.poolSpecs.keys()]) {
      if (seen.has(name)) continue;
      this.poolSpecs.delete(name);
      this.allocator.removePool(name);
    }
  }

  /** One pass: pools, releases, kept IPs, pending Services oldest first, then statuses, Events and usage. */
  private async apply(): Promise<void> {
    if (this.state !== 'running') return;
    this.syncPools();
    const events = this.queued.splice(0);
    const byKey = new Map(this.services().map((s) => [keyOf(s), s]));
    const ingress = new Map<string, string[]>();
    // Releases: what a Service no longer asks for, or can no longer have.
    for (const h of this.allocator.holdings('Service')) {
      const { service, family } = parseServiceHolderKey(h.service);
      const svc = byKey.get(service);
      const req = svc && externalIPRequest(svc);
      const why = this.releaseReason(h, family, req);
      if (why === undefined) continue;
      this.allocator.release(h.service);
      this.ctx.log.info({ service, ip: h.ip.toString(), pool: h.pool, why }, 'external IP released');
      if (!svc) continue;
      if (!this.allocator.hasPool(h.pool)) events.push({ ref: serviceRef(svc), topic: familyTopic(family), note: poolDeletedNote(h) });
      else events.push({ ref: serviceRef(svc), topic: familyTopic(family), note: releasedNote(h, why) });
      if (!req) ingress.set(service, []);
    }
    // Kept, then pending (oldest first).
    let pending = 0;
    for (const svc of [...byKey.values()].sort(byAge)) {
      const req = externalIPRequest(svc);
      if (!req) continue;
      const key = keyOf(svc);
      const ref = serviceRef(svc);
      const settled = this.settle(key, req);
      if (settled.ips.length === 0) pending++;
      ingress.set(key, settled.ips);
      // A Service-wide problem that went away may come back: it is told again then.
      if (!settled.notes.some((n) => n.topic === TOPIC)) this.events.clear(ref, TOPIC);
      for (const n of settled.notes) events.push({ ref, ...n });
    }
    this.pending = pending;
    const failures: unknown[] = [];
    const attempt = async (what: () => Promise<void>): Promise<void> => what().catch((e: unknown) => void failures.push(e));
    for (const [key, ips] of ingress) {
      const svc = byKey.get(key);
      if (svc && !sameList(ingressIPs(svc), ips)) await attempt(() => this.writeIngress(key, svc.metadata.uid, ips));
    }
    for (const t of events) await this.events.report(t.ref, t.topic, t.note);
    for (const pool of this.pools()) await attempt(() => this.writeUsage(pool));
    if (failures.length > 0) throw new AggregateError(failures, `${failures.length} status writes failed: ${failures.map(message).join('; ')}`);
  }

  /** Why a holding (of `family`) goes, or undefined when it stays. */
  private releaseReason(h: ExternalIPHolding, family: IPFamilyName, req: ExternalIPRequest | undefined): string | undefined {
    if (!req) return 'the Service is gone, is no longer of type LoadBalancer or no longer names a pool';
    if (!req.families.includes(family)) return `spec.ipFamilies is now ${JSON.stringify(req.families)}`;
    if (!this.allocator.hasPool(h.pool)) return `ExternalIPPool ${h.pool} was deleted`;
    if (req.pool !== h.pool) return `the Service now asks for ExternalIPPool ${req.pool}`;
    if (!this.allocator.contains(h.pool, h.ip)) return `ExternalIPPool ${h.pool} no longer holds it`;
    if (req.ip !== undefined) {
      // A loadBalancerIP names the IP of its family; the other family's IP is the pool's choice.
      const asked = parsed(req.ip);
      if (!asked || !req.families.includes(familyName(asked.family)) || (asked.family === h.ip.family && !asked.equals(h.ip))) return `spec.loadBalancerIP is now ${req.ip}`;
    }
    return undefined;
  }

  /**
   * The IPs of one Service after the releases: kept ones, then one allocated per family still
   * without (the loadBalancerIP for its family). `RequireDualStack` gets every family or none.
   */
  private settle(key: string, req: ExternalIPRequest): Settled {
    const notes: Settled['notes'] = [];
    if (!this.allocator.hasPool(req.pool)) return { ips: [], notes: [{ topic: TOPIC, note: refusalNote({ reason: 'PoolNotFound', pool: req.pool }) }] };
    const asked = parsed(req.ip);
    if (req.ip !== undefined && !asked) return { ips: [], notes: [{ topic: TOPIC, note: malformedIPNote(req.ip) }] };
    if (asked && !req.families.includes(familyName(asked.family))) return { ips: [], notes: [{ topic: TOPIC, note: loadBalancerIPFamilyNote(asked, req) }] };
    const plan = familyPlan(req, this.allocator.families(req.pool));
    if (plan.note) notes.push({ topic: TOPIC, note: plan.note });
    const got = new Map<IPFamilyName, ExternalIPHolding>();
    const fresh = new Set<IPFamilyName>();
    const failed: { family: IPFamilyName; refusal: ExternalIPRefusal }[] = [];
    for (const f of plan.families) {
      const holder = serviceHolderKey(key, f);
      const held = this.allocator.held(holder);
      if (held) {
        got.set(f, held.sharable === req.sharable ? held : this.reshare(held, req.sharable));
        continue;
      }
      const r: ExternalIPResult = asked && familyName(asked.family) === f ? this.allocator.claim(holder, req.pool, asked, req.sharable) : this.allocator.allocate(holder, req.pool, req.sharable, 'Service', familyNumber(f));
      if (!r.ok) {
        failed.push({ family: f, refusal: r });
        continue;
      }
      got.set(f, r.holding);
      fresh.add(f);
    }
    // RequireDualStack: one family without an IP leaves the Service with none (the pool's other one is not kept from others).
    const keep = req.policy === 'RequireDualStack' && (failed.length > 0 || plan.families.length < req.families.length) ? [] : plan.families;
    const holds = keep.filter((f) => got.has(f));
    for (const { family, refusal } of failed) notes.push({ topic: familyTopic(family), note: refusalNote(refusal, holds) });
    for (const f of req.families) {
      if (keep.includes(f)) continue;
      const h = this.allocator.release(serviceHolderKey(key, f));
      if (!h || fresh.has(f)) continue;
      const without = req.families.filter((x) => !keep.includes(x) && !got.has(x));
      notes.push({ topic: familyTopic(f), note: releasedNote(h, `spec.ipFamilyPolicy is ${req.policy} and the Service has no ${without.join(' or ')} external IP`) });
    }
    for (const f of keep) {
      const h = got.get(f);
      if (!h || !fresh.has(f)) continue;
      notes.push({ topic: familyTopic(f), note: allocatedNote(h) });
      this.ctx.log.info({ service: key, ip: h.ip.toString(), pool: h.pool }, 'external IP allocated');
    }
    return { ips: keep.flatMap((f) => { const h = got.get(f); return h ? [h.ip.toString()] : []; }), notes };
  }

  /** The holding with the Service's sharing as it now asks. */
  private reshare(h: ExternalIPHolding, sharable: boolean): ExternalIPHolding {
    const r = this.allocator.claim(h.service, h.pool, h.ip, sharable);
    return r.ok ? r.holding : h;
  }

  /** status.loadBalancer.ingress of one Service: `[{ip}, ...]`, or none; over its resourceVersion, again on 409. */
  private async writeIngress(key: string, uid: string | undefined, ips: string[]): Promise<void> {
    for (let i = 0; ; i++) {
      let fresh: Service;
      try {
        fresh = await this.ctx.kube.request<Service>('GET', servicePath(key));
      } catch (e) {
        if (e instanceof KubeRequestError && e.status === 404) return;
        throw e;
      }
      if (uid !== undefined && fresh.metadata.uid !== uid) return;
      const current = fresh.status?.loadBalancer?.ingress ?? [];
      if (sameList(current.map((x) => x.ip ?? ''), ips)) return;
      // Other fields of an entry for the same IP (hostname, ipMode) are kept.
      const loadBalancer = ips.length === 0 ? {} : { ingress: ips.map((ip) => ({ ...current.find((x) => x.ip === ip), ip })) };
      try {
        await this.ctx.kube.request('PUT', servicePath(key, '/status'), { ...fresh, status: { ...fresh.status, loadBalancer } });
        return;
      } catch (e) {
        if (e instanceof KubeRequestError && e.status === 409 && i + 1 < CONFLICT_ATTEMPTS) continue;
        throw e;
      }
    }
  }

  /** status.usage of one pool when it differs from what the allocator holds. */
  private async writeUsage(pool: ExternalIPPool): Promise<void> {
    const name = pool.metadata.name ?? '';
    if (!this.allocator.hasPool(name)) return;
    const usage = this.allocator.usage(name);
    if (pool.status?.usage?.total === usage.total && pool.status.usage.used === usage.used) return;
    for (let i = 0; ; i++) {
      let fresh: ExternalIPPool;
      try {
        fresh = await this.ctx.kube.request<ExternalIPPool>('GET', poolPath(name));
      } catch (e) {
        if (e instanceof KubeRequestError && e.status === 404) return;
        throw e;
      }
      const u = fresh.status?.usage;
      if (u?.total === usage.total && u.used === usage.used) return;
      try {
        await this.ctx.kube.request('PUT', poolPath(name, '/status'), { ...fresh, status: { ...fresh.status, usage } });
        return;
      } catch (e) {
        if (e instanceof KubeRequestError && e.status === 409 && i + 1 < CONFLICT_ATTEMPTS) continue;
        throw e;
      }
    }
  }
}

/** An Event a pass decided on, written after the statuses. */
interface EventTask {
  ref: ObjectReference;
  topic: string;
  note: EventNote;
}
