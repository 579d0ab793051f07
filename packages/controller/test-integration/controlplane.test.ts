// End to end against the embedded API server: kubectl creates namespaces, pods and policies; agent
// watch clients for two nodes receive exactly their node's share over TLS, with patches, deletes,
// resumption, resync, and node-scoped authorization.
import https from 'node:https';
import type { Controller } from '../src/controller';
import { ControlplaneClient } from '@switchyard/controlplane-client';
import type { controlplane } from '@switchyard/apis';
import { parsePromText } from '@switchyard/testbed';
import { createPod, eventually, eventuallyPasses, NODE_TOKENS, startCluster, type Cluster } from './support';

let c: Cluster;
let controller: Controller;
const clients: ControlplaneClient[] = [];
/** Every event each client received, in order (BOOKMARKs included), and the mode of each stream it opened. */
const received = new Map<ControlplaneClient, controlplane.WatchEvent[]>();
const modes = new Map<ControlplaneClient, string[]>();

function client(node: string, token = NODE_TOKENS[node]): ControlplaneClient {
  const events: controlplane.WatchEvent[] = [];
  const w = new ControlplaneClient({ url: `https://127.0.0.1:${c.controllerPort}`, caPem: controller.pki.caPem, nodeName: node, ...(token ? { token } : {}), onEvent: (e) => events.push(e) });
  clients.push(w);
  received.set(w, events);
  modes.set(w, []);
  return w;
}
const eventsOf = (w: ControlplaneClient): controlplane.WatchEvent[] => received.get(w) ?? [];
const modesOf = (w: ControlplaneClient): string[] => modes.get(w) ?? [];
/** Open one stream by hand (the tests decide when to reconnect) and record its mode. */
async function connect(w: ControlplaneClient): Promise<{ status: number; body?: string }> {
  const r = await w.open();
  if (r.mode) modesOf(w).push(r.mode);
  return r;
}

const np = (name: string, app: string, from: string): Record<string, unknown> => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
  metadata: { name, namespace: 'x' },
  spec: { podSelector: { matchLabels: { app } }, policyTypes: ['Ingress'], ingress: [{ from: [{ podSelector: { matchLabels: { app: from } } }], ports: [{ protocol: 'TCP', port: 80 }] }] },
});

const member = (m: controlplane.GroupMember): string => (m.pod ? `${m.pod.namespace}/${m.pod.name}` : m.externalEntity ? `ee:${m.externalEntity.namespace}/${m.externalEntity.name}` : m.ips.join(','));
/** Names of the members of a group (pods as ns/name). */
const members = (w: ControlplaneClient, kind: 'address' | 'applied', name: string): string[] => {
  const s = w.view.snapshot();
  return ((kind === 'address' ? s.addressGroups : s.appliedToGroups).find((g) => g.name === name)?.groupMembers ?? []).map(member).sort();
};
const names = (w: ControlplaneClient): string[] => w.view.snapshot().policies.map((p) => p.sourceRef.name).sort();
const addressMembers = (w: ControlplaneClient): string[] => w.view.snapshot().addressGroups.flatMap((g) => g.groupMembers.map(member)).sort();
const appliedMembers = (w: ControlplaneClient): string[] => w.view.snapshot().appliedToGroups.flatMap((g) => g.groupMembers.map(member)).sort();

beforeAll(async () => {
  c = await startCluster();
  await c.kubectl.ok(['create', 'namespace', 'x']);
  await c.kubectl.ok(['create', 'namespace', 'y']);
  await createPod(c, 'x', 'web', 'node-a', '10.0.1.10', { app: 'web' });
  await createPod(c, 'x', 'client', 'node-a', '10.0.1.11', { app: 'client' });
  await createPod(c, 'x', 'db', 'node-b', '10.0.2.10', { app: 'db' });
  await createPod(c, 'y', 'other', 'node-b', '10.0.2.11', { app: 'client' });
  await c.kubectl.apply(np('web-from-client', 'web', 'client'), np('db-from-web', 'db', 'web'));
  controller = await c.startController({ historyPerNode: 50 });
});

afterAll(async () => {
  for (const w of clients) w.close();
  await controller?.stop();
  await c?.api.stop();
});

describe('controlplane watch over the Kubernetes API', () => {
  let a: ControlplaneClient;
  let b: ControlplaneClient;

  test('each node receives exactly its own policies and groups', async () => {
    a = client('node-a');
    b = client('node-b');
    expect((await connect(a)).status).toBe(200);
    expect((await connect(b)).status).toBe(200);
    await a.waitFor(() => a.view.synced, 10000, 'initial sync');
    await b.waitFor(() => b.view.synced, 10000, 'initial sync');
    expect(modesOf(a)).toEqual(['initial']);
    expect(names(a)).toEqual(['web-from-client']);
    expect(names(b)).toEqual(['db-from-web']);
    expect(appliedMembers(a)).toEqual(['x/web']);
    expect(appliedMembers(b)).toEqual(['x/db']);
    // Address groups span every node applying a policy that uses them.
    expect(addressMembers(a)).toEqual(['x/client']);
    expect(addressMembers(b)).toEqual(['x/web']);
  });

  test('a new matching pod arrives as an address group patch, not a full group', async () => {
    const before = eventsOf(a).length;
    await createPod(c, 'x', 'client2', 'node-b', '10.0.2.12', { app: 'client' });
    await a.waitFor(() => addressMembers(a).includes('x/client2'), 10000, 'client2 member');
    const kinds = eventsOf(a).slice(before).map((e) => `${e.type}/${e.kind}`);
    expect(kinds).toContain('MODIFIED/AddressGroupPatch');
    expect(kinds).not.toContain('ADDED/AddressGroup');
    // node-b applies no policy using that group: it hears nothing of it.
    expect(addressMembers(b)).toEqual(['x/web']);
  });

  test('a pod label change moves the pod between groups', async () => {
    await c.kubectl.ok(['-n', 'x', 'label', 'pod', 'client', 'app=web', '--overwrite']);
    await a.waitFor(() => !addressMembers(a).includes('x/client') && appliedMembers(a).includes('x/client'), 10000, 'client moved');
    expect(appliedMembers(a)).toEqual(['x/client', 'x/web']);
    await b.waitFor(() => addressMembers(b).includes('x/client'), 10000, 'x/client now a web peer for db');
    expect(addressMembers(b)).toEqual(['x/client', 'x/web']);
  });

  test('deleting a policy removes it and its groups from the node', async () => {
    await c.kubectl.ok(['-n', 'x', 'delete', 'networkpolicy', 'db-from-web']);
    await b.waitFor(() => b.view.counts.policies === 0, 10000, 'policy deleted');
    expect(b.view.counts.addressGroups).toBe(0);
    expect(b.view.counts.appliedToGroups).toBe(0);
    expect(names(a)).toEqual(['web-from-client']);
  });

  test('no token is 401 and node A\'s token cannot watch node B (403)', async () => {
    const anon = client('node-b', '');
    const r1 = await connect(anon);
    expect(r1.status).toBe(401);
    const wrong = client('node-b', NODE_TOKENS['node-a']);
    const r2 = await connect(wrong);
    expect(r2.status).toBe(403);
    expect((JSON.parse(r2.body ?? '{}') as { message: string }).message).toBe('node "node-a" may not access node "node-b"');
  });

  test('a reconnecting agent resumes from its resourceVersion and gets only what it missed', async () => {
    a.close();
    await a.ended();
    const rv = a.view.resourceVersion;
    await createPod(c, 'x', 'web2', 'node-a', '10.0.1.12', { app: 'web' });
    await eventuallyPasses(() => expect(controller.hub.engine.pods.has('Pod/x/web2')).toBe(true));
    const before = eventsOf(a).length;
    expect((await connect(a)).status).toBe(200);
    await a.waitFor(() => appliedMembers(a).includes('x/web2'), 10000, 'web2 after resume');
    expect(modesOf(a).at(-1)).toBe('resume');
    const replay = eventsOf(a).slice(before).filter((e) => e.type !== 'BOOKMARK');
    expect(replay.length).toBeGreaterThan(0);
    expect(replay.every((e) => e.kind.endsWith('Patch'))).toBe(true);
    expect(rv).not.toBe(a.view.resourceVersion);
    expect(appliedMembers(a)).toEqual(['x/client', 'x/web', 'x/web2']);
  });

  test('a resourceVersion older than the node history gets 410 and a full resync', async () => {
    a.close();
    await a.ended();
    // historyPerNode is 50: push more than that many node-a events (web2 flips between groups
    // and ends as it is in the API server, app=web).
    for (let i = 0; i < 60; i++) controller.hub.apply({ type: 'MODIFIED', object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web2', namespace: 'x', labels: { app: i % 2 === 0 ? 'client' : 'web' } }, spec: { nodeName: 'node-a' }, status: { podIP: '10.0.1.12', podIPs: [{ ip: '10.0.1.12' }] } } as never });
    expect(controller.hub.historyLength('node-a')).toBeLessThanOrEqual(50);
    const r = await connect(a);
    expect(r.status).toBe(200);
    await a.ended();
    expect(a.stats.expired).toBe(1);
    expect(a.view.resourceVersion).toBe('');
    await connect(a);
    await a.waitFor(() => modesOf(a).length > 0 && modesOf(a).at(-1) === 'initial' && a.view.synced, 10000, 'resync');
    await a.waitFor(() => appliedMembers(a).join() === 'x/client,x/web,x/web2', 10000, 'resynced state');
    expect(names(a)).toEqual(['web-from-client']);
  });

  test('controller restart: agents resync to the new instance without loss or duplicates', async () => {
    await controller.stop();
    await a.ended();
    // A change while no controller runs.
    await c.kubectl.ok(['-n', 'x', 'delete', 'pod', 'client2']);
    controller = await c.startController({ historyPerNode: 50 });
    expect((await connect(a)).status).toBe(200);
    await a.ended();
    expect(a.stats.expired).toBe(2);
    await connect(a);
    await a.waitFor(() => a.view.synced && modesOf(a).at(-1) === 'initial' && !addressMembers(a).includes('x/client2'), 10000, 'post-restart state');
    const server = controller.hub.engine.snapshot('node-a');
    expect(names(a)).toEqual(server.networkPolicies.map((p) => p.sourceRef.name).sort());
    for (const g of server.appliedToGroups) expect(members(a, 'applied', g.name)).toHaveLength(g.groupMembers.length);
    for (const g of server.addressGroups) expect(members(a, 'address', g.name)).toHaveLength(g.groupMembers.length);
    // client2 went away while the controller was down; nothing else selects as a peer.
    expect(addressMembers(a)).toEqual([]);
    expect(appliedMembers(a)).toEqual(['x/client', 'x/web', 'x/web2']);
  });

  test('agents report realization; the policy status is aggregated over its span', async () => {
    await c.kubectl.apply({
      apiVersion: 'crd.antrea.io/v1beta1',
      kind: 'ClusterNetworkPolicy',
      metadata: { name: 'acnp-web' },
      spec: { priority: 5, tier: 'application', appliedTo: [{ podSelector: { matchLabels: { app: 'web' } } }], ingress: [{ action: 'Drop', from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'y' } } }] }] },
    });
    const acnp = await eventually(() => {
      const p = a.view.snapshot().policies.find((x) => x.sourceRef.name === 'acnp-web');
      if (!p) throw new Error('not yet');
      return p;
    });
    const post = (token: string, node: string): Promise<number> =>
      new Promise((resolve, reject) => {
        const body = JSON.stringify({ name: acnp.uid, nodes: [{ nodeName: node, generation: acnp.generation }] });
        const req = https.request({ hostname: '127.0.0.1', port: c.controllerPort, method: 'POST', path: `/apis/controlplane.switchyard.io/v1beta2/networkpolicies/${acnp.uid}/status`, ca: controller.pki.caPem, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end(body);
      });
    expect(await post(NODE_TOKENS['node-b'] as string, 'node-a')).toBe(403);
    expect(await post(NODE_TOKENS['node-a'] as string, 'node-a')).toBe(201);
    const status = await eventually(async () => {
      const o = await c.kube.request<{ status?: Record<string, unknown> }>('GET', '/apis/crd.antrea.io/v1beta1/clusternetworkpolicies/acnp-web');
      expect(o.status?.phase).toBe('Realized');
      return o.status;
    });
    expect(status).toEqual({ phase: 'Realized', observedGeneration: 1, currentNodesRealized: 1, desiredNodesRealized: 1, conditions: [{ type: 'Realizable', status: 'True', lastTransitionTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/) }] });
  });

  test('the read API answers through the Kubernetes API (APIService aggregation) for kubectl', async () => {
    const list = JSON.parse(await c.kubectl.ok(['get', '--raw', '/apis/controlplane.switchyard.io/v1beta2/networkpolicies'])) as { items: { sourceRef: { name: string }; tierPriority?: number; span: string[] }[] };
    const acnp = list.items.find((p) => p.sourceRef.name === 'acnp-web');
    expect(acnp?.span).toEqual(['node-a']);
    expect(acnp?.tierPriority).toBe(250);
    const q = JSON.parse(await c.kubectl.ok(['get', '--raw', '/apis/controlplane.switchyard.io/v1beta2/endpointquery?pod=x/web'])) as { appliedPolicies: { name: string }[] };
    expect(q.appliedPolicies.map((p) => p.name).sort()).toEqual(['acnp-web', 'web-from-client']);
    const ex = JSON.parse(await c.kubectl.ok(['get', '--raw', '/apis/controlplane.switchyard.io/v1beta2/explain?src=y/other&dst=x/web&protocol=TCP&port=80'])) as { allowed: boolean; ingress: { policy?: { name: string } } };
    expect(ex.allowed).toBe(false);
    expect(ex.ingress.policy?.name).toBe('acnp-web');
    const info = JSON.parse(await c.kubectl.ok(['get', '--raw', '/apis/controlplane.switchyard.io/v1beta2/controllerinfo'])) as { connectedAgentNum: number; version: string };
    expect(info.connectedAgentNum).toBe(1);
    expect(info.version).toBe('0.1.0');
  });

  test('publishes its CA, registers the APIService, heartbeats AntreaControllerInfo and serves metrics', async () => {
    const cm = await c.kube.request<{ data: Record<string, string> }>('GET', '/api/v1/namespaces/kube-system/configmaps/switchyard-ca');
    expect(cm.data['ca.crt']).toBe(controller.pki.caPem);
    const svc = await c.kube.request<{ spec: { caBundle: string } }>('GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1beta2.controlplane.switchyard.io');
    expect(Buffer.from(svc.spec.caBundle, 'base64').toString()).toBe(controller.pki.caPem);
    const info = await eventually(() => c.kube.request<{ connectedAgentNum: number; controllerConditions: { type: string; status: string }[] }>('GET', '/apis/crd.antrea.io/v1beta1/antreacontrollerinfos/antrea-controller'));
    expect(info.controllerConditions[0]).toMatchObject({ type: 'ControllerHealthy', status: 'True' });
    const text = await new Promise<string>((resolve, reject) => {
      https.get({ hostname: '127.0.0.1', port: c.controllerPort, path: '/metrics', ca: controller.pki.caPem, headers: { authorization: `Bearer ${c.api.adminToken}` } }, (res) => {
        let s = '';
        res.on('data', (d: Buffer) => (s += d.toString()));
        res.on('end', () => resolve(s));
      }).on('error', reject);
    });
    expect(() => parsePromText(text)).not.toThrow();
    expect(text).toMatch(/^switchyard_controller_watchers 1$/m);
    expect(text).toMatch(/^switchyard_controller_events_sent_total \d+$/m);
    expect(text).toMatch(/^switchyard_controller_informer_sync_seconds\{resource="pods"\} /m);
  });
});
