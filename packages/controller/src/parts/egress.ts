// The `egress` part (feature gate Egress): an IP for each Egress that names an ExternalIPPool, from
// the allocator it shares with ServiceExternalIP (an IP is never given to a Service and an Egress,
// nor to two Egresses), written to spec.egressIP as Antrea does, with the IPAllocated condition and
// an Event naming the field of each problem; kept across restarts (taken back from the specs).
import type { Condition, Egress, ExternalIPPool, ObjectReference } from '@switchyard/apis/types';
import { parseIp, type Ip } from '@switchyard/ipam/cidr';
import { KubeRequestError, type InformerEvent } from '@switchyard/kube';
import { Reconciler, type PartHealth } from '@switchyard/runtime';
import type { ControllerContext } from '../context';
import { egressAllocatedNote, egressIPSlots, egressPoolFamilyErrors, egressRefusalNote, invalidEgressNote, manualEgressDecisions, validateEgress, type EgressIPSlot, type ManualEgressDecision } from '../egress';
import { EventRecorder, type EventNote } from '../events';
import { egressHolderKey, usableRanges, type ExternalIPAllocator, type ExternalIPHolding } from '../external-ip-allocator';
import { poolRanges, subnetInfoErrors } from '../external-ip-pool';
import type { Watch, WatchingPart } from '../informers';
import { EGRESSES, EXTERNAL_IP_POOLS } from '../resources';
import { notRunning, type PartState } from './lifecycle';

const CONFLICT_ATTEMPTS = 10;
const TOPIC = 'egressIP';
const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));
const egressPath = (name: string, sub = ''): string => `/apis/crd.antrea.io/v1beta1/egresses/${encodeURIComponent(name)}${sub}`;
const nameOf = (o: { metadata: { name?: string } }): string => o.metadata.name ?? '';
const byAge = (a: Egress, b: Egress): number => (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? '') || nameOf(a).localeCompare(nameOf(b));
const rfc3339 = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

function egressRef(eg: Egress): ObjectReference {
  return { apiVersion: 'crd.antrea.io/v1beta1', kind: 'Egress', name: nameOf(eg), ...(eg.metadata.uid ? { uid: eg.metadata.uid } : {}), ...(eg.metadata.resourceVersion ? { resourceVersion: eg.metadata.resourceVersion } : {}) };
}
function parsed(text: string | undefined): Ip | undefined {
  if (text === undefined || text === '') return undefined;
  try {
    return parseIp(text);
  } catch {
    return undefined;
  }
}

/** What one pass decided for one Egress. */
interface EgressOutcome {
  /** The IPs to write to the spec, by slot (undefined: leave the spec as it is). */
  ips?: string[];
  /** The IPAllocated condition (undefined: the Egress asks for no IP, no condition). */
  allocated?: Pick<Condition, 'status' | 'reason' | 'message'>;
  /** A manual IP (no pool, Antrea's manual mode): no IPAllocated condition, one left by an earlier pass goes. */
  manual?: true;
}

/**
 * Antrea's Egress controller, IP side. Each change runs one pass (runtime's `Reconciler`, retried on
 * the controller's clock when a write fails): releases first (Egress deleted, pool changed or gone,
 * IP edited), then the Egresses oldest first. Which pods an Egress selects is the egressGroups part's; which node owns its
 * IP the agents decide (docs/egress.md).
 */
export class EgressController implements WatchingPart {
  readonly name = 'egress';
  readonly watches: readonly Watch[];
  readonly events: EventRecorder;
  private readonly reconciler: Reconciler;
  private readonly poolSpecs = new Map<string, string>();
  private state: PartState = 'new';
  /** Pools whose subnetInfo the nodes cannot use (EgressSeparateSubnet), with the field errors. */
  private readonly badSubnets = new Map<string, string>();
  /** Egresses without an IP after the last pass, with why (health). */
  pending = new Map<string, string>();
  /** Egresses without a pool whose IP is usable (manual mode), name -> IP (health). */
  manual = new Map<string, string>();

  constructor(private readonly ctx: ControllerContext, readonly allocator: ExternalIPAllocator) {
    this.events = new EventRecorder({ kube: ctx.kube, clock: ctx.clock, log: ctx.log, component: 'switchyard-controller', ...(ctx.options.podRef ? { instance: ctx.options.podRef.name } : {}) });
    this.reconciler = new Reconciler(() => this.apply(), { clock: ctx.clock, onError: (e, retryInMs) => ctx.log.warn({ err: message(e), retryInMs }, 'egress pass failed') });
    this.watches = [
      { resource: EGRESSES, onEvent: (e) => this.onEvent(e) },
      { resource: EXTERNAL_IP_POOLS, onEvent: (e) => this.onEvent(e) },
      // Members and their overlaps are the egressGroups part's (egress-groups.ts).
    ];
    ctx.metrics.register('switchyard_controller_egresses', 'gauge', 'Egresses naming an ExternalIPPool, by state', () => [
      { labels: { state: 'allocated' }, value: new Set(this.allocator.holdings('Egress').map((h) => h.service.replace(/#\d+$/, ''))).size },
      { labels: { state: 'pending' }, value: this.pending.size },
    ], ['state']);
  }

  /** After the informers (and ServiceExternalIP, whose IPs are taken back first): the IPs in the specs are taken back before any is handed out. */
  async start(): Promise<void> {
    this.state = 'running';
    this.syncPools();
    let restored = 0;
    for (const eg of this.egresses().sort(byAge)) {
      if (this.check(eg).length > 0) continue;
      for (const slot of egressIPSlots(eg)) {
        const ip = parsed(slot.ip);
        if (ip && this.allocator.claim(slot.key, slot.pool, ip, false, 'Egress').ok) restored++;
      }
    }
    this.ctx.log.info({ restored }, 'egress controller started');
    this.reconciler.schedule();
  }

  async stop(): Promise<void> {
    this.state = 'stopped';
    await this.reconciler.stop();
  }

  idle(): Promise<void> {
    return this.reconciler.idle();
  }

  health(): PartHealth {
    const off = notRunning(this.state);
    if (off) return off;
    const pending = [...this.pending].map(([n, why]) => `${n}: ${why}`);
    const manual = [...this.manual].sort(([a], [b]) => a.localeCompare(b)).map(([n, ip]) => `${n} (${ip})`);
    const detail = `${this.allocator.holdings('Egress').length} egress IPs${manual.length ? `; without a pool (placed by hand): ${manual.join(', ')}` : ''}${pending.length ? `; without IP: ${pending.join('; ')}` : ''}`;
    if (this.reconciler.failing) return { ok: false, detail: `${detail}; last pass failed: ${message(this.reconciler.lastError)}` };
    return { ok: true, detail };
  }

  private onEvent(e: InformerEvent): void {
    if (this.state !== 'running') return;
    if (e.type === 'DELETED' && e.object.kind === 'Egress' && e.object.metadata.uid) this.events.clear({ uid: e.object.metadata.uid });
    this.reconciler.schedule();
  }

  private egresses(): Egress[] {
    return [...this.ctx.informers.cache(EGRESSES).values()] as unknown as Egress[];
  }

  /** The Egress's own checks, and its pools one per family (a pool stored or edited after the Egress was admitted). */
  private check(eg: Egress): ReturnType<typeof validateEgress> {
    return [...validateEgress(eg), ...egressPoolFamilyErrors(eg, this.pools())];
  }

  private pools(): ExternalIPPool[] {
    return [...this.ctx.informers.cache(EXTERNAL_IP_POOLS).values()] as unknown as ExternalIPPool[];
  }

  /** The allocator's pools from the cache (ServiceExternalIP, when on, does the same and reports bad ranges). */
  private syncPools(): void {
    const seen = new Set<string>();
    this.badSubnets.clear();
    for (const pool of this.pools()) {
      const name = nameOf(pool);
      seen.add(name);
      const subnetErrors = this.ctx.options.egressSeparateSubnet ? subnetInfoErrors(pool) : [];
      if (subnetErrors.length > 0) this.badSubnets.set(name, subnetErrors.map((e) => `${e.path}: Invalid value: ${JSON.stringify(e.value) ?? 'null'}: ${e.message.slice(e.path.length + 2)}`).join('; '));
      const spec = JSON.stringify(pool.spec?.ipRanges ?? []);
      if (this.poolSpecs.get(name) === spec && this.allocator.hasPool(name)) continue;
      this.poolSpecs.set(name, spec);
      this.allocator.setPool(name, usableRanges(poolRanges(pool.spec).ranges));
    }
    for (const name of [...this.poolSpecs.keys()]) {
      if (seen.has(name)) continue;
      this.poolSpecs.delete(name);
      this.allocator.removePool(name);
    }
  }

  private async apply(): Promise<void> {
    if (this.state !== 'running') return;
    this.syncPools();
    const egresses = this.egresses().sort(byAge);
    const slotsByKey = new Map<string, EgressIPSlot>();
    const valid = new Set<string>();
    for (const eg of egresses) {
      if (this.check(eg).length > 0) continue;
      valid.add(nameOf(eg));
      for (const s of egressIPSlots(eg)) slotsByKey.set(s.key, s);
    }
    for (const h of this.allocator.holdings('Egress')) {
      const why = this.releaseReason(h, slotsByKey.get(h.service));
      if (why === undefined) continue;
      this.allocator.release(h.service);
      this.ctx.log.info({ egress: h.service, ip: h.ip.toString(), pool: h.pool, why }, 'egress IP released');
    }
    const events: { ref: ObjectReference; note: EventNote }[] = [];
    const outcomes = new Map<string, EgressOutcome>();
    this.pending = new Map();
    this.manual = new Map();
    // Egresses without a pool (manual mode): decided together, as an older one keeps a shared IP.
    const manualDecisions = manualEgressDecisions(egresses.filter((eg) => valid.has(nameOf(eg))), (ip) => this.allocator.holders(ip), (ip) => this.allocator.poolOf(ip));
    for (const eg of egresses) {
      const name = nameOf(eg);
      const errors = this.check(eg);
      if (errors.length > 0) {
        const note = invalidEgressNote(errors);
        events.push({ ref: egressRef(eg), note });
        outcomes.set(name, { allocated: { status: 'False', reason: note.reason, message: note.message } });
        this.pending.set(name, note.message);
        continue;
      }
      const slots = egressIPSlots(eg);
      if (slots.length === 0) {
        const m = manualDecisions.get(name);
        if (m) outcomes.set(name, this.manualOutcome(eg, m, events));
        continue; // without m: no IP and no pool, nothing to allocate, nothing to place
      }
      const got: ExternalIPHolding[] = [];
      const fresh: ExternalIPHolding[] = [];
      let refusal: EventNote | undefined;
      for (const slot of slots) {
        const held = this.allocator.held(slot.key);
        if (held) {
          got.push(held);
          continue;
        }
        const badSubnet = this.badSubnets.get(slot.pool);
        if (badSubnet !== undefined) {
          refusal ??= { type: 'Warning', reason: 'InvalidExternalIPPool', message: `${slot.poolField}: Invalid value: ${JSON.stringify(slot.pool)}: ExternalIPPool ${slot.pool} has a subnetInfo the nodes cannot use (${badSubnet}); the Egress has no IP until the pool is fixed` };
          continue;
        }
        const ip = parsed(slot.ip);
        const r = ip ? this.allocator.claim(slot.key, slot.pool, ip, false, 'Egress') : this.allocator.allocate(slot.key, slot.pool, false, 'Egress');
        if (!r.ok) {
          refusal ??= egressRefusalNote(slot, r);
          continue;
        }
        got.push(r.holding);
        fresh.push(r.holding);
      }
      if (fresh.length > 0) {
        events.push({ ref: egressRef(eg), note: egressAllocatedNote(fresh) });
        this.ctx.log.info({ egress: name, ips: fresh.map((h) => h.ip.toString()) }, 'egress IP allocated');
      }
      if (refusal) {
        events.push({ ref: egressRef(eg), note: refusal });
        this.pending.set(name, refusal.message);
        outcomes.set(name, { allocated: { status: 'False', reason: refusal.reason, message: refusal.message } });
        continue;
      }
      outcomes.set(name, {
        ips: slots.map((s) => this.allocator.held(s.key)?.ip.toString() ?? ''),
        allocated: { status: 'True', reason: 'Allocated', message: got.map((h) => `${h.ip.toString()} from ExternalIPPool ${h.pool}`).join(', ') },
      });
    }
    const failures: unknown[] = [];
    const attempt = async (what: () => Promise<void>): Promise<void> => what().catch((e: unknown) => void failures.push(e));
    for (const eg of egresses) {
      const o = outcomes.get(nameOf(eg));
      if (o?.ips && !this.specHas(eg, o.ips)) await attempt(() => this.writeSpec(nameOf(eg), eg.metadata.uid, o.ips!));
      if (o?.allocated) await attempt(() => this.writeCondition(nameOf(eg), eg.metadata.uid, o.allocated!));
      else if (o?.manual && eg.status?.conditions?.some((c) => c.type === 'IPAllocated')) await attempt(() => this.removeCondition(nameOf(eg), eg.metadata.uid));
    }
    for (const t of events) await this.events.report(t.ref, TOPIC, t.note);
    // Usage counts Services and Egresses alike; ServiceExternalIP writes it too, on its own events.
    for (const pool of this.pools()) await attempt(() => this.writeUsage(pool));
    if (failures.length > 0) throw new AggregateError(failures, `${failures.length} Egress writes failed: ${failures.map(message).join('; ')}`);
  }

  /** An Egress without a pool (manual mode): refused (IPAllocated=False), or usable with no condition and perhaps a Warning. */
  private manualOutcome(eg: Egress, m: ManualEgressDecision, events: { ref: ObjectReference; note: EventNote }[]): EgressOutcome {
    const name = nameOf(eg);
    if (m.refusal) {
      events.push({ ref: egressRef(eg), note: m.refusal });
      this.pending.set(name, m.refusal.message);
      return { allocated: { status: 'False', reason: m.refusal.reason, message: m.refusal.message } };
    }
    this.manual.set(name, m.ip);
    if (m.note) events.push({ ref: egressRef(eg), note: m.note });
    else this.events.clear(egressRef(eg), TOPIC);
    return { manual: true };
  }

  private releaseReason(h: ExternalIPHolding, slot: EgressIPSlot | undefined): string | undefined {
    if (!slot) return 'the Egress is gone, is invalid, or no longer names the pool';
    if (!this.allocator.hasPool(h.pool)) return `ExternalIPPool ${h.pool} was deleted`;
    if (slot.pool !== h.pool) return `the Egress now asks for ExternalIPPool ${slot.pool}`;
    if (!this.allocator.contains(h.pool, h.ip)) return `ExternalIPPool ${h.pool} no longer holds it`;
    if (slot.ip !== undefined && parsed(slot.ip)?.equals(h.ip) !== true) return `${slot.ipField} is now ${slot.ip}`;
    return undefined;
  }

  private specHas(eg: Egress, ips: readonly string[]): boolean {
    if (eg.spec.externalIPPool !== undefined && eg.spec.externalIPPool !== '') return eg.spec.egressIP === ips[0];
    return JSON.stringify(eg.spec.egressIPs ?? []) === JSON.stringify(ips);
  }

  /** A read-modify-write of one Egress (its resourceVersion, again on 409); `change` answers undefined when nothing is to write. */
  private async rewrite(name: string, uid: string | undefined, sub: string, change: (fresh: Egress) => Egress | undefined): Promise<void> {
    for (let i = 0; ; i++) {
      let fresh: Egress;
      try {
        fresh = await this.ctx.kube.request<Egress>('GET', egressPath(name));
      } catch (e) {
        if (e instanceof KubeRequestError && e.status === 404) return;
        throw e;
      }
      if (uid !== undefined && fresh.metadata.uid !== uid) return;
      const next = change(fresh);
      if (!next) return;
      try {
        await this.ctx.kube.request('PUT', egressPath(name, sub), next);
        return;
      } catch (e) {
        if (e instanceof KubeRequestError && e.status === 409 && i + 1 < CONFLICT_ATTEMPTS) continue;
        throw e;
      }
    }
  }

  /** status.usage of one pool when it differs from what the allocator holds. */
  private async writeUsage(pool: ExternalIPPool): Promise<void> {
    const name = nameOf(pool);
    if (!this.allocator.hasPool(name)) return;
    const usage = this.allocator.usage(name);
    if (pool.status?.usage?.total === usage.total && pool.status.usage.used === usage.used) return;
    const path = `/apis/crd.antrea.io/v1beta1/externalippools/${encodeURIComponent(name)}`;
    for (let i = 0; ; i++) {
      let fresh: ExternalIPPool;
      try {
        fresh = await this.ctx.kube.request<ExternalIPPool>('GET', path);
      } catch (e) {
        if (e instanceof KubeRequestError && e.status === 404) return;
        throw e;
      }
      const u = this.allocator.usage(name);
      if (fresh.status?.usage?.total === u.total && fresh.status.usage.used === u.used) return;
      try {
        await this.ctx.kube.request('PUT', `${path}/status`, { ...fresh, status: { ...fresh.status, usage: u } });
        return;
      } catch (e) {
        if (e instanceof KubeRequestError && e.status === 409 && i + 1 < CONFLICT_ATTEMPTS) continue;
        throw e;
      }
    }
  }

  /** spec.egressIP (or spec.egressIPs of a dual-stack Egress): the allocated IPs, as Antrea writes them. */
  private writeSpec(name: string, uid: string | undefined, ips: string[]): Promise<void> {
    return this.rewrite(name, uid, '', (fresh) => {
      if (this.specHas(fresh, ips)) return undefined;
      const single = fresh.spec.externalIPPool !== undefined && fresh.spec.externalIPPool !== '';
      return { ...fresh, spec: { ...fresh.spec, ...(single ? { egressIP: ips[0] ?? '' } : { egressIPs: ips }) } };
    });
  }

  /** Takes IPAllocated off (an Egress now without a pool: Antrea's controller sets none in manual mode). */
  private removeCondition(name: string, uid: string | undefined): Promise<void> {
    return this.rewrite(name, uid, '/status', (fresh) => {
      const conditions = fresh.status?.conditions ?? [];
      if (!conditions.some((x) => x.type === 'IPAllocated')) return undefined;
      return { ...fresh, status: { ...fresh.status, conditions: conditions.filter((x) => x.type !== 'IPAllocated') } };
    });
  }

  /** status.conditions[type=IPAllocated], keeping the agent's IPAssigned and the other fields. */
  private writeCondition(name: string, uid: string | undefined, c: Pick<Condition, 'status' | 'reason' | 'message'>): Promise<void> {
    return this.rewrite(name, uid, '/status', (fresh) => {
      const conditions = fresh.status?.conditions ?? [];
      const old = conditions.find((x) => x.type === 'IPAllocated');
      if (old?.status === c.status && old.reason === c.reason && old.message === c.message) return undefined;
      const cond: Condition = { type: 'IPAllocated', ...c, lastTransitionTime: old?.status === c.status && old.lastTransitionTime ? old.lastTransitionTime : rfc3339(this.ctx.clock.now()) };
      return { ...fresh, status: { ...fresh.status, conditions: [...conditions.filter((x) => x.type !== 'IPAllocated'), cond] } };
    });
  }
}

export { egressHolderKey };
