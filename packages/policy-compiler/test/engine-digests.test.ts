// Differential check against the engine as it was before the state redesign of issue #32: seeded
// random event sequences (and bulk loads) run through the engine, and a digest of every delta,
// endpoint query, snapshot, span and member -> groups index is compared with the digests the old
// engine produced (test/fixtures/engine-digests.json, written by the old code with
// UPDATE_ENGINE_DIGESTS=1). Any difference in what agents receive, or in the order queries list
// things, fails with the sequence and step where it first shows.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PolicyEngine, queryEndpoint, type ClusterObject } from '../src/index';

const FIXTURE = join(__dirname, 'fixtures/engine-digests.json');
const SEQUENCES = 40;
const EVENTS = 120;

/** mulberry32: a small seeded generator, so the sequences are the same on every run. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NS = ['n0', 'n1', 'n2', 'n3'];
const NODES = ['node-0', 'node-1', 'node-2'];
const PODS = ['p0', 'p1', 'p2', 'p3', 'p4'];

class Gen {
  constructor(private readonly r: () => number) {}
  int(n: number): number {
    return Math.floor(this.r() * n);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)] as T;
  }
  bool(p = 0.5): boolean {
    return this.r() < p;
  }

  namespace(): ClusterObject {
    const labels: Record<string, string> = { team: this.pick(['red', 'blue']) };
    if (this.bool()) labels['env'] = this.pick(['prod', 'dev']);
    return { apiVersion: 'v1', kind: 'Namespace', metadata: { name: this.pick(NS), labels } };
  }

  pod(): ClusterObject {
    const ns = this.pick(NS);
    const name = this.pick(PODS);
    const labels: Record<string, string> = { app: this.pick(['a', 'b', 'c']) };
    if (this.bool()) labels['tier'] = this.pick(['t0', 't1']);
    const ports = this.bool() ? [{ name: 'http', containerPort: this.pick([80, 8080]), protocol: 'TCP' as const }] : [];
    const ip = `10.${NS.indexOf(ns)}.${PODS.indexOf(name)}.${this.int(3)}`;
    const status: Record<string, unknown> = { podIP: ip, podIPs: [{ ip }] };
    if (this.bool(0.1)) status['phase'] = 'Succeeded';
    const spec: Record<string, unknown> = { nodeName: this.pick(NODES), containers: [{ name: 'c', ports }] };
    if (this.bool(0.2)) spec['serviceAccountName'] = this.pick(['sa1', 'sa2']);
    return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns, labels }, spec, status } as unknown as ClusterObject;
  }

  node(): ClusterObject {
    const name = this.pick(NODES);
    return { apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { zone: this.pick(['z1', 'z2']) } }, status: { addresses: [{ type: 'InternalIP', address: `192.168.0.${NODES.indexOf(name) + this.int(2) * 10}` }] } } as ClusterObject;
  }

  selector(): Record<string, unknown> {
    switch (this.int(4)) {
      case 0:
        return {};
      case 1:
        return { matchLabels: { app: this.pick(['a', 'b', 'c']) } };
      case 2:
        return { matchExpressions: [{ key: 'tier', operator: this.pick(['In', 'NotIn']), values: [this.pick(['t0', 't1'])] }] };
      default:
        return { matchLabels: { app: this.pick(['a', 'b']) }, matchExpressions: [{ key: 'tier', operator: this.pick(['Exists', 'DoesNotExist']) }] };
    }
  }

  nsSelector(): Record<string, unknown> {
    return this.bool(0.3) ? {} : { matchLabels: this.bool() ? { team: this.pick(['red', 'blue']) } : { env: this.pick(['prod', 'dev']) } };
  }

  k8sPeer(): Record<string, unknown> {
    switch (this.int(4)) {
      case 0:
        return { podSelector: this.selector() };
      case 1:
        return { namespaceSelector: this.nsSelector(), ...(this.bool() ? { podSelector: this.selector() } : {}) };
      case 2:
        return { ipBlock: { cidr: '10.1.0.0/16', ...(this.bool() ? { except: ['10.1.2.0/24'] } : {}) } };
      default:
        return { podSelector: { matchLabels: { app: this.pick(['a', 'b', 'c']) } } };
    }
  }

  ports(): unknown[] | undefined {
    const r = this.int(4);
    if (r === 0) return undefined;
    if (r === 1) return [{ port: 'http' }];
    if (r === 2) return [{ protocol: 'TCP', port: 80 }, { protocol: 'UDP', port: 53 }];
    return [{ port: 8000, endPort: 8100 }];
  }

  k8sPolicy(): ClusterObject {
    const ingress = Array.from({ length: this.int(3) }, () => ({ ...(this.bool(0.8) ? { from: Array.from({ length: 1 + this.int(2) }, () => this.k8sPeer()) } : {}), ...(this.bool() ? { ports: this.ports() } : {}) }));
    const egress = this.bool(0.4) ? Array.from({ length: 1 + this.int(2) }, () => ({ ...(this.bool(0.6) ? { to: [this.k8sPeer()] } : {}), ...(this.bool() ? { ports: this.ports() } : {}) })) : undefined;
    const spec: Record<string, unknown> = { podSelector: this.selector(), ingress };
    if (egress) spec['egress'] = egress;
    if (this.bool(0.3)) spec['policyTypes'] = egress ? ['Ingress', 'Egress'] : ['Ingress'];
    return { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: `np${this.int(6)}`, namespace: this.pick(NS), ...(this.bool(0.2) ? { labels: { touched: 'yes' } } : {}) }, spec } as unknown as ClusterObject;
  }

  clusterGroup(): ClusterObject {
    const spec: Record<string, unknown> = this.bool(0.2) ? { ipBlocks: [{ cidr: '10.2.0.0/16' }] } : { namespaceSelector: this.nsSelector(), podSelector: this.selector() };
    return { apiVersion: 'crd.antrea.io/v1beta1', kind: 'ClusterGroup', metadata: { name: `cg${this.int(2)}` }, spec } as ClusterObject;
  }

  acnp(): ClusterObject {
    const peer = (): Record<string, unknown> => (this.bool(0.4) ? { group: `cg${this.int(2)}` } : this.bool() ? { namespaceSelector: this.nsSelector() } : { podSelector: this.selector(), namespaceSelector: this.nsSelector() });
    const rule = (dir: 'from' | 'to'): Record<string, unknown> => ({ action: this.pick(['Allow', 'Drop', 'Pass']), [dir]: [peer()], ...(this.bool() ? { ports: [{ protocol: 'TCP', port: 80 }] } : {}) });
    const appliedTo = this.bool(0.3) ? [{ group: `cg${this.int(2)}` }] : [{ podSelector: this.selector(), ...(this.bool() ? { namespaceSelector: this.nsSelector() } : {}) }];
    const spec = { priority: 1 + this.int(5), tier: this.pick(['application', 'securityops']), appliedTo, ingress: this.bool() ? [rule('from')] : [], egress: this.bool() ? [rule('to')] : [] };
    return { apiVersion: 'crd.antrea.io/v1beta1', kind: 'ClusterNetworkPolicy', metadata: { name: `acnp${this.int(3)}` }, spec } as ClusterObject;
  }

  annp(): ClusterObject {
    const spec = { priority: 1 + this.int(3), appliedTo: [{ podSelector: this.selector() }], ingress: [{ action: this.pick(['Allow', 'Drop']), from: [{ podSelector: this.selector() }] }] };
    return { apiVersion: 'crd.antrea.io/v1beta1', kind: 'NetworkPolicy', metadata: { name: `annp${this.int(2)}`, namespace: this.pick(NS) }, spec } as ClusterObject;
  }

  anp(): ClusterObject {
    const spec = {
      priority: 10 + this.int(3),
      subject: this.bool() ? { namespaces: this.nsSelector() } : { pods: { namespaceSelector: this.nsSelector(), podSelector: this.selector() } },
      ingress: [{ name: 'r0', action: this.pick(['Allow', 'Deny', 'Pass']), from: [{ pods: { namespaceSelector: this.nsSelector(), podSelector: this.selector() } }] }],
      egress: this.bool() ? [{ name: 'e0', action: 'Deny', to: [{ namespaces: this.nsSelector() }] }] : [],
    };
    return { apiVersion: 'policy.networking.k8s.io/v1alpha1', kind: 'AdminNetworkPolicy', metadata: { name: `anp${this.int(2)}` }, spec } as ClusterObject;
  }

  object(): ClusterObject {
    const r = this.int(20);
    if (r < 8) return this.pod();
    if (r < 10) return this.namespace();
    if (r < 11) return this.node();
    if (r < 15) return this.k8sPolicy();
    if (r < 16) return this.clusterGroup();
    if (r < 18) return this.acnp();
    if (r < 19) return this.annp();
    return this.anp();
  }
}

const key = (o: ClusterObject): string => `${o.kind}/${o.apiVersion}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
const digest = (x: unknown): string => createHash('sha256').update(JSON.stringify(x)).digest('hex').slice(0, 12);
// Maps and Sets (the engine's inline ones too) as entry lists, in their iteration order.
const plain = (x: unknown): unknown => JSON.parse(JSON.stringify(x, (_k, v: unknown) => (v instanceof Map || (v && typeof v === 'object' && typeof (v as Map<unknown, unknown>).entries === 'function' && !Array.isArray(v)) ? [...(v as Map<unknown, unknown>).entries()] : v)));

/** Digests of one sequence: every step's delta and queries, then the final state. */
function run(seed: number): string[] {
  const g = new Gen(rng(seed));
  const e = new PolicyEngine();
  const out: string[] = [];
  const live = new Map<string, ClusterObject>();
  // Half of the sequences start with a bulk load of random objects, as a controller does.
  if (seed % 2 === 0) {
    const initial = Array.from({ length: 40 + g.int(40) }, () => g.object());
    for (const o of initial) live.set(key(o), o);
    out.push(digest(e.load(initial).map((r) => [r.kind, r.namespace, r.name, r.errors.map((x) => x.code)])));
  }
  for (let i = 0; i < EVENTS; i++) {
    const existing = [...live.values()];
    let ev: { type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: ClusterObject };
    if (existing.length > 0 && g.bool(0.15)) {
      const object = g.pick(existing);
      ev = { type: 'DELETED', object };
      live.delete(key(object));
    } else {
      const object = g.object();
      ev = { type: live.has(key(object)) ? 'MODIFIED' : 'ADDED', object };
      live.set(key(object), object);
    }
    const d = e.apply(ev);
    const step: unknown[] = [plain([...d.nodes]), d.rejected ? [d.rejected.kind, d.rejected.name, d.rejected.errors.map((x) => x.code)] : null];
    // Queries between events, so a stale memo would show.
    if (i % 5 === 0) for (const ns of NS) for (const p of PODS.slice(0, 2)) if (e.pods.has(`Pod/${ns}/${p}`)) step.push(plain(queryEndpoint(e, `${ns}/${p}`)));
    out.push(digest(step));
  }
  out.push(digest(plain(e.snapshot())));
  for (const n of NODES) out.push(digest(plain(e.snapshot(n))));
  const spans: unknown[] = [];
  for (const p of e.policies.values()) spans.push(p.compiled.policy.uid, e.spanOf('NetworkPolicy', p.compiled.policy.uid));
  for (const name of e.groups.keys()) spans.push(name, e.spanOf('AddressGroup', name), e.spanOf('AppliedToGroup', name));
  out.push(digest(spans));
  // Each member's groups in the order it joined them (queryEndpoint lists policies in that order);
  // the order of members in the index is no part of the contract (pods keep theirs in the member index).
  out.push(digest([...e.memberGroups].map(([m, gs]) => [m, [...gs]]).sort((a, b) => ((a[0] as string) < (b[0] as string) ? -1 : 1))));
  out.push(digest([...e.ipOwners].sort()));
  return out;
}

describe('engine output against the digests of the engine before the redesign', () => {
  const got = Array.from({ length: SEQUENCES }, (_, s) => run(1000 + s));
  if (process.env['UPDATE_ENGINE_DIGESTS'] === '1') writeFileSync(FIXTURE, `${JSON.stringify(got.map((d) => d.join(' ')), null, 0)}\n`);
  const want = (JSON.parse(readFileSync(FIXTURE, 'utf8')) as string[]).map((s) => s.split(' '));

  it.each(Array.from({ length: SEQUENCES }, (_, s) => s))('sequence %i: same deltas, queries, snapshots, spans and member groups', (s) => {
    const g = got[s] as string[];
    const w = want[s] as string[];
    const first = g.findIndex((d, i) => d !== w[i]);
    expect({ sequence: s, firstDifferentStep: first, steps: g.length }).toEqual({ sequence: s, firstDifferentStep: -1, steps: w.length });
  });
});
