// Which groups could select an object: each group is indexed under the `In` values of its
// selectors (or its Namespace, or `*`), so a member event re-checks only those groups.
import type { Namespace } from '@switchyard/apis/types';
import { namespaceLabels, type GroupDef, type Leaf } from './leaf';
import { MultiIndex } from './multi-index';
import { indexKeysOf } from './selector';

/**
 * Index keys of a leaf: `p:*`, `p:N:<ns>`, `p:L:<k=v>`, `p:NL:<ns>|<k=v>` (pods), `e:*`, `n:*`,
 * and `s:*` / `s:L:<k=v>` for its Namespace selector.
 */
export function leafIndexKeys(l: Leaf): string[] {
  if (l.kind === 'node') return ['n:*'];
  let own: string[];
  if (l.kind === 'ee') own = ['e:*'];
  else {
    // Namespaced leaves are indexed under their Namespace (and label), never cluster-wide keys,
    // so thousands of per-Namespace groups with the same labels do not all wake on every pod.
    const keys = indexKeysOf(l.sel);
    if (l.ns !== undefined) own = keys[0] !== '*' ? keys.map((k) => ['p:NL:', l.ns, '|', k].join('')) : [`p:N:${l.ns}`];
    else if (keys[0] !== '*') own = keys.map((k) => `p:L:${k}`);
    else own = ['p:*'];
  }
  // Exactly sized arrays (map, concat): each group keeps its keys, and an array grown by push keeps room for 16.
  return l.nsSel ? own.concat(indexKeysOf(l.nsSel).map((k) => (k === '*' ? 's:*' : `s:L:${k}`))) : own;
}

/**
 * Selector index key -> names of the groups that could select an object under it. The keys of
 * namespaced pod leaves (`p:N:<ns>`, `p:NL:<ns>|<k=v>` in {@link leafIndexKeys}) live in a small
 * index per Namespace, under `*` or `k=v` (strings shared by every group with the selector), so
 * no key string is built per group or per pod event; the others in one cluster-wide index.
 */
export class GroupSelectorIndex {
  private readonly index = new MultiIndex<string>();
  private readonly byNamespace = new Map<string, MultiIndex<string>>();

  /** Indexes a group (adding a name twice under a key is a no-op, so leaves sharing keys need no deduplication). */
  add(def: GroupDef): void {
    for (const l of def.leaves) this.leafKeys(l, def.name, true);
  }

  /** Removes a group indexed by {@link GroupSelectorIndex.add} (its keys are computed again: groups do not keep them). */
  remove(def: GroupDef): void {
    for (const l of def.leaves) this.leafKeys(l, def.name, false);
  }

  private leafKeys(l: Leaf, name: string, add: boolean): void {
    if (l.kind === 'pod' && l.ns !== undefined) {
      let nsIndex = this.byNamespace.get(l.ns);
      if (!nsIndex) {
        if (!add) return;
        this.byNamespace.set(l.ns, (nsIndex = new MultiIndex<string>({ inline: true })));
      }
      for (const k of indexKeysOf(l.sel)) {
        if (add) nsIndex.add(k, name);
        else nsIndex.delete(k, name);
      }
      if (nsIndex.empty) this.byNamespace.delete(l.ns);
      if (l.nsSel) for (const k of indexKeysOf(l.nsSel)) this.cluster(k === '*' ? 's:*' : `s:L:${k}`, name, add);
      return;
    }
    for (const k of leafIndexKeys(l)) this.cluster(k, name, add);
  }

  private cluster(key: string, name: string, add: boolean): void {
    if (add) this.index.add(key, name);
    else this.index.delete(key, name);
  }

  /** Groups that could select a pod of `ns` carrying one of the label sets. */
  podGroups(ns: string, labelSets: readonly (Readonly<Record<string, string>> | undefined)[]): Set<string> {
    const cand = new Set<string>();
    this.collect('p:*', cand);
    const nsIndex = this.byNamespace.get(ns);
    if (nsIndex) for (const g of nsIndex.get('*')) cand.add(g);
    for (const labels of labelSets) {
      for (const [k, v] of Object.entries(labels ?? {})) {
        const kv = [k, '=', v].join('');
        this.collect(`p:L:${kv}`, cand);
        if (nsIndex) for (const g of nsIndex.get(kv)) cand.add(g);
      }
    }
    return cand;
  }

  /** Groups whose Namespace selector could match one of the versions of Namespace `name`. */
  namespaceGroups(name: string, versions: readonly (Namespace | undefined)[]): Set<string> {
    const cand = new Set<string>();
    this.collect('s:*', cand);
    for (const n of versions) if (n) for (const [k, v] of Object.entries(namespaceLabels(name, n.metadata.labels))) this.collect(`s:L:${k}=${v}`, cand);
    return cand;
  }

  /** Groups that select ExternalEntities (a copy: evaluating may change the index). */
  externalEntityGroups(): string[] {
    return [...this.index.get('e:*')];
  }

  /** Groups that select Nodes (a copy). */
  nodeGroups(): string[] {
    return [...this.index.get('n:*')];
  }

  private collect(key: string, into: Set<string>): void {
    for (const g of this.index.get(key)) into.add(g);
  }
}
