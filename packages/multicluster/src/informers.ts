// A named set of informers started together, each change routed to the passes it concerns.
import { Informer, type InformerOptions, type KubeClient, type KubeObject, type ResourceSpec } from '@switchyard/kube';

/** Informers over one client; `synced` once every first LIST has been delivered. */
export class InformerSet {
  private readonly informers: Informer[] = [];

  constructor(
    private readonly client: KubeClient,
    private readonly options: InformerOptions,
  ) {}

  /** Adds and starts an informer; `onChange` runs for every event. Returns its cache. */
  watch(resource: ResourceSpec, onChange: () => void, extra: Pick<InformerOptions, 'namespace' | 'labelSelector'> = {}): Map<string, KubeObject> {
    const inf = new Informer(this.client, resource, onChange, { ...this.options, ...extra });
    this.informers.push(inf);
    inf.start();
    return inf.cache;
  }

  /** Resolves when every informer has delivered its first LIST. */
  async synced(): Promise<void> {
    await Promise.all(this.informers.map((i) => i.synced));
  }

  async stop(): Promise<void> {
    await Promise.all(this.informers.map((i) => i.stop()));
  }
}
