import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFileDurableSync } from '@switchyard/durable-file';
import { startKubeApi } from '../src/index';
import { SnapshotFile } from '../src/persistence';
import { ObjectStore } from '../src/store';
import { readWatch, TestClient } from './support/server';
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

  it('refuses a write it cannot persist with a 500, serves and watches the previous state, and accepts the next write once the disk is back', async () => {
    let fault: Error | undefined;
    const server = await startKubeApi({
      tls: false,
      dataDir: dir,
      snapshotWriter: (file, data, o) => {
        if (fault) throw fault;
        writeFileDurableSync(file, data, o);
      },
    });
    try {
      const c = new TestClient(server);
      const cms = '/api/v1/namespaces/default/configmaps';
      const kept = await c.post<{ metadata: { resourceVersion: string } }>(cms, { metadata: { name: 'kept' }, data: { v: '1' } });
      expect(kept.status).toBe(201);
      const rv = kept.body.metadata.resourceVersion;
      // Everything after `rv` that a watcher is told about; the first event must be the write made after the fault.
      const watched = readWatch(`${server.url}${cms}?watch=1&resourceVersion=${rv}`, server.adminToken, 1);

      fault = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      const file = join(dir, 'objects.json');
      const refused = [
        await c.post(cms, { metadata: { name: 'lost' }, data: { v: '1' } }),
        await c.put(`${cms}/kept`, { metadata: { name: 'kept', resourceVersion: rv }, data: { v: '2' } }),
        await c.delete(`${cms}/kept`),
      ];
      for (const r of refused) {
        expect(r.status).toBe(500);
        expect(r.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'InternalError', code: 500 });
        expect(r.body.message).toContain(file);
        expect(r.body.message).toContain('ENOSPC');
      }
      const still = await c.get<{ data: { v: string }; metadata: { resourceVersion: string } }>(`${cms}/kept`);
      expect(still.status).toBe(200);
      expect(still.body.data.v).toBe('1');
      expect(still.body.metadata.resourceVersion).toBe(rv);
      expect((await c.get(`${cms}/lost`)).status).toBe(404);
      expect((await c.get<{ metadata: { resourceVersion: string } }>(cms)).body.metadata.resourceVersion).toBe(rv);

      fault = undefined;
      const next = await c.put<{ data: { v: string } }>(`${cms}/kept`, { metadata: { name: 'kept', resourceVersion: rv }, data: { v: '3' } });
      expect(next.status).toBe(200);
      const [first] = await watched;
      expect(first).toMatchObject({ type: 'MODIFIED', object: { metadata: { name: 'kept' }, data: { v: '3' } } });
      const onDisk = JSON.parse(readFileSync(file, 'utf8')) as { objects: Record<string, { metadata: { name: string }; data?: { v: string } }[]> };
      expect(onDisk.objects['/configmaps']?.filter((o) => o.metadata.name !== 'kube-root-ca.crt').map((o) => [o.metadata.name, o.data?.v])).toEqual([['kept', '3']]);
    } finally {
      fault = undefined;
      await server.stop();
    }
  });

  it('writes the snapshot whole (0600, no temporary file left) and refuses one cut short, naming the file', () => {
    const store = new ObjectStore(100);
    store.restore({ resourceVersion: 7, objects: { 'v1/configmaps': [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default' }, data: { k: 'v' } }] } });
    new SnapshotFile(dir, store).flush();
    const file = join(dir, 'objects.json');
    expect(readdirSync(dir)).toEqual(['objects.json']);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const whole = readFileSync(file, 'utf8');
    const loaded = new ObjectStore(100);
    expect(new SnapshotFile(dir, loaded).load()).toBe(true);
    expect(loaded.snapshot()).toEqual(store.snapshot());
    for (let cut = 0; cut < whole.length; cut++) {
      writeFileSync(file, whole.slice(0, cut));
      expect(() => new SnapshotFile(dir, new ObjectStore(100)).load()).toThrow(`${file} is not a whole object snapshot`);
    }
  });
});
