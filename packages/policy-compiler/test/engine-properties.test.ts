import fc from 'fast-check';
import { PolicyEngine, queryEndpoint, toWatchEvents, type ClusterObject } from '../src/index';
import { AgentStore } from './agent-store';
import { fnv64, fnv64Reference } from '../src/hash';
import { matchesSelector, normalizeSelector, validateSelector } from '../src/selector';
import { acnp, cg } from './cases/antrea-native';
import { baseModel, namespace, pod, ALL_PODS, NAMESPACES } from './cases/model';
import { baseEngine } from './cases/runner';

const labelVals = ['a', 'b', 'c'];
// Pods of the model plus two that only come and go through events.
const podEvent = fc.record({ ref: fc.constantFrom(...ALL_PODS, 'x/d', 'z/e'), label: fc.constantFrom(...labelVals), node: fc.constantFrom('node-1', 'node-2', 'node-3'), del: fc.boolean() }).map(({ ref, label, node, del }) => {
  const p = pod(ref, { pod: label });
  (p.spec as { nodeName: string }).nodeName = node;
  return { type: del ? ('DELETED' as const) : ('MODIFIED' as const), object: p as ClusterObject };
});
const nsEvent = fc.record({ n: fc.constantFrom(...NAMESPACES), team: fc.constantFrom('red', 'blue') }).map(({ n, team }) => ({ type: 'MODIFIED' as const, object: namespace(n, { team }) as ClusterObject }));
const policyEvent = fc.record({ i: fc.integer({ min: 0, max: 4 }), sel: fc.constantFrom(...labelVals), team: fc.constantFrom('red', 'blue'), del: fc.boolean(), relabel: fc.boolean() }).map(({ i, sel, team, del, relabel }) => {
  const objs: ClusterObject[] = [
    { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: `np${i}`, namespace: 'x' }, spec: { podSelector: { matchLabels: { pod: sel } }, ingress: [{ from: [{ namespaceSelector: { matchLabels: { team } } }] }] } },
    acnp(`acnp${i}`, { priority: i + 1, appliedTo: [{ podSelector: { matchLabels: { pod: sel } } }], egress: [{ action: 'Drop', to: [{ group: 'cg' }] }] }),
    cg('cg', { namespaceSelector: { matchLabels: { team } }, podSelector: { matchExpressions: [{ key: 'pod', operator: 'NotIn', values: [sel] }] } }),
    acnp(`self${i}`, { priority: 5, appliedTo: [{ namespaceSelector: { matchLabels: { team } } }], ingress: [{ action: 'Allow', from: [{ namespaces: { match: 'Self' } }] }] }),
    // Peerless egress on a named port: carries the all-pods address group, spanned with the policy.
    { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: `named${i}`, namespace: 'y' }, spec: { podSelector: { matchLabels: { pod: sel } }, policyTypes: ['Egress'], egress: [{ ports: [{ port: 'serve-80-tcp' }] }] } },
  ];
  const obj = objs[i] as ClusterObject;
  // Metadata-only updates (a label) must compile to the same policy and send nothing new.
  if (relabel) obj.metadata.labels = { touched: 'yes' };
  return { type: del ? ('DELETED' as const) : ('MODIFIED' as const), object: obj };
});
const anyEvent = fc.oneof(podEvent, nsEvent, policyEvent);

function fresh(engine: PolicyEngine, objects: ClusterObject[]): PolicyEngine {
  void engine;
  const e = new PolicyEngine();
  const rank = (o: ClusterObject) => (o.kind === 'ClusterGroup' ? 0 : /Policy$/.test(o.kind ?? '') ? 2 : 1);
  for (const o of [...objects].sort((a, b) => rank(a) - rank(b))) e.apply({ type: 'ADDED', object: o });
  return e;
}

describe('incremental engine properties', () => {
  it('incremental result equals a full recompute after random event sequences', () => {
    fc.assert(
      fc.property(fc.array(anyEvent, { minLength: 1, maxLength: 25 }), (events) => {
        const e = new PolicyEngine();
        const current = new Map<string, ClusterObject>();
        const k = (o: ClusterObject) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
        for (const o of baseModel()) {
          e.apply({ type: 'ADDED', object: o as ClusterObject });
          current.set(k(o as ClusterObject), o as ClusterObject);
        }
        for (const ev of events) {
          e.apply(ev);
          if (ev.type === 'DELETED') current.delete(k(ev.object));
          else current.set(k(ev.object), ev.object);
        }
        const full = fresh(e, [...current.values()]);
        expect(e.snapshot()).toEqual(full.snapshot());
        for (const n of ['node-1', 'node-2', 'node-3']) expect(e.snapshot(n)).toEqual(full.snapshot(n));
      }),
      { numRuns: 150 },
    );
  });

  it('per-node deltas, applied as watch events, rebuild exactly the per-node snapshot', () => {
    fc.assert(
      fc.property(fc.array(anyEvent, { minLength: 1, maxLength: 25 }), (events) => {
        const e = new PolicyEngine();
        const agents = new Map<string, AgentStore>();
        const feed = (d: ReturnType<PolicyEngine['apply']>) => {
          for (const [n, nd] of d.nodes) {
            if (!agents.has(n)) agents.set(n, new AgentStore());
            (agents.get(n) as AgentStore).apply(toWatchEvents(nd));
          }
        };
        for (const o of baseModel()) feed(e.apply({ type: 'ADDED', object: o as ClusterObject }));
        for (const ev of events) feed(e.apply(ev));
        for (const n of ['node-1', 'node-2', 'node-3']) (agents.get(n) ?? new AgentStore()).matches(e.snapshot(n));
      }),
      { numRuns: 150 },
    );
  });

  /** Final objects after the base model and `events` (what a full list would return). */
  function finalObjects(events: { type: string; object: ClusterObject }[]): ClusterObject[] {
    const current = new Map<string, ClusterObject>();
    const k = (o: ClusterObject) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
    for (const o of baseModel()) current.set(k(o as ClusterObject), o as ClusterObject);
    for (const ev of events) {
      if (ev.type === 'DELETED') current.delete(k(ev.object));
      else current.set(k(ev.object), ev.object);
    }
    return [...current.values()];
  }

  it('a bulk load in any order equals applying the objects one by one', () => {
    fc.assert(
      fc.property(fc.array(anyEvent, { minLength: 1, maxLength: 25 }), fc.infiniteStream(fc.nat()), (events, seeds) => {
        const objects = finalObjects(events);
        // Any input order: load sorts by dependency itself.
        const shuffled = objects.map((o) => [seeds.next().value as number, o] as const).sort((a, b) => a[0] - b[0]).map(([, o]) => o);
        const loaded = new PolicyEngine();
        expect(loaded.load(shuffled)).toEqual([]);
        const full = fresh(loaded, objects);
        expect(loaded.snapshot()).toEqual(full.snapshot());
        for (const n of ['node-1', 'node-2', 'node-3']) expect(loaded.snapshot(n)).toEqual(full.snapshot(n));
      }),
      { numRuns: 100 },
    );
  });

  it('after a bulk load, agents seeded with snapshot(node) stay in sync through per-event deltas', () => {
    fc.assert(
      fc.property(fc.array(anyEvent, { maxLength: 10 }), fc.array(anyEvent, { minLength: 1, maxLength: 20 }), (initial, events) => {
        const e = new PolicyEngine();
        e.load(finalObjects(initial));
        const agents = new Map<string, AgentStore>();
        for (const n of ['node-1', 'node-2', 'node-3']) {
          const a = new AgentStore();
          const s = e.snapshot(n);
          a.apply([
            ...s.addressGroups.map((object) => ({ type: 'ADDED' as const, kind: 'AddressGroup' as const, object })),
            ...s.appliedToGroups.map((object) => ({ type: 'ADDED' as const, kind: 'AppliedToGroup' as const, object })),
            ...s.networkPolicies.map((object) => ({ type: 'ADDED' as const, kind: 'NetworkPolicy' as const, object })),
          ]);
          agents.set(n, a);
        }
        for (const ev of events) for (const [n, nd] of e.apply(ev).nodes) (agents.get(n) as AgentStore).apply(toWatchEvents(nd));
        for (const n of ['node-1', 'node-2', 'node-3']) (agents.get(n) as AgentStore).matches(e.snapshot(n));
      }),
      { numRuns: 100 },
    );
  });

  it('queryEndpoint (memoized per group) equals a scan of every policy after random events', () => {
    fc.assert(
      fc.property(fc.array(anyEvent, { minLength: 1, maxLength: 25 }), (events) => {
        const e = baseEngine();
        for (const ev of events) {
          e.apply(ev);
          // Query between events so stale memo entries would show.
          for (const ref of ['x/a', 'y/b']) if (e.pods.has(`Pod/${ref}`)) queryEndpoint(e, ref);
        }
        for (const ref of ALL_PODS) {
          if (!e.pods.has(`Pod/${ref}`)) continue;
          const groups = e.memberGroups.get(`p:${ref}`) ?? new Set<string>();
          const applied: string[] = [];
          const inRules: string[] = [];
          const outRules: string[] = [];
          for (const c of e.compiledPolicies()) {
            const p = c.policy;
            const ruleGroups = p.rules.flatMap((r) => r.appliedToGroups ?? []);
            if ([...p.appliedToGroups, ...ruleGroups].some((g) => groups.has(g) && e.groupUsers(g, 'applied').size > 0)) applied.push(p.uid);
            p.rules.forEach((r, i) => {
              const peer = r.direction === 'In' ? r.from : r.to;
              if (peer.addressGroups.some((g) => groups.has(g))) (r.direction === 'In' ? inRules : outRules).push(`${p.uid}#${i}`);
            });
          }
          const got = queryEndpoint(e, ref);
          expect(got.appliedPolicies.map((x) => x.uid).sort()).toEqual(applied.sort());
          expect(got.ingressSrcRules.map((x) => `${x.policy.uid}#${x.index}`).sort()).toEqual(inRules.sort());
          expect(got.egressDstRules.map((x) => `${x.policy.uid}#${x.index}`).sort()).toEqual(outRules.sort());
        }
      }),
      { numRuns: 100 },
    );
  });

  it('per-node output is the full output filtered by span', () => {
    fc.assert(
      fc.property(fc.array(anyEvent, { minLength: 1, maxLength: 20 }), (events) => {
        const e = baseEngine();
        for (const ev of events) e.apply(ev);
        const full = e.snapshot();
        for (const n of ['node-1', 'node-2', 'node-3']) {
          const s = e.snapshot(n);
          expect(s.networkPolicies).toEqual(full.networkPolicies.filter((p) => e.spanOf('NetworkPolicy', p.uid).includes(n)));
          expect(s.addressGroups).toEqual(full.addressGroups.filter((g) => e.spanOf('AddressGroup', g.name).includes(n)));
          // applied-to groups: only the node's own members
          for (const g of s.appliedToGroups) for (const m of g.groupMembers) expect(e.pods.get(`Pod/${m.pod?.namespace}/${m.pod?.name}`)?.spec?.nodeName).toBe(n);
        }
      }),
      { numRuns: 100 },
    );
  });
});

describe('groups, spans and selectors', () => {
  it('shares one group between policies with the same normalized selector', () => {
    const e = baseEngine();
    e.apply({ type: 'ADDED', object: { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'p1', namespace: 'x' }, spec: { podSelector: { matchLabels: { pod: 'a' } }, policyTypes: ['Ingress'] } } });
    e.apply({ type: 'ADDED', object: { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'p2', namespace: 'x' }, spec: { podSelector: { matchExpressions: [{ key: 'pod', operator: 'In', values: ['a'] }] }, policyTypes: ['Ingress'] } } });
    const s = e.snapshot();
    expect(s.appliedToGroups).toHaveLength(1);
    expect(s.networkPolicies[0]?.appliedToGroups).toEqual(s.networkPolicies[1]?.appliedToGroups);
  });

  it('sends nothing for a pod status update or a policy metadata update that changes no compiled fact', () => {
    const e = baseEngine();
    const np = { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'p1', namespace: 'x' }, spec: { podSelector: { matchLabels: { pod: 'a' } }, ingress: [{ from: [{ podSelector: { matchLabels: { pod: 'b' } } }] }] } } as ClusterObject;
    expect(e.apply({ type: 'ADDED', object: np }).nodes.size).toBeGreaterThan(0);
    const churned = pod('x/a');
    (churned.status as { conditions?: unknown[] }).conditions = [{ type: 'Ready', status: 'True' }];
    expect(e.apply({ type: 'MODIFIED', object: churned as ClusterObject }).nodes.size).toBe(0);
    expect(e.apply({ type: 'MODIFIED', object: { ...np, metadata: { ...np.metadata, labels: { team: 'red' } } } as ClusterObject }).nodes.size).toBe(0);
    // A real change still goes out: the pod's IP.
    const moved = pod('x/b');
    moved.status = { ...moved.status, podIP: '10.9.9.9', podIPs: [{ ip: '10.9.9.9' }] };
    const d = e.apply({ type: 'MODIFIED', object: moved as ClusterObject });
    expect([...d.nodes.values()].flatMap((n) => n.addressGroups.patched.flatMap((p) => p.addedGroupMembers.flatMap((m) => m.ips)))).toContain('10.9.9.9');
  });

  it('a large Namespace (own label index) compiles the same incrementally as from scratch', () => {
    // 40 pods: past the size where a Namespace gets its own label index.
    const big = (i: number, tier: string): ClusterObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `p${i}`, namespace: 'big', labels: { tier, id: `i${i}` } }, spec: { nodeName: `node-${(i % 3) + 1}`, containers: [{ name: 'c' }] }, status: { podIP: `10.5.0.${i + 1}`, podIPs: [{ ip: `10.5.0.${i + 1}` }] } });
    fc.assert(
      fc.property(fc.array(fc.record({ i: fc.integer({ min: 0, max: 45 }), tier: fc.constantFrom('web', 'db', 'cache'), del: fc.boolean() }), { minLength: 1, maxLength: 40 }), (changes) => {
        const objects = new Map<string, ClusterObject>();
        const put = (o: ClusterObject) => objects.set(`${o.kind}/${o.metadata.name}`, o);
        put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'big' } });
        for (let i = 0; i < 40; i++) put(big(i, ['web', 'db', 'cache'][i % 3] as string));
        put({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'db', namespace: 'big' }, spec: { podSelector: { matchLabels: { tier: 'db' } }, ingress: [{ from: [{ podSelector: { matchLabels: { tier: 'web' } } }] }] } });
        const e = new PolicyEngine();
        e.load([...objects.values()]);
        for (const c of changes) {
          const o = big(c.i, c.tier);
          if (c.del) {
            e.apply({ type: 'DELETED', object: o });
            objects.delete(`Pod/p${c.i}`);
          } else {
            e.apply({ type: 'MODIFIED', object: o });
            put(o);
          }
        }
        const full = new PolicyEngine();
        full.load([...objects.values()]);
        expect(e.snapshot()).toEqual(full.snapshot());
      }),
      { numRuns: 50 },
    );
  });

  it('sends a node only the objects that concern its pods', () => {
    const e = baseEngine();
    const d = e.apply({ type: 'ADDED', object: { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'p', namespace: 'x' }, spec: { podSelector: { matchLabels: { pod: 'a' } }, ingress: [{ from: [{ podSelector: { matchLabels: { pod: 'b' } } }] }] } } });
    // x/a is on node-1 (index 0): only node-1 receives the policy and its groups.
    expect([...d.nodes.keys()]).toEqual(['node-1']);
    const n1 = d.nodes.get('node-1');
    expect(n1?.networkPolicies.added).toHaveLength(1);
    expect(n1?.addressGroups.added[0]?.groupMembers.map((m) => m.pod?.name)).toEqual(['b']);
    // moving x/b's label patches the address group on node-1 only
    const d2 = e.apply({ type: 'MODIFIED', object: pod('x/c', { pod: 'b' }) as ClusterObject });
    expect(d2.nodes.get('node-1')?.addressGroups.patched[0]?.addedGroupMembers.map((m) => m.pod?.name)).toEqual(['c']);
  });

  it('matches selectors with Kubernetes semantics (nil vs empty, NotIn on missing key)', () => {
    expect(matchesSelector(undefined, { a: '1' })).toBe(false);
    expect(matchesSelector({}, {})).toBe(true);
    expect(matchesSelector({ matchExpressions: [{ key: 'a', operator: 'NotIn', values: ['1'] }] }, {})).toBe(true);
    expect(matchesSelector({ matchExpressions: [{ key: 'a', operator: 'DoesNotExist' }] }, { a: '' })).toBe(false);
    expect(matchesSelector({ matchLabels: { a: '1' }, matchExpressions: [{ key: 'b', operator: 'Exists' }] }, { a: '1', b: 'x' })).toBe(true);
    expect(normalizeSelector({ matchLabels: { a: '1' } }).key).toBe(normalizeSelector({ matchExpressions: [{ key: 'a', operator: 'In', values: ['1'] }] }).key);
  });

  it('reports invalid label selectors with field paths', () => {
    const errs = validateSelector({ matchLabels: { 'bad key!': 'v' }, matchExpressions: [{ key: 'a', operator: 'In', values: [] }, { key: 'b', operator: 'Exists', values: ['x'] }] }, 'spec.podSelector');
    expect(errs.map((e) => [e.code, e.path])).toEqual([
      ['INVALID_LABEL_SELECTOR', 'spec.podSelector.matchLabels'],
      ['INVALID_LABEL_SELECTOR', 'spec.podSelector.matchExpressions[0].values'],
      ['INVALID_LABEL_SELECTOR', 'spec.podSelector.matchExpressions[1].values'],
    ]);
  });

  it('group names are FNV-1a 64 of the normalized selector', () => {
    fc.assert(fc.property(fc.string(), (s) => fnv64(s) === fnv64Reference(s)));
  });
});
