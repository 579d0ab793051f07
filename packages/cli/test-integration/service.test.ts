// `yardctl get service` against a real switchyard-agent (child process) on a real userspace OVS
// (tools/testbed), fed by the embedded API server (tools/kube-api) with the ServiceExternalIP
// feature on: a NodePort Service with two endpoints (one on this node) and an
// externalTrafficPolicy: Local LoadBalancer Service with an ingress IP from an ExternalIPPool and
// an externalIP. What yardctl prints is checked against the API objects and, for the groups and
// their buckets, against `ovs-ofctl dump-groups` read independently.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { loadCrds } from '@switchyard/apis';
import { KubeConfigClient } from '@switchyard/kube';
import { startKubeApi, type KubeApiServer } from '@switchyard/kube-api';
import { Testbed, freePort, waitFor, type OvsInstance } from '@switchyard/testbed';
import type { ServicePortItem } from '../src/agent-views';
import { AGENT_BIN, buildPackages, YARDCTL_BIN } from './built';

jest.setTimeout(120_000);

const ROOT = join(__dirname, '../../..');
const AGENT_DIR = join(ROOT, 'packages/agent');
const YARDCTL = YARDCTL_BIN;
const NODE = 'node-s';
const NODE_IP = '192.168.78.9';
const LB_IP = '10.201.0.100';
const EXTERNAL_IP = '192.0.2.10';

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}
function exec(cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<Result> {
  return new Promise((resolve) => {
    execFile(cmd, args, { env: opts.env ?? process.env, cwd: opts.cwd, maxBuffer: 32 << 20 }, (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }));
  });
}
let tb: Testbed;
let ovs: OvsInstance;
let api: KubeApiServer;
let kube: KubeConfigClient;
let dir: string;
let apiSocket: string;
let agent: ChildProcess | undefined;
let agentLog = '';

const yardctl = (args: string[], where: string[] = ['--agent-socket', apiSocket]): Promise<Result> =>
  exec(process.execPath, [YARDCTL, '-k', api.kubeconfigPath, ...args, ...where], { env: { ...process.env, NO_COLOR: '1' } });
const yardJson = async <T>(args: string[], where?: string[]): Promise<T> => {
  const r = await yardctl([...args, '-o', 'json'], where);
  if (r.code !== 0) throw new Error(`yardctl ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
};

beforeAll(async () => {
  await buildPackages('@switchyard/agent', '@switchyard/cli');
  tb = await Testbed.create();
  ovs = await tb.startOvs();
  // The node IP on an interface of the node's namespace: ServiceExternalIP announces its IPs there.
  for (const argv of [['ip', 'link', 'add', 'up0', 'type', 'veth', 'peer', 'name', 'up0p'], ['ip', 'addr', 'add', `${NODE_IP}/24`, 'dev', 'up0'], ['ip', 'link', 'set', 'up0', 'up'], ['ip', 'link', 'set', 'up0p', 'up']]) {
    await ovs.netns.exec(argv);
  }
  api = await startKubeApi({ crds: loadCrds() as never, nodeProxyHost: () => '127.0.0.1' });
  const kc = new KubeConfig();
  kc.loadFromFile(api.kubeconfigPath);
  kube = new KubeConfigClient(kc);
  await kube.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kube-system' } }).catch(() => undefined);
  await kube.request('POST', '/api/v1/nodes', {
    apiVersion: 'v1', kind: 'Node', metadata: { name: NODE, labels: { 'network-role': 'ingress-node' } },
    spec: { podCIDR: '10.94.0.0/24', podCIDRs: ['10.94.0.0/24'] },
    status: { addresses: [{ type: 'InternalIP', address: NODE_IP }], conditions: [{ type: 'Ready', status: 'True' }] },
  });
  await kube.request('POST', '/apis/crd.antrea.io/v1beta1/externalippools', {
    apiVersion: 'crd.antrea.io/v1beta1', kind: 'ExternalIPPool', metadata: { name: 'lb-pool' },
    spec: { ipRanges: [{ start: LB_IP, end: '10.201.0.110' }], nodeSelector: { matchLabels: { 'network-role': 'ingress-node' } } },
  });

  dir = mkdtempSync(join(tmpdir(), 'yardctl-svc-it-'));
  const conf = join(dir, 'antrea-agent.conf');
  apiSocket = join(dir, 'agent.sock');
  writeFileSync(conf, ['ovsBridge: br-int', 'ovsDatapathType: netdev', `ovsRunDir: ${ovs.dir}`, 'hostGateway: sy-gw0', 'tunnelType: vxlan', `cniSocket: ${join(dir, 'cni.sock')}`, `apiPort: ${await freePort()}`, 'featureGates:', '  ServiceExternalIP: true', ''].join('\n'));
  agent = spawn(
    process.execPath,
    [AGENT_BIN, '--config', conf, '--node-name', NODE, '--pod-cidr', '10.94.0.0/24', '--node-ip', NODE_IP, '--data-dir', dir, '--node-netns', ovs.netns.name, '--api-socket', apiSocket, '--ovsdb', ovs.dbRemote],
    { cwd: AGENT_DIR, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, KUBECONFIG: api.kubeconfigPath } },
  );
  agent.stdout?.on('data', (d: Buffer) => (agentLog += d.toString()));
  agent.stderr?.on('data', (d: Buffer) => (agentLog += d.toString()));
  await waitFor('agent ready', () => agentLog.includes('"msg":"agent ready"'), { timeoutMs: 60_000, intervalMs: 100 }).catch((e: unknown) => {
    throw new Error(`${(e as Error).message}\nagent log:\n${agentLog.slice(-3000)}`);
  });

  // Services without selectors, and their EndpointSlices written as the endpoint controller would:
  // one endpoint on this node, one on node-t.
  const slice = (service: string, port: { name: string; port: number; protocol: string }, ips: [string, string]) =>
    kube.request('POST', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices', {
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: `${service}-abc`, namespace: 'default', labels: { 'kubernetes.io/service-name': service } },
      addressType: 'IPv4', ports: [port],
      endpoints: [{ addresses: [ips[0]], conditions: { ready: true }, nodeName: NODE }, { addresses: [ips[1]], conditions: { ready: true }, nodeName: 'node-t' }],
    });
  await kube.request('POST', '/api/v1/namespaces/default/services', {
    apiVersion: 'v1', kind: 'Service', metadata: { name: 'np', namespace: 'default' },
    spec: { type: 'NodePort', ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 }] },
  });
  await slice('np', { name: 'http', port: 8080, protocol: 'TCP' }, ['10.94.0.10', '10.94.1.10']);
  const lb = await kube.request<Record<string, unknown>>('POST', '/api/v1/namespaces/default/services', {
    apiVersion: 'v1', kind: 'Service', metadata: { name: 'lb', namespace: 'default', annotations: { 'service.antrea.io/external-ip-pool': 'lb-pool' } },
    spec: { type: 'LoadBalancer', externalTrafficPolicy: 'Local', externalIPs: [EXTERNAL_IP], sessionAffinity: 'ClientIP', ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 8443 }] },
  });
  await slice('lb', { name: 'https', port: 8443, protocol: 'TCP' }, ['10.94.0.11', '10.94.1.11']);
  // What the controller's allocation writes.
  await kube.request('PUT', '/api/v1/namespaces/default/services/lb/status', { ...lb, status: { loadBalancer: { ingress: [{ ip: LB_IP }] } } });
}, 180_000);

afterAll(async () => {
  if (agent && agent.exitCode === null) {
    const exited = new Promise((r) => agent!.once('exit', r));
    agent.kill('SIGTERM');
    await exited;
  }
  await api?.stop().catch(() => undefined);
  await tb?.cleanup();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface ApiService {
  spec: { clusterIP: string; healthCheckNodePort?: number; ports: { port: number; nodePort?: number }[] };
}
/** `ovs-ofctl dump-groups`: bucket count and the endpoint IPs (as the bucket's reg3 load, hex) of each group id. */
async function dumpGroups(): Promise<Map<number, { buckets: number; text: string }>> {
  const out = await ovs.ofctl('-O', 'OpenFlow15', 'dump-groups', ovs.mgmtSocket('br-int'));
  const groups = new Map<number, { buckets: number; text: string }>();
  for (const line of out.split('\n')) {
    const id = /group_id=(\d+)/.exec(line);
    if (id) groups.set(Number(id[1]), { buckets: line.split('bucket=').length - 1, text: line });
  }
  return groups;
}
const hexIp = (ip: string): string => `0x${ip.split('.').map((o) => Number(o).toString(16).padStart(2, '0')).join('').replace(/^0+/, '')}`;

/** The answer of `get service -o json`: the API server's own default/kubernetes (no endpoints here) and the two Services of the test. */
let all: ServicePortItem[] = [];
let ports: ServicePortItem[] = [];

test('get service -o json: each Service port as the API defines it, its endpoints marked local, the LoadBalancer IP owned by this node', async () => {
  await waitFor(
    'both Services realised, the LoadBalancer IP placed, its health-check node port served',
    async () => {
      all = await yardJson<ServicePortItem[]>(['get', 'service']);
      ports = all.filter((p) => p.name !== 'kubernetes');
      const lb = ports.find((p) => p.name === 'lb');
      return ports.length === 2 && ports.every((p) => p.endpoints.length === 2) && lb?.serviceExternalIPs?.[0]?.assignedNode === NODE && (lb.externalAddresses ?? []).length === 2 && lb.healthCheckServed === true;
    },
    { timeoutMs: 30_000, intervalMs: 250 },
  ).catch((e: unknown) => {
    throw new Error(`${(e as Error).message}\nlast answer: ${JSON.stringify(all)}\nagent log:\n${agentLog.slice(-3000)}`);
  });
  const np = await kube.request<ApiService>('GET', '/api/v1/namespaces/default/services/np');
  const lbApi = await kube.request<ApiService>('GET', '/api/v1/namespaces/default/services/lb');
  const [lb, nodePort] = [ports.find((p) => p.name === 'lb')!, ports.find((p) => p.name === 'np')!];
  expect(nodePort).toMatchObject({ namespace: 'default', portName: 'http', protocol: 'TCP', clusterIP: np.spec.clusterIP, port: 80, nodePort: np.spec.ports[0]!.nodePort });
  expect(nodePort.endpoints).toEqual([{ ip: '10.94.0.10', port: 8080, local: true }, { ip: '10.94.1.10', port: 8080 }]);
  expect(nodePort).not.toHaveProperty('localGroupId');
  expect(nodePort).not.toHaveProperty('externalLocal');
  expect(lb).toMatchObject({ portName: 'https', clusterIP: lbApi.spec.clusterIP, port: 443, nodePort: lbApi.spec.ports[0]!.nodePort, externalLocal: true, affinityTimeout: 10800, healthCheckNodePort: lbApi.spec.healthCheckNodePort });
  expect([...lb.externalAddresses!].sort()).toEqual([LB_IP, EXTERNAL_IP].sort());
  expect(lb.localGroupId).toEqual(expect.any(Number));
  // Only the pool's IP has an owner; the externalIP is routed by the user.
  expect(lb.serviceExternalIPs).toEqual([{ serviceName: 'lb', namespace: 'default', externalIP: LB_IP, externalIPPool: 'lb-pool', assignedNode: NODE }]);
});

test('the groups and buckets yardctl shows are the ones installed in OVS (ovs-ofctl dump-groups)', async () => {
  const groups = await dumpGroups();
  for (const p of ports) {
    const g = groups.get(p.groupId);
    expect({ service: p.name, buckets: g?.buckets }).toEqual({ service: p.name, buckets: 2 });
    for (const e of p.endpoints) expect(g!.text).toContain(hexIp(e.ip));
  }
  const lb = ports.find((p) => p.name === 'lb')!;
  const local = groups.get(lb.localGroupId!);
  expect(local?.buckets).toBe(1);
  expect(local!.text).toContain(hexIp('10.94.0.11'));
  expect(local!.text).not.toContain(hexIp('10.94.1.11'));
  // A Service without endpoints: no endpoint shown, and its group's one bucket is the no-endpoint reject.
  const kubernetes = all.find((p) => p.name === 'kubernetes')!;
  expect(kubernetes.endpoints).toEqual([]);
  expect(groups.get(kubernetes.groupId)?.buckets).toBe(1);
});

test('the table: one row per Service port with its group, buckets, local group, owner and policies', async () => {
  const r = await yardctl(['get', 'svc']);
  expect(r).toMatchObject({ code: 0, stderr: '' });
  const [head, ...rows] = r.stdout.trimEnd().split('\n');
  expect(head!.split(/\s{3,}/)).toEqual(['NAMESPACE', 'NAME', 'PORT', 'CLUSTER-IP', 'NODE-PORT', 'EXTERNAL-IP', 'EXT-POLICY', 'INT-POLICY', 'GROUP', 'ENDPOINTS', 'LOCAL-GROUP', 'AFFINITY']);
  const cells = rows.map((row) => row.split(/\s{3,}/));
  const [lb, np] = [ports.find((p) => p.name === 'lb')!, ports.find((p) => p.name === 'np')!];
  const externals = lb.externalAddresses!.map((ip) => (ip === LB_IP ? `${ip}@${NODE}` : ip)).join(',');
  const kubernetes = all.find((p) => p.name === 'kubernetes')!;
  expect(cells).toEqual([
    ['default', 'kubernetes', '443/TCP', kubernetes.clusterIP, '<none>', '<none>', 'Cluster', 'Cluster', String(kubernetes.groupId), '<none>', '<none>', 'None'],
    ['default', 'lb', '443/TCP', lb.clusterIP, String(lb.nodePort), externals, 'Local', 'Cluster', String(lb.groupId), '10.94.0.11:8443(local),10.94.1.11:8443', String(lb.localGroupId), 'ClientIP(10800s)'],
    ['default', 'np', '80/TCP', np.clusterIP, String(np.nodePort), '<none>', 'Cluster', 'Cluster', String(np.groupId), '10.94.0.10:8080(local),10.94.1.10:8080', '<none>', 'None'],
  ]);
  const wide = await yardctl(['get', 'svc', 'default/lb', '-o', 'wide']);
  expect(wide.stdout.split('\n')[1]!.split(/\s{3,}/).slice(-3)).toEqual(['https', '10.94.0.11:8443', String(lb.healthCheckNodePort)]);
});

test('--node asks the same agent through the API server node proxy; a missing Service is NotFound (exit 1), a bad name a usage error (exit 2)', async () => {
  await waitFor('AntreaAgentInfo with the apiPort', async () => (await kube.request<{ apiPort?: number }>('GET', `/apis/crd.antrea.io/v1beta1/antreaagentinfos/${NODE}`).catch(() => ({}) as { apiPort?: number })).apiPort !== undefined, { timeoutMs: 20_000, intervalMs: 250 });
  const viaNode = await yardJson<ServicePortItem[]>(['get', 'svc', '-n', 'default'], ['--node', NODE]);
  expect(viaNode).toEqual(all);
  const missing = await yardctl(['get', 'svc', 'default/nope']);
  expect(missing).toMatchObject({ code: 1, stdout: '', stderr: 'Error from server (NotFound): services "default/nope" not found\n' });
  expect((await yardctl(['get', 'svc', 'a/b/c'])).code).toBe(2);
});
