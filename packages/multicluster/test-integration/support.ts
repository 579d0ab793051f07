// Three embedded API servers as one ClusterSet: leader `test-cluster-north` (namespace
// antrea-multicluster) and members `test-cluster-west` / `test-cluster-east` (kube-system), set
// up as the seed user guide does: a ServiceAccount token Secret per member in the leader, copied
// to the member as an Opaque Secret; objects applied with kubectl.
import { loadCrds } from '@switchyard/apis';
import { KubeConfigClient, type KubeObject } from '@switchyard/kube';
import type { KubeApiServer } from '@switchyard/kube-api';
import { startTestKubeApi, type Kubectl } from '@switchyard/kube-api/testing';
import type { Clock } from '@switchyard/runtime';
import { eventually as waitForValue, eventuallyPasses as waitToPass, freePort, type ValueCallback } from '@switchyard/testbed';
import { LeaderController, MemberController, type EndpointIPType, type MemberOptions } from '../src';

export const LEADER_NS = 'antrea-multicluster';
export const MEMBER_NS = 'kube-system';
export const CLUSTERSET = 'test-clusterset';
export const LEADER_ID = 'test-cluster-north';

export interface TestCluster {
  id: string;
  api: KubeApiServer;
  kubectl: Kubectl;
  kube: KubeConfigClient;
}

/**
 * An API server (with the CRDs of @switchyard/apis); `persist` keeps its state and port for a restart.
 * A persisted server's port is below the ephemeral range, so no outgoing connection takes it while
 * the server is down.
 */
export async function cluster(id: string, serviceCIDR: string, persist?: { dataDir: string; port?: number }): Promise<TestCluster> {
  const { api, kubectl, kubeConfig } = await startTestKubeApi({ crds: loadCrds() as unknown as KubeObject[], serviceCIDR, ...(persist ? { dataDir: persist.dataDir, port: persist.port ?? (await freePort()) } : {}) });
  return { id, api, kubectl, kube: new KubeConfigClient(kubeConfig) };
}

export const memberClusterSet = (clusterID: string, leaderUrl: string, over: { name?: string; leaderID?: string; secret?: string } = {}): KubeObject => ({
  apiVersion: 'multicluster.crd.antrea.io/v1alpha2',
  kind: 'ClusterSet',
  metadata: { name: over.name ?? CLUSTERSET, namespace: MEMBER_NS },
  spec: { clusterID, leaders: [{ clusterID: over.leaderID ?? LEADER_ID, secret: over.secret ?? `member-${clusterID}-token`, server: leaderUrl }], namespace: LEADER_NS },
});

/** The leader's side of access for one member: ServiceAccount, token Secret, RoleBinding; returns the Secret's data. */
async function grantMember(leader: TestCluster, clusterID: string): Promise<Record<string, string>> {
  const sa = `member-${clusterID}`;
  await leader.kubectl.apply(
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: sa, namespace: LEADER_NS } },
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: `${sa}-token`, namespace: LEADER_NS, annotations: { 'kubernetes.io/service-account.name': sa } }, type: 'kubernetes.io/service-account-token' },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: sa, namespace: LEADER_NS }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'antrea-mc-member-cluster-role' }, subjects: [{ kind: 'ServiceAccount', name: sa, namespace: LEADER_NS }] },
  );
  for (let i = 0; ; i++) {
    const s = await leader.kubectl.json<{ data?: Record<string, string> }>(['-n', LEADER_NS, 'get', 'secret', `${sa}-token`]);
    if (s.data?.['token']) return s.data;
    if (i > 100) throw new Error(`token Secret ${sa}-token was not populated`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** What the member role may do in the leader's namespace (the seed's antrea-mc-member-cluster-role). */
const memberRole = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'Role',
  metadata: { name: 'antrea-mc-member-cluster-role', namespace: LEADER_NS },
  rules: [
    { apiGroups: ['multicluster.crd.antrea.io'], resources: ['memberclusterannounces', 'resourceexports'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] },
    { apiGroups: ['multicluster.crd.antrea.io'], resources: ['resourceimports', 'resourceexports/status'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: [''], resources: ['events'], verbs: ['create'] },
  ],
};

export interface ClusterSetEnv {
  /** Replaced by a test that restarts the leader's API server. */
  leader: TestCluster;
  west: TestCluster;
  east: TestCluster;
  stop(): Promise<void>;
}

/**
 * Three API servers, the ClusterSets applied with kubectl, member token Secrets copied over;
 * `westServiceCIDR` / `eastServiceCIDR` (both families: a dual-stack member; an IPv6 one: an
 * IPv6-only member) replace west's 10.101.0.0/16 and east's 10.102.0.0/16.
 */
export async function startClusterSet(opts: { leaderDataDir?: string; westServiceCIDR?: string; eastServiceCIDR?: string } = {}): Promise<ClusterSetEnv> {
  const [leader, west, east] = await Promise.all([cluster(LEADER_ID, '10.100.0.0/16', opts.leaderDataDir ? { dataDir: opts.leaderDataDir } : undefined), cluster('test-cluster-west', opts.westServiceCIDR ?? '10.101.0.0/16'), cluster('test-cluster-east', opts.eastServiceCIDR ?? '10.102.0.0/16')]);
  // One kubectl: it applies the Namespace before the objects in it.
  await leader.kubectl.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: LEADER_NS } }, memberRole, { apiVersion: 'multicluster.crd.antrea.io/v1alpha2', kind: 'ClusterSet', metadata: { name: CLUSTERSET, namespace: LEADER_NS }, spec: { clusterID: LEADER_ID, leaders: [{ clusterID: LEADER_ID }] } });
  // Both members side by side: each step is a kubectl process.
  await Promise.all(
    [west, east].map(async (m) => {
      const data = await grantMember(leader, m.id);
      await m.kubectl.apply({ apiVersion: 'v1', kind: 'Secret', metadata: { name: `member-${m.id}-token`, namespace: MEMBER_NS }, type: 'Opaque', data: { token: data['token'], 'ca.crt': data['ca.crt'] } });
    }),
  );
  const env: ClusterSetEnv = {
    leader,
    west,
    east,
    async stop() {
      await Promise.all([env.leader.api.stop(), west.api.stop(), east.api.stop()]);
    },
  };
  return env;
}

export const fastInformers = { initialBackoffMs: 50, maxBackoffMs: 500 };

export function leaderController(env: ClusterSetEnv, clock?: Clock): LeaderController {
  return new LeaderController({ kube: env.leader.kube, namespace: LEADER_NS, informer: fastInformers, ...(clock ? { clock } : {}) });
}

export function memberController(m: TestCluster, opts: { clock?: Clock; endpointIPType?: EndpointIPType; clusterSetID?: string; enableStretchedNetworkPolicy?: boolean; heartbeatIntervalMs?: number; serviceCIDR?: string; podCIDRs?: string[]; resyncBackoff?: NonNullable<MemberOptions['resyncBackoff']> } = {}): MemberController {
  return new MemberController({ kube: m.kube, namespace: MEMBER_NS, informer: fastInformers, ...opts });
}

/** The three API servers with both members joined and the leader's and members' controllers running. */
export interface RunningClusterSet {
  env: ClusterSetEnv;
  leader: LeaderController;
  west: MemberController;
  east: MemberController;
}

type MemberControllerOptions = Parameters<typeof memberController>[1];

/**
 * {@link startClusterSet}, each member's ClusterSet applied with kubectl (with that member's
 * `objects`), `prepare` run, then the leader's and members' controllers started. When a step fails,
 * what was started is stopped before the error is passed on.
 */
export async function startJoinedClusterSet(
  opts: { leaderDataDir?: string; leaderClock?: Clock; west?: MemberControllerOptions; east?: MemberControllerOptions; objects?: { west?: unknown[]; east?: unknown[] }; prepare?: (env: ClusterSetEnv) => Promise<unknown>; westServiceCIDR?: string; eastServiceCIDR?: string } = {},
): Promise<RunningClusterSet> {
  const cidrs = { ...(opts.westServiceCIDR ? { westServiceCIDR: opts.westServiceCIDR } : {}), ...(opts.eastServiceCIDR ? { eastServiceCIDR: opts.eastServiceCIDR } : {}) };
  const env = await startClusterSet({ ...(opts.leaderDataDir ? { leaderDataDir: opts.leaderDataDir } : {}), ...cidrs });
  let running: Partial<RunningClusterSet> = { env };
  try {
    await Promise.all([
      env.west.kubectl.apply(memberClusterSet(env.west.id, env.leader.api.url), ...(opts.objects?.west ?? [])),
      env.east.kubectl.apply(memberClusterSet(env.east.id, env.leader.api.url), ...(opts.objects?.east ?? [])),
    ]);
    await opts.prepare?.(env);
    const started = { env, leader: leaderController(env, opts.leaderClock), west: memberController(env.west, opts.west), east: memberController(env.east, opts.east) };
    running = started;
    await Promise.all([started.leader.start(), started.west.start(), started.east.start()]);
    return started;
  } catch (err) {
    await stopClusterSet(running);
    throw err;
  }
}

/** Stops the controllers, then the API servers: whichever of them there are. */
export async function stopClusterSet(r: Partial<RunningClusterSet>): Promise<void> {
  await Promise.all([r.leader?.stop(), r.west?.stop(), r.east?.stop()]);
  await r.env?.stop();
}

/**
 * Waits for `fn`'s value: testbed's `eventually` (a throw, `undefined`, `null` or `false` mean
 * "not yet"), with this suite's default timeout.
 */
export function eventually<T>(fn: ValueCallback<T>, timeoutMs = 15000): Promise<Exclude<T, undefined | null | false>> {
  return waitForValue(fn, { timeoutMs, intervalMs: 50 });
}

/** Retries an assertion until it holds: testbed's `eventuallyPasses`, with this suite's default timeout. */
export function eventuallyPasses(assertion: () => void | Promise<void>, timeoutMs = 15000): Promise<void> {
  return waitToPass(assertion, { timeoutMs, intervalMs: 50 });
}

/** nginx as in the seed guide: a Deployment stand-in (two ready pods) and its Service. */
export async function nginx(c: TestCluster, podIPs: string[], ports: { name?: string; port: number; targetPort: number }[] = [{ name: 'tcp80', port: 80, targetPort: 80 }]): Promise<void> {
  await c.kubectl.apply({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'nginx', namespace: 'default' }, spec: { selector: { app: 'nginx' }, ports: ports.map((p) => ({ ...p, protocol: 'TCP' })) } });
  for (const [i, ip] of podIPs.entries()) {
    const name = `nginx-${i}`;
    await c.kube.request('POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels: { app: 'nginx' } }, spec: { nodeName: 'node-1', containers: [{ name: 'nginx', image: 'nginx', ports: [{ containerPort: 80 }] }] } });
    // The kubelet's part: the pod runs and is ready.
    await c.kube.request('PATCH', `/api/v1/namespaces/default/pods/${name}/status`, { status: { phase: 'Running', podIP: ip, podIPs: [{ ip }], conditions: [{ type: 'Ready', status: 'True' }] } }, 'application/merge-patch+json');
  }
}

export const serviceExport = (name: string, ns = 'default'): KubeObject => ({ apiVersion: 'multicluster.x-k8s.io/v1alpha1', kind: 'ServiceExport', metadata: { name, namespace: ns } });
