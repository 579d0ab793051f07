// Span: which nodes need which policy and address group, as reference counts. A policy spans the
// nodes where its applied-to groups have members; an address group spans the nodes of the
// policies using it. A member appearing on a new node propagates to exactly what now concerns it.
import type { ChangeRecorder } from './change-record';
import { SmallMap } from './small-collections';
import { NO_SPAN, type GroupState, type PolicyState } from './state';

/** Options of {@link SpanCounter}. */
export interface SpanCounterOptions {
  changes: ChangeRecorder;
  /** The current group of a name (the part that owns groups answers). */
  group: (name: string) => GroupState | undefined;
  /** The current policy of a key (the part that owns policies answers). */
  policy: (key: string) => PolicyState | undefined;
}

/** Keeps `PolicyState.span` and `GroupState.addrSpan`, recording each node that enters or leaves. */
export class SpanCounter {
  private readonly changes: ChangeRecorder;
  private readonly group: (name: string) => GroupState | undefined;
  private readonly policy: (key: string) => PolicyState | undefined;

  constructor(options: SpanCounterOptions) {
    this.changes = options.changes;
    this.group = options.group;
    this.policy = options.policy;
  }

  /** `g` got its first member on `node`: every policy applying `g` spans `node` once more. */
  appliedNodeAdded(g: GroupState, node: string): void {
    for (const p of g.appliedUsers) this.policyNodeInc(p, node);
  }

  /** `g` lost its last member on `node`. */
  appliedNodeRemoved(g: GroupState, node: string): void {
    for (const p of g.appliedUsers) this.policyNodeDec(p, node);
  }

  /** `p` now applies `g`: `g`'s nodes count in `p`'s span (before its address groups are counted). */
  countApplied(p: PolicyState, g: GroupState): void {
    for (const n of g.byNode.keys()) p.span.set(n, (p.span.get(n) ?? 0) + 1);
  }

  /** `p` now uses address group `g`: `p`'s nodes count in `g`'s span. */
  countAddress(p: PolicyState, g: GroupState): void {
    for (const n of p.span.keys()) this.addrInc(g, n);
  }

  /** `p` no longer uses address group `g`. */
  uncountAddress(p: PolicyState, g: GroupState): void {
    for (const n of p.span.keys()) this.addrDec(g, n);
  }

  /** `p` applies no group any more (its address groups were uncounted first). */
  clear(p: PolicyState): void {
    p.span.clear();
  }

  private policyNodeInc(key: string, node: string): void {
    const p = this.policy(key);
    if (!p) return;
    const c = p.span.get(node) ?? 0;
    if (c === 0) this.changes.policySpanChanging(key, p, node, false);
    p.span.set(node, c + 1);
    if (c === 0) for (const name of p.compiled.addressGroups.keys()) {
      const g = this.group(name);
      if (g) this.addrInc(g, node);
    }
  }

  private policyNodeDec(key: string, node: string): void {
    const p = this.policy(key);
    if (!p) return;
    const c = p.span.get(node) ?? 0;
    if (c > 1) {
      p.span.set(node, c - 1);
      return;
    }
    if (c > 0) this.changes.policySpanChanging(key, p, node, true);
    else this.changes.touchPolicy(key, p);
    p.span.delete(node);
    for (const name of p.compiled.addressGroups.keys()) {
      const g = this.group(name);
      if (g) this.addrDec(g, node);
    }
  }

  private addrInc(g: GroupState, node: string): void {
    const c = g.addrSpan.get(node) ?? 0;
    if (c === 0) this.changes.addressSpanChanging(g, node, false);
    else this.changes.touchGroup(g);
    if (g.addrSpan === NO_SPAN) g.addrSpan = new SmallMap();
    g.addrSpan.set(node, c + 1);
  }

  private addrDec(g: GroupState, node: string): void {
    const c = g.addrSpan.get(node) ?? 0;
    if (c === 1) {
      this.changes.addressSpanChanging(g, node, true);
      g.addrSpan.delete(node);
    } else {
      this.changes.touchGroup(g);
      if (c > 1) g.addrSpan.set(node, c - 1);
    }
  }
}
