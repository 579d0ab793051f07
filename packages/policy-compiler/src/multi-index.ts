// A string-keyed multimap that stores a lone value without a Set: most keys of the engine's
// per-Namespace and per-selector indexes hold one value, and a Set per key dominated the heap.
// Values are strings (group names, member keys) or records (pod slots), never Sets.

import { SmallMap } from './small-collections';

const NONE: readonly never[] = [];

/** key -> values (unordered, unique). */
export class MultiIndex<V extends string | object> {
  private readonly m: Map<string, V | Set<V>>;

  /** `inline`: for the many indexes with a few keys (see small-collections.ts). */
  constructor(options: { inline?: boolean } = {}) {
    this.m = options.inline ? new SmallMap<string, V | Set<V>>() : new Map<string, V | Set<V>>();
  }

  /** True when no key holds a value. */
  get empty(): boolean {
    return this.m.size === 0;
  }

  add(key: string, value: V): void {
    const cur = this.m.get(key);
    if (cur === undefined) this.m.set(key, value);
    else if (!(cur instanceof Set)) {
      if (cur !== value) this.m.set(key, new Set([cur, value]));
    } else cur.add(value);
  }

  delete(key: string, value: V): void {
    const cur = this.m.get(key);
    if (cur === undefined) return;
    if (!(cur instanceof Set)) {
      if (cur === value) this.m.delete(key);
      return;
    }
    cur.delete(value);
    if (cur.size === 1) this.m.set(key, cur.values().next().value as V);
  }

  /** The values of `key` (a live view: copy before changing the index while iterating). */
  get(key: string): Iterable<V> {
    const cur = this.m.get(key);
    return cur === undefined ? NONE : cur instanceof Set ? cur : [cur];
  }

  size(key: string): number {
    const cur = this.m.get(key);
    return cur === undefined ? 0 : cur instanceof Set ? cur.size : 1;
  }

  /** Every value under every key. */
  *all(): IterableIterator<V> {
    for (const cur of this.m.values()) {
      if (cur instanceof Set) yield* cur;
      else yield cur;
    }
  }
}
