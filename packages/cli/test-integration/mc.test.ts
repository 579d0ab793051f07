// yardctl mc against three embedded API servers (leader north, members west and east) with the
// multi-cluster reconcilers of @switchyard/multicluster running: init, join, get, leave, destroy,
// each checked against the API objects.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCrds } from '@switchyard/apis';
import { KubeConfigClient, KubeRequestError, type KubeObject } from '@switchyard/kube';
import type { KubeApiServer } from '@switchyard/kube-api';
import { startTestKubeApi } from '@switchyard/kube-api/testing';
import { LeaderController, MemberController } from '@switchyard/multicluster';
import YAML from 'yaml';
import { runYardctl } from '../src/program';
import { parseJoinConfig } from '../src/mc-join-config';
import { eventually as waitForValue, eventuallyPasses as waitToPass, type ValueCallback } from '@switchyard/testbed';

interface Cluster {
  api: KubeApiServer;
  kube: KubeConfigClient;
}
const MC = '/apis/multicluster.crd.antrea.io';
const LEADER_NS = 'antrea-multicluster';
const dir = mkdtempSync(join(tmpdir(), 'yardctl-mc-'));
const joinFile = join(dir, 'join-config.yml');
let north: Cluster;
let west: Cluster;
let east: Cluster;
let leader: LeaderController;
const members: MemberController[] = [];
const fast = { initialBackoffMs: 50, maxBackoffMs: 500 };

async function cluster(serviceCIDR: string): Promise<Cluster> {
  const { api, kubeConfig } = await startTestKubeApi({ crds: loadCrds() as unknown as KubeObject[], serviceCIDR });
  return { api, kube: new KubeConfigClient(kubeConfig) };
}

async function yardctl(c: Cluster, args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runYardctl(['-k', c.api.kubeconfigPath, ...args], { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) }, isTTY: false, env: {} });
  return { code, out, err };
}

async function get<T = KubeObject>(c: Cluster, path: string): Promise<T | undefined> {
  try {
    return await c.kube.request<T>('GET', path);
  } catch (e) {
    if (e instanceof KubeRequestError && e.status === 404) return undefined;
    throw e;
  }
}

const eventually = <T>(fn: ValueCallback<T>, timeoutMs = 20000): Promise<Exclude<T, undefined | null | false>> => waitForValue(fn, { timeoutMs, intervalMs: 50 });
const eventuallyPasses = (assertion: () => Promise<void>, timeoutMs = 20000): Promise<void> => waitToPass(assertion, { timeoutMs, intervalMs: 50 });

beforeAll(async () => {
  [north, west, east] = await Promise.all([cluster('10.100.0.0/16'), cluster('10.101.0.0/16'), cluster('10.102.0.0/16')]);
  await north.kube.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: LEADER_NS } });
});

afterAll(async () => {
  await Promise.all([leader?.stop(), ...members.map((m) => m.stop())]);
  await Promise.all([north?.api.stop(), west?.api.stop(), east?.api.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

describe('yardctl mc', () => {
  it('init creates the leader ClusterSet, the member Role and a member token, and writes the join config', async () => {
    const r = await yardctl(north, ['mc', 'init', '--clusterset', 'test-clusterset', '--clusterid', 'test-cluster-north', '--create-token', '-j', joinFile]);
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(r.out).toContain('ClusterSet "test-clusterset" created');
    expect(r.out).toContain(`Saved ClusterSet join parameters to file: ${joinFile}`);
    const cs = await get<{ spec: unknown }>(north, `${MC}/v1alpha2/namespaces/${LEADER_NS}/clustersets/test-clusterset`);
    expect(cs?.spec).toEqual({ clusterID: 'test-cluster-north', leaders: [{ clusterID: 'test-cluster-north' }] });
    expect(await get(north, `/apis/rbac.authorization.k8s.io/v1/namespaces/${LEADER_NS}/roles/antrea-mc-member-cluster-role`)).toBeDefined();
    const rb = await get<{ roleRef: unknown; subjects: unknown }>(north, `/apis/rbac.authorization.k8s.io/v1/namespaces/${LEADER_NS}/rolebindings/default-member-token`);
    expect(rb).toMatchObject({ roleRef: { kind: 'Role', name: 'antrea-mc-member-cluster-role' }, subjects: [{ kind: 'ServiceAccount', name: 'default-member-token', namespace: LEADER_NS }] });
    expect(await get(north, `/api/v1/namespaces/${LEADER_NS}/serviceaccounts/default-member-token`)).toBeDefined();
    const secret = await get<{ type: string; data: Record<string, string> }>(north, `/api/v1/namespaces/${LEADER_NS}/secrets/default-member-token`);
    expect(secret?.type).toBe('kubernetes.io/service-account-token');

    const { config, token } = parseJoinConfig(readFileSync(joinFile, 'utf8'), joinFile);
    expect(config).toEqual({ clusterSetID: 'test-clusterset', leaderClusterID: 'test-cluster-north', leaderNamespace: LEADER_NS, leaderAPIServer: north.api.url });
    expect(token).toEqual({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'default-member-token' }, type: 'Opaque', data: { token: secret?.data['token'], 'ca.crt': secret?.data['ca.crt'] } });
    expect(readFileSync(joinFile, 'utf8')).toContain('#clusterID: ""');
  });

  it('init again keeps what exists; without -j the join config goes to stdout and progress to stderr', async () => {
    const r = await yardctl(north, ['mc', 'init', '--clusterset', 'test-clusterset', '--clusterid', 'test-cluster-north']);
    expect(r.code).toBe(0);
    expect(r.err).toContain('ClusterSet "test-clusterset" already exists');
    const docs = YAML.parseAllDocuments(r.out).map((d) => d.toJSON() as Record<string, unknown>);
    expect(docs).toEqual([{ apiVersion: 'multicluster.antrea.io/v1alpha1', kind: 'ClusterSetJoinConfig', clusterSetID: 'test-clusterset', leaderClusterID: 'test-cluster-north', leaderNamespace: LEADER_NS, leaderAPIServer: north.api.url }]);
  });

  it('get joinconfig prints the join config of the leader ClusterSet, with a member token when asked', async () => {
    const r = await yardctl(north, ['mc', 'get', 'joinconfig', '--member-token', 'default-member-token']);
    expect(r.code).toBe(0);
    expect(r.out).toBe(readFileSync(joinFile, 'utf8'));
    const j = await yardctl(north, ['mc', 'get', 'joinconfig', '-o', 'json']);
    expect(JSON.parse(j.out)).toEqual({ clusterSetID: 'test-clusterset', leaderClusterID: 'test-cluster-north', leaderNamespace: LEADER_NS, leaderAPIServer: north.api.url });
    const none = await yardctl(west, ['mc', 'get', 'joinconfig']);
    expect(none).toMatchObject({ code: 1, err: 'error: no leader ClusterSet in namespace antrea-multicluster (yardctl mc init creates one)\n' });
  });

  it('join creates the token Secret and member ClusterSet; with the reconcilers running both members become Ready in the leader', async () => {
    leader = new LeaderController({ kube: north.kube, namespace: LEADER_NS, informer: fast });
    await leader.start();
    for (const [c, id] of [
      [west, 'test-cluster-west'],
      [east, 'test-cluster-east'],
    ] as const) {
      const r = await yardctl(c, ['mc', 'join', '--config-file', joinFile, '--clusterid', id]);
      expect(r).toMatchObject({ code: 0, err: '' });
      expect(r.out).toContain('Secret "default-member-token" created');
      const s = await get<{ type: string; metadata: { annotations: Record<string, string> }; data: Record<string, string> }>(c, '/api/v1/namespaces/kube-system/secrets/default-member-token');
      expect(s).toMatchObject({ type: 'Opaque', metadata: { annotations: { 'multicluster.antrea.io/created-by-antctl': 'true' } } });
      expect(Object.keys(s?.data ?? {}).sort()).toEqual(['ca.crt', 'token']);
      const cs = await get<{ spec: unknown }>(c, `${MC}/v1alpha2/namespaces/kube-system/clustersets/test-clusterset`);
      expect(cs?.spec).toEqual({ clusterID: id, leaders: [{ clusterID: 'test-cluster-north', secret: 'default-member-token', server: north.api.url }], namespace: LEADER_NS });
      const m = new MemberController({ kube: c.kube, namespace: 'kube-system', informer: fast });
      members.push(m);
      await m.start();
    }
    await eventuallyPasses(async () => {
      const cs = await get<{ status?: { totalClusters?: number; readyClusters?: number } }>(north, `${MC}/v1alpha2/namespaces/${LEADER_NS}/clustersets/test-clusterset`);
      expect(cs?.status).toMatchObject({ totalClusters: 2, readyClusters: 2 });
    });
    const t = await yardctl(north, ['mc', 'get', 'clusterset', '-n', LEADER_NS]);
    expect(t.out.split('\n').filter(Boolean).map((l) => l.split(/\s{3,}/))).toEqual([
      ['CLUSTER-ID', 'NAMESPACE', 'CLUSTER-SET-ID', 'ROLE', 'TYPE', 'STATUS', 'REASON'],
      ['test-cluster-east', LEADER_NS, 'test-clusterset', 'leader', 'Ready', 'True', 'Connected'],
      ['test-cluster-west', LEADER_NS, 'test-clusterset', 'leader', 'Ready', 'True', 'Connected'],
    ]);
    const w = await eventually(async () => {
      const r = await yardctl(west, ['mc', 'get', 'clusterset', 'test-clusterset', '-o', 'json']);
      const o = JSON.parse(r.out) as { status?: { readyClusters?: number } };
      expect(o.status?.readyClusters).toBe(1);
      return r;
    });
    expect(w.code).toBe(0);
  });

  it('get memberclusterannounce, resourceexport and resourceimport show what the reconcilers wrote', async () => {
    const mca = await yardctl(north, ['mc', 'get', 'mca', '--no-headers']);
    expect(mca.out.split('\n').filter(Boolean).map((l) => l.split(/\s+/).slice(0, 5))).toEqual([
      [LEADER_NS, 'member-announce-from-test-cluster-east', 'test-cluster-east', 'test-clusterset', 'test-cluster-north'],
      [LEADER_NS, 'member-announce-from-test-cluster-west', 'test-cluster-west', 'test-clusterset', 'test-cluster-north'],
    ]);
    await west.kube.request('POST', '/api/v1/namespaces/default/services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'nginx', namespace: 'default' }, spec: { ports: [{ name: 'tcp80', port: 80, protocol: 'TCP' }] } });
    // A Service without a selector: its Endpoints are written by hand, as for an external backend.
    await west.kube.request('POST', '/api/v1/namespaces/default/endpoints', { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'nginx', namespace: 'default' }, subsets: [{ addresses: [{ ip: '10.10.1.5' }], ports: [{ name: 'tcp80', port: 80, protocol: 'TCP' }] }] });
    await west.kube.request('POST', '/apis/multicluster.x-k8s.io/v1alpha1/namespaces/default/serviceexports', { apiVersion: 'multicluster.x-k8s.io/v1alpha1', kind: 'ServiceExport', metadata: { name: 'nginx', namespace: 'default' } });
    const ri = await eventually(async () => {
      const r = await yardctl(north, ['mc', 'get', 'resourceimport', '-n', LEADER_NS]);
      // The two imports are written one after the other: wait for both.
      expect(r.out).toContain('default-nginx-service');
      expect(r.out).toContain('default-nginx-endpoints');
      return r;
    });
    expect(ri.out.split('\n').filter(Boolean).map((l) => l.split(/\s+/))).toEqual([
      ['NAMESPACE', 'NAME', 'KIND'],
      [LEADER_NS, 'default-nginx-endpoints', 'Endpoints'],
      [LEADER_NS, 'default-nginx-service', 'ServiceImport'],
    ]);
    const re = await yardctl(north, ['mc', 'get', 're', '--clusterid', 'test-cluster-west', '-o', 'json']);
    const names = (JSON.parse(re.out) as { items: { metadata: { name: string } }[] }).items.map((i) => i.metadata.name);
    expect(names).toEqual(expect.arrayContaining(['test-cluster-west-default-nginx-endpoints', 'test-cluster-west-default-nginx-service']));
    const none = await yardctl(north, ['mc', 'get', 're', '--clusterid', 'test-cluster-east']);
    expect(none.out.includes('test-cluster-east-default-nginx')).toBe(false);
    const missing = await yardctl(north, ['mc', 'get', 'ri', 'nope']);
    expect(missing).toMatchObject({ code: 1, err: 'Error from server (NotFound): resourceimports.multicluster.crd.antrea.io "nope" not found\n' });
  });

  it('leave deletes the member ClusterSet and its token Secret; the member controller takes its announce out of the leader', async () => {
    const r = await yardctl(east, ['mc', 'leave', '--clusterset', 'test-clusterset']);
    expect(r).toMatchObject({ code: 0, out: 'ClusterSet "test-clusterset" deleted in namespace kube-system\nSecret "default-member-token" deleted\n' });
    expect(await get(east, `${MC}/v1alpha2/namespaces/kube-system/clustersets/test-clusterset`)).toBeUndefined();
    expect(await get(east, '/api/v1/namespaces/kube-system/secrets/default-member-token')).toBeUndefined();
    await eventuallyPasses(async () => expect(await get(north, `${MC}/v1alpha1/namespaces/${LEADER_NS}/memberclusterannounces/member-announce-from-test-cluster-east`)).toBeUndefined());
    const again = await yardctl(east, ['mc', 'leave', '--clusterset', 'test-clusterset']);
    expect(again).toMatchObject({ code: 1, err: 'Error from server (NotFound): ClusterSet "test-clusterset" not found in namespace kube-system\n' });
  });

  it('refuses bad input naming the flag or field and value (exit 2)', async () => {
    const noID = await yardctl(east, ['mc', 'join', '--config-file', joinFile]);
    expect(noID).toMatchObject({ code: 2, err: "error: --clusterid is required (this member's cluster ID)\n" });
    const badID = await yardctl(east, ['mc', 'join', '--config-file', joinFile, '--clusterid', 'East_1']);
    expect(badID.code).toBe(2);
    expect(badID.err).toContain('invalid --clusterid "East_1"');
    const badServer = await yardctl(east, ['mc', 'join', '--config-file', joinFile, '--clusterid', 'test-cluster-east', '--leader-apiserver', 'north:6443']);
    expect(badServer).toMatchObject({ code: 2, err: 'error: invalid --leader-apiserver "north:6443": the leader\'s API server URL (https://host:port) is required\n' });
    const noToken = await yardctl(east, ['mc', 'join', '--clusterset', 'test-clusterset', '--clusterid', 'test-cluster-east', '--leader-clusterid', 'test-cluster-north', '--leader-namespace', LEADER_NS, '--leader-apiserver', north.api.url]);
    expect(noToken.code).toBe(2);
    expect(noToken.err).toContain('a token is required');
    const noFile = await yardctl(east, ['mc', 'join', '--config-file', join(dir, 'missing.yml'), '--clusterid', 'test-cluster-east']);
    expect(noFile.code).toBe(2);
    expect(noFile.err).toContain('cannot read --config-file');
    expect(await get(east, `${MC}/v1alpha2/namespaces/kube-system/clustersets/test-clusterset`)).toBeUndefined();
  });

  it('destroy deletes the leader ClusterSet and what init created', async () => {
    const r = await yardctl(north, ['mc', 'destroy', '--clusterset', 'test-clusterset']);
    expect(r.code).toBe(0);
    expect(r.out).toBe(
      'ClusterSet "test-clusterset" deleted in namespace antrea-multicluster\nSecret "default-member-token" deleted\nRoleBinding "default-member-token" deleted\nServiceAccount "default-member-token" deleted\nRole "antrea-mc-member-cluster-role" deleted\n',
    );
    expect(await get(north, `${MC}/v1alpha2/namespaces/${LEADER_NS}/clustersets/test-clusterset`)).toBeUndefined();
    expect(await get(north, `/api/v1/namespaces/${LEADER_NS}/secrets/default-member-token`)).toBeUndefined();
  });
});
