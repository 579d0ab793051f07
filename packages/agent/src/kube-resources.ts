/** The Kubernetes resources the agent watches, and the bounded LIST its parts prime the first round with. */
import type { KubeClient, KubeObject } from '@switchyard/kube';

export const NODES = { group: '', version: 'v1', plural: 'nodes', kind: 'Node', namespaced: false } as const;
export const PODS = { group: '', version: 'v1', plural: 'pods', kind: 'Pod', namespaced: true } as const;
export const SERVICES = { group: '', version: 'v1', plural: 'services', kind: 'Service', namespaced: true } as const;
export const ENDPOINT_SLICES = { group: 'discovery.k8s.io', version: 'v1', plural: 'endpointslices', kind: 'EndpointSlice', namespaced: true } as const;

/** A LIST that gives up after `ms` (the API may be down at start; the watches catch up later). */
export async function listWithin(kube: KubeClient, path: string, ms: number): Promise<KubeObject[]> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const list = await Promise.race([
      kube.request<{ items: KubeObject[] }>('GET', path),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out after ${ms / 1000} s`)), ms);
        timer.unref();
      }),
    ]);
    return list.items;
  } finally {
    clearTimeout(timer);
  }
}

/** How long a priming LIST may take before the part starts without it. */
export const PRIME_LIST_MS = 5000;
