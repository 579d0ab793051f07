import { ManualClock } from '@switchyard/runtime/testing';
import { Informer, type InformerEvent } from '../src';
import { FakeKube, gone, pod, settle } from './fake-kube';

const spec = { group: '', version: 'v1', plural: 'pods', kind: 'Pod', namespaced: true };

function setup(): { kube: FakeKube; clock: ManualClock; events: InformerEvent[]; inf: Informer } {
  const kube = new FakeKube();
  const clock = new ManualClock();
  const events: InformerEvent[] = [];
  const inf = new Informer(kube, spec, (e) => events.push(e), { clock, random: () => 0.5, initialBackoffMs: 100, maxBackoffMs: 1000, jitter: 0.2 });
  return { kube, clock, events, inf };
}

describe('Informer', () => {
  test('sends its field and label selectors on every LIST and WATCH', async () => {
    const kube = new FakeKube();
    const inf = new Informer(kube, spec, () => undefined, { clock: new ManualClock(), fieldSelector: 'spec.nodeName=node1', labelSelector: 'app=web' });
    inf.start();
    const w = await kube.nextWatch(1);
    for (const path of [kube.lists[0] ?? '', w.path]) {
      const q = new URLSearchParams(path.split('?')[1]);
      expect(q.get('fieldSelector')).toBe('spec.nodeName=node1');
      expect(q.get('labelSelector')).toBe('app=web');
    }
    await inf.stop();
  });

  test('with a namespace, lists and watches that namespace only (what a Role allows)', async () => {
    const kube = new FakeKube();
    const inf = new Informer(kube, spec, () => undefined, { clock: new ManualClock(), namespace: 'vm-ns' });
    inf.start();
    const w = await kube.nextWatch(1);
    for (const path of [kube.lists[0] ?? '', w.path]) expect(path.split('?')[0]).toBe('/api/v1/namespaces/vm-ns/pods');
    await inf.stop();
  });

  test('lists, then watches from the list resourceVersion with bookmarks and a timeout', async () => {
    const { kube, events, inf } = setup();
    kube.objects = [pod('a', '5')];
    inf.start();
    const w = await kube.nextWatch(1);
    expect(events.map((e) => [e.type, e.object.metadata.name, e.object.kind, e.object.apiVersion])).toEqual([['ADDED', 'a', 'Pod', 'v1']]);
    expect(w.path).toContain('resourceVersion=10');
    expect(w.path).toContain('allowWatchBookmarks=true');
    expect(w.path).toContain('timeoutSeconds=');
    w.push('MODIFIED', pod('a', '11', { x: '1' }));
    w.push('BOOKMARK', { metadata: { resourceVersion: '15' } });
    await settle();
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED']);
    w.end();
    const w2 = await kube.nextWatch(2);
    expect(w2.path).toContain('resourceVersion=15');
    await inf.stop();
  });

  test('relists on 410 Gone and emits synthetic events for what changed meanwhile', async () => {
    const { kube, events, inf } = setup();
    kube.objects = [pod('a', '5'), pod('b', '6')];
    inf.start();
    const w = await kube.nextWatch(1);
    // While we were away: a changed, b deleted, c created.
    kube.objects = [pod('a', '20', { v: '2' }), pod('c', '21')];
    kube.listRv = '22';
    w.push('ERROR', { kind: 'Status', code: 410, reason: 'Expired' });
    const w2 = await kube.nextWatch(2);
    expect(w2.path).toContain('resourceVersion=22');
    expect(inf.stats.relistsOn410).toBe(1);
    const after = events.slice(2).map((e) => [e.type, e.object.metadata.name, e.synthetic]);
    expect(after).toEqual([
      ['MODIFIED', 'a', true],
      ['ADDED', 'c', true],
      ['DELETED', 'b', true],
    ]);
    expect([...inf.cache.keys()].sort()).toEqual(['ns/a', 'ns/c']);
    await inf.stop();
  });

  test('a watch that fails to open is retried after an exponential backoff with jitter on the injected clock', async () => {
    const { kube, clock, inf } = setup();
    kube.watchFailures = [new Error('ECONNREFUSED'), new Error('ECONNREFUSED')];
    inf.start();
    await settle();
    expect(inf.stats.failures).toBe(1);
    expect(kube.watches).toHaveLength(0);
    // First delay: 100 ms * (1 + 0.2 * 0.5) = 110 ms.
    clock.advance(109);
    await settle();
    expect(inf.stats.failures).toBe(1);
    clock.advance(1);
    await settle();
    expect(inf.stats.failures).toBe(2);
    // Second delay: 200 * 1.1 = 220 ms.
    clock.advance(219);
    await settle();
    expect(kube.watches).toHaveLength(0);
    clock.advance(1);
    await kube.nextWatch(1);
    expect(kube.lists).toHaveLength(1);
    await inf.stop();
  });

  test('backoff grows to its cap', () => {
    const { inf } = setup();
    expect([0, 1, 2, 3, 4, 10].map((a) => inf.backoffDelay(a))).toEqual([110, 220, 440, 880, 1100, 1100]);
  });

  test('a 410 answer to the watch request itself also triggers a relist', async () => {
    const { kube, inf } = setup();
    kube.watchFailures = [gone()];
    inf.start();
    await kube.nextWatch(1);
    expect(kube.lists).toHaveLength(2);
    expect(inf.stats.relistsOn410).toBe(1);
    await inf.stop();
  });

  test('a replayed ADDED for a cached object becomes MODIFIED, and an identical one is dropped', async () => {
    const { kube, events, inf } = setup();
    kube.objects = [pod('a', '5')];
    inf.start();
    const w = await kube.nextWatch(1);
    w.push('ADDED', pod('a', '5'));
    w.push('ADDED', pod('a', '7', { z: '1' }));
    w.push('DELETED', pod('zz', '8'));
    await settle();
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED']);
    await inf.stop();
  });

  test('the liveness timer aborts a silent watch', async () => {
    const { kube, clock, inf } = setup();
    inf.start();
    const w = await kube.nextWatch(1);
    await settle();
    clock.advance(330 * 1000);
    await settle();
    expect(w.aborted).toBe(true);
    await inf.stop();
  });
});
