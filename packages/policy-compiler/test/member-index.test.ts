// The member index on its own: candidates a selector narrows to, facts, status churn, IP owners.
import type { Namespace, Pod } from '@switchyard/apis';
import fc from 'fast-check';
import { ClusterInputs } from '../src/cluster-inputs';
import { leafMatches } from '../src/leaf';
import { MemberIndex, NS_LABEL_INDEX_MIN } from '../src/member-index';
import { EVERYTHING } from '../src/selector';
import { podLeaf } from './leaves';

const ns = (name: string, labels: Record<string, string> = {}): Namespace => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });
const pod = (namespace: string, name: string, labels: Record<string, string>, ip = `10.0.0.${name.length}`): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace, labels },
  spec: { nodeName: 'node-1', containers: [{ name: 'c', ports: [{ name: 'http', containerPort: 80 }] }] },
  status: { phase: 'Running', podIP: ip, podIPs: [{ ip }] },
});

/** A member index over its own inputs, fed the way the engine feeds it: inputs first, then the index (which stores pods). */
function harness() {
  const inputs = new ClusterInputs();
  const index = new MemberIndex({ inputs });
  const putPod = (p: Pod | undefined, ref?: string) => {
    const key = `Pod/${ref ?? `${p?.metadata.namespace}/${p?.metadata.name}`}`;
    const old = index.pods.get(key);
    return index.setPod(old, p);
  };
  const putNs = (n: Namespace) => {
    inputs.put('Namespace', `Namespace/${n.metadata.name}`, n);
    return index.namespaceChanged(n.metadata.name ?? '');
  };
  return { inputs, index, putPod, putNs };
}

describe('member index', () => {
  it('narrows a namespaced In selector to the pods carrying one of its values once the Namespace is large', () => {
    const h = harness();
    h.putNs(ns('big'));
    for (let i = 0; i < NS_LABEL_INDEX_MIN + 8; i++) h.putPod(pod('big', `p${i}`, { tier: ['web', 'db'][i % 2] as string }));
    const leaf = podLeaf({ matchExpressions: [{ key: 'tier', operator: 'In', values: ['db'] }] }, { ns: 'big' });
    const got = [...h.index.candidates(leaf)].sort();
    expect(got).toHaveLength((NS_LABEL_INDEX_MIN + 8) / 2);
    for (const mk of got) expect(h.index.memberInfo(mk)?.facts.labels).toEqual({ tier: 'db' });
    // The index follows relabels after it was built.
    h.putPod(pod('big', 'p0', { tier: 'db' }));
    expect([...h.index.candidates(leaf)]).toContain('p:big/p0');
  });

  it('scans a small Namespace: every pod there is a candidate, and nothing outside it', () => {
    const h = harness();
    h.putPod(pod('small', 'a', { tier: 'web' }));
    h.putPod(pod('small', 'b', { tier: 'db' }));
    h.putPod(pod('other', 'c', { tier: 'db' }));
    expect([...h.index.candidates(podLeaf({ matchLabels: { tier: 'db' } }, { ns: 'small' }))].sort()).toEqual(['p:small/a', 'p:small/b']);
  });

  it('finds the candidates of a cluster-wide selector across Namespaces, and keeps them current after relabels', () => {
    const h = harness();
    h.putPod(pod('x', 'a', { app: 'web' }));
    h.putPod(pod('y', 'b', { app: 'db' }));
    const leaf = podLeaf({ matchLabels: { app: 'web' } }, { nsSel: {} });
    expect([...h.index.candidates(leaf)]).toEqual(['p:x/a']);
    h.putPod(pod('y', 'b', { app: 'web' }));
    h.putPod(pod('z', 'c', { app: 'web' }));
    h.putPod(undefined, 'x/a');
    expect([...h.index.candidates(leaf)].sort()).toEqual(['p:y/b', 'p:z/c']);
  });

  it('restricts a label-less selector with a Namespace selector to the pods of the matching Namespaces', () => {
    const h = harness();
    h.putNs(ns('x', { team: 'red' }));
    h.putNs(ns('y', { team: 'blue' }));
    h.putPod(pod('x', 'a', {}));
    h.putPod(pod('y', 'b', {}));
    expect([...h.index.candidates(podLeaf({}, { nsSel: { matchLabels: { team: 'red' } } }))]).toEqual(['p:x/a']);
  });

  it('never misses a member a leaf selects (candidates are a superset of the matches)', () => {
    const arb = fc.array(fc.record({ ns: fc.constantFrom('x', 'y'), name: fc.constantFrom('a', 'b', 'c', 'd'), tier: fc.constantFrom('web', 'db'), del: fc.boolean() }), { maxLength: 60 });
    fc.assert(
      fc.property(arb, fc.constantFrom('web', 'db'), fc.constantFrom(undefined, 'x'), (changes, tier, where) => {
        const h = harness();
        h.putNs(ns('x', { team: 'red' }));
        h.putNs(ns('y'));
        // Fill x past the label-index size so both index paths are exercised.
        for (let i = 0; i < NS_LABEL_INDEX_MIN; i++) h.putPod(pod('x', `fill${i}`, { tier: 'web' }));
        const leaf = podLeaf({ matchLabels: { tier } }, where ? { ns: where } : { nsSel: EVERYTHING });
        // Indexes built before the changes must follow them.
        void [...h.index.candidates(leaf)];
        for (const c of changes) h.putPod(c.del ? undefined : pod(c.ns, c.name, { tier: c.tier }), `${c.ns}/${c.name}`);
        const cand = new Set(h.index.candidates(leaf));
        for (const key of h.index.pods.keys()) {
          const mk = `p:${key.slice(4)}`;
          const info = h.index.memberInfo(mk);
          if (info && leafMatches(leaf, info.facts)) expect(cand.has(mk)).toBe(true);
        }
      }),
      { numRuns: 100 },
    );
  });

  it('reports no change for status churn, and both label sets for a relabel', () => {
    const h = harness();
    const p = pod('x', 'a', { app: 'web' });
    expect(h.putPod(p)).toEqual({ member: 'p:x/a', namespace: 'x', labelSets: [undefined, { app: 'web' }] });
    h.index.memberInfo('p:x/a');
    expect(h.putPod({ ...p, status: { ...p.status, conditions: [{ type: 'Ready', status: 'True' }] } } as Pod)).toBeUndefined();
    expect(h.putPod(pod('x', 'a', { app: 'db' }))?.labelSets).toEqual([{ app: 'web' }, { app: 'db' }]);
    // Same labels but a new IP: the member changed, so groups must re-check it.
    h.index.memberInfo('p:x/a');
    expect(h.putPod(pod('x', 'a', { app: 'db' }, '10.9.9.9'))?.labelSets).toEqual([{ app: 'db' }]);
  });

  it('gives facts with the Namespace labels, refreshed when the Namespace changes; host-network and finished pods are not selectable', () => {
    const h = harness();
    h.putNs(ns('x', { team: 'red' }));
    h.putPod(pod('x', 'a', { app: 'web' }));
    expect(h.index.memberInfo('p:x/a')?.facts.nsLabels).toEqual({ team: 'red', 'kubernetes.io/metadata.name': 'x' });
    expect(h.putNs(ns('x', { team: 'blue' }))).toEqual(['p:x/a']);
    expect(h.index.memberInfo('p:x/a')?.facts.nsLabels?.['team']).toBe('blue');
    expect(h.index.memberInfo('p:x/a')?.member).toEqual({ pod: { name: 'a', namespace: 'x' }, ips: ['10.0.0.1'], ports: [{ name: 'http', port: 80, protocol: 'TCP' }] });
    const host = pod('x', 'h', {});
    (host.spec as { hostNetwork?: boolean }).hostNetwork = true;
    h.putPod(host);
    const done = pod('x', 'f', {});
    (done.status as { phase?: string }).phase = 'Succeeded';
    h.putPod(done);
    expect(h.index.memberInfo('p:x/h')).toBeUndefined();
    expect(h.index.memberInfo('p:x/f')).toBeUndefined();
  });

  it('moves an IP to its new owner, and does not drop it when the previous owner goes away', () => {
    const h = harness();
    h.putPod(pod('x', 'a', {}, '10.1.1.1'));
    h.putPod(pod('x', 'b', {}, '10.1.1.1'));
    expect(h.index.ipOwners.get('10.1.1.1')).toBe('p:x/b');
    h.putPod(undefined, 'x/a');
    expect(h.index.ipOwners.get('10.1.1.1')).toBe('p:x/b');
    h.putPod(undefined, 'x/b');
    expect(h.index.ipOwners.has('10.1.1.1')).toBe(false);
  });
});
