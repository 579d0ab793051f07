// The group selector index on its own: which groups a member event wakes.
import fc from 'fast-check';
import { GroupSelectorIndex, leafIndexKeys } from '../src/group-index';
import { groupOf, leafMatches, namespaceLabels } from '../src/leaf';
import { EVERYTHING } from '../src/selector';
import { podLeaf } from './leaves';

describe('group selector index', () => {
  it('indexes a namespaced leaf under its Namespace and label, never under cluster-wide keys', () => {
    expect(leafIndexKeys(podLeaf({ matchLabels: { app: 'web' } }, { ns: 'x' }))).toEqual(['p:NL:x|app=web']);
    expect(leafIndexKeys(podLeaf({}, { ns: 'x' }))).toEqual(['p:N:x']);
    expect(leafIndexKeys(podLeaf({ matchExpressions: [{ key: 'app', operator: 'In', values: ['a', 'b'] }] }, { nsSel: { matchLabels: { team: 'red' } } }))).toEqual(['p:L:app=a', 'p:L:app=b', 's:L:team=red']);
    expect(leafIndexKeys({ kind: 'node', sel: EVERYTHING })).toEqual(['n:*']);
    expect(leafIndexKeys({ kind: 'ee', sel: EVERYTHING, nsSel: EVERYTHING })).toEqual(['e:*', 's:*']);
  });

  it('wakes a pod group only for pods of its Namespace with its label, and forgets removed groups', () => {
    const index = new GroupSelectorIndex();
    const web = groupOf([podLeaf({ matchLabels: { app: 'web' } }, { ns: 'x' })]);
    const all = groupOf([podLeaf({}, { nsSel: {} })]);
    index.add(web);
    index.add(all);
    expect([...index.podGroups('x', [{ app: 'web' }])].sort()).toEqual([web.name, all.name].sort());
    expect([...index.podGroups('y', [{ app: 'web' }])]).toEqual([all.name]);
    expect([...index.podGroups('x', [{ app: 'db' }, undefined])]).toEqual([all.name]);
    index.remove(web);
    expect([...index.podGroups('x', [{ app: 'web' }])]).toEqual([all.name]);
  });

  it('wakes every group that selects a pod, from the old or the new labels (no false negatives)', () => {
    const labels = fc.dictionary(fc.constantFrom('app', 'tier'), fc.constantFrom('a', 'b'), { maxKeys: 2 });
    const sel = fc.oneof(
      labels.map((l) => ({ matchLabels: l })),
      fc.record({ key: fc.constantFrom('app', 'tier'), values: fc.uniqueArray(fc.constantFrom('a', 'b'), { minLength: 1 }) }).map(({ key, values }) => ({ matchExpressions: [{ key, operator: 'In', values }] })),
      fc.constantFrom('app', 'tier').map((key) => ({ matchExpressions: [{ key, operator: 'NotIn', values: ['a'] }] })),
    );
    const leaf = fc.record({ sel, ns: fc.option(fc.constantFrom('x', 'y'), { nil: undefined }), nsSel: fc.option(labels.map((l) => ({ matchLabels: l })), { nil: undefined }) }).map(({ sel, ns, nsSel }) => podLeaf(sel, { ...(ns !== undefined ? { ns } : {}), ...(nsSel ? { nsSel } : {}) }));
    fc.assert(
      fc.property(fc.array(leaf, { minLength: 1, maxLength: 8 }), labels, labels, fc.constantFrom('x', 'y'), (leaves, before, after, ns) => {
        const index = new GroupSelectorIndex();
        const defs = leaves.map((l) => groupOf([l]));
        for (const d of defs) index.add(d);
        const woken = index.podGroups(ns, [before, after]);
        for (const d of defs) {
          const facts = (l: Record<string, string>) => ({ kind: 'pod' as const, namespace: ns, labels: l, nsLabels: namespaceLabels(ns, {}) });
          if (d.leaves.some((l) => leafMatches(l, facts(before)) || leafMatches(l, facts(after)))) expect(woken.has(d.name)).toBe(true);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('wakes Namespace-selecting groups by the old and new labels of a Namespace', () => {
    const index = new GroupSelectorIndex();
    const red = groupOf([podLeaf({}, { nsSel: { matchLabels: { team: 'red' } } })]);
    const blue = groupOf([podLeaf({}, { nsSel: { matchLabels: { team: 'blue' } } })]);
    index.add(red);
    index.add(blue);
    const ns = (team: string) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x', labels: { team } } }) as const;
    expect([...index.namespaceGroups('x', [ns('red'), ns('blue')])].sort()).toEqual([red.name, blue.name].sort());
    expect([...index.namespaceGroups('x', [undefined, ns('blue')])]).toEqual([blue.name]);
  });
});
