// The compiled policies: each policy compiled from its input and attached to its shared groups,
// and what each read when compiled (its dependencies), so an input change recompiles its readers.
import type { ChangeRecorder } from './change-record';
import type { CompileContext, CompiledPolicy } from './compile';
import type { GroupMembership } from './group-membership';
import { MultiIndex } from './multi-index';
import { compileObject, kindOf } from './object-kinds';
import { SmallMap } from './small-collections';
import type { SpanCounter } from './span';
import type { GroupState, PolicyState } from './state';
import type { ClusterObject } from './types';

/** What compiling policies reads (the cluster inputs). The table keeps the policy inputs itself. */
export interface PolicySource {
  readonly compilation: CompileContext;
}

/** Options of {@link PolicyTable}. */
export interface PolicyTableOptions {
  inputs: PolicySource;
  membership: GroupMembership;
  spans: SpanCounter;
  changes: ChangeRecorder;
}

/** Compiled policies by engine key, kept in step with their inputs. */
export class PolicyTable {
  readonly policies = new Map<string, PolicyState>();
  /** Dependency key (`cg:x`, `ns:*`, ...) -> keys of the policies that read it when compiled. */
  private readonly deps = new MultiIndex<string>();
  private readonly inputs: PolicySource;
  private readonly membership: GroupMembership;
  private readonly spans: SpanCounter;
  private readonly changes: ChangeRecorder;

  constructor(options: PolicyTableOptions) {
    this.inputs = options.inputs;
    this.membership = options.membership;
    this.spans = options.spans;
    this.changes = options.changes;
  }

  get(key: string): PolicyState | undefined {
    return this.policies.get(key);
  }

  /** The input policy `key` is compiled from (the table is where policy inputs are stored). */
  input(key: string): ClusterObject | undefined {
    return this.policies.get(key)?.input;
  }

  /** Recompiles every policy that read dependency `dep`, in key order. */
  resync(dep: string): void {
    const users = [...this.deps.get(dep)];
    for (const p of users.sort()) this.sync(p);
  }

  /**
   * Compiles policy `key` from `input` (its new version; null: deleted; undefined: the version it
   * has, to recompile what depends on something else) and moves it to its new groups. The input is
   * stored with the compiled policy, so one that does not compile leaves the previous one in force.
   */
  sync(key: string, input?: ClusterObject | null): void {
    let p = this.policies.get(key);
    const obj = input === undefined ? p?.input : (input ?? undefined);
    const next = obj ? compileObject(kindOf(obj), obj, this.inputs.compilation) : undefined;
    const t = this.changes.touchPolicy(key, p);
    // A K8s NetworkPolicy without metadata.uid gets `K8sNetworkPolicy/<ns>/<name>` as uid: the
    // text of its key. Keep one string for both (75k policies in scenario 1).
    if (next && next.policy.uid === key) {
      next.policy.uid = key;
      next.policy.sourceRef.uid = key;
    }
    const oldSpan = p && t ? new Set(p.span.keys()) : undefined;
    // Detach from the old groups (spans drop), keep them alive until the new ones attach.
    const oldGroups = p ? this.detach(key, p) : [];
    if (next) {
      if (!p) this.policies.set(key, (p = { key, input: obj as ClusterObject, compiled: next, span: new SmallMap() }));
      p.input = obj as ClusterObject;
      p.compiled = next;
      this.attach(key, p, next);
    } else if (p) this.policies.delete(key);
    if (oldSpan) {
      const now = p && next ? p.span : new Map<string, number>();
      for (const n of oldSpan) if (!now.has(n)) this.changes.policySpanChanging(key, p, n, true);
      for (const n of now.keys()) if (!oldSpan.has(n)) this.changes.policySpanChanging(key, p, n, false);
    }
    for (const g of oldGroups) this.membership.releaseIfUnused(g);
  }

  private detach(key: string, p: PolicyState): GroupState[] {
    const old = p.compiled;
    const groups: GroupState[] = [];
    for (const name of old.addressGroups.keys()) {
      const g = this.membership.group(name);
      if (!g) continue;
      this.membership.removeUser(g, 'address', key);
      this.spans.uncountAddress(p, g);
      groups.push(g);
    }
    for (const name of old.appliedToGroups.keys()) {
      const g = this.membership.group(name);
      if (!g) continue;
      this.membership.removeUser(g, 'applied', key);
      groups.push(g);
    }
    this.spans.clear(p);
    for (const d of old.deps) this.deps.delete(d, key);
    return groups;
  }

  private attach(key: string, p: PolicyState, next: CompiledPolicy): void {
    for (const d of next.deps) this.deps.add(d, key);
    for (const def of next.appliedToGroups.values()) {
      const g = this.membership.acquire(def);
      // Share the live group's definition instead of keeping an equal copy per policy.
      if (g.def !== def) next.appliedToGroups.set(def.name, g.def);
      this.membership.addUser(g, 'applied', key);
      this.spans.countApplied(p, g);
    }
    for (const def of next.addressGroups.values()) {
      const g = this.membership.acquire(def);
      if (g.def !== def) next.addressGroups.set(def.name, g.def);
      this.membership.addUser(g, 'address', key);
      this.spans.countAddress(p, g);
    }
  }
}
