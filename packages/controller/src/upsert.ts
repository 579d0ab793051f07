// Create-or-update of one object the controller owns outright (its APIService, webhook
// configuration, AntreaControllerInfo): the body replaces what is there.
import { KubeRequestError, type KubeClient } from '@switchyard/kube';

/** PUT `body` at `path` over the current object's resourceVersion, or POST it to `collection` when there is none. */
export async function upsert(kube: KubeClient, path: string, collection: string, body: Record<string, unknown>): Promise<void> {
  try {
    const cur = await kube.request<{ metadata?: { resourceVersion?: string } }>('GET', path);
    const meta = { ...(body.metadata as Record<string, unknown>), resourceVersion: cur.metadata?.resourceVersion };
    await kube.request('PUT', path, { ...body, metadata: meta });
  } catch (e) {
    if (!(e instanceof KubeRequestError && e.status === 404)) throw e;
    await kube.request('POST', collection, body);
  }
}
