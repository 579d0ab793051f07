// Persistence contract of IPPools with optimistic concurrency, and its in-memory implementation.
import { IpamError } from '../errors';
import type { IPPoolResource } from './types';

/**
 * Where IPPools live. Shaped after the Kubernetes API: every object carries
 * `metadata.resourceVersion`; writes that name an out-of-date version fail with
 * `IpamError` code `CONFLICT` (HTTP 409), and the caller re-reads and retries.
 * {@link IPPoolStore.updateStatus} is the status subresource (PUT .../ippools/<name>/status):
 * it replaces `status` only and ignores `spec`.
 */
export interface IPPoolStore {
  /** The pool, or undefined when absent. */
  get(name: string): Promise<IPPoolResource | undefined>;
  list(): Promise<IPPoolResource[]>;
  /** @throws IpamError CONFLICT when a pool of that name exists */
  create(pool: IPPoolResource): Promise<IPPoolResource>;
  /** Replaces spec (and metadata). @throws IpamError CONFLICT on a stale resourceVersion, NOT_FOUND */
  update(pool: IPPoolResource): Promise<IPPoolResource>;
  /** Replaces status only. @throws IpamError CONFLICT on a stale resourceVersion, NOT_FOUND */
  updateStatus(pool: IPPoolResource): Promise<IPPoolResource>;
  /** @throws IpamError CONFLICT when `resourceVersion` is given and stale, NOT_FOUND */
  delete(name: string, resourceVersion?: string): Promise<void>;
}

// Resources are JSON on the wire; a JSON copy also keeps prototypes plain in every realm.
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

/** An {@link IPPoolStore} in memory, with Kubernetes resourceVersion semantics. */
export class InMemoryIPPoolStore implements IPPoolStore {
  private readonly pools = new Map<string, IPPoolResource>();
  private version = 0;

  async get(name: string): Promise<IPPoolResource | undefined> {
    const p = this.pools.get(name);
    return p && clone(p);
  }

  async list(): Promise<IPPoolResource[]> {
    return [...this.pools.values()].map(clone);
  }

  async create(pool: IPPoolResource): Promise<IPPoolResource> {
    const name = this.nameOf(pool);
    if (this.pools.has(name)) throw new IpamError('CONFLICT', `ippool ${name} already exists`, name, 'metadata.name');
    const stored = clone(pool);
    stored.metadata.resourceVersion = String(++this.version);
    this.pools.set(name, stored);
    return clone(stored);
  }

  async update(pool: IPPoolResource): Promise<IPPoolResource> {
    const cur = this.current(pool);
    const stored: IPPoolResource = { ...clone(pool), ...(cur.status ? { status: clone(cur.status) } : {}) };
    if (!cur.status) delete stored.status;
    stored.metadata.resourceVersion = String(++this.version);
    this.pools.set(this.nameOf(pool), stored);
    return clone(stored);
  }

  async updateStatus(pool: IPPoolResource): Promise<IPPoolResource> {
    const cur = this.current(pool);
    const stored: IPPoolResource = { ...clone(cur), ...(pool.status ? { status: clone(pool.status) } : {}) };
    stored.metadata.resourceVersion = String(++this.version);
    this.pools.set(this.nameOf(pool), stored);
    return clone(stored);
  }

  async delete(name: string, resourceVersion?: string): Promise<void> {
    const cur = this.pools.get(name);
    if (!cur) throw new IpamError('NOT_FOUND', `ippool ${name} not found`, name, 'metadata.name');
    if (resourceVersion !== undefined && resourceVersion !== cur.metadata.resourceVersion) {
      throw new IpamError('CONFLICT', `ippool ${name} changed (resourceVersion ${cur.metadata.resourceVersion}, not ${resourceVersion})`, resourceVersion, 'metadata.resourceVersion');
    }
    this.pools.delete(name);
  }

  private nameOf(pool: IPPoolResource): string {
    const name = pool.metadata.name;
    if (!name) throw new IpamError('INVALID_CONFIG', 'ippool without metadata.name', pool, 'metadata.name');
    return name;
  }

  private current(pool: IPPoolResource): IPPoolResource {
    const name = this.nameOf(pool);
    const cur = this.pools.get(name);
    if (!cur) throw new IpamError('NOT_FOUND', `ippool ${name} not found`, name, 'metadata.name');
    if (pool.metadata.resourceVersion !== cur.metadata.resourceVersion) {
      throw new IpamError(
        'CONFLICT',
        `ippool ${name} changed (resourceVersion ${cur.metadata.resourceVersion}, not ${pool.metadata.resourceVersion})`,
        pool.metadata.resourceVersion,
        'metadata.resourceVersion',
      );
    }
    return cur;
  }
}
