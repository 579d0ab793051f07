// Level-triggered reconciling: a Resync runs one async pass at a time, folds the requests that
// arrive meanwhile into one more pass, and retries a failed pass with backoff on the clock. Plus
// the create/patch/delete helpers the passes use to make the API match a desired object set.
import pLimit from 'p-limit';
import { Backoff, silentLogger, type Clock, type Logger, type TimerHandle } from '@switchyard/runtime';
import { KubeRequestError, collectionPath, type KubeClient, type KubeObject, type ResourceSpec } from '@switchyard/kube';
import { apiVersionOf, objectPath } from './resources';

/**
 * Writes one pass keeps in flight: enough to hide each request's round trip (at 10,000
 * ResourceExports the leader's one-at-a-time status writes took 8 minutes), few enough not to
 * crowd the API server (client-go's default burst is 10).
 */
export const WRITES_IN_FLIGHT = 8;

/**
 * Runs `write` for every item, {@link WRITES_IN_FLIGHT} at a time. Every write is tried and
 * waited for; then the first failure, if any, is thrown (the pass is retried as a whole).
 */
export async function writeAll<T>(items: Iterable<T>, write: (item: T) => Promise<void>): Promise<void> {
  const limit = pLimit(WRITES_IN_FLIGHT);
  const results = await Promise.allSettled([...items].map((item) => limit(() => write(item))));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}

/** Options of {@link Resync}. */
export interface ResyncOptions {
  name: string;
  clock: Clock;
  logger?: Logger;
  /** First retry delay after a failed pass (default 500 ms, doubling to `maxBackoffMs`). */
  initialBackoffMs?: number;
  /** The longest retry delay (default 30 s). */
  maxBackoffMs?: number;
}

/** Runs `pass` whenever scheduled, never concurrently; a failed pass is retried with backoff. */
export class Resync {
  private running = false;
  private again = false;
  private stopped = false;
  private retry: TimerHandle | undefined;
  private readonly backoff: Backoff;
  private readonly log: Logger;
  private idleWaiters: (() => void)[] = [];
  /** Passes run, and passes that threw. */
  readonly stats = { passes: 0, failures: 0 };

  constructor(
    private readonly pass: () => Promise<void>,
    private readonly o: ResyncOptions,
  ) {
    this.log = o.logger ?? silentLogger;
    this.backoff = new Backoff({ initialMs: o.initialBackoffMs ?? 500, maxMs: o.maxBackoffMs ?? 30_000 }, { clock: o.clock });
  }

  /** Ask for a pass (soon, once). */
  schedule(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.retry?.cancel();
    this.retry = undefined;
    this.running = true;
    queueMicrotask(() => void this.loop());
  }

  private async loop(): Promise<void> {
    do {
      this.again = false;
      this.stats.passes++;
      try {
        await this.pass();
        this.backoff.reset();
      } catch (e) {
        this.stats.failures++;
        if (!this.stopped) {
          const delay = this.backoff.next();
          this.log.warn({ reconciler: this.o.name, err: (e as Error).message, retryInMs: delay }, 'reconcile pass failed; retrying');
          this.retry = this.o.clock.setTimeout(() => this.schedule(), delay);
        }
      }
    } while (this.again && !this.stopped);
    this.running = false;
    for (const w of this.idleWaiters.splice(0)) w();
  }

  /** Resolves when no pass is running. */
  idle(): Promise<void> {
    return this.running ? new Promise((r) => this.idleWaiters.push(r)) : Promise.resolve();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.retry?.cancel();
    await this.idle();
  }
}

/** The JSON of the fields a reconciler owns, for comparing desired with actual. */
export type Fingerprint = (o: KubeObject) => unknown;

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * Makes the objects of `resource` in the API equal to `desired` (by namespace/name) among those
 * `actual` lists: creates the missing, merge-patches the differing ones with the owned fields
 * `owned` returns, and deletes the actual objects not desired. Returns the number of writes.
 */
export async function converge(
  client: KubeClient,
  resource: ResourceSpec,
  desired: readonly KubeObject[],
  actual: Iterable<KubeObject>,
  owned: (o: KubeObject) => Record<string, unknown>,
): Promise<number> {
  const key = (o: KubeObject): string => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
  const have = new Map<string, KubeObject>();
  for (const o of actual) have.set(key(o), o);
  const writes: (() => Promise<unknown>)[] = [];
  for (const d of desired) {
    const cur = have.get(key(d));
    have.delete(key(d));
    const ns = d.metadata.namespace ?? '';
    if (!cur) writes.push(() => createOrPatch(client, resource, { apiVersion: apiVersionOf(resource), kind: resource.kind, ...d }, owned(d)));
    else if (!same(subset(owned(d), cur), owned(d))) writes.push(() => client.request('PATCH', objectPath(resource, ns, d.metadata.name ?? ''), owned(d), 'application/merge-patch+json'));
  }
  // Creates and patches before deletes, as one at a time did: a replaced object (a Gateway that
  // moved to another Node) is never missing in between.
  await writeAll(writes, async (w) => void (await w()));
  const stale = [...have.values()];
  await writeAll(stale, (o) => deleteIgnoringMissing(client, objectPath(resource, o.metadata.namespace ?? '', o.metadata.name ?? '')));
  return writes.length + stale.length;
}

/** POST; on 409 (exists, our cache is behind) merge-patch the owned fields instead. */
async function createOrPatch(client: KubeClient, resource: ResourceSpec, obj: KubeObject, owned: Record<string, unknown>): Promise<void> {
  const ns = obj.metadata.namespace ?? '';
  try {
    await client.request('POST', collectionPath(resource.group, resource.version, resource.plural, ns), obj);
  } catch (e) {
    if (!(e instanceof KubeRequestError && e.status === 409)) throw e;
    await client.request('PATCH', objectPath(resource, ns, obj.metadata.name ?? ''), owned, 'application/merge-patch+json');
  }
}

/** DELETE that treats 404 as done. */
export async function deleteIgnoringMissing(client: KubeClient, path: string): Promise<void> {
  try {
    await client.request('DELETE', path);
  } catch (e) {
    if (!(e instanceof KubeRequestError && e.status === 404)) throw e;
  }
}

/** The parts of `actual` at the paths `shape` has (maps recursively, everything else whole). */
function subset(shape: unknown, actual: unknown): unknown {
  if (shape === null || typeof shape !== 'object' || Array.isArray(shape)) return actual;
  if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return actual;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(shape)) {
    const want = (shape as Record<string, unknown>)[k];
    const v = subset(want, (actual as Record<string, unknown>)[k]);
    if (v !== undefined) out[k] = v;
    else if (want === null) out[k] = null; // a merge-patch null asks for the field's absence: met
  }
  return out;
}

/** Merge-patch a status subresource when it differs from `current`. Returns whether it wrote. */
export async function patchStatus(client: KubeClient, resource: ResourceSpec, obj: KubeObject, status: unknown): Promise<boolean> {
  if (same(obj['status'] ?? null, status)) return false;
  try {
    await client.request('PATCH', objectPath(resource, obj.metadata.namespace ?? '', obj.metadata.name ?? '', 'status'), { status }, 'application/merge-patch+json');
  } catch (e) {
    if (e instanceof KubeRequestError && e.status === 404) return false; // deleted meanwhile
    throw e;
  }
  return true;
}
