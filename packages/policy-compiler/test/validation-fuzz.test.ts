// Fuzzing the compiler's door: valid policies of every kind, each mutated at one random place
// (a value replaced by junk, a key dropped, a value wrapped in a list), go through the engine next to
// valid policies. The engine never throws anything but a PolicyCompilerError, the valid policies come
// out exactly as before, and deleting the mutant leaves the state it found.
// Runs: FUZZ_RUNS (default 2,000); seed: FUZZ_SEED (fixed, see jest.fuzz-setup.cjs).
import fc from 'fast-check';
import { PolicyCompilerError, PolicyEngine, type ClusterEvent, type ClusterObject } from '../src/index';
import { anp, banp } from './cases/admin-network-policy';
import { acnp, annp, cg, tier } from './cases/antrea-native';
import { baseModel } from './cases/model';
import { baseEngine } from './cases/runner';

const runs = Number(process.env.FUZZ_RUNS ?? 2000);
// Time grows with the runs; the work is CPU-bound and bounded per run.
jest.setTimeout(runs * 100 + 60_000);
const NS = 'kubernetes.io/metadata.name';
const bySel = { podSelector: { matchLabels: { pod: 'a' } } };

/** One valid object of each policy-like kind; mutants are made from these. */
const templates = (): ClusterObject[] => [
  { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'np', namespace: 'x' }, spec: { ...bySel, policyTypes: ['Ingress', 'Egress'], ingress: [{ from: [{ namespaceSelector: { matchLabels: { ns: 'y' } } }, { ipBlock: { cidr: '10.0.0.0/16', except: ['10.0.1.0/24'] } }], ports: [{ port: 80, protocol: 'TCP' }, { port: 'serve-81-udp', protocol: 'UDP', endPort: undefined }] }], egress: [{ to: [bySel], ports: [{ port: 1000, endPort: 2000 }] }] } } as ClusterObject,
  acnp('acnp', { priority: 1.5, tier: 'securityops', appliedTo: [bySel], ingress: [{ action: 'Drop', name: 'r1', from: [{ group: 'cg' }, { namespaces: { match: 'Self' } }], ports: [{ protocol: 'TCP', port: 22 }] }], egress: [{ action: 'Reject', to: [{ fqdn: '*.example.com' }, { ipBlock: { cidr: '192.168.0.0/16' } }] }] }),
  annp('annp', 'y', { priority: 1, appliedTo: [bySel], ingress: [{ action: 'Allow', from: [{ podSelector: {}, namespaceSelector: { matchLabels: { [NS]: 'x' } } }], ports: [{ protocol: 'UDP', port: 53, endPort: 60 }] }] }),
  anp('anp', 10, { subject: { namespaces: { matchLabels: { ns: 'x' } } }, ingress: [{ name: 'p', action: 'Pass', from: [{ namespaces: { matchLabels: { [NS]: 'y' } } }] }], egress: [{ name: 'd', action: 'Deny', to: [{ networks: ['10.0.0.0/8'] }], ports: [{ portNumber: { protocol: 'TCP', port: 80 } }] }] }),
  banp({ subject: { pods: { namespaceSelector: {}, podSelector: { matchLabels: { pod: 'b' } } } }, egress: [{ name: 'deny', action: 'Deny', to: [{ pods: { namespaceSelector: {}, podSelector: {} } }] }] }),
  cg('cg', { namespaceSelector: { matchLabels: { ns: 'z' } }, podSelector: { matchExpressions: [{ key: 'pod', operator: 'In', values: ['c'] }] } }),
  tier('t1', 120),
];

/** Every path to a value inside `spec` (and the labels and namespace of `metadata`). */
function paths(o: unknown, at: (string | number)[] = []): (string | number)[][] {
  const out: (string | number)[][] = at.length ? [at] : [];
  if (o !== null && typeof o === 'object') {
    for (const [k, v] of Object.entries(o)) {
      if (at.length === 0 && k !== 'spec' && k !== 'metadata') continue;
      if (at.length === 1 && at[0] === 'metadata' && k !== 'labels' && k !== 'namespace') continue;
      out.push(...paths(v, [...at, Array.isArray(o) ? Number(k) : k]));
    }
  }
  return out;
}

type Mutation = { how: 'replace'; value: unknown } | { how: 'drop' } | { how: 'wrap' };
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }).map((value) => ({ how: 'replace' as const, value })),
  fc.constantFrom(-1, 0, 65536, 1e300, NaN, Infinity, '', '*', '10.0.0.0/33', '300.1.1.1/8', 'a'.repeat(300), null, [], {}).map((value) => ({ how: 'replace' as const, value })),
  fc.constant({ how: 'drop' as const }),
  fc.constant({ how: 'wrap' as const }),
);

function mutate(obj: ClusterObject, path: (string | number)[], m: Mutation): ClusterObject {
  const copy = structuredClone(obj) as unknown as Record<string, unknown>;
  let parent: Record<string | number, unknown> = copy;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (m.how === 'drop') delete parent[last];
  else parent[last] = m.how === 'wrap' ? [parent[last]] : m.value;
  const meta = (copy.metadata ?? {}) as Record<string, unknown>;
  copy.metadata = { ...meta, name: 'mutant' };
  return copy as unknown as ClusterObject;
}

/** Applies an event; a throw other than PolicyCompilerError fails the property. */
function apply(e: PolicyEngine, ev: ClusterEvent): void {
  try {
    e.apply(ev);
  } catch (err) {
    if (!(err instanceof PolicyCompilerError)) throw err;
  }
}

describe('the engine fed mutated policies', () => {
  const valid = templates();
  const mutants = fc
    .tuple(fc.nat(valid.length - 1), fc.nat(), mutation)
    .map(([i, p, m]) => {
      const all = paths(valid[i]);
      return mutate(valid[i]!, all[p % all.length]!, m);
    });

  test('throws only typed errors, keeps every valid policy as it was, and is restored by deleting the mutant', () => {
    const e = new PolicyEngine();
    for (const o of [...baseModel(), ...valid]) e.apply({ type: 'ADDED', object: o as ClusterObject });
    const before = JSON.stringify(e.snapshot());
    const compiled = JSON.stringify([...e.compiledPolicies()]);
    fc.assert(
      fc.property(mutants, (m) => {
        apply(e, { type: 'ADDED', object: m });
        apply(e, { type: 'MODIFIED', object: m });
        for (const o of e.compiledPolicies()) {
          if (o.policy.name !== 'mutant') expect(compiled).toContain(JSON.stringify(o));
        }
        apply(e, { type: 'DELETED', object: m });
        expect(JSON.stringify(e.snapshot())).toBe(before);
      }),
      { numRuns: runs },
    );
  });
});

describe('a policy of the wrong shape', () => {
  test('is refused with MALFORMED, and the version before it stays in force', () => {
    const e = baseEngine();
    const good = templates()[0]!;
    e.apply({ type: 'ADDED', object: good });
    const before = JSON.stringify(e.snapshot());
    const bad = structuredClone(good) as unknown as { spec: { egress: { to: unknown }[] } };
    bad.spec.egress[0]!.to = 7;
    const delta = e.apply({ type: 'MODIFIED', object: bad as unknown as ClusterObject });
    expect(delta.rejected?.errors.map((x) => x.code)).toEqual(['MALFORMED']);
    expect(delta.rejected?.name).toBe('np');
    expect(JSON.stringify(e.snapshot())).toBe(before);
    expect(e.rejected().map((r) => r.name)).toEqual(['np']);
  });
});
