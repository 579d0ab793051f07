import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startKubeApi } from '../src/index';
import { SnapshotFile } from '../src/persistence';
import { ObjectStore } from '../src/store';
import { silentLogger } from '../src/types';
import { TestClient } from './support/server';
import { widget, widgetCrd } from './support/fixtures';

describe('data directory', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'kube-api-data-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps objects, CRDs, resourceVersions, allocations and the admin token across restarts', async () => {
    const first = await startKubeApi({ tls: false, dataDir: dir });
    const c1 = new TestClient(first);
    await c1.post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', widgetCrd);
    await c1.post('/apis/example.switchyard.io/v1beta1/namespaces/default/widgets', widget('kept', { size: 3 }));
    const svc = await c1.post<{ spec: { clusterIP: string } }>('/api/v1/namespaces/default/services', { metadata: { name: 's' }, spec: { ports: [{ port: 80 }] } });
    const rv = Number((await c1.get<{ metadata: { resourceVersion: string } }>('/api/v1/namespaces')).body.metadata.resourceVersion);
    const token = first.adminToken;
    await first.stop();
    expect(readFileSync(join(dir, 'admin-token'), 'utf8').trim()).toBe(token);

    const second = await startKubeApi({ tls: false, dataDir: dir });
    try {
      expect(second.adminToken).toBe(token);
      const c2 = new TestClient(second);
      const w = await c2.get<{ spec: { size: number } }>('/apis/example.switchyard.io/v1beta1/namespaces/default/widgets/kept');
      expect(w.body.spec.size).toBe(3);
      const next = await c2.post<{ metadata: { resourceVersion: string } }>('/api/v1/namespaces/default/configmaps', { metadata: { name: 'after' } });
      expect(Number(next.body.metadata.resourceVersion)).toBeGreaterThan(rv);
      const clash = await c2.post('/api/v1/namespaces/default/services', { metadata: { name: 't' }, spec: { clusterIP: svc.body.spec.clusterIP, ports: [{ port: 80 }] } });
      expect(clash.status).toBe(422);
      expect((await c2.get('/api/v1/namespaces')).status).toBe(200);
    } finally {
      await second.stop();
    }
  });

  it('runs several independent instances side by side on random ports', async () => {
    const servers = await Promise.all([0, 1, 2].map(() => startKubeApi({ tls: false })));
    try {
      expect(new Set(servers.map((s) => s.port)).size).toBe(3);
      await new TestClient(servers[0]!).post('/api/v1/namespaces', { metadata: { name: 'only-in-first' } });
      expect((await new TestClient(servers[1]!).get('/api/v1/namespaces/only-in-first')).status).toBe(404);
      expect((await new TestClient(servers[1]!, servers[0]!.adminToken).get('/api')).status).toBe(401);
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
    }
  });

  it('writes the snapshot whole (0600, no temporary file left) and refuses one cut short, naming the file', () => {
    const store = new ObjectStore(100);
    store.restore({ resourceVersion: 7, objects: { 'v1/configmaps': [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default' }, data: { k: 'v' } }] } });
    new SnapshotFile(dir, store, silentLogger).flush();
    const file = join(dir, 'objects.json');
    expect(readdirSync(dir)).toEqual(['objects.json']);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const whole = readFileSync(file, 'utf8');
    const loaded = new ObjectStore(100);
    expect(new SnapshotFile(dir, loaded, silentLogger).load()).toBe(true);
    expect(loaded.snapshot()).toEqual(store.snapshot());
    for (let cut = 0; cut < whole.length; cut++) {
      writeFileSync(file, whole.slice(0, cut));
      expect(() => new SnapshotFile(dir, new ObjectStore(100), silentLogger).load()).toThrow(`${file} is not a whole object snapshot`);
    }
  });
});
