// Egress rules with toServices peers on real OVS: the controller compiles an ACNP whose egress rule
// names a Service, the agent (with AntreaProxy) matches the Service's load-balancing group, so the
// client cannot reach that Service's ClusterIP while the same backend stays reachable by its own
// address and by another Service; `scope: ClusterSet` names the imported multi-cluster Service
// (`antrea-mc-<name>`) instead. Needs root and OVS.
import { Testbed, waitFor } from '@switchyard/testbed';
import { addPod, ensurePluginBuilt, sandbox, startControlPlane, startNode, stopNode, type ControlPlane, type Node, type Sandbox } from './helpers';

jest.setTimeout(120_000);

const NODE = 'tosvc-node';
let tb: Testbed;
let cp: ControlPlane;
let node: Node | undefined;
let client: Sandbox;
let backendIp = '';
const clusterIPs: Record<string, string> = {};

async function apiPod(name: string, ip: string, labels: Record<string, string>): Promise<void> {
  await cp.kube.request('POST', '/api/v1/namespaces/default/pods', {
    apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels },
    spec: { nodeName: NODE, containers: [{ name: 'c', image: 'x', ports: [{ name: 'web', containerPort: 8080, protocol: 'TCP' }] }] },
  });
  await cp.kube.request('PATCH', `/api/v1/namespaces/default/pods/${name}/status`, {
    status: { phase: 'Running', podIP: ip, podIPs: [{ ip }], conditions: [{ type: 'Ready', status: 'True' }] },
  }, 'application/merge-patch+json');
}

/**
 * One TCP exchange from the client: true when the backend answered. The connect timeout is long
 * enough for TCP's SYN retransmissions (1 s, then 3 s): a dropped first SYN has left a committed,
 * DNATed connection behind, and the retransmission must be dropped too.
 */
async function reaches(ip: string, port: number, connectTimeoutS = 2): Promise<boolean> {
  const r = await client.netns.exec(['socat', '-T2', '-', `TCP:${ip}:${port},connect-timeout=${connectTimeoutS}`], { allowFailure: true, input: '', timeoutMs: (connectTimeoutS + 4) * 1000 });
  return r.stdout.trim() === 'web';
}
/** Allowed: answers within three tries (a loaded machine may lose one); blocked: never answers. */
async function allowed(ip: string, port: number): Promise<boolean> {
  for (let i = 0; i < 3; i++) if (await reaches(ip, port)) return true;
  return false;
}

const acnp = (toServices: { name: string; namespace: string; scope?: 'ClusterSet' }[]) => ({
  apiVersion: 'crd.antrea.io/v1beta1', kind: 'ClusterNetworkPolicy', metadata: { name: 'no-web-service' },
  spec: {
    priority: 5, tier: 'application', appliedTo: [{ podSelector: { matchLabels: { app: 'client' } } }],
    egress: [{ action: 'Drop', name: 'to-web', toServices }],
  },
});

beforeAll(async () => {
  await ensurePluginBuilt();
  tb = await Testbed.create();
  cp = await startControlPlane(NODE);
  node = await startNode(tb, '10.95.0.0/24', { nodeName: NODE, kube: cp.kube, controlplane: cp.agentControlplane() });
  const backend = await sandbox(tb, 'web-1');
  backendIp = (await addPod(node, backend)).ip;
  tb.spawn(['socat', 'TCP-LISTEN:8080,reuseaddr,fork', 'SYSTEM:echo web'], backend.netns.name);
  await apiPod('web-1', backendIp, { app: 'web' });
  client = await sandbox(tb, 'client');
  await apiPod('client', (await addPod(node, client)).ip, { app: 'client' });
  // Three Services with the same backend: the local one, the multi-cluster import of the same name, another.
  for (const name of ['web', 'antrea-mc-web', 'other']) {
    const svc = await cp.kube.request<{ spec: { clusterIP: string } }>('POST', '/api/v1/namespaces/default/services', {
      apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' },
      spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 'web' }] },
    });
    clusterIPs[name] = svc.spec.clusterIP;
  }
  for (const name of Object.keys(clusterIPs)) await waitFor(`${name} reachable by its ClusterIP`, () => reaches(clusterIPs[name]!, 80), { timeoutMs: 20_000, intervalMs: 200 });
}, 180_000);

afterAll(async () => {
  await stopNode(node);
  await cp?.stop();
  await tb?.cleanup();
});

describe('toServices egress rules', () => {
  test('a Drop toServices web blocks web by its ClusterIP only: the backend by its own address and the other Services stay reachable', async () => {
    await cp.kube.request('POST', '/apis/crd.antrea.io/v1beta1/clusternetworkpolicies', acnp([{ name: 'web', namespace: 'default' }]));
    await waitFor('web ClusterIP blocked', async () => !(await reaches(clusterIPs.web!, 80)), { timeoutMs: 20_000, intervalMs: 200 });
    // Independent connections (each its own source port), tried together: the blocked ones wait out their connect timeouts side by side.
    const [backend, other, mcWeb, web, webRetransmitted] = await Promise.all([
      allowed(backendIp, 8080),
      allowed(clusterIPs.other!, 80),
      allowed(clusterIPs['antrea-mc-web']!, 80),
      reaches(clusterIPs.web!, 80),
      // Two retransmitted SYNs of one connection (at 1 s and 3 s): neither passes.
      reaches(clusterIPs.web!, 80, 4),
    ]);
    expect(backend).toBe(true);
    expect(other).toBe(true);
    expect(mcWeb).toBe(true);
    expect(web).toBe(false);
    expect(webRetransmitted).toBe(false);
  });

  test('scope ClusterSet blocks the imported multi-cluster Service antrea-mc-web instead', async () => {
    const path = '/apis/crd.antrea.io/v1beta1/clusternetworkpolicies/no-web-service';
    const current = await cp.kube.request<{ metadata: { resourceVersion: string } }>('GET', path);
    const next = acnp([{ name: 'web', namespace: 'default', scope: 'ClusterSet' }]);
    await cp.kube.request('PUT', path, { ...next, metadata: { ...next.metadata, resourceVersion: current.metadata.resourceVersion } });
    await waitFor('antrea-mc-web ClusterIP blocked', async () => !(await reaches(clusterIPs['antrea-mc-web']!, 80)), { timeoutMs: 20_000, intervalMs: 200 });
    const [web, backend, mcWeb, mcWebRetransmitted] = await Promise.all([
      allowed(clusterIPs.web!, 80),
      allowed(backendIp, 8080),
      reaches(clusterIPs['antrea-mc-web']!, 80),
      reaches(clusterIPs['antrea-mc-web']!, 80, 4),
    ]);
    expect(web).toBe(true);
    expect(backend).toBe(true);
    expect(mcWeb).toBe(false);
    expect(mcWebRetransmitted).toBe(false);
  });

  test('deleting the policy opens every Service again', async () => {
    await cp.kube.request('DELETE', '/apis/crd.antrea.io/v1beta1/clusternetworkpolicies/no-web-service');
    await waitFor('antrea-mc-web reachable again', () => reaches(clusterIPs['antrea-mc-web']!, 80), { timeoutMs: 20_000, intervalMs: 200 });
    expect(await allowed(clusterIPs.web!, 80)).toBe(true);
  });
});
