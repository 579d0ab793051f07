// In-memory object storage with a server-wide resourceVersion, a bounded event history for
// watch resumption, and snapshot/restore for the optional data directory.

import type { KubeObject } from './types';
import { clone } from './types';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** A committed change. `prev` is the object before the change (MODIFIED/DELETED). */
export interface StoreEvent {
  rv: number;
  type: WatchEventType;
  gr: string;
  obj: KubeObject;
  prev?: KubeObject;
}

export interface StoreSnapshot {
  resourceVersion: number;
  objects: Record<string, KubeObject[]>;
}

function objKey(ns: string | undefined, name: string): string {
  return `${ns ?? ''}/${name}`;
}

export class ObjectStore {
  private rv = 0;
  /** Events with rv > compactedRV are all in history; older ones are gone (410). */
  private compactedRV = 0;
  private readonly data = new Map<string, Map<string, KubeObject>>();
  private history: StoreEvent[] = [];
  private readonly listeners = new Set<(e: StoreEvent) => void>();
  private persist: ((s: StoreSnapshot) => void) | undefined;

  constructor(private readonly historyLimit: number) {}

  /**
   * Makes every later change durable before anyone sees it: `persist` gets the whole state with
   * the change applied. When it throws, the change is undone (object, resourceVersion), no event
   * is emitted, and the error goes to the caller. `undefined` detaches.
   */
  persistWith(persist: ((s: StoreSnapshot) => void) | undefined): void {
    this.persist = persist;
  }

  get resourceVersion(): number {
    return this.rv;
  }

  /** The oldest resourceVersion a watch may still resume from. */
  get oldestResumableRV(): number {
    return this.compactedRV;
  }

  private bucket(gr: string): Map<string, KubeObject> {
    let b = this.data.get(gr);
    if (!b) {
      b = new Map();
      this.data.set(gr, b);
    }
    return b;
  }

  get(gr: string, ns: string | undefined, name: string): KubeObject | undefined {
    return this.data.get(gr)?.get(objKey(ns, name));
  }

  /** Objects of a group/resource, optionally in one namespace, ordered by namespace/name. */
  list(gr: string, ns?: string): KubeObject[] {
    const b = this.data.get(gr);
    if (!b) return [];
    const out: KubeObject[] = [];
    for (const o of b.values()) if (ns === undefined || o.metadata.namespace === ns) out.push(o);
    return out.sort((a, c) => sortKey(a).localeCompare(sortKey(c)));
  }

  groupResources(): string[] {
    return [...this.data.keys()];
  }

  /** Store `obj` (created or modified), stamping a new resourceVersion. Returns the stored copy. */
  put(gr: string, obj: KubeObject): KubeObject {
    const stored = clone(obj);
    this.rv++;
    stored.metadata.resourceVersion = String(this.rv);
    const key = objKey(stored.metadata.namespace, stored.metadata.name ?? '');
    const fresh = !this.data.has(gr);
    const b = this.bucket(gr);
    const prev = b.get(key);
    b.set(key, stored);
    this.commit(() => {
      if (prev) b.set(key, prev);
      else b.delete(key);
      if (fresh) this.data.delete(gr);
    });
    this.emit(prev ? { rv: this.rv, type: 'MODIFIED', gr, obj: stored, prev } : { rv: this.rv, type: 'ADDED', gr, obj: stored });
    return stored;
  }

  /** Remove an object; the DELETED event carries a fresh resourceVersion, as etcd's delete revision. */
  remove(gr: string, ns: string | undefined, name: string): KubeObject | undefined {
    const b = this.data.get(gr);
    const key = objKey(ns, name);
    const prev = b?.get(key);
    if (!b || !prev) return undefined;
    b.delete(key);
    this.rv++;
    this.commit(() => b.set(key, prev));
    const gone = clone(prev);
    gone.metadata.resourceVersion = String(this.rv);
    this.emit({ rv: this.rv, type: 'DELETED', gr, obj: gone, prev });
    return gone;
  }

  /** Drop every object of a group/resource without events (CRD removal emits its own). */
  dropAll(gr: string): void {
    this.data.delete(gr);
  }

  /** Persists the change just applied (rv already counted); on failure `undo` reverts it and the error is rethrown. */
  private commit(undo: () => void): void {
    if (!this.persist) return;
    try {
      this.persist(this.snapshot());
    } catch (e) {
      undo();
      this.rv--;
      throw e;
    }
  }

  private emit(e: StoreEvent): void {
    this.history.push(e);
    if (this.history.length > this.historyLimit) {
      const drop = this.history.length - this.historyLimit;
      this.compactedRV = (this.history[drop - 1] as StoreEvent).rv;
      this.history = this.history.slice(drop);
    }
    for (const l of this.listeners) l(e);
  }

  /** Events after `rv`, or 'expired' when some of them were already compacted away. */
  eventsSince(rv: number): StoreEvent[] | 'expired' {
    if (rv < this.compactedRV) return 'expired';
    let i = this.history.length;
    while (i > 0 && (this.history[i - 1] as StoreEvent).rv > rv) i--;
    return this.history.slice(i);
  }

  subscribe(fn: (e: StoreEvent) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  snapshot(): StoreSnapshot {
    const objects: Record<string, KubeObject[]> = {};
    for (const [gr, b] of this.data) objects[gr] = [...b.values()];
    return { resourceVersion: this.rv, objects };
  }

  /** Load a snapshot; watch history starts empty, so older resourceVersions answer 410. */
  restore(s: StoreSnapshot): void {
    this.data.clear();
    for (const [gr, objs] of Object.entries(s.objects)) {
      const b = this.bucket(gr);
      for (const o of objs) b.set(objKey(o.metadata.namespace, o.metadata.name ?? ''), o);
    }
    this.rv = s.resourceVersion;
    this.compactedRV = s.resourceVersion;
    this.history = [];
  }
}

function sortKey(o: KubeObject): string {
  return `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
}
