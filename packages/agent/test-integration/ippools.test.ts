// AntreaIPAM on a real node: pods (or their Namespace) annotated ipam.antrea.io/ippools get their
// address from that IPPool through the agent's Kubernetes identity (RBAC of build/), the pool's
// status records the owner, the pod talks to pod-CIDR pods and to the node, a StatefulSet pod
// takes the address the controller pre-allocated for its ordinal, DEL frees the address, and a
// pod naming a pool that does not exist gets a CNI error while the agent keeps serving.
import { KubeConfig } from '@kubernetes/client-node';
import type { IPPool } from '@switchyard/apis';
import { KubeConfigClient } from '@switchyard/kube';
import { Testbed, waitFor } from '@switchyard/testbed';
import { addPod, cni, ensurePluginBuilt, netconf, podArgs, sandbox, startControlPlane, startNode, stopNode, type ControlPlane, type Node, type Sandbox } from './helpers';

jest.setTimeout(180_000);

const NODE = 'node-pools';
let tb: Testbed;
let cp: ControlPlane;
let node: Node | undefined;

const pool = (name: string, cidr: string, gateway: string): IPPool => ({
  apiVersion: 'crd.antrea.io/v1beta1', kind: 'IPPool', metadata: { name },
  spec: { ipRanges: [{ cidr }], subnetInfo: { gateway, prefixLength: 24 } },
});
const getPool = (name: string): Promise<IPPool> => cp.kube.request<IPPool>('GET', `/apis/crd.antrea.io/v1beta1/ippools/${name}`);

async function createPod(ns: string, name: string, annotations: Record<string, string> = {}, extra: Record<string, unknown> = {}): Promise<void> {
  await cp.kube.request('POST', `/api/v1/namespaces/${ns}/pods`, {
    apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns, annotations, ...extra },
    spec: { nodeName: NODE, containers: [{ name: 'c', image: 'x' }] },
  });
}

async function add(ns: string, sb: Sandbox): Promise<{ code: number; out: Record<string, unknown> }> {
  return cni('ADD', { containerId: sb.containerId, netns: sb.netns.path, ifname: 'eth0', args: podArgs(ns, sb.name) }, netconf(node!.socket));
}
const ipOf = (out: Record<string, unknown>): string => ((out.ips as { address: string }[])[0]?.address ?? '').split('/')[0] ?? '';

/** TCP from a pod netns: true when the server answered (three attempts: see networkpolicy.test.ts). */
async function reaches(from: Sandbox, ip: string): Promise<boolean> {
  for (let i = 0; i < 3; i++) {
    const r = await from.netns.exec(['socat', '-T3', '-', `TCP:${ip}:7000,connect-timeout=3`], { allowFailure: true, input: 'x\n', timeoutMs: 8000 });
    if (r.stdout.trim() === 'pong') return true;
  }
  return false;
}

beforeAll(async () => {
  await ensurePluginBuilt();
  tb = await Testbed.create();
  cp = await startControlPlane(NODE, { ipPools: true });
  // The agent talks to the API as its node, so the agent's ClusterRole is what is tested.
  const admin = new KubeConfig();
  admin.loadFromFile(cp.api.kubeconfigPath);
  const cluster = admin.getCurrentCluster()!;
  const kc = new KubeConfig();
  kc.loadFromOptions({ clusters: [cluster], users: [{ name: 'node', token: `token-${NODE}` }], contexts: [{ name: 'node', cluster: cluster.name, user: 'node' }], currentContext: 'node' });
  for (const p of [pool('pool-a', '10.123.0.0/24', '10.123.0.1'), pool('pool-ns', '10.124.0.0/24', '10.124.0.1')]) await cp.kube.request('POST', '/apis/crd.antrea.io/v1beta1/ippools', p);
  await cp.kube.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'pooled', annotations: { 'ipam.antrea.io/ippools': 'pool-ns' } } });
  node = await startNode(tb, '10.95.0.0/24', { nodeName: NODE, kube: new KubeConfigClient(kc), enableIPPools: true, enableProxy: false });
});

afterAll(async () => {
  await stopNode(node);
  await cp?.stop();
  await tb?.cleanup();
});

describe('IPPool addresses for annotated pods (AntreaIPAM)', () => {
  let plain: Sandbox;
  let plainIp: string;
  let pooled: Sandbox;
  let pooledIp: string;

  it('a pod annotated with a pool gets an address of the pool, with its prefix and gateway, recorded with the pod as owner', async () => {
    plain = await sandbox(tb, 'plain');
    await createPod('default', 'plain');
    plainIp = (await addPod(node!, plain)).ip;
    expect(plainIp).toMatch(/^10\.95\.0\./);

    pooled = await sandbox(tb, 'db');
    await createPod('default', 'db', { 'ipam.antrea.io/ippools': 'pool-a' });
    const r = await add('default', pooled);
    expect(r.code).toBe(0);
    const ips = r.out.ips as { address: string; gateway: string }[];
    expect(ips[0]?.address).toBe('10.123.0.2/24');
    expect(ips[0]?.gateway).toBe('10.123.0.1');
    pooledIp = ipOf(r.out);
    const status = (await getPool('pool-a')).status?.ipAddresses ?? [];
    expect(status).toEqual([{ ipAddress: '10.123.0.2', phase: 'Allocated', owner: { pod: { name: 'db', namespace: 'default', containerID: pooled.containerId, ifName: 'eth0' } } }]);
    // The pod's own view: its address and a default route through the pool's gateway.
    const route = await pooled.netns.exec(['ip', '-j', 'route', 'show', 'default']);
    expect((JSON.parse(route.stdout) as { gateway: string }[])[0]?.gateway).toBe('10.123.0.1');
  });

  it('the pool pod and a pod-CIDR pod reach each other, and the node reaches the pool pod', async () => {
    for (const sb of [plain, pooled]) tb.spawn(['socat', 'TCP-LISTEN:7000,reuseaddr,fork', 'SYSTEM:echo pong'], sb.netns.name);
    await waitFor('plain -> pooled', () => reaches(plain, pooledIp), { timeoutMs: 20_000, intervalMs: 300 });
    expect(await reaches(pooled, plainIp)).toBe(true);
    // The node reaches the pool pod: up to three attempts, as reaches() gives pods.
    let fromNode = '';
    for (let i = 0; i < 3 && fromNode !== 'pong'; i++)
      fromNode = (await node!.ovs.netns.exec(['socat', '-T3', '-', `TCP:${pooledIp}:7000,connect-timeout=3`], { allowFailure: true, input: 'x\n', timeoutMs: 8000 })).stdout.trim();
    expect(fromNode).toBe('pong');
  });

  it('a pod of an annotated Namespace takes the Namespace\'s pool', async () => {
    const sb = await sandbox(tb, 'web');
    await createPod('pooled', 'web');
    const r = await add('pooled', sb);
    expect(r.code).toBe(0);
    expect(ipOf(r.out)).toBe('10.124.0.2');
  });

  it('a StatefulSet pod takes the address the controller pre-allocated for its ordinal', async () => {
    const sts = await cp.kube.request<{ metadata: { uid: string } }>('POST', '/apis/apps/v1/namespaces/default/statefulsets', {
      apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'kv', namespace: 'default', annotations: { 'ipam.antrea.io/ippools': 'pool-a' } },
      spec: { replicas: 2, serviceName: 'kv', selector: { matchLabels: { app: 'kv' } }, template: { metadata: { labels: { app: 'kv' } }, spec: { containers: [{ name: 'c', image: 'x' }] } } },
    });
    let reserved = '';
    await waitFor('ordinal 1 pre-allocated', async () => {
      const e = (await getPool('pool-a')).status?.ipAddresses?.find((a) => a.owner.statefulSet?.name === 'kv' && a.owner.statefulSet.index === 1);
      reserved = e?.ipAddress ?? '';
      return e?.phase === 'Preallocated';
    }, { timeoutMs: 15_000, intervalMs: 100 });
    const sb = await sandbox(tb, 'kv-1');
    await createPod('default', 'kv-1', { 'ipam.antrea.io/ippools': 'pool-a' }, { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'kv', uid: sts.metadata.uid, controller: true }] });
    const r = await add('default', sb);
    expect(r.code).toBe(0);
    expect(ipOf(r.out)).toBe(reserved);
    const entry = (await getPool('pool-a')).status?.ipAddresses?.find((a) => a.ipAddress === reserved);
    expect(entry?.phase).toBe('Allocated');
    expect(entry?.owner).toEqual({ pod: { name: 'kv-1', namespace: 'default', containerID: sb.containerId, ifName: 'eth0' }, statefulSet: { name: 'kv', namespace: 'default', index: 1 } });
    // DEL keeps the ordinal's address for its next pod.
    const del = await cni('DEL', { containerId: sb.containerId, netns: sb.netns.path, ifname: 'eth0', args: podArgs('default', 'kv-1') }, netconf(node!.socket));
    expect(del.code).toBe(0);
    expect((await getPool('pool-a')).status?.ipAddresses?.find((a) => a.ipAddress === reserved)?.phase).toBe('Reserved');
  });

  it('DEL frees the pool address and removes the pod\'s host route', async () => {
    const del = await cni('DEL', { containerId: pooled.containerId, netns: pooled.netns.path, ifname: 'eth0', args: podArgs('default', 'db') }, netconf(node!.socket));
    expect(del.code).toBe(0);
    expect((await getPool('pool-a')).status?.ipAddresses?.some((a) => a.ipAddress === pooledIp)).toBe(false);
    const routes = await node!.ovs.netns.exec(['ip', '-j', 'route', 'show', `${pooledIp}/32`]);
    expect(JSON.parse(routes.stdout || '[]')).toEqual([]);
  });

  it('as another plugin\'s IPAM (a secondary interface), the plugin allocates, checks and frees a pool address without touching interfaces', async () => {
    const sb = await sandbox(tb, 'multi');
    const conf = (prevResult?: unknown): string => JSON.stringify({
      cniVersion: '1.0.0', name: 'secondary', type: 'macvlan',
      ipam: { type: 'switchyard-cni', ippools: ['pool-ns'], cniSocket: node!.socket },
      ...(prevResult ? { prevResult } : {}),
    });
    const env = { containerId: sb.containerId, netns: sb.netns.path, ifname: 'net1', args: podArgs('default', 'multi') };
    const r = await cni('ADD', env, conf());
    expect(r.code).toBe(0);
    expect(r.out.interfaces).toBeUndefined();
    const ip = ipOf(r.out);
    expect(ip).toMatch(/^10\.124\.0\./);
    expect((r.out.ips as { gateway: string }[])[0]?.gateway).toBe('10.124.0.1');
    const held = (await getPool('pool-ns')).status?.ipAddresses?.find((a) => a.ipAddress === ip);
    expect(held?.owner.pod).toEqual({ name: 'multi', namespace: 'default', containerID: sb.containerId, ifName: 'net1' });
    // No interface was made: the sandbox has only lo.
    expect((await sb.netns.exec(['ip', '-o', 'link'])).stdout.trim().split('\n')).toHaveLength(1);
    expect((await cni('CHECK', env, conf(r.out))).code).toBe(0);
    expect((await cni('DEL', env, conf())).code).toBe(0);
    expect((await getPool('pool-ns')).status?.ipAddresses?.some((a) => a.ipAddress === ip)).toBe(false);
    const check = await cni('CHECK', env, conf(r.out));
    expect(check.out.code).toBe(101);
    expect(String(check.out.msg)).toContain('holds no address of ippool pool-ns');
  });

  it('a pod naming a pool that does not exist gets a CNI error naming it, and the agent keeps serving', async () => {
    const sb = await sandbox(tb, 'lost');
    await createPod('default', 'lost', { 'ipam.antrea.io/ippools': 'no-such-pool' });
    const r = await add('default', sb);
    expect(r.code).not.toBe(0);
    expect(r.out.code).toBe(7);
    expect(String(r.out.msg)).toContain('no-such-pool');
    // Nothing half-made is left, and the next ADD works.
    expect(await node!.ovs.vsctl('--bare', '--columns=name', 'find', 'Port', `external_ids:container-id=${sb.containerId}`)).toBe('');
    const ok = await sandbox(tb, 'after');
    await createPod('default', 'after');
    expect((await addPod(node!, ok)).ip).toMatch(/^10\.95\.0\./);
  });
});
