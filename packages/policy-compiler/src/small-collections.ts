// Map and Set for the engine's many tiny per-group and per-policy collections (members, span
// counts, users): a few entries are held in the object itself, more in a native Map or Set.
// At 100k groups and 75k policies a native Map per collection was a large share of the heap and
// of the garbage collector's copying (see docs/policy-compiler.md, Benchmark).

/** SameValueZero, as Map and Set compare keys. */
function same(a: unknown, b: unknown): boolean {
  return a === b || (a !== a && b !== b);
}

/**
 * Marks an unused inline slot (no caller can hold it, so any key or value, `undefined` included,
 * stays storable). The collections keep no count: which slots are used is read from the keys,
 * one field less per collection (there are hundreds of thousands of them).
 */
const EMPTY: unknown = Object.freeze({});

/**
 * A Map holding up to four entries inline (as many as a native Map's smallest table, so it never
 * costs more than one until both grow), more in a native Map. Iteration follows insertion order,
 * as a Map's does; an iteration of inline entries sees the entries present when it started.
 */
export class SmallMap<K, V> implements Map<K, V> {
  private k0: K | undefined = EMPTY as K;
  private v0: V | undefined = undefined;
  private k1: K | undefined = EMPTY as K;
  private v1: V | undefined = undefined;
  private k2: K | undefined = EMPTY as K;
  private v2: V | undefined = undefined;
  private k3: K | undefined = EMPTY as K;
  private v3: V | undefined = undefined;
  /** Every entry once a fifth one arrived (the inline fields are then unused). */
  private big: Map<K, V> | undefined = undefined;

  /** Number of inline entries (they fill the slots in order). */
  private inline(): number {
    return this.k3 !== EMPTY ? 4 : this.k2 !== EMPTY ? 3 : this.k1 !== EMPTY ? 2 : this.k0 !== EMPTY ? 1 : 0;
  }

  get size(): number {
    return this.big ? this.big.size : this.inline();
  }

  /** Inline slot of `key`, or -1. */
  private slot(key: K): number {
    if (this.k0 === EMPTY) return -1;
    if (same(this.k0, key)) return 0;
    if (this.k1 === EMPTY) return -1;
    if (same(this.k1, key)) return 1;
    if (this.k2 === EMPTY) return -1;
    if (same(this.k2, key)) return 2;
    if (this.k3 !== EMPTY && same(this.k3, key)) return 3;
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
    if (i >= 0) {
      this.put(i, key, value);
      return this;
    }
    const n = this.inline();
    if (n < 4) this.put(n, key, value);
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
    const n = this.inline();
    for (let j = i; j < n - 1; j++) this.put(j, this.keyAt(j + 1), this.valueAt(j + 1));
    this.put(n - 1, EMPTY as K, undefined);
    return true;
  }

  clear(): void {
    this.big = undefined;
    this.k0 = this.k1 = this.k2 = this.k3 = EMPTY as K;
    this.v0 = this.v1 = this.v2 = this.v3 = undefined;
  }

  forEach(fn: (value: V, key: K, map: Map<K, V>) => void, thisArg?: unknown): void {
    for (const [k, v] of this.entries()) fn.call(thisArg, v, k, this);
  }

  keys(): MapIterator<K> {
    if (this.big) return this.big.keys();
    const n = this.inline();
    const out: K[] = [];
    for (let j = 0; j < n; j++) out.push(this.keyAt(j));
    return out.values();
  }

  values(): MapIterator<V> {
    if (this.big) return this.big.values();
    const n = this.inline();
    const out: V[] = [];
    for (let j = 0; j < n; j++) out.push(this.valueAt(j));
    return out.values();
  }

  entries(): MapIterator<[K, V]> {
    if (this.big) return this.big.entries();
    const n = this.inline();
    const out: [K, V][] = [];
    for (let j = 0; j < n; j++) out.push([this.keyAt(j), this.valueAt(j)]);
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
  /** The inline entry's key ({@link EMPTY}: none). */
  private k: K | undefined = EMPTY as K;
  private v: V | undefined = undefined;
  private big: Map<K, V> | undefined = undefined;

  get size(): number {
    return this.big ? this.big.size : this.k !== EMPTY ? 1 : 0;
  }

  get(key: K): V | undefined {
    if (this.big) return this.big.get(key);
    return this.k !== EMPTY && same(this.k, key) ? this.v : undefined;
  }

  has(key: K): boolean {
    return this.big ? this.big.has(key) : this.k !== EMPTY && same(this.k, key);
  }

  set(key: K, value: V): this {
    if (this.big) this.big.set(key, value);
    else if (this.k === EMPTY || same(this.k, key)) {
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
    if (this.k === EMPTY || !same(this.k, key)) return false;
    this.clear();
    return true;
  }

  clear(): void {
    this.big = undefined;
    this.k = EMPTY as K;
    this.v = undefined;
  }

  forEach(fn: (value: V, key: K, map: Map<K, V>) => void, thisArg?: unknown): void {
    for (const [k, v] of this.entries()) fn.call(thisArg, v, k, this);
  }

  keys(): MapIterator<K> {
    if (this.big) return this.big.keys();
    return (this.k !== EMPTY ? [this.k as K] : []).values();
  }

  values(): MapIterator<V> {
    if (this.big) return this.big.values();
    return (this.k !== EMPTY ? [this.v as V] : []).values();
  }

  entries(): MapIterator<[K, V]> {
    if (this.big) return this.big.entries();
    return (this.k !== EMPTY ? [[this.k as K, this.v as V] as [K, V]] : []).values();
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
  /** The inline values in order ({@link EMPTY}: unused; `b` is used only when `a` is). */
  private a: T | undefined = EMPTY as T;
  private b: T | undefined = EMPTY as T;
  private big: Set<T> | undefined = undefined;

  constructor(values?: Iterable<T>) {
    if (values) for (const v of values) this.add(v);
  }

  get size(): number {
    return this.big ? this.big.size : this.b !== EMPTY ? 2 : this.a !== EMPTY ? 1 : 0;
  }

  has(value: T): boolean {
    if (this.big) return this.big.has(value);
    return (this.a !== EMPTY && same(this.a, value)) || (this.b !== EMPTY && same(this.b, value));
  }

  add(value: T): this {
    if (this.big) this.big.add(value);
    else if (this.has(value)) return this;
    else if (this.a === EMPTY) this.a = value;
    else if (this.b === EMPTY) this.b = value;
    else {
      this.big = new Set<T>([this.a as T, this.b as T, value]);
      this.a = this.b = EMPTY as T;
    }
    return this;
  }

  delete(value: T): boolean {
    if (this.big) return this.big.delete(value);
    if (this.a !== EMPTY && same(this.a, value)) this.a = this.b;
    else if (!(this.b !== EMPTY && same(this.b, value))) return false;
    this.b = EMPTY as T;
    return true;
  }

  clear(): void {
    this.big = undefined;
    this.a = this.b = EMPTY as T;
  }

  forEach(fn: (value: T, value2: T, set: Set<T>) => void, thisArg?: unknown): void {
    for (const v of this.values()) fn.call(thisArg, v, v, this);
  }

  values(): SetIterator<T> {
    if (this.big) return this.big.values();
    return (this.a === EMPTY ? [] : this.b === EMPTY ? [this.a as T] : [this.a as T, this.b as T]).values();
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
