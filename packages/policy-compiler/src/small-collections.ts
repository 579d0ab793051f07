// Map and Set for the engine's many tiny per-group and per-policy collections (members, span
// counts, users): a few entries are held in the object itself, more in a native Map or Set.
// At 100k groups and 75k policies a native Map per collection was a large share of the heap and
// of the garbage collector's copying (see docs/policy-compiler.md, Benchmark).

/** SameValueZero, as Map and Set compare keys. */
function same(a: unknown, b: unknown): boolean {
  return a === b || (a !== a && b !== b);
}

/**
 * A Map holding up to four entries inline (as many as a native Map's smallest table, so it never
 * costs more than one until both grow). Iteration follows insertion order, as a Map's does; an
 * iteration of inline entries sees the entries present when it started.
 */
export class SmallMap<K, V> implements Map<K, V> {
  private n = 0;
  private k0: K | undefined;
  private v0: V | undefined;
  private k1: K | undefined;
  private v1: V | undefined;
  private k2: K | undefined;
  private v2: V | undefined;
  private k3: K | undefined;
  private v3: V | undefined;
  /** Every entry once a fifth one arrived (the inline fields are then unused). */
  private big: Map<K, V> | undefined;

  get size(): number {
    return this.big ? this.big.size : this.n;
  }

  /** Inline slot of `key`, or -1. */
  private slot(key: K): number {
    const n = this.n;
    if (n > 0 && same(this.k0, key)) return 0;
    if (n > 1 && same(this.k1, key)) return 1;
    if (n > 2 && same(this.k2, key)) return 2;
    if (n > 3 && same(this.k3, key)) return 3;
    return -1;
  }

  private keyAt(i: number): K {
    return (i === 0 ? this.k0 : i === 1 ? this.k1 : i === 2 ? this.k2 : this.k3) as K;
  }

  private valueAt(i: number): V {
    return (i === 0 ? this.v0 : i === 1 ? this.v1 : i === 2 ? this.v2 : this.v3) as V;
  }

  private put(i: number, key: K | undefined, value: V | undefined): void {
    if (i === 0) {
      this.k0 = key;
      this.v0 = value;
    } else if (i === 1) {
      this.k1 = key;
      this.v1 = value;
    } else if (i === 2) {
      this.k2 = key;
      this.v2 = value;
    } else {
      this.k3 = key;
      this.v3 = value;
    }
  }

  get(key: K): V | undefined {
    if (this.big) return this.big.get(key);
    const i = this.slot(key);
    return i < 0 ? undefined : this.valueAt(i);
  }

  has(key: K): boolean {
    return this.big ? this.big.has(key) : this.slot(key) >= 0;
  }

  set(key: K, value: V): this {
    if (this.big) {
      this.big.set(key, value);
      return this;
    }
    const i = this.slot(key);
    if (i >= 0) this.put(i, key, value);
    else if (this.n < 4) this.put(this.n++, key, value);
    else {
      const big = new Map<K, V>();
      for (let j = 0; j < 4; j++) big.set(this.keyAt(j), this.valueAt(j));
      big.set(key, value);
      this.clear();
      this.big = big;
    }
    return this;
  }

  delete(key: K): boolean {
    if (this.big) return this.big.delete(key);
    const i = this.slot(key);
    if (i < 0) return false;
    // Later entries move up, keeping insertion order.
    for (let j = i; j < this.n - 1; j++) this.put(j, this.keyAt(j + 1), this.valueAt(j + 1));
    this.put(--this.n, undefined, undefined);
    return true;
  }

  clear(): void {
    this.big = undefined;
    for (let j = 0; j < this.n; j++) this.put(j, undefined, undefined);
    this.n = 0;
  }

  forEach(fn: (value: V, key: K, map: Map<K, V>) => void, thisArg?: unknown): void {
    for (const [k, v] of this.entries()) fn.call(thisArg, v, k, this);
  }

  keys(): MapIterator<K> {
    if (this.big) return this.big.keys();
    const out: K[] = [];
    for (let j = 0; j < this.n; j++) out.push(this.keyAt(j));
    return out.values();
  }

  values(): MapIterator<V> {
    if (this.big) return this.big.values();
    const out: V[] = [];
    for (let j = 0; j < this.n; j++) out.push(this.valueAt(j));
    return out.values();
  }

  entries(): MapIterator<[K, V]> {
    if (this.big) return this.big.entries();
    const out: [K, V][] = [];
    for (let j = 0; j < this.n; j++) out.push([this.keyAt(j), this.valueAt(j)]);
    return out.values();
  }

  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.entries();
  }

  get [Symbol.toStringTag](): string {
    return 'SmallMap';
  }
}

/**
 * A Map holding one entry inline, more in a native Map: for collections that almost always hold
 * one entry and are built once, such as a compiled policy's groups of one role (56 bytes, a
 * SmallMap 104). Same answers and iteration order as a Map.
 */
export class SoloMap<K, V> implements Map<K, V> {
  private one = false;
  private k: K | undefined;
  private v: V | undefined;
  private big: Map<K, V> | undefined;

  get size(): number {
    return this.big ? this.big.size : this.one ? 1 : 0;
  }

  get(key: K): V | undefined {
    if (this.big) return this.big.get(key);
    return this.one && same(this.k, key) ? this.v : undefined;
  }

  has(key: K): boolean {
    return this.big ? this.big.has(key) : this.one && same(this.k, key);
  }

  set(key: K, value: V): this {
    if (this.big) this.big.set(key, value);
    else if (!this.one || same(this.k, key)) {
      this.one = true;
      this.k = key;
      this.v = value;
    } else {
      const big = new Map<K, V>();
      big.set(this.k as K, this.v as V).set(key, value);
      this.clear();
      this.big = big;
    }
    return this;
  }

  delete(key: K): boolean {
    if (this.big) return this.big.delete(key);
    if (!this.one || !same(this.k, key)) return false;
    this.clear();
    return true;
  }

  clear(): void {
    this.big = undefined;
    this.one = false;
    this.k = undefined;
    this.v = undefined;
  }

  forEach(fn: (value: V, key: K, map: Map<K, V>) => void, thisArg?: unknown): void {
    for (const [k, v] of this.entries()) fn.call(thisArg, v, k, this);
  }

  keys(): MapIterator<K> {
    if (this.big) return this.big.keys();
    return (this.one ? [this.k as K] : []).values();
  }

  values(): MapIterator<V> {
    if (this.big) return this.big.values();
    return (this.one ? [this.v as V] : []).values();
  }

  entries(): MapIterator<[K, V]> {
    if (this.big) return this.big.entries();
    return (this.one ? [[this.k as K, this.v as V] as [K, V]] : []).values();
  }

  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.entries();
  }

  get [Symbol.toStringTag](): string {
    return 'SoloMap';
  }
}

/** A Set holding up to two values inline (see {@link SmallMap}). */
export class SmallSet<T> implements Set<T> {
  private n = 0;
  private a: T | undefined;
  private b: T | undefined;
  private big: Set<T> | undefined;

  constructor(values?: Iterable<T>) {
    if (values) for (const v of values) this.add(v);
  }

  get size(): number {
    return this.big ? this.big.size : this.n;
  }

  has(value: T): boolean {
    if (this.big) return this.big.has(value);
    return (this.n > 0 && same(this.a, value)) || (this.n > 1 && same(this.b, value));
  }

  add(value: T): this {
    if (this.big) this.big.add(value);
    else if (this.has(value)) return this;
    else if (this.n === 0) {
      this.a = value;
      this.n = 1;
    } else if (this.n === 1) {
      this.b = value;
      this.n = 2;
    } else {
      this.big = new Set<T>([this.a as T, this.b as T, value]);
      this.a = this.b = undefined;
      this.n = 0;
    }
    return this;
  }

  delete(value: T): boolean {
    if (this.big) return this.big.delete(value);
    if (this.n > 0 && same(this.a, value)) this.a = this.b;
    else if (!(this.n > 1 && same(this.b, value))) return false;
    this.b = undefined;
    this.n--;
    return true;
  }

  clear(): void {
    this.big = undefined;
    this.a = this.b = undefined;
    this.n = 0;
  }

  forEach(fn: (value: T, value2: T, set: Set<T>) => void, thisArg?: unknown): void {
    for (const v of this.values()) fn.call(thisArg, v, v, this);
  }

  values(): SetIterator<T> {
    if (this.big) return this.big.values();
    return (this.n === 0 ? [] : this.n === 1 ? [this.a as T] : [this.a as T, this.b as T]).values();
  }

  keys(): SetIterator<T> {
    return this.values();
  }

  entries(): SetIterator<[T, T]> {
    if (this.big) return this.big.entries();
    const out: [T, T][] = [];
    for (const v of this.values()) out.push([v, v]);
    return out.values();
  }

  [Symbol.iterator](): SetIterator<T> {
    return this.values();
  }

  get [Symbol.toStringTag](): string {
    return 'SmallSet';
  }
}
