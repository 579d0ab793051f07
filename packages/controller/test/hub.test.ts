import type { controlplane } from '@switchyard/apis';
import { ManualClock } from '@switchyard/runtime/testing';
import { ControlplaneHub, type ControlplaneResource, type NodeWatcher } from '../src/hub';

const ns = (name: string): never => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'kubernetes.io/metadata.name': name } } }) as never;
const pod = (name: string, node: string, ip: string, labels: Record<string, string>): never =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'x', labels }, spec: { nodeName: node }, status: { podIP: ip } }) as never;
const np = (name: string, app: string, from: string): never =>
  ({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name, namespace: 'x', uid: `uid-${name}` }, spec: { podSelector: { matchLabels: { app } }, policyTypes: ['Ingress'], ingress: [{ from: [{ podSelector: { matchLabels: { app: from } } }] }] } }) as never;

class Recorder implements NodeWatcher {
  readonly events: controlplane.WatchEvent[] = [];
  constructor(
    readonly node: string,
    readonly resources: ReadonlySet<ControlplaneResource> = new Set(['networkpolicies', 'addressgroups', 'appliedtogroups']),
  ) {}
  send(e: readonly controlplane.WatchEvent[]): void {
    this.events.push(...e);
  }
}

function cluster(options: ConstructorParameters<typeof ControlplaneHub>[0] = {}): ControlplaneHub {
  const hub = new ControlplaneHub({ epoch: 'e1', bookmarkIntervalMs: 0, ...options });
  hub.apply({ type: 'ADDED', object: ns('x') });
  hub.apply({ type: 'ADDED', object: pod('web', 'a', '10.0.0.1', { app: 'web' }) });
  hub.apply({ type: 'ADDED', object: pod('cli', 'b', '10.0.0.2', { app: 'cli' }) });
  hub.apply({ type: 'ADDED', object: np('p1', 'web', 'cli') });
  hub.markSynced();
  return hub;
}

describe('ControlplaneHub', () => {
  test('a new watcher gets its node state, groups before policies, with the current resourceVersion', () => {
    const hub = cluster();
    const a = new Recorder('a');
    const start = hub.watch(a);
    expect(start.mode).toBe('initial');
    if (start.mode !== 'initial') return;
    expect(start.events.map((e) => e.kind)).toEqual(['AddressGroup', 'AppliedToGroup', 'NetworkPolicy']);
    expect(start.resourceVersion).toBe(hub.resourceVersion);
    expect(hub.watch(new Recorder('b')).mode).toBe('initial');
    const b = hub.watch(new Recorder('b'));
    expect(b.mode === 'initial' && b.events).toEqual([]);
  });

  test('a watcher limited to one resource only sees that resource', () => {
    const hub = cluster();
    const w = new Recorder('a', new Set(['addressgroups']));
    const start = hub.watch(w);
    expect(start.mode === 'initial' && start.events.map((e) => e.kind)).toEqual(['AddressGroup']);
    hub.apply({ type: 'ADDED', object: pod('cli2', 'b', '10.0.0.3', { app: 'cli' }) });
    hub.apply({ type: 'DELETED', object: np('p1', 'web', 'cli') });
    expect(w.events.map((e) => `${e.type}/${e.kind}`)).toEqual(['MODIFIED/AddressGroupPatch', 'DELETED/AddressGroup']);
  });

  test('resume replays exactly the events after the resourceVersion, each stamped with its version', () => {
    const hub = cluster();
    const first = new Recorder('a');
    hub.watch(first);
    const rv = hub.resourceVersion;
    hub.unwatch(first);
    hub.apply({ type: 'ADDED', object: pod('cli2', 'b', '10.0.0.3', { app: 'cli' }) });
    const after1 = hub.resourceVersion;
    hub.apply({ type: 'ADDED', object: pod('web2', 'a', '10.0.0.4', { app: 'web' }) });
    const again = new Recorder('a');
    const start = hub.watch(again, rv);
    expect(start.mode).toBe('resume');
    if (start.mode !== 'resume') return;
    expect(start.events.map((e) => [e.kind, e.resourceVersion])).toEqual([
      ['AddressGroupPatch', after1],
      ['AppliedToGroupPatch', hub.resourceVersion],
    ]);
    const fromLatest = hub.watch(new Recorder('a'), hub.resourceVersion);
    expect(fromLatest.mode === 'resume' && fromLatest.events).toEqual([]);
  });

  test('versions older than the bounded history, from another epoch or from the future are expired', () => {
    const hub = cluster({ historyPerNode: 3 });
    const rv = hub.resourceVersion;
    for (let i = 0; i < 5; i++) hub.apply({ type: 'ADDED', object: pod(`c${i}`, 'b', `10.0.1.${i}`, { app: 'cli' }) });
    expect(hub.historyLength('a')).toBeLessThanOrEqual(3);
    expect(hub.watch(new Recorder('a'), rv).mode).toBe('expired');
    expect(hub.watch(new Recorder('a'), 'other.1').mode).toBe('expired');
    expect(hub.watch(new Recorder('a'), 'e1.99999').mode).toBe('expired');
    expect(hub.watch(new Recorder('a'), 'garbage').mode).toBe('expired');
  });

  test('live events reach only the watchers of affected nodes', () => {
    const hub = cluster();
    const a = new Recorder('a');
    const b = new Recorder('b');
    hub.watch(a);
    hub.watch(b);
    hub.apply({ type: 'MODIFIED', object: pod('cli', 'b', '10.0.0.2', { app: 'other' }) });
    expect(a.events.map((e) => e.kind)).toEqual(['AddressGroupPatch']);
    expect(b.events).toEqual([]);
  });

  test('bookmarks go to every watcher on the injected clock', () => {
    const clock = new ManualClock();
    const hub = new ControlplaneHub({ clock, bookmarkIntervalMs: 1000, epoch: 'e' });
    hub.markSynced();
    const w = new Recorder('a');
    hub.watch(w);
    clock.advance(999);
    expect(w.events).toEqual([]);
    clock.advance(1);
    clock.advance(1000);
    expect(w.events.map((e) => e.type)).toEqual(['BOOKMARK', 'BOOKMARK']);
    hub.close();
  });
});

test('the one-pass node views equal the engine snapshot of every node', () => {
  const hub = cluster();
  hub.apply({ type: 'ADDED', object: pod('web2', 'b', '10.0.0.9', { app: 'web' }) });
  hub.apply({ type: 'ADDED', object: np('p2', 'cli', 'web') });
  const norm = (s: ReturnType<ControlplaneHub['nodeSnapshot']>): unknown => JSON.parse(JSON.stringify({ ...s, addressGroups: s.addressGroups.map((g) => ({ ...g, groupMembers: [...g.groupMembers].sort((x, y) => (JSON.stringify(x) < JSON.stringify(y) ? -1 : 1)) })), appliedToGroups: s.appliedToGroups.map((g) => ({ ...g, groupMembers: [...g.groupMembers].sort((x, y) => (JSON.stringify(x) < JSON.stringify(y) ? -1 : 1)) })) }));
  for (const n of ['a', 'b', 'c']) expect(norm(hub.nodeSnapshot(n))).toEqual(norm(hub.engine.snapshot(n)));
  expect(hub.nodeSnapshot('b').networkPolicies.map((p) => p.name).sort()).toEqual(['p1', 'p2']);
});
