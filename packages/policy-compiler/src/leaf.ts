// Member selectors ("leaves") that define shared groups, their canonical keys and matching.
import type { LabelSelector } from '@switchyard/apis/types';
import { fnv64 } from './hash';
import { EVERYTHING, fromRequirements, matchesNormalized, normalizeSelector, type NormalizedSelector } from './selector';

/** Label every Namespace implicitly carries (API server behaviour since 1.21). */
export const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

/**
 * One member selector of a group: pods, ExternalEntities or Nodes selected by labels,
 * optionally restricted to a fixed Namespace and/or Namespaces matching a selector, and (pods)
 * a ServiceAccount name. A group is the union of its leaves.
 */
export interface Leaf {
  readonly kind: 'pod' | 'ee' | 'node';
  /** Fixed Namespace (namespaced selection). */
  readonly ns?: string;
  /** Namespace selector; absent with `ns` absent means every Namespace for pod/ee leaves. */
  readonly nsSel?: NormalizedSelector;
  readonly sel: NormalizedSelector;
  /** Pods only: `spec.serviceAccountName` (default `default`). */
  readonly sa?: string;
}

/** Canonical text of a leaf. */
export function leafKey(l: Leaf): string {
  // One flat string (join), not a tree of concatenations: a group keeps its key.
  return [l.kind, l.ns ?? '', l.nsSel ? l.nsSel.key : '*', l.sel.key, l.sa ?? ''].join('|');
}

/** A group definition: sorted, deduplicated leaves; `name` is the hash of their keys. */
export interface GroupDef {
  readonly name: string;
  readonly key: string;
  readonly leaves: readonly Leaf[];
}

/**
 * A group definition whose key text is recomputed when read: the engine keeps one per group
 * (100k in scenario 1) and never reads the text after hashing it into the name.
 */
class SharedGroupDef implements GroupDef {
  constructor(
    readonly name: string,
    readonly leaves: readonly Leaf[],
  ) {}

  get key(): string {
    return this.leaves.length === 1 ? leafKey(this.leaves[0] as Leaf) : this.leaves.map(leafKey).join(';');
  }
}

/**
 * {@link groupOf} for a one-leaf array the caller hands over (an exactly sized literal it never
 * touches again): the definition keeps that array instead of a copy.
 */
export function groupOfOwned(leaves: readonly Leaf[]): GroupDef {
  return leaves.length === 1 ? new SharedGroupDef(fnv64(leafKey(leaves[0] as Leaf)), leaves) : groupOf(leaves);
}

/** Builds the shared group for a set of leaves (order and duplicates do not matter). */
export function groupOf(leaves: Iterable<Leaf>): GroupDef {
  if (Array.isArray(leaves) && leaves.length === 1) {
    // The common case (one selector): no sorting or deduplication to do.
    const l = leaves[0] as Leaf;
    return new SharedGroupDef(fnv64(leafKey(l)), [l]);
  }
  const byKey = new Map<string, Leaf>();
  for (const l of leaves) byKey.set(leafKey(l), l);
  const keys = [...byKey.keys()].sort();
  return new SharedGroupDef(fnv64(keys.join(';')), keys.map((k) => byKey.get(k) as Leaf));
}

/** Selector from a raw LabelSelector, `undefined` meaning "everything" (the caller's choice). */
export function selOrAll(sel: LabelSelector | undefined): NormalizedSelector {
  return sel === undefined || sel === null ? EVERYTHING : normalizeSelector(sel);
}

/** ANDs two normalized selectors. */
export function andSel(a: NormalizedSelector | undefined, b: NormalizedSelector): NormalizedSelector {
  if (!a) return b;
  return fromRequirements([...a.requirements, ...b.requirements]);
}

/** Labels of a Namespace as selectors see them (with the implied name label). */
export function namespaceLabels(name: string, labels: Readonly<Record<string, string>> | undefined): Record<string, string> {
  return { ...labels, [NAMESPACE_NAME_LABEL]: name };
}

/** Candidate to match: what a leaf needs to know about an object. */
export interface MemberFacts {
  kind: 'pod' | 'ee' | 'node';
  namespace: string;
  labels: Readonly<Record<string, string>> | undefined;
  nsLabels: Readonly<Record<string, string>> | undefined;
  serviceAccount?: string;
}

/** True when the leaf selects the member. */
export function leafMatches(l: Leaf, m: MemberFacts): boolean {
  if (l.kind !== m.kind) return false;
  if (l.kind !== 'node') {
    if (l.ns !== undefined && l.ns !== m.namespace) return false;
    if (l.nsSel && !matchesNormalized(l.nsSel, m.nsLabels)) return false;
    if (l.sa !== undefined && l.sa !== (m.serviceAccount ?? 'default')) return false;
  }
  return matchesNormalized(l.sel, m.labels);
}
