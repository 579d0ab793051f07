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
    if (before.length === after.length) {
      let same = true;
      for (let i = 0; i < before.length && same; i++) same = before[i] === after[i];
      if (same) return;
    }
    for (let i = 0; i < before.length; i++) this.remove(before[i]!, owner);
    for (let i = 0; i < after.length; i++) this.add(after[i]!, owner);
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
