// The leader's API server goes away and comes back (same port, same data directory): members report
// LeaderUnreachable meanwhile, then reconnect, and an export made during the outage converges into
// the other member's import with nothing lost or duplicated. The fault was 60 s, twice the
// passes' default longest retry delay (30 s): long enough for every backoff to reach its cap. Here
// the members' delays are scaled down (passes 100 ms doubling to 2 s, informers to 500 ms) and the
// outage with them, to 8 s: four times the longest delay, so every backoff sits at its cap when the
// leader returns, as in the 60 s fault, and the suite does not wait a minute for it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClusterSet, Endpoints, ResourceExport } from '@switchyard/apis';
import type { LeaderController, MemberController } from '../src';
import { CLUSTERSET, LEADER_ID, LEADER_NS, MEMBER_NS, cluster, eventuallyPasses, nginx, serviceExport, startJoinedClusterSet, stopClusterSet, type ClusterSetEnv } from './support';

const dataDir = mkdtempSync(join(tmpdir(), 'mc-leader-'));
/** How long the leader's API server stays away: four times the members' longest retry delay. */
const RESYNC_BACKOFF = { initialMs: 100, maxMs: 2000 };
const OUTAGE_MS = 4 * RESYNC_BACKOFF.maxMs;
let env: ClusterSetEnv;
let leader: LeaderController;
let west: MemberController;
let east: MemberController;

beforeAll(async () => {
  ({ env, leader, west, east } = await startJoinedClusterSet({ leaderDataDir: dataDir, west: { heartbeatIntervalMs: 300, resyncBackoff: RESYNC_BACKOFF }, east: { heartbeatIntervalMs: 300, resyncBackoff: RESYNC_BACKOFF } }));
});

afterAll(async () => {
  await stopClusterSet({ env, leader, west, east });
  rmSync(dataDir, { recursive: true, force: true });
});

const memberReady = async (c: ClusterSetEnv['west']) => (await c.kubectl.json<ClusterSet>(['-n', MEMBER_NS, 'get', 'clusterset', CLUSTERSET])).status?.conditions?.[0];

it('converges again after the leader API server is down, with nothing lost or duplicated', async () => {
  await nginx(env.west, ['10.10.1.5']);
  await env.west.kubectl.apply(serviceExport('nginx'));
  await eventuallyPasses(async () => expect(await env.east.kubectl.maybe(['-n', 'default', 'get', 'endpoints', 'antrea-mc-nginx'])).toBeDefined());

  const port = env.leader.api.port;
  await env.leader.api.stop();
  const downAt = Date.now();
  await eventuallyPasses(async () => expect(await memberReady(env.west)).toMatchObject({ status: 'False', reason: 'LeaderUnreachable' }));
  // An export made while the leader is away.
  await nginx(env.east, ['10.20.1.5']);
  await env.east.kubectl.apply(serviceExport('nginx'));
  // The rest of the outage: long enough for every retry backoff to reach its cap.
  const outageStart = Date.now();
  await new Promise((r) => setTimeout(r, OUTAGE_MS - (Date.now() - downAt)));
  expect(await memberReady(env.east)).toMatchObject({ status: 'False', reason: 'LeaderUnreachable' });

  env.leader = await cluster(LEADER_ID, '10.100.0.0/16', { dataDir, port });
  const upAt = Date.now();
  await eventuallyPasses(async () => expect(await memberReady(env.west)).toMatchObject({ status: 'True', reason: 'Connected' }), 45000);
  const westIP = (await env.west.kubectl.json<{ spec: { clusterIP: string } }>(['-n', 'default', 'get', 'svc', 'nginx'])).spec.clusterIP;
  const eastIP = (await env.east.kubectl.json<{ spec: { clusterIP: string } }>(['-n', 'default', 'get', 'svc', 'nginx'])).spec.clusterIP;
  await eventuallyPasses(async () => {
    const eps = (await env.east.kubectl.maybe<Endpoints>(['-n', 'default', 'get', 'endpoints', 'antrea-mc-nginx']))!;
    expect(eps.subsets?.flatMap((s) => s.addresses?.map((a) => a.ip)).sort()).toEqual([eastIP, westIP].sort());
  }, 45000);
  const convergedMs = Date.now() - upAt;
  const res = await env.leader.kubectl.json<{ items: ResourceExport[] }>(['-n', LEADER_NS, 'get', 'resourceexports']);
  expect(res.items.map((r) => r.metadata.name).sort()).toEqual([
    'test-cluster-east-default-nginx-endpoints',
    'test-cluster-east-default-nginx-service',
    'test-cluster-west-default-nginx-endpoints',
    'test-cluster-west-default-nginx-service',
  ]);
  const cs = await env.leader.kubectl.json<ClusterSet>(['-n', LEADER_NS, 'get', 'clusterset', CLUSTERSET]);
  expect(cs.status).toMatchObject({ totalClusters: 2, readyClusters: 2 });
  process.stdout.write(`leader outage ${((upAt - downAt) / 1000).toFixed(0)} s (east exported ${((upAt - outageStart) / 1000).toFixed(0)} s before it came back): imports converged ${(convergedMs / 1000).toFixed(1)} s after it\n`);
}, 180000);
