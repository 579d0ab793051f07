/**
 * Conjunction ids for the incremental pipeline: an owner keeps the id of every rule key it asks
 * for again; keys it stops asking for (or all of a removed owner's) are released at the end of the
 * change and reused by later changes, lowest first. Every change is journaled so it can be undone.
 */

/** A min-heap of free ids. */
class FreeIds {
  private heap: number[] = [];

  get size(): number {
    return this.heap.length;
  }

  peek(): number | undefined {
    return this.heap[0];
  }

  push(x: number): void {
    const h = this.heap;
    h.push(x);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (h[p]! <= x) break;
      h[i] = h[p]!;
      i = p;
    }
    h[i] = x;
  }

  pop(): number | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (h.length > 0 && last !== undefined) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= h.length) break;
        const c = l + 1 < h.length && h[l + 1]! < h[l]! ? l + 1 : l;
        if (h[c]! >= last) break;
        h[i] = h[c]!;
        i = c;
      }
      h[i] = last;
    }
    return top;
  }

  snapshot(): number[] {
    return [...this.heap];
  }

  restore(s: number[]): void {
    this.heap = s;
  }
}

interface Held {
  id: number;
  owner: string;
}

/** Conjunction ids by rule key, per owner. */
export class ConjunctionIds {
  private readonly held = new Map<string, Held>();
  private readonly byOwner = new Map<string, string[]>();
  private readonly free = new FreeIds();
  private next = 1;
  /** Keys asked for during the current change, per owner computed in it. */
  private claimed = new Map<string, string[]>();
  /** Undo log of the current change: previous holdings of the keys it touched. */
  private journal: { key: string; was: Held | undefined }[] = [];
  private saved = { next: 1, free: [] as number[] };

  /** Starts a change. */
  begin(): void {
    this.claimed = new Map();
    this.journal = [];
    this.saved = { next: this.next, free: this.free.snapshot() };
  }

  /** The id of `key` for `owner`: its current one, else the lowest free id. */
  acquire(owner: string, key: string): number {
    const keys = this.claimed.get(owner);
    if (!keys) this.claimed.set(owner, [key]);
    else if (!keys.includes(key)) keys.push(key);
    const h = this.held.get(key);
    if (h && h.owner === owner) return h.id;
    const id = this.free.size > 0 ? this.free.pop()! : this.next++;
    this.set(key, { id, owner });
    return id;
  }

  /**
   * Ends a change: every owner in `computed` keeps only the keys it asked for during it; owners in
   * `removed` lose all theirs. Released ids become free for later changes.
   */
  finish(computed: Iterable<string>, removed: Iterable<string>): void {
    const release: number[] = [];
    for (const owner of computed) {
      const asked = this.claimed.get(owner);
      const held = this.byOwner.get(owner);
      if (held === undefined) continue;
      // The usual owner asked again for every key it holds: no copy of its list to walk.
      let keep = true;
      for (let i = 0; i < held.length && keep; i++) keep = asked !== undefined && asked.includes(held[i]!);
      if (keep) continue;
      for (const key of [...held]) if (!asked?.includes(key)) release.push(this.drop(key));
    }
    for (const owner of removed) for (const key of [...(this.byOwner.get(owner) ?? [])]) release.push(this.drop(key));
    for (const id of release) this.free.push(id);
  }

  /** Reverts the current change. */
  undo(): void {
    for (let i = this.journal.length - 1; i >= 0; i--) {
      const { key, was } = this.journal[i]!;
      this.unlink(key);
      if (was) this.link(key, was);
    }
    this.journal = [];
    this.next = this.saved.next;
    this.free.restore(this.saved.free);
  }

  /** Every key with its id. */
  entries(): Map<string, number> {
    return new Map([...this.held].map(([k, h]) => [k, h.id]));
  }

  private drop(key: string): number {
    const id = this.held.get(key)!.id;
    this.set(key, undefined);
    return id;
  }

  private set(key: string, h: Held | undefined): void {
    this.journal.push({ key, was: this.held.get(key) });
    this.unlink(key);
    if (h) this.link(key, h);
  }

  private link(key: string, h: Held): void {
    this.held.set(key, h);
    const keys = this.byOwner.get(h.owner);
    if (!keys) this.byOwner.set(h.owner, [key]);
    else keys.push(key);
  }

  private unlink(key: string): void {
    const h = this.held.get(key);
    if (!h) return;
    this.held.delete(key);
    const keys = this.byOwner.get(h.owner);
    if (!keys) return;
    const i = keys.indexOf(key);
    if (i >= 0) keys.splice(i, 1);
    if (keys.length === 0) this.byOwner.delete(h.owner);
  }
}
