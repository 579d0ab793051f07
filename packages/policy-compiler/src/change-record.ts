// What the current event changed, recorded as it happens: the first touch of a group or policy
// records what it was, later changes record only a member's or span node's previous value, once.
// The delta is built from these records, so its cost follows what changed, not what exists.
import type { controlplane } from '@switchyard/apis/types';
import type { GroupState, MemberKey, PolicyState } from './state';

/**
 * Nodes whose presence in a span changed during an event, mapped to their presence before it
 * (set on the first change only). Recording changes instead of copying spans keeps touching a
 * group or policy O(1) however many nodes it spans.
 */
export type SpanChanges = Map<string, boolean>;

/** A member as it was before the event (null: absent). */
export type PreMember = { m: controlplane.GroupMember; node: string } | null;

/** What a group looked like when the current event first touched it. */
export interface GroupChanges {
  /** The group's state object now (a group released and acquired again in the event gets a new one). */
  g: GroupState;
  wasAddr: boolean;
  wasApplied: boolean;
  /** Address-group span nodes whose presence changed, with their presence before the event. */
  addrChanges: SpanChanges;
  /** Same for the applied-to span (nodes with members). */
  appliedChanges: SpanChanges;
  /** Members as they were before the event; recorded only for groups nodes already had. */
  preMembers: Map<MemberKey, PreMember>;
}

/** What a policy was when the current event first touched it. */
export interface PolicyChanges {
  /** The policy's state object at the start of the event (undefined: it did not exist). */
  state: PolicyState | undefined;
  pre: controlplane.NetworkPolicy | undefined;
  spanChanges: SpanChanges;
}

/** The records of one event, in the order groups and policies were first touched. */
export interface EventChanges {
  readonly groups: ReadonlyMap<string, GroupChanges>;
  readonly policies: ReadonlyMap<string, PolicyChanges>;
}

/** The span before the event, from the current span and the recorded changes. */
export function preSpan(current: ReadonlyMap<string, unknown>, changes: SpanChanges): string[] {
  const out: string[] = [];
  for (const n of current.keys()) if (changes.get(n) ?? true) out.push(n);
  for (const [n, before] of changes) if (before && !current.has(n)) out.push(n);
  return out;
}

function noteSpan(changes: SpanChanges, node: string, presentBefore: boolean): void {
  if (!changes.has(node)) changes.set(node, presentBefore);
}

/** Options of {@link ChangeRecorder}. */
export interface ChangeRecorderOptions {
  /** Told on every touch of a group, recording or not (read-side memos of the group are stale). */
  onGroupTouched?: (name: string) => void;
}

/** Records the changes of the current event; records nothing while a bulk load runs. */
export class ChangeRecorder {
  private readonly onGroupTouched: ((name: string) => void) | undefined;
  private recording = true;
  private groups = new Map<string, GroupChanges>();
  private policies = new Map<string, PolicyChanges>();

  constructor(options: ChangeRecorderOptions = {}) {
    this.onGroupTouched = options.onGroupTouched;
  }

  /** Runs `fn` (a bulk load) without recording anything, then starts afresh. */
  withoutRecording<T>(fn: () => T): T {
    this.recording = false;
    try {
      return fn();
    } finally {
      this.recording = true;
      this.discard();
    }
  }

  /** Drops what was recorded (an event that did not finish). */
  discard(): void {
    if (this.groups.size > 0) this.groups = new Map();
    if (this.policies.size > 0) this.policies = new Map();
  }

  /** The records of the event so far; recording starts afresh. */
  take(): EventChanges {
    const out = { groups: this.groups, policies: this.policies };
    this.groups = new Map();
    this.policies = new Map();
    return out;
  }

  /** Starts recording a group's pre-event state (no record during a bulk load). */
  touchGroup(g: GroupState): GroupChanges | undefined {
    this.onGroupTouched?.(g.def.name);
    if (!this.recording) return undefined;
    let t = this.groups.get(g.def.name);
    if (!t) {
      t = { g, wasAddr: g.addrUsers.size > 0, wasApplied: g.appliedUsers.size > 0, addrChanges: new Map(), appliedChanges: new Map(), preMembers: new Map() };
      this.groups.set(g.def.name, t);
    } else if (t.g !== g) {
      // Released and acquired again within this event: the pre-event record stays, state moves on.
      t.g = g;
    }
    return t;
  }

  /** A member of `g` is about to change; `pre` is what it is now. */
  memberChanging(g: GroupState, mk: MemberKey, pre: PreMember): void {
    const t = this.touchGroup(g);
    // A group no node received before this event is sent whole: its member history is not needed.
    if (t && (t.wasAddr || t.wasApplied) && !t.preMembers.has(mk)) t.preMembers.set(mk, pre);
  }

  /** `node` enters (`presentBefore` false) or leaves the applied-to span of `g` (nodes with members). */
  appliedSpanChanging(g: GroupState, node: string, presentBefore: boolean): void {
    const t = this.touchGroup(g);
    if (t) noteSpan(t.appliedChanges, node, presentBefore);
  }

  /** `node` enters or leaves the address-group span of `g`. */
  addressSpanChanging(g: GroupState, node: string, presentBefore: boolean): void {
    const t = this.touchGroup(g);
    if (t) noteSpan(t.addrChanges, node, presentBefore);
  }

  /** Starts recording a policy's pre-event state; `state` is its state now (no record during a bulk load). */
  touchPolicy(key: string, state: PolicyState | undefined): PolicyChanges | undefined {
    if (!this.recording) return undefined;
    let t = this.policies.get(key);
    if (!t) {
      t = { state, pre: state?.compiled.policy, spanChanges: new Map() };
      this.policies.set(key, t);
    }
    return t;
  }

  /** `node` enters or leaves the span of the policy `key`. */
  policySpanChanging(key: string, state: PolicyState | undefined, node: string, presentBefore: boolean): void {
    const t = this.touchPolicy(key, state);
    if (t) noteSpan(t.spanChanges, node, presentBefore);
  }
}
