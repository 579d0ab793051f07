// PolicyEngine.load with the answers of Kubernetes LIST requests, whose items carry no kind.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { List } from '@switchyard/apis';
import { PolicyCompilerError, PolicyEngine, type ClusterObject } from '../src/index';

interface Lists {
  namespaces: List<ClusterObject>;
  pods: List<ClusterObject>;
  networkPolicies: List<ClusterObject>;
  antreaNetworkPolicies: List<ClusterObject>;
}
/** LIST answers as kube-apiserver writes them (items without kind/apiVersion, managedFields, status). */
const lists = (): Lists => JSON.parse(readFileSync(join(__dirname, 'fixtures/list-responses.json'), 'utf8')) as Lists;

/** The same objects with kind and apiVersion on each, as a WATCH delivers them. */
function withKinds(list: List<ClusterObject>): ClusterObject[] {
  const kind = (list.kind ?? '').replace(/List$/, '');
  return list.items.map((o) => ({ ...o, kind, apiVersion: list.apiVersion }) as ClusterObject);
}

describe('load() of Kubernetes LIST responses', () => {
  it('takes kind and apiVersion from each List and compiles as if every item carried them', () => {
    const l = lists();
    for (const list of Object.values(l)) for (const item of list.items) expect(item.kind).toBeUndefined();
    const fromLists = new PolicyEngine();
    expect(fromLists.load([l.namespaces, l.pods, l.networkPolicies, l.antreaNetworkPolicies])).toEqual([]);
    const fromObjects = new PolicyEngine();
    expect(fromObjects.load(Object.values(l).flatMap(withKinds))).toEqual([]);

    expect(fromLists.snapshot()).toEqual(fromObjects.snapshot());
    const policies = fromLists.snapshot().networkPolicies.map((p) => `${p.sourceRef.type} ${p.sourceRef.namespace}/${p.sourceRef.name}`).sort();
    // Two Kubernetes NetworkPolicies and the Antrea one, told apart by the List's apiVersion.
    expect(policies).toEqual(['AntreaNetworkPolicy x/drop-from-y', 'K8sNetworkPolicy x/web-allow-client', 'K8sNetworkPolicy y/default-deny-egress']);
    expect(fromLists.pods.size).toBe(2);
    expect(fromLists.namespaces.size).toBe(2);
  });

  it('accepts one List on its own and leaves the caller objects unchanged', () => {
    const l = lists();
    const before = JSON.stringify(l.networkPolicies);
    const e = new PolicyEngine();
    expect(e.load(l.namespaces)).toEqual([]);
    expect(e.load(l.networkPolicies)).toEqual([]);
    expect(e.snapshot().networkPolicies).toHaveLength(2);
    expect(JSON.stringify(l.networkPolicies)).toBe(before);
  });

  it('takes the kind of bare items from options', () => {
    const l = lists();
    const e = new PolicyEngine();
    const refused = e.load([...l.namespaces.items, ...l.pods.items].map((o, i) => ({ ...o, kind: i < 2 ? 'Namespace' : 'Pod' }) as ClusterObject));
    expect(refused).toEqual([]);
    expect(e.load(l.antreaNetworkPolicies.items, { kind: 'NetworkPolicy', apiVersion: 'crd.antrea.io/v1beta1' })).toEqual([]);
    expect(e.load(l.networkPolicies.items, { kind: 'NetworkPolicy', apiVersion: 'networking.k8s.io/v1' })).toEqual([]);
    expect(e.snapshot().networkPolicies.map((p) => p.sourceRef.type).sort()).toEqual(['AntreaNetworkPolicy', 'K8sNetworkPolicy', 'K8sNetworkPolicy']);
  });

  it('refuses, without throwing, an item whose kind cannot be known, naming it and its place', () => {
    const l = lists();
    const e = new PolicyEngine();
    const refused = e.load([...l.namespaces.items.map((o) => ({ ...o, kind: 'Namespace' }) as ClusterObject), ...l.networkPolicies.items]);
    expect(refused.map((r) => [r.kind, r.namespace, r.name])).toEqual([
      ['', 'x', 'web-allow-client'],
      ['', 'y', 'default-deny-egress'],
    ]);
    const err = refused[0]?.errors[0];
    expect(err).toMatchObject({ name: 'PolicyValidationError', code: 'MISSING_FIELD', path: '[2].kind', value: undefined });
    expect(err?.message).toBe(
      '[2].kind: x/web-allow-client has no kind, and options.kind gives none: pass a List, or load(items, { kind, apiVersion })',
    );
    expect(refused[1]?.errors[0]?.path).toBe('[3].kind');
    // The rest is loaded; refused items are not in the engine's state.
    expect(e.namespaces.size).toBe(2);
    expect(e.snapshot().networkPolicies).toEqual([]);
    expect(e.rejected()).toEqual([]);
  });

  it('a generic kind: List (kubectl get a,b -o json) keeps each item kind and refuses one without', () => {
    const l = lists();
    const mixed: List<ClusterObject> = {
      apiVersion: 'v1',
      kind: 'List',
      items: [...withKinds(l.namespaces), ...withKinds(l.networkPolicies), { metadata: { name: 'orphan', namespace: 'x' } } as ClusterObject],
    };
    const e = new PolicyEngine();
    const refused = e.load(mixed);
    expect(refused).toHaveLength(1);
    expect(refused[0]?.errors[0]?.path).toBe('items[4].kind');
    expect(refused[0]?.errors[0]?.message).toContain('x/orphan has no kind');
    expect(e.snapshot().networkPolicies).toHaveLength(2);
  });

  it('names the List and item of an unsupported kind in the thrown error, and loads nothing', () => {
    const l = lists();
    const configMaps: List<ClusterObject> = { apiVersion: 'v1', kind: 'ConfigMapList', items: [{ metadata: { name: 'kube-root-ca.crt', namespace: 'x' } } as ClusterObject] };
    const e = new PolicyEngine();
    let thrown: unknown;
    try {
      e.load([l.namespaces, configMaps]);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(PolicyCompilerError);
    expect(thrown).toMatchObject({ code: 'UNKNOWN_KIND', path: '[1].items[0].kind', value: 'ConfigMap' });
    expect((thrown as Error).message).toBe('[1].items[0].kind: x/kube-root-ca.crt has unsupported kind ConfigMap (v1)');
    expect(e.namespaces.size).toBe(0);
  });

  it('refuses a non-object element with a typed error that says where it is', () => {
    const e = new PolicyEngine();
    expect(() => e.load([null as unknown as ClusterObject])).toThrow(expect.objectContaining({ code: 'INVALID_EVENT', path: '[0]' }));
  });
});
