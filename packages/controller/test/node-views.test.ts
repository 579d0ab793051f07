import type { controlplane } from '@switchyard/apis';
import type { ClusterEvent, PolicySnapshot } from '@switchyard/policy-compiler';
import { ControlplaneHub } from '../src/hub';

const NODES = ['a', 'b', 'c', 'd'];
const NAMESPACES = ['x', 'y'];
const APPS = ['web', 'cli', 'db'];

/** mulberry32: a seeded sequence, so a failure names the seed that reproduces it. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const namespace = (name: string, team: string): ClusterEvent['object'] => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'kubernetes.io/metadata.name': name, team } } }) as never;
const pod = (ns: string, name: string, app: string, node: string, ip: string): ClusterEvent['object'] =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns, labels: { app } }, spec: { nodeName: node }, status: { podIP: ip, podIPs: [{ ip }] } }) as never;
const policy = (ns: string, name: string, app: string, from: string, team: string | undefined): ClusterEvent['object'] =>
  ({
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name, namespace: ns, uid: `${ns}/${name}` },
    spec: {
      podSelector: { matchLabels: { app } },
      policyTypes: ['Ingress'],
      ingress: [{ from: [team === undefined ? { podSelector: { matchLabels: { app: from } } } : { namespaceSelector: { matchLabels: { team } }, podSelector: { matchLabels: { app: from } } }] }],
    },
  }) as never;

/** A random cluster event: pods come, change labels, move, change address and go; policies and Namespace labels change. */
function nextEvent(r: () => number, live: { pods: Set<string>; policies: Set<string> }): ClusterEvent {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const ns = pick(NAMESPACES);
  const x = r();
  if (x < 0.55) {
    const name = `p${Math.floor(r() * 8)}`;
    const key = `${ns}/${name}`;
    if (live.pods.has(key) && r() < 0.25) {
      live.pods.delete(key);
      return { type: 'DELETED', object: pod(ns, name, 'web', 'a', '10.0.0.1') };
    }
    const type = live.pods.has(key) ? 'MODIFIED' : 'ADDED';
    live.pods.add(key);
    return { type, object: pod(ns, name, pick(APPS), pick(NODES), `10.${NAMESPACES.indexOf(ns)}.0.${Math.floor(r() * 12)}`) };
  }
  if (x < 0.9) {
    const name = `np${Math.floor(r() * 4)}`;
    const key = `${ns}/${name}`;
    if (live.policies.has(key) && r() < 0.3) {
      live.policies.delete(key);
      return { type: 'DELETED', object: policy(ns, name, 'web', 'cli', undefined) };
    }
    const type = live.policies.has(key) ? 'MODIFIED' : 'ADDED';
    live.policies.add(key);
    return { type, object: policy(ns, name, pick(APPS), pick(APPS), r() < 0.4 ? pick(['red', 'blue']) : undefined) };
  }
  return { type: 'MODIFIED', object: namespace(ns, pick(['red', 'blue'])) };
}

const text = (m: unknown): string => JSON.stringify(m);
/** A snapshot with each group's members in one order (the only freedom the node views have). */
const normalized = (s: PolicySnapshot): unknown => {
  const members = (g: { name: string; groupMembers: controlplane.GroupMember[] }) => ({ name: g.name, groupMembers: g.groupMembers.map(text).sort() });
  return JSON.parse(text({ networkPolicies: s.networkPolicies, addressGroups: s.addressGroups.map(members), appliedToGroups: s.appliedToGroups.map(members) }));
};

test('node views kept from the deltas equal the engine snapshot of every node after random changes', () => {
  for (let seed = 1; seed <= 40; seed++) {
    const r = random(seed);
    const hub = new ControlplaneHub({ epoch: 'e', bookmarkIntervalMs: 0 });
    for (const ns of NAMESPACES) hub.apply({ type: 'ADDED', object: namespace(ns, 'red') });
    const live = { pods: new Set<string>(), policies: new Set<string>() };
    for (let i = 0; i < 80; i++) {
      const e = nextEvent(r, live);
      hub.apply(e);
      if (i === 40) hub.markSynced();
      for (const n of NODES) {
        const got = normalized(hub.nodeSnapshot(n));
        const want = normalized(hub.engine.snapshot(n));
        if (text(got) !== text(want)) expect({ seed, step: i, node: n, got }).toEqual({ seed, step: i, node: n, got: want });
      }
    }
  }
});

test('a node view handed to a watcher never changes afterwards', () => {
  const r = random(7);
  const hub = new ControlplaneHub({ epoch: 'e', bookmarkIntervalMs: 0 });
  for (const ns of NAMESPACES) hub.apply({ type: 'ADDED', object: namespace(ns, 'red') });
  const live = { pods: new Set<string>(), policies: new Set<string>() };
  const handed: { snap: PolicySnapshot; was: string }[] = [];
  let changed = 0;
  for (let i = 0; i < 300; i++) {
    hub.apply(nextEvent(r, live));
    const snap = hub.nodeSnapshot(NODES[i % NODES.length] as string);
    if (handed.length > 0 && text(snap) !== (handed.at(-1) as { was: string }).was) changed++;
    handed.push({ snap, was: text(snap) });
  }
  expect(changed).toBeGreaterThan(50);
  for (const h of handed) expect(text(h.snap)).toBe(h.was);
});
