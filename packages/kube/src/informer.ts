// List+watch informer (optionally narrowed by field and label selectors) with resourceVersion resumption, relist on 410 Gone (diffing against the
// cache so no change is lost), reconnect with exponential backoff and jitter, and a liveness timer.
// Written on raw list/watch rather than client-node's makeInformer, which stops on errors, has no
// backoff and hands out Date objects from LIST but strings from WATCH.
import { Backoff, backoffDelay, silentLogger, sleep, systemClock, type BackoffPolicy, type Clock, type Logger } from '@switchyard/runtime';
import { KubeRequestError } from './errors';
import { collectionPath, type KubeClient, type WatchStream } from './client';

/** A Kubernetes object as JSON (dates are RFC 3339 strings). */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: { name?: string; namespace?: string; resourceVersion?: string; uid?: string; labels?: Record<string, string>; [k: string]: unknown };
  [k: string]: unknown;
}

/** What an informer watches. */
export interface ResourceSpec {
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
}

/** Event delivered to the handler; `synthetic` marks events made up by a relist diff. */
export interface InformerEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: KubeObject;
  synthetic?: boolean;
}

/** Options of {@link Informer}. */
export interface InformerOptions {
  clock?: Clock;
  logger?: Logger;
  /** First retry delay (default 500 ms). */
  initialBackoffMs?: number;
  /** Largest retry delay (default 30 s). */
  maxBackoffMs?: number;
  /** Extra random share of the delay, 0..1 (default 0.2). */
  jitter?: number;
  /** Random source in [0,1) for jitter (injectable for tests). */
  random?: () => number;
  /** Server-side watch timeout asked for (default 300 s); the liveness timer allows 30 s more. */
  watchTimeoutSeconds?: number;
  /** LIST page size (default 500). */
  pageSize?: number;
  /** Server-side field selector, e.g. `spec.nodeName=node1` (an agent watching its own pods). */
  fieldSelector?: string;
  /** Server-side label selector. */
  labelSelector?: string;
  /** Only this namespace (a namespaced resource): what a Role, rather than a ClusterRole, allows. */
  namespace?: string;
}

/** Counters an informer exposes for metrics and tests. */
export interface InformerStats {
  lists: number;
  watches: number;
  relistsOn410: number;
  failures: number;
  events: number;
}

const keyOf = (o: KubeObject): string => (o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name ?? ''}` : (o.metadata.name ?? ''));

/**
 * Keeps a cache of one resource in step with the API server and reports every change, in order,
 * to `handler`. Survives API server restarts and expired resourceVersions.
 */
export class Informer {
  /** Current objects by `namespace/name` (or `name`). */
  readonly cache = new Map<string, KubeObject>();
  readonly stats: InformerStats = { lists: 0, watches: 0, relistsOn410: 0, failures: 0, events: 0 };
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly o: Required<Omit<InformerOptions, 'clock' | 'logger' | 'fieldSelector' | 'labelSelector' | 'namespace'>>;
  private readonly selectors: Record<string, string>;
  private readonly namespace: string | undefined;
  private resourceVersion = '';
  private stopped = false;
  private current: WatchStream | undefined;
  /** Aborted by stop(): wakes a sleeping loop. */
  private readonly stopping = new AbortController();
  private readonly policy: BackoffPolicy;
  private readonly backoff: Backoff;
  private absent = false;
  private syncedResolve!: () => void;
  /** Resolves after the first successful LIST has been delivered. */
  readonly synced: Promise<void>;
  private loopDone: Promise<void> | undefined;

  constructor(
    private readonly client: KubeClient,
    readonly spec: ResourceSpec,
    private readonly handler: (e: InformerEvent) => void,
    options: InformerOptions = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.log = options.logger ?? silentLogger;
    this.o = {
      initialBackoffMs: options.initialBackoffMs ?? 500,
      maxBackoffMs: options.maxBackoffMs ?? 30000,
      jitter: options.jitter ?? 0.2,
      random: options.random ?? Math.random,
      watchTimeoutSeconds: options.watchTimeoutSeconds ?? 300,
      pageSize: options.pageSize ?? 500,
    };
    // client-go's wait.Jitter: up to `jitter` of the delay added, never less than the base.
    this.policy = { initialMs: this.o.initialBackoffMs, maxMs: this.o.maxBackoffMs, jitter: { above: this.o.jitter } };
    this.backoff = new Backoff(this.policy, { random: this.o.random, clock: this.clock });
    this.namespace = options.namespace;
    this.selectors = {
      ...(options.fieldSelector ? { fieldSelector: options.fieldSelector } : {}),
      ...(options.labelSelector ? { labelSelector: options.labelSelector } : {}),
    };
    this.synced = new Promise((r) => (this.syncedResolve = r));
  }

  private get apiVersion(): string {
    return this.spec.group === '' ? this.spec.version : `${this.spec.group}/${this.spec.version}`;
  }

  /** Start listing and watching in the background. */
  start(): void {
    this.loopDone ??= this.run();
  }

  /** Stop watching; resolves when the loop has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.current?.abort();
    this.stopping.abort();
    await this.loopDone;
  }

  /** Delay before retry number `attempt` (0-based): exponential, capped, with jitter. */
  backoffDelay(attempt: number): number {
    return backoffDelay(this.policy, attempt, this.o.random());
  }

  /** Sleeps on the clock; stop() wakes it. */
  private sleep(ms: number): Promise<void> {
    return sleep(ms, { clock: this.clock, signal: this.stopping.signal });
  }

  private async run(): Promise<void> {
    let needList = true;
    while (!this.stopped) {
      try {
        if (needList) {
          const present = await this.list();
          this.syncedResolve();
          if (!present) {
            // Resource not served (CRD not installed yet): counts as empty; look again later.
            await this.sleep(this.o.maxBackoffMs);
            continue;
          }
          needList = false;
        }
        const outcome = await this.watchOnce();
        if (this.stopped) break;
        if (outcome === 'expired') {
          this.stats.relistsOn410++;
          needList = true;
          continue;
        }
        if (outcome === 'progress') this.backoff.reset();
        if (outcome === 'idle') {
          // Closed without delivering anything: treat as a failure so a flapping server is not hammered.
          await this.backoff.wait(this.stopping.signal);
        }
      } catch (e) {
        if (this.stopped) break;
        this.stats.failures++;
        if (e instanceof KubeRequestError && e.status === 410) {
          this.stats.relistsOn410++;
          needList = true;
          continue;
        }
        const delay = this.backoff.next();
        this.log.warn({ resource: this.spec.plural, err: (e as Error).message, delayMs: delay }, 'list/watch failed; retrying');
        await this.sleep(delay);
      }
    }
  }

  /** LIST into the cache; false when the API server does not serve the resource (404). */
  private async list(): Promise<boolean> {
    const base = collectionPath(this.spec.group, this.spec.version, this.spec.plural, this.namespace);
    const items: KubeObject[] = [];
    let cont = '';
    let rv = '';
    do {
      const q = new URLSearchParams({ ...this.selectors, limit: String(this.o.pageSize) });
      if (cont) q.set('continue', cont);
      let page: { items?: KubeObject[]; metadata?: { resourceVersion?: string; continue?: string } };
      try {
        page = await this.client.request('GET', `${base}?${q.toString()}`);
      } catch (e) {
        if (!(e instanceof KubeRequestError && e.status === 404)) throw e;
        this.absent = true;
        page = {};
      }
      for (const item of page.items ?? []) items.push({ ...item, apiVersion: this.apiVersion, kind: this.spec.kind });
      cont = page.metadata?.continue ?? '';
      rv = page.metadata?.resourceVersion ?? rv;
    } while (cont !== '');
    this.stats.lists++;
    // Diff the fresh list against the cache: whatever changed while we were not watching
    // becomes a synthetic event, so consumers never miss a change.
    const seen = new Set<string>();
    for (const obj of items) {
      const k = keyOf(obj);
      seen.add(k);
      const old = this.cache.get(k);
      if (old && old.metadata.resourceVersion === obj.metadata.resourceVersion) continue;
      this.cache.set(k, obj);
      this.emit({ type: old ? 'MODIFIED' : 'ADDED', object: obj, synthetic: this.stats.lists > 1 });
    }
    for (const [k, old] of [...this.cache]) {
      if (seen.has(k)) continue;
      this.cache.delete(k);
      this.emit({ type: 'DELETED', object: old, synthetic: true });
    }
    this.resourceVersion = rv;
    const present = !this.absent;
    this.absent = false;
    return present;
  }

  private emit(e: InformerEvent): void {
    this.stats.events++;
    try {
      this.handler(e);
    } catch (err) {
      this.log.error({ resource: this.spec.plural, err: (err as Error).message, name: keyOf(e.object) }, 'informer handler failed');
    }
  }

  /** One watch connection. */
  private async watchOnce(): Promise<'expired' | 'progress' | 'idle'> {
    const q = new URLSearchParams({ ...this.selectors, watch: '1', allowWatchBookmarks: 'true', timeoutSeconds: String(this.o.watchTimeoutSeconds) });
    if (this.resourceVersion) q.set('resourceVersion', this.resourceVersion);
    const stream = await this.client.watch(`${collectionPath(this.spec.group, this.spec.version, this.spec.plural, this.namespace)}?${q.toString()}`);
    this.stats.watches++;
    this.current = stream;
    if (this.stopped) stream.abort();
    let progress = false;
    let liveness = this.clock.setTimeout(() => stream.abort(), (this.o.watchTimeoutSeconds + 30) * 1000);
    try {
      for await (const ev of stream.events) {
        liveness.cancel();
        liveness = this.clock.setTimeout(() => stream.abort(), (this.o.watchTimeoutSeconds + 30) * 1000);
        const obj = ev.object as KubeObject;
        if (ev.type === 'ERROR') {
          const code = (obj as { code?: number }).code;
          if (code === 410) return 'expired';
          throw new KubeRequestError('WATCH', this.spec.plural, code ?? 500, obj);
        }
        progress = true;
        this.backoff.reset();
        const rv = obj.metadata?.resourceVersion;
        if (rv) this.resourceVersion = rv;
        if (ev.type === 'BOOKMARK') continue;
        if (ev.type !== 'ADDED' && ev.type !== 'MODIFIED' && ev.type !== 'DELETED') continue;
        const full: KubeObject = { ...obj, apiVersion: this.apiVersion, kind: this.spec.kind };
        const k = keyOf(full);
        if (ev.type === 'DELETED') {
          if (!this.cache.delete(k)) continue;
        } else {
          const old = this.cache.get(k);
          this.cache.set(k, full);
          // A replayed ADDED for an object we already have is a modification to consumers.
          if (ev.type === 'ADDED' && old) {
            if (old.metadata.resourceVersion === full.metadata.resourceVersion) continue;
            this.emit({ type: 'MODIFIED', object: full });
            continue;
          }
          if (ev.type === 'MODIFIED' && !old) {
            this.emit({ type: 'ADDED', object: full });
            continue;
          }
        }
        this.emit({ type: ev.type, object: full });
      }
    } finally {
      liveness.cancel();
      this.current = undefined;
    }
    return progress ? 'progress' : 'idle';
  }
}
