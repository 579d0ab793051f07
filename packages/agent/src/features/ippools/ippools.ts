/**
 * AntreaIPAM for pods: a pod (or its Namespace) annotated `ipam.antrea.io/ippools: <pool>` takes
 * its address from that crd.antrea.io IPPool instead of the node's pod CIDR. Allocation goes
 * through @switchyard/ipam's IPPoolAllocator on the Kubernetes store, so the agents of every node
 * and the controller (StatefulSet pre-allocation) share the pool with resourceVersion conflict
 * retries, and a StatefulSet pod takes the address kept for its ordinal.
 */
import { IPPoolAllocator, IpamError, KubeIPPoolStore, type PoolAllocation, type KubeRequester } from '@switchyard/ipam';
import { CniError, CniErrorCode } from '../../cni/spec';
import { silentLogger, type Logger } from '@switchyard/runtime';

/** Pod or Namespace annotation naming the pool(s) (Antrea's). */
export const IPPOOL_ANNOTATION = 'ipam.antrea.io/ippools';

/** The pool a pod asks for, with its StatefulSet ordinal if it has one. */
export interface PoolChoice {
  pool: string;
  /** Where the pool was named: the pod's or Namespace's annotation, or the `ipam` network configuration. */
  source: 'pod' | 'namespace' | 'ipam';
  statefulSet?: { name: string; namespace: string; index: number };
}

/** What a Pod or Namespace looks like to the pool lookup. */
interface PodLike {
  metadata: {
    name?: string;
    namespace?: string;
    annotations?: Record<string, string>;
    ownerReferences?: { kind?: string; name?: string; controller?: boolean }[];
  };
}

/**
 * The pool named by an annotation value `pool[,pool6]`: the first name, since pods here are
 * IPv4 single-stack (a second, IPv6 pool is ignored). Undefined when the value names none.
 */
export function firstPool(value: string | undefined): string | undefined {
  const names = (value ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
  return names[0];
}

/** StatefulSet owner and ordinal of a pod (`<sts>-<ordinal>`), when it has one. */
export function statefulSetOf(pod: PodLike): { name: string; namespace: string; index: number } | undefined {
  const owner = pod.metadata.ownerReferences?.find((r) => r.kind === 'StatefulSet' && r.controller !== false && r.name);
  const podName = pod.metadata.name ?? '';
  if (!owner?.name || !podName.startsWith(`${owner.name}-`)) return undefined;
  const ordinal = podName.slice(owner.name.length + 1);
  if (!/^(0|[1-9]\d*)$/.test(ordinal)) return undefined;
  return { name: owner.name, namespace: pod.metadata.namespace ?? '', index: Number(ordinal) };
}

/** Options of {@link PodIPPools}. */
export interface PodIPPoolsOptions {
  /** Kubernetes client: Pods, Namespaces and IPPools are read through it. */
  kube: KubeRequester;
  /** Sleep of the allocator's conflict backoff (tests pass an instant one). */
  sleep?: (ms: number) => Promise<void>;
  logger?: Logger;
}

const httpStatus = (e: unknown): number | undefined =>
  typeof e === 'object' && e !== null && typeof (e as { status?: unknown }).status === 'number' ? (e as { status: number }).status : undefined;

/** Pool lookup and allocation for CNI ADD/DEL. */
export class PodIPPools {
  readonly allocator: IPPoolAllocator;
  readonly store: KubeIPPoolStore;
  private readonly log: Logger;

  constructor(private readonly o: PodIPPoolsOptions) {
    this.log = o.logger ?? silentLogger;
    this.store = new KubeIPPoolStore(o.kube);
    this.allocator = new IPPoolAllocator(this.store, { logger: this.log, ...(o.sleep ? { sleep: o.sleep } : {}) });
  }

  /**
   * The pool a pod takes its address from: the pod's annotation, else its Namespace's; undefined
   * for a pod of neither (it gets a pod-CIDR address). A pod the API does not know (a runtime
   * ADD for a sandbox whose Pod is gone) is treated as unannotated.
   * @throws CniError TRY_AGAIN_LATER when the API cannot be reached (the runtime retries)
   */
  async poolFor(namespace: string, name: string): Promise<PoolChoice | undefined> {
    const pod = await this.get<PodLike>(`/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(name)}`);
    if (!pod) return undefined;
    const sts = statefulSetOf(pod);
    const fromPod = firstPool(pod.metadata.annotations?.[IPPOOL_ANNOTATION]);
    if (fromPod) return { pool: fromPod, source: 'pod', ...(sts ? { statefulSet: sts } : {}) };
    const ns = await this.get<PodLike>(`/api/v1/namespaces/${encodeURIComponent(namespace)}`);
    const fromNs = firstPool(ns?.metadata.annotations?.[IPPOOL_ANNOTATION]);
    return fromNs ? { pool: fromNs, source: 'namespace', ...(sts ? { statefulSet: sts } : {}) } : undefined;
  }

  /**
   * An address of `choice.pool` for the container (idempotent for a repeated ADD; a StatefulSet
   * pod takes its ordinal's kept address).
   * @throws CniError naming the pool when it does not exist, is exhausted or is invalid
   */
  async allocate(choice: PoolChoice, pod: { namespace: string; name: string; containerID: string; ifName: string }): Promise<PoolAllocation> {
    try {
      return await this.allocator.allocateReservedOrNext(choice.pool, { name: pod.name, namespace: pod.namespace, containerID: pod.containerID, ifName: pod.ifName }, choice.statefulSet);
    } catch (e) {
      if (e instanceof IpamError) {
        const where = choice.source === 'ipam' ? `network configuration ipam.ippools: ${choice.pool}` : `${choice.source} annotation ${IPPOOL_ANNOTATION}=${choice.pool}`;
        if (e.code === 'NOT_FOUND') throw new CniError(CniErrorCode.InvalidNetworkConfig, `ippool ${choice.pool} does not exist`, where);
        if (e.code === 'EXHAUSTED') throw new CniError(CniErrorCode.TryAgainLater, `ippool ${choice.pool} has no free address`, where);
        throw new CniError(CniErrorCode.InternalError, `ippool ${choice.pool}: ${e.message}`, where);
      }
      throw e;
    }
  }

  /** Frees the container's address in `pool` (a StatefulSet ordinal keeps it, Reserved). Idempotent. */
  async release(pool: string, containerID: string, ifName: string): Promise<void> {
    try {
      await this.allocator.releaseContainer(pool, containerID, ifName);
    } catch (e) {
      // A deleted pool holds nothing to free.
      if (e instanceof IpamError && e.code === 'NOT_FOUND') return;
      throw e;
    }
  }

  /**
   * Frees the container's address in whichever pool holds it: DEL of a container the interface
   * store lost (a crash between allocation and the OVS port).
   */
  async releaseAnywhere(containerID: string, ifName: string): Promise<string[]> {
    const freed: string[] = [];
    for (const p of await this.store.list()) {
      if (!(p.status?.ipAddresses ?? []).some((a) => a.owner.pod?.containerID === containerID)) continue;
      await this.release(p.metadata.name ?? '', containerID, ifName);
      freed.push(p.metadata.name ?? '');
    }
    return freed;
  }

  private async get<T>(path: string): Promise<T | undefined> {
    try {
      return await this.o.kube.request<T>('GET', path);
    } catch (e) {
      const status = httpStatus(e);
      if (status === 404) return undefined;
      throw new CniError(CniErrorCode.TryAgainLater, 'cannot read the pod from the Kubernetes API to look up its IPPool', `${path}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}
