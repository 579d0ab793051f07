// IPPool allocation: pure status transitions, applied through a store with conflict retries.
import type { Cidr} from '../cidr/index';
import { CidrError, Ip, IpRange, IpSet, parseCidr, parseIp } from '../cidr/index';
import { Backoff, silentLogger, type BackoffPolicy, type Logger } from '@switchyard/runtime';
import { IpamError } from '../errors';
import { UsedSet } from '../internal/used-set';
import type { IPPoolStore } from './store';
import type { IPPoolAddress, IPPoolOwner, IPPoolPodOwner, IPPoolRange, IPPoolResource, IPPoolStatefulSetOwner } from './types';

/** An address handed out from a pool, with what the interface needs. */
export interface PoolAllocation {
  pool: string;
  ip: Ip;
  prefixLength: number;
  gateway: Ip;
  vlan: number | undefined;
  phase: IPPoolAddress['phase'];
  owner: IPPoolOwner;
}

/** Retry policy for resourceVersion conflicts. */
export interface RetryPolicy {
  /** Attempts in all, default 8. */
  attempts: number;
  /** First backoff, doubled each retry up to `maxDelayMs`, with full jitter. Default 10. */
  baseDelayMs: number;
  /** Default 1000. */
  maxDelayMs: number;
}

/** Options of {@link IPPoolAllocator}. */
export interface IPPoolAllocatorOptions {
  retry?: Partial<RetryPolicy>;
  /** Injectable sleep (tests run without waiting). */
  sleep?: (ms: number) => Promise<void>;
  /** Injectable randomness for jitter, in [0, 1). */
  random?: () => number;
  logger?: Logger;
}

/** The usable addresses of a pool, parsed once per read. */
interface PoolView {
  name: string;
  ranges: IpRange[];
  gateway: Ip;
  prefixLength: number;
  vlan: number | undefined;
  family: 4 | 6;
}

/**
 * Usable addresses of a pool's ranges: a `cidr` range excludes its network address and, for
 * IPv4, its broadcast address; the gateway is never handed out.
 * @throws IpamError INVALID_CONFIG naming `spec.ipRanges[i]`
 */
export function poolAddresses(pool: IPPoolResource): IpSet {
  const view = viewOf(pool);
  return IpSet.from(view.ranges).subtract([view.gateway]);
}

function viewOf(pool: IPPoolResource): PoolView {
  const name = pool.metadata.name ?? '';
  const wrap = <T>(field: string, f: () => T): T => {
    try {
      return f();
    } catch (e) {
      if (e instanceof CidrError) throw new IpamError('INVALID_CONFIG', `ippool ${name}: ${e.message}`, e.input, field, { cause: e });
      throw e;
    }
  };
  const info = pool.spec.subnetInfo;
  const gateway = wrap('spec.subnetInfo.gateway', () => parseIp(info.gateway));
  const ranges = pool.spec.ipRanges.map((r: IPPoolRange, i) => {
    const field = `spec.ipRanges[${i}]`;
    if (r.cidr !== undefined) {
      if (r.start !== undefined || r.end !== undefined) throw new IpamError('INVALID_CONFIG', `ippool ${name}: a range has either cidr or start/end`, r, field);
      const c: Cidr = wrap(`${field}.cidr`, () => parseCidr(r.cidr as string, { strict: true }));
      return c.prefix >= c.bits - 1 ? c.toRange() : new IpRange(c.nth(1), c.lastUsable());
    }
    if (r.start === undefined || r.end === undefined) throw new IpamError('INVALID_CONFIG', `ippool ${name}: a range needs cidr or start and end`, r, field);
    return wrap(field, () => new IpRange(parseIp(r.start as string), parseIp(r.end as string)));
  });
  for (const [i, r] of ranges.entries()) {
    if (r.family !== gateway.family) throw new IpamError('INVALID_CONFIG', `ippool ${name}: range ${r.toString()} is not IPv${gateway.family}`, r.toString(), `spec.ipRanges[${i}]`);
  }
  return { name, ranges, gateway, prefixLength: info.prefixLength, vlan: info.vlan, family: gateway.family };
}

const samePod = (a: IPPoolPodOwner | undefined, containerID: string, ifName?: string): boolean =>
  a !== undefined && a.containerID === containerID && (ifName === undefined || a.ifName === undefined || a.ifName === ifName);
const sameSts = (a: IPPoolStatefulSetOwner | undefined, b: IPPoolStatefulSetOwner): boolean =>
  a !== undefined && a.namespace === b.namespace && a.name === b.name && a.index === b.index;

/** Pure transitions of a pool's status: each takes the current entries and returns the new ones. */
class PoolState {
  readonly used = new UsedSet();
  constructor(
    readonly view: PoolView,
    readonly entries: IPPoolAddress[],
    /** `metadata.deletionTimestamp` is set: the pool is waiting for its last address to go. */
    readonly terminating = false,
  ) {
    for (const e of entries) this.used.add(parseIp(e.ipAddress).value);
  }

  /**
   * A pool being deleted hands out no new address (like a terminating PVC), so its finalizer
   * can eventually be removed. Releases and ordinal take-overs are still allowed.
   * @throws IpamError TERMINATING
   */
  assertGrowable(): void {
    if (this.terminating) throw new IpamError('TERMINATING', `ippool ${this.view.name} is being deleted and hands out no new address`, this.view.name, 'metadata.deletionTimestamp');
  }

  /** Lowest free address in range order. */
  next(): Ip | undefined {
    for (const r of this.view.ranges) {
      let v = this.used.nextFree(r.first.value);
      while (v === this.view.gateway.value) v = this.used.nextFree(v + 1n);
      if (v <= r.last.value) return new Ip(this.view.family, v);
    }
    return undefined;
  }

  /** Several lowest free addresses without taking them. */
  nextN(n: number): Ip[] {
    const out: Ip[] = [];
    const taken: bigint[] = [];
    for (let i = 0; i < n; i++) {
      const ip = this.next();
      if (!ip) break;
      out.push(ip);
      this.used.add(ip.value);
      taken.push(ip.value);
    }
    for (const v of taken) this.used.delete(v);
    return out;
  }

  usable(ip: Ip): boolean {
    return !ip.equals(this.view.gateway) && this.view.ranges.some((r) => r.contains(ip));
  }

  total(): number {
    return Number(IpSet.from(this.view.ranges).subtract([this.view.gateway]).size);
  }
}

/**
 * Allocates addresses from crd.antrea.io IPPools, as Antrea's pool allocator: next free,
 * a specific address, or the address reserved for a StatefulSet ordinal; StatefulSet
 * pre-allocation; release by container. Every change is a read-modify-write of
 * `status` through the injected {@link IPPoolStore}, retried with backoff on conflicts, so
 * several allocators (agents, controller) can share one pool without handing an address out twice.
 */
export class IPPoolAllocator {
  private readonly retry: RetryPolicy;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;
  private readonly log: Logger;
  /** Conflicts retried so far (observable for tests and metrics). */
  conflicts = 0;

  constructor(
    private readonly store: IPPoolStore,
    options: IPPoolAllocatorOptions = {},
  ) {
    this.retry = { attempts: 8, baseDelayMs: 10, maxDelayMs: 1000, ...options.retry };
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.random = options.random ?? Math.random;
    this.log = options.logger ?? silentLogger;
  }

  /**
   * The lowest free address for a pod. Idempotent: a container that holds an address of the
   * pool gets it back. @throws IpamError EXHAUSTED, NOT_FOUND
   */
  allocateNext(pool: string, pod: IPPoolPodOwner): Promise<PoolAllocation> {
    return this.mutate(pool, (s) => {
      const mine = s.entries.find((e) => samePod(e.owner.pod, pod.containerID, pod.ifName));
      if (mine) return { entries: s.entries, result: mine };
      s.assertGrowable();
      const ip = s.next();
      if (!ip) throw new IpamError('EXHAUSTED', `ippool ${pool} has no free address (${s.entries.length} of ${s.total()} in use)`, pool, 'status.ipAddresses');
      const entry: IPPoolAddress = { ipAddress: ip.toString(), phase: 'Allocated', owner: { pod } };
      return { entries: [...s.entries, entry], result: entry };
    });
  }

  /**
   * A specific address for a pod (an annotation such as `ipam.antrea.io/ips`).
   * @throws IpamError OUTSIDE_POOL, UNAVAILABLE (held by another owner or the gateway)
   */
  allocateIP(pool: string, ip: string, pod: IPPoolPodOwner): Promise<PoolAllocation> {
    return this.mutate(pool, (s) => {
      const want = parseIp(ip, 'ip');
      if (want.equals(s.view.gateway)) throw new IpamError('UNAVAILABLE', `${ip} is the gateway of ippool ${pool}`, ip, 'ip');
      if (!s.usable(want)) throw new IpamError('OUTSIDE_POOL', `${ip} is not in ippool ${pool}`, ip, 'ip');
      const held = s.entries.find((e) => parseIp(e.ipAddress).equals(want));
      if (held) {
        if (samePod(held.owner.pod, pod.containerID, pod.ifName)) return { entries: s.entries, result: held };
        throw new IpamError('UNAVAILABLE', `${ip} of ippool ${pool} is ${held.phase} for ${describeOwner(held.owner)}`, ip, 'ip');
      }
      s.assertGrowable();
      const entry: IPPoolAddress = { ipAddress: want.toString(), phase: 'Allocated', owner: { pod } };
      return { entries: [...s.entries, entry], result: entry };
    });
  }

  /**
   * The address kept for StatefulSet ordinal `statefulSet.index` if one is (pre-allocated or
   * reserved), else the next free one, recorded with both owners so the ordinal keeps it.
   */
  allocateReservedOrNext(pool: string, pod: IPPoolPodOwner, statefulSet?: IPPoolStatefulSetOwner): Promise<PoolAllocation> {
    return this.mutate(pool, (s) => {
      const owner: IPPoolOwner = statefulSet ? { pod, statefulSet } : { pod };
      const kept = statefulSet && s.entries.find((e) => sameSts(e.owner.statefulSet, statefulSet));
      if (kept) {
        // A StatefulSet runs at most one pod per ordinal: the new container takes the address over.
        const entry: IPPoolAddress = { ...kept, phase: 'Allocated', owner };
        return { entries: s.entries.map((e) => (e === kept ? entry : e)), result: entry };
      }
      const mine = s.entries.find((e) => samePod(e.owner.pod, pod.containerID, pod.ifName));
      if (mine) return { entries: s.entries, result: mine };
      s.assertGrowable();
      const ip = s.next();
      if (!ip) throw new IpamError('EXHAUSTED', `ippool ${pool} has no free address (${s.entries.length} of ${s.total()} in use)`, pool, 'status.ipAddresses');
      const entry: IPPoolAddress = { ipAddress: ip.toString(), phase: 'Allocated', owner };
      return { entries: [...s.entries, entry], result: entry };
    });
  }

  /**
   * Pre-allocates one address per ordinal `0..replicas-1` of a StatefulSet (phase
   * Preallocated). Ordinals that already have one keep it. All or nothing.
   * @throws IpamError EXHAUSTED when the pool cannot hold them all
   */
  preallocateStatefulSet(pool: string, namespace: string, name: string, replicas: number): Promise<PoolAllocation[]> {
    return this.mutateMany(pool, (s) => {
      const have = new Map<number, IPPoolAddress>();
      for (const e of s.entries) {
        const o = e.owner.statefulSet;
        if (o && o.namespace === namespace && o.name === name) have.set(o.index, e);
      }
      const missing = Array.from({ length: replicas }, (_, i) => i).filter((i) => !have.has(i));
      if (missing.length > 0) s.assertGrowable();
      const ips = s.nextN(missing.length);
      if (ips.length < missing.length) {
        throw new IpamError('EXHAUSTED', `ippool ${pool} cannot pre-allocate ${missing.length} addresses for statefulset ${namespace}/${name} (${ips.length} free)`, pool, 'status.ipAddresses');
      }
      const added = missing.map((index, k): IPPoolAddress => ({ ipAddress: (ips[k] as Ip).toString(), phase: 'Preallocated', owner: { statefulSet: { name, namespace, index } } }));
      for (const e of added) have.set((e.owner.statefulSet as IPPoolStatefulSetOwner).index, e);
      // Nothing missing: no status write (and no watch event) for a no-op.
      return { entries: added.length > 0 ? [...s.entries, ...added] : s.entries, result: Array.from({ length: replicas }, (_, i) => have.get(i) as IPPoolAddress) };
    });
  }

  /** Frees every address of a StatefulSet (it was deleted). Returns the freed addresses. */
  releaseStatefulSet(pool: string, namespace: string, name: string): Promise<Ip[]> {
    return this.mutateFree(pool, (e) => e.owner.statefulSet?.namespace === namespace && e.owner.statefulSet.name === name);
  }

  /**
   * Frees a container's address. A StatefulSet ordinal's address is kept for the next pod
   * of that ordinal (phase Reserved, pod owner dropped). Idempotent.
   */
  async releaseContainer(pool: string, containerID: string, ifName?: string): Promise<Ip[]> {
    const freed: Ip[] = [];
    await this.mutate(pool, (s) => {
      freed.length = 0;
      if (!s.entries.some((e) => samePod(e.owner.pod, containerID, ifName))) return { entries: s.entries, result: undefined };
      const entries: IPPoolAddress[] = [];
      for (const e of s.entries) {
        if (!samePod(e.owner.pod, containerID, ifName)) entries.push(e);
        else if (e.owner.statefulSet) entries.push({ ipAddress: e.ipAddress, phase: 'Reserved', owner: { statefulSet: e.owner.statefulSet } });
        else freed.push(parseIp(e.ipAddress));
      }
      return { entries, result: undefined };
    });
    return freed;
  }

  /** Addresses in use and in all. */
  async usage(pool: string): Promise<{ total: number; used: number }> {
    const p = await this.read(pool);
    const s = new PoolState(viewOf(p), p.status?.ipAddresses ?? []);
    return { total: s.total(), used: s.entries.length };
  }

  /**
   * Replaces a pool's spec. Pools only grow: every address of the old ranges must stay in the
   * new ones, and subnetInfo may not change. @throws IpamError SHRINK
   */
  async updatePool(next: IPPoolResource): Promise<IPPoolResource> {
    const name = next.metadata.name ?? '';
    return this.withRetry(name, async () => {
      const cur = await this.read(name);
      const lost = poolAddresses(cur).subtract(poolAddresses(next));
      if (!lost.isEmpty) throw new IpamError('SHRINK', `ippool ${name} may only grow; the update drops ${lost.toRanges().join(',')}`, lost.toRanges().map(String), 'spec.ipRanges');
      const a = cur.spec.subnetInfo;
      const b = next.spec.subnetInfo;
      if (a.gateway !== b.gateway || a.prefixLength !== b.prefixLength || a.vlan !== b.vlan) {
        throw new IpamError('SHRINK', `ippool ${name}: subnetInfo is immutable`, b, 'spec.subnetInfo');
      }
      return this.store.update({ ...next, metadata: { ...next.metadata, resourceVersion: cur.metadata.resourceVersion as string } });
    });
  }

  /** Deletes a pool that holds no address. @throws IpamError IN_USE */
  async deletePool(name: string): Promise<void> {
    await this.withRetry(name, async () => {
      const cur = await this.read(name);
      const n = cur.status?.ipAddresses?.length ?? 0;
      if (n > 0) throw new IpamError('IN_USE', `ippool ${name} is in use by ${n} address${n === 1 ? '' : 'es'}`, name, 'status.ipAddresses');
      await this.store.delete(name, cur.metadata.resourceVersion);
    });
  }

  // ---- read-modify-write ----------------------------------------------------------------------

  private async read(pool: string): Promise<IPPoolResource> {
    const p = await this.store.get(pool);
    if (!p) throw new IpamError('NOT_FOUND', `ippool ${pool} not found`, pool, 'metadata.name');
    return p;
  }

  private async mutate<R extends IPPoolAddress | undefined>(
    pool: string,
    change: (s: PoolState) => { entries: IPPoolAddress[]; result: R },
  ): Promise<R extends IPPoolAddress ? PoolAllocation : undefined> {
    const out = await this.mutateMany(pool, (s) => {
      const r = change(s);
      return { entries: r.entries, result: r.result === undefined ? [] : [r.result] };
    });
    return out[0] as R extends IPPoolAddress ? PoolAllocation : undefined;
  }

  private async mutateFree(pool: string, drop: (e: IPPoolAddress) => boolean): Promise<Ip[]> {
    const freed: Ip[] = [];
    await this.mutateMany(pool, (s) => {
      freed.length = 0;
      if (!s.entries.some(drop)) return { entries: s.entries, result: [] };
      const entries = s.entries.filter((e) => {
        if (drop(e)) freed.push(parseIp(e.ipAddress));
        return !drop(e);
      });
      return { entries, result: [] };
    });
    return freed;
  }

  private async mutateMany(pool: string, change: (s: PoolState) => { entries: IPPoolAddress[]; result: IPPoolAddress[] }): Promise<PoolAllocation[]> {
    return this.withRetry(pool, async () => {
      const cur = await this.read(pool);
      const view = viewOf(cur);
      const before = cur.status?.ipAddresses ?? [];
      const s = new PoolState(view, before, cur.metadata.deletionTimestamp !== undefined);
      const { entries, result } = change(s);
      if (entries !== before) {
        const status = { ...cur.status, ipAddresses: entries, usage: { total: s.total(), used: entries.length } };
        await this.store.updateStatus({ ...cur, status });
      }
      return result.map((e) => ({
        pool,
        ip: parseIp(e.ipAddress),
        prefixLength: view.prefixLength,
        gateway: view.gateway,
        vlan: view.vlan,
        phase: e.phase,
        owner: e.owner,
      }));
    });
  }

  /** Runs `attempt` until it does not conflict, sleeping with capped exponential backoff and full jitter. */
  private async withRetry<T>(pool: string, attempt: () => Promise<T>): Promise<T> {
    const policy: BackoffPolicy = { initialMs: this.retry.baseDelayMs, maxMs: this.retry.maxDelayMs, jitter: 'full' };
    const backoff = new Backoff(policy, { random: this.random });
    for (let i = 1; ; i++) {
      try {
        return await attempt();
      } catch (e) {
        if (!(e instanceof IpamError) || e.code !== 'CONFLICT') throw e;
        this.conflicts++;
        if (i >= this.retry.attempts) {
          throw new IpamError('RETRIES_EXHAUSTED', `ippool ${pool}: still conflicting after ${i} attempts`, pool, 'metadata.resourceVersion', { cause: e });
        }
        const delay = backoff.next();
        this.log.debug({ pool, attempt: i, delay }, 'ippool conflict, retrying');
        await this.sleep(delay);
      }
    }
  }
}

function describeOwner(o: IPPoolOwner): string {
  if (o.pod) return `pod ${o.pod.namespace}/${o.pod.name}`;
  if (o.statefulSet) return `statefulset ${o.statefulSet.namespace}/${o.statefulSet.name}[${o.statefulSet.index}]`;
  return 'nobody';
}
