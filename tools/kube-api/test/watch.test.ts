import { readWatch, startTestServer } from './support/server';
import { ManualClock } from '@switchyard/runtime/testing';

describe('watch resumption and timing', () => {
  it('answers a too-old resourceVersion with an ERROR event carrying a 410 Expired Status', async () => {
    const { server, client } = await startTestServer({ watchHistory: 3 });
    try {
      const start = await client.get<{ metadata: { resourceVersion: string } }>('/api/v1/namespaces/default/configmaps');
      for (let i = 0; i < 6; i++) await client.post('/api/v1/namespaces/default/configmaps', { metadata: { name: `c${i}` } });
      const ev = await readWatch(`${server.url}/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${start.body.metadata.resourceVersion}`, server.adminToken, 2);
      expect(ev).toHaveLength(1);
      expect(ev[0]).toMatchObject({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } });
      const list = await client.get<{ metadata: { continue: string } }>('/api/v1/namespaces/default/configmaps?limit=1');
      for (let i = 0; i < 4; i++) await client.post('/api/v1/namespaces/default/configmaps', { metadata: { name: `d${i}` } });
      const expired = await client.get(`/api/v1/namespaces/default/configmaps?limit=1&continue=${list.body.metadata.continue}`);
      expect(expired.status).toBe(410);
      expect(expired.body).toMatchObject({ reason: 'Expired', code: 410 });
    } finally {
      await server.stop();
    }
  });

  it('ends the stream at timeoutSeconds and sends bookmarks when allowed', async () => {
    const clock = new ManualClock();
    const { server, client } = await startTestServer({ clock, bookmarkIntervalMs: 1000 });
    try {
      const list = await client.get<{ metadata: { resourceVersion: string } }>('/api/v1/namespaces/default/configmaps');
      const r = await fetch(`${server.url}/api/v1/namespaces/default/configmaps?watch=true&allowWatchBookmarks=true&timeoutSeconds=5&resourceVersion=${list.body.metadata.resourceVersion}`, {
        headers: { authorization: `Bearer ${server.adminToken}` },
      });
      expect(r.headers.get('content-type')).toBe('application/json');
      const text = r.text();
      await client.post('/api/v1/namespaces/default/configmaps', { metadata: { name: 'x' } });
      clock.advance(1000);
      clock.advance(4000);
      const lines = (await text).trim().split('\n').map((l) => JSON.parse(l) as { type: string; object: { metadata: { resourceVersion: string } } });
      // Bookmarks at 1s..4s; the 5s timeout (armed first) ends the stream before the fifth.
      expect(lines.map((l) => l.type)).toEqual(['ADDED', 'BOOKMARK', 'BOOKMARK', 'BOOKMARK', 'BOOKMARK']);
      expect(Number(lines[1]?.object.metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(lines[0]?.object.metadata.resourceVersion));
    } finally {
      await server.stop();
    }
  });

  it('sends initial events and an initial-events-end bookmark with sendInitialEvents', async () => {
    const { server, client } = await startTestServer();
    try {
      await client.post('/api/v1/namespaces/default/configmaps', { metadata: { name: 'init' } });
      const ev = await readWatch(`${server.url}/api/v1/namespaces/default/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`, server.adminToken, 2);
      expect(ev.map((e) => e.type)).toEqual(['ADDED', 'BOOKMARK']);
      expect(ev[1]?.object).toMatchObject({ metadata: { annotations: { 'k8s.io/initial-events-end': 'true' } } });
    } finally {
      await server.stop();
    }
  });
});
