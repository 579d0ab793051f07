// Read-side memo per shared group (queryEndpoint's per-group parts): computed once, dropped when the
// group or a policy using it changes.

/** Memo slots per group name. */
export class QueryMemo {
  private readonly slots = new Map<string, Map<string, unknown>>();

  /** The value of `slot` for `group`, computed on first use. */
  get<T>(group: string, slot: string, compute: () => T): T {
    let m = this.slots.get(group);
    if (!m) this.slots.set(group, (m = new Map()));
    if (m.has(slot)) return m.get(slot) as T;
    const v = compute();
    m.set(slot, v);
    return v;
  }

  /** Forgets every slot of `group`. */
  drop(group: string): void {
    this.slots.delete(group);
  }
}
