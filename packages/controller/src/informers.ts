// The controller's informers: one per resource that any part watches, built from the parts'
// declarations, each event handed to every part that asked for it, in part order. Also the
// `informers` part, which lists and follows them all before any part that reads their caches starts.
import { Informer, type InformerEvent, type InformerOptions, type KubeClient, type KubeObject, type ResourceSpec } from '@switchyard/kube';
import type { Clock, Logger, Part, PartHealth } from '@switchyard/runtime';
import { ControllerError } from './errors';
import type { MetricsRegistry } from './metrics';

/** A resource a part reads through the controller's informers. */
export interface Watch {
  readonly resource: ResourceSpec;
  /** Every event of the resource, in order, from the first LIST on (omit to read only the cache). */
  onEvent?(e: InformerEvent): void;
}

/** A part that reads resources through the controller's informers. */
export interface WatchingPart extends Part {
  /** The resources it reads; the controller runs one informer per resource for all parts. */
  readonly watches: readonly Watch[];
}

/** The resources `part` declares, if any. */
export function watchesOf(part: Part): readonly Watch[] {
  return 'watches' in part ? (part as WatchingPart).watches : [];
}

const keyOf = (r: ResourceSpec): string => `${r.group}/${r.plural}`;

interface Watched {
  informer: Informer;
  watches: Watch[];
}

/**
 * One informer per declared resource, shared by every part that watches it. As a part (named
 * `informers`): `start` lists and watches every resource and resolves once each has been listed.
 */
export class ClusterInformers implements Part {
  readonly name = 'informers';
  /** Seconds from start to each resource's first complete LIST, by plural. */
  readonly syncSeconds = new Map<string, number>();
  private readonly byKey = new Map<string, Watched>();
  private state: 'new' | 'listing' | 'synced' | 'stopped' = 'new';
  /** Resolves on stop: a start still waiting for a first LIST gives up then. */
  private readonly stopping: Promise<void>;
  private stopNow!: () => void;

  constructor(
    private readonly kube: KubeClient,
    private readonly options: InformerOptions & { clock: Clock; logger: Logger },
    metrics?: MetricsRegistry,
  ) {
    if (metrics) this.registerMetrics(metrics);
    this.stopping = new Promise((resolve) => (this.stopNow = resolve));
  }

  /** Adds watches (before start): an informer for each resource not watched yet, in this order. */
  watch(watches: readonly Watch[]): void {
    if (this.state !== 'new') throw new ControllerError('INVALID_CONFIG', 'watches are declared before the informers start', 'watches', watches.map((w) => w.resource.plural));
    for (const w of watches) {
      let entry = this.byKey.get(keyOf(w.resource));
      if (!entry) {
        const list: Watch[] = [];
        entry = { informer: new Informer(this.kube, w.resource, (e) => this.dispatch(list, e), this.options), watches: list };
        this.byKey.set(keyOf(w.resource), entry);
      }
      entry.watches.push(w);
    }
  }

  /** The informers, in the order their resources were declared. */
  get list(): Informer[] {
    return [...this.byKey.values()].map((e) => e.informer);
  }

  /** The cache of a declared resource; throws for one no part declared. */
  cache(resource: ResourceSpec): ReadonlyMap<string, KubeObject> {
    const entry = this.byKey.get(keyOf(resource));
    if (!entry) throw new ControllerError('INVALID_CONFIG', `no part declares a watch on ${resource.plural}.${resource.group}`, 'watches', resource.plural);
    return entry.informer.cache;
  }

  /** Objects of a resource (by plural, the first declared of that name), if it is watched. */
  cacheOf(plural: string): ReadonlyMap<string, KubeObject> | undefined {
    return this.list.find((i) => i.spec.plural === plural)?.cache;
  }

  /** Objects of a resource by group and plural (none when it is not watched). */
  values(group: string, plural: string): Iterable<KubeObject> {
    return this.byKey.get(`${group}/${plural}`)?.informer.cache.values() ?? [];
  }

  async start(): Promise<void> {
    this.state = 'listing';
    const clock = this.options.clock;
    const t0 = clock.now();
    for (const inf of this.list) {
      inf.start();
      void inf.synced.then(() => this.syncSeconds.set(inf.spec.plural, (clock.now() - t0) / 1000));
    }
    await Promise.race([Promise.all(this.list.map((i) => i.synced)), this.stopping]);
    if (this.state !== 'listing') throw new ControllerError('STOPPED', 'stopped before every resource was listed', 'informers', [...this.syncSeconds.keys()]);
    this.state = 'synced';
  }

  async stop(): Promise<void> {
    this.state = 'stopped';
    this.stopNow();
    await Promise.all(this.list.map((i) => i.stop()));
  }

  health(): PartHealth {
    const n = this.byKey.size;
    const failures = this.list.reduce((sum, i) => sum + i.stats.failures, 0);
    switch (this.state) {
      case 'new':
        return { ok: false, detail: `${n} resources, not started` };
      case 'listing':
        return { ok: false, detail: `${this.syncSeconds.size} of ${n} resources listed` };
      case 'synced':
        return { ok: true, detail: `${n} resources listed and watched (${failures} failed list/watch attempts so far)` };
      case 'stopped':
        return { ok: false, detail: 'stopped' };
    }
  }

  /** Hands an event to each watch in turn; one that throws does not keep it from the others. */
  private dispatch(watches: readonly Watch[], e: InformerEvent): void {
    for (const w of watches) {
      try {
        w.onEvent?.(e);
      } catch (err) {
        this.options.logger.warn({ resource: w.resource.plural, name: e.object.metadata.name, err: err instanceof Error ? err.message : String(err) }, 'informer event handler failed');
      }
    }
  }

  private registerMetrics(m: MetricsRegistry): void {
    m.register('switchyard_controller_informer_sync_seconds', 'gauge', 'Time from start to the first complete LIST, per resource', () => [...this.syncSeconds].map(([resource, v]) => ({ labels: { resource }, value: v })), ['resource']);
    m.register('switchyard_controller_informer_relists_total', 'counter', 'LISTs after 410 Gone, per resource', () => this.list.map((i) => ({ labels: { resource: i.spec.plural }, value: i.stats.relistsOn410 })), ['resource']);
    m.register('switchyard_controller_informer_failures_total', 'counter', 'Failed list/watch attempts, per resource', () => this.list.map((i) => ({ labels: { resource: i.spec.plural }, value: i.stats.failures })), ['resource']);
  }
}
