// IPPool controller (Antrea's AntreaIPAM): StatefulSet pre-allocation from StatefulSet events,
// status.usage upkeep, and a finalizer that keeps a pool in use from being deleted.
import { IPPoolAllocator, IpamError, poolAddresses, type IPPoolResource, type IPPoolStore, type RetryPolicy } from '@switchyard/ipam';
import type { KubeObject } from '@switchyard/kube';
import { silentLogger, type Logger } from '@switchyard/runtime';

/** StatefulSet annotation naming the pool(s) its pods take addresses from (Antrea's). */
export const IPPOOL_ANNOTATION = 'ipam.antrea.io/ippools';

/**
 * Finalizer the controller puts on every IPPool and removes only once no address of the pool is
 * in use: without an admission webhook, this is what keeps a pool in use from disappearing (the
 * pattern of Kubernetes' `kubernetes.io/pvc-protection`). The removal is a write preconditioned on
 * the resourceVersion at which the pool was seen empty, so an allocation racing with it wins.
 */
export const IPPOOL_FINALIZER = 'ipam.switchyard.io/ippool-protection';

interface StatefulSetLike {
  metadata: { name?: string; namespace?: string; annotations?: Record<string, string> };
  spec?: { replicas?: number };
}

/** Options of {@link IPPoolController}. */
export interface IPPoolControllerOptions {
  retry?: Partial<RetryPolicy>;
  /** Injectable sleep for the allocator's conflict backoff. */
  sleep?: (ms: number) => Promise<void>;
  logger?: Logger;
}

const stsKey = (ns: string, name: string): string => `${ns}/${name}`;

/** The pools a StatefulSet asks for: `ipam.antrea.io/ippools: pool[,pool6]`. */
export function poolsOf(sts: StatefulSetLike): string[] {
  const v = sts.metadata.annotations?.[IPPOOL_ANNOTATION];
  return v ? [...new Set(v.split(',').map((s) => s.trim()).filter((s) => s !== ''))] : [];
}

/**
 * Keeps IPPools in step with StatefulSets: every ordinal `0..replicas-1` of a StatefulSet
 * annotated with {@link IPPOOL_ANNOTATION} has an address (phase `Preallocated` until its pod
 * takes it), ordinals keep theirs across pod restarts and scale-downs, a deleted StatefulSet's
 * addresses are released. Pools carry {@link IPPOOL_FINALIZER} and an up-to-date `status.usage`.
 * All writes go through an {@link IPPoolStore} (on a cluster, `KubeIPPoolStore`), so agents
 * allocating from the same pools at the same time are safe. Work runs one item at a time, in
 * event order, so a StatefulSet deleted right after its creation is never left pre-allocated.
 */
export class IPPoolController {
  readonly allocator: IPPoolAllocator;
  private readonly log: Logger;
  private chain: Promise<void> = Promise.resolve();
  /** Pools each StatefulSet was last reconciled against (to release on annotation change). */
  private readonly reconciled = new Map<string, string[]>();
  private readonly statefulSets = new Map<string, StatefulSetLike>();
  private readonly poolSpecs = new Map<string, string>();
  private started = false;

  constructor(
    private readonly store: IPPoolStore,
    options: IPPoolControllerOptions = {},
  ) {
    this.log = options.logger ?? silentLogger;
    this.allocator = new IPPoolAllocator(store, { logger: this.log, ...(options.retry ? { retry: options.retry } : {}), ...(options.sleep ? { sleep: options.sleep } : {}) });
  }

  /**
   * After the first lists of both informers: take every pool and StatefulSet in, and release
   * addresses of StatefulSets that were deleted while no controller ran.
   */
  start(pools: Iterable<KubeObject>, statefulSets: Iterable<KubeObject>): void {
    this.started = true;
    for (const s of statefulSets) this.statefulSets.set(stsKey(s.metadata.namespace ?? '', s.metadata.name ?? ''), s as unknown as StatefulSetLike);
    const poolList = [...pools] as unknown as IPPoolResource[];
    this.enqueue('release stale statefulsets', async () => {
      for (const p of poolList) {
        const gone = new Set<string>();
        for (const e of p.status?.ipAddresses ?? []) {
          const o = e.owner.statefulSet;
          if (o && !this.statefulSets.has(stsKey(o.namespace, o.name))) gone.add(stsKey(o.namespace, o.name));
        }
        for (const k of gone) {
          const [ns, name] = k.split('/') as [string, string];
          const freed = await this.allocator.releaseStatefulSet(p.metadata.name as string, ns, name);
          this.log.info({ pool: p.metadata.name, statefulSet: k, freed: freed.map(String) }, 'released addresses of a deleted statefulset');
        }
      }
    });
    // Pools first: a pool seen for the first time reconciles the StatefulSets that name it.
    for (const p of poolList) this.onPoolEvent('ADDED', p as unknown as KubeObject);
    for (const s of this.statefulSets.values()) if (!this.reconciled.has(stsKey(s.metadata.namespace ?? '', s.metadata.name ?? ''))) this.reconcileStatefulSet(s);
  }

  /** StatefulSet informer event. */
  onStatefulSetEvent(type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: KubeObject): void {
    const sts = obj as unknown as StatefulSetLike;
    const key = stsKey(sts.metadata.namespace ?? '', sts.metadata.name ?? '');
    if (type === 'DELETED') this.statefulSets.delete(key);
    else this.statefulSets.set(key, sts);
    if (!this.started) return;
    if (type === 'DELETED') this.releaseStatefulSet(key, sts);
    else this.reconcileStatefulSet(sts);
  }

  /** IPPool informer event. */
  onPoolEvent(type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: KubeObject): void {
    if (!this.started) return;
    const pool = obj as unknown as IPPoolResource;
    const name = pool.metadata.name ?? '';
    if (type === 'DELETED') {
      this.poolSpecs.delete(name);
      return;
    }
    this.enqueue(`pool ${name}`, () => this.reconcilePool(name));
    // A new or grown pool may now serve StatefulSets that found it missing or full.
    const spec = JSON.stringify(pool.spec);
    if (this.poolSpecs.get(name) !== spec) {
      this.poolSpecs.set(name, spec);
      for (const s of this.statefulSets.values()) if (poolsOf(s).includes(name)) this.reconcileStatefulSet(s);
    }
  }

  /** Resolves when the queued work is done. */
  idle(): Promise<void> {
    return this.chain;
  }

  private enqueue(what: string, work: () => Promise<void>): void {
    this.chain = this.chain.then(work).catch((e: unknown) => {
      const code = e instanceof IpamError ? e.code : undefined;
      this.log.warn({ what, code, err: (e as Error).message }, 'ippool work failed');
    });
  }

  private reconcileStatefulSet(sts: StatefulSetLike): void {
    const ns = sts.metadata.namespace ?? '';
    const name = sts.metadata.name ?? '';
    const key = stsKey(ns, name);
    const pools = poolsOf(sts);
    const before = this.reconciled.get(key) ?? [];
    for (const p of before.filter((p) => !pools.includes(p))) {
      this.enqueue(`release ${key} from ${p}`, async () => {
        await this.allocator.releaseStatefulSet(p, ns, name).catch(ignoreMissingPool);
      });
    }
    if (pools.length === 0) this.reconciled.delete(key);
    else this.reconciled.set(key, pools);
    // Kubernetes defaults spec.replicas to 1.
    const replicas = sts.spec?.replicas ?? 1;
    for (const p of pools) {
      this.enqueue(`preallocate ${key} in ${p}`, async () => {
        // Current state, not the event's: a later event may already have deleted it.
        if (!this.statefulSets.has(key)) return;
        const got = await this.allocator.preallocateStatefulSet(p, ns, name, replicas);
        this.log.debug({ pool: p, statefulSet: key, ips: got.map((a) => a.ip.toString()) }, 'statefulset addresses pre-allocated');
      });
    }
  }

  private releaseStatefulSet(key: string, sts: StatefulSetLike): void {
    const ns = sts.metadata.namespace ?? '';
    const name = sts.metadata.name ?? '';
    const pools = new Set([...(this.reconciled.get(key) ?? []), ...poolsOf(sts)]);
    this.reconciled.delete(key);
    for (const p of pools) {
      this.enqueue(`release ${key} from ${p}`, async () => {
        const freed = await this.allocator.releaseStatefulSet(p, ns, name).catch(ignoreMissingPool);
        this.log.info({ pool: p, statefulSet: key, freed: (freed ?? []).map(String) }, 'statefulset addresses released');
      });
    }
  }

  /** Finalizer on, usage current, finalizer off once a deleted pool is empty. Retries conflicts. */
  private async reconcilePool(name: string): Promise<void> {
    for (let attempt = 0; attempt < 20; attempt++) {
      const pool = await this.store.get(name);
      if (!pool) return;
      try {
        await this.reconcilePoolOnce(pool);
        return;
      } catch (e) {
        if (!(e instanceof IpamError && e.code === 'CONFLICT')) throw e;
      }
    }
    throw new IpamError('RETRIES_EXHAUSTED', `ippool ${name}: still conflicting`, name, 'metadata.resourceVersion');
  }

  private async reconcilePoolOnce(pool: IPPoolResource): Promise<void> {
    const name = pool.metadata.name as string;
    const finalizers = pool.metadata.finalizers ?? [];
    const inUse = pool.status?.ipAddresses?.length ?? 0;
    if (pool.metadata.deletionTimestamp !== undefined) {
      if (inUse > 0 || !finalizers.includes(IPPOOL_FINALIZER)) {
        if (inUse > 0) this.log.info({ pool: name, inUse }, 'ippool deletion waits for its addresses to be released');
        return;
      }
      // Preconditioned on the resourceVersion at which the pool was seen empty.
      await this.store.update({ ...pool, metadata: { ...pool.metadata, finalizers: finalizers.filter((f) => f !== IPPOOL_FINALIZER) } });
      this.log.info({ pool: name }, 'ippool unused: finalizer removed, deletion proceeds');
      return;
    }
    let cur = pool;
    if (!finalizers.includes(IPPOOL_FINALIZER)) {
      cur = await this.store.update({ ...pool, metadata: { ...pool.metadata, finalizers: [...finalizers, IPPOOL_FINALIZER] } });
    }
    let total: number;
    try {
      total = Number(poolAddresses(cur).size);
    } catch (e) {
      this.log.warn({ pool: name, err: (e as Error).message }, 'ippool spec invalid; usage not computed');
      return;
    }
    const usage = { total, used: inUse };
    const u = cur.status?.usage;
    if (u?.total !== usage.total || u.used !== usage.used) await this.store.updateStatus({ ...cur, status: { ...cur.status, usage } });
  }
}

function ignoreMissingPool(e: unknown): undefined {
  if (e instanceof IpamError && e.code === 'NOT_FOUND') return undefined;
  throw e;
}
