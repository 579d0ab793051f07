// @kubernetes/client-node informers against the server, as the controller and agents use them.
import { CoreV1Api, KubeConfig, makeInformer, type Informer, type ObjectCache, type V1ConfigMap } from '@kubernetes/client-node';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startKubeApi, type KubeApiOptions, type KubeApiServer } from '../src/index';
import { ManualClock } from '@switchyard/runtime/testing';

function kubeConfig(s: KubeApiServer): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: s.url, skipTLSVerify: true }],
    users: [{ name: 'u', token: s.adminToken }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}

async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (cond()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

interface Recorder {
  informer: Informer<V1ConfigMap> & ObjectCache<V1ConfigMap>;
  log: string[];
  connects: number;
  errors: unknown[];
}

function record(kc: KubeConfig, ns: string): Recorder {
  const api = kc.makeApiClient(CoreV1Api);
  const informer = makeInformer<V1ConfigMap>(kc, `/api/v1/namespaces/${ns}/configmaps`, () => api.listNamespacedConfigMap({ namespace: ns }));
  const r: Recorder = { informer, log: [], connects: 0, errors: [] };
  informer.on('add', (o) => r.log.push(`add ${o.metadata?.name ?? ''}`));
  informer.on('update', (o) => r.log.push(`update ${o.metadata?.name ?? ''}`));
  informer.on('delete', (o) => r.log.push(`delete ${o.metadata?.name ?? ''}`));
  informer.on('connect', () => r.connects++);
  informer.on('error', (e) => r.errors.push(e));
  return r;
}

async function withServer<T>(opts: KubeApiOptions, fn: (s: KubeApiServer, kc: KubeConfig) => Promise<T>): Promise<T> {
  const s = await startKubeApi({ tls: false, ...opts });
  try {
    return await fn(s, kubeConfig(s));
  } finally {
    await s.stop();
  }
}

describe('client-node informers', () => {
  it('lists, then sees add, update and delete events', () =>
    withServer({}, async (_s, kc) => {
      const api = kc.makeApiClient(CoreV1Api);
      await api.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'before' } } });
      const r = record(kc, 'default');
      await r.informer.start();
      await until(() => r.log.includes('add before'), 'initial list');
      await api.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'after' } } });
      await api.patchNamespacedConfigMap({ namespace: 'default', name: 'after', body: [{ op: 'add', path: '/data', value: { k: 'v' } }] });
      await api.deleteNamespacedConfigMap({ namespace: 'default', name: 'before' });
      await until(() => r.log.length >= 4, 'events');
      expect(r.log).toEqual(['add before', 'add after', 'update after', 'delete before']);
      expect(r.informer.list().map((o) => o.metadata?.name)).toEqual(['after']);
      await r.informer.stop();
    }));

  it('reconnects when the server ends a watch at its timeout', () => {
    const clock = new ManualClock();
    return withServer({ clock }, async (_s, kc) => {
      const r = record(kc, 'default');
      await r.informer.start();
      await until(() => r.connects === 1, 'first connect');
      await new Promise((res) => setTimeout(res, 50));
      clock.advance(1800 * 1000);
      await until(() => r.connects === 2, 'reconnect after timeout');
      expect(r.errors).toEqual([]);
      await r.informer.stop();
    });
  });

  it('resumes after a server restart and relists on 410 Gone', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kube-api-informer-'));
    try {
      const first = await startKubeApi({ tls: false, dataDir, watchHistory: 2 });
      const port = first.port;
      const kc = kubeConfig(first);
      const api = kc.makeApiClient(CoreV1Api);
      await api.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'old' } } });
      const r = record(kc, 'default');
      await r.informer.start();
      await until(() => r.log.includes('add old'), 'initial list');
      await first.stop();
      await until(() => r.errors.length > 0, 'informer notices the server is gone');

      const second = await startKubeApi({ tls: false, dataDir, port, watchHistory: 2 });
      try {
        expect((await api.readNamespacedConfigMap({ namespace: 'default', name: 'old' })).metadata?.name).toBe('old');
        // More changes than the watch history holds: the informer's resourceVersion expires.
        await api.deleteNamespacedConfigMap({ namespace: 'default', name: 'old' });
        for (const n of ['n1', 'n2', 'n3']) await api.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: n } } });
        r.errors.length = 0;
        await r.informer.start();
        await until(() => r.informer.list().length === 3, 'relist after 410');
        expect(r.informer.list().map((o) => o.metadata?.name).sort()).toEqual(['n1', 'n2', 'n3']);
        expect(r.log).toEqual(expect.arrayContaining(['delete old', 'add n1', 'add n2', 'add n3']));
        await api.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'live' } } });
        await until(() => r.log.includes('add live'), 'live event after relist');
        await r.informer.stop();
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
