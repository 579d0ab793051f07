// Map and Set for the engine's many tiny per-group and per-policy collections (members, span
// counts, users): up to two entries are held in the object itself, more in a native Map or Set.
// At 100k groups and 75k policies a native Map per collection was a large share of the heap and
// of the garbage collector's copying (see docs/policy-compiler.md, Benchmark).

/** SameValueZero, as Map and Set compare keys. */
function same(a: unknown, b: unknown): boolean {
  return a === b || (a !== a && b !== b);
}

/**
 * A Map holding up to two entries inline. Iteration follows insertion order, as a Map's does;
 * an iteration of inline entries sees the entries present when it started.
 */
export class SmallMap<K, V> implements Map<K, V> {
  private n = 0;
  private k0: K | undefined;
  private v0: V | undefined;
  private k1: K | undefined;
  private v1: V | undefined;
  /** Every entry once a third one arrived (the inline fields are then unused). */
  private big: Map<K, V> | undefined;

  get size(): number {
    return this.big ? this.big.size : this.n;
  }

  get(key: K): V | undefined {
    if (this.big) return this.big.get(key);
    if (this.n > 0 && same(this.k0, key)) return this.v0;
    if (this.n > 1 && same(this.k1, key)) return this.v1;
    return undefined;
  }

  has(key: K): boolean {
    if (this.big) return this.big.has(key);
    return (this.n > 0 && same(this.k0, key)) || (this.n > 1 && same(this.k1, key));
  }

  set(key: K, value: V): this {
    if (this.big) {
      this.big.set(key, value);
    } else if (this.n > 0 && same(this.k0, key)) {
      this.v0 = value;
    } else if (this.n > 1 && same(this.k1, key)) {
      this.v1 = value;
    } else if (this.n === 0) {
      this.k0 = key;
      this.v0 = value;
      this.n = 1;
    } else if (this.n === 1) {
      this.k1 = key;
      this.v1 = value;
      this.n = 2;
    } else {
      this.big = new Map<K, V>([[this.k0 as K, this.v0 as V], [this.k1 as K, this.v1 as V], [key, value]]);
      this.k0 = this.k1 = undefined;
      this.v0 = this.v1 = undefined;
      this.n = 0;
    }
    return this;
  }

  delete(key: K): boolean {
    if (this.big) return this.big.delete(key);
    if (this.n > 0 && same(this.k0, key)) {
      // The second entry moves up, keeping insertion order.
      this.k0 = this.k1;
      this.v0 = this.v1;
    } else if (!(this.n > 1 && same(this.k1, key))) return false;
    this.k1 = undefined;
    this.v1 = undefined;
    this.n--;
    return true;
  }

  clear(): void {
    this.big = undefined;
    this.k0 = this.k1 = undefined;
    this.v0 = this.v1 = undefined;
    this.n = 0;
  }

  forEach(fn: (value: V, key: K, map: Map<K, V>) => void, thisArg?: unknown): void {
    for (const [k, v] of this.entries()) fn.call(thisArg, v, k, this);
  }

  keys(): MapIterator<K> {
    if (this.big) return this.big.keys();
    return (this.n === 0 ? [] : this.n === 1 ? [this.k0 as K] : [this.k0 as K, this.k1 as K]).values();
  }

  values(): MapIterator<V> {
    if (this.big) return this.big.values();
    return (this.n === 0 ? [] : this.n === 1 ? [this.v0 as V] : [this.v0 as V, this.v1 as V]).values();
  }

  entries(): MapIterator<[K, V]> {
    if (this.big) return this.big.entries();
    const out: [K, V][] = [];
    if (this.n > 0) out.push([this.k0 as K, this.v0 as V]);
    if (this.n > 1) out.push([this.k1 as K, this.v1 as V]);
    return out.values();
  }

  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.entries();
  }

  get [Symbol.toStringTag](): string {
    return 'SmallMap';
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
