// A stuck agent must not hold up the others: its queue is bounded (asserted on bytes, not time)
// and it is cut off once the bound would be exceeded, while a reading agent gets every event.
import { ControlplaneHub } from '../src/hub';
import { createPki } from '../src/pki';
import { ControlplaneServer } from '../src/server';
import type { RequestAuth } from '@switchyard/kube';
import { ControlplaneWatchClient } from '../test-utils/watch-client';

const BOUND = 256 * 1024;

// Node identity from the token itself: `node:<name>` (the real server uses TokenReview).
const auth: RequestAuth = {
  authenticate: async (req) => {
    const m = /^Bearer node:(.+)$/.exec(req.headers.authorization ?? '');
    return m ? { username: `system:node:${m[1]}`, groups: ['system:nodes'] } : undefined;
  },
  authorize: async () => true,
};

const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x', labels: { 'kubernetes.io/metadata.name': 'x' } } };
const pod = (name: string, node: string, ip: string, labels: Record<string, string>): never =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'x', labels }, spec: { nodeName: node }, status: { podIP: ip, podIPs: [{ ip }] } }) as never;
/** A policy with many ipBlocks, so each event is a few kB. */
const bigPolicy = (i: number): never =>
  ({
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: `big-${i}`, namespace: 'x', uid: `uid-big-${i}` },
    spec: { podSelector: {}, policyTypes: ['Ingress'], ingress: [{ from: Array.from({ length: 60 }, (_, k) => ({ ipBlock: { cidr: `10.${i % 250}.${k}.0/24` } })) }] },
  }) as never;

test('a stuck watcher is disconnected at its buffer bound while a reading watcher receives everything', async () => {
  const hub = new ControlplaneHub({ bookmarkIntervalMs: 0 });
  hub.apply({ type: 'ADDED', object: ns as never });
  hub.apply({ type: 'ADDED', object: pod('p1', 'node-a', '10.1.0.1', { app: 'a' }) });
  hub.apply({ type: 'ADDED', object: pod('p2', 'node-b', '10.1.0.2', { app: 'b' }) });
  hub.markSynced();
  const pki = await createPki(['localhost', '127.0.0.1']);
  const server = new ControlplaneServer({ hub, auth, tls: { certPem: pki.certPem, keyPem: pki.keyPem }, host: '127.0.0.1', port: 0, maxWatcherBufferBytes: BOUND });
  const port = await server.listen();
  const fast = new ControlplaneWatchClient({ url: `https://127.0.0.1:${port}`, caPem: pki.caPem, nodeName: 'node-a', token: 'node:node-a' });
  const stuck = new ControlplaneWatchClient({ url: `https://127.0.0.1:${port}`, caPem: pki.caPem, nodeName: 'node-b', token: 'node:node-b' });
  await fast.connect();
  await stuck.connect();
  await fast.waitFor(() => fast.synced);
  await stuck.waitFor(() => stuck.synced);
  stuck.pause();
  const stuckConn = [...server.connections].find((c) => c.node === 'node-b');
  expect(stuckConn).toBeDefined();
  // Apply and delete big policies until the stuck watcher is cut off (kernel socket buffers absorb the first MBs).
  let i = 0;
  let maxSeen = 0;
  while (!stuckConn?.closed && i < 20000) {
    hub.apply({ type: 'ADDED', object: bigPolicy(i) });
    hub.apply({ type: 'DELETED', object: bigPolicy(i) });
    maxSeen = Math.max(maxSeen, stuckConn?.bufferedBytes ?? 0);
    i++;
    // Let the sockets move data now and then, as a running controller would between events.
    if (i % 50 === 0) await new Promise((r) => setImmediate(r));
  }
  expect(stuckConn?.overflowed).toBe(true);
  expect(server.stats.overflowDisconnects).toBe(1);
  expect(stuckConn?.maxBufferedBytes).toBeLessThanOrEqual(BOUND);
  expect(maxSeen).toBeLessThanOrEqual(BOUND);
  expect(server.connections.size).toBe(1);
  // The reading watcher got every add and delete, in order, ending with nothing left.
  const adds = i;
  await fast.waitFor(() => fast.received.filter((e) => e.kind === 'NetworkPolicy' && e.type === 'DELETED').length === adds, 30000, 'all deletes');
  expect(fast.received.filter((e) => e.kind === 'NetworkPolicy' && e.type === 'ADDED')).toHaveLength(adds);
  expect(fast.policies.size).toBe(0);
  fast.close();
  stuck.close();
  await server.close();
});

test('graceful shutdown ends streams cleanly so agents can resume', async () => {
  const hub = new ControlplaneHub({ bookmarkIntervalMs: 0 });
  hub.markSynced();
  const pki = await createPki(['127.0.0.1']);
  const server = new ControlplaneServer({ hub, auth, tls: { certPem: pki.certPem, keyPem: pki.keyPem }, host: '127.0.0.1', port: 0 });
  const port = await server.listen();
  const w = new ControlplaneWatchClient({ url: `https://127.0.0.1:${port}`, caPem: pki.caPem, nodeName: 'node-a', token: 'node:node-a' });
  await w.connect();
  await w.waitFor(() => w.synced);
  const ended = w.ended();
  await server.close();
  await ended;
  expect(w.resourceVersion).toBe(hub.resourceVersion);
  expect(hub.watcherCount).toBe(0);
});
