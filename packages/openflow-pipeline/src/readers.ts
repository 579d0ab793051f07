/**
 * Which owners read which dependency keys: the reverse of each owner's recorded reads. Most keys
 * have one reader (a rule's OpenFlow priority, a pod's address read by the one policy applied to
 * it), so a key holds its reader directly until a second one comes.
 */
export class Readers<O> {
  private readonly byKey = new Map<string, O | Set<O>>();

  /** Calls `fn` with every owner that read `key` (a callback, not a generator: a big change asks for thousands of keys). */
  each(key: string, fn: (owner: O) => void): void {
    const r = this.byKey.get(key);
    if (r === undefined) return;
    if (r instanceof Set) r.forEach(fn);
    else fn(r);
  }

  /** Replaces the keys `owner` read (`before`) with `after`. */
  replace(owner: O, before: readonly string[], after: readonly string[]): void {
    if (before.length === after.length && before.every((k, i) => k === after[i])) return;
    for (const k of before) this.remove(k, owner);
    for (const k of after) this.add(k, owner);
  }

  private add(key: string, owner: O): void {
    const r = this.byKey.get(key);
    if (r === undefined) this.byKey.set(key, owner);
    else if (r instanceof Set) r.add(owner);
    else if (r !== owner) this.byKey.set(key, new Set([r, owner]));
  }

  private remove(key: string, owner: O): void {
    const r = this.byKey.get(key);
    if (r === owner) this.byKey.delete(key);
    else if (r instanceof Set) {
      r.delete(owner);
      if (r.size === 0) this.byKey.delete(key);
    }
  }
}
