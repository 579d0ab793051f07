// The IPPoolStore on the Kubernetes API: crd.antrea.io/v1beta1 ippools, with the status
// subresource and resourceVersion preconditions, so the allocator's conflict retry works against
// a real API server. It needs only a JSON requester, so any Kubernetes client fits (the
// controller's and the agent's @switchyard/kube client, or a thin wrapper over another one).
import { IpamError } from '../errors';
import type { IPPoolStore } from './store';
import type { IPPoolResource } from './types';

const GROUP_VERSION = 'crd.antrea.io/v1beta1';
const COLLECTION = `/apis/${GROUP_VERSION}/ippools`;

/**
 * What {@link KubeIPPoolStore} needs of a Kubernetes client: a JSON request that resolves with
 * the parsed body and rejects, on an HTTP error, with an error carrying the numeric `status`
 * (as `@switchyard/kube`'s `KubeRequestError` does).
 */
export interface KubeRequester {
  request<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<T>;
}

/** Path of one IPPool (cluster-scoped). */
export const ipPoolPath = (name: string): string => `${COLLECTION}/${encodeURIComponent(name)}`;

const httpStatus = (e: unknown): number | undefined =>
  typeof e === 'object' && e !== null && typeof (e as { status?: unknown }).status === 'number' ? (e as { status: number }).status : undefined;

/**
 * An {@link IPPoolStore} backed by the Kubernetes API. `update` is a PUT of the object (the API
 * server ignores `status` there, since the CRD has a status subresource), `updateStatus` a PUT of
 * `.../status` (which ignores spec and metadata other than the resourceVersion); both carry the
 * caller's `metadata.resourceVersion`, so a stale write is a 409 and becomes `IpamError`
 * `CONFLICT`, which `IPPoolAllocator` answers by re-reading and retrying.
 */
export class KubeIPPoolStore implements IPPoolStore {
  constructor(private readonly kube: KubeRequester) {}

  async get(name: string): Promise<IPPoolResource | undefined> {
    try {
      return typed(await this.kube.request<IPPoolResource>('GET', ipPoolPath(name)));
    } catch (e) {
      if (httpStatus(e) === 404) return undefined;
      throw e;
    }
  }

  async list(): Promise<IPPoolResource[]> {
    const out: IPPoolResource[] = [];
    let cont: string | undefined;
    do {
      const page = await this.kube.request<{ items: IPPoolResource[]; metadata?: { continue?: string } }>('GET', `${COLLECTION}?limit=500${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
      out.push(...page.items.map(typed));
      cont = page.metadata?.continue || undefined;
    } while (cont);
    return out;
  }

  async create(pool: IPPoolResource): Promise<IPPoolResource> {
    const name = nameOf(pool);
    // The API server refuses a create that names a resourceVersion.
    const { resourceVersion: _rv, ...metadata } = pool.metadata;
    const body: IPPoolResource = { ...pool, apiVersion: GROUP_VERSION, kind: 'IPPool', metadata };
    return this.call(name, async () => {
      const created = await this.kube.request<IPPoolResource>('POST', COLLECTION, body);
      // A status given on create is dropped by the status subresource; write it as the caller meant.
      if (pool.status !== undefined) return this.kube.request<IPPoolResource>('PUT', `${ipPoolPath(name)}/status`, { ...created, status: pool.status });
      return created;
    });
  }

  update(pool: IPPoolResource): Promise<IPPoolResource> {
    const name = nameOf(pool);
    return this.call(name, () => this.kube.request<IPPoolResource>('PUT', ipPoolPath(name), { ...pool, apiVersion: GROUP_VERSION, kind: 'IPPool' }));
  }

  updateStatus(pool: IPPoolResource): Promise<IPPoolResource> {
    const name = nameOf(pool);
    return this.call(name, () => this.kube.request<IPPoolResource>('PUT', `${ipPoolPath(name)}/status`, { ...pool, apiVersion: GROUP_VERSION, kind: 'IPPool' }));
  }

  async delete(name: string, resourceVersion?: string): Promise<void> {
    const body = { apiVersion: 'v1', kind: 'DeleteOptions', ...(resourceVersion !== undefined ? { preconditions: { resourceVersion } } : {}) };
    await this.call(name, () => this.kube.request('DELETE', ipPoolPath(name), body));
  }

  /** Runs a request and maps 404/409 to the store contract's IpamError codes. */
  private async call<T>(name: string, req: () => Promise<T>): Promise<T> {
    try {
      const out = await req();
      return (typeof out === 'object' && out !== null && 'spec' in out ? typed(out as unknown as IPPoolResource) : out) as T;
    } catch (e) {
      const status = httpStatus(e);
      const msg = e instanceof Error ? e.message : String(e);
      if (status === 409) throw new IpamError('CONFLICT', `ippool ${name}: ${msg}`, name, 'metadata.resourceVersion', { cause: e });
      if (status === 404) throw new IpamError('NOT_FOUND', `ippool ${name} not found`, name, 'metadata.name', { cause: e });
      throw e;
    }
  }
}

function nameOf(pool: IPPoolResource): string {
  const name = pool.metadata.name;
  if (!name) throw new IpamError('INVALID_CONFIG', 'ippool without metadata.name', pool, 'metadata.name');
  return name;
}

// LIST items carry no apiVersion/kind; fill them in so every object reads the same.
const typed = (p: IPPoolResource): IPPoolResource => ({ ...p, apiVersion: GROUP_VERSION, kind: 'IPPool' });
