import type { ResourceExport } from '@switchyard/apis';
import { MAX_LABEL_ID, allocateLabelIdentities, labelIdentityExports, labelIdentityImports, normalizedLabel } from '../src';

describe('label identities', () => {
  it('normalizes namespace and pod labels with sorted keys', () => {
    expect(normalizedLabel({ 'kubernetes.io/metadata.name': 'prod', env: 'p' }, { tier: 'db', app: 'x' })).toBe('ns:env=p,kubernetes.io/metadata.name=prod&pod:app=x,tier=db');
  });

  it('exports one ResourceExport per distinct label of the member', () => {
    const pods = [{ metadata: { namespace: 'a', labels: { app: 'x' } } }, { metadata: { namespace: 'a', labels: { app: 'x' } } }, { metadata: { namespace: 'b', labels: { app: 'x' } } }];
    const res = labelIdentityExports({ clusterID: 'west', leaderNamespace: 'l', pods, namespaceLabels: (ns) => ({ 'kubernetes.io/metadata.name': ns }) });
    expect(res.map((r) => r.spec.labelIdentity?.normalizedLabel)).toEqual(['ns:kubernetes.io/metadata.name=a&pod:app=x', 'ns:kubernetes.io/metadata.name=b&pod:app=x']);
    expect(res[0]!.metadata.name).toMatch(/^west-[0-9a-f]{40}$/);
  });

  it('keeps existing IDs and gives new labels the lowest free ones', () => {
    const { ids } = allocateLabelIdentities(['c', 'a', 'b', 'd'], new Map([['b', 1], ['d', 3], ['gone', 2]]));
    expect(Object.fromEntries(ids)).toEqual({ b: 1, d: 3, a: 2, c: 4 });
  });

  it('never gives an ID outside 1..16777214, and reports labels left without one', () => {
    const { ids, exhausted } = allocateLabelIdentities(['x', 'y', 'z'], new Map([['y', MAX_LABEL_ID + 1]]), 2);
    expect(Object.fromEntries(ids)).toEqual({ x: 1, y: 2 });
    expect(exhausted).toEqual(['z']);
  });

  it('gives the same label from two clusters one ID', () => {
    const re = (cluster: string, label: string): ResourceExport => ({ metadata: { name: `${cluster}-${label}` }, spec: { clusterID: cluster, kind: 'LabelIdentity', labelIdentity: { normalizedLabel: label } } });
    const { resourceImports } = labelIdentityImports([re('west', 'ns:&pod:app=a'), re('east', 'ns:&pod:app=a'), re('east', 'ns:&pod:app=b')], new Map(), 'l');
    expect(resourceImports.map((r) => [r.spec.labelIdentity?.normalizedLabel, r.spec.labelIdentity?.id])).toEqual([['ns:&pod:app=a', 1], ['ns:&pod:app=b', 2]]);
  });
});
