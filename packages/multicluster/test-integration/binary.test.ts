// The switchyard-mc-controller binary (built dist/cli.js) in leader mode and in member mode for
// west and east, each against its own embedded API server: join and a Service export end to end.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { ClusterSet, Service } from '@switchyard/apis';
import { CLUSTERSET, LEADER_NS, eventually, eventuallyPasses, memberClusterSet, nginx, serviceExport, startClusterSet, type ClusterSetEnv } from './support';

const BIN = join(__dirname, '../bin/switchyard-mc-controller.js');
let env: ClusterSetEnv;
const children: { child: ChildProcess; out: string[] }[] = [];

function run(args: string[]): { child: ChildProcess; out: string[] } {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const proc = { child, out: [] as string[] };
  child.stdout?.on('data', (d: Buffer) => proc.out.push(...d.toString('utf8').split('\n').filter(Boolean)));
  child.stderr?.on('data', (d: Buffer) => proc.out.push(d.toString('utf8')));
  children.push(proc);
  return proc;
}

beforeAll(async () => {
  env = await startClusterSet();
  await env.west.kubectl.apply(memberClusterSet('test-cluster-west', env.leader.api.url));
  await env.east.kubectl.apply(memberClusterSet('test-cluster-east', env.leader.api.url));
});

afterAll(async () => {
  await Promise.all(
    children.map(({ child }) =>
      child.exitCode !== null || child.signalCode !== null ? undefined : new Promise<void>((r) => {
        child.once('exit', () => r());
        child.kill('SIGTERM');
      }),
    ),
  );
  await env?.stop();
});

it('runs leader and member modes: members join and an exported Service is imported', async () => {
  const leader = run(['--mode', 'leader', '--kubeconfig', env.leader.api.kubeconfigPath, '--namespace', LEADER_NS]);
  const west = run(['--mode', 'member', '--kubeconfig', env.west.api.kubeconfigPath, '--namespace', 'kube-system']);
  run(['--mode', 'member', '--kubeconfig', env.east.api.kubeconfigPath, '--namespace', 'kube-system', '--clusterset-id', CLUSTERSET]);
  await eventuallyPasses(async () => {
    const cs = await env.leader.kubectl.json<ClusterSet>(['-n', LEADER_NS, 'get', 'clusterset', CLUSTERSET]);
    expect(cs.status).toMatchObject({ totalClusters: 2, readyClusters: 2 });
  }, 30000);
  await nginx(env.west, ['10.10.1.5']);
  await env.west.kubectl.apply(serviceExport('nginx'));
  const svc = await eventually(() => env.east.kubectl.maybe<Service>(['-n', 'default', 'get', 'svc', 'antrea-mc-nginx']), 30000);
  expect(svc.spec?.ports).toEqual([expect.objectContaining({ port: 80, protocol: 'TCP' })]);
  // Structured logs: one JSON object per line, with the component and mode.
  const started = leader.out.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l['msg'] === 'switchyard-mc-controller started');
  expect(started).toMatchObject({ component: 'switchyard-mc-controller', mode: 'leader', namespace: LEADER_NS, level: 30 });
  expect(west.out.some((l) => l.includes('"msg":"ResourceExports converged"'))).toBe(true);
});

it('reads its MultiClusterConfig from the ConfigMap antrea-mc-controller-config (--configmap): podCIDRs and serviceCIDR reach the other member', async () => {
  const config = 'apiVersion: multicluster.crd.antrea.io/v1alpha1\nkind: MultiClusterConfig\nserviceCIDR: "10.111.0.0/16"\npodCIDRs:\n  - "10.20.0.0/16"\ngatewayIPPrecedence: "private"\nendpointIPType: "ClusterIP"\nenableStretchedNetworkPolicy: false\n';
  await env.west.kubectl.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'antrea-mc-controller-config', namespace: 'kube-system' }, data: { 'controller_manager_config.yaml': config } });
  // Restart west's member with --configmap; it becomes the gateway cluster.
  const old = children[1]!.child;
  await new Promise<void>((r) => {
    old.once('exit', () => r());
    old.kill('SIGTERM');
  });
  const west = run(['--mode', 'member', '--kubeconfig', env.west.api.kubeconfigPath, '--namespace', 'kube-system', '--configmap']);
  await env.west.kubectl.apply({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1', annotations: { 'multicluster.antrea.io/gateway': 'true' } } });
  await env.west.kube.request('PATCH', '/api/v1/nodes/node-1/status', { status: { addresses: [{ type: 'InternalIP', address: '172.18.0.11' }], conditions: [{ type: 'Ready', status: 'True' }] } }, 'application/merge-patch+json');
  const info = await eventually(async () => {
    const i = await env.east.kubectl.maybe<{ spec: unknown }>(['-n', 'kube-system', 'get', 'clusterinfoimport', 'test-cluster-west-clusterinfo']);
    if (!i) throw new Error('no ClusterInfoImport test-cluster-west-clusterinfo in east yet');
    return i;
  }, 30000);
  expect(info.spec).toEqual({ clusterID: 'test-cluster-west', gatewayInfos: [{ gatewayIP: '172.18.0.11' }], serviceCIDR: '10.111.0.0/16', podCIDRs: ['10.20.0.0/16'] });
  const read = west.out.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l['msg'] === 'MultiClusterConfig read');
  expect(read).toMatchObject({ config: { serviceCIDR: '10.111.0.0/16', podCIDRs: ['10.20.0.0/16'], gatewayIPPrecedence: 'internal', endpointIPType: 'ClusterIP', enableStretchedNetworkPolicy: false } });
});

it('exits naming the ConfigMap, key and field for a bad MultiClusterConfig', async () => {
  await env.west.kubectl.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bad-config', namespace: 'kube-system' }, data: { 'controller_manager_config.yaml': 'endpointIPType: NodeIP\n' } });
  const bad = run(['--mode', 'member', '--kubeconfig', env.west.api.kubeconfigPath, '--namespace', 'kube-system', '--configmap', 'bad-config']);
  expect(await new Promise<number | null>((r) => bad.child.once('exit', (c) => r(c)))).toBe(1);
  expect(bad.out.join('')).toContain('switchyard-mc-controller: ConfigMap kube-system/bad-config key controller_manager_config.yaml: endpointIPType must be ClusterIP or PodIP, got "NodeIP"');
  const missing = run(['--mode', 'member', '--kubeconfig', env.west.api.kubeconfigPath, '--namespace', 'kube-system', '--configmap', 'no-such-config']);
  expect(await new Promise<number | null>((r) => missing.child.once('exit', (c) => r(c)))).toBe(1);
  expect(missing.out.join('')).toContain('switchyard-mc-controller: ConfigMap kube-system/no-such-config not found (--configmap)');
});

it('exits with a clear error naming the option for a bad mode', async () => {
  const bad = run(['--mode', 'observer', '--kubeconfig', env.leader.api.kubeconfigPath]);
  const code = await new Promise<number | null>((r) => bad.child.once('exit', (c) => r(c)));
  expect(code).toBe(1);
  expect(bad.out.join('')).toContain('switchyard-mc-controller: --mode must be leader or member, got "observer" (--mode)');
});
